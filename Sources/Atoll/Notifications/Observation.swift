import AtollStorage
import AtollQuery
public import Dispatch

extension ResultsCore {
    /// Tables whose changes can change these results: the class's own table, everything it
    /// links to (transitively) and everything linking to it, and the owner of a list source.
    func dependencies() -> Set<TableKey> {
        var result = realm.dependencyClosure(of: binding.tableKey)
        switch source {
        case .list(let owner, _, _): result.insert(owner.tableKey)
        case .linkingObjects(let target, _, _): result.insert(target.tableKey)
        default: break
        }
        return result
    }

    /// Whether the object `key` of this class changed: one of its properties, or an object it
    /// links to (as in Realm); limited to `keyPaths` when given.
    func isModified(_ key: ObjectKey, in summary: ChangeSummary, keyPaths: [String]?) throws -> Bool {
        try summary.objectChanged(binding.tableKey, key, keyPaths: keyPaths.map(ChangeSummary.components), in: realm.transaction)
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
        core.binding.schema.requireObservable(keyPaths)
        if let queue {
            return core.realm.observeOnQueue(queue, source: core, { realm, core in try core.rebased(on: realm) }, onError: { block(.error($0)) }) { core, flag in
                Results(core: core).observe(keyPaths: keyPaths, flag: flag, block)
            }
        }
        return observe(keyPaths: keyPaths, flag: ObservationFlag(), block)
    }

    func observe(keyPaths: [String]?, flag: ObservationFlag, _ block: @escaping (RealmCollectionChange<Results<Element>>) -> Void) -> NotificationToken {
        let core = self.core
        return core.realm.observeCollection(
            tables: { core.dependencies() },
            keys: { try core.evaluateKeys() },
            modifiedColumns: { summary, key in try core.isModified(key, in: summary, keyPaths: keyPaths) },
            flag: flag,
            onChange: { d, i, m in block(.update(Results(core: core), deletions: d, insertions: i, modifications: m)) },
            onInitial: { block(.initial(Results(core: core))) },
            onError: { block(.error($0)) })
    }
}

extension Realm {
    /// Registers an observer on `queue`: a realm confined to the queue is opened there, the
    /// observed thing is moved into it (`rebase`), and `register` observes it with the token's
    /// flag, so `invalidate()` (from any thread) stops delivery at once.
    func observeOnQueue<Source>(_ queue: DispatchQueue, source: Source, _ rebase: @escaping (Realm, Source) throws -> Source,
                                onError: @escaping (any Swift.Error) -> Void,
                                register: @escaping (Source, ObservationFlag) -> NotificationToken) -> NotificationToken
    {
        let configuration = self.configuration
        let flag = ObservationFlag()
        let box = QueueObservationBox()
        // Handed to the queue and used only there from then on. (A class, not a tuple: the 6.3
        // optimizer crashes on a tuple of closures in the hand-off.)
        let handoff = QueueHandoff(QueueRegistration(source: source, rebase: rebase, onError: onError, register: register))
        queue.async {
            let r = handoff.value
            guard !flag.isCancelled else { return }
            do {
                let realm = try Realm(configuration: configuration, queue: queue)
                box.keep(realm, r.register(try r.rebase(realm, r.source), flag))
            } catch {
                r.onError(error)
            }
        }
        return NotificationToken(flag: flag, cleanup: { queue.async { box.release() } })
    }
}

/// What `observeOnQueue` does on the queue.
final class QueueRegistration<Source> {
    let source: Source
    let rebase: (Realm, Source) throws -> Source
    let onError: (any Error) -> Void
    let register: (Source, ObservationFlag) -> NotificationToken
    init(source: Source, rebase: @escaping (Realm, Source) throws -> Source, onError: @escaping (any Error) -> Void,
         register: @escaping (Source, ObservationFlag) -> NotificationToken) {
        self.source = source
        self.rebase = rebase
        self.onError = onError
        self.register = register
    }
}

/// Keeps the realm of an `observe(on:)` registration alive on its queue until invalidated.
final class QueueObservationBox: @unchecked Sendable {
    // Sendable: created by the registering thread, then only touched on the delivery queue.
    private var realm: Realm?
    private var token: NotificationToken?
    func keep(_ realm: Realm, _ token: NotificationToken) { self.realm = realm; self.token = token }
    func release() { token?.invalidate(); token = nil; realm = nil }
}

/// Moves a value to another queue that alone uses it afterwards (a hand-off, not sharing).
struct QueueHandoff<T>: @unchecked Sendable {
    // Sendable: the sender gives the value up; only the receiving queue uses it.
    let value: T
    init(_ value: T) { self.value = value }
}
