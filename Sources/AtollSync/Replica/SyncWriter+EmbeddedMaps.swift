import AtollStorage

// Maps of embedded objects (docs/SYNC.md, "Embedded objects"; EmbeddedRecord.swift has the
// keys and the path form).
//
// - Each key is a last-writer-wins register, as in a map of values: its record (a `MapRecord`,
//   kept in `sync.embedded` under the holder's key) holds per key the stamp and value of the
//   write that decides it. A `mapSet` writes nil (`.value(.null)`) or an embedded object (a link
//   to the object's own path), a `mapRemove` removes the key; the greatest stamp wins, removals
//   included. A delete of the holder voids the entries stamped before it.
// - The embedded object at a key is named by the path to the map, the map's name and the key
//   (`=<key>`). Its fields are registers as a to-one embedded object's are.
// - The key's write is a delete of whatever the key held before: it is noted as the delete of
//   the record at the key's path, so every write inside (the fields, and what the object holds)
//   stamped before the key's latest write is void. A new object at a key replaces the old one;
//   a write stamped after it lands in the new one (as for to-one embedded objects).
// - A write inside a key that holds nil or was removed shows nothing and does not bring an
//   object back: only the key's own writes decide what it holds. Such a write is kept (unseen)
//   while nothing voids it, so that an object written at the key with a stamp between the two,
//   arriving later, gets it as it does on the nodes that had the object first.
// - A `mapSet` and a write inside an object at a key are writes of the holder, its ancestors and
//   the parent (they keep them or bring them back); a removal is not, as for maps of values.
// - Local changes are found by comparing the table's map with the record: a key whose row is the
//   one the record knows keeps its object (its fields compared), another row is a new object at
//   the key (a `mapSet` and its fields), nil a `mapSet` of nil, a missing key a `mapRemove`.

extension SyncWriter {
    func embeddedMap(_ key: [UInt8]) throws -> MapRecord {
        try txn.internalValue(SyncTrees.embedded, key: key).map { bytes in
            try bytes.withUnsafeBytes { try MapRecord.decode($0, state.nodes) }
        } ?? MapRecord()
    }

    func putEmbeddedMap(_ key: [UInt8], _ m: MapRecord) throws {
        if m.entries.isEmpty {
            try txn.deleteInternal(SyncTrees.embedded, key: key)
        } else {
            try txn.putInternal(SyncTrees.embedded, key: key, value: m.encode(&state.nodes))
        }
    }

    /// Whether map entry `e` holds an embedded object (rather than nil or a removal).
    static func holdsObject(_ e: MapRecord.Entry?) -> Bool {
        guard let v = e?.value else { return false }
        if case .link = v { return true }
        return false
    }

    /// The keys of map of embedded objects `mk` (its record's key) that have records below them
    /// in `sync.embedded`.
    func keysWithRecords(under mk: [UInt8]) throws -> Set<String> {
        var keys = Set<String>()
        try txn.forEachInternalEntry(SyncTrees.embedded, from: mk, prefix: mk) { k, _ in
            guard k.count > mk.count else { return true }
            let key = Array(k)
            guard key.count >= mk.count + 2 else { throw AtollError.corrupted("sync.embedded key of \(key.count) bytes under a map of embedded objects") }
            let n = Int(key[mk.count]) << 8 | Int(key[mk.count + 1])
            guard n > 0, n <= EmbeddedStep.mapKeyBytesMax, key.count >= mk.count + 2 + n,
                  let s = String(validating: key[(mk.count + 2)..<(mk.count + 2 + n)], as: UTF8.self)
            else { throw AtollError.corrupted("sync.embedded key of \(key.count) bytes under a map of embedded objects") }
            keys.insert(s)
            return true
        }
        return keys
    }

    /// The key write stamped `stamp` at `path` (a key of a map): a delete of what the key held,
    /// noted in the record at the key (made when the write puts an object there; for nil or a
    /// removal only a record that holds writes made inside the key needs it).
    func noteKeyWrite(_ ok: [UInt8], _ path: [EmbeddedStep], _ stamp: Stamp, putsObject: Bool) throws {
        let rk = SyncTrees.embeddedKey(ok, path)
        guard try putsObject || txn.internalValue(SyncTrees.embedded, key: rk) != nil else { return }
        var r = try embeddedRecord(rk)
        r.noteDelete(stamp)
        r.fields.removeAll { $0.stamp <= stamp }
        try putEmbeddedRecord(rk, r)
    }

    // MARK: apply

    /// Applies a remote map instruction on map of embedded objects `column` (of class `ec`) of
    /// `holder`: the parent (no steps) or an embedded object of class `holderClass`, named
    /// `holderNames` on the wire.
    func applyToEmbeddedMap(_ instruction: SyncInstruction, _ ec: SyncedEmbeddedClass,
                            holder: (c: SyncedClass, pk: StorageValue, ok: [UInt8], steps: [EmbeddedStep]), holderClass: SyncedEmbeddedClass?,
                            holderNames: [String], column: Int, mapName: String, stamp: Stamp) throws
    {
        let key: String
        let value: SyncValue?
        switch instruction {
        case .mapSet(_, _, let k, let v):
            key = k
            value = v
        case .mapRemove(_, _, let k):
            key = k
            value = nil
        default:
            throw AtollError(.protocolViolation, "a changeset edits a map of embedded '\(ec.name)' objects as a list, set or value")
        }
        try EmbeddedPath.checkMapKey(key)
        let path = holder.steps + [.entry(column, key)]
        if let value {
            switch value {
            case .value(.null):
                break
            case .link(primaryKey: .string(let s)):
                // The object's own path: nothing else names it.
                let expected = EmbeddedPath(parentClass: holder.c.name, parentPrimaryKey: holder.pk,
                                            properties: holderNames + [mapName, EmbeddedPath.keyPart(key)]).string
                guard s == expected else {
                    throw AtollError(.protocolViolation, "a changeset puts '\(s.prefix(200))' at key '\(key)' of map '\(mapName)' of embedded objects, which is not that key's path")
                }
            default:
                throw AtollError(.protocolViolation, "a changeset puts a value into map '\(mapName)' of embedded '\(ec.name)' objects (an object is a link to its path)")
            }
            // A write of the holder, its ancestors and the parent, whether or not it decides the
            // key (so that existence is the same in every order of arrival).
            if !holder.steps.isEmpty, try !embeddedElementRemoved(holder.ok, holder.steps) {
                let hk = SyncTrees.embeddedKey(holder.ok, holder.steps)
                var hr = try embeddedRecord(hk)
                hr.noteWrite(stamp)
                try putEmbeddedRecord(hk, hr)
                try noteAncestorsWrite(holder.ok, holder.steps, stamp)
            }
            try applyCreate(holder.c, holder.pk, stamp)
        }
        let mk = SyncTrees.embeddedMapKey(holder.ok, holder.steps, column: column)
        var m = try embeddedMap(mk)
        let held = m.entries[key]
        if let held, held.stamp == stamp { return } // applied already
        if recordsConflicts {
            try noteEmbeddedMapConflicts(holder: holder, holderClass: holderClass, holderNames: holderNames, column: column, mapName: mapName,
                                         key: key, held: held, value, stamp)
        }
        if let held, held.stamp > stamp { return } // older: it lost
        // Void: stamped before a delete of the holder (or inside a removed list element).
        if let tombstone = try embeddedHolderTombstone(holder.ok, holder.steps), stamp <= tombstone { return }
        if try embeddedElementRemoved(holder.ok, holder.steps) { return }
        m.entries[key] = MapRecord.Entry(stamp: stamp, value: value)
        try putEmbeddedMap(mk, m)
        try noteKeyWrite(holder.ok, path, stamp, putsObject: Self.holdsObject(m.entries[key]))
    }

    /// A key write or removal `v` stamped `stamp` of a key that holds `held`, before it is
    /// applied: as for maps of values (`noteMapConflicts`), in the ledger of the holder (the
    /// parent, or the embedded object by its path, as its fields' conflicts are). An object that
    /// lost is named by its path; its fields are not kept.
    private func noteEmbeddedMapConflicts(holder: (c: SyncedClass, pk: StorageValue, ok: [UInt8], steps: [EmbeddedStep]),
                                          holderClass: SyncedEmbeddedClass?, holderNames: [String], column: Int, mapName: String,
                                          key: String, held: MapRecord.Entry?, _ v: SyncValue?, _ stamp: Stamp) throws
    {
        let ledgerKey = holder.steps.isEmpty ? holder.ok : SyncTrees.embeddedKey(holder.ok, holder.steps)
        try dropSeen(ledgerKey, column: column)
        guard let outcome = mapConflictOutcome(held: held, v, stamp) else { return }
        let primaryKey: StorageValue = holder.steps.isEmpty ? holder.pk
            : .string(EmbeddedPath(parentClass: holder.c.name, parentPrimaryKey: holder.pk, properties: holderNames).string)
        try putConflict(.mapEntryWrite, className: holderClass?.name ?? holder.c.name, primaryKey: primaryKey, property: mapName,
                        mapKey: key, won: outcome.won, lost: outcome.lost, ledgerKey: ledgerKey, column: column)
    }

    // MARK: prune and projection

    /// Drops the entries of map `column` (of the holder at `steps`) written before a delete of
    /// the holder, the records below keys that hold no object and nothing newer than the key's
    /// write, and prunes what the objects at the other keys hold.
    func pruneEmbeddedMap(_ ok: [UInt8], _ column: Int, _ ec: SyncedEmbeddedClass, _ steps: [EmbeddedStep], _ holderTombstone: Stamp?) throws {
        let mk = SyncTrees.embeddedMapKey(ok, steps, column: column)
        var m = try embeddedMap(mk)
        if let holderTombstone {
            let before = m
            m.removeEntries(through: holderTombstone)
            if m != before { try putEmbeddedMap(mk, m) }
        }
        let keys = Set(m.entries.keys).union(try keysWithRecords(under: mk))
        for key in keys.sorted() {
            let path = steps + [.entry(column, key)]
            let rk = SyncTrees.embeddedKey(ok, path)
            let e = m.entries[key]
            var r = try embeddedRecord(rk)
            let tombstone = Self.later(Self.later(holderTombstone, e?.stamp), r.deleted)
            guard try Self.holdsObject(e)
                || newestEmbeddedStamp(under: rk, parentBytes: ok.count).map({ newest in tombstone.map { newest > $0 } ?? true }) ?? false
            else {
                // Nothing at the key, and nothing written inside it that a key write stamped
                // between could still show.
                try deleteEmbeddedRecords(under: rk)
                continue
            }
            let before = r
            r.fields.removeAll { f in tombstone.map { f.stamp <= $0 } ?? false }
            if !Self.holdsObject(e) { r.row = nil }
            if r != before { try putEmbeddedRecord(rk, r) }
            try pruneEmbeddedChildren(ok, ec.embeddedColumns, ec.embeddedLists, ec.embeddedMaps, path, tombstone)
        }
    }

    /// Makes map `column` of row `row` of `t` (the holder at `steps`) show its record's keys:
    /// nil, or the object at the key (its row kept when it is the one the record knows).
    func projectEmbeddedMap(_ ok: [UInt8], _ t: Table, _ row: ObjectKey, _ column: Int, _ ec: SyncedEmbeddedClass,
                            _ steps: [EmbeddedStep], _ holderTombstone: Stamp?) throws
    {
        let m = try embeddedMap(SyncTrees.embeddedMapKey(ok, steps, column: column))
        let live = m.entries.filter { entry in entry.value.value != nil && (holderTombstone.map { entry.value.stamp > $0 } ?? true) }
        var current: [String: StorageValue] = [:]
        for (key, value) in try t.mapEntries(row, column) { current[key] = value }
        for key in current.keys.sorted() where live[key] == nil {
            _ = try t.mapRemove(row, column, key: key)
        }
        let et = try txn.table(ec.key)
        for (key, e) in live.sorted(by: { $0.key < $1.key }) {
            guard Self.holdsObject(e) else {
                if current[key] != .null { try t.mapSet(row, column, key: key, .null) }
                continue
            }
            let path = steps + [.entry(column, key)]
            let rk = SyncTrees.embeddedKey(ok, path)
            var r = try embeddedRecord(rk)
            let target: ObjectKey
            if let shown = r.row, current[key] == .link(shown) {
                target = shown
            } else {
                target = try et.create()
                try t.mapSet(row, column, key: key, .link(target))
            }
            let tombstone = Self.later(Self.later(holderTombstone, e.stamp), r.deleted)
            try projectEmbeddedFields(ec, et, target, r, tombstone)
            if r.row != target {
                r.row = target
                try putEmbeddedRecord(rk, r)
            }
            try projectEmbeddedChildren(ok, et, target, ec.embeddedColumns, ec.embeddedLists, ec.embeddedMaps, path, tombstone)
        }
    }

    // MARK: extraction

    /// Compares map of embedded objects `column` of row `row` of `t` (the holder at `steps`,
    /// named `names` on the wire; none: the parent) with its record and appends the key writes
    /// and the writes inside the objects, updating the records as if they had been applied.
    func extractEmbeddedMap(_ x: EmbeddedExtraction, _ t: Table, _ row: ObjectKey, _ column: Int, _ ec: SyncedEmbeddedClass,
                            _ steps: [EmbeddedStep], _ names: [String], _ holderTombstone: Stamp?,
                            _ encoder: inout ChangesetBodyEncoder) throws
    {
        let mk = SyncTrees.embeddedMapKey(x.ok, steps, column: column)
        var m = try embeddedMap(mk)
        let mapName = t.spec.columns[column].name
        let holderAddress = Self.embeddedHolderAddress(x, t, steps, names, &encoder)
        let property = encoder.propertyIndex(mapName)
        var changed = false
        // Entries written before a delete of the holder are gone with it (every node drops them).
        if let holderTombstone {
            let before = m
            m.removeEntries(through: holderTombstone)
            changed = m != before
        }
        // A local key write stamped after everything in the parent's records
        // (embeddedStampBound): nothing the key held before stays.
        func write(_ key: String, _ v: SyncValue?) throws -> Stamp {
            let s = x.base.at(encoder.instructionCount)
            let seen = m.entries[key]?.stamp
            if let v {
                encoder.append(.mapSet(holderAddress, property: property, key: key, value: v), seen: seen)
                // A write of the holder, its ancestors and the parent.
                x.parentWrite = Self.later(x.parentWrite, s)
                if !steps.isEmpty {
                    let hk = SyncTrees.embeddedKey(x.ok, steps)
                    var hr = try embeddedRecord(hk)
                    hr.noteWrite(s)
                    try putEmbeddedRecord(hk, hr)
                    try noteAncestorsWrite(x.ok, steps, s)
                }
            } else {
                encoder.append(.mapRemove(holderAddress, property: property, key: key), seen: seen)
            }
            m.entries[key] = MapRecord.Entry(stamp: s, value: v)
            changed = true
            try deleteEmbeddedRecords(under: SyncTrees.embeddedKey(x.ok, steps + [.entry(column, key)]))
            return s
        }
        let current = try t.mapEntries(row, column)
        let shown = Set(current.map(\.key))
        for (key, e) in m.entries.sorted(by: { $0.key < $1.key }) where e.value != nil && !shown.contains(key) {
            _ = try write(key, nil)
        }
        for (key, value) in current {
            guard key.utf8.count <= EmbeddedStep.mapKeyBytesMax else {
                throw AtollError(.limitExceeded, "map '\(t.spec.name).\(mapName)' has a key of \(key.utf8.count) bytes; a map of embedded objects syncs keys of up to \(EmbeddedStep.mapKeyBytesMax) bytes")
            }
            guard case .link(let k) = value else {
                if m.entries[key]?.value != .value(.null) { _ = try write(key, .value(.null)) }
                continue
            }
            let path = steps + [.entry(column, key)]
            let rk = SyncTrees.embeddedKey(x.ok, path)
            let pathNames = names + [mapName, EmbeddedPath.keyPart(key)]
            let pathString = EmbeddedPath(parentClass: x.c.name, parentPrimaryKey: x.pk, properties: pathNames).string
            var r = try embeddedRecord(rk)
            if !Self.holdsObject(m.entries[key]) || r.row != k {
                let s = try write(key, .link(primaryKey: .string(pathString)))
                r = EmbeddedRecord()
                r.noteDelete(s)
            }
            r.row = k
            let tombstone = Self.later(Self.later(holderTombstone, m.entries[key]?.stamp), r.deleted)
            let address = ObjectAddress(classIndex: encoder.classIndex(ec.name), primaryKey: .string(pathString))
            try extractEmbeddedFields(x, ec, k, &r, path, address, tombstone, &encoder)
            try putEmbeddedRecord(rk, r)
            try extractEmbeddedChildren(x, try txn.table(ec.key), k, ec.embeddedColumns, ec.embeddedLists, ec.embeddedMaps, path, pathNames,
                                        tombstone, &encoder)
        }
        if changed { try putEmbeddedMap(mk, m) }
    }
}
