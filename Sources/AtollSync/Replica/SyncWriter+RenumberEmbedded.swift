import AtollStorage

// The renumbering of SyncWriter+Renumber.swift for embedded objects. An embedded object's record
// (`sync.embedded`, EmbeddedRecord.swift) is keyed by its parent's object key and the columns of
// the path down to it, and holds its fields by column: a migration that removes a column of the
// parent's class or of an embedded class on the path moves those numbers. The adoption commit
// moves them to the current positions with the rest of the metadata, before the extraction
// compares the embedded objects in the table with their records (embedded objects are extracted
// by that comparison, not from the log's column numbers). A record whose path goes through a
// removed property is dropped with what it held, as the property's values are; its conflict
// ledger entries (the record's key ++ u16 column ++ the losing stamp) move or go with it.

extension SyncWriter {
    /// Moves the records of embedded objects to the current column positions of every class of
    /// `renumbering` (a parent class or an embedded class), dropping those whose path or field
    /// was removed. One pass over `sync.embedded`.
    func renumberEmbeddedRecords(_ renumbering: ColumnRenumbering) throws {
        guard !schema.embedded.isEmpty else { return }
        let embeddedByTable = Dictionary(schema.embedded.values.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        guard renumbering.changes.keys.contains(where: { embeddedByTable[$0] != nil || schema.classes[$0]?.holdsEmbedded == true }) else { return }

        func moved(_ slots: [Int?]?, _ column: Int, _ what: String) throws -> Int? {
            guard let slots else { return column }
            guard column < slots.count else { throw AtollError.corrupted("\(what) names column \(column) of \(slots.count)") }
            return slots[column]
        }

        var entries: [(key: [UInt8], value: [UInt8])] = []
        try txn.forEachInternalEntry(SyncTrees.embedded, from: []) { k, v in
            entries.append((Array(k), Array(v)))
            return true
        }
        // Old key -> new key and record (nil: dropped), for the records that change.
        var changed: [(old: [UInt8], new: [UInt8]?, record: EmbeddedRecord, fieldSlots: [Int?]?)] = []
        var listMoves: [(old: [UInt8], new: [UInt8], value: [UInt8])] = []
        for e in entries {
            let n = Int(e.key[0])
            guard n >= 4, e.key.count >= 1 + n + 2 else {
                throw AtollError.corrupted("sync.embedded key of \(e.key.count) bytes")
            }
            let parent = Array(e.key[1...n])
            let t = TableKey(UInt32(parent[0]) << 24 | UInt32(parent[1]) << 16 | UInt32(parent[2]) << 8 | UInt32(parent[3]))
            guard let c = schema.classes[t] else { continue }
            let (oldSteps, oldList, oldMap) = try EmbeddedStep.parse(e.key, from: 1 + n)
            var ownerSlots = renumbering.slotsBeforePendingCommits(t)
            var owner = (name: c.name, embeddedColumns: c.embeddedColumns, embeddedLists: c.embeddedLists, embeddedMaps: c.embeddedMaps)
            var steps: [EmbeddedStep] = []
            var target: SyncedEmbeddedClass?
            var gone = false
            for step in oldSteps {
                // A removed property, or one that holds no embedded object now: the path is gone.
                guard let now = try moved(ownerSlots, step.column, "the path of an embedded object of '\(owner.name)'") else { gone = true; break }
                let found: SyncedEmbeddedClass?
                switch step {
                case .property:
                    found = owner.embeddedColumns[now]
                    steps.append(.property(now))
                case .element(_, let id):
                    found = owner.embeddedLists[now]
                    steps.append(.element(now, id))
                case .entry(_, let key):
                    found = owner.embeddedMaps[now]
                    steps.append(.entry(now, key))
                }
                guard let next = found else { gone = true; break }
                target = next
                ownerSlots = renumbering.slotsBeforePendingCommits(next.key)
                owner = (next.name, next.embeddedColumns, next.embeddedLists, next.embeddedMaps)
            }
            if let oldMap {
                // A map of embedded objects' own record: only its key moves.
                guard !gone, let now = try moved(ownerSlots, oldMap, "a map of embedded objects of '\(owner.name)'"),
                      owner.embeddedMaps[now] != nil else {
                    try txn.deleteInternal(SyncTrees.embedded, key: e.key)
                    continue
                }
                let key = SyncTrees.embeddedMapKey(parent, steps, column: now)
                if key != e.key { listMoves.append((e.key, key, e.value)) }
                continue
            }
            if let oldList {
                // A list of embedded objects' own record: only its key moves.
                guard !gone, let now = try moved(ownerSlots, oldList, "a list of embedded objects of '\(owner.name)'"),
                      owner.embeddedLists[now] != nil else {
                    try txn.deleteInternal(SyncTrees.embedded, key: e.key)
                    continue
                }
                let key = SyncTrees.embeddedListKey(parent, steps, column: now)
                if key != e.key { listMoves.append((e.key, key, e.value)) }
                continue
            }
            let record = try e.value.withUnsafeBytes { try EmbeddedRecord.decode($0, state.nodes) }
            guard !gone, let target else {
                changed.append((e.key, nil, record, nil))
                continue
            }
            let key = SyncTrees.embeddedKey(parent, steps)
            let fieldSlots = renumbering.slotsBeforePendingCommits(target.key)
            guard key != e.key || fieldSlots != nil else { continue }
            var r = record
            if fieldSlots != nil {
                var fields: [EmbeddedRecord.Field] = []
                for var f in r.fields {
                    guard let now = try moved(fieldSlots, f.column, "the record of an embedded '\(target.name)'") else { continue }
                    f.column = now
                    fields.append(f)
                }
                r.fields = fields.sorted { $0.column < $1.column }
            }
            changed.append((e.key, key, r, fieldSlots))
        }

        // Deletes first: a record can move to the key another one leaves.
        var ledgerMoves: [(key: [UInt8], value: [UInt8])] = []
        for c in changed {
            try txn.deleteInternal(SyncTrees.embedded, key: c.old)
            var ledger: [(key: [UInt8], value: [UInt8])] = []
            try txn.forEachInternalEntry(ConflictLedger.tree, from: c.old, prefix: c.old) { k, v in
                // Exactly the record's key ++ u16 column ++ 28-byte stamp (longer keys with this
                // prefix are those of embedded objects below it).
                if k.count == c.old.count + 30 { ledger.append((Array(k), Array(v))) }
                return true
            }
            for l in ledger {
                try txn.deleteInternal(ConflictLedger.tree, key: l.key)
                guard let new = c.new else { continue }
                let column = Int(l.key[c.old.count]) << 8 | Int(l.key[c.old.count + 1])
                guard let now = try moved(c.fieldSlots, column, "a conflict of an embedded object") else { continue }
                var key = new
                key.append(UInt8(truncatingIfNeeded: now >> 8))
                key.append(UInt8(truncatingIfNeeded: now))
                key.append(contentsOf: l.key[(c.old.count + 2)...])
                ledgerMoves.append((key, l.value))
            }
        }
        for m in listMoves { try txn.deleteInternal(SyncTrees.embedded, key: m.old) }
        for c in changed {
            guard let new = c.new else { continue }
            try putEmbeddedRecord(new, c.record)
        }
        for m in listMoves { try txn.putInternal(SyncTrees.embedded, key: m.new, value: m.value) }
        for l in ledgerMoves { try txn.putInternal(ConflictLedger.tree, key: l.key, value: l.value) }
    }
}
