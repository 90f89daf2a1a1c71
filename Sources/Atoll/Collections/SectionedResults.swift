import AtollStorage
public import Foundation

// Sectioned results (RealmSwift's `SectionedResults`): the elements of a sorted live source
// (the objects of `Results`, those objects as projections, or the values of a list or set of
// values; see SectionSource.swift), grouped by a key computed from each element. Sections follow
// the order of their first element; elements keep the source's order within a section.
// Everything is recomputed from the source when the realm's state has changed, and observation
// reports index paths and section sets.

/// Live results grouped into sections by a key: `results.sectioned(by: \.firstLetter)`.
///
/// ```swift
/// let byLetter = realm.objects(Dog.self).sectioned(by: { String($0.name.prefix(1)) },
///                                                   sortDescriptors: [SortDescriptor(keyPath: "name")])
/// for section in byLetter { print(section.key, section.count) }
/// let token = byLetter.observe { change in ... }   // SectionedResultsChange with index paths
/// ```
public struct SectionedResults<Key: Hashable, SectionElement>: RandomAccessCollection, Equatable {
    let core: SectionedCore<Key, SectionElement>

    public typealias Element = ResultsSection<Key, SectionElement>

    init(core: SectionedCore<Key, SectionElement>) { self.core = core }

    /// The realm of the results.
    public var realm: Realm? { core.source.realm }
    /// Whether these are frozen sectioned results.
    public var isFrozen: Bool { core.source.realm.isFrozen }
    /// True when the object owning the sectioned list or set was deleted (Atoll keeps results
    /// usable when the realm is invalidated; see the README).
    public var isInvalidated: Bool { core.source.isInvalidated }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    /// The number of sections.
    public var count: Int { core.current().keys.count }

    /// The section keys, in section order.
    public var allKeys: [Key] { core.current().keys }

    /// The section at `index`.
    public subscript(_ index: Int) -> ResultsSection<Key, SectionElement> {
        let keys = core.current().keys
        guard keys.indices.contains(index) else { atollProgrammerError("section \(index) is out of bounds (count \(keys.count))") }
        return ResultsSection(core: core, key: keys[index])
    }

    /// The element at `indexPath` (`section`, `item`).
    public subscript(_ indexPath: IndexPath) -> SectionElement {
        self[indexPath.section][indexPath.item]
    }

    /// The section with key `key`, or nil (an Atoll addition).
    public subscript(key key: Key) -> ResultsSection<Key, SectionElement>? {
        core.current().rowsByKey[key] == nil ? nil : ResultsSection(core: core, key: key)
    }

    /// An immutable snapshot, usable from any thread through its frozen realm.
    public func freeze() -> SectionedResults {
        isFrozen ? self : SectionedResults(core: core.with(source: core.source.freeze()))
    }

    /// Live sectioned results for frozen ones (the same query at the newest version), or nil.
    public func thaw() -> SectionedResults? {
        guard isFrozen else { return self }
        return core.source.thaw().map { SectionedResults(core: core.with(source: $0)) }
    }

    /// Calls `block` with `.initial`, then `.update` after every change of the sections: index
    /// paths of deleted (in the old sections), inserted and modified objects (in the new), and
    /// the sections inserted and deleted. An object whose section or row changes because it
    /// changed is a deletion and an insertion. `keyPaths` limits which properties count as
    /// modifications (section changes always count). A failed read of the database stops the
    /// observation (RealmSwift's `SectionedResultsChange` has no error case; nothing made up is
    /// delivered).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void) -> NotificationToken {
        core.observe(keyPaths: keyPaths, on: queue, onlyKey: nil) { core, change in
            block(change.map { _ in SectionedResults(core: core) })
        }
    }

    /// The same results and key.
    public static func == (a: SectionedResults, b: SectionedResults) -> Bool { a.core === b.core }
}

/// One section of `SectionedResults`: its key and its objects, live.
public struct ResultsSection<Key: Hashable, T>: RandomAccessCollection, Equatable, Identifiable {
    let core: SectionedCore<Key, T>
    /// The section's key.
    public let key: Key

    public typealias Element = T

    /// The section's key (`Identifiable`).
    public var id: Key { key }
    /// The realm of the elements.
    public var realm: Realm? { core.source.realm }
    /// Whether the section is frozen.
    public var isFrozen: Bool { core.source.realm.isFrozen }
    /// True when the object owning the sectioned list or set was deleted.
    public var isInvalidated: Bool { core.source.isInvalidated }

    private var rows: [Int] { core.current().rowsByKey[key] ?? [] }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    /// The number of objects in the section now (0 once it has none).
    public var count: Int { rows.count }

    /// The element at `index` in the section.
    public subscript(_ index: Int) -> T {
        let sections = core.current()
        let rows = sections.rowsByKey[key] ?? []
        guard rows.indices.contains(index) else { atollProgrammerError("index \(index) is out of bounds (count \(rows.count))") }
        return core.source.element(sections.identities[rows[index]])
    }

    /// An immutable snapshot of the section.
    public func freeze() -> ResultsSection {
        isFrozen ? self : ResultsSection(core: core.with(source: core.source.freeze()), key: key)
    }

    /// The live section for a frozen one, or nil.
    public func thaw() -> ResultsSection? {
        guard isFrozen else { return self }
        return core.source.thaw().map { ResultsSection(core: core.with(source: $0), key: key) }
    }

    /// Like `SectionedResults.observe`, for changes of this section only: index paths use the
    /// section's index among all sections (old for deletions, new for insertions).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void) -> NotificationToken {
        let key = self.key
        return core.observe(keyPaths: keyPaths, on: queue, onlyKey: key) { core, change in
            block(change.map { _ in ResultsSection(core: core, key: key) })
        }
    }

    /// The same section of the same sectioned results.
    public static func == (a: ResultsSection, b: ResultsSection) -> Bool { a.core === b.core && a.key == b.key }
}

/// A change of sectioned results or of one section.
public enum SectionedResultsChange<Collection> {
    /// The collection as first observed.
    case initial(Collection)
    /// A commit changed the collection. Deletions are index paths in the previous sections;
    /// insertions and modifications in the new ones; all sorted.
    case update(Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
                sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)

    func map<C>(_ transform: (Collection) -> C) -> SectionedResultsChange<C> {
        switch self {
        case .initial(let c): .initial(transform(c))
        case let .update(c, d, i, m, si, sd):
            .update(transform(c), deletions: d, insertions: i, modifications: m, sectionsToInsert: si, sectionsToDelete: sd)
        }
    }
}

extension IndexPath {
    /// An index path of a row (`item`) in a section, as UIKit defines it (Foundation on Linux
    /// lacks it; sectioned results report changes with it).
    public init(item: Int, section: Int) { self.init(indexes: [section, item]) }
    /// The section (first index).
    public var section: Int { self[0] }
    /// The row in the section (second index).
    public var item: Int { self[1] }
}

// MARK: - Making sectioned results

extension RealmCollection {
    /// The objects sorted by a property and grouped by its value (or by a computed property
    /// that reads one persisted property, which is then the sort key).
    public func sectioned<Key: Hashable>(by keyPath: KeyPath<Element, Key>, ascending: Bool = true) -> SectionedResults<Key, Element> {
        let name = KeyPathRecorder.name(keyPath)
        return sectioned(sortDescriptors: [SortDescriptor(keyPath: name, ascending: ascending)]) { $0[keyPath: keyPath] }
    }

    /// The objects sorted by `sortDescriptors`, the first of which must be the key path's
    /// property, and grouped by the key path's value.
    public func sectioned<Key: Hashable>(by keyPath: KeyPath<Element, Key>, sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        guard let first = sortDescriptors.first else { atollProgrammerError("cannot section results with no sort descriptors") }
        guard KeyPathRecorder.name(keyPath) == first.keyPath else {
            atollProgrammerError("the section key path must match the primary sort descriptor ('\(first.keyPath)')")
        }
        return sectioned(sortDescriptors: sortDescriptors) { $0[keyPath: keyPath] }
    }

    /// The objects sorted by `sortDescriptors` and grouped by the key `block` computes for each
    /// one. The primary sort descriptor should determine the key, so sections are contiguous.
    public func sectioned<Key: Hashable>(by block: @escaping (Element) -> Key, sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        guard !sortDescriptors.isEmpty else { atollProgrammerError("cannot section results with no sort descriptors") }
        return sectioned(sortDescriptors: sortDescriptors, block)
    }

    private func sectioned<Key: Hashable>(sortDescriptors: [SortDescriptor], _ block: @escaping (Element) -> Key) -> SectionedResults<Key, Element> {
        SectionedResults(core: SectionedCore(source: ObjectSectionSource(base: queryBase.sorted(by: sortDescriptors)), sectionKey: block))
    }
}

// MARK: - The shared state

/// The sorted source, the key function and the sections of the last evaluation.
final class SectionedCore<Key: Hashable, Element> {
    let source: any SectionSource<Element>
    let sectionKey: (Element) -> Key

    /// Sections of one evaluation: keys in order, and for each key the source positions of its
    /// elements, in order.
    struct Sections {
        var keys: [Key] = []
        var rowsByKey: [Key: [Int]] = [:]
        /// The elements' identities in source order (see SectionSource).
        var identities: [StorageValue] = []
    }

    private let lock = NSLock()
    private var cached: Sections?
    private var cachedStamp: UInt64 = 0
    private var cachedMutation: UInt64 = 0

    init(source: any SectionSource<Element>, sectionKey: @escaping (Element) -> Key) {
        self.source = source
        self.sectionKey = sectionKey
    }

    func with(source: any SectionSource<Element>) -> SectionedCore { SectionedCore(source: source, sectionKey: sectionKey) }

    /// The sections in the realm's current state (frozen ones: computed once).
    func current() -> Sections {
        let realm = source.realm
        realm.verifyThread()
        lock.lock()
        defer { lock.unlock() }
        let stamp = realm.stamp, mutation = realm.mutationCount
        if let cached, realm.isFrozen || (cachedStamp == stamp && cachedMutation == mutation) { return cached }
        let sections = compute()
        cached = sections
        cachedStamp = stamp
        cachedMutation = mutation
        return sections
    }

    private func compute() -> Sections {
        var sections = Sections()
        sections.identities = source.evaluate()
        for (row, identity) in sections.identities.enumerated() {
            let key = sectionKey(source.element(identity))
            if sections.rowsByKey[key] == nil {
                sections.keys.append(key)
                sections.rowsByKey[key] = [row]
            } else {
                sections.rowsByKey[key]!.append(row)
            }
        }
        return sections
    }

    /// Observes the sections (all, or the one of `onlyKey`), delivering changes with the core
    /// they were computed in (the queue's, when `queue` is given).
    func observe(keyPaths: [String]?, on queue: DispatchQueue?, onlyKey: Key?,
                 _ deliver: @escaping (SectionedCore, SectionedResultsChange<Void>) -> Void) -> NotificationToken {
        let realm = source.realm
        realm.verifyThread()
        if let queue {
            return realm.observeOnQueue(queue, source: self, { realm, core in
                core.with(source: try core.source.rebased(on: realm))
            }, onError: { _ in }) { core, flag in
                core.observe(keyPaths: keyPaths, onlyKey: onlyKey, flag: flag, deliver)
            }
        }
        return observe(keyPaths: keyPaths, onlyKey: onlyKey, flag: ObservationFlag(), deliver)
    }

    private func observe(keyPaths: [String]?, onlyKey: Key?, flag: ObservationFlag,
                         _ deliver: @escaping (SectionedCore, SectionedResultsChange<Void>) -> Void) -> NotificationToken {
        let realm = source.realm
        realm.requireNoWriteForObserving()
        var previous = current()
        var dependencies = source.dependencies()
        realm.observers.add(flag: flag) { [self] _, summary, notify in
            if summary.schemaChanged { dependencies = source.dependencies() }
            guard !summary.isComplete || summary.schemaChanged || dependencies.contains(where: { summary.touches($0) }) else { return }
            let now = current()
            let change = try SectionChange(old: previous, new: now, onlyKey: onlyKey) { try source.isModified($0, in: summary, keyPaths: keyPaths) }
            previous = now
            guard notify, !change.isEmpty else { return }
            deliver(self, .update((), deletions: change.deletions, insertions: change.insertions, modifications: change.modifications,
                                  sectionsToInsert: change.sectionsToInsert, sectionsToDelete: change.sectionsToDelete))
        }
        deliver(self, .initial(()))
        return NotificationToken(flag: flag)
    }

    /// The differences between two evaluations.
    struct SectionChange {
        var deletions: [IndexPath] = []
        var insertions: [IndexPath] = []
        var modifications: [IndexPath] = []
        var sectionsToInsert = IndexSet()
        var sectionsToDelete = IndexSet()

        var isEmpty: Bool {
            deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && sectionsToInsert.isEmpty && sectionsToDelete.isEmpty
        }

        /// An element of one evaluation: its identity and which occurrence of that identity it
        /// is in source order (a list may hold a value, or an object, more than once).
        struct Occurrence: Hashable {
            let identity: StorageValue
            let index: Int
        }

        /// The occurrence of each source position of an evaluation.
        static func occurrences(_ s: Sections) -> [Occurrence] {
            var seen: [StorageValue: Int] = [:]
            return s.identities.map { identity in
                let n = seen[identity, default: 0]
                seen[identity] = n + 1
                return Occurrence(identity: identity, index: n)
            }
        }

        /// Sections whose key disappeared are deleted (their elements are not listed), sections
        /// with a new key inserted (their elements are). An element that left, or that changed
        /// section, or that was modified and changed row, is a deletion; one that arrived or
        /// moved so is an insertion; one modified in place (`isModified`) is a modification.
        init(old: Sections, new: Sections, onlyKey: Key?, isModified: (StorageValue) throws -> Bool) throws {
            let oldOccurrences = Self.occurrences(old), newOccurrences = Self.occurrences(new)
            func positions(_ s: Sections, _ occurrences: [Occurrence]) -> [Occurrence: (key: Key, section: Int, row: Int)] {
                var result: [Occurrence: (key: Key, section: Int, row: Int)] = [:]
                for (section, key) in s.keys.enumerated() {
                    for (row, index) in (s.rowsByKey[key] ?? []).enumerated() { result[occurrences[index]] = (key, section, row) }
                }
                return result
            }
            let oldPositions = positions(old, oldOccurrences), newPositions = positions(new, newOccurrences)
            func included(_ key: Key) -> Bool { onlyKey == nil || onlyKey == key }
            for (section, key) in old.keys.enumerated() where new.rowsByKey[key] == nil && included(key) { sectionsToDelete.insert(section) }
            for (section, key) in new.keys.enumerated() where old.rowsByKey[key] == nil && included(key) { sectionsToInsert.insert(section) }
            var modifiedCache: [StorageValue: Bool] = [:]
            func modified(_ identity: StorageValue) throws -> Bool {
                if let known = modifiedCache[identity] { return known }
                let m = try isModified(identity)
                modifiedCache[identity] = m
                return m
            }
            for (section, key) in old.keys.enumerated() where new.rowsByKey[key] != nil && included(key) {
                for (row, index) in (old.rowsByKey[key] ?? []).enumerated() {
                    let element = oldOccurrences[index]
                    guard let now = newPositions[element] else { deletions.append(IndexPath(item: row, section: section)); continue }
                    if try now.key != key || (now.row != row && modified(element.identity)) { deletions.append(IndexPath(item: row, section: section)) }
                }
            }
            for (section, key) in new.keys.enumerated() where included(key) {
                for (row, index) in (new.rowsByKey[key] ?? []).enumerated() {
                    let element = newOccurrences[index]
                    guard let before = oldPositions[element] else { insertions.append(IndexPath(item: row, section: section)); continue }
                    if try before.key != key || (before.row != row && modified(element.identity)) {
                        insertions.append(IndexPath(item: row, section: section))
                    } else if try modified(element.identity) {
                        modifications.append(IndexPath(item: row, section: section))
                    }
                }
            }
            deletions.sort()
            insertions.sort()
            modifications.sort()
        }
    }
}
