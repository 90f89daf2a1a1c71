// Sets and maps are list columns with an order the engine keeps (ColumnSpec.isSet/isMap):
//
// - a set's elements are unique and sorted by StorageValue.setOrder (Realm's set order), so
//   membership is a binary search and the position of an element is its index in that order;
// - a map's entries are sorted by key (UTF-8 bytes); keys follow Realm's rules (not empty, no
//   '.', not starting with '$').
//
// Edits are logged as the list instructions at the element's position in that order (insert,
// erase, set, clear), so notifications report indices into the collection's current order and
// every reader of the log needs no new opcode. A map's keys are not in the log: a reader that
// needs them reads the versions before and after.
//
// Deleting a link target removes it from sets (like lists) and makes it nil in maps (as Realm).

/// Realm's rules for map keys.
public enum MapKeyRules {
    /// Throws `.invalidArgument` unless `key` is a valid map key.
    public static func validate(_ key: String) throws {
        guard !key.isEmpty else { throw AtollError(.invalidArgument, "a map key cannot be empty") }
        guard !key.hasPrefix("$") else { throw AtollError(.invalidArgument, "map key '\(key)' starts with '$'; map keys cannot start with '$'") }
        guard !key.contains(".") else { throw AtollError(.invalidArgument, "map key '\(key)' contains '.'; map keys cannot contain '.'") }
    }
}

extension Table {
    // MARK: reading

    /// A map's keys, in order (as stored, or as changed in this transaction).
    package func mapKeys(_ h: RowHandle, _ c: Int) throws -> [String] {
        if let keys = dirtyMapKeys[ListSlot(key: h.key.rawValue, column: c)] { return keys }
        let col = h.leaf.bytesColumn(layout.firstBlock[c])
        return try ListView(try col.value(h.row, space: transaction.space), column: spec.columns[c]).keys
    }

    /// A map's entries, sorted by key.
    public func mapEntries(_ key: ObjectKey, _ c: Int) throws -> [(key: String, value: StorageValue)] {
        _ = try mapColumn(c)
        let (keys, values) = try mutableMap(key, c)
        return Array(zip(keys, values)).map { (key: $0.0, value: $0.1) }
    }

    /// The value stored under `mapKey`, or nil when the map has no such key.
    public func mapValue(_ key: ObjectKey, _ c: Int, key mapKey: String) throws -> StorageValue? {
        _ = try mapColumn(c)
        let (keys, values) = try mutableMap(key, c)
        let (i, found) = SortedSearch.find(key: mapKey, in: keys)
        return found ? values[i] : nil
    }

    /// Whether the set contains `value`.
    public func setContains(_ key: ObjectKey, _ c: Int, _ value: StorageValue) throws -> Bool {
        _ = try setColumn(c)
        return SortedSearch.find(value, in: try mutableList(key, c)).found
    }

    // MARK: sets

    func setColumn(_ c: Int) throws -> ColumnSpec {
        let col = try column(c)
        guard col.isSet else { throw AtollError(.typeMismatch, "'\(name).\(col.name)' is not a set") }
        return col
    }

    /// Adds `value` to the set. Returns false (and changes nothing) when it is already there.
    @discardableResult
    public func setInsert(_ key: ObjectKey, _ c: Int, _ value: StorageValue) throws -> Bool {
        let col = try setColumn(c)
        try validateElement(value, c)
        var values = try mutableList(key, c)
        let (i, found) = SortedSearch.find(value, in: values)
        guard !found else { return false }
        values.insert(value, at: i)
        try linkElementChanged(col, c, key, old: nil, new: value)
        try commitListChange(key, c, values, CollectionOfOne(.listInsert(self.key, key, column: c, index: i, value: value)))
        return true
    }

    /// Removes `value` from the set. Returns false when it was not there.
    @discardableResult
    public func setRemove(_ key: ObjectKey, _ c: Int, _ value: StorageValue) throws -> Bool {
        try setRemove(key, c, value, implicit: false)
    }

    func setRemove(_ key: ObjectKey, _ c: Int, _ value: StorageValue, implicit: Bool) throws -> Bool {
        let col = try setColumn(c)
        var values = try mutableList(key, c)
        let (i, found) = SortedSearch.find(value, in: values)
        guard found else { return false }
        try linkElementChanged(col, c, key, old: values[i], new: nil)
        values.remove(at: i)
        try commitListChange(key, c, values, CollectionOfOne(.listErase(self.key, key, column: c, index: i, implicit: implicit)))
        return true
    }

    /// Removes every element of the set.
    public func setClear(_ key: ObjectKey, _ c: Int) throws {
        let col = try setColumn(c)
        try clearCollection(key, c, col)
    }

    /// Replaces the set's contents with `values` (duplicates collapse), logged as clear + inserts.
    public func setAssign(_ key: ObjectKey, _ c: Int, _ values: [StorageValue]) throws {
        _ = try setColumn(c)
        for v in values { try validateElement(v, c) }
        try setClear(key, c)
        for v in values { try setInsert(key, c, v) }
    }

    // MARK: maps

    func mapColumn(_ c: Int) throws -> ColumnSpec {
        let col = try column(c)
        guard col.isMap else { throw AtollError(.typeMismatch, "'\(name).\(col.name)' is not a map") }
        return col
    }

    /// The map's keys and values, decoded (cached for this transaction once changed).
    func mutableMap(_ key: ObjectKey, _ c: Int) throws -> (keys: [String], values: [StorageValue]) {
        let slot = ListSlot(key: key.rawValue, column: c)
        if let values = dirtyLists[slot] {
            // Every change of a map goes through commitMapChange or clearCollection, which keep both.
            let keys = dirtyMapKeys[slot] ?? []
            assert(keys.count == values.count, "a changed map lost its keys")
            return (keys, values)
        }
        guard let h = try locate(key) else { throw AtollError(.objectNotFound, "no object with key \(key.rawValue) in '\(name)'") }
        let view = try ListView(try h.leaf.bytesColumn(layout.firstBlock[c]).value(h.row, space: transaction.space), column: spec.columns[c])
        return (view.keys, view.values)
    }

    private func commitMapChange(_ key: ObjectKey, _ c: Int, _ keys: [String], _ values: [StorageValue], _ instruction: LogInstruction) throws {
        // The index's keys for the map before the change are computed from the old keys.
        if hasCollectionIndex(c) { try noteCollectionIndexChange(key, c) }
        dirtyMapKeys[ListSlot(key: key.rawValue, column: c)] = keys
        try commitListChange(key, c, values, CollectionOfOne(instruction))
    }

    /// Stores `value` under `mapKey`, adding the key or replacing its value.
    public func mapSet(_ key: ObjectKey, _ c: Int, key mapKey: String, _ value: StorageValue) throws {
        let col = try mapColumn(c)
        try MapKeyRules.validate(mapKey)
        try validateElement(value, c)
        var (keys, values) = try mutableMap(key, c)
        let (i, found) = SortedSearch.find(key: mapKey, in: keys)
        if found {
            guard values[i] != value else { return }
            try linkElementChanged(col, c, key, old: values[i], new: value)
            values[i] = value
            try commitMapChange(key, c, keys, values, .listSet(self.key, key, column: c, index: i, value: value))
        } else {
            keys.insert(mapKey, at: i)
            values.insert(value, at: i)
            try linkElementChanged(col, c, key, old: nil, new: value)
            try commitMapChange(key, c, keys, values, .listInsert(self.key, key, column: c, index: i, value: value))
        }
    }

    /// Removes `mapKey` and its value. Returns false when the map has no such key.
    @discardableResult
    public func mapRemove(_ key: ObjectKey, _ c: Int, key mapKey: String) throws -> Bool {
        let col = try mapColumn(c)
        var (keys, values) = try mutableMap(key, c)
        let (i, found) = SortedSearch.find(key: mapKey, in: keys)
        guard found else { return false }
        try linkElementChanged(col, c, key, old: values[i], new: nil)
        keys.remove(at: i)
        values.remove(at: i)
        try commitMapChange(key, c, keys, values, .listErase(self.key, key, column: c, index: i, implicit: false))
        return true
    }

    /// Removes every entry of the map.
    public func mapClear(_ key: ObjectKey, _ c: Int) throws {
        let col = try mapColumn(c)
        try clearCollection(key, c, col)
        dirtyMapKeys[ListSlot(key: key.rawValue, column: c)] = []
    }

    /// Replaces the map's contents (logged as clear + one insert per entry).
    public func mapAssign(_ key: ObjectKey, _ c: Int, _ entries: [(key: String, value: StorageValue)]) throws {
        _ = try mapColumn(c)
        for e in entries {
            try MapKeyRules.validate(e.key)
            try validateElement(e.value, c)
        }
        try deferringOrphans {
            try mapClear(key, c)
            for e in entries { try mapSet(key, c, key: e.key, e.value) }
        }
    }

    /// Makes every value of the map that is `link` (a link or a mixed value's typed link) nil:
    /// its target was deleted.
    func mapNullifyLinks(_ key: ObjectKey, _ c: Int, to link: StorageValue) throws {
        let col = try mapColumn(c)
        let (keys, current) = try mutableMap(key, c)
        var values = current
        for i in values.indices where values[i] == link {
            try linkElementChanged(col, c, key, old: values[i], new: nil)
            values[i] = .null
            try commitMapChange(key, c, keys, values, .listSet(self.key, key, column: c, index: i, value: .null))
        }
    }

    private func clearCollection(_ key: ObjectKey, _ c: Int, _ col: ColumnSpec) throws {
        let values = try mutableList(key, c)
        guard !values.isEmpty else { return }
        for v in values { try linkElementChanged(col, c, key, old: v, new: nil) }
        try commitListChange(key, c, [], CollectionOfOne(.listClear(self.key, key, column: c)))
    }
}
