/// The syntax tree of a query string, before it is checked against a schema.
///
/// Every node carries `offset`: the UTF-8 byte offset in the query string where it starts (for a
/// comparison, where its operator is), which error messages report.
///
/// ```swift
/// let parsed = try QueryParser.parse("age > 3 AND name BEGINSWITH[c] 'b' SORT(age DESC) LIMIT(10)")
/// // parsed.predicate: .and([.comparison(age > 3), .comparison(name BEGINSWITH[c] 'b')])
/// // parsed.clauses:   [.sort([age DESC]), .limit(10)]
/// ```
public struct ParsedQuery: Sendable, Hashable {
    public var predicate: PredicateNode
    /// SORT, DISTINCT and LIMIT in the order they were written (the order they apply in).
    public var clauses: [ResultClauseNode]
    /// How many `%@`/`%d`/`%f`/`%K` placeholders the query has (they take arguments 0, 1, … in order).
    public var formatArgumentCount: Int
}

public indirect enum PredicateNode: Sendable, Hashable {
    /// TRUEPREDICATE or FALSEPREDICATE.
    case constant(Bool, offset: Int)
    case not(PredicateNode, offset: Int)
    /// Two or more operands.
    case and([PredicateNode], offset: Int)
    /// Two or more operands.
    case or([PredicateNode], offset: Int)
    case comparison(ComparisonNode)

    public var offset: Int {
        switch self {
        case .constant(_, let offset), .not(_, let offset), .and(_, let offset), .or(_, let offset): offset
        case .comparison(let node): node.offset
        }
    }
}

/// `[ANY|ALL|NONE] left <operator>[options] right`.
public struct ComparisonNode: Sendable, Hashable {
    public var quantifier: Quantifier?
    public var quantifierOffset: Int
    public var left: ExpressionNode
    public var `operator`: ComparisonOperator
    public var options: StringComparisonOptions
    /// `age == ANY {18, 21}` / `age == NONE {18, 21}`: a quantifier before a right-hand list.
    public var rightQuantifier: Quantifier?
    public var right: ExpressionNode
    /// Where the operator is.
    public var offset: Int
}

/// ANY (also written SOME), ALL or NONE: how a comparison through a collection combines the
/// results for the collection's elements.
public enum Quantifier: String, Sendable, Hashable {
    /// At least one element satisfies the comparison (the default for a bare key path through a list).
    case any = "ANY"
    /// Every element satisfies it (true for an empty collection).
    case all = "ALL"
    /// No element satisfies it (true for an empty collection).
    case none = "NONE"
}

/// The comparison operators, after aliases are resolved (`=` is ``equal``, `<>` is ``notEqual``,
/// `=<` is ``lessOrEqual``, `=>` is ``greaterOrEqual``).
public enum ComparisonOperator: String, Sendable, Hashable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    /// `value IN {a, b}`: equal to at least one element of the list.
    case `in` = "IN"
    /// `value BETWEEN {low, high}`: low ≤ value ≤ high.
    case between = "BETWEEN"

    /// The operator with its operands exchanged: `a < b` is `b > a`. Nil for operators that are
    /// not symmetric in that way (the string operators, IN, BETWEEN).
    public var mirrored: ComparisonOperator? {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        case .beginsWith, .endsWith, .contains, .like, .in, .between: nil
        }
    }

    /// BEGINSWITH, ENDSWITH, CONTAINS, LIKE.
    public var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like: true
        default: false
        }
    }

    /// `<`, `<=`, `>`, `>=`.
    public var isOrdering: Bool {
        switch self {
        case .less, .lessOrEqual, .greater, .greaterOrEqual: true
        default: false
        }
    }
}

public indirect enum ExpressionNode: Sendable, Hashable {
    case keyPath(KeyPathNode)
    case literal(LiteralValue, offset: Int)
    case argument(ArgumentReference, offset: Int)
    /// `{a, b, …}`.
    case list([ExpressionNode], offset: Int)
    /// `SUBQUERY(collection, $x, predicate).@count`.
    case subqueryCount(SubqueryNode)

    public var offset: Int {
        switch self {
        case .keyPath(let node): node.offset
        case .literal(_, let offset), .argument(_, let offset), .list(_, let offset): offset
        case .subqueryCount(let node): node.offset
        }
    }
}

/// Which argument a placeholder refers to.
public enum ArgumentReference: Sendable, Hashable {
    /// `$n`.
    case positional(Int)
    /// `%@`, `%d`, `%f`: the `index`-th placeholder of the query, which takes argument `index`.
    case format(FormatSpecifier, index: Int)

    public var index: Int {
        switch self {
        case .positional(let index), .format(_, let index): index
        }
    }

    var spelling: String {
        switch self {
        case .positional(let index): "$\(index)"
        case .format(let specifier, _): specifier.rawValue
        }
    }
}

/// `owner.name`, `$x.age`, `tasks.@count`, `items.@avg.priority`, `@links.Project.items`, `%K`.
public struct KeyPathNode: Sendable, Hashable {
    public var components: [KeyPathComponent]
    public var offset: Int
}

public enum KeyPathComponent: Sendable, Hashable {
    case property(String, offset: Int)
    /// A SUBQUERY variable (`$x`), only as the first component.
    case variable(String, offset: Int)
    /// `%K`: replaced by the key path given as the argument with this index.
    case keyPathArgument(index: Int, offset: Int)
    case collectionOperator(CollectionOperator, offset: Int)
    /// `@links.Class.property`: the objects of `Class` whose `property` links here.
    case backlinks(className: String, propertyName: String, offset: Int)
    /// `map['key']`, `map[$0]`: the value of a map under one key (nil when it has none).
    case mapKey(MapKeyNode, offset: Int)

    public var offset: Int {
        switch self {
        case .property(_, let offset), .variable(_, let offset), .keyPathArgument(_, let offset),
             .collectionOperator(_, let offset), .backlinks(_, _, let offset), .mapKey(_, let offset):
            offset
        }
    }
}

/// The key of `map[…]`: a string literal or an argument.
public enum MapKeyNode: Sendable, Hashable {
    case literal(String)
    /// `[$0]`, `[%@]`; also `[%K]`, whose argument must be `#any` (every element, `[*]`, in a
    /// mixed value: RealmSwift's spelling).
    case argument(ArgumentReference)
    /// `[0]`: a position in a list nested in a mixed value.
    case index(Int)
    /// `[*]`: every element of a collection nested in a mixed value.
    case all
    /// `[FIRST]` / `[LAST]`: the first or last element of a list nested in a mixed value.
    case first, last
    /// `[SIZE]`: the number of elements of a collection nested in a mixed value.
    case size
}

/// The `@` operators on collections.
public enum CollectionOperator: String, Sendable, Hashable {
    /// `@count` or `@size`: the number of elements.
    case count = "@count"
    case min = "@min"
    case max = "@max"
    case sum = "@sum"
    case avg = "@avg"
    /// `@type`: the type of each value of a mixed property (realm-core's TypeOfValue).
    case type = "@type"
    /// `@keys`: the keys of a map (strings).
    case keys = "@keys"
    /// `@values`: the values of a map (what the map itself reads as).
    case values = "@values"
}

public struct SubqueryNode: Sendable, Hashable {
    public var collection: KeyPathNode
    public var variable: String
    public var predicate: PredicateNode
    public var offset: Int
}

/// The Realm Query Language clauses after the predicate.
public enum ResultClauseNode: Sendable, Hashable {
    case sort([SortKeyNode], offset: Int)
    case distinct([KeyPathNode], offset: Int)
    case limit(Int, offset: Int)
}

public struct SortKeyNode: Sendable, Hashable {
    public var keyPath: KeyPathNode
    public var ascending: Bool
}
