// The transaction log: every change a write transaction makes, in order, as instructions.
//
// The log of each commit is stored in the history (a B+tree keyed by big-endian version), in
// the same commit as the data, whenever something may need it: a reader pinned at an older
// version (notifications of live queries in any thread or process), sync (until its peers have
// the changes), or a configured retention. Notifications, sync and `atoll log` read it.
//
// Encoding: a sequence of instructions, each an opcode byte followed by varint operands
// (tables and objects by key, columns by index in the table's column list at that point of the
// log) and values in StorageValue's tagged encoding. Opcodes are listed in `LogInstruction.Op`.

/// One change recorded in the transaction log.
public enum LogInstruction: Equatable, Sendable, CustomStringConvertible {
    case addTable(TableKey, TableSpec)
    case removeTable(TableKey, name: String)
    case addColumn(TableKey, column: Int, ColumnSpec)
    case removeColumn(TableKey, column: Int, name: String)
    case renameColumn(TableKey, column: Int, from: String, to: String)
    case setIndexed(TableKey, column: Int, Bool)
    /// The table's primary key property ("" for none); only while the table is empty.
    case setPrimaryKey(TableKey, name: String)
    case createObject(TableKey, ObjectKey, primaryKey: StorageValue)
    case eraseObject(TableKey, ObjectKey, primaryKey: StorageValue)
    /// `implicit`: made by the engine (a link nullified because its target was deleted).
    case set(TableKey, ObjectKey, column: Int, value: StorageValue, implicit: Bool)
    case addInteger(TableKey, ObjectKey, column: Int, delta: Int64)
    case listInsert(TableKey, ObjectKey, column: Int, index: Int, value: StorageValue)
    case listSet(TableKey, ObjectKey, column: Int, index: Int, value: StorageValue)
    /// `implicit`: a link removed because its target was deleted.
    case listErase(TableKey, ObjectKey, column: Int, index: Int, implicit: Bool)
    case listMove(TableKey, ObjectKey, column: Int, from: Int, to: Int)
    case listClear(TableKey, ObjectKey, column: Int)
    case clearTable(TableKey)
    case setMetadata(name: String, value: [UInt8])

    enum Op: UInt8 {
        case addTable = 1, removeTable, addColumn, removeColumn, renameColumn, setIndexed, setPrimaryKey
        case createObject = 10, eraseObject, set, setImplicit, addInteger
        case listInsert = 20, listSet, listErase, listEraseImplicit, listMove, listClear
        case clearTable = 30, setMetadata
    }

    /// The table the instruction changes, if any.
    public var table: TableKey? {
        switch self {
        case .addTable(let t, _), .removeTable(let t, _), .addColumn(let t, _, _), .removeColumn(let t, _, _),
             .renameColumn(let t, _, _, _), .setIndexed(let t, _, _), .setPrimaryKey(let t, _), .createObject(let t, _, _), .eraseObject(let t, _, _),
             .set(let t, _, _, _, _), .addInteger(let t, _, _, _), .listInsert(let t, _, _, _, _), .listSet(let t, _, _, _, _),
             .listErase(let t, _, _, _, _), .listMove(let t, _, _, _, _), .listClear(let t, _, _), .clearTable(let t):
            return t
        case .setMetadata: return nil
        }
    }

    public var description: String {
        switch self {
        case .addTable(let t, let s): "AddTable \(t.rawValue) \(s.name) [\(s.columns.map(\.description).joined(separator: ", "))]"
        case .removeTable(let t, let n): "RemoveTable \(t.rawValue) \(n)"
        case .addColumn(let t, let c, let s): "AddColumn \(t.rawValue) #\(c) \(s)"
        case .removeColumn(let t, let c, let n): "RemoveColumn \(t.rawValue) #\(c) \(n)"
        case .renameColumn(let t, let c, let a, let b): "RenameColumn \(t.rawValue) #\(c) \(a) -> \(b)"
        case .setIndexed(let t, let c, let on): "SetIndexed \(t.rawValue) #\(c) \(on)"
        case .setPrimaryKey(let t, let name): "SetPrimaryKey \(t.rawValue) \(name.isEmpty ? "none" : name)"
        case .createObject(let t, let k, let pk): "CreateObject \(t.rawValue) \(k.rawValue) pk=\(pk)"
        case .eraseObject(let t, let k, let pk): "EraseObject \(t.rawValue) \(k.rawValue) pk=\(pk)"
        case .set(let t, let k, let c, let v, let implicit): "Set\(implicit ? "(implicit)" : "") \(t.rawValue) \(k.rawValue) #\(c) = \(v)"
        case .addInteger(let t, let k, let c, let d): "AddInteger \(t.rawValue) \(k.rawValue) #\(c) += \(d)"
        case .listInsert(let t, let k, let c, let i, let v): "ListInsert \(t.rawValue) \(k.rawValue) #\(c) [\(i)] = \(v)"
        case .listSet(let t, let k, let c, let i, let v): "ListSet \(t.rawValue) \(k.rawValue) #\(c) [\(i)] = \(v)"
        case .listErase(let t, let k, let c, let i, let implicit): "ListErase\(implicit ? "(implicit)" : "") \(t.rawValue) \(k.rawValue) #\(c) [\(i)]"
        case .listMove(let t, let k, let c, let a, let b): "ListMove \(t.rawValue) \(k.rawValue) #\(c) [\(a)] -> [\(b)]"
        case .listClear(let t, let k, let c): "ListClear \(t.rawValue) \(k.rawValue) #\(c)"
        case .clearTable(let t): "ClearTable \(t.rawValue)"
        case .setMetadata(let n, let v): "SetMetadata \(n) (\(v.count) bytes)"
        }
    }
}

/// Appends instructions to a transaction's log.
struct TransactionLogWriter {
    private(set) var writer = ByteWriter(capacity: 256)
    private(set) var instructionCount = 0

    var bytes: [UInt8] { writer.bytes }
    var isEmpty: Bool { instructionCount == 0 }

    private mutating func op(_ o: LogInstruction.Op, _ t: TableKey) {
        writer.u8(o.rawValue)
        writer.varint(UInt64(t.rawValue))
        instructionCount += 1
    }

    mutating func append(_ i: LogInstruction) {
        switch i {
        case .addTable(let t, let s): op(.addTable, t); writer.blob(s.encode())
        case .removeTable(let t, let n): op(.removeTable, t); writer.string(n)
        case .addColumn(let t, let c, let s):
            op(.addColumn, t); writer.varint(UInt64(c))
            writer.blob(TableSpec(name: "_", columns: [s]).encode())
        case .removeColumn(let t, let c, let n): op(.removeColumn, t); writer.varint(UInt64(c)); writer.string(n)
        case .renameColumn(let t, let c, let a, let b): op(.renameColumn, t); writer.varint(UInt64(c)); writer.string(a); writer.string(b)
        case .setIndexed(let t, let c, let on): op(.setIndexed, t); writer.varint(UInt64(c)); writer.u8(on ? 1 : 0)
        case .setPrimaryKey(let t, let name): op(.setPrimaryKey, t); writer.string(name)
        case .createObject(let t, let k, let pk): op(.createObject, t); writer.varint(k.rawValue); pk.encode(into: &writer)
        case .eraseObject(let t, let k, let pk): op(.eraseObject, t); writer.varint(k.rawValue); pk.encode(into: &writer)
        case .set(let t, let k, let c, let v, let implicit):
            op(implicit ? .setImplicit : .set, t); writer.varint(k.rawValue); writer.varint(UInt64(c)); v.encode(into: &writer)
        case .addInteger(let t, let k, let c, let d): op(.addInteger, t); writer.varint(k.rawValue); writer.varint(UInt64(c)); writer.zigzag(d)
        case .listInsert(let t, let k, let c, let idx, let v):
            op(.listInsert, t); writer.varint(k.rawValue); writer.varint(UInt64(c)); writer.varint(UInt64(idx)); v.encode(into: &writer)
        case .listSet(let t, let k, let c, let idx, let v):
            op(.listSet, t); writer.varint(k.rawValue); writer.varint(UInt64(c)); writer.varint(UInt64(idx)); v.encode(into: &writer)
        case .listErase(let t, let k, let c, let idx, let implicit):
            op(implicit ? .listEraseImplicit : .listErase, t); writer.varint(k.rawValue); writer.varint(UInt64(c)); writer.varint(UInt64(idx))
        case .listMove(let t, let k, let c, let a, let b):
            op(.listMove, t); writer.varint(k.rawValue); writer.varint(UInt64(c)); writer.varint(UInt64(a)); writer.varint(UInt64(b))
        case .listClear(let t, let k, let c): op(.listClear, t); writer.varint(k.rawValue); writer.varint(UInt64(c))
        case .clearTable(let t): op(.clearTable, t)
        case .setMetadata(let n, let v): op(.setMetadata, TableKey(0)); writer.string(n); writer.blob(v)
        }
    }
}

/// Decodes a stored transaction log.
public struct TransactionLogReader: Sequence, IteratorProtocol {
    private let bytes: [UInt8]
    private var offset = 0
    public private(set) var error: AtollError?

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public mutating func next() -> LogInstruction? {
        guard offset < bytes.count, error == nil else { return nil }
        do {
            return try bytes.withUnsafeBytes { buffer in
                var r = ByteReader(buffer, context: "transaction log")
                r.offset = offset
                let i = try Self.decode(&r)
                offset = r.offset
                return i
            }
        } catch let e as AtollError {
            error = e
            return nil
        } catch {
            return nil
        }
    }

    /// Every instruction, or the first decoding error.
    public static func decodeAll(_ bytes: [UInt8]) throws -> [LogInstruction] {
        var reader = TransactionLogReader(bytes)
        var result: [LogInstruction] = []
        while let i = reader.next() { result.append(i) }
        if let e = reader.error { throw e }
        return result
    }

    private static func decode(_ r: inout ByteReader) throws -> LogInstruction {
        let raw = try r.u8()
        guard let op = LogInstruction.Op(rawValue: raw) else { throw AtollError.corrupted("unknown log opcode \(raw)") }
        let t = TableKey(UInt32(try r.length(max: Int(UInt32.max))))
        func column() throws -> Int { try r.length(max: SchemaLimits.columnsPerTableMax) }
        func index() throws -> Int { try r.length(max: Int(Int32.max)) }
        func object() throws -> ObjectKey { ObjectKey(try r.varint()) }
        switch op {
        case .addTable:
            let b = try r.blob(max: 1 << 20)
            return .addTable(t, try b.withUnsafeBytes { try TableSpec.decode($0) })
        case .removeTable: return .removeTable(t, name: try r.string(max: 1024))
        case .addColumn:
            let c = try column()
            let b = try r.blob(max: 1 << 20)
            let spec = try b.withUnsafeBytes { try TableSpec.decode($0) }
            guard let col = spec.columns.first else { throw AtollError.corrupted("AddColumn without a column") }
            return .addColumn(t, column: c, col)
        case .removeColumn: return .removeColumn(t, column: try column(), name: try r.string(max: 1024))
        case .renameColumn: return .renameColumn(t, column: try column(), from: try r.string(max: 1024), to: try r.string(max: 1024))
        case .setIndexed: return .setIndexed(t, column: try column(), try r.u8() != 0)
        case .setPrimaryKey: return .setPrimaryKey(t, name: try r.string(max: 1024))
        case .createObject: return .createObject(t, try object(), primaryKey: try StorageValue.decode(from: &r))
        case .eraseObject: return .eraseObject(t, try object(), primaryKey: try StorageValue.decode(from: &r))
        case .set, .setImplicit:
            return .set(t, try object(), column: try column(), value: try StorageValue.decode(from: &r), implicit: op == .setImplicit)
        case .addInteger: return .addInteger(t, try object(), column: try column(), delta: try r.zigzag())
        case .listInsert: return .listInsert(t, try object(), column: try column(), index: try index(), value: try StorageValue.decode(from: &r))
        case .listSet: return .listSet(t, try object(), column: try column(), index: try index(), value: try StorageValue.decode(from: &r))
        case .listErase, .listEraseImplicit:
            return .listErase(t, try object(), column: try column(), index: try index(), implicit: op == .listEraseImplicit)
        case .listMove: return .listMove(t, try object(), column: try column(), from: try index(), to: try index())
        case .listClear: return .listClear(t, try object(), column: try column())
        case .clearTable: return .clearTable(t)
        case .setMetadata: return .setMetadata(name: try r.string(max: 1024), value: try r.blob(max: 1 << 24))
        }
    }
}
