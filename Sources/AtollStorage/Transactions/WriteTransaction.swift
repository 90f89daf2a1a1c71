// WriteTransaction: builds version N+1 from version N while holding the writer lock.
//
// Durability argument (see also FileFormat.swift, CommitPageList.swift, docs/FORMAT.md "Power
// loss"). Every page this transaction writes was free in every version a reader can see and in
// version N (PageAllocator reuses only pages freed at versions <= min(oldest pinned, N)).
// Before it reuses any, the writer makes sure N is on stable storage: a commit with full
// durability records its version in the lock file as durable once its sync returns, and a
// writer that finds the newest version not recorded so (its committer was killed between its
// record and its sync, or committed without syncing) syncs first (`Database.beginWrite`).
// So N and the pages it reaches are durable and untouched by this transaction, and:
// - one-sync commit (format 3, at most CommitPageList.entriesMax entries and pagesMax pages):
//   `commit` writes its pages, then the root record of N+1 with the list of the pages and
//   their checksums into the slot that held N-1, then syncs once. Until the sync returns, any
//   part of that may be on disk; open accepts N+1 only if every listed page holds what it
//   lists (CommitPageList.problem), else it takes N, in the other slot.
// - two-sync commit (formats 1 and 2, larger commits): `commit` writes its pages, syncs, writes
//   the root record of N+1 (no list) into the slot that held N-1, and syncs again. Until that
//   slot write lands, N is the newest valid version on disk; after it, N+1 is.
// A crash at any point leaves N or N+1. The one-sync commit is the default wherever the format
// allows: it halves the syncs of small commits, and the check it costs at open is bounded. The
// two-sync commit remains for files of older formats (whose readers do not check lists) and for
// commits too large to list, where one more sync is small beside the pages written and keeps
// the check at open bounded.
//
// Checksums: the pages this transaction builds have none until commit (VerifiedPages marks
// them as the writer's own, so reads inside the transaction do not check them); commit computes
// each one's checksum (PageChecksum: bound to page number and file id in format 2) before the
// first sync and records it as checked for this process; rollback returns them to unchecked.

public final class WriteTransaction: Transaction {
    /// Appended to by every change (on the transaction's thread, one access at a time: no
    /// dynamic exclusivity check).
    @exclusivity(unchecked) var log = TransactionLogWriter()
    private var pinned: PinnedVersions
    private var changedSpecs: Set<TableKey> = []
    private var removedTables: [TableKey: Table] = [:]
    private var metadataChanges: [String: [UInt8]?] = [:]
    private var schemaChanged = false
    private var syncRetainedFrom: UInt64?
    /// Internal trees changed by this transaction (their roots go into the catalog at commit).
    var changedInternalTrees: Set<String> = []
    /// When set, commit stores no transaction log (copies of a file are not user changes).
    var discardsLog = false
    /// When cleared, commit writes no page list (two-sync protocol, or no sync at all with
    /// `unsafe`): for copies that are synced whole before their name is (WriteCopy.swift), so
    /// that damage to any of their pages is reported, never taken for an interrupted commit.
    var listsPages = true
    /// Incremented by every change; object accessors cache row positions per value.
    @exclusivity(unchecked) package private(set) var mutationCount: UInt64 = 0
    /// When set, `Table.clear` logs one erase per object (sync needs per-object instructions).
    public var logsEveryErase = false
    /// When set, commit skips the database's write guard (`Database.setWriteGuard`): sync's own
    /// transactions, which apply what the relay sent.
    public var bypassesWriteGuard = false
    /// Embedded rows that lost a link and may have no owner left (Table+Embedded.swift).
    var orphanCandidates: [(TableKey, ObjectKey)] = []
    var isErasingOrphans = false
    /// Embedded rows created by this transaction: each must have an owner at commit.
    var newEmbeddedRows: [(TableKey, ObjectKey)] = []

    /// The version `commit` creates.
    public var newVersion: UInt64 { version + 1 }

    init(database: Database, root: RootRecord, allocator: PageAllocator, pinned: PinnedVersions) throws {
        self.pinned = pinned
        try super.init(database: database, root: root, space: allocator.space, allocator: allocator)
        logsEveryErase = root.syncHistoryRetainedFrom != 0
    }

    deinit {
        if !isClosed {
            allocator?.forgetFreshPages()
            database.releaseWriter()
        }
    }

    func noteMutation() { mutationCount &+= 1 }

    /// The instructions recorded so far (what notifications and sync will see).
    public var logBytes: [UInt8] { log.bytes }

    /// Whether anything has been changed.
    public var hasChanges: Bool { !log.isEmpty }

    // MARK: schema

    private func nextTableKey() throws -> TableKey {
        let name = "atoll.nextTableKey"
        var next: UInt32 = 1
        if let pending = metadataChanges[name], let bytes = pending, bytes.count == 4 {
            next = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self).littleEndian }
        } else if let stored = try metadata(name), stored.count == 4 {
            next = stored.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self).littleEndian }
        }
        for k in schema.specs.keys where k.rawValue >= next { next = k.rawValue + 1 }
        var w = ByteWriter(); w.u32(next + 1)
        metadataChanges[name] = w.bytes
        return TableKey(next)
    }

    private func replaceSchema(_ specs: [TableKey: TableSpec]) {
        schema = SchemaSnapshot(generation: root.schemaGeneration + 1, specs: specs)
        schemaChanged = true
    }

    /// Creates a table. Link targets may be tables created later in the same transaction.
    @discardableResult
    public func createTable(_ spec: TableSpec) throws -> TableKey {
        try createTable(spec, key: nil)
    }

    /// `key`: keep a given table key (copies of a file keep their keys, so links stay valid).
    func createTable(_ spec: TableSpec, key wanted: TableKey?) throws -> TableKey {
        try checkOpen()
        try spec.validate()
        guard schema.keysByName[spec.name] == nil else { throw AtollError(.invalidArgument, "a class named '\(spec.name)' already exists") }
        try Self.checkRowFits(spec)
        let key = try wanted ?? nextTableKey()
        if let wanted {
            var w = ByteWriter(); w.u32(max(wanted.rawValue + 1, (try metadata("atoll.nextTableKey")).map { $0.count == 4 ? $0.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self).littleEndian } : 1 } ?? 1))
            metadataChanges["atoll.nextTableKey"] = w.bytes
        }
        var specs = schema.specs
        specs[key] = spec
        replaceSchema(specs)
        changedSpecs.insert(key)
        log.append(.addTable(key, spec))
        noteMutation()
        return key
    }

    /// Rejects schemas whose fixed-width columns alone would not leave room in a leaf.
    static func checkRowFits(_ spec: TableSpec) throws {
        var bytes = 0
        for c in spec.columns {
            if c.isList { bytes += 14; continue }
            switch c.physical {
            case .ints: bytes += c.type == .timestamp ? 34 : 17
            case .float32: bytes += 7
            case .float64: bytes += 11
            case .fixed(let k): bytes += k + 3
            case .bytes: bytes += 14
            }
        }
        guard bytes + Table.rowInlineBytesMax + 64 < FileFormat.pageSize else {
            throw AtollError(.limitExceeded, "class '\(spec.name)' has too many properties for one row (\(spec.columns.count)); split it into linked classes")
        }
    }

    /// Deletes a table and its objects. Fails while another table links to it.
    public func removeTable(_ key: TableKey) throws {
        try checkOpen()
        guard let spec = schema.specs[key] else { throw AtollError(.invalidArgument, "no table with key \(key.rawValue)") }
        for (other, s) in schema.specs where other != key && s.columns.contains(where: { $0.linkTarget == spec.name }) {
            throw AtollError(.schemaMismatch, "cannot remove '\(spec.name)': '\(s.name)' links to it")
        }
        let table = try self.table(key)
        try table.freeEverything()
        var specs = schema.specs
        specs[key] = nil
        replaceSchema(specs)
        openTables[key] = nil
        removedTables[key] = table
        changedSpecs.remove(key)
        log.append(.removeTable(key, name: spec.name))
        noteMutation()
    }

    /// Adds a column; existing objects get its default value. Returns the column index.
    @discardableResult
    public func addColumn(_ tableKey: TableKey, _ column: ColumnSpec) throws -> Int {
        let table = try self.table(tableKey)
        var spec = table.spec
        spec.columns.append(column)
        try spec.validate()
        try Self.checkRowFits(spec)
        let c = spec.columns.count - 1
        try table.rebuild(to: spec, sources: Array(0..<c).map { Optional($0) } + [nil])
        try commitSpec(table)
        log.append(.addColumn(tableKey, column: c, column))
        noteMutation()
        return c
    }

    /// Removes a column and its values.
    public func removeColumn(_ tableKey: TableKey, _ c: Int) throws {
        let table = try self.table(tableKey)
        guard c >= 0, c < table.spec.columns.count else { throw AtollError(.invalidArgument, "'\(table.name)' has no column \(c)") }
        var spec = table.spec
        let removed = spec.columns.remove(at: c)
        if spec.primaryKey == removed.name { spec.primaryKey = nil }
        var sources: [Int?] = Array(0..<table.spec.columns.count).map { Optional($0) }
        sources.remove(at: c)
        try table.rebuild(to: spec, sources: sources)
        try commitSpec(table)
        log.append(.removeColumn(tableKey, column: c, name: removed.name))
        noteMutation()
    }

    public func renameColumn(_ tableKey: TableKey, _ c: Int, to newName: String) throws {
        let table = try self.table(tableKey)
        guard c >= 0, c < table.spec.columns.count else { throw AtollError(.invalidArgument, "'\(table.name)' has no column \(c)") }
        var spec = table.spec
        let old = spec.columns[c].name
        if spec.primaryKey == old { spec.primaryKey = newName }
        spec.columns[c].name = newName
        try spec.validate()
        table.replaceSchema(spec)
        try commitSpec(table)
        log.append(.renameColumn(tableKey, column: c, from: old, to: newName))
        noteMutation()
    }

    /// Adds or removes a column's search index.
    public func setIndexed(_ tableKey: TableKey, _ c: Int, _ indexed: Bool) throws {
        let table = try self.table(tableKey)
        guard c >= 0, c < table.spec.columns.count else { throw AtollError(.invalidArgument, "'\(table.name)' has no column \(c)") }
        var spec = table.spec
        guard spec.columns[c].isIndexed != indexed else { return }
        spec.columns[c].isIndexed = indexed
        try spec.validate()
        try table.changeIndex(to: spec, column: c)
        try commitSpec(table)
        log.append(.setIndexed(tableKey, column: c, indexed))
        noteMutation()
    }

    /// Sets or clears the primary key of a table (only while it is empty or unchanged).
    public func setPrimaryKey(_ tableKey: TableKey, _ name: String?) throws {
        let table = try self.table(tableKey)
        guard table.spec.primaryKey != name else { return }
        var spec = table.spec
        spec.primaryKey = name
        try spec.validate()
        guard table.count == 0 else {
            throw AtollError(.schemaMismatch, "cannot change the primary key of '\(table.name)' while it has objects")
        }
        try table.rebuild(to: spec, sources: Array(0..<spec.columns.count).map { Optional($0) })
        try commitSpec(table)
        log.append(.setPrimaryKey(tableKey, name: name ?? ""))
        noteMutation()
    }

    /// Makes a table embedded or top-level (a migration changing a class to `EmbeddedObject`
    /// and back). Making it embedded deletes its objects that nothing links to (Realm deletes
    /// such orphans too) and is refused while one has more than one owner or the table has a
    /// primary key. Not recorded in the transaction log (no instruction expresses it yet; sync
    /// refuses embedded classes).
    public func setEmbedded(_ tableKey: TableKey, _ embedded: Bool) throws {
        let table = try self.table(tableKey)
        guard table.spec.isEmbedded != embedded else { return }
        var spec = table.spec
        spec.isEmbedded = embedded
        try spec.validate()
        if embedded {
            var orphans: [ObjectKey] = []
            for k in try table.objectKeys() {
                let owners = try table.backlinkCount(to: k)
                if owners > 1 {
                    throw AtollError(.schemaMismatch, "cannot make '\(table.name)' embedded: its object \(k.rawValue) is linked from \(owners) places, and an embedded object has exactly one owner; unlink it from all but one in the migration block first")
                }
                if owners == 0 { orphans.append(k) }
            }
            for k in orphans { try table.erase(k) }
        }
        table.replaceSchema(spec)
        try commitSpec(table)
        noteMutation()
    }

    private func commitSpec(_ table: Table) throws {
        var specs = schema.specs
        specs[table.key] = table.spec
        replaceSchema(specs)
        changedSpecs.insert(table.key)
    }

    // MARK: metadata and sync history

    public func setMetadata(_ name: String, _ value: [UInt8]?) throws {
        try checkOpen()
        metadataChanges[name] = .some(value)
        noteMutation()
    }

    public override func metadata(_ name: String) throws -> [UInt8]? {
        if let pending = metadataChanges[name] { return pending }
        return try super.metadata(name)
    }

    /// Internal tree of the commit times (u64 BE nanoseconds since 1970) of the commits whose
    /// logs sync keeps for extraction, keyed by u64 BE version. Written by every writer of the
    /// file while sync history is retained; sync removes an entry when it extracts the commit.
    package static let commitTimesTree = "history.commitTimes"

    /// Keeps the logs of versions >= `version` in the history until moved forward (0: sync
    /// needs no history). Sync calls this as peers acknowledge changes.
    public func setSyncHistoryRetained(from version: UInt64) {
        syncRetainedFrom = version
        logsEveryErase = version != 0
    }

    // MARK: commit

    /// Makes the changes durable (per the configured durability) and visible. Returns the new
    /// version, or the current one when nothing changed.
    @discardableResult
    public func commit() throws -> UInt64 {
        try checkOpen()
        // Closed only on the way out: the commit itself still opens tables (tail relocation
        // visits every table, including ones this transaction never touched).
        defer {
            isClosed = true
            database.releaseWriter()
        }
        guard let allocator else { return version }
        // Embedded rows a schema change left without an owner go with this commit.
        try eraseOrphans()
        try requireOwnersOfNewEmbeddedRows()
        var sealed = false
        // Pages built in the decrypted mirror but never sealed match nothing on disk.
        defer { if !sealed { allocator.forgetFreshPages() } }
        let anyTableChanged = openTables.values.contains { $0.isChanged }
        guard !log.isEmpty || anyTableChanged || !changedSpecs.isEmpty || !metadataChanges.isEmpty || syncRetainedFrom != nil || !changedInternalTrees.isEmpty else {
            return version
        }
        if discardsLog { log = TransactionLogWriter() }
        if !bypassesWriteGuard, let check = database.currentWriteGuard {
            // Before anything is written: a refused transaction leaves the file as it was.
            let changed = openTables.filter { $0.value.isChanged }.map { $0.value.name }.sorted()
            if !changed.isEmpty { try check(changed) }
        }

        // Link targets must exist once every table of the transaction is known, and a set does
        // not hold embedded objects. The second rule is checked where this transaction changed
        // the set's table or its target, so a file made before the rule still takes writes.
        for (key, spec) in schema.specs {
            for c in spec.columns where c.type == .link {
                guard let target = c.linkTarget, let targetKey = schema.keysByName[target] else {
                    throw AtollError(.schemaMismatch, "'\(spec.name).\(c.name)' links to '\(c.linkTarget ?? "")', which does not exist")
                }
                if c.isSet, !changedSpecs.isEmpty, changedSpecs.contains(key) || changedSpecs.contains(targetKey), schema.specs[targetKey]?.isEmbedded == true {
                    throw AtollError(.schemaMismatch, TableSpec.setOfEmbeddedObjectsRefusal(className: spec.name, property: c.name, target: target))
                }
            }
        }

        var next = root
        next.version = newVersion
        next.commitListCount = 0
        next.commitListChecksum = 0

        // Tables, then the catalog.
        var catalog = root.catalogRoot
        for key in removedTables.keys.sorted() {
            _ = try CatalogKey.spec(key).withUnsafeBytes { try BTree.delete(root: &catalog, key: $0, allocator: allocator) }
            _ = try CatalogKey.roots(key).withUnsafeBytes { try BTree.delete(root: &catalog, key: $0, allocator: allocator) }
        }
        for key in changedSpecs.sorted() {
            guard let spec = schema.specs[key] else { continue }
            let bytes = spec.encode()
            try CatalogKey.spec(key).withUnsafeBytes { k in try bytes.withUnsafeBytes { try BTree.put(root: &catalog, key: k, value: $0, allocator: allocator) } }
        }
        for (key, table) in openTables.sorted(by: { $0.key < $1.key }) where table.isChanged || changedSpecs.contains(key) {
            try table.finishWrites()
            let bytes = table.roots.encode()
            try CatalogKey.roots(key).withUnsafeBytes { k in try bytes.withUnsafeBytes { try BTree.put(root: &catalog, key: k, value: $0, allocator: allocator) } }
        }
        for (name, value) in metadataChanges.sorted(by: { $0.key < $1.key }) {
            let k = CatalogKey.metadata(name)
            if let value {
                try k.withUnsafeBytes { kb in try value.withUnsafeBytes { try BTree.put(root: &catalog, key: kb, value: $0, allocator: allocator) } }
            } else {
                _ = try k.withUnsafeBytes { try BTree.delete(root: &catalog, key: $0, allocator: allocator) }
            }
        }
        // The commit's time, kept with a log that sync has yet to turn into a changeset: the
        // changeset is stamped with when the change was made, not when sync got to it.
        let commitTimeNanos = UInt64(Clock.realtimeNanoseconds())
        let retainedFrom = syncRetainedFrom ?? root.syncHistoryRetainedFrom
        if !log.isEmpty, retainedFrom != 0, newVersion >= retainedFrom {
            var k = ByteWriter(); k.u64BigEndian(newVersion)
            var v = ByteWriter(); v.u64BigEndian(commitTimeNanos)
            try putInternal(Self.commitTimesTree, key: k.bytes, value: v.bytes)
        }
        try saveInternalTreeRoots(into: &catalog, allocator: allocator)
        next.catalogRoot = catalog
        if schemaChanged { next.schemaGeneration = root.schemaGeneration + 1 }

        // History: store this log if a reader, sync or retention may need it; trim what none needs.
        pinned = database.lock.pinnedVersions()
        if let from = syncRetainedFrom { next.syncHistoryRetainedFrom = from }
        var history = root.historyRoot
        let retained = UInt64(database.configuration.historyRetainedVersions)
        let readerNeedsLog = pinned.oldest.map { $0 < newVersion } ?? false
        if !log.isEmpty && (readerNeedsLog || next.syncHistoryRetainedFrom != 0 || retained > 0) {
            var k = ByteWriter(); k.u64BigEndian(newVersion)
            let bytes = log.bytes
            try k.bytes.withUnsafeBytes { kb in try bytes.withUnsafeBytes { try BTree.put(root: &history, key: kb, value: $0, allocator: allocator) } }
        }
        var trimPoint = min(pinned.oldest ?? newVersion, newVersion)
        if next.syncHistoryRetainedFrom != 0 { trimPoint = min(trimPoint, next.syncHistoryRetainedFrom - 1) }
        if retained > 0 { trimPoint = min(trimPoint, newVersion > retained ? newVersion - retained : 0) }
        if trimPoint > root.historyFloor {
            try trimHistory(root: &history, upTo: trimPoint, allocator: allocator)
            next.historyFloor = trimPoint
        }
        next.historyRoot = history

        // When free space dominates, move live pages off the end of the file so a later
        // commit can truncate it (TailRelocation.swift).
        let limit = Self.relocationLimit(root: root)
        if let limit, try allocator.reusablePages(below: limit) > 0 {
            let relocator = TailRelocator(allocator: allocator, limit: limit)
            for key in schema.specs.keys.sorted() {
                let t = try table(key)
                var roots = t.roots
                roots.clusterRoot = try relocator.relocateCluster(roots.clusterRoot, layout: t.layout)
                roots.indexRoots = try roots.indexRoots.map { try relocator.relocateBTree($0) }
                roots.backlinkRoot = try relocator.relocateBTree(roots.backlinkRoot)
                if roots != t.roots {
                    t.roots = roots
                    let bytes = roots.encode()
                    try CatalogKey.roots(key).withUnsafeBytes { k in try bytes.withUnsafeBytes { try BTree.put(root: &catalog, key: k, value: $0, allocator: allocator) } }
                }
            }
            for name in try internalTreeNames(catalogRoot: catalog) {
                let old = try internalTreeRoot(name)
                let moved = try relocator.relocateBTree(old)
                if moved != old {
                    internalRoots[name] = moved
                    var w = ByteWriter(capacity: 4)
                    w.u32(moved)
                    try Self.internalTreeCatalogKey(name).withUnsafeBytes { k in
                        try w.bytes.withUnsafeBytes { try BTree.put(root: &catalog, key: k, value: $0, allocator: allocator) }
                    }
                }
            }
            catalog = try relocator.relocateBTree(catalog)
            next.catalogRoot = catalog
            next.historyRoot = try relocator.relocateBTree(next.historyRoot)
            allocator.freeListRoot = try relocator.relocateBTree(allocator.freeListRoot)
        }

        // Free list last: every other tree is final now.
        let trimmed = try allocator.saveFreeList(version: newVersion, shrink: limit != nil)
        next.pageCount = allocator.pageCount
        next.freePageCount = allocator.freePageCount
        next.freeListRoot = allocator.freeListRoot
        next.freeListSerial = allocator.freeListSerial
        next.commitTimeNanos = commitTimeNanos
        // One sync when the file's format allows it and the commit's pages fit a page list
        // (CommitPageList.swift); else two. See the header comment for the argument.
        let list = allocator.checksumFreshPages(listing: database.oneSyncCommits && listsPages)
        if let cache = database.store.cache {
            try allocator.sealFreshPages { try reserveCounters($0, cache: cache) }
            next.ivEpoch = max(next.ivEpoch, cache.epoch)
        }
        sealed = true
        lastCommitPagesWritten = allocator.pagesAllocatedCount

        let durable = database.configuration.durability == .full
        let oneSync = database.oneSyncCommits && listsPages && !list.overflowed
        next.commitListCount = oneSync ? UInt32(list.count) : 0
        next.commitListChecksum = oneSync ? list.checksum : 0
        if durable && !oneSync { try database.file.sync() }
        let lock = database.lock
        let rejected = lock.rejectedRecord
        let slotPage = RootRecord.inactiveSlotPage(in: allocator.space.fileBase, cipher: database.cipher, excluding: rejected)
        let slotOffset = Int(slotPage) * FileFormat.pageSize
        let slot = allocator.space.fileBase + slotOffset
        if oneSync {
            list.bytes.withUnsafeBytes { CommitPageList.writeSlot(next, list: $0, to: slot, cipher: database.cipher) }
        } else {
            CommitPageList.writeSlot(next, list: UnsafeRawBufferPointer(start: nil, count: 0), to: slot, cipher: database.cipher)
        }
        // The slot written held the record found incomplete at open, if there was one.
        if rejected != nil { lock.setRejectedRecord(nil) }
        if durable {
            if oneSync {
                try database.file.sync()
            } else {
                try database.file.sync(offset: slotOffset, length: FileFormat.pageSize)
            }
            lock.setDurable(version: newVersion)
            // Proof for a later session's first open that this commit returned: a page of it
            // that fails its check is then damage, not an interrupted commit (Database+Roots.swift).
            lock.setReturnedRecord(RootRecord.identity(at: slot))
            if oneSync { database.noteOneSyncCommitReturned() }
        }
        root = next
        database.lock.setPublished(version: newVersion)
        database.lock.notifyCommit()
        // The leaves this commit encoded stay decoded for the next one (CommittedLeafCache.swift).
        var kept: [CommittedLeaf] = []
        for table in openTables.values { if let c = table.cluster { kept += c.leavesToKeep } }
        if kept.count > CommittedLeafCache.entriesMax { kept.removeFirst(kept.count - CommittedLeafCache.entriesMax) }
        database.committedLeaves.withLock { $0.replace(with: kept) }
        if trimmed > 0 {
            // Only pages no version can see were trimmed; a failure to shrink loses nothing.
            try? database.store.trim(to: next.pageCount)
        }
        return newVersion
    }

    /// Copies the logs that sync still needs from `source` (another file's version) and keeps
    /// them retained: used by writeCopy, so compaction never drops unsynced local changes.
    func copySyncHistory(from source: Transaction) throws {
        guard let allocator else { return }
        let from = source.root.syncHistoryRetainedFrom
        var history = root.historyRoot
        for v in try source.loggedVersions(after: from - 1) {
            guard let bytes = try source.log(of: v) else { continue }
            var k = ByteWriter(); k.u64BigEndian(v)
            try k.bytes.withUnsafeBytes { kb in try bytes.withUnsafeBytes { try BTree.put(root: &history, key: kb, value: $0, allocator: allocator) } }
        }
        root.historyRoot = history
        syncRetainedFrom = from
    }

    /// Pages written by the last commit (for statistics and benchmarks).
    public private(set) var lastCommitPagesWritten = 0

    private func trimHistory(root history: inout PageNumber, upTo point: UInt64, allocator: PageAllocator) throws {
        while history != 0 {
            var cursor = BTreeCursor(root: history, space: allocator.space)
            guard try cursor.first() else { break }
            let key = Array(try cursor.key())
            guard key.count == 8 else { throw AtollError.corrupted("history key of \(key.count) bytes") }
            let v = key.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
            guard v <= point else { break }
            _ = try key.withUnsafeBytes { try BTree.delete(root: &history, key: $0, allocator: allocator) }
        }
    }

    /// Discards every change.
    public func rollback() {
        guard !isClosed else { return }
        isClosed = true
        openTables.removeAll()
        allocator?.forgetFreshPages()
        database.releaseWriter()
    }
}
