import AtollStorage
import AtollQuery

// What sectioned results section: a live, ordered source of elements. `SectionedCore` groups
// the elements of one evaluation by their key, diffs two evaluations and observes the realm;
// it knows nothing of what an element is. Three sources exist:
//
// - `ObjectSectionSource`: the objects of sorted `Results` (`results.sectioned(by: \.firstLetter)`);
// - `ProjectionSectionSource`: the same objects, each shown as a projection
//   (`realm.objects(DogView.self).sectioned(by: \.firstLetter)`);
// - `ValueSectionSource`: the values of a managed `List` or `MutableSet` of values, sorted by
//   value (`tags.sectioned(by: { $0.first! }, ascending: true)`), as RealmSwift sorts by "self".
//
// Each element of an evaluation has an identity, a `StorageValue`: an object's link, or a value
// itself. Diffing matches identities between evaluations (the n-th occurrence of a value with
// the n-th, so duplicates in a list stay distinct), which gives objects their moves and
// modifications and values their insertions and deletions (a value changes only by being
// removed and another inserted, so it is never "modified").

/// A live, ordered collection that sectioned results group.
protocol SectionSource<Element> {
    associatedtype Element

    /// The realm the source reads.
    var realm: Realm { get }
    /// True when the object owning the source (a list's, a set's) was deleted.
    var isInvalidated: Bool { get }
    /// The source in a frozen realm at the current version.
    func freeze() -> Self
    /// The source in the calling thread's live realm, or nil when its owner is gone there.
    func thaw() -> Self?
    /// The source in another realm of the same file (delivery on a queue).
    func rebased(on other: Realm) throws -> Self
    /// The identities of the elements in order, in the realm's current state.
    func evaluate() -> [StorageValue]
    /// The element an identity of the current evaluation stands for.
    func element(_ identity: StorageValue) -> Element
    /// Tables whose commits can change the source.
    func dependencies() -> Set<TableKey>
    /// Whether the element `identity` changed in place (limited to `keyPaths` when given).
    func isModified(_ identity: StorageValue, in summary: ChangeSummary, keyPaths: [String]?) throws -> Bool
}

/// The objects of sorted live results.
struct ObjectSectionSource<T: Object>: SectionSource {
    let base: Results<T>

    var realm: Realm { base.core.realm }
    var isInvalidated: Bool { base.isInvalidated }
    func freeze() -> ObjectSectionSource { ObjectSectionSource(base: base.freeze()) }
    func thaw() -> ObjectSectionSource? { base.thaw().map { ObjectSectionSource(base: $0) } }
    func rebased(on other: Realm) throws -> ObjectSectionSource { ObjectSectionSource(base: Results(core: try base.core.rebased(on: other))) }
    func evaluate() -> [StorageValue] { base.core.keys().map { .link($0) } }

    func element(_ identity: StorageValue) -> T {
        guard case .link(let key) = identity else { atollProgrammerError("sectioned objects hold links, not \(identity)") }
        return realm.makeObject(T.self, key: key, binding: base.core.binding)
    }

    func dependencies() -> Set<TableKey> { base.core.dependencies() }

    func isModified(_ identity: StorageValue, in summary: ChangeSummary, keyPaths: [String]?) throws -> Bool {
        guard case .link(let key) = identity else { return false }
        return try base.core.isModified(key, in: summary, keyPaths: keyPaths)
    }
}

/// The objects of sorted live results, each as a projection `P`. Without key paths, an object
/// counts as modified when a property its projection shows changed (as for `ProjectionResults`).
struct ProjectionSectionSource<P: ProjectionObservable>: SectionSource {
    let objects: ObjectSectionSource<P.Root>
    /// The stored paths the projection's properties read.
    let projectedPaths: [String]

    init(base: Results<P.Root>) {
        objects = ObjectSectionSource(base: base)
        projectedPaths = ProjectionSchemaCache.schema(of: P(projecting: P.Root())).flatMap(\.originPaths)
    }

    private init(objects: ObjectSectionSource<P.Root>, projectedPaths: [String]) {
        self.objects = objects
        self.projectedPaths = projectedPaths
    }

    var realm: Realm { objects.realm }
    var isInvalidated: Bool { objects.isInvalidated }
    func freeze() -> ProjectionSectionSource { ProjectionSectionSource(objects: objects.freeze(), projectedPaths: projectedPaths) }
    func thaw() -> ProjectionSectionSource? { objects.thaw().map { ProjectionSectionSource(objects: $0, projectedPaths: projectedPaths) } }
    func rebased(on other: Realm) throws -> ProjectionSectionSource {
        ProjectionSectionSource(objects: try objects.rebased(on: other), projectedPaths: projectedPaths)
    }
    func evaluate() -> [StorageValue] { objects.evaluate() }
    func element(_ identity: StorageValue) -> P { P(projecting: objects.element(identity)) }
    func dependencies() -> Set<TableKey> { objects.dependencies() }
    func isModified(_ identity: StorageValue, in summary: ChangeSummary, keyPaths: [String]?) throws -> Bool {
        try objects.isModified(identity, in: summary, keyPaths: keyPaths ?? projectedPaths)
    }
}

/// The values of a managed list or set of values, sorted by value (stable: equal values keep
/// the collection's order).
struct ValueSectionSource<E: RealmCollectionValue>: SectionSource {
    let collection: ManagedCollection
    let ascending: Bool

    var realm: Realm { collection.realm }
    var isInvalidated: Bool { collection.isInvalidated }
    func freeze() -> ValueSectionSource { ValueSectionSource(collection: collection.frozen("collection"), ascending: ascending) }
    func thaw() -> ValueSectionSource? { collection.thawed().map { ValueSectionSource(collection: $0, ascending: ascending) } }
    func rebased(on other: Realm) throws -> ValueSectionSource {
        ValueSectionSource(collection: try collection.rebased(on: other), ascending: ascending)
    }

    func evaluate() -> [StorageValue] {
        let ascending = self.ascending
        return collection.storedValues().enumerated().sorted { a, b in
            let order = StorageValue.sortOrder(a.element, b.element)
            return order != 0 ? (ascending ? order < 0 : order > 0) : a.offset < b.offset
        }.map(\.element)
    }

    func element(_ identity: StorageValue) -> E { CollectionElement.element(identity, realm: realm) }
    func dependencies() -> Set<TableKey> { [collection.owner.tableKey] }
    func isModified(_ identity: StorageValue, in summary: ChangeSummary, keyPaths: [String]?) throws -> Bool { false }
}
