public import AtollStorage

/// The key type of a `Map` (as RealmSwift: only `String`).
public protocol _MapKey: Hashable, Comparable, Sendable {
    var _atollMapKey: String { get }
    init(_atollMapKey: String)
}

extension String: _MapKey {
    public var _atollMapKey: String { self }
    public init(_atollMapKey key: String) { self = key }
}

/// Type-erased access to `Map`, for dynamic APIs.
public protocol _MapProtocol: AnyObject {
    static func makeUnmanaged() -> any _MapProtocol
    /// The entries, sorted by key, values as `Any`.
    var anyEntries: [(String, Any?)] { get }
    func replaceAll(with value: Any?, property: PropertyInfo) throws
}

/// One entry of a `Map` (what iterating a map gives).
public struct SingleMapEntry<Key: _MapKey, Value: RealmCollectionValue>: Hashable {
    /// The entry's key.
    public var key: Key
    /// The entry's value.
    public var value: Value
}

/// Values or objects under string keys: `@Persisted var scores: Map<String, Int?>`.
///
/// Keys follow Realm's rules: not empty, no `.`, not starting with `$`; an invalid key makes the
/// enclosing write throw `.invalidArgument`. Managed, a map reads and writes the realm and keeps
/// its entries sorted by key (UTF-8 bytes): `keys`, `values` and iteration are in that order.
/// A map of objects needs optional values (`Map<String, Dog?>`): deleting an object makes the
/// values that linked to it nil, and keeps their keys.
///
/// ```swift
/// try realm.write {
///     player.scores["level1"] = 10
///     player.scores["level2"] = nil      // removes the key
/// }
/// player.scores["level1"] // Optional(10)
/// ```
public final class Map<Key: _MapKey, Value: RealmCollectionValue>: CustomStringConvertible {
    /// Unmanaged entries.
    var storage: [Key: Value] = [:] { didSet { if nestedLink != nil { nestedChanged() } } }
    /// Where the map lives when it is nested in a managed object's mixed value: its entries
    /// are then a copy that each change writes back (AnyRealmValue+Nested.swift).
    var nestedLink: NestedMixedLink?
    private(set) var managed: ManagedCollection?

    /// An empty, unmanaged map (in memory until its object is added to a realm).
    public init() {}

    init(managed: ManagedCollection) { self.managed = managed }

    /// The realm managing the map; nil while unmanaged.
    public var realm: Realm? { managed?.realm }
    /// Whether the map is a frozen snapshot (see `freeze()`).
    public var isFrozen: Bool { managed?.realm.isFrozen ?? false }
    /// True when the map's object was deleted.
    public var isInvalidated: Bool { managed?.isInvalidated ?? false }

    /// The stored entries, sorted by key; none once the object is deleted.
    func storedEntries() -> [(key: String, value: StorageValue)] {
        guard let m = managed else { return [] }
        return m.read { t, row in
            let view = try t.list(row, m.column).values
            return Array(zip(try t.mapKeys(row, m.column), view)).map { (key: $0.0, value: $0.1) }
        } ?? []
    }

    func value(_ v: StorageValue) -> Value {
        guard let m = managed else { return Value._atollDefault() }
        return CollectionElement.element(v, realm: m.realm)
    }

    /// The value stored under `key`: a collection nested in a mixed value writes back there.
    func value(_ v: StorageValue, key: String) -> Value {
        if v.isNestedCollection, let m = managed, let nested = NestedMixedLink.element(v, of: m, root: .mapValue(key)) as? Value { return nested }
        return value(v)
    }

    private static func sortedKeys(_ keys: some Sequence<Key>) -> [Key] {
        keys.sorted { $0._atollMapKey.utf8.lexicographicallyPrecedes($1._atollMapKey.utf8) }
    }

    // MARK: reading

    /// The number of entries.
    public var count: Int { managed == nil ? storage.count : storedEntries().count }

    /// Whether the map has no entries.
    public var isEmpty: Bool { count == 0 }

    /// The keys, sorted.
    public var keys: [Key] {
        guard managed != nil else { return Self.sortedKeys(storage.keys) }
        return storedEntries().map { Key(_atollMapKey: $0.key) }
    }

    /// The values, in the order of their keys.
    public var values: [Value] {
        guard managed != nil else { return Self.sortedKeys(storage.keys).compactMap { storage[$0] } }
        return storedEntries().map { value($0.value, key: $0.key) }
    }

    /// The value stored under `key`, or nil when there is none. Setting a value adds or
    /// replaces the entry; setting nil removes the key (as RealmSwift: to store nil in a map of
    /// optionals, use `updateValue(nil, forKey:)` or `map[key] = .some(nil)`).
    public subscript(key: Key) -> Value? {
        get {
            guard managed != nil else { return storage[key] }
            return storedEntries().first { $0.key == key._atollMapKey }.map { value($0.value, key: $0.key) }
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeObject(for: key) }
        }
    }

    /// The value under `key` as `Any`, or nil (RealmSwift's `object(forKey:)`).
    public func object(forKey key: Key) -> Value? { self[key] }

    /// Whether some entry satisfies `predicate`.
    public func contains(where predicate: (_ key: Key, _ value: Value) -> Bool) -> Bool {
        asKeyValueSequence().contains { predicate($0.key, $0.value) }
    }

    /// A short description: the types and the count.
    public var description: String { "Map<\(Key.self), \(Value.self)> (\(count) entries)" }

    /// The entries as `(key:, value:)` pairs, sorted by key.
    public func asKeyValueSequence() -> [(key: Key, value: Value)] {
        guard managed != nil else { return Self.sortedKeys(storage.keys).compactMap { k in storage[k].map { (key: k, value: $0) } } }
        return storedEntries().map { (key: Key(_atollMapKey: $0.key), value: value($0.value, key: $0.key)) }
    }

    // MARK: writing

    private func write(_ what: String, _ body: (Table, ManagedCollection, inout ObjectWriter) throws -> Void) {
        guard let m = managed else { return }
        m.write("Map", what) { t, w in try body(t, m, &w) }
    }

    /// Stores `value` under `key`, adding the entry or replacing its value. An unmanaged object
    /// stored in a managed map is added to the realm. An invalid key makes the write throw;
    /// on an unmanaged map it is a programming error.
    public func updateValue(_ value: Value, forKey key: Key) {
        guard managed != nil else {
            do { try MapKeyRules.validate(key._atollMapKey) } catch { atollProgrammerError("\(error)") }
            storage[key] = value
            return
        }
        write("updateValue") { t, m, w in
            try t.mapSet(m.key, m.column, key: key._atollMapKey, try CollectionElement.storageValue(value, &w, in: "map"))
        }
    }

    /// Removes `key` and its value, if present.
    public func removeObject(for key: Key) {
        guard managed != nil else { storage[key] = nil; return }
        write("removeObject") { t, m, _ in try t.mapRemove(m.key, m.column, key: key._atollMapKey) }
    }

    /// Removes every entry (objects themselves stay in the realm).
    public func removeAll() {
        guard managed != nil else { storage.removeAll(); return }
        write("removeAll") { t, m, _ in try t.mapClear(m.key, m.column) }
    }

    /// Adds the entries of `sequence`; for a key already present, stores what `combine`
    /// returns for the current and the new value.
    public func merge<S>(_ sequence: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows
        where S: Sequence, S.Element == (key: Key, value: Value)
    {
        for (key, value) in sequence {
            if let existing = self[key] {
                updateValue(try combine(existing, value), forKey: key)
            } else {
                updateValue(value, forKey: key)
            }
        }
    }

    /// Adds the entries of `other`, combining the values of keys present in both.
    public func merge(_ other: Map<Key, Value>, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(other.asKeyValueSequence(), uniquingKeysWith: combine)
    }
}

extension Map: Sequence {
    /// Iterates the entries, sorted by key.
    public func makeIterator() -> IndexingIterator<[SingleMapEntry<Key, Value>]> {
        asKeyValueSequence().map { SingleMapEntry(key: $0.key, value: $0.value) }.makeIterator()
    }
}

extension Map where Value: _AtollOptionalElement, Value._Wrapped: Object {
    /// The map's (non-nil) objects as live `Results`, in key order.
    public var asResults: Results<Value._Wrapped> {
        guard let m = managed else { atollProgrammerError("filter/sorted need a managed Map") }
        return m.results(Value._Wrapped.self)
    }

    /// The map's objects matching a predicate.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Value._Wrapped> {
        do { return try asResults.filter(throwing: predicateFormat, args) } catch { atollProgrammerError("invalid query: \(error)") }
    }

    /// The map's objects matching a type-safe query.
    public func `where`(_ isIncluded: (Query<Value._Wrapped>) -> Query<Bool>) -> Results<Value._Wrapped> {
        asResults.where(isIncluded)
    }

    /// The map's objects sorted by a property, as live `Results`.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Value._Wrapped> {
        asResults.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The map's objects sorted by several properties, as live `Results`.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Value._Wrapped> where S.Element == SortDescriptor {
        asResults.sorted(by: descriptors)
    }

    /// The smallest value of a property over the map's objects, or nil.
    public func min<T: PersistableValue>(ofProperty property: String) -> T? { asResults.min(ofProperty: property) }
    /// The largest value of a property over the map's objects, or nil.
    public func max<T: PersistableValue>(ofProperty property: String) -> T? { asResults.max(ofProperty: property) }
    /// The sum of a property over the map's objects.
    public func sum<T: PersistableValue & AdditiveArithmetic>(ofProperty property: String) -> T { asResults.sum(ofProperty: property) }
    /// The mean of a property over the map's objects, or nil.
    public func average<T: BinaryFloatingPoint>(ofProperty property: String) -> T? { asResults.average(ofProperty: property) }
}

extension Map where Value: Comparable {
    /// The smallest value, or nil when empty. O(n).
    public func min() -> Value? { values.min() }
    /// The largest value, or nil when empty. O(n).
    public func max() -> Value? { values.max() }
    /// The values in ascending (or descending) order, as an array. O(n log n).
    public func sorted(ascending: Bool = true) -> [Value] { ascending ? values.sorted() : values.sorted(by: >) }
}

extension Map where Value: AdditiveArithmetic {
    /// The sum of the values (zero when empty). O(n).
    public func sum() -> Value { values.reduce(.zero, +) }
}

extension Map where Value: BinaryInteger {
    /// The mean of the values, or nil when empty. O(n).
    public func average() -> Double? { let v = values; return v.isEmpty ? nil : Double(v.reduce(0) { $0 + Int64($1) }) / Double(v.count) }
}

extension Map where Value: BinaryFloatingPoint {
    /// The mean of the values, or nil when empty. O(n).
    public func average() -> Double? { let v = values; return v.isEmpty ? nil : Double(v.reduce(0, +)) / Double(v.count) }
}

extension Map where Value: _AtollOptionalElement, Value._Wrapped: Comparable {
    /// The smallest non-nil value, or nil. O(n).
    public func min() -> Value._Wrapped? { values.compactMap(\._atollWrapped).min() }
    /// The largest non-nil value, or nil. O(n).
    public func max() -> Value._Wrapped? { values.compactMap(\._atollWrapped).max() }
    /// The values, nil first then ascending (or the reverse), as an array. O(n log n).
    public func sorted(ascending: Bool = true) -> [Value] {
        let sorted = values.sorted { a, b in
            switch (a._atollWrapped, b._atollWrapped) {
            case (nil, nil): false
            case (nil, _): true
            case (_, nil): false
            case (let x?, let y?): x < y
            }
        }
        return ascending ? sorted : sorted.reversed()
    }
}

extension Map where Value: _AtollOptionalElement, Value._Wrapped: AdditiveArithmetic {
    /// The sum of the non-nil values. O(n).
    public func sum() -> Value._Wrapped { values.compactMap(\._atollWrapped).reduce(.zero, +) }
}

extension Map where Value: _AtollOptionalElement, Value._Wrapped: BinaryInteger {
    /// The mean of the non-nil values, or nil when there are none. O(n).
    public func average() -> Double? {
        let present = values.compactMap(\._atollWrapped)
        return present.isEmpty ? nil : Double(present.reduce(0) { $0 + Int64($1) }) / Double(present.count)
    }
}

extension Map where Value: _AtollOptionalElement, Value._Wrapped: BinaryFloatingPoint {
    /// The mean of the non-nil values, or nil when there are none. O(n).
    public func average() -> Double? {
        let present = values.compactMap(\._atollWrapped)
        return present.isEmpty ? nil : Double(present.reduce(0, +)) / Double(present.count)
    }
}

extension Map: PersistableValue {
    public static var _atollType: _PropertyType {
        let e = Value._atollType
        let target: ObjectIdentifier? = if case .link(let id) = e.kind { id } else { nil }
        return _PropertyType(kind: .map(e.columnType ?? .int, target: target), isOptional: e.isOptional, intBits: e.intBits, objectType: e.objectType)
    }

    public static func _atollDefault() -> Map<Key, Value> { Map() }

    public static func _atollGet(_ a: _ManagedAccess) -> Map<Key, Value> {
        Map(managed: ManagedCollection(realm: a.realm, owner: a.state.binding, key: a.key, column: a.column))
    }

    public static func _atollFromStorage(_ value: StorageValue, realm: Realm?) -> Map<Key, Value>? { nil }

    public var _atollStorageValue: StorageValue? { nil }
}

extension Map: _MapProtocol {
    /// An empty unmanaged map of this type (dynamic APIs).
    public static func makeUnmanaged() -> any _MapProtocol { Map<Key, Value>() }

    /// The entries, sorted by key, values as `Any` (dynamic APIs).
    public var anyEntries: [(String, Any?)] { asKeyValueSequence().map { ($0.key._atollMapKey, flattenOptional($0.value)) } }

    /// Replaces the entries with those of a dictionary or map (dynamic APIs); nil empties the map.
    public func replaceAll(with value: Any?, property: PropertyInfo) throws {
        guard let value = flattenOptional(value) else { removeAll(); return }
        guard let items = ObjectWriter.mapItems(value) else {
            throw AtollError(.typeMismatch, "invalid value \(ValueConversion.describe(value)) for map property '\(property.name)'")
        }
        var converted: [(Key, Value)] = []
        for (k, item) in items {
            try MapKeyRules.validate(k)
            let one = List<Value>()
            try one.replaceAll(with: [item], property: property)
            converted.append((Key(_atollMapKey: k), one[0]))
        }
        removeAll()
        for (k, v) in converted { updateValue(v, forKey: k) }
    }
}

extension Map {
    /// An immutable snapshot of this managed map, readable from any thread. An unmanaged map
    /// cannot be frozen (a programming error).
    public func freeze() -> Map<Key, Value> {
        guard let m = managed else { atollProgrammerError("an unmanaged Map cannot be frozen") }
        return m.realm.isFrozen ? self : Map(managed: m.frozen("Map"))
    }

    /// The live map for a frozen one, in a realm of the calling thread; nil when its object was
    /// deleted. A live map returns itself.
    public func thaw() -> Map<Key, Value>? {
        guard let m = managed, m.realm.isFrozen else { return self }
        return m.thawed().map { Map(managed: $0) }
    }
}
