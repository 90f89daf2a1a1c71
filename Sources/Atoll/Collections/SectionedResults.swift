import AtollStorage
public import Foundation

// Sectioned results (RealmSwift's `SectionedResults`): the objects of sorted live `Results`,
// grouped by a key computed from each object. Sections follow the order of their first object;
// objects keep the results' order within a section. Everything is recomputed from the results
// when the realm's state has changed, and observation reports index paths and section sets.

/// Live results grouped into sections by a key: `results.sectioned(by: \.firstLetter)`.
///
/// ```swift
/// let byLetter = realm.objects(Dog.self).sectioned(by: { String($0.name.prefix(1)) },
///                                                   sortDescriptors: [SortDescriptor(keyPath: "name")])
/// for section in byLetter { print(section.key, section.count) }
/// let token = byLetter.observe { change in ... }   // SectionedResultsChange with index paths
/// ```
public struct SectionedResults<Key: Hashable, SectionElement: Object>: RandomAccessCollection, Equatable {
    let core: SectionedCore<Key, SectionElement>

    public typealias Element = ResultsSection<Key, SectionElement>

    init(core: SectionedCore<Key, SectionElement>) { self.core = core }

    /// The realm of the results.
    public var realm: Realm? { core.base.realm }
    /// Whether these are frozen sectioned results.
    public var isFrozen: Bool { core.base.isFrozen }
    /// True when the realm was invalidated (Atoll keeps results usable; see the README).
    public var isInvalidated: Bool { core.base.isInvalidated }

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

    /// The object at `indexPath` (`section`, `item`).
    public subscript(_ indexPath: IndexPath) -> SectionElement {
        self[indexPath.section][indexPath.item]
    }

    /// The section with key `key`, or nil (an Atoll addition).
    public subscript(key key: Key) -> ResultsSection<Key, SectionElement>? {
        core.current().rowsByKey[key] == nil ? nil : ResultsSection(core: core, key: key)
    }

    /// An immutable snapshot, usable from any thread through its frozen realm.
    public func freeze() -> SectionedResults {
        isFrozen ? self : SectionedResults(core: core.with(base: core.base.freeze()))
    }

    /// Live sectioned results for frozen ones (the same query at the newest version), or nil.
    public func thaw() -> SectionedResults? {
        guard isFrozen else { return self }
        return core.base.thaw().map { SectionedResults(core: core.with(base: $0)) }
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

    /// `observe(keyPaths:on:_:)` with key paths (`[\.name]`).
    public func observe(keyPaths: [PartialKeyPath<SectionElement>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { KeyPathRecorder.name($0) }, on: queue, block)
    }

    /// The same results and key.
    public static func == (a: SectionedResults, b: SectionedResults) -> Bool { a.core === b.core }
}

/// One section of `SectionedResults`: its key and its objects, live.
public struct ResultsSection<Key: Hashable, T: Object>: RandomAccessCollection, Equatable, Identifiable {
    let core: SectionedCore<Key, T>
    /// The section's key.
    public let key: Key

    public typealias Element = T

    /// The section's key (`Identifiable`).
    public var id: Key { key }
    /// The realm of the objects.
    public var realm: Realm? { core.base.realm }
    /// Whether the section is frozen.
    public var isFrozen: Bool { core.base.isFrozen }
    /// True when the realm was invalidated.
    public var isInvalidated: Bool { core.base.isInvalidated }

    private var rows: [Int] { core.current().rowsByKey[key] ?? [] }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    /// The number of objects in the section now (0 once it has none).
    public var count: Int { rows.count }

    /// The object at `index` in the section.
    public subscript(_ index: Int) -> T {
        let rows = self.rows
        guard rows.indices.contains(index) else { atollProgrammerError("index \(index) is out of bounds (count \(rows.count))") }
        return core.base[rows[index]]
    }

    /// An immutable snapshot of the section.
    public func freeze() -> ResultsSection {
        isFrozen ? self : ResultsSection(core: core.with(base: core.base.freeze()), key: key)
    }

    /// The live section for a frozen one, or nil.
    public func thaw() -> ResultsSection? {
        guard isFrozen else { return self }
        return core.base.thaw().map { ResultsSection(core: core.with(base: $0), key: key) }
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

    /// `observe(keyPaths:on:_:)` with key paths (`[\.name]`).
    public func observe(keyPaths: [PartialKeyPath<T>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { KeyPathRecorder.name($0) }, on: queue, block)
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
        SectionedResults(core: SectionedCore(base: queryBase.sorted(by: sortDescriptors), sectionKey: block))
    }
}

// MARK: - The shared state

/// The sorted results, the key function and the sections of the last evaluation.
final class SectionedCore<Key: Hashable, Element: Object> {
    let base: Results<Element>
    let sectionKey: (Element) -> Key

    /// Sections of one evaluation: keys in order, and for each key the results positions of its
    /// objects, in order.
    struct Sections {
        var keys: [Key] = []
        var rowsByKey: [Key: [Int]] = [:]
        /// Object keys in results order.
        var objects: [ObjectKey] = []
    }

    private let lock = NSLock()
    private var cached: Sections?
    private var cachedStamp: UInt64 = 0
    private var cachedMutation: UInt64 = 0

    init(base: Results<Element>, sectionKey: @escaping (Element) -> Key) {
        self.base = base
        self.sectionKey = sectionKey
    }

    func with(base: Results<Element>) -> SectionedCore { SectionedCore(base: base, sectionKey: sectionKey) }

    /// The sections in the realm's current state (frozen ones: computed once).
    func current() -> Sections {
        let realm = base.core.realm
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
        sections.objects = base.core.keys()
        for (row, object) in base.enumerated() {
            let key = sectionKey(object)
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
        let realm = base.core.realm
        realm.verifyThread()
        if let queue {
            return realm.observeOnQueue(queue, source: self, { realm, core in
                core.with(base: Results(core: try core.base.core.rebased(on: realm)))
            }, onError: { _ in }) { core, flag in
                core.observe(keyPaths: keyPaths, onlyKey: onlyKey, flag: flag, deliver)
            }
        }
        return observe(keyPaths: keyPaths, onlyKey: onlyKey, flag: ObservationFlag(), deliver)
    }

    private func observe(keyPaths: [String]?, onlyKey: Key?, flag: ObservationFlag,
                         _ deliver: @escaping (SectionedCore, SectionedResultsChange<Void>) -> Void) -> NotificationToken {
        let realm = base.core.realm
        realm.requireNoWriteForObserving()
        var previous = current()
        var dependencies = base.core.dependencies()
        realm.observers.add(flag: flag) { [self] _, summary, notify in
            if summary.schemaChanged { dependencies = base.core.dependencies() }
            guard !summary.isComplete || summary.schemaChanged || dependencies.contains(where: { summary.touches($0) }) else { return }
            let now = current()
            let change = try SectionChange(old: previous, new: now, onlyKey: onlyKey) { try base.core.isModified($0, in: summary, keyPaths: keyPaths) }
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

        /// Sections whose key disappeared are deleted (their objects are not listed), sections
        /// with a new key inserted (their objects are). An object that left, or that changed
        /// section, or that was modified and changed row, is a deletion; one that arrived or
        /// moved so is an insertion; one modified in place (`isModified`) is a modification.
        init(old: Sections, new: Sections, onlyKey: Key?, isModified: (ObjectKey) throws -> Bool) throws {
            func positions(_ s: Sections) -> [ObjectKey: (key: Key, section: Int, row: Int)] {
                var result: [ObjectKey: (key: Key, section: Int, row: Int)] = [:]
                for (section, key) in s.keys.enumerated() {
                    for (row, index) in (s.rowsByKey[key] ?? []).enumerated() { result[s.objects[index]] = (key, section, row) }
                }
                return result
            }
            let oldPositions = positions(old), newPositions = positions(new)
            func included(_ key: Key) -> Bool { onlyKey == nil || onlyKey == key }
            for (section, key) in old.keys.enumerated() where new.rowsByKey[key] == nil && included(key) { sectionsToDelete.insert(section) }
            for (section, key) in new.keys.enumerated() where old.rowsByKey[key] == nil && included(key) { sectionsToInsert.insert(section) }
            var modifiedCache: [ObjectKey: Bool] = [:]
            func modified(_ object: ObjectKey) throws -> Bool {
                if let known = modifiedCache[object] { return known }
                let m = try isModified(object)
                modifiedCache[object] = m
                return m
            }
            for (section, key) in old.keys.enumerated() where new.rowsByKey[key] != nil && included(key) {
                for (row, index) in (old.rowsByKey[key] ?? []).enumerated() {
                    let object = old.objects[index]
                    guard let now = newPositions[object] else { deletions.append(IndexPath(item: row, section: section)); continue }
                    if try now.key != key || (now.row != row && modified(object)) { deletions.append(IndexPath(item: row, section: section)) }
                }
            }
            for (section, key) in new.keys.enumerated() where included(key) {
                for (row, index) in (new.rowsByKey[key] ?? []).enumerated() {
                    let object = new.objects[index]
                    guard let before = oldPositions[object] else { insertions.append(IndexPath(item: row, section: section)); continue }
                    if try before.key != key || (before.row != row && modified(object)) {
                        insertions.append(IndexPath(item: row, section: section))
                    } else if try modified(object) {
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
