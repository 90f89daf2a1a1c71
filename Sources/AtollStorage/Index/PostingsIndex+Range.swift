// Range lookups in a search index. IndexKey's encoding is order-preserving within one type
// (see IndexKey.swift), so the entries of every value between two values of that type are one
// run of the tree, from the low value's first chunk to the high value's last.

extension PostingsIndex {
    /// Object keys stored under every value whose encoding is in `low ... high` (bytewise,
    /// both inclusive): ascending within a value, not overall. Nil as soon as there are more
    /// than `keysMax`.
    static func lookup(root: PageNumber, from low: [UInt8], through high: [UInt8], keysMax: Int, space: PageSpace) throws -> [UInt64]? {
        var result: [UInt64] = []
        let complete = try forEachChunk(root: root, from: low, through: high, space: space) { first, chunk in
            try PostingsChunk.decode(chunk, firstKey: first, into: &result)
            return result.count <= keysMax
        }
        return complete ? result : nil
    }

    /// The number of object keys stored under every value whose encoding is in `low ... high`,
    /// read from the chunks' headers; nil as soon as there are more than `countMax`.
    static func count(root: PageNumber, from low: [UInt8], through high: [UInt8], countMax: Int, space: PageSpace) throws -> Int? {
        var total = 0
        let complete = try forEachChunk(root: root, from: low, through: high, space: space) { _, chunk in
            total += try PostingsChunk.count(chunk)
            return total <= countMax
        }
        return complete ? total : nil
    }

    /// Visits the chunks of every value in `low ... high` in key order, with each chunk's first
    /// object key, while `body` returns true; false when `body` stopped it.
    private static func forEachChunk(root: PageNumber, from low: [UInt8], through high: [UInt8], space: PageSpace,
                                     _ body: (UInt64, UnsafeRawBufferPointer) throws -> Bool) throws -> Bool {
        guard root != 0 else { return true }
        var cursor = BTreeCursor(root: root, space: space)
        var more = try low.withUnsafeBytes { try cursor.seek($0) }
        while more {
            let key = try cursor.key()
            guard key.count > 8 else { throw AtollError.corrupted("index key of \(key.count) bytes") }
            let value = UnsafeRawBufferPointer(rebasing: key[..<(key.count - 8)])
            // Past `high`: the run is over.
            if high.lexicographicallyPrecedes(value) { break }
            let first = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: key.count - 8, as: UInt64.self))
            guard try body(first, try cursor.value()) else { return false }
            more = try cursor.next()
        }
        return true
    }
}

extension Table {
    /// Objects whose indexed `column` holds a value from `low` through `high` (both inclusive;
    /// nil: unbounded), ascending keys; nil when there are more than `keysMax` (a scan is then
    /// cheaper than visiting each). For int, timestamp and decimal128 columns, whose index order
    /// is their value order; the bounds must be of the column's type. A decimal NaN keys after
    /// every number: callers that need numeric comparison check the candidates.
    public func findAll(indexed column: Int, from low: StorageValue?, through high: StorageValue?, keysMax: Int = .max) throws -> [ObjectKey]? {
        let (lowKey, highKey, root) = try indexRun(column, from: low, through: high)
        guard let keys = try PostingsIndex.lookup(root: root, from: lowKey, through: highKey, keysMax: keysMax, space: transaction.space) else { return nil }
        return keys.sorted().map(ObjectKey.init)
    }

    /// How many objects `findAll(indexed:from:through:)` finds, counted from the index without
    /// listing them; nil when there are more than `countMax`.
    public func countAll(indexed column: Int, from low: StorageValue?, through high: StorageValue?, countMax: Int = .max) throws -> Int? {
        let (lowKey, highKey, root) = try indexRun(column, from: low, through: high)
        return try PostingsIndex.count(root: root, from: lowKey, through: highKey, countMax: countMax, space: transaction.space)
    }

    /// The index keys bounding a range of `column`'s values, and the index's root.
    private func indexRun(_ column: Int, from low: StorageValue?, through high: StorageValue?) throws -> (low: [UInt8], high: [UInt8], root: PageNumber) {
        let type = spec.columns[column].type
        guard needsIndex(column), !columnInfo[column].isList, !isKeyAlias(column), [.int, .timestamp, .decimal128].contains(type) else {
            throw AtollError(.invalidArgument, "'\(name).\(spec.columns[column].name)' has no index ordered by value")
        }
        let sample: StorageValue = switch type {
        case .int: .int(0)
        case .timestamp: .timestamp(Timestamp(seconds: 0, nanoseconds: 0))
        default: .decimal128(Decimal128(0))
        }
        // Every value of the type is keyed as this tag byte and more bytes.
        let tag = IndexKey.encode(sample).bytes[0]
        for bound in [low, high] {
            if let bound, bound.isNull || IndexKey.encode(bound).bytes[0] != tag {
                throw AtollError(.invalidArgument, "a range bound of '\(name).\(spec.columns[column].name)' must be a \(type) value")
            }
        }
        try flushIndexes()
        let lowKey = low.map { IndexKey.encode($0).bytes } ?? [tag]
        let highKey = high.map { IndexKey.encode($0).bytes } ?? [tag &+ 1]
        let root = column < roots.indexRoots.count ? roots.indexRoots[column] : 0
        return (lowKey, highKey, root)
    }
}
