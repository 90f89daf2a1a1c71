import AtollStorage

// Sets and maps in sync (docs/SYNC.md, "Sets" and "Maps"); the records are in CollectionRecord.swift.
//
// Apply: a set add lands as a new tag of its value (unless stamped before the object's delete);
// a removal kills the tags it names; the table's set holds the values with a live tag. A map
// write or removal lands when its stamp is greater than the key's; the table's map holds the
// keys with a value. Links travel by primary key; one to a deleted target is left out of a set
// and nil in a map, and comes back with the target (`sync.dangling`, `reprojectCollection`).
//
// Extraction: the transaction log records set and map edits as list edits at positions of the
// collection's sorted order, without a map's keys. So the edits of a set or map are taken as the
// difference between its record (what sync last made of it) and the table (which holds every
// pending local commit), at the last log entry that touches it: they are stamped there, and a
// delete of the object after that entry makes them void (nothing is sent; the delete is).

extension SyncWriter {
    // MARK: records

    func setRecord(_ key: [UInt8]) throws -> SetRecord {
        if let s = setRecords[RecordKey(key)] { return s.record }
        let s = try txn.internalValue(SyncTrees.collections, key: key).map { bytes in
            try bytes.withUnsafeBytes { try SetRecord.decode($0, state.nodes) }
        } ?? SetRecord()
        setRecords[RecordKey(key)] = (s, false)
        return s
    }

    func putSetRecord(_ key: [UInt8], _ s: SetRecord) {
        setRecords[RecordKey(key)] = (s, true)
    }

    func mapRecord(_ key: [UInt8]) throws -> MapRecord {
        if let m = mapRecords[RecordKey(key)] { return m.record }
        let m = try txn.internalValue(SyncTrees.collections, key: key).map { bytes in
            try bytes.withUnsafeBytes { try MapRecord.decode($0, state.nodes) }
        } ?? MapRecord()
        mapRecords[RecordKey(key)] = (m, false)
        return m
    }

    func putMapRecord(_ key: [UInt8], _ m: MapRecord) {
        mapRecords[RecordKey(key)] = (m, true)
    }

    /// Changes a set's record where the cache holds it. A copy taken out and put back would
    /// share its storage with the cache's and copy it at the first change, so a transaction
    /// editing n elements of one set would cost O(n²); in place it costs O(n).
    func modifySetRecord<R>(_ key: [UInt8], _ body: (inout SetRecord) throws -> R) throws -> R {
        let rk = RecordKey(key)
        if setRecords[rk] == nil { _ = try setRecord(key) }
        setRecords[rk]!.dirty = true
        return try body(&setRecords[rk]!.record)
    }

    /// Changes a map's record where the cache holds it (as `modifySetRecord`).
    func modifyMapRecord<R>(_ key: [UInt8], _ body: (inout MapRecord) throws -> R) throws -> R {
        let rk = RecordKey(key)
        if mapRecords[rk] == nil { _ = try mapRecord(key) }
        mapRecords[rk]!.dirty = true
        return try body(&mapRecords[rk]!.record)
    }

    func flushCollectionRecords() throws {
        for (key, entry) in setRecords where entry.dirty {
            if entry.record.values.isEmpty {
                try txn.deleteInternal(SyncTrees.collections, key: key.bytes)
            } else {
                try txn.putInternal(SyncTrees.collections, key: key.bytes, value: entry.record.encode(&state.nodes))
            }
        }
        for (key, entry) in mapRecords where entry.dirty {
            if entry.record.entries.isEmpty {
                try txn.deleteInternal(SyncTrees.collections, key: key.bytes)
            } else {
                try txn.putInternal(SyncTrees.collections, key: key.bytes, value: entry.record.encode(&state.nodes))
            }
        }
        setRecords = [:]
        mapRecords = [:]
    }

    /// The set and map columns of a class (maps of embedded objects are not among them:
    /// SyncWriter+EmbeddedMaps.swift).
    func collectionColumns(of c: SyncedClass) -> [Int] {
        c.spec.columns.indices.filter { (c.spec.columns[$0].isSet || c.spec.columns[$0].isMap) && c.embeddedMaps[$0] == nil }
    }

    /// The greatest stamp map `column` of object `ok` holds (of a write or a removal of a key).
    func mapStampBound(_ ok: [UInt8], _ column: Int) throws -> Stamp? {
        try mapRecord(SyncTrees.listKey(ok, column: column)).entries.values.lazy.map(\.stamp).max()
    }

    // MARK: apply

    private func collectionColumn(_ c: SyncedClass, _ column: Int, set: Bool) throws {
        let spec = c.spec.columns[column]
        guard set ? spec.isSet : spec.isMap else {
            throw AtollError(.protocolViolation, "a changeset edits '\(c.name).\(spec.name)' as a \(set ? "set" : "map"); it is not one")
        }
    }

    /// The value to store for set element or map value `v`, or the primary key of a missing link target.
    private func elementValue(_ c: SyncedClass, _ column: Int, _ v: SyncValue, set: Bool) throws -> (StorageValue, dangling: StorageValue?) {
        let (value, dangling) = try storageValue(c, column, v)
        if set, dangling == nil, c.spec.columns[column].type == .link, value.isNull {
            throw AtollError(.protocolViolation, "a changeset puts nil into set of links '\(c.name).\(c.spec.columns[column].name)'")
        }
        return (value, dangling)
    }

    func applySetAdd(_ c: SyncedClass, _ pk: StorageValue, _ column: Int, _ v: SyncValue, _ stamp: Stamp) throws {
        try collectionColumn(c, column, set: true)
        let ok = SyncTrees.objectKey(c.key, pk)
        let ck = SyncTrees.listKey(ok, column: column)
        if let tags = try setRecord(ck).values[v], tags.live.contains(stamp) || tags.removed.contains(stamp) { return } // applied already
        var o = try object(ok)
        guard let k = try prepareWrite(c, pk, ok, &o, stamp) else { return } // stamped before the object's delete
        setObject(ok, o)
        // Loaded after prepareWrite, which may have brought links back into this very set.
        let (added, wasLive) = try modifySetRecord(ck) { s in
            let wasLive = s.isLive(v)
            return (s.add(v, tag: stamp), wasLive)
        }
        guard added, !wasLive else { return }
        let (value, dangling) = try elementValue(c, column, v, set: true)
        if let dangling {
            if let target = danglingTargetKey(c, column, dangling) {
                try addDangling(target: target, origin: ok, column: column, originPrimaryKey: pk)
            }
        } else {
            try table(c).setInsert(k, column, value)
        }
    }

    func applySetRemove(_ c: SyncedClass, _ pk: StorageValue, _ column: Int, _ v: SyncValue, tags: [Stamp]) throws {
        try collectionColumn(c, column, set: true)
        let ok = SyncTrees.objectKey(c.key, pk)
        let ck = SyncTrees.listKey(ok, column: column)
        let (wasLive, isLive) = try modifySetRecord(ck) { s in
            let wasLive = s.isLive(v)
            s.remove(v, tags: tags)
            return (wasLive, s.isLive(v))
        }
        guard wasLive, !isLive, try object(ok).exists else { return }
        guard let k = try rowKey(c, pk) else { throw AtollError.corrupted("synced object \(pk) of '\(c.name)' is missing from its table") }
        let (value, dangling) = try elementValue(c, column, v, set: true)
        if dangling == nil { try table(c).setRemove(k, column, value) }
    }

    /// A write (`v`) or removal (nil) of map key `key`.
    func applyMapWrite(_ c: SyncedClass, _ pk: StorageValue, _ column: Int, key: String, _ v: SyncValue?, _ stamp: Stamp) throws {
        try collectionColumn(c, column, set: false)
        let ok = SyncTrees.objectKey(c.key, pk)
        let ck = SyncTrees.listKey(ok, column: column)
        var o = try object(ok)
        let held = try mapRecord(ck).entries[key]
        if let held, held.stamp == stamp { return } // applied already
        if recordsConflicts { try noteMapConflicts(c, pk, ok, column, key: key, held: held, v, stamp) }
        if let held, held.stamp > stamp {
            // Older than what decides the key: still a write of the object (it keeps it, or
            // brings it back after an older delete), as when it arrives first.
            if v != nil { try applyCreate(c, pk, stamp) }
            return
        }
        if let d = o.deleted, stamp < d { return } // void: the entries before the delete are gone
        var k: ObjectKey?
        if v != nil {
            guard let row = try prepareWrite(c, pk, ok, &o, stamp) else { return }
            setObject(ok, o)
            k = row
        } else if o.exists {
            guard let row = try rowKey(c, pk) else { throw AtollError.corrupted("synced object \(pk) of '\(c.name)' is missing from its table") }
            k = row
        }
        try modifyMapRecord(ck) { $0.entries[key] = MapRecord.Entry(stamp: stamp, value: v) }
        guard let k else { return }
        guard let v else {
            try table(c).mapRemove(k, column, key: key)
            return
        }
        let (value, dangling) = try elementValue(c, column, v, set: false)
        if let dangling, let target = danglingTargetKey(c, column, dangling) {
            try addDangling(target: target, origin: ok, column: column, originPrimaryKey: pk)
        }
        try table(c).mapSet(k, column, key: key, value)
    }

    /// A map write or removal `v` stamped `stamp` of a key that holds `held`, before it is
    /// applied: as for properties (SyncWriter+Conflicts.swift), with the key's stamp.
    private func noteMapConflicts(_ c: SyncedClass, _ pk: StorageValue, _ ok: [UInt8], _ column: Int, key: String,
                                  held: MapRecord.Entry?, _ v: SyncValue?, _ stamp: Stamp) throws
    {
        try dropSeen(ok, column: column)
        guard let outcome = mapConflictOutcome(held: held, v, stamp) else { return }
        try recordConflict(.mapEntryWrite, c, pk, ok, keyColumn: column, property: column, mapKey: key,
                           winning: outcome.won.value, outcome.won.stamp, losing: outcome.lost.value, outcome.lost.stamp)
    }

    /// A delete at `stamp` that leaves the object (it holds later writes): the set tags and map
    /// entries stamped at or before it go, from the records and the table.
    func eraseCollectionsBefore(_ c: SyncedClass, _ ok: [UInt8], _ k: ObjectKey, _ stamp: Stamp) throws {
        for column in collectionColumns(of: c) {
            let ck = SyncTrees.listKey(ok, column: column)
            if c.spec.columns[column].isSet {
                try modifySetRecord(ck) { $0.removeTags(through: stamp) }
            } else {
                try modifyMapRecord(ck) { $0.removeEntries(through: stamp) }
            }
            try reprojectCollection(c, ok, column, k)
        }
    }

    /// The metadata side of deleting an object: its set tags die, its map entries go (removals
    /// stamped after the delete stay).
    func deleteCollectionMetadata(_ c: SyncedClass, _ ok: [UInt8], _ stamp: Stamp) throws {
        for column in collectionColumns(of: c) {
            let ck = SyncTrees.listKey(ok, column: column)
            if c.spec.columns[column].isSet {
                guard try !setRecord(ck).values.isEmpty else { continue }
                try modifySetRecord(ck) { $0.removeTags(through: stamp) }
            } else {
                guard try !mapRecord(ck).entries.isEmpty else { continue }
                try modifyMapRecord(ck) { $0.removeEntries(through: stamp) }
            }
        }
    }

    /// Makes the table's set or map (object `k`) what its record says: live values whose link
    /// targets exist; every key with a value (nil for a link whose target is deleted).
    func reprojectCollection(_ c: SyncedClass, _ ok: [UInt8], _ column: Int, _ k: ObjectKey) throws {
        let t = try table(c)
        let ck = SyncTrees.listKey(ok, column: column)
        if c.spec.columns[column].isSet {
            var desired = Set<StorageValue>()
            for v in try setRecord(ck).liveValues {
                let (value, dangling) = try elementValue(c, column, v, set: true)
                if dangling == nil { desired.insert(value) }
            }
            let current = try t.listValues(k, column)
            for v in current where !desired.contains(v) { try t.setRemove(k, column, v) }
            let have = Set(current)
            for v in desired.sorted(by: { StorageValue.setOrder($0, $1) < 0 }) where !have.contains(v) { try t.setInsert(k, column, v) }
        } else {
            var desired: [String: StorageValue] = [:]
            for (key, e) in try mapRecord(ck).entries {
                guard let v = e.value else { continue }
                desired[key] = try elementValue(c, column, v, set: false).0
            }
            for e in try t.mapEntries(k, column) where desired[e.key] == nil { try t.mapRemove(k, column, key: e.key) }
            for key in desired.keys.sorted() {
                guard let v = desired[key] else { continue }
                try t.mapSet(k, column, key: key, v)
            }
        }
    }

    // MARK: extraction

    /// A local edit of a set or map: what the table holds that its record does not.
    enum CollectionEdit {
        case add(SyncValue)
        case remove(SyncValue, tags: [Stamp])
        case put(String, SyncValue, seen: Stamp?)
        case drop(String, seen: Stamp?)
    }

    /// The local edits of set or map `column` of object `k` (primary key `pk`): the difference
    /// between its record and the table. A link the table dropped (a set) or shows as nil (a map)
    /// because its target is deleted is no edit: the record keeps it, dangling.
    func localCollectionEdits(_ c: SyncedClass, _ pk: StorageValue, _ k: ObjectKey, _ column: Int) throws -> [CollectionEdit] {
        let t = try table(c)
        let ok = SyncTrees.objectKey(c.key, pk)
        let ck = SyncTrees.listKey(ok, column: column)
        func travelling(_ v: StorageValue) throws -> SyncValue { try self.travelling(v, c, column) }
        /// Whether `v` links to a target that is not in the table (the link dangles); remembers it.
        func dangles(_ v: SyncValue?) throws -> Bool {
            guard let v, case let (tc, targetPK)? = linkTarget(c, column, v) else { return false }
            guard try rowKey(tc, targetPK) == nil else { return false }
            try addDangling(target: SyncTrees.objectKey(tc.key, targetPK), origin: ok, column: column, originPrimaryKey: pk)
            return true
        }
        var edits: [CollectionEdit] = []
        if c.spec.columns[column].isSet {
            let record = try setRecord(ck)
            var current = Set<SyncValue>()
            for v in try t.listValues(k, column) {
                let sv = try travelling(v)
                current.insert(sv)
                if !record.isLive(sv) { edits.append(.add(sv)) }
            }
            for (v, tags) in record.values where !tags.live.isEmpty && !current.contains(v) {
                if try dangles(v) { continue }
                edits.append(.remove(v, tags: tags.live.sorted()))
            }
            // In a fixed order (a dictionary's is random per process): a seeded run replays alike.
            func order(_ e: CollectionEdit) -> [UInt8] {
                var w = ByteWriter(capacity: 16)
                switch e {
                case .add(let v): w.u8(0); v.encode(into: &w)
                case .remove(let v, _): w.u8(1); v.encode(into: &w)
                case .put, .drop: break
                }
                return w.bytes
            }
            edits.sort { order($0).lexicographicallyPrecedes(order($1)) }
        } else {
            let record = try mapRecord(ck)
            var current: [String: SyncValue] = [:]
            for e in try t.mapEntries(k, column) { current[e.key] = try travelling(e.value) }
            for key in current.keys.sorted() {
                guard let v = current[key] else { continue }
                let held = record.entries[key]
                if let held, held.value == v { continue }
                if v == .null, try dangles(held?.value) { continue }
                edits.append(.put(key, v, seen: held?.stamp))
            }
            for key in record.entries.keys.sorted() where current[key] == nil {
                guard let held = record.entries[key], held.value != nil else { continue }
                edits.append(.drop(key, seen: held.stamp))
            }
        }
        return edits
    }

    /// The instruction of a local edit, and its effect on the records (as if applied).
    func noteLocalCollectionEdit(_ c: SyncedClass, _ pk: StorageValue, _ column: Int, _ edit: CollectionEdit, stamp: Stamp,
                                 address: ObjectAddress, property: Int) throws -> (SyncInstruction, seen: Stamp?)
    {
        let ok = SyncTrees.objectKey(c.key, pk)
        let ck = SyncTrees.listKey(ok, column: column)
        switch edit {
        case .add(let v):
            try modifySetRecord(ck) { _ = $0.add(v, tag: stamp) }
            var o = try object(ok)
            o.noteWrite(stamp)
            setObject(ok, o)
            return (.setAdd(address, property: property, value: v), nil)
        case .remove(let v, let tags):
            try modifySetRecord(ck) { $0.remove(v, tags: tags) }
            return (.setRemove(address, property: property, value: v, tags: tags), nil)
        case .put(let key, let v, let seen):
            assert(seen.map { stamp > $0 } ?? true, "a local map put is stamped after what it replaces")
            try modifyMapRecord(ck) { $0.entries[key] = MapRecord.Entry(stamp: stamp, value: v) }
            var o = try object(ok)
            o.noteWrite(stamp)
            setObject(ok, o)
            return (.mapSet(address, property: property, key: key, value: v), seen)
        case .drop(let key, let seen):
            assert(seen.map { stamp > $0 } ?? true, "a local map removal is stamped after what it replaces")
            try modifyMapRecord(ck) { $0.entries[key] = MapRecord.Entry(stamp: stamp, value: nil) }
            return (.mapRemove(address, property: property, key: key), seen)
        }
    }

    // MARK: invariants

    /// Throws `.fileCorrupted` unless the table's set or map is the projection of its record.
    static func checkCollection(_ r: Transaction, _ nodes: NodeTable, _ c: SyncedClass, _ t: Table, _ k: ObjectKey,
                                _ ok: [UInt8], _ column: Int, pk: StorageValue, schema: SyncSchema) throws
    {
        let name = "'\(c.name)' \(pk).\(c.spec.columns[column].name)"
        let bytes = try r.internalValue(SyncTrees.collections, key: SyncTrees.listKey(ok, column: column))
        func travelling(_ v: StorageValue) throws -> SyncValue {
            try SyncValue.travelling(v, c, column, schema: schema, txn: r) { tc, k in try r.table(tc.key).primaryKeyValue(k) }
        }
        func exists(_ v: SyncValue) throws -> Bool {
            let target: (SyncedClass, StorageValue)?
            switch v {
            case .link(let targetPK): target = c.linkTargets[column].map { ($0, targetPK) }
            case .typedLink(let className, let targetPK):
                guard let tc = schema.byName[className] else { return false }
                target = (tc, targetPK)
            case .value: target = nil
            }
            guard case let (tc, targetPK)? = target else { return true }
            return try r.table(tc.key).find(primaryKey: targetPK) != nil
        }
        if c.spec.columns[column].isSet {
            let record = try bytes.map { b in try b.withUnsafeBytes { try SetRecord.decode($0, nodes) } } ?? SetRecord()
            let expected = Set(try record.liveValues.filter { try exists($0) })
            let actual = Set(try t.listValues(k, column).map(travelling))
            guard expected == actual else {
                throw AtollError.corrupted("\(name) holds \(actual.count) elements where its sync record has \(expected.count) (\(actual.symmetricDifference(expected).map(\.description).sorted().prefix(3).joined(separator: ", ")) differ)")
            }
        } else {
            let record = try bytes.map { b in try b.withUnsafeBytes { try MapRecord.decode($0, nodes) } } ?? MapRecord()
            var expected: [String: SyncValue] = [:]
            for (key, e) in record.entries {
                guard let v = e.value else { continue }
                expected[key] = try exists(v) ? v : .null
            }
            var actual: [String: SyncValue] = [:]
            for e in try t.mapEntries(k, column) { actual[e.key] = try travelling(e.value) }
            guard expected == actual else {
                throw AtollError.corrupted("\(name) holds \(actual.count) keys where its sync record has \(expected.count), or their values differ")
            }
        }
    }
}
