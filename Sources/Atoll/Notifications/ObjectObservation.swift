import AtollStorage
public import Dispatch

extension Object {
    /// Calls `block` after every commit that changes this object: `.change` with the changed
    /// properties (their old and new values), or `.deleted` once it is deleted. A property is
    /// changed when a commit wrote it, as in Realm: an `.all` update reports every property,
    /// `.modified` only those whose values differ. `keyPaths` limits the properties watched.
    ///
    /// ```swift
    /// let token = dog.observe(keyPaths: ["name"]) { (change: ObjectChange<Dog>) in
    ///     if case .change(_, let properties) = change { print(properties) }
    /// }
    /// ```
    /// - `queue`: deliver on this queue (the object is resolved in a realm confined to it);
    ///   nil: on this realm's thread when it refreshes.
    public func observe<T: Object>(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                                   _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken
    {
        guard let m = _managed, self is T else { atollProgrammerError("only managed objects can be observed; add the object to a realm first") }
        m.realm.verifyThread()
        m.schema.requireObservable(keyPaths)
        if let queue {
            let type = Swift.type(of: self)
            return m.realm.observeOnQueue(queue, source: self, { realm, object in
                guard let m = object._managed else { return object }
                let b = try realm.binding(for: type)
                return realm.makeObject(type, key: m.key, binding: b)
            }, onError: { block(.error($0)) }) { object, flag in
                object.observe(keyPaths: keyPaths, flag: flag, block)
            }
        }
        return observe(keyPaths: keyPaths, flag: ObservationFlag(), block)
    }

    func observe<T: Object>(keyPaths: [String]?, flag: ObservationFlag, _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken {
        guard let m = _managed, let me = self as? T else { atollProgrammerError("only managed objects can be observed") }
        let realm = m.realm
        realm.requireNoWriteForObserving()
        let schema = m.schema
        let watched: [Int] = schema.allProperties.indices.filter { i in
            let p = schema.allProperties[i]
            guard p.isStored else { return false }
            guard let keyPaths else { return true }
            return keyPaths.contains { $0 == p.name || $0.hasPrefix(p.name + ".") }
        }
        let exists: Bool
        var last: [Int: [StorageValue]]
        do {
            exists = try Self.exists(m)
            last = exists ? try snapshotValues(watched) : [:]
        } catch {
            flag.cancel()
            block(.error(error))
            return NotificationToken(flag: flag)
        }
        if !exists {
            // Deleted before it could be observed.
            block(.deleted)
            return NotificationToken(flag: flag)
        }
        // Key paths through links (`"owner.name"`): the property changes when the linked
        // object's property does.
        var throughLinks: [Int: [[String]]] = [:]
        for path in ChangeSummary.components(keyPaths ?? []) where path.count > 1 {
            if let i = schema.index(of: path[0]) { throughLinks[i, default: []].append(path) }
        }
        // Linking objects named in `keyPaths` (`"owners"`, `"owners.name"`), as in RealmSwift:
        // changed when which objects link here changes, or along a longer path when one of
        // them changes.
        var backlinks: [(index: Int, origin: (table: TableKey, column: Int), paths: [[String]])] = []
        for (i, p) in schema.allProperties.enumerated() where p.isLinkingObjects {
            let paths = ChangeSummary.components(keyPaths ?? []).filter { $0.first == p.name }
            guard !paths.isEmpty, let origin = m.binding.origins[i] else { continue }
            backlinks.append((i, origin, paths.filter { $0.count > 1 }.map { Array($0.dropFirst()) }))
        }
        /// The objects linking here through each watched linking objects property.
        func linkingKeys(_ realm: Realm) throws -> [[ObjectKey]] {
            try backlinks.map { b in try realm.table(m.binding).backlinks(to: m.key, from: b.origin.table, column: b.origin.column) }
        }
        var lastLinking: [[ObjectKey]]
        do {
            lastLinking = try linkingKeys(realm)
        } catch {
            flag.cancel()
            block(.error(error))
            return NotificationToken(flag: flag)
        }
        let dependencies = throughLinks.isEmpty && backlinks.isEmpty ? [m.binding.tableKey] : realm.dependencyClosure(of: m.binding.tableKey)
        var deleted = false
        realm.observers.add(flag: flag, fail: { block(.error($0)) }) { realm, summary, notify in
            guard !deleted, dependencies.contains(where: { summary.touches($0) }) else { return }
            guard try Self.exists(m) else {
                deleted = true
                if notify { block(.deleted) }
                return
            }
            let written = summary.isExact ? summary.tables[m.binding.tableKey]?.modified[m.key] : nil
            if summary.isExact, written == nil, throughLinks.isEmpty, backlinks.isEmpty { return }
            let now = try me.snapshotValues(watched)
            var changes: [PropertyChange] = []
            for i in watched {
                // With the logs, a property is changed when the commit wrote it (or, along a key
                // path, the linked object's property); without, when its value differs.
                var changed = summary.isExact ? (written?.contains(m.binding.columns[i]) ?? false) : (last[i] != now[i])
                if !changed, summary.isExact, let paths = throughLinks[i] {
                    changed = try summary.objectChanged(m.binding.tableKey, m.key, keyPaths: paths, in: realm.transaction)
                }
                guard changed else { continue }
                let p = schema.allProperties[i]
                let oldValue = summary.isLocal ? nil : Self.swiftValues(last[i], p, realm)
                changes.append(PropertyChange(name: p.name, oldValue: oldValue, newValue: Self.swiftValues(now[i], p, realm)))
            }
            let nowLinking = try linkingKeys(realm)
            for (j, b) in backlinks.enumerated() {
                var changed = nowLinking[j] != lastLinking[j]
                if !changed, !b.paths.isEmpty {
                    changed = try nowLinking[j].contains { try summary.objectChanged(b.origin.table, $0, keyPaths: b.paths, in: realm.transaction) }
                }
                if changed { changes.append(PropertyChange(name: schema.allProperties[b.index].name, oldValue: nil, newValue: nil)) }
            }
            lastLinking = nowLinking
            last = now
            if notify, !changes.isEmpty { block(.change(me, changes)) }
        }
        return NotificationToken(flag: flag)
    }

    /// Whether the object exists in its realm's current state; throws when that cannot be read.
    static func exists(_ m: ManagedObjectState) throws -> Bool {
        guard let table = try m.realm.tableIfPresent(m.binding) else { return false }
        return try table.contains(m.key)
    }

    /// Stored values of the given properties (lists and sets as their element arrays, maps as
    /// alternating keys and values); throws when they
    /// cannot be read.
    func snapshotValues(_ indices: [Int]) throws -> [Int: [StorageValue]] {
        guard let m = _managed, let table = try m.realm.tableIfPresent(m.binding), let row = try table.locate(m.key) else { return [:] }
        var result: [Int: [StorageValue]] = [:]
        for i in indices {
            let column = m.binding.columns[i]
            guard column >= 0 else { continue }
            if m.schema.allProperties[i].isMap {
                // Keys and values alternate, so that a changed key is a change.
                result[i] = zip(try table.mapKeys(row, column), try table.list(row, column).values).flatMap { [StorageValue.string($0.0), $0.1] }
            } else if m.schema.allProperties[i].atollType.isCollection {
                result[i] = try table.list(row, column).values
            } else {
                result[i] = [try table.value(row, column)]
            }
        }
        return result
    }

    static func swiftValues(_ stored: [StorageValue]?, _ p: PropertyInfo, _ realm: Realm) -> Any? {
        guard let stored else { return nil }
        if p.isMap {
            var entries: [String: Any?] = [:]
            for i in stride(from: 0, to: stored.count - 1, by: 2) {
                if case .string(let k) = stored[i] { entries[k] = ValueConversion.swiftValue(stored[i + 1], property: p, realm: realm) }
            }
            return entries
        }
        if p.atollType.isCollection { return stored.map { ValueConversion.swiftValue($0, property: p, realm: realm) } }
        return stored.first.flatMap { ValueConversion.swiftValue($0, property: p, realm: realm) }
    }
}
