import AtollStorage
public import Dispatch

// Notifications of sets and maps. A set reports positions in its current order (Realm's set
// order), like a list. A map reports keys (RealmSwift's `RealmMapChange`): a key removed, a key
// added, or a key whose value was replaced or whose object changed.

/// A collection whose elements are addressed by key (RealmSwift's `RealmKeyedCollection`).
public protocol RealmKeyedCollection {
    associatedtype Key: _MapKey
    associatedtype Value: RealmCollectionValue
}

extension Map: RealmKeyedCollection {}

/// A change of a `Map` (RealmSwift's `RealmMapChange`).
public enum RealmMapChange<Collection: RealmKeyedCollection> {
    /// The map as it was when observation began.
    case initial(Collection)
    /// The keys removed, added, and whose value changed, in one commit.
    case update(Collection, deletions: [Collection.Key], insertions: [Collection.Key], modifications: [Collection.Key])
    /// Observation failed (the realm could not be read); no further notifications follow.
    case error(any Error)
}

extension MutableSet {
    /// Calls `block` with `.initial`, then `.update` after every commit that changes the set:
    /// positions in the set's order of removed (old order), inserted and modified (new order)
    /// elements; for a set of objects, modified also means one of its objects changed (limited
    /// to `keyPaths` when given). Deleting the set's object reports every element as deleted.
    /// `queue`: deliver on this queue; nil: on this realm's thread when it refreshes.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<MutableSet<Element>>) -> Void) -> NotificationToken
    {
        guard let m = managed else { atollProgrammerError("only managed sets can be observed; add the object to a realm first") }
        m.realm.verifyThread()
        if let objectType = Element.self as? Object.Type { ObjectSchema.of(objectType).requireObservable(keyPaths) }
        if let queue {
            return m.realm.observeOnQueue(queue, source: m, { realm, m in try m.rebased(on: realm) }, onError: { block(.error($0)) }) { m, flag in
                MutableSet(managed: m).observe(keyPaths: keyPaths, flag: flag, block)
            }
        }
        return observe(keyPaths: keyPaths, flag: ObservationFlag(), block)
    }

    func observe(keyPaths: [String]?, flag: ObservationFlag, _ block: @escaping (RealmCollectionChange<MutableSet<Element>>) -> Void) -> NotificationToken {
        guard let m = managed else { atollProgrammerError("only managed sets can be observed") }
        return m.observePositions(
            keyPaths: keyPaths, flag: flag,
            onInitial: { block(.initial(self)) },
            onUpdate: { d, i, mods in block(.update(self, deletions: d, insertions: i, modifications: mods)) },
            onError: { block(.error($0)) })
    }
}

extension Map {
    /// Calls `block` with `.initial`, then `.update` after every commit that changes the map:
    /// the keys removed, added, and whose value was replaced (or, for a map of objects, whose
    /// object changed, limited to `keyPaths` when given). Deleting the map's object reports
    /// every key as deleted. `queue`: deliver on this queue; nil: on this realm's thread when
    /// it refreshes.
    ///
    /// ```swift
    /// let token = player.scores.observe { change in
    ///     if case .update(_, let deletions, let insertions, let modifications) = change { ... }
    /// }
    /// ```
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmMapChange<Map<Key, Value>>) -> Void) -> NotificationToken
    {
        guard let m = managed else {
            if let link = nestedLink, let nested = self as? Map<String, AnyRealmValue> {
                // `nested` is `self` seen as what it is; the maps in the changes are too.
                return nested.observeNested(link, on: queue) { change in
                    switch change {
                    case .initial(let m):
                        if let m = m as? Map<Key, Value> { block(.initial(m)) }
                    case .update(let m, let d, let i, let mods):
                        if let m = m as? Map<Key, Value> {
                            block(.update(m, deletions: d.map { Key(_atollMapKey: $0) }, insertions: i.map { Key(_atollMapKey: $0) },
                                          modifications: mods.map { Key(_atollMapKey: $0) }))
                        }
                    case .error(let error):
                        block(.error(error))
                    }
                }
            }
            atollProgrammerError("only managed maps can be observed; add the object to a realm first")
        }
        m.realm.verifyThread()
        if let objectType = Value._atollType.objectType { ObjectSchema.of(objectType).requireObservable(keyPaths) }
        if let queue {
            return m.realm.observeOnQueue(queue, source: m, { realm, m in try m.rebased(on: realm) }, onError: { block(.error($0)) }) { m, flag in
                Map(managed: m).observe(keyPaths: keyPaths, flag: flag, block)
            }
        }
        return observe(keyPaths: keyPaths, flag: ObservationFlag(), block)
    }

    func observe(keyPaths: [String]?, flag: ObservationFlag, _ block: @escaping (RealmMapChange<Map<Key, Value>>) -> Void) -> NotificationToken {
        guard let m = managed else { atollProgrammerError("only managed maps can be observed") }
        return m.observeKeys(
            keyPaths: keyPaths, flag: flag,
            onInitial: { block(.initial(self)) },
            onUpdate: { d, i, mods in
                block(.update(self, deletions: d.map { Key(_atollMapKey: $0) }, insertions: i.map { Key(_atollMapKey: $0) },
                              modifications: mods.map { Key(_atollMapKey: $0) }))
            },
            onError: { block(.error($0)) })
    }
}

extension ManagedCollection {
    /// Observes a map by key: `onUpdate` gets the removed, added and modified keys after every
    /// commit that changes the map or, for objects, one of its objects (limited to `keyPaths`).
    /// The change is computed by comparing the entries before and after (the log records a
    /// map's edits by position, not by key).
    func observeKeys(keyPaths: [String]?, flag: ObservationFlag, onInitial: @escaping () -> Void,
                     onUpdate: @escaping ([String], [String], [String]) -> Void,
                     onError: @escaping (any Error) -> Void) -> NotificationToken
    {
        let realm = self.realm
        realm.requireNoWriteForObserving()
        let ownerTable = owner.tableKey
        let key = self.key, column = self.column
        let targetName = realm.transaction.spec(of: ownerTable)?.columns[column].linkTarget
        let paths = keyPaths.map(ChangeSummary.components)
        /// The map's entries; nil once its object is gone. Throws when they cannot be read.
        func current() throws -> [(key: String, value: StorageValue)]? {
            guard realm.transaction.spec(of: ownerTable) != nil else { return nil }
            let t = try realm.transaction.table(ownerTable)
            guard let row = try t.locate(key) else { return nil }
            return Array(zip(try t.mapKeys(row, column), try t.list(row, column).values)).map { (key: $0.0, value: $0.1) }
        }
        func dependencies() -> Set<TableKey> {
            var tables: Set<TableKey> = [ownerTable]
            if let name = targetName, let target = realm.transaction.tableKey(named: name) { tables.formUnion(realm.dependencyClosure(of: target)) }
            return tables
        }
        var previous: [(key: String, value: StorageValue)]
        do { previous = try current() ?? [] } catch {
            flag.cancel()
            onError(error)
            return NotificationToken(flag: flag)
        }
        var dependsOn = dependencies()
        var ownerDeleted = false
        realm.observers.add(flag: flag, fail: { onError($0) }) { realm, summary, notify in
            guard !ownerDeleted else { return }
            if summary.schemaChanged { dependsOn = dependencies() }
            guard !summary.isComplete || summary.schemaChanged || dependsOn.contains(where: { summary.touches($0) }) else { return }
            guard let now = try current() else {
                ownerDeleted = true
                let deletions = previous.map(\.key)
                previous = []
                if notify, !deletions.isEmpty { onUpdate(deletions, [], []) }
                return
            }
            let target = targetName.flatMap { realm.transaction.tableKey(named: $0) }
            func objectChanged(_ v: StorageValue) throws -> Bool {
                guard let target, case .link(let k) = v else { return false }
                return try summary.objectChanged(target, k, keyPaths: paths, in: realm.transaction)
            }
            let old = Dictionary(previous.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
            let new = Dictionary(now.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
            let deletions = previous.map(\.key).filter { new[$0] == nil }
            let insertions = now.map(\.key).filter { old[$0] == nil }
            let modifications = try now.filter { entry in
                guard let before = old[entry.key] else { return false }
                return try before != entry.value || objectChanged(entry.value)
            }.map(\.key)
            previous = now
            guard notify, !(deletions.isEmpty && insertions.isEmpty && modifications.isEmpty) else { return }
            onUpdate(deletions, insertions, modifications)
        }
        onInitial()
        return NotificationToken(flag: flag)
    }
}
