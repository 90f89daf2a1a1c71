import AtollStorage

// Embedded objects in sync (docs/SYNC.md, "Embedded objects").
//
// An embedded object travels as an object of its embedded class whose primary key is its path,
// a string naming the parent's class, the parent's primary key and the to-one properties from
// the parent down to it (`EmbeddedPath`). Instructions on it are the ordinary create, erase and
// set, so the changeset body format and the relay's history do not change.
//
//   sync.embedded   u8 length ++ parent object key ++ steps
//                                                    -> EmbeddedRecord: the stamps and values of
//                                                       one embedded object (by path)
//                   u8 length ++ parent object key ++ steps ++ u16 BE (0x8000 | column)
//                                                    -> ListRecord: a list of embedded objects
//                                                       (its elements' values are nil)
//                   u8 length ++ parent object key ++ steps ++ u16 BE (0x4000 | column)
//                                                    -> MapRecord: a map of embedded objects
//                                                       (per key: an object, nil or a removal)
//   sync.embedded.removed  the key of a list of embedded objects in sync.embedded
//                                                    -> nothing: the list holds a removed element
//                                                       whose removal reading is known, to collect
//                                                       (SyncWriter+Collect.swift)
//   step: u16 BE column (a to-one property, column < 0x4000), or u16 BE (0x8000 | column) ++
//         u64 BE lamport ++ 16-byte node (an element of a list of embedded objects,
//         SyncWriter+EmbeddedLists.swift), or u16 BE (0x4000 | column) ++ u16 BE length ++ the
//         key's UTF-8 (the object at a key of a map of embedded objects,
//         SyncWriter+EmbeddedMaps.swift). A list's elements' records follow its own key, and a
//         map's entries' records its own key.

/// One step of the path from a synced object down to an embedded object: a to-one embedded
/// property, an element (by its id in the list's RGA) of a list of embedded objects, or the
/// object at a key of a map of embedded objects.
enum EmbeddedStep: Hashable {
    case property(Int)
    case element(Int, ElementID)
    case entry(Int, String)

    var column: Int {
        switch self {
        case .property(let c), .element(let c, _), .entry(let c, _): return c
        }
    }

    var isElement: Bool {
        if case .element = self { return true }
        return false
    }

    static let listFlag = 0x8000
    static let mapFlag = 0x4000
    /// The longest key (in UTF-8 bytes) a map of embedded objects syncs: the key is part of the
    /// records' keys in `sync.embedded` (B+tree keys are at most 512 bytes, with the parent's key
    /// and the conflict ledger's suffix).
    static let mapKeyBytesMax = 128

    func append(to k: inout [UInt8]) {
        switch self {
        case .property(let c):
            k.append(UInt8(truncatingIfNeeded: c >> 8))
            k.append(UInt8(truncatingIfNeeded: c))
        case .element(let c, let id):
            k.append(UInt8(truncatingIfNeeded: (c | Self.listFlag) >> 8))
            k.append(UInt8(truncatingIfNeeded: c))
            id.appendKeyBytes(to: &k)
        case .entry(let c, let key):
            let bytes = Array(key.utf8)
            k.append(UInt8(truncatingIfNeeded: (c | Self.mapFlag) >> 8))
            k.append(UInt8(truncatingIfNeeded: c))
            k.append(UInt8(truncatingIfNeeded: bytes.count >> 8))
            k.append(UInt8(truncatingIfNeeded: bytes.count))
            k.append(contentsOf: bytes)
        }
    }

    /// The steps of a `sync.embedded` key after its parent part, and whether the key ends with a
    /// list's own key (u16 0x8000 | column with no element after it: a `ListRecord`) or a map's
    /// (u16 0x4000 | column with no key after it: a `MapRecord`).
    static func parse(_ key: [UInt8], from start: Int) throws -> (steps: [EmbeddedStep], list: Int?, map: Int?) {
        var steps: [EmbeddedStep] = []
        var i = start
        func be(_ at: Int) -> UInt64 {
            var v: UInt64 = 0
            for j in at..<(at + 8) { v = v << 8 | UInt64(key[j]) }
            return v
        }
        while i < key.count {
            guard i + 2 <= key.count else { throw AtollError.corrupted("sync.embedded key of \(key.count) bytes") }
            let raw = Int(key[i]) << 8 | Int(key[i + 1])
            i += 2
            if raw & mapFlag != 0 {
                let column = raw & ~mapFlag
                if i == key.count { return (steps, nil, column) }
                guard i + 2 <= key.count else { throw AtollError.corrupted("sync.embedded key of \(key.count) bytes") }
                let n = Int(key[i]) << 8 | Int(key[i + 1])
                i += 2
                guard n > 0, n <= mapKeyBytesMax, i + n <= key.count, let k = String(validating: key[i..<(i + n)], as: UTF8.self) else {
                    throw AtollError.corrupted("sync.embedded key of \(key.count) bytes with a map key of \(n)")
                }
                steps.append(.entry(column, k))
                i += n
                continue
            }
            guard raw & listFlag != 0 else { steps.append(.property(raw)); continue }
            let column = raw & ~listFlag
            if i == key.count { return (steps, column, nil) }
            guard i + 24 <= key.count else { throw AtollError.corrupted("sync.embedded key of \(key.count) bytes") }
            steps.append(.element(column, ElementID(lamport: be(i), node: NodeID(high: be(i + 8), low: be(i + 16)))))
            i += 24
        }
        return (steps, nil, nil)
    }
}

extension ElementID {
    /// Appends the id as a key step takes it: its Lamport number and its node, big-endian.
    func appendKeyBytes(to k: inout [UInt8]) {
        for v in [lamport, node.high, node.low] {
            for shift in stride(from: 56, through: 0, by: -8) { k.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
        }
    }
}

extension SyncTrees {
    static let embedded = "sync.embedded"
    /// Keys of `embedded` that are lists of embedded objects holding a removed element whose
    /// removal reading is known, to collect (SyncWriter+Collect.swift) -> nothing.
    static let embeddedListsWithRemovals = "sync.embedded.removed"

    /// The key of an embedded object's record: its parent's object key, then the path's columns.
    static func embeddedKey(_ parent: [UInt8], _ steps: [Int]) -> [UInt8] {
        embeddedKey(parent, steps.map { EmbeddedStep.property($0) })
    }

    /// The key of an embedded object's record: its parent's object key, then the path's steps.
    static func embeddedKey(_ parent: [UInt8], _ steps: [EmbeddedStep]) -> [UInt8] {
        var k: [UInt8] = [UInt8(truncatingIfNeeded: parent.count)]
        k.reserveCapacity(parent.count + 1 + steps.count * 2)
        k.append(contentsOf: parent)
        for s in steps { s.append(to: &k) }
        return k
    }

    /// The key of the `ListRecord` of list of embedded objects `column` of the object at `steps`
    /// (none: the parent itself). Its elements' record keys start with it.
    static func embeddedListKey(_ parent: [UInt8], _ steps: [EmbeddedStep], column: Int) -> [UInt8] {
        var k = embeddedKey(parent, steps)
        k.append(UInt8(truncatingIfNeeded: (column | EmbeddedStep.listFlag) >> 8))
        k.append(UInt8(truncatingIfNeeded: column))
        return k
    }

    /// The key of the `MapRecord` of map of embedded objects `column` of the object at `steps`
    /// (none: the parent itself). Its entries' record keys start with it.
    static func embeddedMapKey(_ parent: [UInt8], _ steps: [EmbeddedStep], column: Int) -> [UInt8] {
        embeddedMapKey(holder: embeddedKey(parent, steps), column: column)
    }

    /// The same, from the holder's own record key (`embeddedKey`).
    static func embeddedMapKey(holder: [UInt8], column: Int) -> [UInt8] {
        var k = holder
        k.append(UInt8(truncatingIfNeeded: (column | EmbeddedStep.mapFlag) >> 8))
        k.append(UInt8(truncatingIfNeeded: column))
        return k
    }
}

/// Where an embedded object is: its parent (a synced object) and the to-one embedded properties
/// from the parent down to it.
///
/// As a primary key on the wire it is a string of length-prefixed parts, `<bytes>:<text>`: the
/// parent's class name, `p` and the hex of the parent primary key's tagged encoding, then one
/// property name per step. For example `7:Contact5:p03027:address3:geo` (contact 1: tag 3, zigzag 2).
/// A step through a list of embedded objects is the list's name followed by a part naming the
/// element (`EmbeddedPath.elementPart`: its Lamport number, `@` and its node's 32 hex digits), so
/// `5:Route5:p03025:stops34:3@000000000000000a000000000000000b` (element (3, node a…b) of the
/// stops of route 1). A step through a map of embedded objects is the map's name followed by
/// `=` and the key (`EmbeddedPath.keyPart`), so `5:Route5:p03025:notes5:=home` (the object at
/// key `home` of the notes of route 1).
struct EmbeddedPath: Equatable {
    var parentClass: String
    var parentPrimaryKey: StorageValue
    var properties: [String]

    var string: String {
        var w = ByteWriter(capacity: 16)
        parentPrimaryKey.encode(into: &w)
        var out = ""
        func part(_ s: String) { out += "\(s.utf8.count):\(s)" }
        part(parentClass)
        part("p" + w.bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined())
        for p in properties { part(p) }
        return out
    }

    init(parentClass: String, parentPrimaryKey: StorageValue, properties: [String]) {
        self.parentClass = parentClass
        self.parentPrimaryKey = parentPrimaryKey
        self.properties = properties
    }

    /// Parses a path; malformed input throws `.protocolViolation`.
    init(parsing s: String) throws {
        switch Self.parse(s) {
        case .success(let path): self = path
        case .failure(let why as NotAPath): throw AtollError(.protocolViolation, "a changeset names an embedded object by a malformed path (\(why.reason))")
        case .failure(let error): throw error   // the parent's key did not decode
        }
    }

    /// The path `s` spells, or nil when it spells none (an ordinary string key, which may be
    /// anything a primary key can be).
    init?(ifSpelledBy s: String) {
        guard case .success(let path) = Self.parse(s) else { return nil }
        self = path
    }

    /// Why a string is not a path.
    struct NotAPath: Error { let reason: String }

    private static func parse(_ s: String) -> Result<EmbeddedPath, any Error> {
        func bad(_ why: String) -> NotAPath { NotAPath(reason: why) }
        let bytes = Array(s.utf8)
        var i = 0
        var parts: [String] = []
        while i < bytes.count {
            var n = 0
            var digits = 0
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                n = n * 10 + Int(bytes[i] - 0x30)
                digits += 1
                i += 1
                guard digits <= 6 else { return .failure(bad("a part is too long")) }
            }
            guard digits > 0, i < bytes.count, bytes[i] == 0x3A else { return .failure(bad("no part length")) }
            i += 1
            guard n > 0, i + n <= bytes.count, let part = String(validating: bytes[i..<(i + n)], as: UTF8.self) else { return .failure(bad("a part runs past its end")) }
            parts.append(part)
            i += n
        }
        guard parts.count >= 3, parts[1].hasPrefix("p") else { return .failure(bad("it has no parent and property")) }
        let hex = Array(parts[1].utf8.dropFirst())
        guard hex.count % 2 == 0, !hex.isEmpty else { return .failure(bad("the parent's key")) }
        var raw: [UInt8] = []
        var j = 0
        while j < hex.count {
            guard let b = UInt8(String(decoding: hex[j..<(j + 2)], as: UTF8.self), radix: 16) else { return .failure(bad("the parent's key")) }
            raw.append(b)
            j += 2
        }
        let decoded = Result { () throws -> StorageValue in
            try raw.withUnsafeBytes { buffer -> StorageValue in
                var r = ByteReader(buffer, context: "embedded path", source: .peer)
                let v = try StorageValue.decode(from: &r)
                guard r.isAtEnd else { throw bad("bytes after the parent's key") }
                return v
            }
        }
        return decoded.flatMap { pk in
            let path = EmbeddedPath(parentClass: parts[0], parentPrimaryKey: pk, properties: Array(parts[2...]))
            // Only the canonical spelling names an object (one object, one name).
            return path.string == s ? .success(path) : .failure(bad("not in canonical form"))
        }
    }
}

/// The sync state of one embedded object: like `ObjectRecord` (a tombstone, a last-write
/// stamp, per field the stamp of the write it holds), plus the field values (the table row can
/// go with an ancestor and come back from the record) and the local row it is shown as.
///
/// Encoding:
///
///     u8 flags (1: latest, 2: deleted, 4: row), [latest stamp], [deleted stamp], [varint row key]
///     varint field count, per field (ascending column): varint column, stamp, tagged value
struct EmbeddedRecord: Equatable {
    struct Field: Equatable {
        var column: Int
        var stamp: Stamp
        var value: StorageValue
    }

    var latest: Stamp?
    var deleted: Stamp?
    var row: ObjectKey?
    var fields: [Field] = []

    mutating func noteWrite(_ s: Stamp) {
        if latest.map({ s > $0 }) ?? true { latest = s }
    }

    mutating func noteDelete(_ s: Stamp) {
        if deleted.map({ s > $0 }) ?? true { deleted = s }
    }

    /// Whether the object exists under `tombstone` (the greatest delete of it, its ancestors
    /// and its parent).
    func exists(under tombstone: Stamp?) -> Bool {
        guard let latest else { return false }
        return tombstone.map { latest > $0 } ?? true
    }

    func field(_ column: Int) -> Field? { fields.first { $0.column == column } }

    /// The value field `column` shows under `tombstone`: its write if it came after, else nil
    /// (the default).
    func value(_ column: Int, under tombstone: Stamp?) -> StorageValue? {
        guard let f = field(column), tombstone.map({ f.stamp > $0 }) ?? true else { return nil }
        return f.value
    }

    mutating func setField(_ column: Int, _ stamp: Stamp, _ value: StorageValue) {
        if let i = fields.firstIndex(where: { $0.column == column }) {
            fields[i].stamp = stamp
            fields[i].value = value
            return
        }
        let at = fields.firstIndex { $0.column > column } ?? fields.count
        fields.insert(Field(column: column, stamp: stamp, value: value), at: at)
    }

    func encode(_ nodes: inout NodeTable) -> [UInt8] {
        var w = ByteWriter(capacity: 16 + fields.count * 8)
        w.u8((latest != nil ? 1 : 0) | (deleted != nil ? 2 : 0) | (row != nil ? 4 : 0))
        if let latest { w.stamp(latest, &nodes) }
        if let deleted { w.stamp(deleted, &nodes) }
        if let row { w.varint(row.rawValue) }
        w.varint(UInt64(fields.count))
        for f in fields {
            w.varint(UInt64(f.column))
            w.stamp(f.stamp, &nodes)
            f.value.encode(into: &w)
        }
        return w.bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, _ nodes: NodeTable) throws -> EmbeddedRecord {
        var r = ByteReader(bytes, context: "sync embedded record")
        var e = EmbeddedRecord()
        let flags = try r.u8()
        guard flags <= 7 else { throw AtollError.corrupted("sync embedded record: flags \(flags)") }
        if flags & 1 != 0 { e.latest = try r.stamp(nodes) }
        if flags & 2 != 0 { e.deleted = try r.stamp(nodes) }
        if flags & 4 != 0 { e.row = ObjectKey(try r.varint()) }
        let n = try r.length(max: SchemaLimits.columnsPerTableMax)
        for _ in 0..<n {
            let column = try r.length(max: SchemaLimits.columnsPerTableMax)
            let stamp = try r.stamp(nodes)
            e.fields.append(Field(column: column, stamp: stamp, value: try StorageValue.decode(from: &r)))
        }
        return e
    }
}

extension EmbeddedPath {
    /// The part naming element `id` of a list of embedded objects: `<lamport>@<node hex>`.
    static func elementPart(_ id: ElementID) -> String { "\(id.lamport)@\(id.node)" }

    /// Parses an element part; anything but the canonical spelling throws `.protocolViolation`.
    static func element(parsing part: String) throws -> ElementID {
        let bad = AtollError(.protocolViolation, "a changeset names an element of a list of embedded objects by a malformed part '\(part.prefix(64))'")
        let pieces = part.split(separator: "@", omittingEmptySubsequences: false)
        guard pieces.count == 2, pieces[0].utf8.count <= 20, let lamport = UInt64(pieces[0]), lamport > 0, lamport <= SyncLimits.lamportMax,
              pieces[1].utf8.count == 32, let node = NodeID(hex: String(pieces[1])) else { throw bad }
        let id = ElementID(lamport: lamport, node: node)
        guard elementPart(id) == part else { throw bad }
        return id
    }

    /// The part naming key `key` of a map of embedded objects: `=<key>`.
    static func keyPart(_ key: String) -> String { "=" + key }

    /// Parses a key part; anything but `=` and a valid map key of at most
    /// `EmbeddedStep.mapKeyBytesMax` bytes throws `.protocolViolation`.
    static func key(parsing part: String) throws -> String {
        let bad = AtollError(.protocolViolation, "a changeset names an object of a map of embedded objects by a malformed part '\(part.prefix(64))'")
        guard part.hasPrefix("=") else { throw bad }
        let key = String(part.dropFirst())
        try checkMapKey(key)
        return key
    }

    /// Throws `.protocolViolation` unless `key` is a key a map of embedded objects syncs.
    static func checkMapKey(_ key: String) throws {
        guard key.utf8.count <= EmbeddedStep.mapKeyBytesMax else {
            throw AtollError(.protocolViolation, "a changeset names a key of \(key.utf8.count) bytes in a map of embedded objects (at most \(EmbeddedStep.mapKeyBytesMax))")
        }
        do {
            try MapKeyRules.validate(key)
        } catch let e as AtollError {
            throw AtollError(.protocolViolation, "a changeset names a key of a map of embedded objects that no map can hold: \(e.message)")
        }
    }

    /// The key of this embedded object's record in `sync.embedded`, read from the file's schema
    /// (nil: the file has no such parent class or property).
    func recordKey(_ r: Transaction) throws -> [UInt8]? {
        guard let parent = try r.table(named: parentClass) else { return nil }
        var spec = parent.spec
        var steps: [EmbeddedStep] = []
        var i = 0
        while i < properties.count {
            guard let column = spec.columnIndex(named: properties[i]), let target = spec.columns[column].linkTarget,
                  let next = try r.table(named: target) else { return nil }
            if spec.columns[column].isMap {
                guard i + 1 < properties.count else { return nil }
                steps.append(.entry(column, try Self.key(parsing: properties[i + 1])))
                i += 2
            } else if spec.columns[column].isList {
                guard !spec.columns[column].isSet, i + 1 < properties.count else { return nil }
                steps.append(.element(column, try Self.element(parsing: properties[i + 1])))
                i += 2
            } else {
                steps.append(.property(column))
                i += 1
            }
            spec = next.spec
        }
        return SyncTrees.embeddedKey(SyncTrees.objectKey(parent.key, parentPrimaryKey), steps)
    }
}
