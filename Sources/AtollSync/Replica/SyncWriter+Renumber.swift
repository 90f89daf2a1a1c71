import AtollStorage

// A migration that removes a synced property (docs/SYNC.md, "Schema changes"): the property stops
// syncing for this node; other nodes keep it, and the relay's schema history keeps it.
//
// Sync metadata names a property by its column's position in the class (ObjectRecord fields,
// the keys of `sync.lists`, `sync.counters`, `sync.dangling` and `sync.conflicts`, SyncKeys.swift,
// and the path steps and fields of `sync.embedded`, SyncWriter+RenumberEmbedded.swift), and removing a column moves every later column down by one. Positions change
// only there, in a migration, and sync sees a migration in exactly one place: the commit that
// adopts the new schema (SyncReplica.adoptChangedSchema), which extracts the local commits made
// since the last sync, the migration's among them. That commit renumbers the metadata of the
// classes whose columns were removed, once, to the positions of the new schema, and drops what
// it kept of the removed properties; the extraction then reads each log entry's column through
// the renumbering in force at that point of the log (a log names columns by their position when
// it was written). Renumbering there, rather than giving properties positions of their own that
// every access of the metadata would translate, leaves the metadata format and every path that
// reads it unchanged; it costs one pass over the metadata of the changed classes, in a commit
// that already pays for a pass over their objects (the migration).
//
// Writes of a removed property that were still in unsynced local commits are not sent (the
// property is gone from this node's schema, and with it what its values meant: its type and link
// target). Writes of it from other nodes are kept aside (SyncWriter+Unknown.swift), like those of
// any property this node does not have, and are applied should the property come back.

/// Where a synced class's columns went in the schema changes of the pending local commits.
struct ColumnRenumbering {
    /// A schema change of a class in the log, and where its columns before it are now:
    /// `slotsBefore[i]` is the column that column i of the class just before the change is in the
    /// current schema (nil: removed).
    struct Change {
        let version: UInt64
        let entry: Int
        let slotsBefore: [Int?]
    }

    /// Per class with a removed column: its changes in log order.
    private(set) var changes: [TableKey: [Change]] = [:]

    var isEmpty: Bool { changes.isEmpty }

    /// No schema change: every column stays where it is.
    init() {}

    /// Reads the schema changes of the synced classes in the pending local commits `versions`.
    /// Empty unless a synced class lost a column.
    init(_ writer: SyncWriter, versions: [UInt64]) throws {
        enum Op { case add(Int), remove(Int) }
        var ops: [TableKey: [(version: UInt64, entry: Int, op: Op)]] = [:]
        var removals = Set<TableKey>()
        // Embedded classes too: their records' fields and the steps of paths through them
        // (SyncWriter+RenumberEmbedded.swift).
        let embedded = Dictionary(writer.schema.embedded.values.map { ($0.key, $0.spec) }, uniquingKeysWith: { a, _ in a })
        func synced(_ t: TableKey) -> Bool { writer.schema.classes[t] != nil || embedded[t] != nil }
        for v in versions {
            guard let bytes = try writer.txn.log(of: v) else { continue }
            var reader = TransactionLogReader(bytes)
            var entry = 0
            while let i = reader.next() {
                defer { entry += 1 }
                switch i {
                case .addColumn(let t, let column, _) where synced(t):
                    ops[t, default: []].append((v, entry, .add(column)))
                case .removeColumn(let t, let column, _) where synced(t):
                    ops[t, default: []].append((v, entry, .remove(column)))
                    removals.insert(t)
                default:
                    continue
                }
            }
            if let e = reader.error { throw e }
        }
        for t in removals {
            guard let spec = writer.schema.classes[t]?.spec ?? embedded[t], let tableOps = ops[t] else { continue }
            let c = (name: spec.name, spec: spec)
            // Backwards from the current schema: before an addition its column was not there;
            // before a removal there was one more column, which has no place now.
            var slots: [Int?] = (0..<c.spec.columns.count).map { Optional($0) }
            var result: [Change] = []
            for o in tableOps.reversed() {
                switch o.op {
                case .add(let column):
                    guard column < slots.count else { throw AtollError.corrupted("the history adds column \(column) of '\(c.name)', which has \(slots.count)") }
                    slots.remove(at: column)
                case .remove(let column):
                    guard column <= slots.count else { throw AtollError.corrupted("the history removes column \(column) of '\(c.name)', which has \(slots.count)") }
                    slots.insert(nil, at: column)
                }
                result.append(Change(version: o.version, entry: o.entry, slotsBefore: slots))
            }
            changes[t] = result.reversed()
        }
    }

    /// Where the columns of class `t` before the pending commits are now (nil: no column of it
    /// was removed): `result[i]` is the current column of column i (nil: removed).
    func slotsBeforePendingCommits(_ t: TableKey) -> [Int?]? { changes[t]?.first?.slotsBefore }

    /// The current column of column `column` of class `t` at log entry `entry` of commit
    /// `version` (nil: removed since).
    func column(_ t: TableKey, _ column: Int, version: UInt64, entry: Int) throws -> Int? {
        guard let tableChanges = changes[t] else { return column }
        guard let next = tableChanges.first(where: { ($0.version, $0.entry) > (version, entry) }) else { return column }
        guard column < next.slotsBefore.count else {
            throw AtollError.corrupted("the history writes column \(column) of table \(t.rawValue), which had \(next.slotsBefore.count) then")
        }
        return next.slotsBefore[column]
    }

    /// `instruction` (log entry `entry` of commit `version`) with its column as in the current
    /// schema; nil when it writes a property removed since.
    func translate(_ instruction: LogInstruction, version: UInt64, entry: Int) throws -> LogInstruction? {
        guard !changes.isEmpty else { return instruction }
        func now(_ t: TableKey, _ c: Int) throws -> Int? { try column(t, c, version: version, entry: entry) }
        switch instruction {
        case .set(let t, let k, let c, let v, let implicit):
            return try now(t, c).map { .set(t, k, column: $0, value: v, implicit: implicit) }
        case .addInteger(let t, let k, let c, let d):
            return try now(t, c).map { .addInteger(t, k, column: $0, delta: d) }
        case .listInsert(let t, let k, let c, let i, let v):
            return try now(t, c).map { .listInsert(t, k, column: $0, index: i, value: v) }
        case .listSet(let t, let k, let c, let i, let v):
            return try now(t, c).map { .listSet(t, k, column: $0, index: i, value: v) }
        case .listErase(let t, let k, let c, let i, let implicit):
            return try now(t, c).map { .listErase(t, k, column: $0, index: i, implicit: implicit) }
        case .listMove(let t, let k, let c, let from, let to):
            return try now(t, c).map { .listMove(t, k, column: $0, from: from, to: to) }
        case .listClear(let t, let k, let c):
            return try now(t, c).map { .listClear(t, k, column: $0) }
        default:
            return instruction
        }
    }
}

extension SyncWriter {
    /// Renumbers the metadata of every class of `renumbering` from its columns before the pending
    /// commits to the current ones, dropping what belonged to removed columns. Runs before the
    /// extraction reads or caches any record.
    func renumberMetadata(_ renumbering: ColumnRenumbering) throws {
        for (t, tableChanges) in renumbering.changes {
            guard let first = tableChanges.first, let c = schema.classes[t] else { continue }
            let slots = first.slotsBefore
            func moved(_ column: Int) throws -> Int? {
                guard column < slots.count else { throw AtollError.corrupted("sync metadata of '\(c.name)' names column \(column) of \(slots.count)") }
                return slots[column]
            }
            var prefixWriter = ByteWriter(capacity: 4)
            prefixWriter.u32BigEndian(t.rawValue)
            let prefix = prefixWriter.bytes

            // Object records: field columns.
            var objectKeys: [[UInt8]] = []
            try txn.forEachInternalEntry(SyncTrees.objects, from: prefix, prefix: prefix) { k, _ in
                objectKeys.append(Array(k))
                return true
            }
            for ok in objectKeys {
                var o = try object(ok)
                var fields: [ObjectRecord.Field] = []
                for var f in o.fields {
                    guard let n = try moved(f.column) else { continue }
                    f.column = n
                    fields.append(f)
                }
                o.fields = fields.sorted { $0.column < $1.column }
                setObject(ok, o)
            }

            // Lists, sets and maps (object key ++ u16 column), increments (object key ++ u16
            // column ++ 28-byte stamp), conflict ledger entries (the same, 0xFFFF for the object).
            try rekey(SyncTrees.lists, prefix: prefix, suffixBytes: 0, moved)
            try rekey(SyncTrees.listsWithRemovals, prefix: prefix, suffixBytes: 0, moved)
            try rekey(SyncTrees.counters, prefix: prefix, suffixBytes: 28, moved)
            try rekey(ConflictLedger.tree, prefix: prefix, suffixBytes: 28) { column in
                if column == ConflictLedger.objectColumn { return column }
                return try moved(column)
            }

            // Dangling links (target object key ++ origin object key ++ u16 column, value: the
            // origin's tagged primary key), whose origin is an object of this class.
            var dangling: [(key: [UInt8], value: [UInt8])] = []
            try txn.forEachInternalEntry(SyncTrees.dangling, from: []) { k, v in
                var r = ByteReader(v, context: "sync dangling link")
                let originPK = try StorageValue.decode(from: &r)
                let origin = SyncTrees.objectKey(t, originPK)
                let key = Array(k)
                if key.count > origin.count + 2, Array(key[(key.count - 2 - origin.count)..<(key.count - 2)]) == origin {
                    dangling.append((key, Array(v)))
                }
                return true
            }
            for d in dangling {
                try txn.deleteInternal(SyncTrees.dangling, key: d.key)
            }
            for d in dangling {
                let column = Int(d.key[d.key.count - 2]) << 8 | Int(d.key[d.key.count - 1])
                guard let n = try moved(column) else { continue }
                var key = Array(d.key.dropLast(2))
                key.append(UInt8(truncatingIfNeeded: n >> 8))
                key.append(UInt8(truncatingIfNeeded: n))
                try txn.putInternal(SyncTrees.dangling, key: key, value: d.value)
            }
        }
        try renumberEmbeddedRecords(renumbering)
    }

    /// Moves every entry of `tree` under `prefix` whose key ends in u16 column ++ `suffixBytes`
    /// bytes to the column `moved` gives (deleting it when nil).
    private func rekey(_ tree: String, prefix: [UInt8], suffixBytes: Int, _ moved: (Int) throws -> Int?) throws {
        var entries: [(key: [UInt8], value: [UInt8])] = []
        try txn.forEachInternalEntry(tree, from: prefix, prefix: prefix) { k, v in
            entries.append((Array(k), Array(v)))
            return true
        }
        var changed: [(key: [UInt8], value: [UInt8])] = []
        for e in entries {
            let at = e.key.count - suffixBytes - 2
            guard at >= prefix.count else { throw AtollError.corrupted("\(tree) key of \(e.key.count) bytes") }
            let column = Int(e.key[at]) << 8 | Int(e.key[at + 1])
            let n = try moved(column)
            guard n != column else { continue }
            try txn.deleteInternal(tree, key: e.key)
            if let n {
                var key = e.key
                key[at] = UInt8(truncatingIfNeeded: n >> 8)
                key[at + 1] = UInt8(truncatingIfNeeded: n)
                changed.append((key, e.value))
            }
        }
        for e in changed { try txn.putInternal(tree, key: e.key, value: e.value) }
    }
}
