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
        try engine.bind(predicate, on: binding.className, arguments: arguments.map(queryArgument), dataFileArguments: Class.acceptsDataFileArguments)
    }


    private var isFresh: Bool {
        cached != nil && cachedStamp == realm.stamp && cachedMutation == (realm.writeTransaction?.mutationCount ?? 0)
    }

    /// The candidate keys of the source (nil: the whole table).
    private func sourceKeys() throws -> [ObjectKey]? {
        switch source {
        case .table: return nil
        case .keys(let keys): return keys
        case .list(let owner, let key, let column):
            let t = try realm.table(owner)
            guard t.spec.columns.indices.contains(column), try t.contains(key) else { return [] }
            return try t.listValues(key, column).compactMap { if case .link(let k) = $0 { k } else { nil } }
        case .linkingObjects(let target, let key, let column):
            return try realm.table(target).backlinks(to: key, from: binding.tableKey, column: column)
        }
    }

    private let frozenLock = NSLock()

    /// The keys of the objects, in results order.
    func keys() -> [ObjectKey] {
        if realm.isFrozen {
            frozenLock.lock()
            defer { frozenLock.unlock() }
            return computeKeys()
        }
        return computeKeys()
    }

    private func computeKeys() -> [ObjectKey] {
        if isFresh, let cached { return cached }
        if !realm.isFrozen { realm.queryEvaluations &+= 1 }
        let keys: [ObjectKey]
        do {
            let table = try realm.transaction.table(binding.tableKey)
            let candidates = try sourceKeys()
            if let query {
                keys = try engine.run(query, candidates: candidates)
            } else {
                keys = try candidates ?? table.objectKeys()
            }
        } catch {
            keys = []
        }
        cached = keys
        cachedStamp = realm.stamp
        cachedMutation = realm.writeTransaction?.mutationCount ?? 0
        return keys
    }

    var count: Int {
        if realm.isFrozen { return keys().count }
        if isFresh, let cached { return cached.count }
        if case .table = source {
            guard let table = try? realm.transaction.table(binding.tableKey) else { return 0 }
            guard let query else { return table.count }
            if query.clauses.isEmpty, let n = try? engine.count(query) { return n }
        }
        return keys().count
    }

    func key(at index: Int) -> ObjectKey? {
        if case .table = source, query == nil, !isFresh, !realm.isFrozen {
            return try? realm.transaction.table(binding.tableKey).objectKey(at: index)
        }
        let k = keys()
        return index >= 0 && index < k.count ? k[index] : nil
    }
}

/// Objects are passed to queries as references; everything else as is.
func queryArgument(_ a: Any) -> Any {
    if let e = flattenOptional(a) as? any _AtollRawValued { return e._atollRawValue }
    if let o = flattenOptional(a) as? Object, let m = o._managed {
        return ManagedReference(className: m.schema.className, key: m.key.rawValue)
    }
    if let o = flattenOptional(a) as? DynamicObject {
        return ManagedReference(className: o.className, key: o.key.rawValue)
    }
    if let array = a as? [Any] { return array.map(queryArgument) }
    return a
}

/// A managed object passed as a query argument.
struct ManagedReference: QueryObjectReference {
    let className: String
    let key: UInt64
    var queryClassName: String { className }
    var queryObjectKey: UInt64 { key }
}
