public import Atoll
public import Dispatch
import AtollQuery
import AtollStorage
import Foundation

/// The conflict ledger of a realm's file as a live collection, shaped like `Results`:
/// `realm.conflicts` and `object.conflicts` (docs/SYNC.md, "Conflicts").
///
/// It reads the ledger at the realm's version, so it changes when the realm refreshes (a merge
/// that records or replaces an entry, a dismiss, "keep mine", retention), whichever process
/// committed it. Filter it with the query language over the properties `kind`, `className`,
/// `primaryKey`, `property`, `element`, `mapKey`, `winningValue`, `losingValue` (values as text;
/// null for a delete), `winningNode`, `losingNode`, `winningStamp`, `losingStamp`,
/// `decidedInVersion` and `recordedAt`; sort it; observe it.
///
/// ```swift
/// let titles = try realm.conflicts.filter(throwing: "className == 'Task' AND property == 'title'")
/// let token = titles.observe { change in
///     if case .update(let conflicts, _, let insertions, _) = change {
///         for i in insertions { print("lost:", conflicts[i].losingValue ?? "(delete)") }
///     }
/// }
/// ```
/// Without a sort, entries are in the order of the losing write's stamp (the same on every node).
/// Reading the ledger is O(n) in its entries (at most `ConflictRetention.countMax`); a filtered
/// or sorted collection runs the query engine over them (see `Replica/ConflictTable.swift`).
/// A failed read of the file stops the program, as for `Results` (README, "Failed reads").
public final class ConflictResults: RandomAccessCollection, CustomStringConvertible, @unchecked Sendable {
    // @unchecked Sendable: the cache is read and written under `lock`; a live collection is used
    // only on its realm's thread (checked on every read), a frozen one reads a frozen realm,
    // which any thread may read. Everything else is immutable.

    /// The position of an entry.
    public typealias Index = Int
    /// An entry of the ledger.
    public typealias Element = Conflict

    /// The realm whose version is read; nil for the conflicts of an unmanaged object (none).
    public let realm: Realm?
    /// One object's entries (className and primary key), or nil for the whole ledger.
    let object: (className: String, primaryKey: StorageValue)?
    /// The combined predicates and clauses; nil: every entry.
    let query: BoundQuery?

    private let lock = NSLock()
    private var cached: [Conflict] = []
    private var cachedState: PackageReadState?

    init(realm: Realm?, object: (className: String, primaryKey: StorageValue)?, query: BoundQuery?) {
        self.realm = realm
        self.object = object
        self.query = query
    }

    /// The entries at the realm's version, matching the query, in order. Throws `.wrongThread`
    /// off the realm's thread, or what reading the file throws.
    public func snapshot() throws -> [Conflict] {
        guard let realm else { return [] }
        if !realm.isFrozen { try realm.packageCheckThread() }
        lock.lock()
        defer { lock.unlock() }
        let state = realm.packageReadState
        if let cachedState, cachedState == state { return cached }
        let txn = realm.packageReadTransaction
        let entries = try Conflict.all(in: txn, className: object?.className, primaryKey: object?.primaryKey)
        let result = try ConflictTable.matches(query, in: entries).map { entries[$0] }
        cached = result
        cachedState = state
        return result
    }

    private var elements: [Conflict] {
        do { return try snapshot() } catch let e as AtollError where e.kind == .wrongThread {
            Realm.packageProgrammerError("Realm accessed from the wrong thread: \(e.message)")
        } catch {
            realm?.packageReadFailed(error, reading: "the conflict ledger") ?? Realm.packageProgrammerError("\(error)")
        }
    }

    /// The first position (0).
    public var startIndex: Int { 0 }
    /// One past the last position (`count`).
    public var endIndex: Int { elements.count }
    /// The number of entries.
    public var count: Int { elements.count }

    /// The entry at `position`; out of bounds is a programming error.
    public subscript(position: Int) -> Conflict {
        let all = elements
        guard all.indices.contains(position) else {
            Realm.packageProgrammerError("index \(position) is out of bounds (the conflicts hold \(all.count))")
        }
        return all[position]
    }

    /// A short description: the count.
    public var description: String { "ConflictResults (\(count) conflicts)" }

    // MARK: filtering and sorting

    /// The entries matching a predicate in the query language as well (`$0`, `%@`... take
    /// `args`), e.g. `"className == 'Task' AND property == 'title'"` or
    /// `"kind == 'concurrent write' SORT(recordedAt DESC) LIMIT(10)"`. An invalid predicate is
    /// a programming error, as for `Results`; `filter(throwing:_:)` throws instead.
    public func filter(_ predicateFormat: String, _ args: Any...) -> ConflictResults {
        do { return try filter(throwing: predicateFormat, args) } catch {
            Realm.packageProgrammerError("invalid query: \(error)")
        }
    }

    /// Like `filter(_:_:)`, throwing `.invalidQuery` for a predicate the query language refuses
    /// (an unknown property, a type mismatch, a syntax error).
    public func filter(throwing predicateFormat: String, _ args: Any...) throws -> ConflictResults {
        try filter(throwing: predicateFormat, args)
    }

    func filter(throwing predicateFormat: String, _ args: [Any]) throws -> ConflictResults {
        if let realm, !realm.isFrozen { try realm.packageCheckThread() }
        let bound = try ConflictTable.bind(predicateFormat, arguments: args)
        return ConflictResults(realm: realm, object: object, query: query.map { $0.combined(with: bound) } ?? bound)
    }

    /// The entries sorted by a property (see the type's list), nil first when ascending. An
    /// unknown property is a programming error.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> ConflictResults {
        sorted(by: [Atoll.SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The entries sorted by several properties, the first descriptor first.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> ConflictResults where S.Element == Atoll.SortDescriptor {
        let clause = sortDescriptors.map { "\($0.keyPath) \($0.ascending ? "ASC" : "DESC")" }.joined(separator: ", ")
        guard !clause.isEmpty else { return self }
        return filter("TRUEPREDICATE SORT(\(clause))")
    }

    // MARK: freezing

    /// Whether the collection reads a frozen realm (it never changes).
    public var isFrozen: Bool { realm?.isFrozen ?? false }

    /// The same collection over a frozen snapshot of the realm's current version, readable from
    /// any thread.
    public func freeze() -> ConflictResults {
        guard let realm, !realm.isFrozen else { return self }
        return ConflictResults(realm: realm.freeze(), object: object, query: query)
    }

    // MARK: notifications

    /// Calls `block` with `.initial(self)` now, then `.update` after every version change of the
    /// realm that changes the collection: positions of removed entries (in the old collection),
    /// of recorded ones and of entries whose current winner changed (in the new one). A merge
    /// that records a conflict, a dismiss, "keep mine" and retention pruning all show, also
    /// when another process committed them. Delivered on the realm's thread when it refreshes,
    /// or with `queue` on that queue (the collection is read in a realm confined to it, refreshed
    /// after every commit, as for `Results.observe(on:)`). Observing a frozen collection, or one
    /// of an unmanaged object, is a programming error.
    ///
    /// ```swift
    /// let token = realm.conflicts.observe { change in
    ///     switch change {
    ///     case .initial(let conflicts): show(conflicts)
    ///     case .update(let conflicts, let deletions, let insertions, let modifications): update(conflicts, deletions, insertions, modifications)
    ///     case .error(let error): print(error)
    ///     }
    /// }
    /// ```
    public func observe(on queue: DispatchQueue? = nil, _ block: @escaping (RealmCollectionChange<ConflictResults>) -> Void) -> NotificationToken {
        guard let realm else { Realm.packageProgrammerError("the conflicts of an unmanaged object cannot be observed") }
        guard let queue else { return observe(in: realm, flag: nil, block) }
        if realm.isFrozen { Realm.packageProgrammerError("a frozen collection cannot be observed: it never changes") }
        let object = self.object, query = self.query
        return realm.observePackageRows(on: queue, onError: { block(.error($0)) }) { queueRealm, flag in
            ConflictResults(realm: queueRealm, object: object, query: query).observe(in: queueRealm, flag: flag, block)
        }
    }

    private func observe(in realm: Realm, flag: PackageObservationFlag?, _ block: @escaping (RealmCollectionChange<ConflictResults>) -> Void) -> NotificationToken {
        var byID: [Conflict.ID: Conflict] = [:]
        var previousByID: [Conflict.ID: Conflict] = [:]
        var ledgerRoot: PageNumber?
        var classes: Set<String> = []
        return realm.observePackageRows(
            flag: flag,
            mayHaveChanged: { touchesClass in
                // The entries change with the ledger's tree; their winners with the data of
                // their classes (Conflict+Access.swift reads them with the entry).
                let root = try realm.packageReadTransaction.internalTreeRoot(ConflictLedger.tree)
                return root != ledgerRoot || classes.contains(where: touchesClass)
            },
            keys: { [self] in
                let all = try snapshot()
                ledgerRoot = try realm.packageReadTransaction.internalTreeRoot(ConflictLedger.tree)
                classes = Set(all.map(\.className))
                previousByID = byID
                byID = Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
                return all.map(\.id)
            },
            isModified: { id in previousByID[id] != byID[id] },
            onChange: { [self] d, i, m in block(.update(self, deletions: d, insertions: i, modifications: m)) },
            onInitial: { [self] in block(.initial(self)) },
            onError: { block(.error($0)) })
    }
}
