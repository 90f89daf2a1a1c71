public import Foundation
import AtollStorage

// The operations RealmSwift's collections share (RealmCollection), on every collection of
// objects: Results, List and LinkingObjects. Lists and linking objects of a realm run them as
// live `Results` over the list or the backlinks (one query evaluation); an unmanaged list runs
// them over its objects in memory.

// MARK: Results

extension Results {
    /// The position of the first object matching a predicate, or nil. O(n) in the results.
    ///
    /// ```swift
    /// let i = dogs.index(matching: "name == %@", "Rex")
    /// ```
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        index(matchingQuery: predicateFormat, args)
    }

    func index(matchingQuery predicateFormat: String, _ args: [Any]) -> Int? {
        let matching: Results<Element>
        do { matching = try filter(throwing: predicateFormat, args) } catch { atollProgrammerError("invalid query: \(error)") }
        let wanted = Set(matching.core.keys())
        guard !wanted.isEmpty else { return nil }
        return core.keys().firstIndex { wanted.contains($0) }
    }

    /// The position of the first object for which `isIncluded` is true, or nil.
    public func index(matching isIncluded: (Element) throws -> Bool) rethrows -> Int? {
        try firstIndex(where: isIncluded)
    }

    /// The objects at `indexes`, in index order; an index out of bounds is a programming error.
    public func objects(at indexes: IndexSet) -> [Element] {
        let n = count
        if let bad = indexes.first(where: { $0 >= n }) { atollProgrammerError("index \(bad) is out of bounds (count \(n)): indexes for the collection are out of bounds") }
        return indexes.map { self[$0] }
    }

    /// The value at a key path for every object (`"owner.name"`), or, for a key path starting
    /// with a collection operator, its result: `@count`, `@min.age`, `@max.age`, `@sum.age`,
    /// `@avg.age` (a number, nil for an empty min/max/avg), `@unionOfObjects.name` (an array).
    /// O(n).
    public func value(forKeyPath keyPath: String) -> Any? {
        CollectionKeyPath.evaluate(keyPath, objects: Array(self))
    }
}

// MARK: List of objects

extension List where Element: Object {
    /// The position of the first object matching a predicate, or nil.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        if managed != nil { return asResults.index(matchingQuery: predicateFormat, args) }
        // An unmanaged list: evaluate against a temporary in-memory realm is not possible
        // without adding the objects; match with the closure form instead.
        atollProgrammerError("index(matching:) with a predicate needs a managed List; use index(matching: { ... }) on an unmanaged one")
    }

    /// The smallest value of a property (numbers and dates), or nil when there are none.
    public func min<T: PersistableValue>(ofProperty property: String) -> T? {
        if managed != nil { return asResults.min(ofProperty: property) }
        return AggregateValues.extreme(of: property, in: storage, smallest: true) as? T
    }

    /// The largest value of a property (numbers and dates), or nil when there are none.
    public func max<T: PersistableValue>(ofProperty property: String) -> T? {
        if managed != nil { return asResults.max(ofProperty: property) }
        return AggregateValues.extreme(of: property, in: storage, smallest: false) as? T
    }

    /// The sum of a numeric property (0 when empty).
    public func sum<T: PersistableValue & AdditiveArithmetic>(ofProperty property: String) -> T {
        if managed != nil { return asResults.sum(ofProperty: property) }
        return AggregateValues.sum(of: property, in: storage) as? T ?? .zero
    }

    /// The average of a numeric property, or nil when empty.
    public func average<T: BinaryFloatingPoint>(ofProperty property: String) -> T? {
        if managed != nil { return asResults.average(ofProperty: property) }
        return AggregateValues.average(of: property, in: storage).map { T($0) }
    }

    /// The first object of each distinct combination of the key paths' values, as live
    /// `Results` in list order.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        asResults.distinct(by: keyPaths)
    }

    /// The value at a key path for every object, or the result of a collection operator
    /// (`@count`, `@min.age`, `@max.age`, `@sum.age`, `@avg.age`, `@unionOfObjects.name`). O(n).
    public func value(forKeyPath keyPath: String) -> Any? {
        CollectionKeyPath.evaluate(keyPath, objects: Array(self))
    }
}

// MARK: List of anything

extension List {
    /// The position of the first element equal to `object`, or nil. O(n).
    public func index(of object: Element) -> Int? { firstIndex(of: object) }

    /// The position of the first element for which `isIncluded` is true, or nil.
    public func index(matching isIncluded: (Element) throws -> Bool) rethrows -> Int? {
        try firstIndex(where: isIncluded)
    }

    /// The elements at `indexes`, in index order; an index out of bounds is a programming error.
    public func objects(at indexes: IndexSet) -> [Element] {
        let all = Array(self)
        if let bad = indexes.first(where: { $0 >= all.count }) { atollProgrammerError("index \(bad) is out of bounds (count \(all.count)): indexes for the collection are out of bounds") }
        return indexes.map { all[$0] }
    }

    /// The list's first element, or nil. One read of the list when managed.
    public var first: Element? {
        guard managed != nil else { return storage.first }
        return stored().first.map { element($0, at: 0) }
    }

    /// The list's last element, or nil. One read of the list when managed.
    public var last: Element? {
        guard managed != nil else { return storage.last }
        let values = stored()
        return values.last.map { element($0, at: values.count - 1) }
    }
}

extension List where Element: Comparable {
    /// The distinct elements in list order (first occurrence kept). O(n).
    public func distinct() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}

/// Optional list elements, for the aggregates of lists of optionals (`List<Int?>`), which skip
/// nil as RealmSwift does.
public protocol _AtollOptionalElement {
    associatedtype _Wrapped
    var _atollWrapped: _Wrapped? { get }
}

extension Optional: _AtollOptionalElement {
    public var _atollWrapped: Wrapped? { self }
}

extension List where Element: _AtollOptionalElement, Element._Wrapped: Comparable {
    /// The smallest non-nil element, or nil. O(n).
    public func min() -> Element._Wrapped? { compactMap(\._atollWrapped).min() }
    /// The largest non-nil element, or nil. O(n).
    public func max() -> Element._Wrapped? { compactMap(\._atollWrapped).max() }
    /// The elements in ascending (or descending) order, nil first when ascending. O(n log n).
    public func sorted(ascending: Bool = true) -> [Element] {
        let all = Array(self)
        let nils = all.filter { $0._atollWrapped == nil }
        let values = all.filter { $0._atollWrapped != nil }.sorted { a, b in
            ascending ? a._atollWrapped! < b._atollWrapped! : a._atollWrapped! > b._atollWrapped!
        }
        return ascending ? nils + values : values + nils
    }
}

extension List where Element: _AtollOptionalElement, Element._Wrapped: AdditiveArithmetic {
    /// The sum of the non-nil elements (zero when there are none). O(n).
    public func sum() -> Element._Wrapped { compactMap(\._atollWrapped).reduce(.zero, +) }
}

extension List where Element: _AtollOptionalElement, Element._Wrapped: BinaryInteger {
    /// The mean of the non-nil elements, or nil when there are none. O(n).
    public func average() -> Double? {
        let values = compactMap(\._atollWrapped)
        return values.isEmpty ? nil : Double(values.reduce(0) { $0 + Int64($1) }) / Double(values.count)
    }
}

extension List where Element: _AtollOptionalElement, Element._Wrapped: BinaryFloatingPoint {
    /// The mean of the non-nil elements, or nil when there are none. O(n).
    public func average() -> Double? {
        let values = compactMap(\._atollWrapped)
        return values.isEmpty ? nil : values.reduce(0.0) { $0 + Double($1) } / Double(values.count)
    }
}

// MARK: LinkingObjects

extension LinkingObjects {
    private var live: Results<Element> {
        guard let results else { atollProgrammerError("an unmanaged object has no linking objects") }
        return results
    }

    /// The first linking object, or nil.
    public var first: Element? { results?.first }
    /// The last linking object, or nil.
    public var last: Element? { results?.last }

    /// The position of the first linking object matching a predicate, or nil.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        results?.index(matchingQuery: predicateFormat, args)
    }

    /// The position of the first linking object for which `isIncluded` is true, or nil.
    public func index(matching isIncluded: (Element) throws -> Bool) rethrows -> Int? {
        try firstIndex(where: isIncluded)
    }

    /// The linking objects at `indexes`, in index order.
    public func objects(at indexes: IndexSet) -> [Element] {
        guard let results else {
            if let bad = indexes.first { atollProgrammerError("index \(bad) is out of bounds (count 0)") }
            return []
        }
        return results.objects(at: indexes)
    }

    /// The linking objects sorted by several key paths, as live `Results`.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        live.sorted(by: descriptors)
    }

    /// The first object of each distinct combination of the key paths' values.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        live.distinct(by: keyPaths)
    }

    /// The smallest value of a property, or nil when there are none.
    public func min<T: PersistableValue>(ofProperty property: String) -> T? { results?.min(ofProperty: property) }
    /// The largest value of a property, or nil when there are none.
    public func max<T: PersistableValue>(ofProperty property: String) -> T? { results?.max(ofProperty: property) }
    /// The sum of a numeric property (0 when empty).
    public func sum<T: PersistableValue & AdditiveArithmetic>(ofProperty property: String) -> T { results?.sum(ofProperty: property) ?? .zero }
    /// The average of a numeric property, or nil when empty.
    public func average<T: BinaryFloatingPoint>(ofProperty property: String) -> T? { results?.average(ofProperty: property) }

    /// Sets `key` on every linking object (inside a write transaction).
    public func setValue(_ value: Any?, forKey key: String) { results?.setValue(value, forKey: key) }

    /// The value at a key path for every linking object, or a collection operator's result.
    public func value(forKeyPath keyPath: String) -> Any? {
        CollectionKeyPath.evaluate(keyPath, objects: Array(self))
    }

    /// An immutable snapshot of these linking objects, readable from any thread.
    public func freeze() -> LinkingObjects<Element> {
        guard let results else { atollProgrammerError("the linking objects of an unmanaged object cannot be frozen") }
        return LinkingObjects(results: results.freeze())
    }

    /// The live linking objects for frozen ones, in a realm of the calling thread; nil when
    /// the object they link to was deleted. Live ones return themselves.
    public func thaw() -> LinkingObjects<Element>? {
        guard let results else { return self }
        guard results.isFrozen else { return self }
        guard let live = results.thaw(), !live.isInvalidated else { return nil }
        return LinkingObjects(results: live)
    }
}

// MARK: helpers

/// Aggregates over objects in memory (unmanaged lists) and key-path operators.
enum AggregateValues {
    /// The stored values of `property` for `objects` (nil values left out).
    static func values(of property: String, in objects: [Object]) -> (PropertyInfo, [StorageValue])? {
        guard let first = objects.first else { return nil }
        guard let p = first.objectSchema[property] else { atollProgrammerError("'\(first.objectSchema.className)' has no property '\(property)'") }
        let values = objects.map { storedValue(of: p, $0.value(forKey: property)) }.filter { !$0.isNull }
        return (p, values)
    }

    static func extreme(of property: String, in objects: [Object], smallest: Bool) -> Any? {
        guard let (p, values) = values(of: property, in: objects) else { return nil }
        let best = smallest ? values.min(by: StorageOrdering.less) : values.max(by: StorageOrdering.less)
        return best.flatMap { ValueConversion.swiftValue($0, property: p, realm: nil) }
    }

    static func sum(of property: String, in objects: [Object]) -> Any? {
        guard let first = objects.first else { return 0 }
        guard let p = first.objectSchema[property] else { atollProgrammerError("'\(first.objectSchema.className)' has no property '\(property)'") }
        return sum(of: p, objects.map { $0.value(forKey: property) })
    }

    /// `value` as property `p` stores it. The values come from objects of the property's own
    /// class, so one that does not convert is a misuse (a value of another type set through KVC),
    /// never skipped: skipping it would return an aggregate of some of the values as if of all.
    static func storedValue(of p: PropertyInfo, _ value: Any?) -> StorageValue {
        do {
            return try p.storageValue(from: value, realm: nil)
        } catch {
            atollProgrammerError("cannot aggregate property '\(p.name)': \(error)")
        }
    }

    /// The sum of dynamic values of property `p`, in the property's type.
    static func sum(of p: PropertyInfo, _ raw: [Any?]) -> Any? {
        let values = raw.map { storedValue(of: p, $0) }.filter { !$0.isNull }
        switch p.atollType.columnType {
        case .int?:
            let total = values.reduce(Int64(0)) { if case .int(let i) = $1 { return $0 &+ i }; return $0 }
            return ValueConversion.swiftValue(.int(total), property: p, realm: nil)
        case .float?:
            return Float(values.reduce(0.0) { $0 + (StorageOrdering.double($1) ?? 0) })
        default:
            return values.reduce(0.0) { $0 + (StorageOrdering.double($1) ?? 0) }
        }
    }

    static func average(of property: String, in objects: [Object]) -> Double? {
        guard let (_, values) = values(of: property, in: objects), !values.isEmpty else { return nil }
        return values.reduce(0.0) { $0 + (StorageOrdering.double($1) ?? 0) } / Double(values.count)
    }
}

/// Key paths of collections: plain ones map over the objects, `@`-operators aggregate.
enum CollectionKeyPath {
    static func evaluate(_ keyPath: String, objects: [Object]) -> Any? {
        guard keyPath.hasPrefix("@") else { return objects.map { $0.value(forKeyPath: keyPath) } }
        let parts = keyPath.split(separator: ".", maxSplits: 1).map(String.init)
        let op = parts[0]
        if op == "@count" { return objects.count }
        guard parts.count == 2 else { atollProgrammerError("the collection operator '\(op)' needs a property: '\(op).property'") }
        let rest = parts[1]
        switch op {
        case "@min": return AggregateValues.extreme(of: rest, in: objects, smallest: true)
        case "@max": return AggregateValues.extreme(of: rest, in: objects, smallest: false)
        case "@sum": return AggregateValues.sum(of: rest, in: objects)
        case "@avg": return AggregateValues.average(of: rest, in: objects)
        case "@unionOfObjects": return objects.map { $0.value(forKeyPath: rest) }
        case "@distinctUnionOfObjects":
            var seen = Set<AnyHashable>()
            return objects.compactMap { $0.value(forKeyPath: rest) }.filter { ($0 as? AnyHashable).map { seen.insert($0).inserted } ?? true }
        default: atollProgrammerError("unsupported collection operator '\(op)' (use @count, @min, @max, @sum, @avg, @unionOfObjects, @distinctUnionOfObjects)")
        }
    }
}
