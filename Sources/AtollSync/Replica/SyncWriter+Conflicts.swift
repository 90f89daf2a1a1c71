import AtollStorage

// Recording the conflict ledger at the merge's decision points (Conflict.swift has the format and
// why concurrency is known exactly). Called from SyncWriter+Apply.swift before a remote
// instruction changes anything, for changesets that carry seen stamps (`recordsConflicts`).
//
// Keys are the losing write's stamp, so every node writes the same entry for the same loss
// whichever of the two writes it got first:
// - write W arrives, the property holds H > W (H had not seen W: it would have arrived first):
//   W lost to H. Arriving W > H that had not seen H (H > W.seen): H lost to W.
// - write W arrives stamped before the object's delete D: W lost to D. Delete D arrives and the
//   object holds a property written at F <= D that D had not seen (F > D.seen): F lost to D.
// - delete D arrives and the object holds writes after it: D lost to the first of them. Write W
//   arrives for an object deleted at D < W that W had not seen (D > W.seen): D lost to W.
// - list element write: as for properties, with the element's value stamp.
// The winner stored is the one the entry was decided against; reading the ledger gives what the
// property holds now (Conflict+Access.swift), so the ledger reads the same whatever the order.

extension SyncWriter {
    /// The value property `column` of the object holds now, as it travels (links by primary key;
    /// a link to a deleted target by the target it remembers).
    private func currentValue(_ c: SyncedClass, _ pk: StorageValue, _ column: Int, dangling: StorageValue?) throws -> SyncValue {
        guard let k = try rowKey(c, pk) else { return .null }
        let v = try table(c).value(k, column)
        if case .link(let target) = v, let tc = c.linkTargets[column] {
            return .link(primaryKey: try table(tc).primaryKeyValue(target))
        }
        if case .typedLink(let t, let target) = v, let tc = schema.classes[t] {
            return .typedLink(className: tc.name, primaryKey: try table(tc).primaryKeyValue(target))
        }
        if v.isNull, let dangling { return danglingValue(c, column, dangling) }
        return .value(v)
    }

    func recordConflict(_ kind: Conflict.Kind, _ c: SyncedClass, _ pk: StorageValue, _ ok: [UInt8], keyColumn: Int,
                        property: Int?, element: ElementID? = nil, mapKey: String? = nil,
                                winning: SyncValue?, _ winningStamp: Stamp, losing: SyncValue?, _ losingStamp: Stamp) throws
    {
        try putConflict(kind, className: c.name, primaryKey: pk, property: property.map { c.spec.columns[$0].name }, element: element,
                        mapKey: mapKey, won: (winning, winningStamp), lost: (losing, losingStamp), ledgerKey: ok, column: keyColumn)
    }

    /// Puts a conflict in the ledger under `ledgerKey` (an object's key, or an embedded
    /// object's by its path), column `column` and the losing stamp: the one place entries are made.
    func putConflict(_ kind: Conflict.Kind, className: String, primaryKey: StorageValue, property: String?, element: ElementID? = nil,
                     mapKey: String? = nil, won: (value: SyncValue?, stamp: Stamp), lost: (value: SyncValue?, stamp: Stamp),
                     ledgerKey: [UInt8], column: Int) throws
    {
        let conflict = Conflict(id: Conflict.ID(key: []), kind: kind, className: className, primaryKey: primaryKey,
                                property: property, listElement: element,
                                winningValue: won.value, losingValue: lost.value, winningStamp: won.stamp, losingStamp: lost.stamp,
                                decidedInVersion: txn.newVersion, recordedAtMilliseconds: physicalMilliseconds(), mapKey: mapKey)
        try txn.putInternal(ConflictLedger.tree, key: ConflictLedger.key(ledgerKey, column: column, losing: lost.stamp),
                            value: ConflictLedger.encode(conflict))
        conflictsRecorded += 1
    }

    /// Who won and who lost when a map key's write or removal `v` stamped `stamp` arrives at a
    /// key holding `held`; nil when that decided nothing between concurrent writes (no entry,
    /// two removals, or a held write the arriving one had seen).
    func mapConflictOutcome(held: MapRecord.Entry?, _ v: SyncValue?, _ stamp: Stamp)
        -> (won: (value: SyncValue?, stamp: Stamp), lost: (value: SyncValue?, stamp: Stamp))?
    {
        guard let held, held.value != nil || v != nil else { return nil }
        if held.stamp > stamp { return ((held.value, held.stamp), (v, stamp)) }
        guard held.stamp > (seenStamp ?? .zero) else { return nil }
        return ((v, stamp), (held.value, held.stamp))
    }

    /// The writer of an arriving write had seen `seenStamp` there: had that write been recorded
    /// as lost, it was replaced knowingly after all (its entry goes). Every node drops it: the
    /// entry can only have been made before the arriving write came (causal order).
    func dropSeen(_ ok: [UInt8], column: Int) throws {
        guard let seen = seenStamp else { return }
        try txn.deleteInternal(ConflictLedger.tree, key: ConflictLedger.key(ok, column: column, losing: seen))
    }

    /// A remote write `v` of property `column` stamped `stamp`, before it is applied.
    func noteSetConflicts(_ c: SyncedClass, _ pk: StorageValue, _ ok: [UInt8], _ o: ObjectRecord, _ column: Int,
                          _ v: SyncValue, _ stamp: Stamp) throws
    {
        // Whether this write wins or not: what its writer replaced knowingly lost no conflict.
        try dropSeen(ok, column: column)
        if let d = o.deleted, stamp < d {
            try recordConflict(.writeVoidedByDelete, c, pk, ok, keyColumn: column, property: column, winning: nil, d, losing: v, stamp)
            return
        }
        if let f = o.field(column), f.stamp > stamp {
            guard o.exists, f.stamp != .zero else { return }
            let held = try currentValue(c, pk, column, dangling: f.danglingTarget)
            try recordConflict(.concurrentWrite, c, pk, ok, keyColumn: column, property: column, winning: held, f.stamp, losing: v, stamp)
            return
        }
        // In a format 3 changeset, no seen stamp means the writer had seen nothing there.
        let seen = seenStamp ?? .zero
        if o.exists {
            guard let f = o.field(column), f.stamp != .zero, f.stamp > seen else { return }
            let held = try currentValue(c, pk, column, dangling: f.danglingTarget)
            try recordConflict(.concurrentWrite, c, pk, ok, keyColumn: column, property: column, winning: v, stamp, losing: held, f.stamp)
        } else if let d = o.deleted, d > seen {
            // Brings back an object whose delete the writer had not seen.
            try recordConflict(.deleteOverridden, c, pk, ok, keyColumn: ConflictLedger.objectColumn, property: column,
                               winning: v, stamp, losing: nil, d)
        }
    }

    /// A remote delete stamped `stamp` of an existing object, before it is applied.
    func noteEraseConflicts(_ c: SyncedClass, _ pk: StorageValue, _ ok: [UInt8], _ o: ObjectRecord, _ stamp: Stamp) throws {
        let seen = seenStamp ?? .zero
        var firstAfter: ObjectRecord.Field?
        for f in o.fields where f.stamp != .zero {
            if f.stamp > stamp {
                // Written after the delete (and so not seen by it): the object stays.
                if firstAfter.map({ f.stamp < $0.stamp }) ?? true { firstAfter = f }
            } else if f.stamp > seen {
                let held = try currentValue(c, pk, f.column, dangling: f.danglingTarget)
                try recordConflict(.writeVoidedByDelete, c, pk, ok, keyColumn: f.column, property: f.column,
                                   winning: nil, stamp, losing: held, f.stamp)
            }
        }
        if let f = firstAfter {
            let value = try currentValue(c, pk, f.column, dangling: f.danglingTarget)
            try recordConflict(.deleteOverridden, c, pk, ok, keyColumn: ConflictLedger.objectColumn, property: f.column,
                               winning: value, f.stamp, losing: nil, stamp)
        }
    }

    /// A remote write `v` of list element `e` stamped `stamp`, before it is applied.
    func noteListSetConflicts(_ c: SyncedClass, _ pk: StorageValue, _ ok: [UInt8], _ column: Int, _ e: ListRecord.Element,
                              _ v: SyncValue, _ stamp: Stamp) throws
    {
        try dropSeen(ok, column: column)
        if e.valueStamp > stamp {
            try recordConflict(.listElementWrite, c, pk, ok, keyColumn: column, property: column, element: e.id,
                               winning: e.value, e.valueStamp, losing: v, stamp)
            return
        }
        let seen = seenStamp ?? .zero
        guard e.valueStamp > seen else { return }
        try recordConflict(.listElementWrite, c, pk, ok, keyColumn: column, property: column, element: e.id,
                           winning: v, stamp, losing: e.value, e.valueStamp)
    }
}
