import AtollStorage
public import Dispatch

extension List {
    /// Calls `block` with `.initial`, then `.update` after every commit that changes the list:
    /// positions in the list (duplicates included) of inserted, deleted and replaced elements,
    /// and, for a list of objects, of listed objects that changed (limited to `keyPaths` when
    /// given). A moved element is a deletion and an insertion. Deleting the list's object
    /// reports every element as deleted.
    ///
    /// A list nested in a managed `AnyRealmValue` (`object.value.listValue`) is observed the
    /// same way; when it stops existing (its object is deleted, or the value holding it is
    /// assigned something else) every element is reported deleted and no update follows.
    ///
    /// ```swift
    /// let token = person.dogs.observe { change in
    ///     if case .update(_, let deletions, let insertions, let modifications) = change { ... }
    /// }
    /// ```
    /// - `queue`: deliver on this queue (the list is resolved in a realm confined to it); nil:
    ///   on this realm's thread when it refreshes.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<List<Element>>) -> Void) -> NotificationToken
    {
        guard let m = managed else {
            if let link = nestedLink, let nested = self as? List<AnyRealmValue> {
                // `nested` is `self` seen as what it is; the lists in the changes are too.
                return nested.observeNested(link, on: queue) { change in
                    switch change {
                    case .initial(let l):
                        if let l = l as? List<Element> { block(.initial(l)) }
                    case .update(let l, let d, let i, let m):
                        if let l = l as? List<Element> { block(.update(l, deletions: d, insertions: i, modifications: m)) }
                    case .error(let error):
                        block(.error(error))
                    }
                }
            }
            atollProgrammerError("only managed lists can be observed; add the object to a realm first")
        }
        m.realm.verifyThread()
        if let objectType = Element.self as? Object.Type { ObjectSchema.of(objectType).requireObservable(keyPaths) }
        if let queue {
            return m.realm.observeOnQueue(queue, source: m, { realm, m in
                Managed(realm: realm, owner: try realm.binding(for: m.owner.schema.objectType), key: m.key, column: m.column)
            }, onError: { block(.error($0)) }) { m, flag in
                List(managed: m).observe(keyPaths: keyPaths, flag: flag, block)
            }
        }
        return observe(keyPaths: keyPaths, flag: ObservationFlag(), block)
    }

    func observe(keyPaths: [String]?, flag: ObservationFlag, _ block: @escaping (RealmCollectionChange<List<Element>>) -> Void) -> NotificationToken {
        guard let m = managed else { atollProgrammerError("only managed lists can be observed") }
        return ManagedCollection(realm: m.realm, owner: m.owner, key: m.key, column: m.column).observePositions(
            keyPaths: keyPaths, flag: flag,
            onInitial: { block(.initial(self)) },
            onUpdate: { d, i, mods in block(.update(self, deletions: d, insertions: i, modifications: mods)) },
            onError: { block(.error($0)) })
    }
}

extension ManagedCollection {
    /// Observes the collection's elements by position (lists and sets): `onUpdate` gets the
    /// deleted (old), inserted and modified (new) positions after every commit that changes the
    /// collection or, for objects, one of its objects (limited to `keyPaths`).
    func observePositions(keyPaths: [String]?, flag: ObservationFlag, onInitial: @escaping () -> Void,
                          onUpdate: @escaping ([Int], [Int], [Int]) -> Void,
                          onError: @escaping (any Error) -> Void) -> NotificationToken
    {
        let m = self
        let realm = m.realm
        realm.requireNoWriteForObserving()
        let ownerTable = m.owner.tableKey
        let slot = ChangeSummary.ListSlot(table: ownerTable, object: m.key, column: m.column)
        let targetName = realm.transaction.spec(of: ownerTable)?.columns[m.column].linkTarget
        let paths = keyPaths.map(ChangeSummary.components)
        /// The list's elements; nil once its object is gone. Throws when they cannot be read.
        func current() throws -> [StorageValue]? {
            guard realm.transaction.spec(of: ownerTable) != nil else { return nil }
            let t = try realm.transaction.table(ownerTable)
            guard let row = try t.locate(m.key) else { return nil }
            return try t.list(row, m.column).values
        }
        func dependencies() -> Set<TableKey> {
            var tables: Set<TableKey> = [ownerTable]
            if let name = targetName, let target = realm.transaction.tableKey(named: name) { tables.formUnion(realm.dependencyClosure(of: target)) }
            return tables
        }
        var previous: [StorageValue]
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
                let deletions = Array(previous.indices)
                previous = []
                if notify, !deletions.isEmpty { onUpdate(deletions, [], []) }
                return
            }
            let target = targetName.flatMap { realm.transaction.tableKey(named: $0) }
            func elementChanged(_ v: StorageValue) throws -> Bool {
                guard let target, case .link(let k) = v else { return false }
                return try summary.objectChanged(target, k, keyPaths: paths, in: realm.transaction)
            }
            var change: (deletions: [Int], insertions: [Int], modifications: [Int])?
            if summary.isExact {
                let operations = summary.lists[slot] ?? []
                if operations.isEmpty {
                    if previous.count == now.count { change = ([], [], try now.indices.filter { try elementChanged(now[$0]) }) }
                } else if let c = ListChangeBuilder.changes(oldCount: previous.count, operations: operations), c.survivors.count == now.count {
                    let modifications = try now.indices.filter { p in
                        let old = c.survivors[p]
                        return try old >= 0 && (c.modifiedOld.contains(old) || elementChanged(now[p]))
                    }
                    change = (c.deletions, c.insertions, modifications)
                }
            }
            if change == nil {
                // Without exact logs: compare contents (objects by key, values by equality).
                if targetName != nil {
                    let keys = { (values: [StorageValue]) in values.map { v -> ObjectKey in if case .link(let k) = v { k } else { ObjectKey(0) } } }
                    change = CollectionDiff.compute(old: keys(previous), new: keys(now)) { _ in !summary.isComplete }
                } else {
                    change = previous == now ? ([], [], []) : (Array(previous.indices), Array(now.indices), [])
                }
            }
            previous = now
            guard notify, let change, !(change.deletions.isEmpty && change.insertions.isEmpty && change.modifications.isEmpty) else { return }
            onUpdate(change.deletions, change.insertions, change.modifications)
        }
        onInitial()
        return NotificationToken(flag: flag)
    }
}

extension LinkingObjects {
    /// Calls `block` with `.initial`, then `.update` with exact indices after every commit that
    /// changes which objects link here, or changes one of them (limited to `keyPaths`).
    /// `queue`: deliver on this queue; nil: on this realm's thread when it refreshes.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<LinkingObjects<Element>>) -> Void) -> NotificationToken
    {
        guard let core = results?.core else { atollProgrammerError("only linking objects of managed objects can be observed") }
        core.realm.verifyThread()
        ObjectSchema.of(Element.self).requireObservable(keyPaths)
        if let queue {
            return core.realm.observeOnQueue(queue, source: core, { realm, core in try core.rebased(on: realm) }, onError: { block(.error($0)) }) { core, flag in
                LinkingObjects(results: Results(core: core)).observe(keyPaths: keyPaths, flag: flag, block)
            }
        }
        return observe(keyPaths: keyPaths, flag: ObservationFlag(), block)
    }

    func observe(keyPaths: [String]?, flag: ObservationFlag, _ block: @escaping (RealmCollectionChange<LinkingObjects<Element>>) -> Void) -> NotificationToken {
        guard let core = results?.core else { atollProgrammerError("only linking objects of managed objects can be observed") }
        return core.realm.observeCollection(
            tables: { core.dependencies() },
            keys: { try core.evaluateKeys() },
            modifiedColumns: { summary, key in try core.isModified(key, in: summary, keyPaths: keyPaths) },
            flag: flag,
            onChange: { d, i, m in block(.update(self, deletions: d, insertions: i, modifications: m)) },
            onInitial: { block(.initial(self)) },
            onError: { block(.error($0)) })
    }
}
