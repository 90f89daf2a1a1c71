import AtollStorage
import AtollQuery
import Foundation

/// What live results need to know of the class whose objects they hold: a model class bound
/// to its table (`ClassBinding`), or a class known only by name (`DynamicClass`, the dynamic API).
protocol ResultsClass {
    var tableKey: TableKey { get }
    var className: String { get }
    /// The table column of a property (nil: no such stored property).
    func column(ofProperty name: String, in transaction: Transaction) -> Int?
    /// Whether query arguments may be written as in data files (DataFileArgumentSchema).
    static var acceptsDataFileArguments: Bool { get }
}

extension ClassBinding: ResultsClass {
    var className: String { schema.className }
    func column(ofProperty name: String, in transaction: Transaction) -> Int? {
        guard let i = schema.index(of: name), columns[i] >= 0 else { return nil }
        return columns[i]
    }
    static var acceptsDataFileArguments: Bool { false }
}

/// Where the objects of results come from.
enum ResultsSource {
    /// Every object of the class.
    case table
    /// The objects of a list property of one object, in list order.
    case list(owner: ClassBinding, key: ObjectKey, column: Int)
    /// The objects (of this results' class) whose `column` links to `key` of `target`.
    case linkingObjects(target: ClassBinding, key: ObjectKey, column: Int)
    /// A fixed set of keys (frozen results resolved elsewhere).
    case keys([ObjectKey])
}

/// The live state behind `Results` and `DynamicResults`: where the objects come from, the query
/// over them, and the keys of the last evaluation (recomputed when the realm's state has changed).
final class ResultsCore<Class: ResultsClass> {
    typealias Source = ResultsSource

    let realm: Realm
    let binding: Class
    let source: Source
    let query: BoundQuery?
    private var cached: [ObjectKey]?
    private var cachedStamp: UInt64 = 0
    private var cachedMutation: UInt64 = 0

    init(realm: Realm, binding: Class, source: Source, query: BoundQuery?) {
        self.realm = realm
        self.binding = binding
        self.source = source
        self.query = query
    }

    func with(query newQuery: BoundQuery) -> ResultsCore {
        let combined = query.map { $0.combined(with: newQuery) } ?? newQuery
        return ResultsCore(realm: realm, binding: binding, source: source, query: combined)
    }

    private var engine: QueryEngine { QueryEngine(transaction: realm.transaction) }

    /// Binds a predicate (with optional trailing clauses) for this results' class.
    func bind(_ predicate: String, _ arguments: [Any]) throws -> BoundQuery {
        try engine.bind(predicate, on: binding.className, arguments: arguments.map { try queryArgument($0, realm: realm) },
                        dataFileArguments: Class.acceptsDataFileArguments)
    }


    private var isFresh: Bool {
        cached != nil && cachedStamp == realm.stamp && cachedMutation == (realm.writeTransaction?.mutationCount ?? 0)
    }

    /// The table of the class in the realm's current state, or nil when this state has none
    /// (a class a read-only or frozen realm cannot give: no objects). Throws only when the
    /// file cannot be read.
    func tableIfPresent() throws -> Table? {
        let transaction = realm.transaction
        guard transaction.spec(of: binding.tableKey) != nil else { return nil }
        return try transaction.table(binding.tableKey)
    }

    /// The candidate keys of the source (nil: the whole table).
    private func sourceKeys() throws -> [ObjectKey]? {
        switch source {
        case .table: return nil
        case .keys(let keys): return keys
        case .list(let owner, let key, let column):
            // The list of a deleted object (or of a class without a table) has no elements.
            guard let t = try realm.tableIfPresent(owner), t.spec.columns.indices.contains(column), let row = try t.locate(key) else { return [] }
            return try t.list(row, column).values.compactMap { if case .link(let k) = $0 { k } else { nil } }
        case .linkingObjects(let target, let key, let column):
            guard let t = try realm.tableIfPresent(target) else { return [] }
            return try t.backlinks(to: key, from: binding.tableKey, column: column)
        }
    }

    private let frozenLock = NSLock()

    /// What the results are, for the message of a failed read.
    var readDescription: String { query == nil ? "the objects of '\(binding.className)'" : "the '\(binding.className)' objects matching a query" }

    /// The keys of the objects, in results order. Stops the program when they cannot be read
    /// (README, "Failed reads"); `evaluateKeys()` throws instead.
    func keys() -> [ObjectKey] {
        do { return try evaluateKeys() } catch { realm.readFailed(error, reading: readDescription) }
    }

    /// The keys of the objects, in results order; throws when the file cannot be read.
    func evaluateKeys() throws -> [ObjectKey] {
        if realm.isFrozen {
            frozenLock.lock()
            defer { frozenLock.unlock() }
            return try computeKeys()
        }
        return try computeKeys()
    }

    private func computeKeys() throws -> [ObjectKey] {
        if isFresh, let cached { return cached }
        if !realm.isFrozen { realm.queryEvaluations &+= 1 }
        let keys: [ObjectKey]
        if let table = try tableIfPresent() {
            let candidates = try sourceKeys()
            if let query {
                keys = try engine.run(query, candidates: candidates)
            } else {
                keys = try candidates ?? table.objectKeys()
            }
        } else {
            keys = []
        }
        cached = keys
        cachedStamp = realm.stamp
        cachedMutation = realm.writeTransaction?.mutationCount ?? 0
        return keys
    }

    /// The number of objects. Stops the program when it cannot be read; `evaluateCount()`
    /// throws instead.
    var count: Int {
        do { return try evaluateCount() } catch { realm.readFailed(error, reading: readDescription) }
    }

    /// The number of objects; throws when the file cannot be read.
    func evaluateCount() throws -> Int {
        if realm.isFrozen { return try evaluateKeys().count }
        if isFresh, let cached { return cached.count }
        if case .table = source {
            guard let table = try tableIfPresent() else { return 0 }
            guard let query else { return table.count }
            if query.clauses.isEmpty { return try engine.count(query) }
        }
        return try evaluateKeys().count
    }

    /// The key at `index` in results order, or nil when out of bounds. Stops the program when
    /// it cannot be read.
    func key(at index: Int) -> ObjectKey? {
        do {
            if case .table = source, query == nil, !isFresh, !realm.isFrozen {
                return try tableIfPresent()?.objectKey(at: index)
            }
            let k = try evaluateKeys()
            return index >= 0 && index < k.count ? k[index] : nil
        } catch {
            realm.readFailed(error, reading: readDescription)
        }
    }
}

/// A query argument as the query engine takes it: an object becomes a reference to its key, a
/// collection of objects (Results, List, LinkingObjects, an array) an array of references, and
/// everything else stays as it is. An unmanaged object matches nothing, as in RealmSwift; an
/// object of another realm is an invalid argument (RealmSwift raises).
func queryArgument(_ a: Any, realm: Realm) throws -> Any {
    guard let value = flattenOptional(a) else { return a }
    if let e = value as? any _AtollRawValued { return e._atollRawValue }
    if let v = value as? AnyRealmValue { return v.queryArgument }
    if let o = instance(value, of: Object.self) { return try reference(to: o, in: realm) }
    if let o = instance(value, of: DynamicObject.self) {
        guard o.context.transaction.database === realm.database else { throw foreignObjectArgument(o.className) }
        return ManagedReference(className: o.className, key: o.key.rawValue)
    }
    if let array = value as? [Any] { return try array.map { try queryArgument($0, realm: realm) } }
    if let results = value as? DynamicResults { return try results.map { try queryArgument($0, realm: realm) } }
    if let collection = value as? any _ObjectCollection { return try collection._objects.map { try reference(to: $0, in: realm) } }
    return a
}

private func reference(to object: Object, in realm: Realm) throws -> ManagedReference {
    let className = object.objectSchema.className
    guard let m = object._managed else { return ManagedReference(className: className, key: try absentKey(className, realm)) }
    guard realm.owns(m) else { throw foreignObjectArgument(className) }
    return ManagedReference(className: className, key: m.key.rawValue)
}

private func foreignObjectArgument(_ className: String) -> AtollError {
    AtollError(.invalidQuery, "a '\(className)' object of another Realm cannot be a query argument; pass an object of the Realm being queried")
}

/// A key no object of the class has (for an unmanaged object: `==` matches nothing, `!=`
/// everything).
private func absentKey(_ className: String, _ realm: Realm) throws -> UInt64 {
    var key = UInt64.max
    guard let tableKey = realm.transaction.tableKey(named: className) else { return key }
    let table = try realm.transaction.table(tableKey)
    while try table.contains(ObjectKey(key)) { key -= 1 }
    return key
}

/// A managed object passed as a query argument.
struct ManagedReference: QueryObjectReference {
    let className: String
    let key: UInt64
    var queryClassName: String { className }
    var queryObjectKey: UInt64 { key }
}
