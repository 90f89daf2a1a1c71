import AtollStorage

/// What a managed object knows about its row: the realm, the class binding, its key, and the
/// row position cached for the realm's current state.
final class ManagedObjectState {
    let realm: Realm
    let binding: ClassBinding
    let key: ObjectKey
    @exclusivity(unchecked) private var row: RowHandle?
    @exclusivity(unchecked) private var table: Table?
    @exclusivity(unchecked) private var rowStamp: UInt64 = 0
    @exclusivity(unchecked) private var rowMutation: UInt64 = 0

    init(realm: Realm, binding: ClassBinding, key: ObjectKey) {
        self.realm = realm
        self.binding = binding
        self.key = key
    }

    var schema: ObjectSchema { binding.schema }

    /// Starts with a known row position (the caller just found it), saving the first lookup.
    func seed(table: Table, row: RowHandle) {
        guard !realm.isFrozen else { return }
        self.table = table
        self.row = row
        rowStamp = realm.stamp
        rowMutation = realm.writeTransaction?.mutationCount ?? 0
    }

    /// The row in the realm's current version, or nil when the object no longer exists.
    @inline(__always)
    func locate() -> (Table, RowHandle)? {
        if realm.isFrozen {
            // Frozen objects may be read from several threads: no shared cache.
            guard let table = try? realm.table(binding) else { return nil }
            return (try? table.locate(key)).flatMap { $0.map { (table, $0) } }
        }
        let mutation = realm.writeTransaction?.mutationCount ?? 0
        if let row, let table, rowStamp == realm.stamp, rowMutation == mutation { return (table, row) }
        guard let table = try? realm.table(binding), let found = try? table.locate(key) else { row = nil; return nil }
        self.table = table
        row = found
        rowStamp = realm.stamp
        rowMutation = mutation
        return (table, found)
    }

    var isInvalidated: Bool {
        guard realm.confinement.isCurrent else { return false }
        return locate() == nil
    }

    @inline(__always)
    private func requireRow(_ index: Int) -> (Table, RowHandle) {
        guard let found = locate() else {
            atollProgrammerError("the '\(schema.className)' object has been deleted or invalidated; cannot read '\(schema.properties[index].name)' (check isInvalidated first)")
        }
        return found
    }

    func get<V: PersistableValue>(_ index: Int, as type: V.Type, object: Object) -> V {
        realm.verifyThread()
        let (table, row) = requireRow(index)
        return V._atollGet(_ManagedAccess(realm: realm, table: table, row: row, column: binding.columns[index], state: self, propertyIndex: index))
    }

    func set<V: PersistableValue>(_ index: Int, _ value: V, object: Object) {
        setAny(index, value, object: object)
    }

    /// The value of property `index` as a Swift value (KVC).
    func anyValue(_ index: Int, object: Object) -> Any? {
        realm.verifyThread()
        let property = schema.properties[index]
        let (table, row) = requireRow(index)
        let access = _ManagedAccess(realm: realm, table: table, row: row, column: binding.columns[index], state: self, propertyIndex: index)
        let value = property.valueType._atollGet(access)
        if let optional = value as? any OptionalProtocol, optional.isNone { return nil }
        return value
    }

    func setAny(_ index: Int, _ value: Any?, object: Object) {
        realm.verifyThread()
        let property = schema.properties[index]
        guard !realm.isFrozen else { atollProgrammerError("cannot modify '\(schema.className).\(property.name)': the object is frozen") }
        guard realm.isInWriteTransaction else {
            atollProgrammerError("cannot modify '\(schema.className).\(property.name)' outside a write transaction; use realm.write { ... }")
        }
        realm.performWrite("setting a property") { w in
            var writer = ObjectWriter(realm: realm, transaction: w, update: .all)
            try writer.setProperty(property, index: index, of: key, binding: binding, to: value)
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
