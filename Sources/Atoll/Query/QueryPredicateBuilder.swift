import Foundation

// A `Query` is a tree of `QueryNode`s; `QueryPredicateBuilder` writes it as predicate text with
// `%@` placeholders and an argument array, the text RealmSwift's `Query` writes. That text then
// goes through the same parser and binder as a string query (`filter(_:_:)`): one front end, one
// set of semantics and error messages, one planner. Writing text instead of building the AST
// costs a parse of a short string when the query is made, never anything per object, and keeps
// `_constructPredicate()` identical to RealmSwift's, so tests can compare the two.

/// A key path in a query: property names, and where it goes through a collection.
struct QueryKeyPath {
    var names: [String] = []
    /// Index in `names` of the first collection (List, LinkingObjects) the path goes through.
    var firstCollection: Int?
    /// A comparison through a collection means ANY element (written `ANY path`).
    var requiresAny = false

    var isCollection: Bool { firstCollection != nil }

    mutating func append(_ name: String, isCollection: Bool) {
        if isCollection, firstCollection == nil {
            firstCollection = names.count
            requiresAny = true
        }
        names.append(name)
    }

    /// `dogs.age` + `@avg` is `dogs.@avg.age`: the aggregate follows the collection.
    mutating func insertAggregate(_ aggregate: String) {
        if let c = firstCollection, c + 1 < names.count {
            names.insert(aggregate, at: c + 1)
        } else {
            names.append(aggregate)
        }
        requiresAny = false
    }
}

indirect enum QueryNode {
    enum Operator: String {
        case or = "||"
        case and = "&&"
        case equal = "=="
        case notEqual = "!="
        case lessThan = "<"
        case lessThanEqual = "<="
        case greaterThan = ">"
        case greaterThanEqual = ">="
        case `in` = "IN"
        case contains = "CONTAINS"
        case beginsWith = "BEGINSWITH"
        case endsWith = "ENDSWITH"
        case like = "LIKE"
    }

    case not(QueryNode)
    case constant(Any?)
    case keyPath(QueryKeyPath)
    case comparison(Operator, QueryNode, QueryNode, StringOptions)
    case between(QueryNode, QueryNode, QueryNode)
    case subqueryCount(QueryNode)
    /// `map[%@]`: one key's value of a map; the key is an argument.
    case mapSubscript(QueryNode, key: String)
    /// `value[%@][%@][%K]`: a way into the collections nested in a mixed value: positions and
    /// keys are arguments, every element (`.any`) is `[%K]` with the argument `#any`, as
    /// RealmSwift writes them (the query language reads `[%K]` with `#any` as `[*]`).
    case mixedSubscripts(QueryNode, [MixedSubscript])
    /// A query RealmSwift refuses when it is built, with its reason (reported when used).
    case invalid(String)
}

/// One subscript of `Query<AnyRealmValue>`.
enum MixedSubscript {
    /// `[0]`: the element at a position of a nested list.
    case index(Int)
    /// `["key"]`: the value under a key of a nested dictionary.
    case key(String)
    /// `.any`: every element of a nested list or value of a nested dictionary.
    case all
}

/// Writes a `QueryNode` tree as predicate text and arguments.
struct QueryPredicateBuilder {
    private(set) var format = ""
    private(set) var arguments: [Any] = []
    /// The first reason the query is invalid (RealmSwift raises it as an exception); the text
    /// written is then meaningless.
    private(set) var problem: String?
    private var subqueryCounter = 0

    private mutating func fail(_ reason: String) {
        if problem == nil { problem = reason }
    }

    /// `isNewNode`: the node stands alone as a condition (the root, or an operand of `&&`,
    /// `||`), where a key path means `== true`.
    mutating func build(_ node: QueryNode, prefix: String? = nil, isNewNode: Bool = false) {
        switch node {
        case .constant(let value):
            format += "%@"
            arguments.append(value.flatMap(flattenOptional) ?? NSNull())
        case .keyPath(let path):
            if isNewNode {
                format += path.names.joined(separator: ".") + " == true"
                return
            }
            if path.requiresAny { format += "ANY " }
            format += path.names.joined(separator: ".")
        case .not(let child):
            if case .keyPath(let path) = child, isNewNode {
                format += path.names.joined(separator: ".") + " == false"
                return
            }
            build(child, prefix: "NOT ")
        case .comparison(let op, let lhs, let rhs, let options):
            switch op {
            case .and, .or:
                if let prefix { format += prefix }
                format += "("
                build(lhs, isNewNode: true)
                format += " \(op.rawValue) "
                build(rhs, isNewNode: true)
                format += ")"
            default:
                if case .keyPath(let a) = lhs, case .keyPath(let b) = rhs, a.isCollection, b.isCollection {
                    fail("Comparing two collection columns is not permitted.")
                }
                format += "("
                if let prefix { format += prefix }
                build(lhs)
                format += " \(op.rawValue)\(Self.modifiers(options)) "
                build(rhs)
                format += ")"
            }
        case .between(let value, let lower, let upper):
            format += "("
            if let prefix { format += prefix }
            build(value)
            format += " BETWEEN {"
            build(lower)
            format += ", "
            build(upper)
            format += "})"
        case .subqueryCount(let inner):
            subqueryCounter += 1
            let variable = "$col\(subqueryCounter)"
            var rewriter = SubqueryRewriter(variable: variable)
            let rewritten = rewriter.rewrite(inner)
            if let refused = rewriter.refusal {
                // RealmSwift refuses a map or AnyRealmValue subscript in a subquery first.
                fail(refused)
                return
            }
            guard let collection = rewriter.collection else {
                fail("Subqueries must contain a keypath starting with a collection.")
                return
            }
            if let prefix { format += prefix }
            format += "SUBQUERY(\(collection), \(variable), "
            build(rewritten)
            format += ").@count"
        case .mapSubscript(let map, let key):
            if let prefix { format += prefix }
            build(map)
            format += "[%@]"
            arguments.append(key)
        case .mixedSubscripts(let value, let subscripts):
            if let prefix { format += prefix }
            build(value)
            for s in subscripts {
                switch s {
                case .index(let i):
                    format += "[%@]"
                    arguments.append(i)
                case .key(let k):
                    format += "[%@]"
                    arguments.append(k)
                case .all:
                    format += "[%K]"
                    arguments.append("#any")
                }
            }
        case .invalid(let reason):
            fail(reason)
        }
    }

    private static func modifiers(_ options: StringOptions) -> String {
        if options.isEmpty { return "" }
        return "[" + (options.contains(.caseInsensitive) ? "c" : "") + (options.contains(.diacriticInsensitive) ? "d" : "") + "]"
    }
}

/// Rewrites the key paths through a collection inside a subquery to start at its variable:
/// `dogs.age` becomes `$col1.age`, and the collection (`dogs`) is the subquery's.
private struct SubqueryRewriter {
    let variable: String
    private(set) var collection: String?
    /// Why the subquery is refused, if it holds what RealmSwift refuses in one.
    private(set) var refusal: String?

    init(variable: String) { self.variable = variable }

    mutating func rewrite(_ node: QueryNode) -> QueryNode {
        switch node {
        case .keyPath(let path):
            guard let c = path.firstCollection else { return node }
            let name = path.names[...c].joined(separator: ".")
            if let collection, collection != name {
                return .invalid("A subquery may go through one collection only ('\(collection)' and '\(name)').")
            }
            collection = name
            var inner = QueryKeyPath()
            inner.names = [variable] + path.names[(c + 1)...]
            return .keyPath(inner)
        case .not(let child):
            return .not(rewrite(child))
        case .comparison(let op, let lhs, let rhs, let options):
            return .comparison(op, rewrite(lhs), rewrite(rhs), options)
        case .between(let value, let lower, let upper):
            return .between(rewrite(value), rewrite(lower), rewrite(upper))
        case .subqueryCount, .constant, .invalid:
            return node
        case .mapSubscript:
            if refusal == nil { refusal = "Subqueries do not support map subscripts." }
            return .invalid("Subqueries do not support map subscripts.")
        case .mixedSubscripts:
            if refusal == nil { refusal = "Subqueries do not support AnyRealmValue subscripts." }
            return .invalid("Subqueries do not support AnyRealmValue subscripts.")
        }
    }
}
