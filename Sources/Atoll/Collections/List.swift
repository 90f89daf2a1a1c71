public import AtollStorage

/// Type-erased access to `List`, for dynamic APIs.
public protocol _ListProtocol: AnyObject {
    static func makeUnmanaged() -> any _ListProtocol
    var anyElements: [Any?] { get }
    func replaceAll(with value: Any?, property: PropertyInfo) throws
}

/// An ordered list of values or objects, a to-many property: `@Persisted var dogs: List<Dog>`.
///
/// Unmanaged, it is an array in memory. Managed, every read and write goes to the realm, and
/// it keeps order and allows duplicates. Deleting an object removes it from every list.
public final class List<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible {
    var storage: [Element] = [] { didSet { if nestedLink != nil { nestedChanged() } } }
    /// Where the list lives when it is nested in a managed object's mixed value: its elements
    /// are then a copy that each change writes back (AnyRealmValue+Nested.swift).
    var nestedLink: NestedMixedLink?
    struct Managed {
        let realm: Realm
        let owner: ClassBinding
        let key: ObjectKey
        let column: Int
    }
    private(set) var managed: Managed?

    /// An empty, unmanaged list (an array in memory until its object is added to a realm).
    public init() {}

    init(managed: Managed) { self.managed = managed }

    /// The realm managing the list; nil while unmanaged.
    public var realm: Realm? { managed?.realm }
    /// Whether the list is a frozen snapshot (see `freeze()`).
    public var isFrozen: Bool { managed?.realm.isFrozen ?? false }

    /// True when the list's object was deleted.
    public var isInvalidated: Bool {
        guard let m = managed, m.realm.confinement.isCurrent else { return false }
        return !m.realm.objectExists(m.owner, m.key)
    }

    /// The stored elements; none once the list's object is deleted. Stops the program when
    /// they cannot be read (README, "Failed reads").
    func stored() -> [StorageValue] { reading { $0.values } ?? [] }

    /// Runs `body` on the stored list (its encoded bytes, or its values when changed in this
    /// write transaction) without decoding it; nil once the list's object is deleted. Stops
    /// the program when the list cannot be read (README, "Failed reads").
    func reading<R>(_ body: (ListAccess) -> R) -> R? {
        guard let m = managed else { return nil }
        m.realm.verifyThread()
        do {
            guard let t = try m.realm.tableIfPresent(m.owner), let row = try t.locate(m.key) else { return nil }
            return body(try t.list(row, m.column))
        } catch {
            let property = m.owner.columns.firstIndex(of: m.column).map { m.owner.schema.allProperties[$0].name } ?? "#\(m.column)"
            m.realm.readFailed(error, reading: "'\(m.owner.schema.className).\(property)'")
        }
    }

    func element(_ v: StorageValue) -> Element {
        guard let m = managed else { return Element._atollDefault() }
        return Element._atollElement(v, realm: m.realm)
    }

    /// The element stored at `index`: a collection nested in a mixed element writes back there.
    func element(_ v: StorageValue, at index: Int) -> Element {
        if v.isNestedCollection, let m = managed,
           let nested = NestedMixedLink.element(v, realm: m.realm, owner: m.owner, key: m.key, column: m.column, root: .listElement(index)) as? Element {
            return nested
        }
        return element(v)
    }

    // MARK: reading

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The number of elements. O(1): managed, read from the stored list without decoding it.
    public var count: Int { managed == nil ? storage.count : reading { $0.count } ?? 0 }

    /// The element at `position`; setting it (in a write, when managed) replaces it. An index
    /// out of bounds is a programming error.
    public subscript(position: Int) -> Element {
        get {
            guard managed != nil else { return storage[position] }
            // Only the element at `position` is decoded.
            let value = reading { list -> StorageValue? in position >= 0 && position < list.count ? list.value(at: position) : nil }
            guard let read = value, let value = read else { atollProgrammerError("index \(position) out of bounds (count \(count))") }
            return element(value, at: position)
        }
        set { replace(index: position, object: newValue) }
    }

    /// Iterates the elements of the current version.
    public func makeIterator() -> IndexingIterator<[Element]> {
        guard let m = managed else { return storage.makeIterator() }
        // The elements of the version read now, decoded once, straight into an array of them
        // (a collection nested in a mixed element writes back to its position).
        let realm = m.realm
        let elements = reading { list -> [Element] in
            var out: [Element] = []
            out.reserveCapacity(list.count)
            var index = 0
            list.forEach { v in
                out.append(v.isNestedCollection ? element(v, at: index) : Element._atollElement(v, realm: realm))
                index += 1
            }
            return out
        }
        return (elements ?? []).makeIterator()
    }

    /// A short description: the element type and the count.
    public var description: String { "List<\(Element.self)> (\(count) elements)" }

    // MARK: writing

    func write(_ what: String, _ body: (Table, Managed, inout ObjectWriter) throws -> Void) {
        guard let m = managed else { return }
        m.realm.verifyThread()
        if m.realm.isFrozen { atollProgrammerError("cannot \(what) on a frozen List (thaw() it first)") }
        guard m.realm.isInWriteTransaction else { atollProgrammerError("\(what) on a managed List must happen inside a write transaction") }
        m.realm.performWrite(what) { w in
            var writer = ObjectWriter(realm: m.realm, transaction: w, update: .error)
            try body(try m.realm.table(m.owner), m, &writer)
            writer.finish()
        }
    }

    func storageValue(_ e: Element, _ writer: inout ObjectWriter) throws -> StorageValue {
        if let o = e as? Object { return .link(try writer.add(o)) }
        if let v = e as? AnyRealmValue { return try writer.mixedValue(v) }
        if let v = e._atollStorageValue { return v }
        if let optional = e as? any OptionalProtocol, optional.isNone { return .null }
        if let o = flattenOptional(e) as? Object { return .link(try writer.add(o)) }
        throw AtollError(.typeMismatch, "cannot store \(e) in a list")
    }

    /// Appends an element. Managed lists change only inside a write transaction; an unmanaged
    /// object appended to a managed list is added to the realm.
    public func append(_ element: Element) {
        guard managed != nil else { storage.append(element); return }
        write("append") { t, m, w in
            let value = try storageValue(element, &w)
            try t.listAppend(m.key, m.column, value)
        }
    }

    /// Appends every element of a sequence (for example `Results`), in order: one list write
    /// when managed. O(n + k) for k elements appended to a list of n.
    public func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
        insert(contentsOf: Array(elements), at: managed == nil ? storage.count : count)
    }

    /// RealmSwift's spelling of `append(contentsOf:)`.
    public func append<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        append(contentsOf: elements)
    }

    /// Inserts an element at `index`.
    public func insert(_ element: Element, at index: Int) {
        guard managed != nil else { storage.insert(element, at: index); return }
        write("insert") { t, m, w in try t.listInsert(m.key, m.column, at: index, try storageValue(element, &w)) }
    }

    /// Removes the element at `index` (the object itself stays in the realm).
    public func remove(at index: Int) {
        guard managed != nil else { storage.remove(at: index); return }
        write("remove") { t, m, _ in try t.listRemove(m.key, m.column, at: index) }
    }

    /// Removes every element (the objects themselves stay in the realm).
    public func removeAll() {
        guard managed != nil else { storage.removeAll(); return }
        write("removeAll") { t, m, _ in try t.listClear(m.key, m.column) }
    }

    /// Replaces the element at `index`.
    public func replace(index: Int, object: Element) {
        guard managed != nil else { storage[index] = object; return }
        write("replace") { t, m, w in try t.listSet(m.key, m.column, at: index, try storageValue(object, &w)) }
    }

    /// Moves the element at `from` to `to`.
    public func move(from: Int, to: Int) {
        guard managed != nil else { let e = storage.remove(at: from); storage.insert(e, at: to); return }
        write("move") { t, m, _ in try t.listMove(m.key, m.column, from: from, to: to) }
    }

    /// Exchanges two elements.
    public func swapAt(_ index1: Int, _ index2: Int) {
        guard index1 != index2 else { return }
        let a = self[index1], b = self[index2]
        replace(index: index1, object: b)
        replace(index: index2, object: a)
    }
}

extension List where Element: Object {
    /// The position of an object in the list, or nil.
    public func index(of object: Element) -> Int? {
        guard managed != nil else { return storage.firstIndex { $0 === object } }
        guard let m = managed, let state = object._managed, m.realm.owns(state) else { return nil }
        return stored().firstIndex(of: .link(state.key))
    }

    private func results() -> Results<Element> {
        guard let m = managed else { atollProgrammerError("filter/sorted need a managed List") }
        let b = m.realm.requireBinding(for: Element.self)
        return Results(core: ResultsCore(realm: m.realm, binding: b, source: .list(owner: m.owner, key: m.key, column: m.column), query: nil))
    }

    /// The list's objects matching a predicate, in list order.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        do { return try results().filter(throwing: predicateFormat, args) } catch { atollProgrammerError("invalid query: \(error)") }
    }

    /// The list's objects sorted by a property, as live `Results`.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        results().sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The list's objects sorted by several properties, as live `Results`.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        results().sorted(by: descriptors)
    }

    /// The list as live Results (for aggregates and notifications).
    public var asResults: Results<Element> { results() }
}

extension List where Element: Comparable {
    /// The smallest element, or nil when empty. O(n).
    public func min() -> Element? { Array(self).min() }
    /// The largest element, or nil when empty. O(n).
    public func max() -> Element? { Array(self).max() }
    /// The elements in ascending (or descending) order, as an array. O(n log n).
    public func sorted(ascending: Bool = true) -> [Element] { ascending ? Array(self).sorted() : Array(self).sorted(by: >) }
}

extension List where Element: AdditiveArithmetic {
    /// The sum of the elements (zero when empty). O(n).
    public func sum() -> Element { Array(self).reduce(.zero, +) }
}

extension List where Element: BinaryInteger {
    /// The mean of the elements, or nil when empty. O(n).
    public func average() -> Double? { isEmpty ? nil : Double(Array(self).reduce(0) { $0 + Int64($1) }) / Double(count) }
}

extension List where Element: BinaryFloatingPoint {
    /// The mean of the elements, or nil when empty. O(n).
    public func average() -> Double? { isEmpty ? nil : Double(Array(self).reduce(0, +)) / Double(count) }
}

extension List: PersistableValue {
    public static var _atollType: _PropertyType {
        let e = Element._atollType
        let target: ObjectIdentifier? = if case .link(let id) = e.kind { id } else { nil }
        return _PropertyType(kind: .list(e.columnType ?? .int, target: target), isOptional: e.isOptional, intBits: e.intBits, objectType: e.objectType)
    }

    public static func _atollDefault() -> List<Element> { List() }

    public static func _atollGet(_ a: _ManagedAccess) -> List<Element> {
        List(managed: Managed(realm: a.realm, owner: a.state.binding, key: a.key, column: a.column))
    }

    public static func _atollFromStorage(_ value: StorageValue, realm: Realm?) -> List<Element>? { nil }

    public var _atollStorageValue: StorageValue? { nil }
}

extension List: _ListProtocol {
    /// An empty unmanaged list of this type (dynamic APIs).
    public static func makeUnmanaged() -> any _ListProtocol { List<Element>() }

    /// The elements as `Any` (dynamic APIs).
    public var anyElements: [Any?] { map { flattenOptional($0) } }

    /// Replaces the elements with those of an array (dynamic APIs); nil empties the list.
    public func replaceAll(with value: Any?, property: PropertyInfo) throws {
        guard let value = flattenOptional(value) else { removeAll(); return }
        guard let items = ObjectWriter.listItems(value) else {
            throw AtollError(.typeMismatch, "invalid value \(ValueConversion.describe(value)) for list property '\(property.name)'")
        }
        var converted: [Element] = []
        for item in items {
            // Objects without a cast of a nested value (which would bridge all of it).
            if let e = Element.self is AnyClass ? instance(item, of: Element.self) : item as? Element { converted.append(e); continue }
            if let flat = flattenOptional(item), PropertyInfo.isNestedValue(flat), let objectType = Element.self as? Object.Type,
               let e = Object.makeUnmanaged(objectType, value: flat) as? Element {
                // A dictionary or array describing an object of the list: a new unmanaged one.
                converted.append(e)
                continue
            }
            if let flat = flattenOptional(item), let t = Element._atollType.columnType, let stored = ValueConversion.scalar(flat, type: t),
               let e = Element._atollFromStorage(stored, realm: nil) { converted.append(e); continue }
            if flattenOptional(item) == nil, Element._atollType.isOptional { converted.append(Element._atollDefault()); continue }
            throw AtollError(.typeMismatch, "invalid element \(ValueConversion.describe(item)) for list property '\(property.name)'")
        }
        removeAll()
        append(contentsOf: converted)
    }
}
