public import AtollStorage

/// Type-erased access to `MutableSet`, for dynamic APIs.
public protocol _MutableSetProtocol: AnyObject {
    static func makeUnmanaged() -> any _MutableSetProtocol
    var anyElements: [Any?] { get }
    func replaceAll(with value: Any?, property: PropertyInfo) throws
}

/// An unordered collection of unique values or objects: `@Persisted var tags: MutableSet<String>`.
///
/// Unmanaged, it holds its elements in memory, in insertion order. Managed, every read and
/// write goes to the realm, and its elements are in Realm's set order (sorted by value: null
/// first, strings by their UTF-8 bytes, objects by their key); indices (`set[0]`, and those of
/// change notifications) are positions in that order. Deleting an object removes it from
/// every set.
///
/// ```swift
/// try realm.write {
///     person.tags.insert("swift")
///     person.tags.formUnion(other.tags)
/// }
/// person.tags.contains("swift") // true
/// ```
public final class MutableSet<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible {
    /// Unmanaged elements: unique, in insertion order.
    var storage: [Element] = []
    private(set) var managed: ManagedCollection?

    /// An empty, unmanaged set (in memory until its object is added to a realm).
    public init() {}

    init(managed: ManagedCollection) { self.managed = managed }

    /// The realm managing the set; nil while unmanaged.
    public var realm: Realm? { managed?.realm }
    /// Whether the set is a frozen snapshot (see `freeze()`).
    public var isFrozen: Bool { managed?.realm.isFrozen ?? false }
    /// True when the set's object was deleted.
    public var isInvalidated: Bool { managed?.isInvalidated ?? false }

    func stored() -> [StorageValue] { managed?.storedValues() ?? [] }

    func element(_ v: StorageValue) -> Element {
        guard let m = managed else { return Element._atollDefault() }
        return CollectionElement.element(v, realm: m.realm)
    }

    // MARK: reading

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The number of elements. O(1) unmanaged; managed, a read of the stored set.
    public var count: Int { managed == nil ? storage.count : stored().count }

    /// The element at `position` in the set's order. An index out of bounds is a programming error.
    public subscript(position: Int) -> Element {
        guard managed != nil else { return storage[position] }
        let values = stored()
        guard position >= 0 && position < values.count else { atollProgrammerError("index \(position) out of bounds (count \(values.count))") }
        return element(values[position])
    }

    /// Iterates the elements of the current version, in the set's order.
    public func makeIterator() -> IndexingIterator<[Element]> {
        guard managed != nil else { return storage.makeIterator() }
        return stored().map(element).makeIterator()
    }

    /// A short description: the element type and the count.
    public var description: String { "MutableSet<\(Element.self)> (\(count) elements)" }

    /// Whether the set holds `object`. Managed: O(n) to read the set, O(log n) to search it.
    public func contains(_ object: Element) -> Bool {
        guard let m = managed else { return storage.contains(object) }
        guard let v = CollectionElement.lookupValue(object, in: m.realm) else { return false }
        return SortedSearch.find(v, in: stored()).found
    }

    /// The position of `object` in the set's order, or nil.
    public func index(of object: Element) -> Int? {
        guard let m = managed else { return storage.firstIndex(of: object) }
        guard let v = CollectionElement.lookupValue(object, in: m.realm) else { return nil }
        let (i, found) = SortedSearch.find(v, in: stored())
        return found ? i : nil
    }

    /// Whether every element of this set is in `possibleSuperset`.
    public func isSubset(of possibleSuperset: MutableSet<Element>) -> Bool {
        allSatisfy { possibleSuperset.contains($0) }
    }

    /// Whether this set and `otherSet` have an element in common.
    public func intersects(_ otherSet: MutableSet<Element>) -> Bool {
        contains { otherSet.contains($0) }
    }

    // MARK: writing

    private func write(_ what: String, _ body: (Table, ManagedCollection, inout ObjectWriter) throws -> Void) {
        guard let m = managed else { return }
        m.write("MutableSet", what) { t, w in try body(t, m, &w) }
    }

    /// Adds `object` unless the set has it. An unmanaged object inserted into a managed set is
    /// added to the realm. Managed sets change only inside a write transaction.
    public func insert(_ object: Element) {
        guard managed != nil else {
            if !storage.contains(object) { storage.append(object) }
            return
        }
        write("insert") { t, m, w in try t.setInsert(m.key, m.column, try CollectionElement.storageValue(object, &w, in: "set")) }
    }

    /// Adds every element of `objects` that the set does not have.
    public func insert<S: Sequence>(objectsIn objects: S) where S.Iterator.Element == Element {
        guard managed != nil else {
            for o in objects where !storage.contains(o) { storage.append(o) }
            return
        }
        let items = Array(objects)
        write("insert(objectsIn:)") { t, m, w in
            for o in items { try t.setInsert(m.key, m.column, try CollectionElement.storageValue(o, &w, in: "set")) }
        }
    }

    /// Removes `object` if the set has it (an object itself stays in the realm).
    public func remove(_ object: Element) {
        guard let managedSet = managed else {
            storage.removeAll { $0 == object }
            return
        }
        guard let v = CollectionElement.lookupValue(object, in: managedSet.realm) else {
            write("remove") { _, _, _ in }
            return
        }
        write("remove") { t, m, _ in try t.setRemove(m.key, m.column, v) }
    }

    /// Removes every element (objects themselves stay in the realm).
    public func removeAll() {
        guard managed != nil else { storage.removeAll(); return }
        write("removeAll") { t, m, _ in try t.setClear(m.key, m.column) }
    }

    /// Keeps only the elements that are also in `other`.
    public func formIntersection(_ other: MutableSet<Element>) {
        let drop = filter { !other.contains($0) }
        guard managed != nil else { storage.removeAll { drop.contains($0) }; return }
        guard let realm = managed?.realm else { return }
        let values = drop.compactMap { CollectionElement.lookupValue($0, in: realm) }
        write("formIntersection") { t, m, _ in for v in values { try t.setRemove(m.key, m.column, v) } }
    }

    /// Removes the elements that are in `other`.
    public func subtract(_ other: MutableSet<Element>) {
        let drop = Array(other)
        guard let realm = managed?.realm else { storage.removeAll { drop.contains($0) }; return }
        let values = drop.compactMap { CollectionElement.lookupValue($0, in: realm) }
        write("subtract") { t, m, _ in for v in values { try t.setRemove(m.key, m.column, v) } }
    }

    /// Adds the elements of `other` that this set does not have.
    public func formUnion(_ other: MutableSet<Element>) {
        insert(objectsIn: Array(other))
    }
}

extension MutableSet where Element: Object {
    /// The set's objects as live `Results`, in the set's order (for queries, sorting, aggregates).
    public var asResults: Results<Element> {
        guard let m = managed else { atollProgrammerError("filter/sorted need a managed MutableSet") }
        return m.results(Element.self)
    }

    /// The set's objects matching a predicate.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        do { return try asResults.filter(throwing: predicateFormat, args) } catch { atollProgrammerError("invalid query: \(error)") }
    }

    /// The set's objects sorted by a property, as live `Results`.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        asResults.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The set's objects sorted by several properties, as live `Results`.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        asResults.sorted(by: descriptors)
    }

    /// The value of `key` for every object, in the set's order.
    public func value(forKey key: String) -> [Any?] { map { key == "self" ? $0 : $0.value(forKey: key) } }

    /// The smallest value of a property over the set's objects, or nil when empty.
    public func min<T: PersistableValue>(ofProperty property: String) -> T? { asResults.min(ofProperty: property) }
    /// The largest value of a property over the set's objects, or nil when empty.
    public func max<T: PersistableValue>(ofProperty property: String) -> T? { asResults.max(ofProperty: property) }
    /// The sum of a property over the set's objects.
    public func sum<T: PersistableValue & AdditiveArithmetic>(ofProperty property: String) -> T { asResults.sum(ofProperty: property) }
    /// The mean of a property over the set's objects, or nil when empty.
    public func average<T: BinaryFloatingPoint>(ofProperty property: String) -> T? { asResults.average(ofProperty: property) }
}

extension MutableSet: RealmCollection where Element: Object {
    /// The name of the objects' class.
    public var objectClassName: String { Element.className() }
}

extension MutableSet: _ObjectCollection where Element: Object {
    var _objects: [Object] { Array(self) }
}

extension MutableSet where Element: Comparable {
    /// The smallest element, or nil when empty. O(n).
    public func min() -> Element? { Array(self).min() }
    /// The largest element, or nil when empty. O(n).
    public func max() -> Element? { Array(self).max() }
    /// The elements in ascending (or descending) order, as an array. O(n log n).
    public func sorted(ascending: Bool = true) -> [Element] { ascending ? Array(self).sorted() : Array(self).sorted(by: >) }
}

extension MutableSet where Element: AdditiveArithmetic {
    /// The sum of the elements (zero when empty). O(n).
    public func sum() -> Element { Array(self).reduce(.zero, +) }
}

extension MutableSet where Element: BinaryInteger {
    /// The mean of the elements, or nil when empty. O(n).
    public func average() -> Double? { isEmpty ? nil : Double(Array(self).reduce(0) { $0 + Int64($1) }) / Double(count) }
}

extension MutableSet where Element: BinaryFloatingPoint {
    /// The mean of the elements, or nil when empty. O(n).
    public func average() -> Double? { isEmpty ? nil : Double(Array(self).reduce(0, +)) / Double(count) }
}

extension MutableSet where Element: _AtollOptionalElement, Element._Wrapped: Comparable {
    /// The smallest non-nil element, or nil. O(n).
    public func min() -> Element._Wrapped? { compactMap(\._atollWrapped).min() }
    /// The largest non-nil element, or nil. O(n).
    public func max() -> Element._Wrapped? { compactMap(\._atollWrapped).max() }
}

extension MutableSet where Element: _AtollOptionalElement, Element._Wrapped: AdditiveArithmetic {
    /// The sum of the non-nil elements. O(n).
    public func sum() -> Element._Wrapped { compactMap(\._atollWrapped).reduce(.zero, +) }
}

extension MutableSet where Element: _AtollOptionalElement, Element._Wrapped: BinaryInteger {
    /// The mean of the non-nil elements, or nil when there are none. O(n).
    public func average() -> Double? {
        let present = compactMap(\._atollWrapped)
        return present.isEmpty ? nil : Double(present.reduce(0) { $0 + Int64($1) }) / Double(present.count)
    }
}

extension MutableSet where Element: _AtollOptionalElement, Element._Wrapped: BinaryFloatingPoint {
    /// The mean of the non-nil elements, or nil when there are none. O(n).
    public func average() -> Double? {
        let present = compactMap(\._atollWrapped)
        return present.isEmpty ? nil : Double(present.reduce(0, +)) / Double(present.count)
    }
}

extension MutableSet: PersistableValue {
    public static var _atollType: _PropertyType {
        let e = Element._atollType
        let target: ObjectIdentifier? = if case .link(let id) = e.kind { id } else { nil }
        return _PropertyType(kind: .set(e.columnType ?? .int, target: target), isOptional: e.isOptional, intBits: e.intBits, objectType: e.objectType)
    }

    public static func _atollDefault() -> MutableSet<Element> { MutableSet() }

    public static func _atollGet(_ a: _ManagedAccess) -> MutableSet<Element> {
        MutableSet(managed: ManagedCollection(realm: a.realm, owner: a.state.binding, key: a.key, column: a.column))
    }

    public static func _atollFromStorage(_ value: StorageValue, realm: Realm?) -> MutableSet<Element>? { nil }

    public var _atollStorageValue: StorageValue? { nil }
}

extension MutableSet: _MutableSetProtocol {
    /// An empty unmanaged set of this type (dynamic APIs).
    public static func makeUnmanaged() -> any _MutableSetProtocol { MutableSet<Element>() }

    /// The elements as `Any` (dynamic APIs).
    public var anyElements: [Any?] { map { flattenOptional($0) } }

    /// Replaces the elements with those of an array or collection (dynamic APIs); nil empties the set.
    public func replaceAll(with value: Any?, property: PropertyInfo) throws {
        let list = List<Element>()
        try list.replaceAll(with: value, property: property)
        removeAll()
        insert(objectsIn: Array(list))
    }
}

extension MutableSet {
    /// An immutable snapshot of this managed set, readable from any thread. An unmanaged set
    /// cannot be frozen (a programming error).
    public func freeze() -> MutableSet<Element> {
        guard let m = managed else { atollProgrammerError("an unmanaged MutableSet cannot be frozen") }
        return m.realm.isFrozen ? self : MutableSet(managed: m.frozen("MutableSet"))
    }

    /// The live set for a frozen one, in a realm of the calling thread; nil when its object was
    /// deleted. A live set returns itself.
    public func thaw() -> MutableSet<Element>? {
        guard let m = managed, m.realm.isFrozen else { return self }
        return m.thawed().map { MutableSet(managed: $0) }
    }
}
