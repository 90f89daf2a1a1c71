public import AtollStorage

/// Marks `LinkingObjects` for `@Persisted(originProperty:)` (an implementation detail).
public protocol _LinkingObjectsProtocol: PersistableValue {}

/// The objects that link to this one through a property:
/// `@Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>`. Live; empty for
/// unmanaged objects. Maintained from backlinks, so reading it costs one index range scan.
public struct LinkingObjects<Element: Object>: RandomAccessCollection, CustomStringConvertible {
    let results: Results<Element>?

    /// Empty linking objects, as an unmanaged object has.
    public init() { results = nil }
    init(results: Results<Element>) { self.results = results }

    /// The realm of the linked-to object; nil while it is unmanaged.
    public var realm: Realm? { results?.realm }
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    /// How many objects link here (one entry per link). O(number of backlinks).
    public var count: Int { results?.count ?? 0 }

    /// The linking object at `position` (a programming error when out of bounds).
    public subscript(position: Int) -> Element {
        guard let results else { atollProgrammerError("index \(position) out of bounds (an unmanaged object has no linking objects)") }
        return results[position]
    }

    /// Iterates the linking objects of the current version.
    public func makeIterator() -> IndexingIterator<[Element]> {
        guard let results else { return [Element]().makeIterator() }
        return Array(results).makeIterator()
    }

    /// A short description: the class and the count.
    public var description: String { "LinkingObjects<\(Element.className())> (\(count) objects)" }

    /// The linking objects matching a predicate, as live `Results`.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        guard let results else { atollProgrammerError("an unmanaged object has no linking objects to filter") }
        do { return try results.filter(throwing: predicateFormat, args) } catch { atollProgrammerError("invalid query: \(error)") }
    }

    /// The linking objects sorted by a property, as live `Results`.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        guard let results else { atollProgrammerError("an unmanaged object has no linking objects to sort") }
        return results.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The linking objects as live Results (for aggregates and notifications).
    public var asResults: Results<Element>? { results }
}

extension LinkingObjects: _LinkingObjectsProtocol {
    public static var _atollType: _PropertyType {
        _PropertyType(kind: .linkingObjects(ObjectIdentifier(Element.self)), isOptional: false, intBits: 64, objectType: Element.self)
    }

    public static func _atollDefault() -> LinkingObjects<Element> { LinkingObjects() }

    public static func _atollGet(_ a: _ManagedAccess) -> LinkingObjects<Element> {
        // A class the realm cannot give (no table in a read-only realm) binds as unavailable:
        // no object links from it.
        let origin = a.realm.requireBinding(for: Element.self)
        guard let property = a.property.originProperty,
              let index = origin.schema.index(of: property), origin.columns[index] >= 0,
              case let target = a.state.binding
        else { return LinkingObjects() }
        let core = ResultsCore(realm: a.realm, binding: origin, source: .linkingObjects(target: target, key: a.key, column: origin.columns[index]), query: nil)
        return LinkingObjects(results: Results(core: core))
    }

    public static func _atollFromStorage(_ value: StorageValue, realm: Realm?) -> LinkingObjects<Element>? { nil }

    public var _atollStorageValue: StorageValue? { nil }
}
