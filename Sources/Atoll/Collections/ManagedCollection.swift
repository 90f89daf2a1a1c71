import AtollStorage

// What `MutableSet` and `Map` share once their object is managed: the column of one object they
// read and write, through the realm's current transaction. Reads that fail stop the program
// (README, "Failed reads"); writes outside a write transaction, or on a frozen collection, are
// programming errors; an invalid write (a bad map key, a nil where none is allowed) records the
// error and the enclosing write throws, as for List.

/// One set or map column of one managed object.
struct ManagedCollection {
    let realm: Realm
    let owner: ClassBinding
    let key: ObjectKey
    let column: Int

    /// The property's name, for messages.
    var propertyName: String {
        owner.columns.firstIndex(of: column).map { owner.schema.allProperties[$0].name } ?? "#\(column)"
    }

    /// Runs `body` on the owner's table and row in the realm's current state; nil when the
    /// object (or its class) is gone.
    func read<R>(_ body: (Table, RowHandle) throws -> R) -> R? {
        realm.verifyThread()
        do {
            guard let t = try realm.tableIfPresent(owner), let row = try t.locate(key) else { return nil }
            return try body(t, row)
        } catch {
            realm.readFailed(error, reading: "'\(owner.schema.className).\(propertyName)'")
        }
    }

    /// The stored elements (a map's values), in the collection's order; none once the object is deleted.
    func storedValues() -> [StorageValue] { read { t, row in try t.list(row, column).values } ?? [] }

    /// True when the collection's object was deleted.
    var isInvalidated: Bool {
        guard realm.confinement.isCurrent else { return false }
        return !realm.objectExists(owner, key)
    }

    /// Runs a change inside the realm's write transaction. `kind` names the collection type.
    func write(_ kind: String, _ what: String, _ body: (Table, inout ObjectWriter) throws -> Void) {
        realm.verifyThread()
        if realm.isFrozen { atollProgrammerError("cannot \(what) on a frozen \(kind) (thaw() it first)") }
        guard realm.isInWriteTransaction else { atollProgrammerError("\(what) on a managed \(kind) must happen inside a write transaction") }
        realm.performWrite(what) { w in
            var writer = ObjectWriter(realm: realm, transaction: w, update: .error)
            try body(try realm.table(owner), &writer)
            writer.finish()
        }
    }

    /// The same collection in a frozen realm of this version.
    func frozen(_ kind: String) -> ManagedCollection {
        if realm.isFrozen { return self }
        realm.verifyThread()
        let frozen = realm.freeze()
        return ManagedCollection(realm: frozen, owner: frozen.requireBinding(for: owner.schema.objectType), key: key, column: column)
    }

    /// The same collection in the calling thread's live realm of the same file (as
    /// `Object.thaw()`); nil when its object does not exist there.
    func thawed() -> ManagedCollection? {
        guard realm.isFrozen else { return self }
        let live = Realm.liveForThaw(of: realm)
        let b = live.requireBinding(for: owner.schema.objectType)
        guard live.objectExists(b, key) else { return nil }
        return ManagedCollection(realm: live, owner: b, key: key, column: column)
    }

    /// The same collection in another realm of the same file (delivery on a queue).
    func rebased(on other: Realm) throws -> ManagedCollection {
        ManagedCollection(realm: other, owner: try other.binding(for: owner.schema.objectType), key: key, column: column)
    }

    /// Live results over the collection's objects (a set's elements, a map's non-nil values).
    func results<T: Object>(_ type: T.Type) -> Results<T> {
        let b = realm.requireBinding(for: T.self)
        return Results(core: ResultsCore(realm: realm, binding: b, source: .list(owner: owner, key: key, column: column), query: nil))
    }
}

/// Element conversions shared by sets and maps (and matching List's).
enum CollectionElement {
    /// `e` as stored; an unmanaged object is added to the realm (as RealmSwift does).
    static func storageValue<E: RealmCollectionValue>(_ e: E, _ writer: inout ObjectWriter, in kind: String) throws -> StorageValue {
        if let o = e as? Object { return .link(try writer.add(o)) }
        if let v = e as? AnyRealmValue { return try writer.mixedValue(v) }
        if let v = e._atollStorageValue { return v }
        if let optional = e as? any OptionalProtocol, optional.isNone { return .null }
        if let o = flattenOptional(e) as? Object { return .link(try writer.add(o)) }
        throw AtollError(.typeMismatch, "cannot store \(e) in a \(kind)")
    }

    /// `e` as the collection would store it, without adding anything: nil for an object that
    /// is not managed by `realm` (it cannot be in the collection).
    static func lookupValue<E: RealmCollectionValue>(_ e: E, in realm: Realm) -> StorageValue? {
        if let o = flattenOptional(e) as? Object {
            guard let state = o._managed, realm.owns(state) else { return nil }
            return .link(state.key)
        }
        if let v = e as? AnyRealmValue, case .object(let o) = v {
            guard let state = o._managed, realm.owns(state), !state.isInvalidated else { return nil }
            return .typedLink(state.binding.tableKey, state.key)
        }
        return e._atollStorageValue
    }

    /// The Swift value of a stored element (links resolved in `realm`).
    static func element<E: RealmCollectionValue>(_ v: StorageValue, realm: Realm) -> E {
        E._atollElement(v, realm: realm)
    }
}
