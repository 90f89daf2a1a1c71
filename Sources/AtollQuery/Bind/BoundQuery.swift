/// A query checked against a schema: every key path resolved to properties, every constant and
/// argument converted to the type it is compared with. This is what an evaluator runs.
///
/// ```swift
/// let query = try BoundQuery("age > $0 AND owner.name BEGINSWITH[c] 'a' SORT(age DESC) LIMIT(5)",
///                            on: "Dog", schema: schema, arguments: [3])
/// // query.predicate: .and([age > .int(3), owner.name BEGINSWITH[c] .string("a")])
/// // query.clauses:   [.sort([age descending]), .limit(5)]
/// ```
///
/// Invariants the binder guarantees (an evaluator may rely on them without checking):
/// - In every ``BoundComparison`` the left side is never a constant, and the right side is never a
///   key path through a collection.
/// - Constants have the comparison's ``BoundComparison/valueType`` (with one numeric exception,
///   documented there), or are `.null`.
/// - `.in` has a `.constant(.list(…))` on the right; `.between` a two-element list.
public struct BoundQuery: Sendable, Hashable {
    /// The class whose objects the query selects.
    public var className: String
    public var predicate: BoundPredicate
    /// SORT, DISTINCT and LIMIT in the order they apply.
    public var clauses: [BoundResultClause]

    public init(className: String, predicate: BoundPredicate, clauses: [BoundResultClause] = []) {
        self.className = className
        self.predicate = predicate
        self.clauses = clauses
    }

    /// The query that a chained `filter` produces: both predicates must hold, and this query's
    /// clauses apply before `other`'s.
    public func combined(with other: BoundQuery) -> BoundQuery {
        BoundQuery(className: className, predicate: predicate.and(other.predicate), clauses: clauses + other.clauses)
    }
}

public indirect enum BoundPredicate: Sendable, Hashable {
    /// TRUEPREDICATE / FALSEPREDICATE.
    case constant(Bool)
    case not(BoundPredicate)
    /// All operands hold (true when empty).
    case and([BoundPredicate])
    /// At least one operand holds (false when empty).
    case or([BoundPredicate])
    case comparison(BoundComparison)

    /// `self AND other`, flattening nested ANDs and dropping TRUEPREDICATE operands.
    public func and(_ other: BoundPredicate) -> BoundPredicate {
        func operands(_ predicate: BoundPredicate) -> [BoundPredicate] {
            switch predicate {
            case .and(let operands): operands
            case .constant(true): []
            default: [predicate]
            }
        }
        let all = operands(self) + operands(other)
        return all.isEmpty ? .constant(true) : all.count == 1 ? all[0] : .and(all)
    }
}

/// `[quantifier] left <operator>[options] right`.
///
/// Evaluation, per object:
/// 1. Take the values of ``left``: one value, or for a key path through a list or linking
///    objects (``BoundKeyPath/isToMany``) every value reached (flattened across several
///    collections), possibly none.
/// 2. Test each against ``right`` with ``operator``:
///    - `==`, `!=` and orderings compare in ``valueType``; `nil == nil` holds, `nil` is not equal to
///      any value, and an ordering or BETWEEN with a nil value on either side is false.
///    - string operators use ``StringMatcher`` (``BinaryMatcher`` for data) with ``options``;
///      `==`/`!=`/`IN` with options do too (`.equal`). A nil value on either side never matches
///      a string operator.
///    - `.in`: equal to at least one element of the list. `.between`: low ≤ value ≤ high.
///    - strings order by ``StringOrdering``; ObjectIds bytewise; timestamps by (seconds, nanoseconds).
/// 3. Combine with ``quantifier``: ANY — some value passed; ALL — every value passed (true when
///    there are none); NONE — no value passed (true when there are none). For a single-valued
///    left side the quantifier is always `.any`.
public struct BoundComparison: Sendable, Hashable {
    public var quantifier: Quantifier
    /// A key path, @count, aggregate or SUBQUERY count; never a constant.
    public var left: BoundExpression
    public var `operator`: ComparisonOperator
    /// A constant, or a single-valued key path / @count / aggregate / SUBQUERY count.
    public var right: BoundExpression
    /// `[c]`, `[d]`, `[cd]`: only present when ``valueType`` is `.string` or `.data`.
    public var options: StringComparisonOptions
    /// The type of the left side's values, which the comparison is made in.
    ///
    /// Constants on the right have this type, except one numeric case: when an `.int` left side
    /// is compared with a non-integral constant (`age > 2.5`) the constant stays `.double` and
    /// must be compared numerically (2 < 2.5 < 3), as Realm does. Key paths, counts and
    /// aggregates on the right may have any numeric type when this one is numeric.
    public var valueType: QueryValueType
    /// Where the comparison's operator is in the query string.
    public var offset: Int

    public init(
        quantifier: Quantifier = .any, left: BoundExpression, operator: ComparisonOperator, right: BoundExpression,
        options: StringComparisonOptions = [], valueType: QueryValueType, offset: Int
    ) {
        self.quantifier = quantifier
        self.left = left
        self.operator = `operator`
        self.right = right
        self.options = options
        self.valueType = valueType
        self.offset = offset
    }
}

public indirect enum BoundExpression: Sendable, Hashable {
    case constant(QueryValue)
    /// The value(s) at the end of a key path.
    case keyPath(BoundKeyPath)
    /// `path.@count` / `path.@size`: how many values the path reaches (0 when none). Int.
    /// When the path reaches a single string or binary value (``BoundKeyPath/measuresLength``),
    /// its length in bytes instead, or nil for a nil value (realm-core's `@size` of a string).
    case count(BoundKeyPath)
    /// `@min`, `@max`, `@sum`, `@avg` over the values a key path reaches.
    case aggregate(BoundAggregate)
    /// `SUBQUERY(…).@count`. Int.
    case subqueryCount(BoundSubquery)
    /// `path.@type`: the type name (``QueryValue/typeName``) of each value of a mixed key path,
    /// as a string; streamed like the key path's values on the left side.
    case typeOf(BoundKeyPath)
}

/// A chain of properties from the object being tested (or, inside a SUBQUERY, from the element
/// being iterated) to the values compared.
///
/// `owner.name` on Dog is two steps: (Dog, owner: link to Person), (Person, name: string).
public struct BoundKeyPath: Sendable, Hashable, CustomStringConvertible {
    /// The class the first step belongs to.
    public var rootClassName: String
    /// Empty only for a SUBQUERY variable used on its own (`$x == $0`): the element itself.
    public var steps: [BoundKeyPathStep]
    /// The type of the values at the end (`.object` for links, lists of objects, the element itself).
    public var valueType: QueryValueType
    /// The class of those values when ``valueType`` is `.object`.
    public var objectClassName: String?
    /// Whether some step is a list or linking objects, so the path reaches any number of values.
    public var isToMany: Bool
    /// Whether a value reached can be nil: the last property is optional (or a to-one link), or a
    /// to-one link on the way is nil (then the whole path is nil, as in Realm).
    public var canBeNull: Bool

    public init(rootClassName: String, steps: [BoundKeyPathStep], valueType: QueryValueType, objectClassName: String?, isToMany: Bool, canBeNull: Bool) {
        self.rootClassName = rootClassName
        self.steps = steps
        self.valueType = valueType
        self.objectClassName = objectClassName
        self.isToMany = isToMany
        self.canBeNull = canBeNull
    }

    /// Whether `@count`/`@size` of this path is the length of the one string or binary value it
    /// reaches rather than the number of values: a to-one path ending in a string or data property.
    public var measuresLength: Bool {
        guard !isToMany, let last = steps.last?.property, !last.isList else { return false }
        return last.type == .string || last.type == .data
    }

    /// The path as written with property names: "owner.name", "@links.Project.items.quota",
    /// "scores['math']", "scores.@keys", "self".
    public var description: String {
        guard !steps.isEmpty else { return "self" }
        return steps.map { step in
            switch step.mapAccess {
            case .key(let key)?: "\(step.property.name)['\(key)']"
            case .keys?: "\(step.property.name).@keys"
            case .collection?: step.property.name + step.mixedPath.map(\.spelling).joined()
            case nil: step.property.name + step.mixedPath.map(\.spelling).joined()
            }
        }.joined(separator: ".")
    }
}

public struct BoundKeyPathStep: Sendable, Hashable {
    /// The class that has ``property``.
    public var className: String
    /// For `@links.Class.property` steps the binder synthesizes a linking objects property named
    /// "@links.Class.property" whose `columnIndex` is that of the origin property on `Class`.
    public var property: QueryProperty
    /// For a map property: one key's value (`map['k']`) or the keys (`map.@keys`) instead of
    /// the values.
    public var mapAccess: MapAccess?
    /// For a mixed property: the way into the collections nested in its value
    /// (`value.key`, `value['key']`, `value[0]`, `value[*]`, `value.@size`, ...); empty for the value itself.
    public var mixedPath: [MixedPathElement] = []

    public init(className: String, property: QueryProperty, mapAccess: MapAccess? = nil) {
        self.className = className
        self.property = property
        self.mapAccess = mapAccess
    }

    /// Whether the step reaches any number of values: a list, set, map or linking objects,
    /// except one key of a map; in a mixed value, every element (`[*]`) or the keys.
    public var isToMany: Bool {
        if !mixedPath.isEmpty { return mixedPath.contains { $0 == .all || $0 == .keys } }
        if case .key = mapAccess { return false }
        return property.isToMany
    }
}

/// One step into the collections nested in a mixed value (realm-core's path elements).
public enum MixedPathElement: Sendable, Hashable {
    /// The value under a key of a nested dictionary (`.key`, `['key']`).
    case key(String)
    /// The element at a position of a nested list (`[0]`); negative counts from the end (`[LAST]` is -1).
    case index(Int)
    /// Every element of a nested list, or every value of a nested dictionary (`[*]`).
    case all
    /// The keys of a nested dictionary (`.@keys`), as strings.
    case keys
    /// The nested collection itself as one value, for `value[*] == {1, 2, 3}` (realm-core
    /// compares a list literal with the elements of `[*]` position by position): a list as
    /// `.list`, a dictionary as the `.list` of its values in key order; nothing for a value that
    /// is no collection. Only the binder puts it at the end of a path, in place of `[*]`.
    case whole

    /// How the element reads in a key path: `['key']`, `[0]`, `[LAST]`, `[*]`, `.@keys`.
    public var spelling: String {
        switch self {
        case .key(let key): return "['\(key)']"
        case .index(let i): return i == -1 ? "[LAST]" : "[\(i)]"
        case .all: return "[*]"
        case .keys: return ".@keys"
        case .whole: return "[*]"
        }
    }
}

/// What a key path reads of a map.
public enum MapAccess: Sendable, Hashable {
    /// `map['key']`: the value under the key; nil when the map has no such key.
    case key(String)
    /// `map.@keys`: the keys, as strings.
    case keys
    /// A list or map of mixed values read as one mixed list or dictionary, for the step's
    /// `mixedPath` (`list[0].k`, `dict[*]`, `dict['a'][0]`).
    case collection
}

/// `items.@avg.priority` (values: `items.priority`) or `scores.@max` (values: `scores`).
///
/// nil values are skipped. Over no values @min, @max and @avg are nil and @sum is 0.
public struct BoundAggregate: Sendable, Hashable {
    public var function: AggregateFunction
    /// A to-many path to the numeric (or, for @min/@max, date) values aggregated.
    public var values: BoundKeyPath
    /// @min/@max: the values' type. @sum: int for ints, double for floats and doubles. @avg: double.
    public var resultType: QueryValueType

    public init(function: AggregateFunction, values: BoundKeyPath, resultType: QueryValueType) {
        self.function = function
        self.values = values
        self.resultType = resultType
    }
}

public enum AggregateFunction: String, Sendable, Hashable {
    case min = "@min", max = "@max", sum = "@sum", avg = "@avg"

    /// Whether the result is nil for an empty collection (so it may be compared with nil).
    public var isNilWhenEmpty: Bool { self != .sum }
}

/// `SUBQUERY(collection, $x, predicate)`: the elements of `collection` for which `predicate`
/// holds. Inside `predicate`, key paths (with or without `$x.`) start at the element.
public struct BoundSubquery: Sendable, Hashable {
    /// A to-many path to objects.
    public var collection: BoundKeyPath
    /// The class of the elements, the root class of every key path in ``predicate``.
    public var elementClassName: String
    public var predicate: BoundPredicate

    public init(collection: BoundKeyPath, elementClassName: String, predicate: BoundPredicate) {
        self.collection = collection
        self.elementClassName = elementClassName
        self.predicate = predicate
    }
}

/// SORT, DISTINCT and LIMIT, applied in the order written.
public enum BoundResultClause: Sendable, Hashable {
    /// Stable sort by the keys in order; nil sorts first (ascending). Strings use ``StringOrdering``.
    case sort([BoundSortKey])
    /// Keep the first object of each distinct combination of these to-one key paths' values.
    case distinct([BoundKeyPath])
    /// Keep at most this many objects.
    case limit(Int)
}

public struct BoundSortKey: Sendable, Hashable {
    /// A to-one key path to a value (not a link or list).
    public var keyPath: BoundKeyPath
    public var ascending: Bool

    public init(keyPath: BoundKeyPath, ascending: Bool) {
        self.keyPath = keyPath
        self.ascending = ascending
    }
}
