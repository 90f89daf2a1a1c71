import AtollStorage

/// One sync write transaction. Turning pending local commits into changesets
/// (SyncWriter+Extract.swift) and merging remote changesets (SyncWriter+Apply.swift) happen in
/// the same transaction, local first, so that every local change is stamped before a remote one
/// is compared with it. Decoded metadata records are cached for the transaction and written back
/// once, at `finish`; if anything throws, the caller rolls the transaction back and nothing of
/// it (data, metadata, clock, version vector) is kept.
final class SyncWriter {
    let txn: WriteTransaction
    let schema: SyncSchema
    var state: ReplicaState
    var clock: HybridLogicalClock
    let physicalMilliseconds: () -> UInt64
    let maxForwardDriftMilliseconds: UInt64
    /// Remote clock readings found implausibly far ahead (and capped) in this transaction.
    var clockCapped = 0
    /// Where a local transaction's changeset is cut, and the most body bytes of one transaction
    /// (`ReplicaConfiguration`'s test hooks; `SyncLimits` otherwise).
    var changesetSplitBytes = SyncLimits.changesetSplitBytes
    var transactionBytesMax = SyncLimits.transactionBytesMax
    /// The most body bytes a part of a local transaction can take: the cut comes after the
    /// instruction that reaches `changesetSplitBytes`, which may be one value of up to 16 MiB.
    var partBytesMax: Int { min(SyncLimits.changesetBodyBytesMax, 3 * changesetSplitBytes) }
    /// Local commits extracted in this transaction that were too large to ship as one
    /// transaction: their version, their size and the number of transactions they became.
    var oversizeCommits: [OversizeCommit] = []
    /// Per origin, its parts staged in `sync.staged` (SyncWriter+Stage.swift), once looked up.
    var stagedRuns: [NodeID: StagedRun] = [:]
    /// The conflict ledger (Conflict.swift): whether the changeset being applied records
    /// conflicts (one of format 3), the stamp its instruction being applied had seen, how many
    /// entries this transaction recorded, and how many the file keeps.
    var recordsConflicts = false
    var seenStamp: Stamp?
    var conflictsRecorded = 0
    var conflictRetention = ConflictRetention()
    /// During a client reset: the old state's rows by class and primary key, which the relay's
    /// state takes over rather than making new rows (SyncReplica+Reset.swift). Not yet taken over,
    /// a row counts as absent.
    var staleRows: [TableKey: [StorageValue: ObjectKey]]?
    /// Classes whose local commits extraction skips: classes joining the synced schema with
    /// objects made before, which are uploaded whole instead (SyncWriter+Joining.swift).
    var extractionSkips: Set<TableKey> = []
    /// The commit adopts a changed schema (SyncReplica.adoptChangedSchema): removed columns of
    /// synced classes are renumbered rather than refused (SyncWriter+Renumber.swift).
    var adoptsSchemaChanges = false

    /// Records read or written in this transaction; `dirty` ones are written back at `finish`.
    /// One table rather than a cache plus a dirty set, and keys hashed as one block of bytes
    /// rather than byte by byte: a download batch does several lookups per instruction here.
    private var objects: [RecordKey: (record: ObjectRecord, dirty: Bool)] = [:]
    private var lists: [RecordKey: (record: ListRecord, dirty: Bool)] = [:]
    private var tables: [TableKey: Table] = [:]
    /// Set and map records (CollectionRecord.swift), like `lists`.
    var setRecords: [RecordKey: (record: SetRecord, dirty: Bool)] = [:]
    var mapRecords: [RecordKey: (record: MapRecord, dirty: Bool)] = [:]
    /// Objects with embedded objects that remote changes touched: their embedded objects are
    /// brought in line with the sync records once the changes are applied (SyncWriter+Embedded).
    var embeddedParents: [RecordKey: (SyncedClass, StorageValue)] = [:]

    init(txn: WriteTransaction, schema: SyncSchema, state: ReplicaState, physicalMilliseconds: @escaping () -> UInt64,
         maxForwardDriftMilliseconds: UInt64)
    {
        self.txn = txn
        self.schema = schema
        self.state = state
        clock = HybridLogicalClock(last: state.clock)
        self.physicalMilliseconds = physicalMilliseconds
        self.maxForwardDriftMilliseconds = maxForwardDriftMilliseconds
    }

    var nodeID: NodeID { state.nodeID }

    func table(_ c: SyncedClass) throws -> Table {
        if let t = tables[c.key] { return t }
        let t = try txn.table(c.key)
        tables[c.key] = t
        return t
    }

    /// The object key of the object with primary key `pk`, if it is in the table.
    func rowKey(_ c: SyncedClass, _ pk: StorageValue) throws -> ObjectKey? {
        if staleRows?[c.key]?[pk] != nil { return nil }
        let t = try table(c)
        if c.keyIsPrimaryKey {
            guard case .int(let v) = pk else { return nil }
            let k = ObjectKey(primaryKey: v)
            return try t.contains(k) ? k : nil
        }
        return try t.find(primaryKey: pk)
    }

    // MARK: records

    func object(_ key: [UInt8]) throws -> ObjectRecord {
        if let o = objects[RecordKey(key)] { return o.record }
        let o = try txn.internalValue(SyncTrees.objects, key: key).map { bytes in
            try bytes.withUnsafeBytes { try ObjectRecord.decode($0, state.nodes) }
        } ?? ObjectRecord()
        objects[RecordKey(key)] = (o, false)
        return o
    }

    func setObject(_ key: [UInt8], _ o: ObjectRecord) {
        objects[RecordKey(key)] = (o, true)
    }

    func list(_ key: [UInt8]) throws -> ListRecord {
        try list(key, caching: true)
    }

    private func list(_ key: [UInt8], caching: Bool) throws -> ListRecord {
        if let l = lists[RecordKey(key)] { return l.record }
        let l = try txn.internalValue(SyncTrees.lists, key: key).map { bytes in
            try bytes.withUnsafeBytes { try ListRecord.decode($0, state.nodes) }
        } ?? ListRecord()
        if caching { lists[RecordKey(key)] = (l, false) }
        return l
    }

    func setList(_ key: [UInt8], _ l: ListRecord) {
        lists[RecordKey(key)] = (l, true)
    }

    /// The document index of element `id` of a list, looked up in the cached record itself, so
    /// that the record's position index is built once, not on a copy for each lookup.
    func listIndex(_ key: [UInt8], of id: ElementID) throws -> Int? {
        let rk = RecordKey(key)
        if lists[rk] == nil { _ = try list(key) }
        return lists[rk]!.record.index(of: id)
    }

    /// Takes a list's record out of the cache to change it; the caller gives it back with
    /// `setList` on every path (a `defer` right after). A copy read with `list` shares its
    /// elements with the cache's and copies all of them at its first change, which made a
    /// transaction of n edits of one list cost n copies of it. Nothing may read the same list
    /// while it is taken.
    func takeList(_ key: [UInt8]) throws -> ListRecord {
        if let l = lists.removeValue(forKey: RecordKey(key)) { return l.record }
        return try list(key, caching: false)
    }

    /// The list columns of a class (sets and maps, also stored as lists, are not: they have
    /// their own records, SyncWriter+Collections.swift).
    func listColumns(of c: SyncedClass) -> [Int] {
        c.spec.columns.indices.filter { c.spec.columns[$0].isList && !c.spec.columns[$0].isSet && !c.spec.columns[$0].isMap && c.embeddedLists[$0] == nil }
    }

    // MARK: counters (increments kept while a later write of the field may need them)

    func addIncrement(_ object: [UInt8], column: Int, stamp: Stamp, delta: Int64) throws {
        var w = ByteWriter(capacity: 10)
        w.zigzag(delta)
        try txn.putInternal(SyncTrees.counters, key: SyncTrees.counterKey(object, column: column, stamp: stamp), value: w.bytes)
    }

    /// Deletes the increments of a field stamped at or before `stamp` and returns the sum of
    /// those after it (nil `stamp`: delete all).
    func trimIncrements(_ object: [UInt8], column: Int, through stamp: Stamp?) throws -> Int64 {
        let prefix = SyncTrees.listKey(object, column: column)
        var doomed: [[UInt8]] = []
        var sum: Int64 = 0
        try txn.forEachInternalEntry(SyncTrees.counters, from: prefix, prefix: prefix) { k, v in
            guard k.count == prefix.count + 28 else { throw AtollError.corrupted("sync counter key of \(k.count) bytes") }
            let hlc = UInt64(bigEndian: k.loadUnaligned(fromByteOffset: prefix.count, as: UInt64.self))
            guard let node = NodeID(bytes: UnsafeRawBufferPointer(rebasing: k[(prefix.count + 8)..<(prefix.count + 24)])) else { return true }
            let index = UInt32(bigEndian: k.loadUnaligned(fromByteOffset: prefix.count + 24, as: UInt32.self))
            var r = ByteReader(v, context: "sync counter")
            let delta = try r.zigzag()
            if let stamp, Stamp(hlc: hlc, node: node, index: index) > stamp {
                sum &+= delta
            } else {
                doomed.append(Array(k))
            }
            return true
        }
        for k in doomed { try txn.deleteInternal(SyncTrees.counters, key: k) }
        return sum
    }

    // MARK: dangling links

    func addDangling(target: [UInt8], origin: [UInt8], column: Int, originPrimaryKey: StorageValue) throws {
        var w = ByteWriter(capacity: 16)
        originPrimaryKey.encode(into: &w)
        try txn.putInternal(SyncTrees.dangling, key: SyncTrees.danglingKey(target: target, origin: origin, column: column), value: w.bytes)
    }

    func removeDangling(target: [UInt8], origin: [UInt8], column: Int) throws {
        try txn.deleteInternal(SyncTrees.dangling, key: SyncTrees.danglingKey(target: target, origin: origin, column: column))
    }

    /// Links whose target (class `c`, primary key `pk`, now in the table as `key`) was deleted
    /// come back: properties that still name it link to it again, hidden list elements that name
    /// it reappear in their lists.
    func resolveDangling(_ c: SyncedClass, pk: StorageValue, key: ObjectKey) throws {
        let target = SyncTrees.objectKey(c.key, pk)
        var entries: [(key: [UInt8], originTable: TableKey, origin: [UInt8], column: Int, originPK: StorageValue)] = []
        try txn.forEachInternalEntry(SyncTrees.dangling, from: target, prefix: target) { k, v in
            let rest = Array(k[target.count...])
            guard rest.count >= 7 else { throw AtollError.corrupted("sync dangling key of \(k.count) bytes") }
            let table = TableKey(UInt32(rest[0]) << 24 | UInt32(rest[1]) << 16 | UInt32(rest[2]) << 8 | UInt32(rest[3]))
            let column = Int(rest[rest.count - 2]) << 8 | Int(rest[rest.count - 1])
            var r = ByteReader(v, context: "sync dangling link")
            let originPK = try StorageValue.decode(from: &r)
            entries.append((Array(k), table, Array(rest.dropLast(2)), column, originPK))
            return true
        }
        for e in entries {
            try txn.deleteInternal(SyncTrees.dangling, key: e.key)
            guard let originClass = schema.classes[e.originTable], e.column < originClass.spec.columns.count,
                  originClass.linkTargets[e.column] === c || originClass.spec.columns[e.column].type == .mixed
            else { continue }
            let originRecord = try object(e.origin)
            guard originRecord.exists, let originKey = try rowKey(originClass, e.originPK) else { continue }
            let t = try table(originClass)
            // A mixed column links with a typed link: the value names the target's class.
            let mixed = originClass.spec.columns[e.column].type == .mixed
            let travelling: SyncValue = mixed ? .typedLink(className: c.name, primaryKey: pk) : .link(primaryKey: pk)
            let stored: StorageValue = mixed ? .typedLink(c.key, key) : .link(key)
            if originClass.spec.columns[e.column].isSet || originClass.spec.columns[e.column].isMap {
                try reprojectCollection(originClass, e.origin, e.column, originKey)
            } else if originClass.spec.columns[e.column].isList {
                let lk = SyncTrees.listKey(e.origin, column: e.column)
                var l = try list(lk)
                var visible = 0
                var changed = false
                for i in l.elements.indices {
                    let el = l.elements[i]
                    if el.isHidden, !el.isDeleted, el.value == travelling {
                        l.elements[i].isHidden = false
                        try t.listInsert(originKey, e.column, at: visible, stored)
                        changed = true
                    }
                    if l.elements[i].isVisible { visible += 1 }
                }
                if changed { setList(lk, l) }
            } else {
                var o = originRecord
                guard let i = o.fieldIndex(e.column), o.fields[i].danglingTarget == danglingRecordValue(travelling) else { continue }
                o.fields[i].danglingTarget = nil
                try t.set(originKey, e.column, stored)
                setObject(e.origin, o)
            }
        }
    }

    // MARK: finishing

    /// Writes every changed record into the transaction and empties the record tables, so that
    /// applying a transaction of many parts holds the records of one part at a time in memory
    /// (the transaction itself reads them back from its own writes).
    func flushRecords() throws {
        // Hash order. (Key order measured slower: sorting the records costs more than the tree
        // saves, and puts in key order defragmented far more leaves.)
        for (key, entry) in objects where entry.dirty {
            if entry.record.isEmpty {
                try txn.deleteInternal(SyncTrees.objects, key: key.bytes)
            } else {
                try txn.putInternal(SyncTrees.objects, key: key.bytes, value: entry.record.encode(&state.nodes))
            }
        }
        for (key, entry) in lists where entry.dirty {
            try txn.putInternal(SyncTrees.lists, key: key.bytes, value: entry.record.encode(&state.nodes))
            if entry.record.hasRemovalsToCollect { try noteListWithRemovals(key.bytes) }
        }
        try flushCollectionRecords()
        objects = [:]
        lists = [:]
    }

    /// Writes every changed record and the state (with the clock) into the transaction, and
    /// makes the commit the new extraction point.
    func finish() throws {
        try flushRecords()
        if conflictsRecorded > 0 {
            try ConflictLedger.enforce(conflictRetention, txn: txn, nowMilliseconds: physicalMilliseconds())
        }
        while state.applied.count < state.nodes.count { state.applied.append(0) }
        state.clock = clock.last
        state.extractedThrough = txn.newVersion
        try txn.putInternal(SyncTrees.state, key: SyncTrees.stateKey, value: state.encode())
        txn.setSyncHistoryRetained(from: txn.newVersion + 1)
    }
}

/// A metadata record's key in `SyncWriter`'s tables, hashed with one `combine(bytes:)` (an
/// `[UInt8]` hashes element by element).
struct RecordKey: Hashable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
