/// What `Results`, a `List` of objects and `LinkingObjects` have in common, for code that
/// works on any collection of objects (Realm's `RealmCollection`).
///
/// ```swift
/// func describe<C: RealmCollection>(_ collection: C) -> String {
///     "\(collection.count) \(collection.objectClassName) objects"
/// }
/// describe(realm.objects(Dog.self)); describe(person.dogs); describe(dog.owners)
/// ```
public protocol RealmCollection: RandomAccessCollection where Index == Int, Element: Object {
    /// The realm of the collection; nil for an unmanaged list.
    var realm: Realm? { get }
    /// The name of the objects' class.
    var objectClassName: String { get }
    /// True when the object owning the collection (a list's or linking objects') was deleted.
    var isInvalidated: Bool { get }
    /// Whether the collection is a frozen snapshot.
    var isFrozen: Bool { get }
    /// The position of `object`, or nil.
    func index(of object: Element) -> Int?
    /// The objects matching a predicate, as live `Results` in the collection's order.
    func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element>
    /// The objects sorted by a property, as live `Results`.
    func sorted(byKeyPath keyPath: String, ascending: Bool) -> Results<Element>
    /// The value of `key` for every object, in order.
    func value(forKey key: String) -> [Any?]
}

extension Results: RealmCollection {}

extension List: RealmCollection where Element: Object {}

extension List {
    /// The name of the elements' class or type.
    public var objectClassName: String {
        if let objectType = Element.self as? Object.Type { return objectType.className() }
        return String(describing: Element.self)
    }
}

extension LinkingObjects: RealmCollection {
    /// The name of the linking objects' class.
    public var objectClassName: String { Element.className() }

    /// True when the object these link to was deleted.
    public var isInvalidated: Bool { results?.isInvalidated ?? false }

    /// Whether these linking objects belong to a frozen object.
    public var isFrozen: Bool { results?.isFrozen ?? false }

    /// The position of `object`, or nil.
    public func index(of object: Element) -> Int? { results?.index(of: object) }
}
