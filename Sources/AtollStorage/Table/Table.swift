package import struct Foundation.UUID

/// The position of one object's row while a transaction's state is unchanged: the leaf holding
/// it and its row index there. Cheap to copy; reading a value through it touches only the
/// column's block in the mapped page.
@usableFromInline package struct RowHandle {
    @usableFromInline package let leaf: LeafRef
    @usableFromInline package let row: Int
    @usableFromInline package let key: ObjectKey

    @inlinable
    package init(leaf: LeafRef, row: Int, key: ObjectKey) {
        self.leaf = leaf
        self.row = row
        self.key = key
    }
}

/// One table (object class) as seen by one transaction.
///
/// Read values by column index (`spec.columns`): locate the object once (`locate`), then read
/// as many columns as needed through the handle, in place from the map.
///
/// ```swift
/// let dogs = try txn.table(named: "Dog")!
/// if let row = try dogs.locate(key) { print(dogs.string(row, nameColumn) ?? "nil") }
/// ```
public final class Table {
    public let key: TableKey
    public private(set) var spec: TableSpec
    @usableFromInline @exclusivity(unchecked) private(set) var layout: LeafLayout
    unowned let transaction: Transaction
    // The write state below is used by the one thread of the transaction, one access at a time
    // (no access is held across a call that could reach it again), so the per-access dynamic
    // exclusivity checks are skipped: they were ~8% of an insert's instructions.
    @exclusivity(unchecked) var roots: TableRoots

    // Write state (write transactions only).
    var cluster: ClusterTreeWriter?
    var pendingIndex: [Int: PendingIndexChanges] = [:]
    /// Per indexed column, the objects whose value changed since the index was last brought up
    /// to date, with the encoded value the index holds for them (`.none`: no entry). Index
    /// entries are computed from these at commit (or before an index lookup), so an object
    /// created and then set costs one index change, not one per write.
    @exclusivity(unchecked) var indexTouched: [Int: [UInt64: IndexedValue]] = [:]

    enum IndexedValue: Equatable {
        case none
        case value([UInt8])
        /// An indexed set's or map's keys (CollectionIndex.swift): sorted, distinct.
        case values([[UInt8]])
    }
    var dirtyLists: [ListSlot: [StorageValue]] = [:]
    /// The keys of the maps in `dirtyLists` (same slot, one key per value, sorted).
    var dirtyMapKeys: [ListSlot: [String]] = [:]
    @exclusivity(unchecked) var isChanged = false

    struct ListSlot: Hashable {
        let key: UInt64
        let column: Int
    }

    /// What the write and read paths need of each column, without copying specs (and their
    /// strings) per value.
    @usableFromInline
    struct ColumnInfo: Sendable {
        @usableFromInline var type: ColumnType
        @usableFromInline var isNullable: Bool
        @usableFromInline var isList: Bool
        var needsIndex: Bool
        var intBits: UInt8
    }

    @usableFromInline @exclusivity(unchecked) private(set) var columnInfo: [ColumnInfo] = []
    /// The primary-key column, if any.
    private(set) var primaryKeyColumn: Int?
    private(set) var keyIsPrimaryKey = false

    /// Read-only snapshots: the cluster pages validated so far (see ValidatedPages); nil in
    /// write transactions, whose pages and layout can change.
    private let validatedPages: ValidatedPages?

    /// `columns`: `Columns(spec)`, when the caller has it made already (SchemaSnapshot keeps
    /// one per table, so opening a table in each transaction does not make it again).
    init(key: TableKey, spec: TableSpec, layout: LeafLayout, roots: TableRoots, transaction: Transaction, columns: Columns? = nil) {
        validatedPages = transaction.allocator == nil ? ValidatedPages(pageCount: transaction.snapshotSpace.pageCount) : nil
        self.key = key
        self.spec = spec
        self.layout = layout
        self.roots = roots
        self.transaction = transaction
        cacheColumnInfo(columns ?? Columns(spec))
    }

    func replaceSchema(_ spec: TableSpec) {
        self.spec = spec
        layout = LeafLayout(spec)
        cacheColumnInfo(Columns(spec))
    }

    /// What a table caches of its spec's columns.
    struct Columns: Sendable {
        let info: [ColumnInfo]
        let primaryKeyColumn: Int?
        let keyIsPrimaryKey: Bool

        init(_ spec: TableSpec) {
            primaryKeyColumn = spec.primaryKeyIndex
            keyIsPrimaryKey = spec.keyIsPrimaryKey
            let pkIndexColumn = keyIsPrimaryKey ? nil : primaryKeyColumn
            info = spec.columns.enumerated().map { c, col in
                ColumnInfo(type: col.type, isNullable: col.isNullable, isList: col.isList,
                           needsIndex: col.isIndexed || c == pkIndexColumn, intBits: col.intBits)
            }
        }
    }

    private func cacheColumnInfo(_ columns: Columns) {
        primaryKeyColumn = columns.primaryKeyColumn
        keyIsPrimaryKey = columns.keyIsPrimaryKey
        columnInfo = columns.info
    }

    public var name: String { spec.name }

    @inline(__always)
    var tree: ClusterTreeView {
        if let cluster { return cluster.view }
        var view = ClusterTreeView(root: roots.clusterRoot, layout: layout, space: transaction.space, dirty: nil)
        view.validated = validatedPages?.view
        return view
    }

    /// Number of objects. O(1).
    public var count: Int { Int(roots.objectCount) }

    package func locate(_ key: ObjectKey) throws -> RowHandle? {
        guard let (leaf, row) = try tree.locate(key.rawValue) else { return nil }
        return RowHandle(leaf: leaf, row: row, key: key)
    }

    public func contains(_ key: ObjectKey) throws -> Bool { try tree.locate(key.rawValue) != nil }

    /// The object at `position` in key order. O(log n).
    package func row(at position: Int) throws -> RowHandle? {
        guard let (leaf, row) = try tree.locate(position: position) else { return nil }
        return RowHandle(leaf: leaf, row: row, key: ObjectKey(leaf.key(row)))
    }

    public func objectKey(at position: Int) throws -> ObjectKey? { try row(at: position)?.key }

    /// Position of `key` in key order (whether or not it exists). O(log n).
    public func position(of key: ObjectKey) throws -> Int { try tree.position(of: key.rawValue) }

    /// Every object key, in order.
    public func objectKeys() throws -> [ObjectKey] {
        var keys: [ObjectKey] = []
        keys.reserveCapacity(count)
        try tree.forEachLeaf { leaf in
            let k = leaf.keys
            for r in 0..<leaf.count { keys.append(ObjectKey(UInt64(bitPattern: k[r]))) }
            return true
        }
        return keys
    }

    /// Calls `body` for every leaf in key order (query scans). Stop by returning false.
    package func forEachLeaf(_ body: (LeafRef) throws -> Bool) throws { try tree.forEachLeaf(body) }

    // MARK: columns

    public func columnIndex(named name: String) -> Int? { spec.columnIndex(named: name) }

    @inline(__always) package func block(_ column: Int) -> Int { layout.firstBlock[column] }

    @inline(__always) package func isKeyAlias(_ column: Int) -> Bool { layout.firstBlock[column] < 0 }

    // MARK: typed reads (row handles)
    //
    // Inlinable: a property accessor in another module reads the mapped page directly.

    @inlinable @inline(__always)
    package func isNull(_ h: RowHandle, _ c: Int) -> Bool {
        let b = layout.firstBlock[c]
        let info = columnInfo[c]
        guard b >= 0, info.isNullable, !info.isList else { return false }
        switch layout.blocks[b].kind {
        case .ints: return h.leaf.intColumn(b).isNull(h.row)
        case .float32: return h.leaf.float32Column(b).isNull(h.row)
        case .float64: return h.leaf.float64Column(b).isNull(h.row)
        case .fixed: return h.leaf.fixedColumn(b).isNull(h.row)
        case .bytes: return h.leaf.bytesColumn(b).isNull(h.row)
        }
    }

    /// int, bool (0/1) and link (raw key) columns.
    @inlinable @inline(__always)
    package func int(_ h: RowHandle, _ c: Int) -> Int64 {
        let b = layout.firstBlock[c]
        if b < 0 { return h.key.intPrimaryKey }
        return h.leaf.intColumn(b)[h.row]
    }

    @inlinable @inline(__always) package func bool(_ h: RowHandle, _ c: Int) -> Bool { int(h, c) != 0 }

    @inlinable @inline(__always) package func float(_ h: RowHandle, _ c: Int) -> Float { h.leaf.float32Column(layout.firstBlock[c])[h.row] }

    @inlinable @inline(__always) package func double(_ h: RowHandle, _ c: Int) -> Double { h.leaf.float64Column(layout.firstBlock[c])[h.row] }

    @inlinable @inline(__always)
    package func timestamp(_ h: RowHandle, _ c: Int) -> Timestamp {
        let b = layout.firstBlock[c]
        return Timestamp(seconds: h.leaf.intColumn(b)[h.row], nanoseconds: Int32(truncatingIfNeeded: h.leaf.intColumn(b + 1)[h.row]))
    }

    @inlinable
    package func fixedBytes(_ h: RowHandle, _ c: Int) -> UnsafeRawBufferPointer { h.leaf.fixedColumn(layout.firstBlock[c]).bytes(h.row) }

    package func uuid(_ h: RowHandle, _ c: Int) -> UUID {
        let b = fixedBytes(h, c)
        guard b.count == 16 else { return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    package func objectId(_ h: RowHandle, _ c: Int) -> ObjectId { ObjectId(twelveBytes: Array(fixedBytes(h, c))) }

    package func decimal128(_ h: RowHandle, _ c: Int) -> Decimal128 { Decimal128(littleEndianBytes: fixedBytes(h, c)) }

    /// The bytes of a string or binary value, in place (nil for null). Valid while the snapshot is.
    @inlinable @inline(__always)
    package func bytes(_ h: RowHandle, _ c: Int) throws -> UnsafeRawBufferPointer? {
        let col = h.leaf.bytesColumn(layout.firstBlock[c])
        if col.isNull(h.row) { return nil }
        return try bytes(of: col, row: h.row)
    }

    /// The bytes of row `row` of a bytes column view of this table (resolving blobs).
    @inlinable @inline(__always)
    package func bytes(of column: BytesColumn, row: Int) throws -> UnsafeRawBufferPointer {
        if !column.external.isMarked(row) { return column.stored(row) }
        return try externalBytes(of: column, row: row)
    }

    @usableFromInline
    func externalBytes(of column: BytesColumn, row: Int) throws -> UnsafeRawBufferPointer {
        try column.value(row, space: transaction.space)
    }

    @inlinable
    package func string(_ h: RowHandle, _ c: Int) throws -> String? {
        guard let b = try bytes(h, c) else { return nil }
        return String(decoding: b, as: UTF8.self)
    }

    /// The target of a link, or nil.
    @inlinable @inline(__always)
    package func link(_ h: RowHandle, _ c: Int) -> ObjectKey? {
        let col = h.leaf.intColumn(layout.firstBlock[c])
        return col.isNull(h.row) ? nil : ObjectKey(UInt64(bitPattern: col[h.row]))
    }

    /// A list's elements as stored (or as changed in this transaction).
    package func list(_ h: RowHandle, _ c: Int) throws -> ListAccess {
        if let values = dirtyLists[ListSlot(key: h.key.rawValue, column: c)] { return .values(values) }
        let col = h.leaf.bytesColumn(layout.firstBlock[c])
        return .encoded(try ListView(try col.value(h.row, space: transaction.space), column: spec.columns[c]))
    }

    /// Any column's value as a StorageValue (lists: use `list`).
    package func value(_ h: RowHandle, _ c: Int) throws -> StorageValue {
        let col = columnInfo[c]
        if col.isList { return .null }
        if isNull(h, c) { return .null }
        switch col.type {
        case .bool: return .bool(bool(h, c))
        case .int: return .int(int(h, c))
        case .float: return .float(float(h, c))
        case .double: return .double(double(h, c))
        case .string: return .string(try string(h, c) ?? "")
        case .binary: return .binary(Array(try bytes(h, c) ?? UnsafeRawBufferPointer(start: nil, count: 0)))
        case .timestamp: return .timestamp(timestamp(h, c))
        case .uuid: return .uuid(uuid(h, c))
        case .objectId: return .objectId(objectId(h, c))
        case .link: return link(h, c).map { .link($0) } ?? .null
        case .decimal128: return .decimal128(decimal128(h, c))
        case .mixed: return try StorageValue.mixed(from: try bytes(h, c) ?? UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }

    // MARK: by key (convenience for tools and tests)

    private func handle(_ key: ObjectKey) throws -> RowHandle {
        guard let h = try locate(key) else { throw AtollError(.objectNotFound, "no object with key \(key.rawValue) in '\(name)'") }
        return h
    }

    public func value(_ key: ObjectKey, _ column: Int) throws -> StorageValue { try value(try handle(key), column) }

    public func listValues(_ key: ObjectKey, _ column: Int) throws -> [StorageValue] { try list(try handle(key), column).values }

    /// The primary-key value of an object (null when the table has none).
    public func primaryKeyValue(_ key: ObjectKey) throws -> StorageValue {
        guard let pk = primaryKeyColumn else { return .null }
        if keyIsPrimaryKey { return .int(key.intPrimaryKey) }
        return try value(key, pk)
    }

    package func primaryKeyValue(_ h: RowHandle) throws -> StorageValue {
        guard let pk = primaryKeyColumn else { return .null }
        return try value(h, pk)
    }

    // MARK: indexes

    public func hasIndex(_ column: Int) -> Bool { column < roots.indexRoots.count && columnInfo[column].needsIndex }

    /// The column whose index serves primary-key lookups (none for int keys, which are the object key).
    var primaryKeyIndexColumn: Int? { keyIsPrimaryKey ? nil : primaryKeyColumn }

    @inline(__always) func needsIndex(_ column: Int) -> Bool { columnInfo[column].needsIndex }

    /// Objects whose `column` equals `value`, using the column's index. Ascending keys.
    public func findAll(indexed column: Int, equalTo value: StorageValue) throws -> [ObjectKey] {
        if isKeyAlias(column) {
            guard case .int(let v) = value else { return [] }
            let k = ObjectKey(primaryKey: v)
            return try contains(k) ? [k] : []
        }
        guard needsIndex(column), !columnInfo[column].isList else { throw AtollError(.invalidArgument, "'\(name).\(spec.columns[column].name)' has no index") }
        try flushIndexes()
        let (encoded, isPrefix) = IndexKey.encode(value, mixed: columnInfo[column].type == .mixed)
        let root = column < roots.indexRoots.count ? roots.indexRoots[column] : 0
        let keys = try PostingsIndex.lookup(root: root, value: encoded, space: transaction.space)
        var result = keys.map(ObjectKey.init)
        if isPrefix {
            result = try result.filter { try self.value($0, column) == value }
        }
        return result
    }

    /// The row of the object whose primary key is `value`, if any (one descent for int keys).
    package func locate(primaryKey value: StorageValue) throws -> RowHandle? {
        if keyIsPrimaryKey {
            guard case .int(let v) = value else { return nil }
            return try locate(ObjectKey(primaryKey: v))
        }
        guard let key = try find(primaryKey: value) else { return nil }
        return try locate(key)
    }

    /// The object whose primary key is `value`, if any.
    public func find(primaryKey value: StorageValue) throws -> ObjectKey? {
        guard let pk = primaryKeyColumn else { throw AtollError(.invalidArgument, "'\(name)' has no primary key") }
        if keyIsPrimaryKey {
            guard case .int(let v) = value else { return nil }
            let k = ObjectKey(primaryKey: v)
            return try contains(k) ? k : nil
        }
        return try findAll(indexed: pk, equalTo: value).first
    }

    /// The name of the table `key` of this table's transaction (the class a typed link in a
    /// mixed value points into), or nil when there is no such table.
    package func tableName(_ key: TableKey) -> String? { transaction.schema.specs[key]?.name }

    // MARK: backlinks

    /// Objects of `origin` whose column `originColumn` links to `key` (with multiplicity for lists).
    public func backlinks(to key: ObjectKey, from origin: TableKey, column originColumn: Int) throws -> [ObjectKey] {
        try Backlinks.origins(root: roots.backlinkRoot, target: key, originTable: origin, originColumn: originColumn, space: transaction.space)
    }

    /// Number of links to `key` from every table and column.
    public func backlinkCount(to key: ObjectKey) throws -> Int {
        try Backlinks.all(root: roots.backlinkRoot, target: key, space: transaction.space).reduce(0) { $0 + $1.count }
    }
}

/// A list's contents: encoded in the snapshot, or decoded because this transaction changed it.
package enum ListAccess {
    case encoded(ListView)
    case values([StorageValue])

    package var count: Int {
        switch self {
        case .encoded(let v): v.count
        case .values(let v): v.count
        }
    }

    package func value(at i: Int) -> StorageValue {
        switch self {
        case .encoded(let v): v.value(at: i)
        case .values(let v): i >= 0 && i < v.count ? v[i] : .null
        }
    }

    package var values: [StorageValue] {
        switch self {
        case .encoded(let v): v.values
        case .values(let v): v
        }
    }

    /// Calls `body` with each element in order.
    package func forEach(_ body: (StorageValue) -> Void) {
        switch self {
        case .encoded(let v): v.forEach(body)
        case .values(let v): for x in v { body(x) }
        }
    }
}
