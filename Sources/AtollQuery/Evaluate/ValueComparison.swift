import AtollStorage
import Foundation

/// Equality and order of query values, with Realm's semantics: numbers compare across int,
/// float and double; strings in Unicode scalar order (StringOrdering); nil first.
enum ValueComparison {
    static func numeric(_ v: QueryValue) -> Double? {
        switch v {
        case .int(let i): Double(i)
        case .float(let f): Double(f)
        case .double(let d): d
        case .decimal128(let d): d.doubleValue
        default: nil
        }
    }

    /// The order of a decimal and another number (realm-core converts the other to Decimal128:
    /// an integer exactly, a float or double to 15 significant digits); nil if `b` is no number.
    static func compareDecimal(_ a: Decimal128, _ b: QueryValue) -> Int? {
        switch b {
        case .decimal128(let y): a.compare(y)
        case .int(let y): a.compare(y)
        case .double(let y): a.compare(y)
        case .float(let y): a.compare(Double(y))
        default: nil
        }
    }

    static func equal(_ a: QueryValue, _ b: QueryValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.int(let x), .int(let y)): return x == y
        // Keys are per class: a mixed value's object (a typed link) and an object argument are
        // the same object only in the same class (an empty name is a link column's unnamed target).
        case (.object(let xc, let x), .object(let yc, let y)): return x == y && (xc == yc || xc.isEmpty || yc.isEmpty)
        case (.timestamp, .timestamp): return a.normalizedTimestamp == b.normalizedTimestamp
        // Two lists (a nested collection and a list literal): position by position, each pair
        // by these rules (realm-core compares two lists element by element).
        case (.list(let x), .list(let y)): return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (.decimal128(let x), _): if let order = compareDecimal(x, b) { return order == 0 }; return false
        case (_, .decimal128(let y)): if let order = compareDecimal(y, a) { return order == 0 }; return false
        default:
            if let x = numeric(a), let y = numeric(b) { return x == y }
            return a == b
        }
    }

    /// Whether `<`, `>`, BETWEEN can hold between the two (non-nil) values: both numbers, or
    /// both of the same other type. Values of a mixed property can be of any two types; a
    /// string is neither smaller nor larger than a number (realm-core).
    static func areOrdered(_ a: QueryValue, _ b: QueryValue) -> Bool {
        func family(_ v: QueryValue) -> Int {
            switch v {
            case .int, .float, .double, .decimal128: 1
            case .string: 2
            case .data: 3
            case .timestamp: 4
            case .bool: 5
            case .uuid: 6
            case .objectId: 7
            case .object: 8
            case .null: 9
            case .list: 10
            case .dictionary: 11
            }
        }
        return family(a) == family(b)
    }

    /// Total order: nil first; -1, 0, 1. Values of unrelated types (in a mixed property, or a
    /// list or set of mixed values) order by type as realm-core sorts them (its `sorting_rank`
    /// in mixed.cpp): bool, numbers, string, binary data, date, object id, UUID, object.
    static func compare(_ a: QueryValue, _ b: QueryValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.int(let x), .int(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (!x ? -1 : 1)
        case (.string(let x), .string(let y)): return StringOrdering.compare(x, y)
        case (.data(let x), .data(let y)):
            return x.lexicographicallyPrecedes(y) ? -1 : (x == y ? 0 : 1)
        case (.timestamp, .timestamp):
            guard let x = a.normalizedTimestamp, let y = b.normalizedTimestamp else { return 0 }
            return x < y ? -1 : (x == y ? 0 : 1)
        case (.uuid(let x), .uuid(let y)):
            let xs = withUnsafeBytes(of: x.uuid) { Array($0) }, ys = withUnsafeBytes(of: y.uuid) { Array($0) }
            return xs.lexicographicallyPrecedes(ys) ? -1 : (xs == ys ? 0 : 1)
        case (.objectId(let x), .objectId(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.object(_, let x), .object(_, let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.decimal128(let x), _) where compareDecimal(x, b) != nil: return compareDecimal(x, b) ?? 0
        case (_, .decimal128(let y)) where compareDecimal(y, a) != nil: return -(compareDecimal(y, a) ?? 0)
        default:
            if let x = numeric(a), let y = numeric(b) { return x < y ? -1 : (x > y ? 1 : 0) }
            let ra = sortingRank(a), rb = sortingRank(b)
            return ra < rb ? -1 : (ra == rb ? 0 : 1)
        }
    }

    /// The rank of a value's type when values of different types are sorted (realm-core's).
    private static func sortingRank(_ v: QueryValue) -> Int {
        switch v {
        case .null: -1
        case .bool: 0
        case .int, .float, .double, .decimal128: 1
        case .string: 2
        case .data: 3
        case .timestamp: 4
        case .objectId: 5
        case .uuid: 6
        case .object: 7
        case .list: 8
        case .dictionary: 9
        }
    }
}
