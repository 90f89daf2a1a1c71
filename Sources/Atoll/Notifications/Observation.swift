import AtollStorage
import AtollQuery
public import Dispatch

extension ResultsCore {
    /// Tables whose changes can change these results: the class's own table, everything it
    /// links to (transitively) and everything linking to it, and the owner of a list source.
    func dependencies() -> Set<TableKey> {
        let txn = realm.transaction
        var result: Set<TableKey> = [binding.tableKey]
        var queue = [binding.tableKey]
        while let t = queue.popLast() {
            guard let spec = txn.spec(of: t) else { continue }
            var next: [String] = spec.columns.compactMap(\.linkTarget)
            next += spec.linkingObjects.map(\.originTable)
            for name in next { if let k = txn.tableKey(named: name), result.insert(k).inserted { queue.append(k) } }
        }
        switch source {
        case .list(let owner, _, _): result.insert(owner.tableKey)
        case .linkingObjects(let target, _, _): result.insert(target.tableKey)
        default: break
        }
        return result
    }

    /// Whether the object `key` of this class changed, limited to `keyPaths` (their first
    /// components) when given.
    func isModified(_ key: ObjectKey, in summary: ChangeSummary, keyPaths: [String]?) -> Bool {
        if !summary.isComplete { return true }
        guard let columns = summary.tables[binding.tableKey]?.modified[key] else { return false }
        guard let keyPaths else { return true }
        let transaction = realm.transaction
        let watched = Set(keyPaths.compactMap { path -> Int? in
            binding.column(ofProperty: String(path.split(separator: ".").first ?? ""), in: transaction)
        })
        return !columns.isDisjoint(with: watched)
    }

}

extension ResultsCore where Class == ClassBinding {
    /// The same results in another realm of the same database.
    func rebased(on other: Realm) throws -> ResultsCore<ClassBinding> {
        let b = try other.binding(for: binding.schema.objectType)
        let newSource: Source
        switch source {
        case .table: newSource = .table
        case .keys(let k): newSource = .keys(k)
        case .list(let owner, let key, let column): newSource = .list(owner: try other.binding(for: owner.schema.objectType), key: key, column: column)
        case .linkingObjects(let target, let key, let column):
            newSource = .linkingObjects(target: try other.binding(for: target.schema.objectType), key: key, column: column)
        }
        return ResultsCore(realm: other, binding: b, source: newSource, query: query)
    }
}

extension Results {
    /// Calls `block` with `.initial`, then `.update` with exact indices after every change that
    /// affects these results (a commit here, in another thread or process, or by sync).
    ///
    /// - `keyPaths`: report modifications only of these properties.
    /// - `queue`: deliver on this queue (results from a realm confined to it); nil: on this
    ///   realm's thread, when it refreshes (its own commits, `refresh()`, or autorefresh).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) -> NotificationToken
    {
        core.realm.verifyThread()
        if let queue { return observeOnQueue(keyPaths: keyPaths, queue, block) }
        let core = self.core
        return core.realm.observeCollection(
            tables: { core.dependencies() },
            keys: { core.keys() },
            modifiedColumns: { summary, key in core.isModified(key, in: summary, keyPaths: keyPaths) },
            onChange: { d, i, m in block(.update(Results(core: core), deletions: d, insertions: i, modifications: m)) },
            onInitial: { block(.initial(Results(core: core))) })
    }

    private func observeOnQueue(keyPaths: [String]?, _ queue: DispatchQueue,
                                _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) -> NotificationToken
    {
        let configuration = core.realm.configuration
        // Handed to the queue and used only there from then on.
        // Two hand-offs rather than one tuple: the 6.3 optimizer crashes on the tuple form.
        let sourceHandoff = QueueHandoff(core)
        let blockHandoff = QueueHandoff(block)
        let box = QueueObservationBox()
        queue.async {
            let source = sourceHandoff.value
            let block = blockHandoff.value
            do {
                let realm = try Realm(configuration: configuration, queue: queue)
                let rebased = try source.rebased(on: realm)
                box.set(Results(core: rebased).observe(keyPaths: keyPaths, block), realm: realm)
            } catch {
                block(.error(error))
            }
        }
        return NotificationToken { queue.async { box.invalidate() } }
    }

    /// Changes as an async sequence of frozen (thread-safe) results.
    public var changes: AsyncStream<RealmCollectionChange<Results<Element>>> {
        AsyncStream { continuation in
            let token = observe { change in
                switch change {
                case .initial(let r): continuation.yield(.initial(r.freeze()))
                case .update(let r, let d, let i, let m): continuation.yield(.update(r.freeze(), deletions: d, insertions: i, modifications: m))
                case .error(let e): continuation.yield(.error(e))
                }
            }
            let holder = TokenHolder(token)
            continuation.onTermination = { _ in holder.invalidate() }
        }
    }
}

/// Keeps a queue-confined realm and its token alive for an `observe(on:)` registration.
final class QueueObservationBox: @unchecked Sendable {
    // Sendable: only touched on the observation's queue.
    private var token: NotificationToken?
    private var realm: Realm?
    func set(_ token: NotificationToken, realm: Realm) { self.token = token; self.realm = realm }
    func invalidate() { token?.invalidate(); token = nil; realm = nil }
}

/// Moves a value to another queue that alone uses it afterwards (a hand-off, not sharing).
struct QueueHandoff<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

final class TokenHolder: Sendable {
    let token: NotificationToken
    init(_ token: NotificationToken) { self.token = token }
    func invalidate() { token.invalidate() }
}

extension List where Element: Object {
    /// Change notifications of the list (insertions, deletions, moves and modifications of its
    /// objects).
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (RealmCollectionChange<List<Element>>) -> Void) -> NotificationToken {
        guard managed != nil else { preconditionFailure("only managed lists can be observed") }
        let core = asResults.core
        return core.realm.observeCollection(
            tables: { core.dependencies() },
            keys: { core.keys() },
            modifiedColumns: { summary, key in core.isModified(key, in: summary, keyPaths: keyPaths) },
            onChange: { d, i, m in block(.update(self, deletions: d, insertions: i, modifications: m)) },
            onInitial: { block(.initial(self)) })
    }
}

extension LinkingObjects {
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (RealmCollectionChange<LinkingObjects<Element>>) -> Void) -> NotificationToken {
        guard let core = results?.core else { preconditionFailure("only linking objects of managed objects can be observed") }
        return core.realm.observeCollection(
            tables: { core.dependencies() },
            keys: { core.keys() },
            modifiedColumns: { summary, key in core.isModified(key, in: summary, keyPaths: keyPaths) },
            onChange: { d, i, m in block(.update(self, deletions: d, insertions: i, modifications: m)) },
            onInitial: { block(.initial(self)) })
    }
}

extension Object {
    /// Calls `block` after every commit that changes this object: `.change` with the changed
    /// properties (old and new values), or `.deleted`. `keyPaths` limits the properties watched.
    public func observe<T: Object>(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                                   _ block: @escaping (ObjectChange<T>) -> Void) -> NotificationToken
    {
        guard let m = _managed, let me = self as? T else { preconditionFailure("only managed objects can be observed") }
        m.realm.verifyThread()
        if let queue {
            let configuration = m.realm.configuration
            let key = m.key
            let type = Swift.type(of: self)
            let box = QueueObservationBox()
            let handoff = QueueHandoff(block)
            queue.async {
                let block = handoff.value
                do {
                    let realm = try Realm(configuration: configuration, queue: queue)
                    guard let object = realm.makeObject(type, key: key) as? T else { block(.deleted); return }
                    box.set(object.observe(keyPaths: keyPaths, block), realm: realm)
                } catch {
                    block(.error(error))
                }
            }
            return NotificationToken { queue.async { box.invalidate() } }
        }
        let schema = m.schema
        let watched: [Int] = schema.properties.indices.filter { i in
            let p = schema.properties[i]
            guard p.isStored else { return false }
            guard let keyPaths else { return true }
            return keyPaths.contains { $0 == p.name || $0.hasPrefix(p.name + ".") }
        }
        var last = snapshotValues(watched)
        var deleted = false
        let realm = m.realm
        let (id, cancel) = realm.observers.add { _, summary in
            guard !deleted, summary.touches(m.binding.tableKey) else { return }
            guard !me.isInvalidated else {
                deleted = true
                block(.deleted)
                return
            }
            let exact = summary.isComplete && !summary.schemaChanged
            let written = exact ? summary.tables[m.binding.tableKey]?.modified[m.key] : nil
            if exact, written == nil { return }
            let now = me.snapshotValues(watched)
            var changes: [PropertyChange] = []
            for i in watched {
                // As in Realm, a property is changed when the commit wrote it (so `.all`
                // updates report every property, `.modified` only those that differ); without
                // the logs, values are compared.
                let changed = written.map { $0.contains(m.binding.columns[i]) } ?? (last[i] != now[i])
                guard changed else { continue }
                let p = schema.properties[i]
                changes.append(PropertyChange(name: p.name, oldValue: Self.swiftValues(last[i], p, realm), newValue: Self.swiftValues(now[i], p, realm)))
            }
            last = now
            if !changes.isEmpty { block(.change(me, changes)) }
        }
        let token = NotificationToken(cancel)
        realm.observers.associate(token, with: id)
        return token
    }

    /// Stored values of the given properties (lists as their element arrays).
    func snapshotValues(_ indices: [Int]) -> [Int: [StorageValue]] {
        guard let m = _managed, let (table, row) = m.locate() else { return [:] }
        var result: [Int: [StorageValue]] = [:]
        for i in indices {
            let column = m.binding.columns[i]
            guard column >= 0 else { continue }
            if m.schema.properties[i].isList {
                result[i] = (try? table.list(row, column).values) ?? []
            } else {
                result[i] = [(try? table.value(row, column)) ?? .null]
            }
        }
        return result
    }

    static func swiftValues(_ stored: [StorageValue]?, _ p: PropertyInfo, _ realm: Realm) -> Any? {
        guard let stored else { return nil }
        if p.isList { return stored.map { ValueConversion.swiftValue($0, property: p, realm: realm) } }
        return stored.first.flatMap { ValueConversion.swiftValue($0, property: p, realm: realm) }
    }
}
