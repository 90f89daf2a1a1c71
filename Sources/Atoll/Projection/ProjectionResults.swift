public import Dispatch

// `realm.objects(PersonView.self)` for a projection class: the objects of its root class, each
// shown through a new projection. Filtering, sorting and aggregates work on the root class's
// properties (as in RealmSwift), through the same `Results`, so queries, indexes and
// notifications are exactly those of `realm.objects(Person.self)`.

extension Realm {
    /// The objects of `P.Root`, as projections `P`, live.
    ///
    /// ```swift
    /// let views = realm.objects(PersonView.self).filter("lastName == %@", "Snow")
    /// ```
    public func objects<P: ProjectionObservable>(_ type: P.Type) -> ProjectionResults<P> {
        ProjectionResults(base: objects(P.Root.self))
    }
}

/// Live results of projections (what `realm.objects(_:)` returns for a projection class): the
/// objects of live `Results` of the root class, each as a projection.
///
/// Unlike RealmSwift, whose `Results` holds projections too, this is a type of its own; it has
/// the `Results` operations projections use. Write `ProjectionResults<PersonView>` where
/// RealmSwift code names `Results<PersonView>`.
public struct ProjectionResults<Element: ProjectionObservable>: RandomAccessCollection, CustomStringConvertible {
    /// The results of the root class this shows.
    public let base: Results<Element.Root>

    init(base: Results<Element.Root>) { self.base = base }

    public var startIndex: Int { 0 }
    public var endIndex: Int { base.count }
    /// The number of objects.
    public var count: Int { base.count }

    /// A projection of the object at `position`.
    public subscript(position: Int) -> Element { Element(projecting: base[position]) }

    /// The realm of the results.
    public var realm: Realm? { base.realm }
    /// Whether these are frozen results.
    public var isFrozen: Bool { base.isFrozen }
    /// True when the realm was invalidated.
    public var isInvalidated: Bool { base.isInvalidated }

    /// The position of the object `projection` shows, or nil.
    public func index(of projection: Element) -> Int? { base.index(of: projection.rootObject) }

    /// The projections of the objects matching a predicate over the root class's properties.
    public func filter(_ predicateFormat: String, _ args: Any...) -> ProjectionResults {
        do { return ProjectionResults(base: try base.filter(throwing: predicateFormat, args)) } catch {
            atollProgrammerError("invalid query: \(error)")
        }
    }

    /// `filter(_:_:)`, throwing `AtollError.invalidQuery` for an invalid predicate.
    public func filter(throwing predicateFormat: String, _ args: Any...) throws -> ProjectionResults {
        ProjectionResults(base: try base.filter(throwing: predicateFormat, args))
    }

    /// The projections of the objects matching a type-safe query of the root class.
    public func `where`(_ isIncluded: (Query<Element.Root>) -> Query<Bool>) -> ProjectionResults {
        ProjectionResults(base: base.where(isIncluded))
    }

    /// Sorted by a property of the root class.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> ProjectionResults {
        ProjectionResults(base: base.sorted(byKeyPath: keyPath, ascending: ascending))
    }

    /// Sorted by properties of the root class.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> ProjectionResults where S.Element == SortDescriptor {
        ProjectionResults(base: base.sorted(by: sortDescriptors))
    }

    /// The first object of each distinct combination of the root class's properties.
    public func distinct<S: Sequence>(by keyPaths: S) -> ProjectionResults where S.Element == String {
        ProjectionResults(base: base.distinct(by: keyPaths))
    }

    /// Frozen results: projections of frozen objects.
    public func freeze() -> ProjectionResults { ProjectionResults(base: base.freeze()) }

    /// Live results for frozen ones, or nil.
    public func thaw() -> ProjectionResults? { base.thaw().map { ProjectionResults(base: $0) } }

    /// Calls `block` like `Results.observe`, with these projection results. Without `keyPaths`,
    /// an object counts as modified when a property its projection shows changed (the stored
    /// paths of the `@Projected` key paths); `keyPaths` are stored paths of the root class.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (RealmCollectionChange<ProjectionResults>) -> Void) -> NotificationToken {
        let paths = keyPaths ?? ProjectionSchemaCache.schema(of: Element(projecting: Element.Root())).flatMap(\.originPaths)
        return base.observe(keyPaths: paths, on: queue) { change in
            switch change {
            case .initial(let r): block(.initial(ProjectionResults(base: r)))
            case .update(let r, let d, let i, let m): block(.update(ProjectionResults(base: r), deletions: d, insertions: i, modifications: m))
            case .error(let e): block(.error(e))
            }
        }
    }

    public var description: String { "ProjectionResults<\(Element.self)> (\(count) objects)" }
}
