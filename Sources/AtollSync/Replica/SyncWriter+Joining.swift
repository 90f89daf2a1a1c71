import AtollStorage

// A class joining the synced schema while it already holds objects (a local class becomes synced
// in a new app version, or the configuration's list of synced classes grows): its objects have no
// sync metadata, because they were made while the class did not sync. They are uploaded as if
// just created with their current values (SyncWriter+Bootstrap.swift), in the commit that adopts
// the new schema (SyncReplica.adoptChangedSchema). The local commits of such a class not yet
// extracted are not replayed one by one: the objects' current values already hold their outcome,
// and a replay could not work anyway (a write to an object made before has no metadata to
// compare with).
//
// A joining class is a synced class with no sync metadata at all (no object record, not even a
// tombstone: every object a synced class ever had leaves one) that holds at least one object not
// created by the pending local commits. A class that synced before, stopped and syncs again has
// metadata, so its objects made meanwhile are not told apart from synced ones: that case stays
// refused (checkEveryObjectHasSyncRecord).

extension SyncWriter {
    /// The synced classes joining with objects made before (see above), in name order.
    func classesJoiningWithObjects() throws -> [SyncedClass] {
        var candidates: [SyncedClass] = []
        for c in schema.classes.values.sorted(by: { $0.name < $1.name }) {
            var hasRecord = false
            var prefix = ByteWriter(capacity: 4)
            prefix.u32BigEndian(c.key.rawValue)
            try txn.forEachInternalEntry(SyncTrees.objects, from: prefix.bytes, prefix: prefix.bytes) { _, _ in
                hasRecord = true
                return false
            }
            if !hasRecord, try !table(c).objectKeys().isEmpty { candidates.append(c) }
        }
        guard !candidates.isEmpty else { return [] }
        // The objects the pending local commits create (and which extraction turns into creates).
        let tables = Set(candidates.map(\.key))
        var created: [TableKey: Set<ObjectKey>] = [:]
        for v in try txn.loggedVersions(after: state.extractedThrough) {
            guard let bytes = try txn.log(of: v) else { continue }
            var reader = TransactionLogReader(bytes)
            while let i = reader.next() {
                if case .createObject(let t, let k, _) = i, tables.contains(t) { created[t, default: []].insert(k) }
            }
            if let e = reader.error { throw e }
        }
        return try candidates.filter { c in
            let made = created[c.key] ?? []
            return try table(c).objectKeys().contains { !made.contains($0) }
        }
    }
}
