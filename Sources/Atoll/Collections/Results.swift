import AtollStorage
import AtollQuery
import Dispatch

/// A sort key for `sorted(by:)`.
public struct SortDescriptor: Sendable, Hashable {
    /// The property to sort by (a key path through to-one links: `"owner.name"`).
    public var keyPath: String
    /// Smallest first when true.
    public var ascending: Bool

    /// A sort key, ascending by default.
    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }
}

/// A live, lazily evaluated collection of objects: all objects of a class, or the objects of a
/// list or linking objects, optionally filtered, sorted and made distinct. Reading it reflects
/// the realm's current version; `observe` reports changes with exact indices.
///
/// ```swift
/// let puppies = realm.objects(Dog.self).filter("age < %d", 2).sorted(byKeyPath: "name")
/// print(puppies.count)
/// ```
///
/// Sendable: live results stop the program when used off their realm's thread (they never race
/// silently); frozen results read an immutable version and lock their caches.
public struct Results<Element: Object>: RandomAccessCollection, CustomStringConvertible, @unchecked Sendable {
    let core: ResultsCore<ClassBinding>

    init(realm: Realm, binding: ClassBinding) {
        core = ResultsCore(realm: realm, binding: binding, source: .table, query: nil)
    }

    init(core: ResultsCore<ClassBinding>) { self.core = core }

    /// The realm of the results.
    public var realm: Realm? { core.realm }
    /// The name of the objects' class (readable from any thread).
    public var objectClassName: String { core.binding.schema.className }
    /// Whether these are frozen results (see `freeze()`).
    public var isFrozen: Bool { core.realm.isFrozen }
    /// True when the object whose list or linking objects these results are has been
    /// deleted. (False off the realm's thread.)
    public var isInvalidated: Bool {
        guard core.realm.confinement.isCurrent else { return false }
        switch core.source {
        case .list(let owner, let key, _), .linkingObjects(let owner, let key, _):
            do {
                guard let table = try core.realm.tableIfPresent(owner) else { return true }
                return try !table.contains(key)
            } catch {
                core.realm.readFailed(error, reading: "the '\(owner.schema.className)' object of \(core.readDescription)")
            }
        case .table, .keys:
            return false
        }
    }

    // MARK: collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// Number of objects. For a whole table without a filter: O(1); for a filter without
    /// sorting: a scan that materializes nothing.
    public var count: Int {
        core.realm.verifyThread()
        return core.count
    }

    /// The object at `position` in the results' order (a programming error when out of
    /// bounds). O(1) for all objects of a class; otherwise the keys of one evaluation.
    public subscript(position: Int) -> Element {
        core.realm.verifyThread()
        if case .table = core.source, core.query == nil, !core.realm.isFrozen {
            let found: (Table, RowHandle)?
            do {
                found = try core.realm.tableIfPresent(core.binding).flatMap { t in try t.row(at: position).map { (t, $0) } }
            } catch {
                core.realm.readFailed(error, reading: core.readDescription)
            }
            if let (table, h) = found { return core.realm.makeObject(Element.self, key: h.key, binding: core.binding, table: table, row: h) }
        }
        guard let key = core.key(at: position) else {
            atollProgrammerError("index \(position) is out of bounds (count \(count))")
        }
        return core.realm.makeObject(Element.self, key: key, binding: core.binding)
    }

    /// The first object, or nil when there is none.
    public var first: Element? { isEmpty ? nil : self[0] }
    /// The last object, or nil when there is none.
    public var last: Element? { let n = count; return n == 0 ? nil : self[n - 1] }

    /// Iterates lazily: objects are made one at a time from the keys of one evaluation.
    public func makeIterator() -> ResultsIterator<Element> {
        core.realm.verifyThread()
        if case .table = core.source, core.query == nil, !core.realm.isFrozen {
            let table: Table?
            do { table = try core.realm.tableIfPresent(core.binding) } catch { core.realm.readFailed(error, reading: core.readDescription) }
            // Every object of the class: walk the leaves, so no object needs a lookup.
            if let table { return ResultsIterator(core: core, table: table) }
        }
        return ResultsIterator(core: core, keys: core.keys())
    }

    /// The position of an object in the results, or nil.
    public func index(of object: Element) -> Int? {
        core.realm.verifyThread()
        guard let m = object._managed, core.realm.owns(m), m.binding.tableKey == core.binding.tableKey else { return nil }
        return core.keys().firstIndex(of: m.key)
    }

    /// A short description: the class and the count.
    public var description: String { "Results<\(core.binding.schema.className)> (\(count) objects)" }

    // MARK: filtering and sorting

    /// Objects matching a predicate in Realm's query language; `$0`, `%@`, `%d`... take `args`.
    /// An invalid predicate is a programming error (as in RealmSwift); use
    /// `filter(throwing:_:)` to get an `AtollError` instead.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        do { return try filter(throwing: predicateFormat, args) } catch {
            atollProgrammerError("invalid query: \(error)")
        }
    }

    /// Like `filter(_:_:)`, throwing `.invalidQuery` for an invalid predicate.
    public func filter(throwing predicateFormat: String, _ args: Any...) throws -> Results<Element> {
        try filter(throwing: predicateFormat, args)
    }

    func filter(throwing predicateFormat: String, _ args: [Any]) throws -> Results<Element> {
        try core.realm.checkThread()
        let query = try core.bind(predicateFormat, args)
        return Results(core: core.with(query: query))
    }

    /// The results sorted by a property (a key path through to-one links).
    ///
    /// ```swift
    /// let byName = realm.objects(Dog.self).sorted(byKeyPath: "name")
    /// ```
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The results sorted by several properties, the first descriptor first.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        let clause = sortDescriptors.map { "\($0.keyPath) \($0.ascending ? "ASC" : "DESC")" }.joined(separator: ", ")
        guard !clause.isEmpty else { return self }
        return filter("TRUEPREDICATE SORT(\(clause))")
    }

    /// The first object of each distinct combination of the key paths' values.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        let list = keyPaths.joined(separator: ", ")
        guard !list.isEmpty else { return self }
        return filter("TRUEPREDICATE DISTINCT(\(list))")
    }

    // MARK: aggregates

    /// The table column aggregate when these are all the objects of the class.
    private func tableAggregate(_ property: String, _ kind: ColumnAggregate) -> StorageValue? {
        core.realm.verifyThread()
        guard case .table = core.source, core.query == nil, let i = core.binding.schema.index(of: property),
              core.binding.columns[i] >= 0 else { return nil }
        do {
            guard let table = try core.realm.tableIfPresent(core.binding) else { return nil }
            return try table.aggregate(core.binding.columns[i], kind)
        } catch {
            core.realm.readFailed(error, reading: "'\(core.binding.schema.className).\(property)' of \(core.readDescription)")
        }
    }

    /// An aggregate of an AnyRealmValue property by realm-core's rules for mixed values
    /// (AnyRealmValue+Aggregates.swift), or nil when the property is not one.
    private func mixedAggregate(_ property: String, _ kind: ColumnAggregate) -> StorageValue? {
        guard let p = core.binding.schema[property], case .scalar(.mixed) = p.atollType.kind else { return nil }
        // Objects (typed links) are left out, as MixedAggregate leaves them out of collections.
        return MixedAggregate.aggregate(propertyValues(property).1.filter { if case .typedLink = $0 { false } else { true } }, kind)
    }

    /// The sum of the numbers of an AnyRealmValue property, as `.decimal128` (decimal 0 when
    /// there are none); values that are not numbers are skipped, as realm-core sums mixed values.
    ///
    /// ```swift
    /// let total: AnyRealmValue = realm.objects(Setting.self).sum(ofProperty: "value")
    /// ```
    public func sum(ofProperty property: String) -> AnyRealmValue {
        AnyRealmValue(mixedAggregateOrRefuse(property, .sum)) ?? .none
    }

    /// The mean of the numbers of an AnyRealmValue property, as `.decimal128`, or nil when there
    /// are none (values that are not numbers are skipped, as realm-core averages mixed values).
    public func average(ofProperty property: String) -> AnyRealmValue? {
        let v = mixedAggregateOrRefuse(property, .average)
        return v.isNull ? nil : AnyRealmValue(v)
    }

    private func mixedAggregateOrRefuse(_ property: String, _ kind: ColumnAggregate) -> StorageValue {
        guard let v = mixedAggregate(property, kind) else {
            atollProgrammerError("'\(core.binding.schema.className).\(property)' is not an AnyRealmValue property: ask for the sum or average as its own type")
        }
        return v
    }

    private func propertyValues(_ property: String) -> (PropertyInfo, [StorageValue]) {
        core.realm.verifyThread()
        guard let p = core.binding.schema[property], let i = core.binding.schema.index(of: property) else {
            atollProgrammerError("'\(core.binding.schema.className)' has no property '\(property)'")
        }
        let column = core.binding.columns[i]
        guard column >= 0 else { return (p, []) }
        do {
            guard let table = try core.realm.tableIfPresent(core.binding) else { return (p, []) }
            let values = try core.evaluateKeys().map { try table.value($0, column) }.filter { !$0.isNull }
            return (p, values)
        } catch {
            core.realm.readFailed(error, reading: "'\(core.binding.schema.className).\(property)' of \(core.readDescription)")
        }
    }

    /// The smallest value of a property (numbers and dates), or nil when there are none.
    public func min<T: PersistableValue>(ofProperty property: String) -> T? {
        if let v = mixedAggregate(property, .min) { return v.isNull ? nil : ValueConversion.aggregate(v, as: T.self) }
        if let v = tableAggregate(property, .min) { return v.isNull ? nil : ValueConversion.aggregate(v, as: T.self) }
        let (_, values) = propertyValues(property)
        guard let best = values.min(by: { StorageOrdering.less($0, $1) }) else { return nil }
        return ValueConversion.aggregate(best, as: T.self)
    }

    /// The largest value of a property (numbers and dates), or nil when there are none.
    public func max<T: PersistableValue>(ofProperty property: String) -> T? {
        if let v = mixedAggregate(property, .max) { return v.isNull ? nil : ValueConversion.aggregate(v, as: T.self) }
        if let v = tableAggregate(property, .max) { return v.isNull ? nil : ValueConversion.aggregate(v, as: T.self) }
        let (_, values) = propertyValues(property)
        guard let best = values.max(by: { StorageOrdering.less($0, $1) }) else { return nil }
        return ValueConversion.aggregate(best, as: T.self)
    }

    /// The sum of a numeric property (0 when empty).
    public func sum<T: PersistableValue & AdditiveArithmetic>(ofProperty property: String) -> T {
        if let v = mixedAggregate(property, .sum) { return ValueConversion.aggregate(v, as: T.self) ?? .zero }
        if let v = tableAggregate(property, .sum) { return ValueConversion.aggregate(v, as: T.self) ?? .zero }
        let (p, values) = propertyValues(property)
        if case .scalar(.int) = p.atollType.kind {
            let total = values.reduce(Int64(0)) { if case .int(let i) = $1 { return $0 &+ i }; return $0 }
            return ValueConversion.aggregate(.int(total), as: T.self) ?? .zero
        }
        if case .scalar(.decimal128) = p.atollType.kind {
            let total = values.reduce(Decimal128.zero) { if case .decimal128(let d) = $1 { return $0 + d }; return $0 }
            return ValueConversion.aggregate(.decimal128(total), as: T.self) ?? .zero
        }
        let total = values.reduce(0.0) { $0 + (StorageOrdering.double($1) ?? 0) }
        if case .scalar(.float) = p.atollType.kind { return ValueConversion.aggregate(.float(Float(total)), as: T.self) ?? .zero }
        return ValueConversion.aggregate(.double(total), as: T.self) ?? .zero
    }

    /// The average of a numeric property, or nil when empty.
    public func average<T: BinaryFloatingPoint>(ofProperty property: String) -> T? {
        if let v = mixedAggregate(property, .average) ?? tableAggregate(property, .average) {
            if case .double(let d) = v { return T(d) }
            if case .decimal128(let d) = v { return T(d.doubleValue) }
            return nil
        }
        let (_, values) = propertyValues(property)
        guard !values.isEmpty else { return nil }
        return T(values.reduce(0.0) { $0 + (StorageOrdering.double($1) ?? 0) } / Double(values.count))
    }

    // MARK: freezing

    /// An immutable snapshot of these results at the realm's current version, usable from any
    /// thread: the same query, evaluated on a frozen realm.
    ///
    /// ```swift
    /// let snapshot = realm.objects(Dog.self).filter("age < 2").freeze()
    /// Task.detached { print(snapshot.count) }
    /// ```
    public func freeze() -> Results<Element> {
        if isFrozen { return self }
        let frozenRealm = core.realm.freeze()
        // Rebasing binds the class in the other realm: a failure is about the schema, unless the
        // file could not be read.
        guard let rebased = frozenRealm.schemaAnswer("the class of these results", { try core.rebased(on: frozenRealm) }) else { return self }
        return Results(core: rebased)
    }

    /// Live results for a frozen one: the same query in the calling thread's live realm of the
    /// same file, at the version it reads (as `Object.thaw()`). Live results return themselves. A realm that cannot be opened stops the
    /// program with the reason (README, "Failed reads"); nil means the class cannot be read in
    /// the live realm (its table needs a migration).
    public func thaw() -> Results<Element>? {
        guard isFrozen else { return self }
        let live = Realm.liveForThaw(of: core.realm)
        // A schema question (see `freeze()`).
        guard let rebased = live.schemaAnswer("the class of these results", { try core.rebased(on: live) }) else { return nil }
        return Results(core: rebased)
    }
}

/// Ordering of stored scalars for min/max.
enum StorageOrdering {
    static func double(_ v: StorageValue) -> Double? {
        switch v {
        case .int(let i): Double(i)
        case .float(let f): Double(f)
        case .double(let d): d
        case .decimal128(let d): d.doubleValue
        default: nil
        }
    }

    static func less(_ a: StorageValue, _ b: StorageValue) -> Bool {
        if case .timestamp(let x) = a, case .timestamp(let y) = b { return x < y }
        if case .int(let x) = a, case .int(let y) = b { return x < y }
        if case .decimal128(let x) = a, case .decimal128(let y) = b { return x < y }
        return (double(a) ?? 0) < (double(b) ?? 0)
    }
}

/// Makes the objects of `Results` one at a time.
///
/// An object the caller has let go of by the time it asks for the next one (no other strong,
/// weak or unowned reference) is reused for the next row instead of allocating a new one, so
/// `for dog in dogs { total += dog.age }` allocates once. An object the caller keeps is never
/// touched again.
///
/// Every object of a class (no query) is walked leaf by leaf. When the realm's state changes
/// during the walk (a write inside the loop, a refresh), iteration continues with the objects
/// whose keys follow the last one returned, in the new state.
///
/// The work is done by the non-generic `ObjectIteration`; `next` is inlinable so that the
/// caller's module specializes it (unspecialized, a generic iterator reads its own fields
/// through type metadata on every call: it was half of the instructions per object of a loop).
public struct ResultsIterator<Element: Object>: IteratorProtocol {
    @usableFromInline var iteration: ObjectIteration

    init(core: ResultsCore<ClassBinding>, keys: [ObjectKey]) {
        iteration = ObjectIteration(core: core, keys: keys)
    }

    init(core: ResultsCore<ClassBinding>, table: Table) {
        iteration = ObjectIteration(core: core, table: table)
    }

    /// The next object, or nil at the end.
    @inlinable
    public mutating func next() -> Element? {
        guard let object = iteration.next(Element.self) else { return nil }
        // Every object of the iteration is made as `Element.self` (makeObject calls its init).
        return unsafeDowncast(object, to: Element.self)
    }
}

/// The state and per-row work of `ResultsIterator`, for any object class: the objects it
/// makes are of the type passed to `next`, which is the same on every call.
@usableFromInline
struct ObjectIteration {
    let core: ResultsCore<ClassBinding>
    let keys: [ObjectKey]
    var index = 0
    /// The realm state `keys` were evaluated in.
    var keysStamp: UInt64 = 0
    var keysMutation: UInt64 = 0
    /// Walking every object of the class (`walk.table` is set).
    var walk = TableWalk()
    /// The object returned last, kept to be reused when the caller released it, and its state
    /// (unretained: `recycled` holds it).
    var recycled: Object?
    var recycledObject: Unmanaged<Object>?
    var recycledState: Unmanaged<ManagedObjectState>?
    /// `core.realm`, unretained (`core` keeps it alive).
    let realm: Unmanaged<Realm>

    init(core: ResultsCore<ClassBinding>, keys: [ObjectKey]) {
        self.core = core
        realm = Unmanaged.passUnretained(core.realm)
        self.keys = keys
        keysStamp = core.realm.stamp
        keysMutation = core.realm.mutationCount
    }

    init(core: ResultsCore<ClassBinding>, table: Table) {
        self.core = core
        realm = Unmanaged.passUnretained(core.realm)
        keys = []
        walk.start(table, realm: core.realm)
    }

    /// The next object (made as `type`), or nil at the end.
    @usableFromInline
    mutating func next(_ type: Object.Type) -> Object? {
        if walk.table != nil { return nextInTable(type) }
        guard index < keys.count else { return nil }
        defer { index += 1 }
        // The keys of an evaluation are those of objects existing in the realm state it was
        // made in.
        let state = reusableState() ?? {
            let object = core.realm.makeObject(type, key: keys[index], binding: core.binding)
            keep(object)
            return recycledState
        }()
        if keysStamp == core.realm.stamp, keysMutation == core.realm.mutationCount {
            state?._withUnsafeGuaranteedRef { $0.repoint(key: keys[index], existingAt: keysStamp, mutation: keysMutation) }
        } else {
            state?._withUnsafeGuaranteedRef { $0.repoint(key: keys[index]) }
        }
        return recycled
    }

    @inline(__always)
    private mutating func nextInTable(_ type: Object.Type) -> Object? {
        guard walk.step(core, realm: realm) else { return nil }
        let key = walk.key
        if let page = walk.page, let table = walk.unretainedTable {
            if let state = reusableState() {
                let (r, stamp, mutation) = (walk.currentRow, walk.stamp, walk.mutation)
                state._withUnsafeGuaranteedRef {
                    $0.repoint(key: key, table: table, page: page, row: r, stamp: stamp, mutation: mutation)
                }
                return recycled
            }
            return fresh(type, key, RowHandle(leaf: .page(page), row: walk.currentRow, key: key))
        }
        let handle = walk.changedRow
        if let state = reusableState(), let table = walk.table {
            state._withUnsafeGuaranteedRef { $0.repoint(key: key, table: table, row: handle) }
            return recycled
        }
        return fresh(type, key, handle)
    }

    private mutating func fresh(_ type: Object.Type, _ key: ObjectKey, _ row: RowHandle) -> Object? {
        guard let table = walk.table else { return nil }
        let object = core.realm.makeObject(type, key: key, binding: core.binding, table: table, row: row)
        keep(object)
        return object
    }

    private mutating func keep(_ object: Object) {
        recycled = object
        recycledObject = Unmanaged.passUnretained(object)
        recycledState = object._managed.map { Unmanaged.passUnretained($0) }
    }

    /// The state of the previous object, when only this iterator refers to the object: the
    /// object can then be reused for the next row. (A state is referenced by its object alone:
    /// Atoll code that keeps a state keeps its object too.)
    @inline(__always)
    private mutating func reusableState() -> Unmanaged<ManagedObjectState>? {
        guard isKnownUniquelyReferenced(&recycled), let state = recycledState, let object = recycledObject,
              object._withUnsafeGuaranteedRef({ isSolelyOwned($0) }) else {
            recycled = nil
            recycledObject = nil
            recycledState = nil
            return nil
        }
        return state
    }
}

/// Whether `object` has no weak or unowned reference (strong ones are checked with
/// `isKnownUniquelyReferenced`): such an object can be recycled without anyone noticing.
/// (A live object's unowned count is 1 and its weak count 1 until a weak reference appears.)
@inline(__always)
func isSolelyOwned(_ object: AnyObject) -> Bool {
    _getUnownedRetainCount(object) == 1 && _getWeakRetainCount(object) <= 1
}

/// Walks every object of a class in key order, leaf by leaf, for `ResultsIterator`.
///
/// When the realm's state changes during the walk (a write inside the loop, a refresh), the
/// walk continues with the keys that follow the last one returned, in the new state.
struct TableWalk {
    /// The table of the realm state walked (nil: not walking a table).
    private(set) var table: Table?
    /// `table`, unretained (for reuse without reference counting).
    private(set) var unretainedTable: Unmanaged<Table>?
    private var leaves: [LeafRef] = []
    private var leafIndex = -1
    /// The current leaf when it is a page of the snapshot (read without reference counting);
    /// otherwise it is `leaves[leafIndex]`.
    private(set) var page: ClusterLeafPage?
    private var rowCount = 0
    private var row = 0
    private(set) var stamp: UInt64 = 0
    private(set) var mutation: UInt64 = 0
    private var lastKey: ObjectKey?

    /// The row `step` moved to, its key, and (when the leaf is not a snapshot page) its handle.
    private(set) var currentRow = 0
    private(set) var key = ObjectKey(0)
    var changedRow: RowHandle { RowHandle(leaf: leaves[leafIndex], row: currentRow, key: key) }

    mutating func start(_ table: Table, realm: Realm) {
        collectLeaves(table, realm: realm)
    }

    /// Moves to the next row; false at the end.
    @inline(__always)
    mutating func step(_ core: ResultsCore<ClassBinding>, realm: Unmanaged<Realm>) -> Bool {
        let (realmStamp, realmMutation) = realm._withUnsafeGuaranteedRef { ($0.stamp, $0.mutationCount) }
        if stamp != realmStamp || mutation != realmMutation, !restart(core) { return false }
        if row >= rowCount, !advance() { return false }
        currentRow = row
        row += 1
        key = ObjectKey(page.map { $0.key(currentRow) } ?? leaves[leafIndex].key(currentRow))
        lastKey = key
        return true
    }

    /// Continues in the realm's new state (after a write or a refresh during the walk).
    @inline(never)
    private mutating func restart(_ core: ResultsCore<ClassBinding>) -> Bool {
        let current: Table?
        do { current = try core.realm.tableIfPresent(core.binding) } catch { core.realm.readFailed(error, reading: core.readDescription) }
        // The class has no table in the new state: no objects follow.
        guard let current else { return false }
        collectLeaves(current, realm: core.realm)
        return true
    }

    /// Takes the leaves of `table` in the realm's current state, positioned after `lastKey`.
    /// Stops the program when they cannot be read (README, "Failed reads"): a walk that ended
    /// early would look like fewer objects.
    private mutating func collectLeaves(_ table: Table, realm: Realm) {
        self.table = table
        unretainedTable = Unmanaged.passUnretained(table)
        var found: [LeafRef] = []
        do { try table.forEachLeaf { found.append($0); return true } } catch {
            realm.readFailed(error, reading: "the objects of '\(table.name)'")
        }
        leaves = found
        stamp = realm.stamp
        mutation = realm.mutationCount
        leafIndex = -1
        page = nil
        rowCount = 0
        row = 0
        guard let lastKey else { return }
        // Continue after the last key returned.
        var i = 0
        while i < leaves.count, let k = leaves[i].lastKey, k <= lastKey.rawValue { i += 1 }
        guard i < leaves.count else {
            leafIndex = leaves.count
            return
        }
        enter(leaf: i)
        let r = leaves[i].find(lastKey.rawValue &+ 1)
        row = r >= 0 ? r : -(r + 1)
    }

    private mutating func enter(leaf i: Int) {
        leafIndex = i
        page = leaves[i].page
        rowCount = leaves[i].count
        row = 0
    }

    /// Moves to the next leaf with rows; false at the end.
    private mutating func advance() -> Bool {
        while leafIndex + 1 < leaves.count {
            enter(leaf: leafIndex + 1)
            if rowCount > 0 { return true }
        }
        leafIndex = leaves.count
        return false
    }
}
