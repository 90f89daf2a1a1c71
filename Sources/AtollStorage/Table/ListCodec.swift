import struct Foundation.UUID

// A list value is stored like a string value (inline in the leaf, or in a blob when large):
//
//     varint count, then the blocks of the element type for `count` rows (BlockCodec format).
//     Element blocks: one block, or two int blocks (seconds, nanoseconds) for timestamps.
//     Lists of links store the target object keys in an int block.
//
// A set is stored exactly like a list whose elements are unique and sorted (SetOrder). A map
// is stored like a list of its values sorted by key, with one more block in front: the keys,
// a bytes block without nulls (UTF-8):
//
//     varint count, keys block (bytes), then the value blocks as for a list.
//
// Readers of a map that only want its values (queries, aggregates) see them through the same
// ListView as a list's elements.
//
// Reading an element is O(1) from the encoded bytes. A transaction that changes a list keeps
// it decoded (Table.dirtyLists) and encodes it once at commit.

enum ListCodec {
    static func blockSpecs(for column: ColumnSpec) -> [BlockSpec] {
        // Lists and sets of links hold no nulls (a deleted target is removed); a map's link
        // value becomes null when its target is deleted.
        let nullable = column.isNullable && (column.type != .link || column.isMap)
        switch column.type {
        case .timestamp: return [BlockSpec(kind: .ints, nullable: nullable), BlockSpec(kind: .ints, nullable: false)]
        default: return [BlockSpec(kind: column.elementSpec.physical, nullable: nullable)]
        }
    }

    /// Encodes `values` (already validated for the column) into list bytes; for a map column,
    /// `keys` are the map's keys in the order of `values` (sorted).
    static func encode(_ values: [StorageValue], keys: [String] = [], column: ColumnSpec) -> [UInt8] {
        assert(!column.isMap || keys.count == values.count, "a map needs one key per value")
        let specs = (column.isMap ? [BlockSpec(kind: .bytes, nullable: false)] : []) + blockSpecs(for: column)
        let blocks = specs.map { MutableBlock(spec: $0, capacity: values.count) }
        let valueBlocks = column.isMap ? Array(blocks.dropFirst()) : blocks
        for (r, v) in values.enumerated() {
            for b in blocks { b.insertDefault(at: r) }
            if column.isMap { var k = keys[r]; k.withUTF8 { blocks[0].setBytes(r, UnsafeRawBufferPointer($0), external: false) } }
            // A mixed element is stored as its tagged encoding in a bytes block.
            fill(valueBlocks, row: r, value: column.type == .mixed && !v.isNull ? .binary(v.mixedBytes) : v)
        }
        var w = ByteWriter(capacity: 16)
        w.varint(UInt64(values.count))
        let size = blocks.reduce(0) { $0 + BlockCodec.encodedBytes($1, rows: values.count) }
        var bytes = w.bytes
        let headerCount = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: size))
        bytes.withUnsafeMutableBytes { buf in
            guard let p = buf.baseAddress else { return }
            var at = headerCount
            for b in blocks { at = BlockCodec.encode(b, rows: values.count, into: p, at: at) }
        }
        return bytes
    }

    private static func fill(_ blocks: [MutableBlock], row r: Int, value v: StorageValue) {
        let b = blocks[0]
        switch v {
        case .null: b.setNull(r, true)
        case .bool(let x): b.setInt(r, x ? 1 : 0)
        case .int(let x): b.setInt(r, x)
        case .link(let k): b.setInt(r, Int64(bitPattern: k.rawValue))
        case .float(let x): b.values.pointer.storeBytes(of: x.bitPattern.littleEndian, toByteOffset: r * 4, as: UInt32.self)
        case .double(let x): b.values.pointer.setU64(r * 8, x.bitPattern)
        case .timestamp(let t): b.setInt(r, t.seconds); blocks[1].setInt(r, Int64(t.nanoseconds))
        case .uuid(let u): withUnsafeBytes(of: u.uuid) { if let src = $0.baseAddress { (b.values.pointer + r * 16).copyMemory(from: src, byteCount: 16) } }
        case .objectId(let o): o.store(to: b.values.pointer + r * 12)
        case .decimal128(let d): d.store(to: b.values.pointer + r * 16)
        case .string(var s): s.withUTF8 { b.setBytes(r, UnsafeRawBufferPointer($0), external: false) }
        case .binary(let d): d.withUnsafeBytes { b.setBytes(r, $0, external: false) }
        case .typedLink, .mixedList, .mixedMap: preconditionFailure("a typed link or nested collection is a mixed element, stored as its tagged encoding")
        }
    }
}

/// Read access to an encoded list value. Opening one and reading its elements allocates
/// nothing except for string and binary elements (queries read lists of every object scanned).
package struct ListView {
    package let count: Int
    /// The element type (the list column's type).
    let type: ColumnType
    /// How elements are stored: the element type's physical kind.
    let kind: PhysicalKind
    let p: UnsafeRawPointer
    /// Offsets of the element blocks (the second only for timestamps: nanoseconds).
    let start0: Int
    let start1: Int
    /// For a map: the offset of the keys block (-1 for lists and sets).
    let keyStart: Int

    /// Validates `bytes` as a list of `column`'s element type (or a map of them).
    init(_ bytes: UnsafeRawBufferPointer, column: ColumnSpec) throws {
        type = column.type
        kind = column.elementSpec.physical
        guard bytes.count > 0, let base = bytes.baseAddress else {
            count = 0
            p = UnsafeRawPointer(bitPattern: 8).unsafelyUnwrapped
            start0 = 0
            start1 = 0
            keyStart = -1
            return
        }
        var r = ByteReader(bytes, context: "list value")
        let n = try r.length(max: bytes.count * 8)
        // The same blocks as ListCodec.blockSpecs: one of the element's kind, or two int
        // blocks for timestamps.
        func blockEnd(_ kind: PhysicalKind, at: Int) throws -> Int {
            guard let end = BlockCodec.end(kind: kind, base, at: at, rows: n, limit: bytes.count), end <= bytes.count else {
                throw AtollError.corrupted("list value of \(bytes.count) bytes is malformed")
            }
            return end
        }
        if column.isMap {
            keyStart = r.offset
            start0 = try blockEnd(.bytes, at: keyStart)
        } else {
            keyStart = -1
            start0 = r.offset
        }
        let end0 = try blockEnd(kind, at: start0)
        if column.type == .timestamp {
            start1 = end0
            _ = try blockEnd(.ints, at: start1)
        } else {
            start1 = 0
        }
        count = n
        p = base
        if type == .mixed {
            // Validated once here, so that `value(at:)` decodes elements known to be whole.
            let column = BlockCodec.bytesColumn(base, at: start0, rows: n)
            for i in 0..<n where !column.isNull(i) { _ = try StorageValue.mixed(from: column.stored(i)) }
        }
    }

    package func value(at i: Int) -> StorageValue {
        guard i >= 0, i < count else { return .null }
        switch kind {
        case .ints:
            let c = BlockCodec.intColumn(p, at: start0, rows: count)
            if c.isNull(i) { return .null }
            switch type {
            case .bool: return .bool(c[i] != 0)
            case .link: return .link(ObjectKey(UInt64(bitPattern: c[i])))
            case .timestamp:
                let ns = BlockCodec.intColumn(p, at: start1, rows: count)
                return .timestamp(Timestamp(seconds: c[i], nanoseconds: Int32(truncatingIfNeeded: ns[i])))
            default: return .int(c[i])
            }
        case .float32:
            let c = BlockCodec.float32Column(p, at: start0, rows: count)
            return c.isNull(i) ? .null : .float(c[i])
        case .float64:
            let c = BlockCodec.float64Column(p, at: start0, rows: count)
            return c.isNull(i) ? .null : .double(c[i])
        case .fixed(let k):
            let c = BlockCodec.fixedColumn(p, at: start0, rows: count)
            if c.isNull(i) { return .null }
            let b = c.bytes(i)
            if type == .decimal128 { return .decimal128(Decimal128(littleEndianBytes: b)) }
            if k == 16, b.count == 16 {
                return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
            }
            return .objectId(ObjectId(twelveBytes: Array(b)))
        case .bytes:
            let c = BlockCodec.bytesColumn(p, at: start0, rows: count)
            if c.isNull(i) { return .null }
            let b = c.stored(i)
            // Every element was decoded once by init, which throws for a malformed one.
            if type == .mixed {
                do { return try StorageValue.mixed(from: b) } catch {
                    preconditionFailure("a mixed list element changed after ListView.init validated it: \(error)")
                }
            }
            return type == .string ? .string(String(decoding: b, as: UTF8.self)) : .binary(Array(b))
        }
    }

    package var values: [StorageValue] { (0..<count).map { value(at: $0) } }

    /// Calls `body` with each element in order; a list of ints, bools or links reads its
    /// block's header once instead of once per element.
    package func forEach(_ body: (StorageValue) -> Void) {
        guard case .ints = kind, type != .timestamp else {
            for i in 0..<count { body(value(at: i)) }
            return
        }
        guard count > 0 else { return }
        let c = BlockCodec.intColumn(p, at: start0, rows: count)
        for i in 0..<count {
            if c.isNull(i) { body(.null); continue }
            switch type {
            case .bool: body(.bool(c[i] != 0))
            case .link: body(.link(ObjectKey(UInt64(bitPattern: c[i]))))
            default: body(.int(c[i]))
            }
        }
    }

    /// A map's key at `i` (maps only; "" otherwise).
    package func key(at i: Int) -> String {
        guard keyStart >= 0, i >= 0, i < count else { return "" }
        return String(decoding: BlockCodec.bytesColumn(p, at: keyStart, rows: count).stored(i), as: UTF8.self)
    }

    /// A map's keys, in order (sorted).
    package var keys: [String] { (0..<count).map { key(at: $0) } }
}
