import Foundation

// Transaction: a consistent view of one version. ReadTransaction pins a version in the lock
// file's reader table until closed; WriteTransaction (WriteTransaction.swift) holds the writer
// lock and builds the next version.
//
// Transactions are not thread-safe: use each from one thread at a time. A read transaction's
// pages are immutable, so the values it returns stay valid until it is closed.

public class Transaction {
    public let database: Database
    /// The version this transaction reads (for a write transaction: the version it started from).
    public let version: UInt64
    var root: RootRecord
    var schema: SchemaSnapshot
    let snapshotSpace: PageSpace
    var openTables: [TableKey: Table] = [:]
    /// Roots of the internal trees used so far (InternalTrees.swift); a write transaction's
    /// changed roots until commit.
    var internalRoots: [String: PageNumber] = [:]
    /// Set for write transactions.
    final let allocator: PageAllocator?
    public internal(set) var isClosed = false
    /// Set for snapshots shared between threads (frozen realms): guards the table cache.
    public var isShared = false
    private let sharedLock = NSLock()

    init(database: Database, root: RootRecord, space: PageSpace, allocator: PageAllocator?) throws {
        self.database = database
        version = root.version
        self.root = root
        snapshotSpace = space
        self.allocator = allocator
        schema = try database.schema(for: root, space: space)
    }

    /// The pages of this transaction: the snapshot's, or the write transaction's growing set.
    @inline(__always)
    final var space: PageSpace { allocator?.space ?? snapshotSpace }

    func checkOpen() throws {
        guard !isClosed else { throw AtollError(.invalidTransaction, "the transaction is already closed") }
    }

    // MARK: tables

    /// Keys of all tables, in creation order.
    public var tableKeys: [TableKey] { schema.specs.keys.sorted() }

    public func tableKey(named name: String) -> TableKey? { schema.keysByName[name] }

    public func spec(of key: TableKey) -> TableSpec? { schema.specs[key] }

    /// Every table's schema, by name.
    public var tableSpecs: [TableSpec] { tableKeys.compactMap { schema.specs[$0] } }

    public func table(named name: String) throws -> Table? {
        guard let key = schema.keysByName[name] else { return nil }
        return try table(key)
    }

    public func table(_ key: TableKey) throws -> Table {
        if isShared {
            sharedLock.lock()
            defer { sharedLock.unlock() }
            return try openTable(key)
        }
        return try openTable(key)
    }

    private func openTable(_ key: TableKey) throws -> Table {
        if let t = openTables[key] { return t }
        try checkOpen()
        guard let spec = schema.specs[key], let layout = schema.layouts[key] else {
            throw AtollError(.invalidArgument, "no table with key \(key.rawValue)")
        }
        var roots = TableRoots()
        let rootsKey = CatalogKey.roots(key)
        if let bytes = try rootsKey.withUnsafeBytes({ try BTree.get(root: root.catalogRoot, key: $0, space: space) }) {
            roots = try TableRoots.decode(bytes, pageCount: space.pageCount)
        }
        if roots.indexRoots.count < spec.columns.count {
            roots.indexRoots += Array(repeating: 0, count: spec.columns.count - roots.indexRoots.count)
        }
        let t = Table(key: key, spec: spec, layout: layout, roots: roots, transaction: self, columns: schema.columns[key])
        // The recorded count answers `count` in O(1); it must agree with the tree it counts (the
        // root page holds the tree's total), or a damaged record would be answered as data.
        let rows = try t.tree.rowCount()
        guard UInt64(rows) == roots.objectCount else {
            throw AtollError.corrupted("table '\(spec.name)' records \(roots.objectCount) objects but its tree holds \(rows)")
        }
        if let allocator {
            t.cluster = ClusterTreeWriter(root: roots.clusterRoot, layout: layout, allocator: allocator,
                                          committedLeaves: database.committedLeaves, table: key)
        }
        openTables[key] = t
        return t
    }

    // MARK: metadata

    /// A named metadata value stored in the catalog (nil when absent).
    public func metadata(_ name: String) throws -> [UInt8]? {
        try CatalogKey.metadata(name).withUnsafeBytes { k in
            try BTree.get(root: root.catalogRoot, key: k, space: space).map { Array($0) }
        }
    }

    // MARK: history

    /// The stored transaction log of `version`, or nil if the history does not hold it.
    public func log(of version: UInt64) throws -> [UInt8]? {
        var k = ByteWriter(); k.u64BigEndian(version)
        return try k.bytes.withUnsafeBytes { kb in
            try BTree.get(root: root.historyRoot, key: kb, space: space).map { Array($0) }
        }
    }

    /// Versions whose logs are stored, ascending, from `after` (exclusive).
    public func loggedVersions(after: UInt64 = 0) throws -> [UInt64] {
        var k = ByteWriter(); k.u64BigEndian(after)
        var cursor = BTreeCursor(root: root.historyRoot, space: space)
        var more = try k.bytes.withUnsafeBytes { try cursor.seek(after: $0) }
        var result: [UInt64] = []
        while more {
            let key = try cursor.key()
            guard key.count == 8 else { throw AtollError.corrupted("history key of \(key.count) bytes") }
            result.append(UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)))
            more = try cursor.next()
        }
        return result
    }

    /// Values derived from this transaction's schema, cached with it (see SchemaSnapshot).
    package var schemaDerivedValues: DerivedValues { schema.derived }

    /// The root record of this version (for statistics).
    public var rootRecord: RootRecord { root }
}

/// A snapshot of one version. Close it (or let it deinitialize) to release the version.
public final class ReadTransaction: Transaction {
    /// One use of the version's reader slot, shared by every transaction of this process on the
    /// version (ReaderPins.swift), given back once: by `close()` or, without it, `deinit`.
    private let lease: ReaderLease

    /// A transaction on `lease`'s version, taking over one use of it (given back if this throws).
    init(database: Database, lease: ReaderLease) throws {
        self.lease = lease
        do {
            try super.init(database: database, root: lease.root, space: lease.space, allocator: nil)
        } catch {
            database.readerPins.release(lease)
            throw error
        }
    }

    /// Releases the pinned version. Values read from the transaction must not be used afterwards.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        openTables.removeAll()
        database.readerPins.release(lease)
    }

    deinit { if !isClosed { database.readerPins.release(lease) } }
}

extension Database {
    /// A second read transaction on the version `existing` reads (which keeps it pinned until
    /// the new one has pinned it too). Used to freeze a snapshot. It shares the slot of
    /// `existing` (one per version per process, ReaderPins.swift), so while `existing` is open
    /// this needs no free reader slot and cannot fail for lack of one.
    public func beginRead(sameVersionAs existing: Transaction) throws -> ReadTransaction {
        guard let source = existing as? ReadTransaction else { return try beginRead() }
        if let lease = readerPins.share(source.version) { return try ReadTransaction(database: self, lease: lease) }
        // `existing` is closed (its lease went): pin its version again. Safe only while another
        // holder keeps it pinned, which a closed transaction does not promise.
        try source.checkOpen()
        let slot = try lock.claimSlot(heldByThisProcess: readerPins.slotsHeld)
        lock.pin(slot: slot, version: source.version)
        return try ReadTransaction(database: self, lease: readerPins.add(slot: slot, root: source.root, space: source.snapshotSpace))
    }
}
