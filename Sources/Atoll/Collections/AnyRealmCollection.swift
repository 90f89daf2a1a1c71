public import Foundation
public import Dispatch

/// A type-erased collection of objects: `Results`, a `List` or `LinkingObjects` behind one
/// type, as RealmSwift's `AnyRealmCollection`.
///
/// ```swift
/// let dogs: AnyRealmCollection<Dog> = useList ? AnyRealmCollection(person.dogs) : AnyRealmCollection(realm.objects(Dog.self))
/// print(dogs.filter("age > 2").count)
/// ```
/// Every operation forwards to the wrapped collection, with its costs.
public struct AnyRealmCollection<Element: Object>: RealmCollection, CustomStringConvertible, ThreadConfined {
    enum Base {
        case results(Results<Element>)
        case list(List<Element>)
        case linkingObjects(LinkingObjects<Element>)
    }

    let base: Base

    /// Wraps `base`: `Results`, `List`, `LinkingObjects` or another `AnyRealmCollection` of the
    /// same objects.
    public init<C: RealmCollection>(_ base: C) where C.Element == Element {
        switch base {
        case let r as Results<Element>: self.base = .results(r)
        case let l as List<Element>: self.base = .list(l)
        case let o as LinkingObjects<Element>: self.base = .linkingObjects(o)
        case let a as AnyRealmCollection<Element>: self.base = a.base
        default: atollProgrammerError("AnyRealmCollection wraps Results, List and LinkingObjects; \(C.self) is none of them")
        }
    }

    init(base: Base) { self.base = base }

    // MARK: collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The number of objects.
    public var count: Int {
        switch base {
        case .results(let r): r.count
        case .list(let l): l.count
        case .linkingObjects(let o): o.count
        }
    }

    /// The object at `position`.
    public subscript(position: Int) -> Element {
        switch base {
        case .results(let r): r[position]
        case .list(let l): l[position]
        case .linkingObjects(let o): o[position]
        }
    }

    /// Iterates the objects of the current version.
    public func makeIterator() -> IndexingIterator<[Element]> {
        switch base {
        case .results(let r): Array(r).makeIterator()
        case .list(let l): Array(l).makeIterator()
        case .linkingObjects(let o): Array(o).makeIterator()
        }
    }

    /// `AnyRealmCollection<Class> (n objects)`.
    public var description: String { "AnyRealmCollection<\(Element.className())> (\(count) objects)" }

    // MARK: properties

    public var realm: Realm? {
        switch base {
        case .results(let r): r.realm
        case .list(let l): l.realm
        case .linkingObjects(let o): o.realm
        }
    }

    public var objectClassName: String { Element.className() }

    public var isInvalidated: Bool {
        switch base {
        case .results(let r): r.isInvalidated
        case .list(let l): l.isInvalidated
        case .linkingObjects(let o): o.isInvalidated
        }
    }

    public var isFrozen: Bool {
        switch base {
        case .results(let r): r.isFrozen
        case .list(let l): l.isFrozen
        case .linkingObjects(let o): o.isFrozen
        }
    }

    // MARK: finding

    public func index(of object: Element) -> Int? {
        switch base {
        case .results(let r): r.index(of: object)
        case .list(let l): l.index(of: object)
        case .linkingObjects(let o): o.index(of: object)
        }
    }

    /// The position of the first object matching a predicate, or nil.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        switch base {
        case .results(let r): r.index(matchingQuery: predicateFormat, args)
        case .list(let l): l.asResults.index(matchingQuery: predicateFormat, args)
        case .linkingObjects(let o): o.results?.index(matchingQuery: predicateFormat, args)
        }
    }

    /// The position of the first object for which `isIncluded` is true, or nil.
    public func index(matching isIncluded: (Element) throws -> Bool) rethrows -> Int? { try firstIndex(where: isIncluded) }

    /// The objects at `indexes`, in index order.
    public func objects(at indexes: IndexSet) -> [Element] {
        switch base {
        case .results(let r): r.objects(at: indexes)
        case .list(let l): l.objects(at: indexes)
        case .linkingObjects(let o): o.objects(at: indexes)
        }
    }

    // MARK: filtering and sorting

    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        do { return try asResults.filter(throwing: predicateFormat, args) } catch { atollProgrammerError("invalid query: \(error)") }
    }

    /// The objects sorted by the property at `keyPath`.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        asResults.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The objects sorted by `descriptors`, the first deciding first.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        asResults.sorted(by: descriptors)
    }

    /// The first object of each distinct combination of values at `keyPaths`.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        asResults.distinct(by: keyPaths)
    }

    /// The objects as live `Results` (lists and linking objects of a realm only).
    private var asResults: Results<Element> {
        switch base {
        case .results(let r): return r
        case .list(let l): return l.asResults
        case .linkingObjects(let o):
            guard let r = o.asResults else { atollProgrammerError("an unmanaged object has no linking objects to query") }
            return r
        }
    }

    // MARK: aggregates

    /// The smallest value of `property` over the objects, or nil when there is none.
    public func min<T: PersistableValue>(ofProperty property: String) -> T? {
        switch base {
        case .results(let r): r.min(ofProperty: property)
        case .list(let l): l.min(ofProperty: property)
        case .linkingObjects(let o): o.min(ofProperty: property)
        }
    }

    /// The largest value of `property` over the objects, or nil when there is none.
    public func max<T: PersistableValue>(ofProperty property: String) -> T? {
        switch base {
        case .results(let r): r.max(ofProperty: property)
        case .list(let l): l.max(ofProperty: property)
        case .linkingObjects(let o): o.max(ofProperty: property)
        }
    }

    /// The sum of `property` over the objects (zero when there are none).
    public func sum<T: PersistableValue & AdditiveArithmetic>(ofProperty property: String) -> T {
        switch base {
        case .results(let r): r.sum(ofProperty: property)
        case .list(let l): l.sum(ofProperty: property)
        case .linkingObjects(let o): o.sum(ofProperty: property)
        }
    }

    /// The mean of `property` over the objects, or nil when there are none.
    public func average<T: BinaryFloatingPoint>(ofProperty property: String) -> T? {
        switch base {
        case .results(let r): r.average(ofProperty: property)
        case .list(let l): l.average(ofProperty: property)
        case .linkingObjects(let o): o.average(ofProperty: property)
        }
    }

    // MARK: key-value coding

    /// Key-value coding: the value of `key` of every object.
    public func value(forKey key: String) -> [Any?] {
        switch base {
        case .results(let r): r.value(forKey: key)
        case .list(let l): l.value(forKey: key)
        case .linkingObjects(let o): o.value(forKey: key)
        }
    }

    /// Key-value coding: the values at `keyPath`, or a collection operator's result (`@count`, `@max.age`).
    public func value(forKeyPath keyPath: String) -> Any? {
        switch base {
        case .results(let r): r.value(forKeyPath: keyPath)
        case .list(let l): l.value(forKeyPath: keyPath)
        case .linkingObjects(let o): o.value(forKeyPath: keyPath)
        }
    }

    /// Sets `key` to `value` on every object (inside a write transaction).
    public func setValue(_ value: Any?, forKey key: String) {
        switch base {
        case .results(let r): r.setValue(value, forKey: key)
        case .list(let l): l.setValue(value, forKey: key)
        case .linkingObjects(let o): o.setValue(value, forKey: key)
        }
    }

    // MARK: freezing

    /// A frozen snapshot of the collection at its current version.
    public func freeze() -> AnyRealmCollection<Element> {
        switch base {
        case .results(let r): AnyRealmCollection(base: .results(r.freeze()))
        case .list(let l): AnyRealmCollection(base: .list(l.freeze()))
        case .linkingObjects(let o): AnyRealmCollection(base: .linkingObjects(o.freeze()))
        }
    }

    /// The live collection for a frozen one (nil when its owner was deleted since).
    public func thaw() -> AnyRealmCollection<Element>? {
        switch base {
        case .results(let r): r.thaw().map { AnyRealmCollection(base: .results($0)) }
        case .list(let l): l.thaw().map { AnyRealmCollection(base: .list($0)) }
        case .linkingObjects(let o): o.thaw().map { AnyRealmCollection(base: .linkingObjects($0)) }
        }
    }

    // MARK: notifications

    /// Calls `block` with `.initial`, then `.update` after every change of the wrapped
    /// collection (see `Results.observe`).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<AnyRealmCollection<Element>>) -> Void) -> NotificationToken {
        switch base {
        case .results(let r): return r.observe(keyPaths: keyPaths, on: queue) { block($0.map { AnyRealmCollection(base: .results($0)) }) }
        case .list(let l): return l.observe(keyPaths: keyPaths, on: queue) { block($0.map { AnyRealmCollection(base: .list($0)) }) }
        case .linkingObjects(let o): return o.observe(keyPaths: keyPaths, on: queue) { block($0.map { AnyRealmCollection(base: .linkingObjects($0)) }) }
        }
    }
}

extension AnyRealmCollection: Equatable {
    /// The same wrapped collection (see the equality of `Results`, `List` and `LinkingObjects`).
    public static func == (lhs: AnyRealmCollection<Element>, rhs: AnyRealmCollection<Element>) -> Bool {
        switch (lhs.base, rhs.base) {
        case (.results(let a), .results(let b)): a == b
        case (.list(let a), .list(let b)): a == b
        case (.linkingObjects(let a), .linkingObjects(let b)): a == b
        default: false
        }
    }
}

extension RealmCollectionChange {
    /// The same change with the collection transformed.
    func map<U>(_ transform: (CollectionType) -> U) -> RealmCollectionChange<U> {
        switch self {
        case .initial(let c): .initial(transform(c))
        case .update(let c, let d, let i, let m): .update(transform(c), deletions: d, insertions: i, modifications: m)
        case .error(let e): .error(e)
        }
    }
}

extension AnyRealmCollection: ThreadSafeDescribable, ThreadSafeResolvable {
    var threadSafePayload: ThreadSafePayload? {
        switch base {
        case .results(let r): r.threadSafePayload
        case .list(let l): l.threadSafePayload
        case .linkingObjects(let o): o.threadSafePayload
        }
    }

    static func resolve(_ payload: ThreadSafePayload, in realm: Realm) -> AnyRealmCollection<Element>? {
        switch payload {
        case .list: List<Element>.resolve(payload, in: realm).map { AnyRealmCollection(base: .list($0)) }
        case .results: Results<Element>.resolve(payload, in: realm).map { AnyRealmCollection(base: .results($0)) }
        case .object: nil
        }
    }
}
