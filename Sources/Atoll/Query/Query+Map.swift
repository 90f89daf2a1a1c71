import Foundation

// Type-safe queries through maps (`Map<String, V>`), written as RealmSwift's `Query` writes
// them, so `_constructPredicate()` gives RealmSwift's text:
//
// | Swift | Query language |
// |---|---|
// | `$0.scores["math"] > 3` | `(scores[%@] > %@)` with the key as an argument |
// | `$0.scores.keys == "math"` | `(ANY scores.@allKeys == %@)` |
// | `$0.scores.values > 3` | `(ANY scores.@allValues > %@)` |
// | `$0.scores.contains(3)` | `(%@ IN scores)` |
// | `$0.scores.containsAny(in: [1, 3])` | `(ANY scores IN %@)` |
// | `$0.scores.count`, `.min`, `.max`, `.avg`, `.sum` | `scores.@count`, `scores.@min`... |
// | `$0.scores.contains(1...3)` | `((scores.@min >= %@) && (scores.@max <= %@))` |
//
// `@allKeys` and `@allValues` are the names RealmSwift's key-value predicates use; the query
// language takes them as `@keys` and `@values`.

extension Query {
    /// The map at `member` of the object, to query its values, keys or one key's value.
    public subscript<V: _QueryKeyedCollection>(dynamicMember member: KeyPath<T, V>) -> Query<V> where T: Object {
        Query<V>(appendingCollection(KeyPathRecorder.name(member)))
    }
}

extension Query where T: _QueryOptional {
    /// The map at `member` of the linked object (a nil link has no entries).
    public subscript<V: _QueryKeyedCollection>(dynamicMember member: KeyPath<T.Wrapped, V>) -> Query<V> where T.Wrapped: Object {
        Query<V>(appendingCollection(KeyPathRecorder.name(member)))
    }
}

extension Query where T: _QueryCollection {
    /// The map at `member` of each object of the collection.
    public subscript<V: _QueryKeyedCollection>(dynamicMember member: KeyPath<T.Element, V>) -> Query<V> where T.Element: Object {
        Query<V>(appendingCollection(KeyPathRecorder.name(member)))
    }
}

extension Query where T: _QueryKeyedCollection {
    /// Whether some value of the map is one of `collection`'s (`ANY map IN %@`).
    public func containsAny<U: Sequence>(in collection: U) -> Query<Bool> where U.Element == T.Value {
        .init(.comparison(.in, node, .constant(Array(collection)), []))
    }

    /// Whether some value of the map equals `value` (`%@ IN map`).
    public func contains(_ value: T.Value) -> Query<Bool> {
        .init(.comparison(.in, .constant(value), withoutAny(), []))
    }

    /// Each value of the map, compared with ANY by default: `$0.scores.values > 3`.
    public var values: Query<T.Value> {
        .init(appendingOperator("@allValues"))
    }

    /// The value stored under `key` (`map[%@]`); a missing key reads as no value (nil).
    public subscript(key: T.Key) -> Query<T.Value> {
        .init(.mapSubscript(withoutAny(), key: key._atollMapKey))
    }

    /// The number of entries (`@count`).
    public var count: Query<Int> { .init(withoutAny(appending: "@count")) }
}

extension Query where T: _QueryKeyedCollection, T.Key == String {
    /// Each key of the map, compared with ANY by default: `$0.scores.keys.starts(with: "m")`.
    public var keys: Query<String> {
        .init(appendingOperator("@allKeys"))
    }
}

extension Query where T: _QueryKeyedCollection, T.Value: Comparable {
    /// Every value in `range`: `map.@min >= lower && map.@max < upper`.
    public func contains(_ range: Range<T.Value>) -> Query<Bool> {
        .init(.comparison(.and, .comparison(.greaterThanEqual, withoutAny(appending: "@min"), .constant(range.lowerBound), []),
                          .comparison(.lessThan, withoutAny(appending: "@max"), .constant(range.upperBound), []), []))
    }
    /// Every value in `range`: `map.@min >= lower && map.@max <= upper`.
    public func contains(_ range: ClosedRange<T.Value>) -> Query<Bool> {
        .init(.comparison(.and, .comparison(.greaterThanEqual, withoutAny(appending: "@min"), .constant(range.lowerBound), []),
                          .comparison(.lessThanEqual, withoutAny(appending: "@max"), .constant(range.upperBound), []), []))
    }
}

extension Query where T: _QueryKeyedCollection, T.Value: _QueryOptional, T.Value.Wrapped: Comparable {
    /// Every value in `range`: `map.@min >= lower && map.@max < upper`.
    public func contains(_ range: Range<T.Value.Wrapped>) -> Query<Bool> {
        .init(.comparison(.and, .comparison(.greaterThanEqual, withoutAny(appending: "@min"), .constant(range.lowerBound), []),
                          .comparison(.lessThan, withoutAny(appending: "@max"), .constant(range.upperBound), []), []))
    }
    /// Every value in `range`: `map.@min >= lower && map.@max <= upper`.
    public func contains(_ range: ClosedRange<T.Value.Wrapped>) -> Query<Bool> {
        .init(.comparison(.and, .comparison(.greaterThanEqual, withoutAny(appending: "@min"), .constant(range.lowerBound), []),
                          .comparison(.lessThanEqual, withoutAny(appending: "@max"), .constant(range.upperBound), []), []))
    }
}

extension Query where T: _QueryKeyedCollection, T.Value: _QueryNumeric {
    /// The smallest value (`@min`).
    public var min: Query<T.Value> { .init(withoutAny(appending: "@min")) }
    /// The largest value (`@max`).
    public var max: Query<T.Value> { .init(withoutAny(appending: "@max")) }
    /// The mean of the values (`@avg`).
    public var avg: Query<T.Value> { .init(withoutAny(appending: "@avg")) }
    /// The sum of the values (`@sum`).
    public var sum: Query<T.Value> { .init(withoutAny(appending: "@sum")) }
}

extension Query where T: _QueryKeyedCollection, T.Value: PersistableEnum {
    /// The raw values of a map of enums: `$0.sizes.rawValue.max > 2`.
    public var rawValue: Query<Map<T.Key, T.Value.RawValue>> { Query<Map<T.Key, T.Value.RawValue>>(node) }
}

extension Query where T: _QueryKeyedCollection, T.Value: _QueryOptional, T.Value.Wrapped: PersistableEnum {
    /// The raw values of a map of optional enums.
    public var rawValue: Query<Map<T.Key, T.Value.Wrapped.RawValue?>> { Query<Map<T.Key, T.Value.Wrapped.RawValue?>>(node) }
}

/// Maps: the keyed collections a `Query` goes through. A comparison through one means ANY value.
public protocol _QueryKeyedCollection {
    /// The key type (`String`).
    associatedtype Key: _MapKey
    /// The value type.
    associatedtype Value
}
extension Map: _QueryKeyedCollection {}
