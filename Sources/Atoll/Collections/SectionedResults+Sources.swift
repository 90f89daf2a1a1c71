public import Dispatch

// Making sectioned results from lists and sets of values and from projections, and observing
// any sectioned results by key path. Objects of `Results`, `List`, `MutableSet` and
// `LinkingObjects` are sectioned by the `RealmCollection` methods in SectionedResults.swift.

// MARK: - Lists and sets of values

extension List {
    // Disfavoured so that `dogs.sectioned(by: \.name, ascending: true)` on a list of objects
    // keeps meaning the key-path form of `RealmCollection` (a key path literal also converts to
    // this block).

    /// The values sorted by value (`ascending`) and grouped by the key `block` computes for
    /// each one, live: RealmSwift's `sectioned(by:ascending:)` on collections of values.
    ///
    /// ```swift
    /// let byLetter = person.nicknames.sectioned(by: { String($0.first!) }, ascending: true)
    /// ```
    /// The list must be managed; a list of objects is sectioned by a key path or with sort
    /// descriptors instead (sorting objects by themselves is a programming error, as in
    /// RealmSwift). Observation reports index paths in the sorted sections; a value that is
    /// replaced is a deletion and an insertion.
    @_disfavoredOverload
    public func sectioned<Key: Hashable>(by block: @escaping (Element) -> Key, ascending: Bool = true) -> SectionedResults<Key, Element> {
        guard let m = managed else { atollProgrammerError("only a managed List can be sectioned; add its object to a realm first") }
        m.realm.verifyThread()
        return ValueSectionSource<Element>.sectioned(ManagedCollection(realm: m.realm, owner: m.owner, key: m.key, column: m.column),
                                                     ascending: ascending, block)
    }
}

extension MutableSet {
    // Disfavoured for the reason given at `List.sectioned(by:ascending:)`.

    /// The values sorted by value (`ascending`) and grouped by the key `block` computes for
    /// each one, live, as `List.sectioned(by:ascending:)`. The set must be managed.
    @_disfavoredOverload
    public func sectioned<Key: Hashable>(by block: @escaping (Element) -> Key, ascending: Bool = true) -> SectionedResults<Key, Element> {
        guard let m = managed else { atollProgrammerError("only a managed MutableSet can be sectioned; add its object to a realm first") }
        m.realm.verifyThread()
        return ValueSectionSource<Element>.sectioned(m, ascending: ascending, block)
    }
}

extension ValueSectionSource {
    /// Sectioned results over the values of `collection`.
    static func sectioned<Key: Hashable>(_ collection: ManagedCollection, ascending: Bool,
                                         _ block: @escaping (E) -> Key) -> SectionedResults<Key, E> {
        if case .link = E._atollType.kind {
            atollProgrammerError("cannot sort a collection of objects by 'self': section '\(collection.owner.schema.className).\(collection.propertyName)' by a key path or with sort descriptors")
        }
        return SectionedResults(core: SectionedCore(source: ValueSectionSource(collection: collection, ascending: ascending), sectionKey: block))
    }
}

// MARK: - Projections

extension ProjectionResults {
    /// The projections sorted by the stored property the key path reads and grouped by the key
    /// path's value: `views.sectioned(by: \.firstLetter)`, as for objects.
    public func sectioned<Key: Hashable>(by keyPath: KeyPath<Element, Key>, ascending: Bool = true) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: [SortDescriptor(keyPath: Self.storedName(keyPath), ascending: ascending)]) { $0[keyPath: keyPath] }
    }

    /// The projections sorted by `sortDescriptors` (properties of the root class), the first of
    /// which must be the stored property the key path reads, and grouped by the key path's value.
    public func sectioned<Key: Hashable>(by keyPath: KeyPath<Element, Key>, sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        guard let first = sortDescriptors.first else { atollProgrammerError("cannot section results with no sort descriptors") }
        guard Self.storedName(keyPath) == first.keyPath else {
            atollProgrammerError("the section key path must match the primary sort descriptor ('\(first.keyPath)')")
        }
        return sectioned(sortDescriptors: sortDescriptors) { $0[keyPath: keyPath] }
    }

    /// The projections sorted by `sortDescriptors` (properties of the root class) and grouped by
    /// the key `block` computes for each one. The primary sort descriptor should determine the
    /// key, so sections are contiguous.
    public func sectioned<Key: Hashable>(by block: @escaping (Element) -> Key, sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        guard !sortDescriptors.isEmpty else { atollProgrammerError("cannot section results with no sort descriptors") }
        return sectioned(sortDescriptors: sortDescriptors, block)
    }

    private func sectioned<Key: Hashable>(sortDescriptors: [SortDescriptor], _ block: @escaping (Element) -> Key) -> SectionedResults<Key, Element> {
        SectionedResults(core: SectionedCore(source: ProjectionSectionSource<Element>(base: base.sorted(by: sortDescriptors)), sectionKey: block))
    }

    /// The stored property path of the root class a key path of the projection reads
    /// (`\.firstLetter` reading the projected `stringCol`: `"stringCol"`).
    private static func storedName(_ keyPath: PartialKeyPath<Element>) -> String {
        KeyPathRecorder.names(keyPath, from: Element.Root.self) { root in _ = Element(projecting: root)[keyPath: keyPath] }
            .joined(separator: ".")
    }
}

// MARK: - Observing by key path

extension SectionedResults where SectionElement: Object {
    /// `observe(keyPaths:on:_:)` with key paths (`[\.name]`).
    public func observe(keyPaths: [PartialKeyPath<SectionElement>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { KeyPathRecorder.name($0) }, on: queue, block)
    }
}

extension ResultsSection where T: Object {
    /// `observe(keyPaths:on:_:)` with key paths (`[\.name]`).
    public func observe(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { KeyPathRecorder.name($0) }, on: queue, block)
    }
}

extension SectionedResults where SectionElement: ProjectionObservable {
    /// `observe(keyPaths:on:_:)` with key paths of the projection (`[\DogView.ownerName]`), each
    /// meaning the stored paths its `@Projected` key path reads.
    public func observe(keyPaths: [PartialKeyPath<SectionElement>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void) -> NotificationToken {
        observe(keyPaths: projectedStoredPaths(keyPaths), on: queue, block)
    }
}

extension ResultsSection where T: ProjectionObservable {
    /// `observe(keyPaths:on:_:)` with key paths of the projection, as for `SectionedResults`.
    public func observe(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void) -> NotificationToken {
        observe(keyPaths: projectedStoredPaths(keyPaths), on: queue, block)
    }
}

/// The stored paths of the root class that key paths of a projection read.
private func projectedStoredPaths<P: ProjectionObservable>(_ keyPaths: [PartialKeyPath<P>]) -> [String] {
    keyPaths.flatMap { keyPath in
        KeyPathRecorder.paths(keyPath, from: P.Root.self) { root in _ = P(projecting: root)[keyPath: keyPath] }
    }
}
