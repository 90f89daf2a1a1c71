import AtollStorage

// Equality of objects, as in RealmSwift (RLMObjectBase's isEqual: and hash):
// - an object is equal to itself;
// - objects of a class with a primary key, and frozen objects, are equal when they are the same
//   stored object of the same realm: the same database, both live or both frozen at the same
//   version (RealmSwift compares its per-thread cached realm instances; Atoll opens a new
//   instance per `Realm(...)`, so it compares what those instances stand for);
// - other objects (unmanaged ones, live ones without a primary key) only equal themselves,
//   because nothing immutable identifies them. Use `isSameObject(as:)` to compare live objects
//   without a primary key.
//
// The hash of an object with a primary key is that of its primary-key value, of a frozen one
// its object key, of any other its identity.

extension Object: Hashable {
    /// Whether `object` equals this one (see `==`): `isSameObject(as:)` for objects with a
    /// primary key or frozen ones, identity otherwise.
    public func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Object else { return false }
        if self === other { return true }
        guard objectSchema.primaryKeyProperty != nil || isFrozen else { return false }
        return isSameStoredObject(other)
    }

    /// Same database, same table, same key, and both live or both frozen at one version; false
    /// when either is unmanaged or deleted.
    func isSameStoredObject(_ other: Object) -> Bool {
        guard let a = _managed, let b = other._managed, a.realm.database === b.realm.database,
              a.binding.tableKey == b.binding.tableKey, a.key == b.key, a.realm.isFrozen == b.realm.isFrozen else { return false }
        if a.realm.isFrozen, a.realm.version != b.realm.version { return false }
        return !isInvalidated && !other.isInvalidated
    }

    /// The hash matching `isEqual(_:)`. O(1): a read of the primary key for objects with one.
    public var hash: Int {
        var hasher = Hasher()
        hash(into: &hasher)
        return hasher.finalize()
    }

    /// `isEqual(_:)`: the same stored object for classes with a primary key and frozen objects,
    /// the same instance otherwise.
    public static func == (lhs: Object, rhs: Object) -> Bool { lhs.isEqual(rhs) }

    public func hash(into hasher: inout Hasher) {
        if let pk = objectSchema.primaryKeyProperty, !isInvalidated {
            // Equal objects have equal primary keys; an unmanaged object only equals itself.
            hasher.combine(1 as UInt8)
            hasher.combine(pk.hashableValue(of: self))
        } else if let m = _managed, m.realm.isFrozen {
            hasher.combine(2 as UInt8)
            hasher.combine(m.key.rawValue)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }
}

extension PropertyInfo {
    /// The value of this (scalar) property of `object`, hashable.
    func hashableValue(of object: Object) -> AnyHashable? {
        guard let value = flattenOptional(object.value(forKey: name)) else { return nil }
        return value as? AnyHashable
    }
}
