import AtollStorage

// Counters: an integer property used as a counter is changed by *adding* to it, not by writing
// a new value. The transaction log records the addition (`addInteger`), and sync merges
// additions from different nodes by adding them all (docs/SYNC.md, "Counters add up"), where a
// plain `likes += 1` on two nodes would keep only one of the two writes.
//
// RealmSwift has no counter API (realm-kotlin has `MutableRealmInt`, realm-js `Counter`); this is
// the Atoll spelling, on any integer property:
//
//     try realm.write { post.increment(\.likes) }            // or post.increment("likes", by: 5)
//
// On an unmanaged object it adds to the value. The property must be an integer (any width);
// a nil optional integer cannot be incremented (set a value first), and a sum outside the
// property's width fails the write, as `set` would.

/// The objects whose integer properties can be incremented as counters: every `Object`.
public protocol CounterIncrementing: Object {}

extension Object: CounterIncrementing {}

extension CounterIncrementing {
    /// Adds `delta` to the integer property at `keyPath` as a counter (concurrent increments on
    /// synced nodes all count). Must be called in a write transaction for a managed object.
    public func increment<V: _AtollInteger>(_ keyPath: KeyPath<Self, V>, by delta: V = 1) {
        increment(KeyPathRecorder.name(keyPath), by: Int64(delta))
    }

    /// Subtracts `delta` from the integer property at `keyPath` as a counter.
    public func decrement<V: _AtollInteger>(_ keyPath: KeyPath<Self, V>, by delta: V = 1) {
        increment(KeyPathRecorder.name(keyPath), by: -Int64(delta))
    }
}

extension Object {
    /// Adds `delta` to the integer property `property` as a counter (concurrent increments on
    /// synced nodes all count). Must be called in a write transaction for a managed object.
    public func increment(_ property: String, by delta: Int = 1) {
        increment(property, by: Int64(delta))
    }

    /// Subtracts `delta` from the integer property `property` as a counter.
    public func decrement(_ property: String, by delta: Int = 1) {
        increment(property, by: -Int64(delta))
    }

    func increment(_ property: String, by delta: Int64) {
        let schema = objectSchema
        guard let i = schema.index(of: property), case .scalar(.int) = schema.allProperties[i].atollType.kind else {
            atollProgrammerError("'\(schema.className).\(property)' is not an integer property, so it cannot be incremented")
        }
        if let managed = _managed, managed.isStoredProperty(i) {
            managed.increment(i, by: delta)
            return
        }
        // Unmanaged (or ignored): plain arithmetic on the held value, through KVC.
        guard let current = value(forKey: property) else {
            atollProgrammerError("cannot increment '\(schema.className).\(property)': it is nil")
        }
        let sum: Int64? = switch current {
        case let v as Int: Int64(v).addingReportingOverflow(delta).overflow ? nil : Int64(v) + delta
        case let v as Int8: Int64(v) + delta
        case let v as Int16: Int64(v) + delta
        case let v as Int32: Int64(v) + delta
        case let v as Int64: v.addingReportingOverflow(delta).overflow ? nil : v + delta
        default: nil
        }
        guard let sum else { atollProgrammerError("incrementing '\(schema.className).\(property)' by \(delta) overflows") }
        setValue(sum, forKey: property)
    }
}

extension ManagedObjectState {
    /// Adds `delta` to property `index` in the open write transaction (`Table.addInteger`).
    func increment(_ index: Int, by delta: Int64) {
        realm.verifyThread()
        let property = schema.allProperties[index]
        guard !realm.isFrozen else { atollProgrammerError("cannot modify '\(schema.className).\(property.name)': the object is frozen") }
        guard realm.isInWriteTransaction else {
            atollProgrammerError("cannot modify '\(schema.className).\(property.name)' outside a write transaction; use realm.write { ... }")
        }
        realm.performWrite("incrementing a property") { _ in
            let column = binding.columns[index]
            guard column >= 0 else { return }
            try realm.table(binding).addInteger(key, column, delta)
        }
    }
}
