import AtollStorage

/// What a managed object knows about its row: the realm, the class binding, its key, and the
/// row position cached for the realm's current state.
///
/// Reads of live (not frozen) objects go through the cached table and row while the realm
/// reads the same state (`stamp`, and in a write transaction its mutation count): reading a
/// property then costs a thread check, two comparisons and the read from the leaf, with no
/// lookup and no reference counting.
@usableFromInline
final class ManagedObjectState {
    let realm: Realm
    @usableFromInline let binding: ClassBinding
    /// Changes only while the state is owned by a results iterator alone (`repoint`).
    @exclusivity(unchecked) private(set) var key: ObjectKey
    // The row cached for the realm state (`rowStamp`, `rowMutation`): in a page of the
    // snapshot (`page`, `pageRow`: plain values, read with no reference counting), or in a leaf
    // the open write transaction changed (`changedRow`). `unretainedTable` is `table`, which
    // keeps it alive.
    @exclusivity(unchecked) private var table: Table?
    @exclusivity(unchecked) private var unretainedTable: Unmanaged<Table>?
    @exclusivity(unchecked) private var rowStamp: UInt64 = 0
    @exclusivity(unchecked) private var rowMutation: UInt64 = 0
    @exclusivity(unchecked) private var page: ClusterLeafPage?
    @exclusivity(unchecked) private var pageRow = -1
    @exclusivity(unchecked) private var changedRow: RowHandle?
    // The key alone known to exist in realm state (`keyStamp`, `keyMutation`): set for the
    // objects of query results, which only need a lookup when a column is read.
    @exclusivity(unchecked) private var keyStamp: UInt64 = 0
    @exclusivity(unchecked) private var keyMutation: UInt64 = .max

    init(realm: Realm, binding: ClassBinding, key: ObjectKey) {
        self.realm = realm
        self.binding = binding
        self.key = key
    }

    var schema: ObjectSchema { binding.schema }

    /// Starts with a known row position (the caller just found it), saving the first lookup.
    func seed(table: Table, row: RowHandle) {
        guard !realm.isFrozen else { return }
        remember(table, row)
    }

    /// `seed` with row `row` of a snapshot page.
    func seed(table: Table, page: ClusterLeafPage, row: Int) {
        guard !realm.isFrozen else { return }
        use(table)
        rowStamp = realm.stamp
        rowMutation = realm.mutationCount
        self.page = page
        pageRow = row
    }

    private func remember(_ table: Table, _ row: RowHandle) {
        use(table)
        rowStamp = realm.stamp
        rowMutation = realm.mutationCount
        if let p = row.leaf.page {
            page = p
            pageRow = row.row
            changedRow = nil
        } else {
            pageRow = -1
            changedRow = row
        }
    }

    @inline(__always)
    private func use(_ table: Table) {
        if self.table !== table {
            self.table = table
            unretainedTable = Unmanaged.passUnretained(table)
        }
    }

    /// Makes this state describe another object of the same class (the results iterator reuses
    /// an object nobody else holds instead of allocating a new one per row).
    func repoint(key: ObjectKey, table: Table, row: RowHandle) {
        self.key = key
        if realm.isFrozen {
            forgetRow()
        } else {
            remember(table, row)
        }
    }

    /// `repoint` to row `row` of a snapshot page, current in realm state (`stamp`, `mutation`).
    /// The caller keeps `table` alive.
    @inline(__always)
    func repoint(key: ObjectKey, table: Unmanaged<Table>, page: ClusterLeafPage, row: Int, stamp: UInt64, mutation: UInt64) {
        self.key = key
        if unretainedTable?.toOpaque() != table.toOpaque() { use(table.takeUnretainedValue()) }
        self.page = page
        pageRow = row
        rowStamp = stamp
        rowMutation = mutation
    }

    /// Like `repoint(key:table:row:)` when nothing is known of the row yet.
    func repoint(key: ObjectKey) {
        self.key = key
        forgetRow()
    }

    /// Like `repoint(key:table:row:)` when the row is not known yet; the object exists in
    /// realm state (`stamp`, `mutation`).
    func repoint(key: ObjectKey, existingAt stamp: UInt64, mutation: UInt64) {
        self.key = key
        forgetRow()
        keyStamp = stamp
        keyMutation = mutation
    }

    /// The value of property `index` when it is the int primary key the object key is made of
    /// and the object is known to exist in the realm's current state; nil otherwise.
    @inline(__always)
    func primaryKeyFromKey(_ index: Int) -> Int64? {
        guard index == binding.keyAliasProperty, keyStamp == realm.stamp, keyMutation == realm.mutationCount, !realm.isFrozen else { return nil }
        realm.verifyThread()
        return key.intPrimaryKey
    }

    private func forgetRow() {
        pageRow = -1
        changedRow = nil
        keyMutation = .max
    }

    /// Whether property `index` is read from the database (ignored properties keep their
    /// values in the object).
    @inlinable
    func isStoredProperty(_ index: Int) -> Bool { binding.readsFromStorage[index] }

    /// The row in the realm's current version, or nil when the object no longer exists (or its
    /// class has no table there). Stops the program when the file cannot be read (README,
    /// "Failed reads"): a damaged page never reads as a deleted object.
    func locate() -> (Table, RowHandle)? {
        do {
            if realm.isFrozen {
                // Frozen objects may be read from several threads: no shared cache.
                guard let table = try realm.tableIfPresent(binding), let found = try table.locate(key) else { return nil }
                return (table, found)
            }
            if let table, rowStamp == realm.stamp, rowMutation == realm.mutationCount {
                if pageRow >= 0, let page { return (table, RowHandle(leaf: .page(page), row: pageRow, key: key)) }
                if let changedRow { return (table, changedRow) }
            }
            guard let table = try realm.tableIfPresent(binding), let found = try table.locate(key) else { forgetRow(); return nil }
            remember(table, found)
            return (table, found)
        } catch {
            realm.readFailed(error, reading: "the '\(schema.className)' object with key \(key.rawValue)")
        }
    }

    var isInvalidated: Bool {
        guard realm.confinement.isCurrent else { return false }
        return locate() == nil
    }

    @inline(never)
    private func requireRow(_ index: Int) -> (Table, RowHandle) {
        guard let found = locate() else {
            atollProgrammerError("the '\(schema.className)' object has been deleted or invalidated; cannot read '\(schema.allProperties[index].name)' (check isInvalidated first)")
        }
        return found
    }

    /// Calls `read` with the object's table, row and the column of property `index`, in the
    /// realm's current state. Stops the program on the wrong thread or for a deleted object.
    @inline(__always)
    func withRow<R>(_ index: Int, _ read: (Table, RowHandle, Int) -> R) -> R {
        realm.verifyThread()
        let column = binding.columns[index]
        if pageRow >= 0, rowStamp == realm.stamp, rowMutation == realm.mutationCount, let page, let unretainedTable {
            return unretainedTable._withUnsafeGuaranteedRef { read($0, RowHandle(leaf: .page(page), row: pageRow, key: key), column) }
        }
        let (table, row) = requireRow(index)
        return read(table, row, column)
    }

    func set<V: PersistableValue>(_ index: Int, _ value: V, object: Object) {
        // Scalars go to the table as they are, without a trip through `Any` and dynamic casts.
        guard let stored = value._atollStorageValue else { return setAny(index, value, object: object) }
        realm.verifyThread()
        let property = schema.allProperties[index]
        guard case .scalar = property.atollType.kind else { return setAny(index, value, object: object) }
        checkWritable(property)
        realm.performWrite("setting a property") { _ in
            let column = binding.columns[index]
            guard column >= 0 else { return }
            if stored.isNull && !property.atollType.isOptional {
                throw AtollError(.requiredValueMissing, "property '\(property.name)' is required; nil is not allowed")
            }
            // The row this object last found, when still current, saves the table a lookup.
            let found = pageRow >= 0 && rowStamp == realm.stamp && rowMutation == realm.mutationCount
            try realm.table(binding).set(key, column, stored, foundAt: found ? page.map { RowHandle(leaf: .page($0), row: pageRow, key: key) } : nil)
        }
    }

    private func checkWritable(_ property: PropertyInfo) {
        guard !realm.isFrozen else { atollProgrammerError("cannot modify '\(schema.className).\(property.name)': the object is frozen") }
        guard realm.isInWriteTransaction else {
            atollProgrammerError("cannot modify '\(schema.className).\(property.name)' outside a write transaction; use realm.write { ... }")
        }
    }

    /// The value of property `index` as a Swift value (KVC).
    func anyValue(_ index: Int, object: Object) -> Any? {
        realm.verifyThread()
        let property = schema.allProperties[index]
        _ = requireRow(index)
        let value = property.valueType._atollGet(_ManagedAccess(object: object, propertyIndex: index))
        if let optional = value as? any OptionalProtocol, optional.isNone { return nil }
        if let custom = value as? any _CustomPersistable { return custom._atollRawValue }
        return value
    }

    func setAny(_ index: Int, _ value: Any?, object: Object) {
        realm.verifyThread()
        let property = schema.allProperties[index]
        checkWritable(property)
        realm.performWrite("setting a property") { w in
            var writer = ObjectWriter(realm: realm, transaction: w, update: .all)
            try writer.setProperty(property, index: index, of: key, binding: binding, to: value)
            // Unmanaged objects linked by the new value are managed now, as in RealmSwift.
            writer.finish()
        }
    }
}

/// Lets code holding `Any` ask whether it is an empty Optional.
protocol OptionalProtocol {
    var isNone: Bool { get }
}

extension Optional: OptionalProtocol {
    var isNone: Bool { self == nil }
}
