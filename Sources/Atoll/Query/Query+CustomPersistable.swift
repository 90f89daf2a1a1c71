// Type-safe queries on CustomPersistable properties. The query language sees the persisted
// values: a value of the custom type in a query stands for its `persistableValue` (see
// `queryArgument`), so `==`, `!=` and `in` (defined for every Query) already work; this file
// adds the ordering operators where the persisted type has them, and `persistableValue` to
// reach the persisted type's own operators, as RealmSwift's `Query` does.

extension Query where T: _CustomPersistable {
    /// The persisted value, for the operators of its type: `$0.url.persistableValue.starts(with: "https")`.
    public var persistableValue: Query<T.PersistedType> { Query<T.PersistedType>(node) }
}

extension Query where T: _QueryOptional, T.Wrapped: _CustomPersistable {
    /// The persisted value of an optional custom value, nil when it is nil.
    public var persistableValue: Query<T.Wrapped.PersistedType?> { Query<T.Wrapped.PersistedType?>(node) }
}

extension Query where T: _QueryCollection, T.Element: _CustomPersistable {
    /// The persisted values of a list or set of custom values: `$0.temperatures.persistableValue.max > 30`.
    public var persistableValue: Query<List<T.Element.PersistedType>> { Query<List<T.Element.PersistedType>>(node) }
}

extension Query where T: _QueryKeyedCollection, T.Value: _CustomPersistable {
    /// The persisted values of a map of custom values: `$0.readings.persistableValue["noon"] > 30`.
    public var persistableValue: Query<Map<String, T.Value.PersistedType>> { Query<Map<String, T.Value.PersistedType>>(node) }
}

extension Query where T: _CustomPersistable, T.PersistedType: Comparable {
    /// Whether the persisted value is greater than `rhs`'s (`>`).
    public static func > (_ lhs: Query, _ rhs: T) -> Query<Bool> { .init(.comparison(.greaterThan, lhs.node, .constant(rhs), [])) }
    /// Whether the persisted value is greater than or equal to `rhs`'s (`>=`).
    public static func >= (_ lhs: Query, _ rhs: T) -> Query<Bool> { .init(.comparison(.greaterThanEqual, lhs.node, .constant(rhs), [])) }
    /// Whether the persisted value is less than `rhs`'s (`<`).
    public static func < (_ lhs: Query, _ rhs: T) -> Query<Bool> { .init(.comparison(.lessThan, lhs.node, .constant(rhs), [])) }
    /// Whether the persisted value is less than or equal to `rhs`'s (`<=`).
    public static func <= (_ lhs: Query, _ rhs: T) -> Query<Bool> { .init(.comparison(.lessThanEqual, lhs.node, .constant(rhs), [])) }
}

extension Query where T: _QueryOptional, T.Wrapped: _CustomPersistable, T.Wrapped.PersistedType: Comparable {
    /// Whether the persisted value is greater than `rhs`'s (`>`; nil compares as in the query language).
    public static func > (_ lhs: Query, _ rhs: T) -> Query<Bool> { .init(.comparison(.greaterThan, lhs.node, .constant(rhs), [])) }
    /// Whether the persisted value is greater than or equal to `rhs`'s (`>=`).
    public static func >= (_ lhs: Query, _ rhs: T) -> Query<Bool> { .init(.comparison(.greaterThanEqual, lhs.node, .constant(rhs), [])) }
    /// Whether the persisted value is less than `rhs`'s (`<`).
    public static func < (_ lhs: Query, _ rhs: T) -> Query<Bool> { .init(.comparison(.lessThan, lhs.node, .constant(rhs), [])) }
    /// Whether the persisted value is less than or equal to `rhs`'s (`<=`).
    public static func <= (_ lhs: Query, _ rhs: T) -> Query<Bool> { .init(.comparison(.lessThanEqual, lhs.node, .constant(rhs), [])) }
}
