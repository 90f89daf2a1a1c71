import Foundation

/// Options of the string operators of `Query`: `[c]` and `[d]` in the query language.
public struct StringOptions: OptionSet, Sendable {
    public let rawValue: Int8
    public init(rawValue: Int8) { self.rawValue = rawValue }
    /// Case-insensitive (`[c]`): Unicode default caseless matching.
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// Diacritic-insensitive (`[d]`): 'é' matches 'e'.
    public static let diacriticInsensitive = StringOptions(rawValue: 2)
}

/// A type-safe query over the persisted properties of `T`, written as Swift expressions and
/// compiled to the same predicate text (and arguments) a string query would use, so it is bound,
/// planned and evaluated exactly like one (indexes, range tests and bitmaps apply unchanged).
///
/// You never make one yourself: `where`, `index(matching:)` and friends hand one to a closure.
///
/// ```swift
/// let puppies = realm.objects(Dog.self).where { $0.age < 2 && $0.name.starts(with: "r", options: .caseInsensitive) }
/// let owners = realm.objects(Person.self).where { $0.dogs.age.avg > 5 || $0.dogs.count == 0 }
/// let busy = realm.objects(Person.self).where { ($0.dogs.age > 3 && $0.dogs.name == "Rex").count >= 2 }
/// ```
///
/// | Swift | Query language |
/// |---|---|
/// | `$0.age == 3`, `!=`, `<`, `<=`, `>`, `>=` | `(age == %@)` ... |
/// | `$0.owner.name == "Ali"` | `(owner.name == %@)` |
/// | `$0.tags == "a"` (a list) | `(ANY tags == %@)` |
/// | `$0.name.contains("x", options: [.caseInsensitive])` | `(name CONTAINS[c] %@)` |
/// | `$0.age.contains(1...3)` | `(age BETWEEN {%@, %@})` |
/// | `$0.age.in([1, 2])` | `(age IN %@)` |
/// | `$0.dogs.count`, `$0.scores.avg`, `$0.dogs.age.max` | `dogs.@count`, `scores.@avg`, `dogs.@max.age` |
/// | `($0.dogs.age > 3).count > 1` | `SUBQUERY(dogs, $col1, ($col1.age > %@)).@count > %@` |
/// | `$0.active` / `!$0.active` | `active == true` / `active == false` |
@dynamicMemberLookup
public struct Query<T> {
    let node: QueryNode

    init(_ node: QueryNode) { self.node = node }

    /// The root of a query: no key path yet.
    init() { node = .keyPath(QueryKeyPath()) }

    /// For testing: the root query of `T` (RealmSwift's `_constructForTesting`).
    public static func _constructForTesting() -> Query<T> { Query<T>() }

    /// The predicate text and its arguments (`%@` placeholders, in order), exactly as
    /// RealmSwift's `Query` writes them.
    /// A query RealmSwift refuses (it raises an exception) stops the program here.
    public func _constructPredicate() -> (String, [Any]) {
        do { return try predicate() } catch { atollProgrammerError("\(error)") }
    }

    /// The predicate text and arguments, or `AtollError.invalidQuery` with RealmSwift's reason
    /// for a query it refuses (`$0.map["k"].name`: "Cannot apply key path to Map subscripts.").
    func predicate() throws -> (String, [Any]) {
        var builder = QueryPredicateBuilder()
        builder.build(node, isNewNode: true)
        if let problem = builder.problem { throw AtollError(.invalidQuery, problem) }
        return (builder.format, builder.arguments)
    }

    /// Why a key path or operator cannot follow this node, as RealmSwift words it. Such a
    /// query is kept, marked invalid, so that it is reported when it is used (a closure
    /// building a query cannot throw).
    private func refusal() -> QueryNode {
        switch node {
        case .invalid: node
        case .mapSubscript: .invalid("Cannot apply key path to Map subscripts.")
        default: .invalid("Cannot apply a keypath to \(describe())")
        }
    }

    private func appending(_ name: String, collection: Bool) -> QueryNode {
        guard case .keyPath(var path) = node else { return refusal() }
        path.append(name, isCollection: collection)
        return .keyPath(path)
    }

    /// The key path followed by a collection property (a comparison through it means ANY).
    func appendingCollection(_ name: String) -> QueryNode { appending(name, collection: true) }

    /// The key path followed by `name` (`@allKeys`...), keeping its implicit ANY.
    func appendingOperator(_ name: String) -> QueryNode {
        guard case .keyPath(var path) = node else { return refusal() }
        path.names.append(name)
        return .keyPath(path)
    }

    /// The key path with an aggregate (`@min`...) after its first collection.
    func aggregate(_ name: String) -> QueryNode {
        guard case .keyPath(var path) = node else { return refusal() }
        path.insertAggregate(name)
        return .keyPath(path)
    }

    /// The key path without its implicit ANY, optionally followed by `name` (`@count`...).
    func withoutAny(appending name: String? = nil) -> QueryNode {
        guard case .keyPath(var path) = node else { return refusal() }
        path.requiresAny = false
        if let name { path.names.append(name) }
        return .keyPath(path)
    }

    private func describe() -> String {
        var builder = QueryPredicateBuilder()
        builder.build(node, isNewNode: true)
        return builder.format
    }

    // MARK: key paths

    /// The property at `member` of the object, to compare or follow further.
    public subscript<V>(dynamicMember member: KeyPath<T, V>) -> Query<V> where T: Object {
        Query<V>(appending(KeyPathRecorder.name(member), collection: false))
    }

    /// The collection property at `member` of the object, to compare or follow further.
    public subscript<V: _QueryCollection>(dynamicMember member: KeyPath<T, V>) -> Query<V> where T: Object {
        Query<V>(appending(KeyPathRecorder.name(member), collection: true))
    }

    // MARK: equality

    /// Whether the value is equal to `rhs` (`==`).
    public static func == (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .init(.comparison(.equal, lhs.node, .constant(rhs), []))
    }
    /// Whether this property's value is equal to the other's (`a == b` in the query language).
    public static func == (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        .init(.comparison(.equal, lhs.node, rhs.node, []))
    }
    /// Whether the value is not equal to `rhs` (`!=`).
    public static func != (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .init(.comparison(.notEqual, lhs.node, .constant(rhs), []))
    }
    /// Whether this property's value is not equal to the other's (`a != b` in the query language).
    public static func != (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        .init(.comparison(.notEqual, lhs.node, rhs.node, []))
    }

    /// Whether the value is one of `collection`'s (`IN`).
    public func `in`<U: Sequence>(_ collection: U) -> Query<Bool> where U.Element == T {
        .init(.comparison(.in, node, .constant(Array(collection)), []))
    }
}

// MARK: - Optional links

extension Query where T: _QueryOptional {
    /// The property at `member` of the linked object (nil links match no value), to compare or follow further.
    public subscript<V>(dynamicMember member: KeyPath<T.Wrapped, V>) -> Query<V> where T.Wrapped: Object {
        Query<V>(appending(KeyPathRecorder.name(member), collection: false))
    }

    /// The collection property at `member` of the linked object (nil links match no value), to compare or follow further.
    public subscript<V: _QueryCollection>(dynamicMember member: KeyPath<T.Wrapped, V>) -> Query<V> where T.Wrapped: Object {
        Query<V>(appending(KeyPathRecorder.name(member), collection: true))
    }
}

// MARK: - Numbers and dates

extension Query where T: _QueryNumeric {
    /// Whether the value is greater than `rhs` (`>`).
    public static func > (_ lhs: Query, _ rhs: T) -> Query<Bool> { .init(.comparison(.greaterThan, lhs.node, .constant(rhs), [])) }
    /// Whether this property's value is greater than the other's (`a > b` in the query language).
    public static func > (_ lhs: Query, _ rhs: Query) -> Query<Bool> { .init(.comparison(.greaterThan, lhs.node, rhs.node, [])) }
    /// Whether the value is greater than or equal to `rhs` (`>=`).
    public static func >= (_ lhs: Query, _ rhs: T) -> Query<Bool> { .init(.comparison(.greaterThanEqual, lhs.node, .constant(rhs), [])) }
    /// Whether this property's value is greater than or equal to the other's (`a >= b` in the query language).
    public static func >= (_ lhs: Query, _ rhs: Query) -> Query<Bool> { .init(.comparison(.greaterThanEqual, lhs.node, rhs.node, [])) }
    /// Whether the value is less than `rhs` (`<`).
    public static func < (_ lhs: Query, _ rhs: T) -> Query<Bool> { .init(.comparison(.lessThan, lhs.node, .constant(rhs), [])) }
    /// Whether this property's value is less than the other's (`a < b` in the query language).
    public static func < (_ lhs: Query, _ rhs: Query) -> Query<Bool> { .init(.comparison(.lessThan, lhs.node, rhs.node, [])) }
    /// Whether the value is less than or equal to `rhs` (`<=`).
    public static func <= (_ lhs: Query, _ rhs: T) -> Query<Bool> { .init(.comparison(.lessThanEqual, lhs.node, .constant(rhs), [])) }
    /// Whether this property's value is less than or equal to the other's (`a <= b` in the query language).
    public static func <= (_ lhs: Query, _ rhs: Query) -> Query<Bool> { .init(.comparison(.lessThanEqual, lhs.node, rhs.node, [])) }

    /// The smallest value of this property over the objects of the collection on the key path
    /// (`$0.dogs.age.min` is `dogs.@min.age`).
    public var min: Query { Query(aggregate("@min")) }
    /// The largest value of this property over the objects of the collection on the key path.
    public var max: Query { Query(aggregate("@max")) }
    /// The mean of this property over the objects of the collection on the key path.
    public var avg: Query { Query(aggregate("@avg")) }
    /// The sum of this property over the objects of the collection on the key path.
    public var sum: Query { Query(aggregate("@sum")) }
}

// MARK: - Ranges

extension Query where T: Comparable {
    /// `lowerBound <= value < upperBound`.
    public func contains(_ range: Range<T>) -> Query<Bool> {
        .init(.comparison(.and, .comparison(.greaterThanEqual, node, .constant(range.lowerBound), []),
                          .comparison(.lessThan, node, .constant(range.upperBound), []), []))
    }

    /// `value BETWEEN {lowerBound, upperBound}`.
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> {
        .init(.between(node, .constant(range.lowerBound), .constant(range.upperBound)))
    }
}

extension Query where T: _QueryOptional, T.Wrapped: Comparable {
    /// `lowerBound <= value < upperBound` (nil is in no range).
    public func contains(_ range: Range<T.Wrapped>) -> Query<Bool> {
        .init(.comparison(.and, .comparison(.greaterThanEqual, node, .constant(range.lowerBound), []),
                          .comparison(.lessThan, node, .constant(range.upperBound), []), []))
    }

    /// `value BETWEEN {lowerBound, upperBound}` (nil is in no range).
    public func contains(_ range: ClosedRange<T.Wrapped>) -> Query<Bool> {
        .init(.between(node, .constant(range.lowerBound), .constant(range.upperBound)))
    }
}

// MARK: - Strings and binary data

extension Query where T: _QueryString {
    /// `LIKE`: `?` matches one character, `*` any run of characters.
    public func like(_ value: T, caseInsensitive: Bool = false) -> Query<Bool> {
        .init(.comparison(.like, node, .constant(value), caseInsensitive ? [.caseInsensitive] : []))
    }
    /// `LIKE` against another property.
    public func like<U>(_ column: Query<U>, caseInsensitive: Bool = false) -> Query<Bool> {
        .init(.comparison(.like, node, column.node, caseInsensitive ? [.caseInsensitive] : []))
    }
}

extension Query where T: _QueryBinary {
    /// `CONTAINS`.
    public func contains(_ value: T, options: StringOptions = []) -> Query<Bool> {
        .init(.comparison(.contains, node, .constant(value), options))
    }
    /// `CONTAINS` another property's value.
    public func contains<U>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> where U: _QueryBinary {
        .init(.comparison(.contains, node, column.node, options))
    }
    /// `BEGINSWITH`.
    public func starts(with value: T, options: StringOptions = []) -> Query<Bool> {
        .init(.comparison(.beginsWith, node, .constant(value), options))
    }
    /// `BEGINSWITH` another property's value.
    public func starts<U>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        .init(.comparison(.beginsWith, node, column.node, options))
    }
    /// `ENDSWITH`.
    public func ends(with value: T, options: StringOptions = []) -> Query<Bool> {
        .init(.comparison(.endsWith, node, .constant(value), options))
    }
    /// `ENDSWITH` another property's value.
    public func ends<U>(with column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        .init(.comparison(.endsWith, node, column.node, options))
    }
    /// `==` with options.
    public func equals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        .init(.comparison(.equal, node, .constant(value), options))
    }
    /// `==` another property's value, with options.
    public func equals<U>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        .init(.comparison(.equal, node, column.node, options))
    }
    /// `!=` with options.
    public func notEquals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        .init(.comparison(.notEqual, node, .constant(value), options))
    }
    /// `!=` another property's value, with options.
    public func notEquals<U>(_ column: Query<U>, options: StringOptions = []) -> Query<Bool> {
        .init(.comparison(.notEqual, node, column.node, options))
    }

    /// Whether the value is greater than `rhs` (`>`).
    public static func > (_ lhs: Query, _ rhs: T) -> Query<Bool> { .init(.comparison(.greaterThan, lhs.node, .constant(rhs), [])) }
    /// Whether this property's value is greater than the other's (`a > b` in the query language).
    public static func > (_ lhs: Query, _ rhs: Query) -> Query<Bool> { .init(.comparison(.greaterThan, lhs.node, rhs.node, [])) }
    /// Whether the value is greater than or equal to `rhs` (`>=`).
    public static func >= (_ lhs: Query, _ rhs: T) -> Query<Bool> { .init(.comparison(.greaterThanEqual, lhs.node, .constant(rhs), [])) }
    /// Whether this property's value is greater than or equal to the other's (`a >= b` in the query language).
    public static func >= (_ lhs: Query, _ rhs: Query) -> Query<Bool> { .init(.comparison(.greaterThanEqual, lhs.node, rhs.node, [])) }
    /// Whether the value is less than `rhs` (`<`).
    public static func < (_ lhs: Query, _ rhs: T) -> Query<Bool> { .init(.comparison(.lessThan, lhs.node, .constant(rhs), [])) }
    /// Whether this property's value is less than the other's (`a < b` in the query language).
    public static func < (_ lhs: Query, _ rhs: Query) -> Query<Bool> { .init(.comparison(.lessThan, lhs.node, rhs.node, [])) }
    /// Whether the value is less than or equal to `rhs` (`<=`).
    public static func <= (_ lhs: Query, _ rhs: T) -> Query<Bool> { .init(.comparison(.lessThanEqual, lhs.node, .constant(rhs), [])) }
    /// Whether this property's value is less than or equal to the other's (`a <= b` in the query language).
    public static func <= (_ lhs: Query, _ rhs: Query) -> Query<Bool> { .init(.comparison(.lessThanEqual, lhs.node, rhs.node, [])) }
}

// MARK: - Logic and subqueries

extension Query where T == Bool {
    /// The negation of a condition (`NOT`).
    public static prefix func ! (_ query: Query) -> Query<Bool> { .init(.not(query.node)) }
    /// Both conditions (`AND`).
    public static func && (_ lhs: Query, _ rhs: Query) -> Query<Bool> { .init(.comparison(.and, lhs.node, rhs.node, [])) }
    /// Either condition (`OR`).
    public static func || (_ lhs: Query, _ rhs: Query) -> Query<Bool> { .init(.comparison(.or, lhs.node, rhs.node, [])) }

    /// The number of objects of one collection matching this condition (a `SUBQUERY`):
    /// `($0.dogs.age > 3 && $0.dogs.name == "Rex").count >= 2`. Every key path in the
    /// condition must go through the same collection.
    public var count: Query<Int> { .init(.subqueryCount(node)) }
}

// MARK: - Collections (List, LinkingObjects)

extension Query where T: _QueryCollection {
    /// The property at `member` of each object of the collection (compared with ANY by default), to compare or follow further.
    public subscript<V>(dynamicMember member: KeyPath<T.Element, V>) -> Query<V> where T.Element: Object {
        Query<V>(appending(KeyPathRecorder.name(member), collection: false))
    }

    /// The collection property at `member` of each object of the collection (compared with ANY by default), to compare or follow further.
    public subscript<V: _QueryCollection>(dynamicMember member: KeyPath<T.Element, V>) -> Query<V> where T.Element: Object {
        Query<V>(appending(KeyPathRecorder.name(member), collection: true))
    }

    /// The number of elements (`@count`).
    public var count: Query<Int> { .init(withoutAny(appending: "@count")) }

    /// Whether the collection holds `value` (`%@ IN list`).
    public func contains(_ value: T.Element) -> Query<Bool> {
        .init(.comparison(.in, .constant(value), withoutAny(), []))
    }

    /// Whether the collection holds any of `collection`'s values (`ANY list IN %@`).
    public func containsAny<U: Sequence>(in collection: U) -> Query<Bool> where U.Element == T.Element {
        .init(.comparison(.in, node, .constant(Array(collection)), []))
    }

    /// Some element equals `rhs` (`ANY list == %@`).
    public static func == (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        .init(.comparison(.equal, lhs.node, .constant(rhs), []))
    }
    /// Some element differs from `rhs` (`ANY list != %@`).
    public static func != (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        .init(.comparison(.notEqual, lhs.node, .constant(rhs), []))
    }
}

extension Query where T: _QueryCollection, T.Element: Comparable {
    /// Every element in `range`: `list.@min >= lower && list.@max < upper`.
    public func contains(_ range: Range<T.Element>) -> Query<Bool> {
        .init(.comparison(.and, .comparison(.greaterThanEqual, withoutAny(appending: "@min"), .constant(range.lowerBound), []),
                          .comparison(.lessThan, withoutAny(appending: "@max"), .constant(range.upperBound), []), []))
    }
    /// Every element in `range`: `list.@min >= lower && list.@max <= upper`.
    public func contains(_ range: ClosedRange<T.Element>) -> Query<Bool> {
        .init(.comparison(.and, .comparison(.greaterThanEqual, withoutAny(appending: "@min"), .constant(range.lowerBound), []),
                          .comparison(.lessThanEqual, withoutAny(appending: "@max"), .constant(range.upperBound), []), []))
    }
}

extension Query where T: _QueryCollection, T.Element: _QueryOptional, T.Element.Wrapped: Comparable {
    /// Every element in `range`: `list.@min >= lower && list.@max < upper`.
    public func contains(_ range: Range<T.Element.Wrapped>) -> Query<Bool> {
        .init(.comparison(.and, .comparison(.greaterThanEqual, withoutAny(appending: "@min"), .constant(range.lowerBound), []),
                          .comparison(.lessThan, withoutAny(appending: "@max"), .constant(range.upperBound), []), []))
    }
    /// Every element in `range`: `list.@min >= lower && list.@max <= upper`.
    public func contains(_ range: ClosedRange<T.Element.Wrapped>) -> Query<Bool> {
        .init(.comparison(.and, .comparison(.greaterThanEqual, withoutAny(appending: "@min"), .constant(range.lowerBound), []),
                          .comparison(.lessThanEqual, withoutAny(appending: "@max"), .constant(range.upperBound), []), []))
    }
}

extension Query where T: _QueryCollection, T.Element: _QueryNumeric {
    /// Whether some element is greater than `rhs` (`ANY list > %@`).
    public static func > (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> { .init(.comparison(.greaterThan, lhs.node, .constant(rhs), [])) }
    /// Whether some element is greater than or equal to `rhs` (`ANY list >= %@`).
    public static func >= (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> { .init(.comparison(.greaterThanEqual, lhs.node, .constant(rhs), [])) }
    /// Whether some element is less than `rhs` (`ANY list < %@`).
    public static func < (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> { .init(.comparison(.lessThan, lhs.node, .constant(rhs), [])) }
    /// Whether some element is less than or equal to `rhs` (`ANY list <= %@`).
    public static func <= (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> { .init(.comparison(.lessThanEqual, lhs.node, .constant(rhs), [])) }

    /// The smallest element (`@min`).
    public var min: Query<T.Element> { .init(withoutAny(appending: "@min")) }
    /// The largest element (`@max`).
    public var max: Query<T.Element> { .init(withoutAny(appending: "@max")) }
    /// The mean of the elements (`@avg`).
    public var avg: Query<T.Element> { .init(withoutAny(appending: "@avg")) }
    /// The sum of the elements (`@sum`).
    public var sum: Query<T.Element> { .init(withoutAny(appending: "@sum")) }
}

// MARK: - Enums

extension Query where T: PersistableEnum {
    /// The stored raw value, for the operators of its type: `$0.size.rawValue > 1`,
    /// `$0.color.rawValue.starts(with: "r")` (`==`, `!=` and `in` take the enum itself).
    public var rawValue: Query<T.RawValue> { Query<T.RawValue>(node) }
}

extension Query where T: _QueryOptional, T.Wrapped: PersistableEnum {
    /// The stored raw value of an optional enum, nil when it is nil.
    public var rawValue: Query<T.Wrapped.RawValue?> { Query<T.Wrapped.RawValue?>(node) }
}

extension Query where T: _QueryCollection, T.Element: PersistableEnum {
    /// The raw values of a list of enums: `$0.sizes.rawValue.max > 2`.
    public var rawValue: Query<List<T.Element.RawValue>> { Query<List<T.Element.RawValue>>(node) }
}

extension Query where T: _QueryCollection, T.Element: _QueryOptional, T.Element.Wrapped: PersistableEnum {
    /// The raw values of a list of optional enums.
    public var rawValue: Query<List<T.Element.Wrapped.RawValue?>> { Query<List<T.Element.Wrapped.RawValue?>>(node) }
}

// MARK: - Marker protocols

/// Numbers and dates: what `<`, `>`, `.min`... accept in a `Query`.
public protocol _QueryNumeric {}
extension Int: _QueryNumeric {}
extension Int8: _QueryNumeric {}
extension Int16: _QueryNumeric {}
extension Int32: _QueryNumeric {}
extension Int64: _QueryNumeric {}
extension Float: _QueryNumeric {}
extension Double: _QueryNumeric {}
extension Date: _QueryNumeric {}
extension Optional: _QueryNumeric where Wrapped: _QueryNumeric {}

/// Strings and binary data: what `contains`, `starts(with:)`... accept in a `Query`.
public protocol _QueryBinary {}
extension Data: _QueryBinary {}
extension Optional: _QueryBinary where Wrapped: _QueryBinary {}

/// Strings: what `like` accepts in a `Query`.
public protocol _QueryString: _QueryBinary {}
extension String: _QueryString {}
extension Optional: _QueryString where Wrapped: _QueryString {}

/// Optionals, for the `Query` operations through an optional link or on an optional value.
public protocol _QueryOptional {
    associatedtype Wrapped
}
extension Optional: _QueryOptional {}

/// The collection properties a `Query` goes through: `List` and `LinkingObjects`. A
/// comparison through one means ANY element.
public protocol _QueryCollection {
    associatedtype Element
}
extension List: _QueryCollection {}
extension LinkingObjects: _QueryCollection {}
extension MutableSet: _QueryCollection {}
