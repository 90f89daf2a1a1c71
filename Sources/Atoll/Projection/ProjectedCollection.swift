public import Dispatch

// Collections in projections (RealmSwift's `projectTo` and `ProjectedCollection`):
// `@Projected(\Person.friends.projectTo.firstName) var friendNames: ProjectedCollection<String>`
// shows, for each object of the list, the value of a key path. Live: it reads the list on every
// access, so it follows the list's changes and can be observed like it.

/// Maps the objects of a list to the value of a key path: `list.projectTo.name`.
@dynamicMemberLookup
public struct ElementMapper<Element: Object> {
    let list: List<Element>

    /// The value of `member` for each object of the list.
    public subscript<V>(dynamicMember member: KeyPath<Element, V>) -> ProjectedCollection<V> {
        ProjectedCollection(ListProjectionSource(list: list, keyPath: member))
    }
}

extension List where Element: Object {
    /// The list's objects mapped through a key path: `list.projectTo.name` is the names of the
    /// objects, as a live `ProjectedCollection`.
    public var projectTo: ElementMapper<Element> { ElementMapper(list: self) }
}

/// The values of a key path for each object of a list (see `List.projectTo`), in list order.
public struct ProjectedCollection<Element>: RandomAccessCollection, CustomStringConvertible {
    private let source: any ProjectionSource<Element>

    init(_ source: any ProjectionSource<Element>) { self.source = source }

    public var startIndex: Int { 0 }
    public var endIndex: Int { source.count }

    /// The value for the object at `position`.
    public subscript(position: Int) -> Element {
        guard position >= 0, position < source.count else {
            atollProgrammerError("index \(position) is out of bounds (count \(source.count))")
        }
        return source.element(at: position)
    }

    /// The realm of the list (nil when it is unmanaged).
    public var realm: Realm? { source.realm }
    /// Whether the list is frozen.
    public var isFrozen: Bool { source.realm?.isFrozen ?? false }
    /// True when the object owning the list was deleted.
    public var isInvalidated: Bool { source.isInvalidated }

    /// The same values over the frozen snapshot of the list.
    public func freeze() -> ProjectedCollection { ProjectedCollection(source.frozen()) }

    /// Calls `block` like the list's `observe(keyPaths:on:_:)`: with `.initial`, then with the
    /// positions deleted, inserted and modified in the list. `keyPaths` are properties of the
    /// list's objects.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<ProjectedCollection<Element>>) -> Void) -> NotificationToken {
        source.observe(keyPaths: keyPaths, on: queue) { change in
            switch change {
            case .initial(let s): block(.initial(ProjectedCollection(s)))
            case .update(let s, let d, let i, let m): block(.update(ProjectedCollection(s), deletions: d, insertions: i, modifications: m))
            case .error(let e): block(.error(e))
            }
        }
    }

    /// `ProjectedCollection<String> {\n\t[0] value\n}`, as RealmSwift writes it.
    public var description: String {
        let items = indices.map { "\t[\($0)] \(self[$0])" }
        return "ProjectedCollection<\(Element.self)> {\n" + items.joined(separator: "\n") + "\n}"
    }
}

/// Where a `ProjectedCollection` reads its values (a list mapped through a key path).
protocol ProjectionSource<Element> {
    associatedtype Element
    var count: Int { get }
    func element(at index: Int) -> Element
    var realm: Realm? { get }
    var isInvalidated: Bool { get }
    func frozen() -> any ProjectionSource<Element>
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (RealmCollectionChange<any ProjectionSource<Element>>) -> Void) -> NotificationToken
}

struct ListProjectionSource<Root: Object, Element>: ProjectionSource {
    let list: List<Root>
    let keyPath: KeyPath<Root, Element>

    var count: Int { list.count }
    func element(at index: Int) -> Element { list[index][keyPath: keyPath] }
    var realm: Realm? { list.realm }
    var isInvalidated: Bool { list.isInvalidated }
    func frozen() -> any ProjectionSource<Element> {
        list.realm == nil ? self : ListProjectionSource(list: list.freeze(), keyPath: keyPath)
    }
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (RealmCollectionChange<any ProjectionSource<Element>>) -> Void) -> NotificationToken {
        let keyPath = self.keyPath
        return list.observe(keyPaths: keyPaths, on: queue) { change in
            switch change {
            case .initial(let l): block(.initial(ListProjectionSource(list: l, keyPath: keyPath)))
            case .update(let l, let d, let i, let m):
                block(.update(ListProjectionSource(list: l, keyPath: keyPath), deletions: d, insertions: i, modifications: m))
            case .error(let e): block(.error(e))
            }
        }
    }
}
