// Backlinks: for each table that is the target of links, a B+tree (root in the table's roots)
//
//     key   = u64 BE target key ++ u32 BE origin table ++ u16 BE origin column ++ u64 BE origin key
//     value = varint count (a list may hold the same target several times)
//
// so deleting a target finds every link to it, LinkingObjects and inverse queries read their
// origins with one range scan, and nothing scans the origin tables.

enum Backlinks {
    struct Entry {
        var originTable: TableKey
        var originColumn: Int
        var originKey: ObjectKey
        var count: Int
    }

    static func key(target: ObjectKey, originTable: TableKey, originColumn: Int, origin: ObjectKey) -> [UInt8] {
        var w = ByteWriter(capacity: 22)
        w.u64BigEndian(target.rawValue)
        w.u32BigEndian(originTable.rawValue)
        w.u8(UInt8(truncatingIfNeeded: originColumn >> 8)); w.u8(UInt8(truncatingIfNeeded: originColumn))
        w.u64BigEndian(origin.rawValue)
        return w.bytes
    }

    private static func decodeKey(_ k: UnsafeRawBufferPointer) throws -> (ObjectKey, TableKey, Int, ObjectKey) {
        guard k.count == 22 else { throw AtollError.corrupted("backlink key of \(k.count) bytes") }
        return (ObjectKey(UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 0, as: UInt64.self))),
                TableKey(UInt32(bigEndian: k.loadUnaligned(fromByteOffset: 8, as: UInt32.self))),
                Int(k[12]) << 8 | Int(k[13]),
                ObjectKey(UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 14, as: UInt64.self))))
    }

    /// Every link to `target`.
    static func all(root: PageNumber, target: ObjectKey, space: PageSpace) throws -> [Entry] {
        guard root != 0 else { return [] }
        var prefix = ByteWriter(); prefix.u64BigEndian(target.rawValue)
        var cursor = BTreeCursor(root: root, space: space)
        var more = try prefix.bytes.withUnsafeBytes { try cursor.seek($0) }
        var result: [Entry] = []
        while more {
            let (t, table, column, origin) = try decodeKey(try cursor.key())
            guard t == target else { break }
            var r = ByteReader(try cursor.value(), context: "backlink count")
            result.append(Entry(originTable: table, originColumn: column, originKey: origin, count: Int(try r.varint())))
            more = try cursor.next()
        }
        return result
    }

    /// Origins of links to `target` from one table and column; repeated per link.
    static func origins(root: PageNumber, target: ObjectKey, originTable: TableKey, originColumn: Int, space: PageSpace) throws -> [ObjectKey] {
        try all(root: root, target: target, space: space)
            .filter { $0.originTable == originTable && $0.originColumn == originColumn }
            .flatMap { Array(repeating: $0.originKey, count: $0.count) }
    }

    /// Adds `delta` (positive or negative) links from (originTable, originColumn, origin) to target.
    static func adjust(root: inout PageNumber, target: ObjectKey, originTable: TableKey, originColumn: Int, origin: ObjectKey,
                       delta: Int, allocator a: PageAllocator) throws
    {
        let k = key(target: target, originTable: originTable, originColumn: originColumn, origin: origin)
        var current = 0
        try k.withUnsafeBytes { kb in
            if let v = try BTree.get(root: root, key: kb, space: a.space) {
                var r = ByteReader(v, context: "backlink count")
                current = Int(try r.varint())
            }
        }
        let updated = current + delta
        if updated <= 0 {
            _ = try k.withUnsafeBytes { try BTree.delete(root: &root, key: $0, allocator: a) }
        } else {
            var w = ByteWriter(); w.varint(UInt64(updated))
            try k.withUnsafeBytes { kb in try w.bytes.withUnsafeBytes { try BTree.put(root: &root, key: kb, value: $0, allocator: a) } }
        }
    }
}
