// Search indexes on the elements of sets and the entries of maps: a set or map column with the
// indexed flag (docs/FORMAT.md, "Table spec") has a PostingsIndex like a scalar column's, with
// one entry per distinct element of each object's collection instead of one per object:
//
//     set   IndexKey(element)                            -> object keys
//     map   IndexKey(.string(map key)) ++ IndexKey(value) -> object keys
//
// (element and value keyed as in a mixed column when the column is mixed). IndexKey is
// prefix-free, so a map's entries under one key are one run of the tree, in value order: a
// range `map['k'] > v` is a run inside the run of 'k'. An object is under a key at most once
// (a set's elements are distinct, a map's keys are; mixed elements that share a key, int 1 and
// double 1.0, are one entry), so the postings count of a run is its number of objects.
//
// Maintenance follows the scalar indexes (Table.indexTouched): the first change of an object's
// collection in a transaction records the keys the index holds for it (computed from the
// collection before the change; `.none` for an object created in the transaction), and a flush
// computes the keys of the collection as it is then and applies the difference.
//
// Lists are not indexed: their elements repeat and a large list (biglists) would recompute
// every element's key on each edit.

extension Table {
    /// Whether column `c` is a set or a map with an index on its elements.
    func hasCollectionIndex(_ c: Int) -> Bool { columnInfo[c].needsIndex && columnInfo[c].isList }

    /// The key prefix of a map's entries under `mapKey`, and whether it is a prefix key (a map
    /// key over IndexKey.stringPrefixBytesMax bytes, which other long keys may share).
    static func mapEntryPrefix(_ mapKey: String) -> (bytes: [UInt8], isPrefix: Bool) {
        IndexKey.encode(.string(mapKey))
    }

    /// The index keys of one object's collection: sorted and distinct.
    static func collectionIndexKeys(_ values: some Collection<StorageValue>, mapKeys: [String]?, column: ColumnSpec) -> [[UInt8]] {
        let mixed = column.type == .mixed
        var keys: [[UInt8]] = []
        keys.reserveCapacity(values.count)
        if let mapKeys {
            for (k, v) in zip(mapKeys, values) {
                keys.append(mapEntryPrefix(k).bytes + IndexKey.encode(v, mixed: mixed).bytes)
            }
        } else {
            for v in values { keys.append(IndexKey.encode(v, mixed: mixed).bytes) }
        }
        keys.sort { $0.lexicographicallyPrecedes($1) }
        var distinct: [[UInt8]] = []
        distinct.reserveCapacity(keys.count)
        for k in keys where distinct.last != k { distinct.append(k) }
        return distinct
    }

    /// The index keys of the collection in column `c` of the object at `h`, as it is in this
    /// transaction (changed or stored).
    func collectionIndexKeys(_ h: RowHandle, _ c: Int) throws -> [[UInt8]] {
        let column = spec.columns[c]
        let slot = ListSlot(key: h.key.rawValue, column: c)
        if let values = dirtyLists[slot] {
            return Self.collectionIndexKeys(values, mapKeys: column.isMap ? dirtyMapKeys[slot] ?? [] : nil, column: column)
        }
        let view = try ListView(try h.leaf.bytesColumn(layout.firstBlock[c]).value(h.row, space: transaction.space), column: column)
        return Self.collectionIndexKeys(view.values, mapKeys: column.isMap ? view.keys : nil, column: column)
    }

    /// Records, before the first change of an object's indexed collection since the last flush,
    /// the keys the index holds for it.
    func noteCollectionIndexChange(_ key: ObjectKey, _ c: Int) throws {
        guard hasCollectionIndex(c), indexTouched[c]?[key.rawValue] == nil else { return }
        guard let h = try locate(key) else { return }
        indexTouched[c, default: [:]][key.rawValue] = .values(try collectionIndexKeys(h, c))
    }

    /// Every index key of column `c` for the object at `h`: one for a scalar column, one per
    /// distinct element for an indexed set or map (building and checking indexes).
    func allIndexKeys(_ h: RowHandle, _ c: Int) throws -> [[UInt8]] {
        if hasCollectionIndex(c) { return try collectionIndexKeys(h, c) }
        return [IndexKey.encode(try value(h, c), mixed: columnInfo[c].type == .mixed).bytes]
    }

    /// Adds the difference between the keys the index holds for an object (`old`) and those it
    /// should hold (`new`, both sorted and distinct) to `pending`.
    static func addDifference(old: [[UInt8]], new: [[UInt8]], key: UInt64, to pending: inout PendingIndexChanges) {
        var i = 0, j = 0
        while i < old.count || j < new.count {
            if j == new.count || (i < old.count && old[i].lexicographicallyPrecedes(new[j])) {
                pending.remove(old[i], key); i += 1
            } else if i == old.count || new[j].lexicographicallyPrecedes(old[i]) {
                pending.add(new[j], key); j += 1
            } else {
                i += 1; j += 1
            }
        }
    }

    // MARK: lookups

    private func collectionIndexRoot(_ c: Int, set: Bool) throws -> PageNumber {
        guard c >= 0, c < spec.columns.count, hasCollectionIndex(c), spec.columns[c].isSet == set, spec.columns[c].isMap == !set else {
            throw AtollError(.invalidArgument, "'\(name).\(c < spec.columns.count && c >= 0 ? spec.columns[c].name : "#\(c)")' has no index on its \(set ? "elements" : "entries")")
        }
        try flushIndexes()
        return c < roots.indexRoots.count ? roots.indexRoots[c] : 0
    }

    /// Objects whose indexed set in column `c` contains `element`, ascending keys.
    public func findAll(setIndexed c: Int, containing element: StorageValue) throws -> [ObjectKey] {
        let root = try collectionIndexRoot(c, set: true)
        let (encoded, isPrefix) = IndexKey.encode(element, mixed: columnInfo[c].type == .mixed)
        let keys = try PostingsIndex.lookup(root: root, value: encoded, space: transaction.space).map(ObjectKey.init)
        // A long string's key is a prefix that other strings may share: confirm.
        return isPrefix ? try keys.filter { try setContains($0, c, element) } : keys
    }

    /// How many objects' indexed sets in column `c` contain `element`, counted from the
    /// postings headers; nil when the element's key is a prefix key (candidates need checking).
    public func countAll(setIndexed c: Int, containing element: StorageValue) throws -> Int? {
        let root = try collectionIndexRoot(c, set: true)
        let (encoded, isPrefix) = IndexKey.encode(element, mixed: columnInfo[c].type == .mixed)
        if isPrefix { return nil }
        return try PostingsIndex.count(root: root, value: encoded, space: transaction.space)
    }

    /// The bounds of the run of a map's entries under `mapKey` whose values are `low ... high`
    /// (nil: unbounded, within the values of `type`); nil when the map key is too long for the
    /// index to tell it apart.
    private func mapRun(_ c: Int, key mapKey: String, from low: StorageValue?, through high: StorageValue?, type: ColumnType) throws -> (low: [UInt8], high: [UInt8])? {
        let (prefix, isPrefix) = Self.mapEntryPrefix(mapKey)
        if isPrefix { return nil }
        let mixed = columnInfo[c].type == .mixed
        let sample: StorageValue = switch type {
        case .int: .int(0)
        case .timestamp: .timestamp(Timestamp(seconds: 0, nanoseconds: 0))
        default: .decimal128(Decimal128(0))
        }
        let tag = IndexKey.encode(sample).bytes[0]
        for bound in [low, high] {
            if let bound, bound.isNull || IndexKey.encode(bound, mixed: mixed).bytes[0] != tag {
                throw AtollError(.invalidArgument, "a range bound of '\(name).\(spec.columns[c].name)' must be a \(type) value")
            }
        }
        let lowKey = prefix + (low.map { IndexKey.encode($0, mixed: mixed).bytes } ?? [tag])
        let highKey = prefix + (high.map { IndexKey.encode($0, mixed: mixed).bytes } ?? [tag &+ 1])
        return (lowKey, highKey)
    }

    private func mapValueRunType(_ c: Int) throws -> ColumnType {
        let type = columnInfo[c].type
        guard [.int, .timestamp, .decimal128].contains(type) else {
            throw AtollError(.invalidArgument, "'\(name).\(spec.columns[c].name)' has no index ordered by value")
        }
        return type
    }

    /// Objects whose indexed map in column `c` holds `value` under `mapKey`, ascending keys;
    /// nil when the index cannot answer exactly (a map key, or a string value, longer than the
    /// index keeps: check every object instead).
    public func findAll(mapIndexed c: Int, key mapKey: String, equalTo value: StorageValue) throws -> [ObjectKey]? {
        let root = try collectionIndexRoot(c, set: false)
        let (prefix, keyIsPrefix) = Self.mapEntryPrefix(mapKey)
        let (encoded, valueIsPrefix) = IndexKey.encode(value, mixed: columnInfo[c].type == .mixed)
        if keyIsPrefix || valueIsPrefix { return nil }
        return try PostingsIndex.lookup(root: root, value: prefix + encoded, space: transaction.space).map(ObjectKey.init)
    }

    /// How many objects `findAll(mapIndexed:key:equalTo:)` finds, from the postings headers.
    public func countAll(mapIndexed c: Int, key mapKey: String, equalTo value: StorageValue) throws -> Int? {
        let root = try collectionIndexRoot(c, set: false)
        let (prefix, keyIsPrefix) = Self.mapEntryPrefix(mapKey)
        let (encoded, valueIsPrefix) = IndexKey.encode(value, mixed: columnInfo[c].type == .mixed)
        if keyIsPrefix || valueIsPrefix { return nil }
        return try PostingsIndex.count(root: root, value: prefix + encoded, space: transaction.space)
    }

    /// Objects whose indexed map in column `c` (of ints, timestamps or decimal128s) holds a
    /// value from `low` through `high` (both inclusive; nil: unbounded) under `mapKey`,
    /// ascending keys; nil when the map key is too long for the index to tell apart. A decimal
    /// NaN keys after every number: callers that need numeric comparison check the candidates.
    public func findAll(mapIndexed c: Int, key mapKey: String, from low: StorageValue?, through high: StorageValue?) throws -> [ObjectKey]? {
        let root = try collectionIndexRoot(c, set: false)
        guard let run = try mapRun(c, key: mapKey, from: low, through: high, type: try mapValueRunType(c)) else { return nil }
        guard let keys = try PostingsIndex.lookup(root: root, from: run.low, through: run.high, keysMax: .max, space: transaction.space) else { return nil }
        return keys.sorted().map(ObjectKey.init)
    }

    /// How many objects `findAll(mapIndexed:key:from:through:)` finds, from the postings headers.
    public func countAll(mapIndexed c: Int, key mapKey: String, from low: StorageValue?, through high: StorageValue?) throws -> Int? {
        let root = try collectionIndexRoot(c, set: false)
        guard let run = try mapRun(c, key: mapKey, from: low, through: high, type: try mapValueRunType(c)) else { return nil }
        return try PostingsIndex.count(root: root, from: run.low, through: run.high, countMax: .max, space: transaction.space)
    }
}
