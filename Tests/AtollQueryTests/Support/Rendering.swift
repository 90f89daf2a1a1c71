import AtollQuery
import Foundation

/// A compact, canonical text form of bound trees, so tests can state expectations in one line:
/// `(age > int(3) AND ANY dogs.name BEGINSWITH[c] string("b"))`.
enum Rendering {
    static func render(_ predicate: BoundPredicate) -> String {
        switch predicate {
        case .constant(let value): value ? "TRUE" : "FALSE"
        case .not(let operand): "NOT \(render(operand))"
        case .and(let operands): "(" + operands.map(render).joined(separator: " AND ") + ")"
        case .or(let operands): "(" + operands.map(render).joined(separator: " OR ") + ")"
        case .comparison(let comparison): render(comparison)
        }
    }

    static func render(_ comparison: BoundComparison) -> String {
        var quantifier = ""
        if case .keyPath(let path) = comparison.left, path.isToMany { quantifier = comparison.quantifier.rawValue + " " }
        if case .typeOf(let path) = comparison.left, path.isToMany { quantifier = comparison.quantifier.rawValue + " " }
        return "\(quantifier)\(render(comparison.left)) \(comparison.operator.rawValue)\(comparison.options) \(render(comparison.right))"
    }

    static func render(_ expression: BoundExpression) -> String {
        switch expression {
        case .constant(let value): render(value)
        case .keyPath(let path): path.description
        case .count(let path): "\(path).@count"
        case .aggregate(let aggregate): "\(aggregate.function.rawValue)(\(aggregate.values))"
        case .subqueryCount(let subquery): "SUBQUERY(\(subquery.collection), \(render(subquery.predicate))).@count"
        case .typeOf(let path): "\(path).@type"
        }
    }

    static func render(_ value: QueryValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let bool): "bool(\(bool))"
        case .int(let int): "int(\(int))"
        case .float(let float): "float(\(float))"
        case .double(let double): "double(\(double))"
        case .string(let string): "string(\"\(string)\")"
        case .data(let bytes): "data(\(bytes.map { String($0) }.joined(separator: ",")))"
        case .timestamp(let seconds, let nanoseconds): "ts(\(seconds),\(nanoseconds))"
        case .uuid(let uuid): "uuid(\(uuid.uuidString.lowercased()))"
        case .objectId(let objectId): "oid(\(objectId))"
        case .decimal128(let decimal): "decimal128(\(decimal))"
        case .object(let className, let key): "obj(\(className),\(key))"
        case .list(let values): "[" + values.map(render).joined(separator: ", ") + "]"
        case .dictionary(let values): "{" + values.keys.sorted().map { "\($0): \(render(values[$0]!))" }.joined(separator: ", ") + "}"
        }
    }

    static func render(_ clause: BoundResultClause) -> String {
        switch clause {
        case .sort(let keys): "SORT(" + keys.map { "\($0.keyPath) \($0.ascending ? "ASC" : "DESC")" }.joined(separator: ", ") + ")"
        case .distinct(let paths): "DISTINCT(" + paths.map(\.description).joined(separator: ", ") + ")"
        case .limit(let count): "LIMIT(\(count))"
        }
    }
}
