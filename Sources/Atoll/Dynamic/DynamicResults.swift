import AtollStorage
import AtollQuery

/// A class known by name only, as the live-results machinery sees it.
struct DynamicClass: ResultsClass {
    let tableKey: TableKey
    let className: String

    func column(ofProperty name: String, in transaction: Transaction) -> Int? {
        transaction.spec(of: tableKey)?.columnIndex(named: name)
    }

    /// Dynamic queries take arguments as in data files (a link compared with a primary key).
    static var acceptsDataFileArguments: Bool { true }
}

/// The live, lazily evaluated objects of a class known only at run time: what
/// `Realm.dynamicObjects(_:)` returns. The same machinery as `Results` (query language, index
/// planning, change notifications), with errors thrown instead of stopping the program, since a
/// run-time schema makes a bad class or key path an input error.
///
/// The collection conformance (`count`, iteration, subscripts, `prefix`) cannot throw: like
/// `Results`, it stops the program when the file cannot be read (README, "Failed reads").
/// `objects(limit:)` and `evaluatedCount()` read the same objects and throw instead; tools
/// that must survive a damaged file (the `atoll` command) read through them.
///
/// ```swift
/// let adults = realm.dynamicObjects("Person").filter("age >= $0", 18).sorted(byKeyPath: "name")
/// for person in adults { print(person["name"] ?? "") }
/// ```
///
/// Query arguments may be Swift values, `DynamicObject`s, or written as in data files: an
/// argument compared with a link may be the target's primary-key value (`owner == $0` with
/// `"ali"`), and UUIDs and ObjectIds may be strings.
public struct DynamicResults: RandomAccessCollection, CustomStringConvertible {
    let core: ResultsCore<DynamicClass>
    /// Shared by the objects these results make.
    let context: DynamicContext

    init(core: ResultsCore<DynamicClass>) {
        self.core = core
        context = DynamicContext(realm: core.realm)
    }

    /// The realm the objects are read from.
    public var realm: Realm { core.realm }
    /// The class of the objects.
    public var className: String { core.binding.className }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// Number of objects: O(1) for a whole class, a scan without materializing otherwise.
    public var count: Int {
        core.realm.verifyThread()
        return core.count
    }

    public subscript(position: Int) -> DynamicObject {
        core.realm.verifyThread()
        guard let key = core.key(at: position) else {
            atollProgrammerError("index \(position) is out of bounds (count \(count))")
        }
        return makeObject(key)
    }

    /// Iterates over the objects of one evaluation of the query.
    public func makeIterator() -> DynamicResultsIterator {
        core.realm.verifyThread()
        return DynamicResultsIterator(results: self, keys: core.keys())
    }

    func makeObject(_ key: ObjectKey) -> DynamicObject {
        DynamicObject(context: context, tableKey: core.binding.tableKey, key: key)
    }

    /// The keys of the objects in results order.
    var keys: [ObjectKey] { core.keys() }

    // MARK: reading that throws

    /// The objects, in results order, at most `limit` of them: one evaluation of the query.
    ///
    /// - Throws: the storage error (`.fileCorrupted` naming the page, `.ioError`) when the
    ///   objects cannot be read; `.wrongThread` off the realm's thread.
    public func objects(limit: Int = .max) throws -> [DynamicObject] {
        try core.realm.checkThread()
        return try core.evaluateKeys().prefix(Swift.max(0, limit)).map(makeObject)
    }

    /// The number of objects, as `count`, throwing when they cannot be read.
    public func evaluatedCount() throws -> Int {
        try core.realm.checkThread()
        return try core.evaluateCount()
    }

    public var description: String { "DynamicResults<\(className)> (\(count) objects)" }

    // MARK: filtering and sorting

    /// The objects matching a predicate in Realm's query language (with optional SORT,
    /// DISTINCT and LIMIT clauses); `$0`, `%@`... take `arguments`. Like `filter(_:_:)`,
    /// throwing for an invalid predicate.
    ///
    /// - Throws: `AtollError` of kind `.invalidQuery` naming the problem and its offset.
    public func filter(throwing predicate: String, _ arguments: Any...) throws -> DynamicResults {
        try filter(predicate, arguments: arguments)
    }

    /// The objects matching `predicate`, with `$0`, `$1`... taken from `arguments`.
    ///
    /// - Throws: `.invalidQuery` for an invalid predicate or argument; a storage error when reading fails.
    public func filter(_ predicate: String, arguments: [Any]) throws -> DynamicResults {
        try core.realm.checkThread()
        return DynamicResults(core: core.with(query: try core.bind(predicate, arguments)))
    }

    /// Sorted by a key path; throws `.invalidQuery` for a key path the class does not have.
    public func sorted(throwingByKeyPath keyPath: String, ascending: Bool = true) throws -> DynamicResults {
        try sorted(throwing: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// Sorted by key paths (to-one: properties and properties through links); stable. Throws
    /// `.invalidQuery` naming a key path the class does not have.
    public func sorted<S: Sequence>(throwing descriptors: S) throws -> DynamicResults where S.Element == SortDescriptor {
        let list = Array(descriptors)
        do {
            return try descriptorsApplied(list)
        } catch let error as AtollError {
            // Name the key path at fault: the offset is in a query the caller never wrote.
            for d in list {
                do { _ = try descriptorsApplied([d]) } catch let e as AtollError {
                    throw AtollError(.invalidQuery, "cannot sort '\(className)' by '\(d.keyPath)': \(Self.withoutOffset(e.message))")
                }
            }
            throw error
        }
    }

    private func descriptorsApplied(_ descriptors: [SortDescriptor]) throws -> DynamicResults {
        guard !descriptors.isEmpty else { return self }
        let clause = descriptors.map { "\($0.keyPath) \($0.ascending ? "ASC" : "DESC")" }.joined(separator: ", ")
        return try filter(throwing: "TRUEPREDICATE SORT(\(clause))")
    }

    /// The first object of each distinct combination of the key paths' values; throws
    /// `.invalidQuery` for a key path the class does not have.
    public func distinct<S: Sequence>(throwing keyPaths: S) throws -> DynamicResults where S.Element == String {
        let list = keyPaths.joined(separator: ", ")
        guard !list.isEmpty else { return self }
        do {
            return try filter(throwing: "TRUEPREDICATE DISTINCT(\(list))")
        } catch let e as AtollError {
            throw AtollError(.invalidQuery, "cannot make '\(className)' distinct by \(list): \(Self.withoutOffset(e.message))")
        }
    }

    /// The first `count` objects (all when there are fewer).
    public func prefix(_ count: Int) -> [DynamicObject] {
        core.realm.verifyThread()
        return core.keys().prefix(Swift.max(0, count)).map(makeObject)
    }

    /// An offset in a query made up by `sorted`/`distinct` means nothing to the caller.
    private static func withoutOffset(_ message: String) -> String {
        guard let r = message.range(of: " at offset ", options: .backwards) else { return message }
        return String(message[..<r.lowerBound])
    }

    // MARK: notifications

    /// Calls `block` with `.initial`, then `.update` with exact indices after every change that
    /// affects these objects: a commit here, in another thread or process (delivered when the
    /// realm refreshes: `refresh()`, its own commits, or autorefresh on a queue).
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (RealmCollectionChange<DynamicResults>) -> Void) -> NotificationToken {
        core.realm.verifyThread()
        let core = self.core
        return core.realm.observeCollection(
            tables: { core.dependencies() },
            keys: { try core.evaluateKeys() },
            modifiedColumns: { summary, key in try core.isModified(key, in: summary, keyPaths: keyPaths) },
            onChange: { d, i, m in block(.update(DynamicResults(core: core), deletions: d, insertions: i, modifications: m)) },
            onInitial: { block(.initial(DynamicResults(core: core))) },
            onError: { block(.error($0)) })
    }
}

/// Makes the objects of `DynamicResults` one at a time.
public struct DynamicResultsIterator: IteratorProtocol {
    let results: DynamicResults
    let keys: [ObjectKey]
    var index = 0

    public mutating func next() -> DynamicObject? {
        guard index < keys.count else { return nil }
        defer { index += 1 }
        return results.makeObject(keys[index])
    }
}

import Foundation
