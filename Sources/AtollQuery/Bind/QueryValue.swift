public import AtollStorage
public import Foundation

/// A constant in a bound query: a literal from the query string or an argument, already
/// converted to the type of the property it is compared with.
///
/// ```swift
/// // "age > 3" against an Int property → .int(3); against a Double property → .double(3)
/// // "born < $0" with a Date argument   → .timestamp(seconds: …, nanoseconds: …)
/// ```
public enum QueryValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    case data([UInt8])
    /// An instant as seconds and nanoseconds since 1970-01-01T00:00:00Z. Both carry the same
    /// sign (Realm's convention), so pairs order lexicographically: -1.5 s is (-1, -500_000_000).
    case timestamp(seconds: Int64, nanoseconds: Int32)
    case uuid(UUID)
    case objectId(ObjectId)
    case decimal128(Decimal128)
    /// A managed object, by class and object key.
    case object(className: String, key: UInt64)
    /// The values of `IN {…}` / `IN $0`, or the two bounds of `BETWEEN`; also a list nested in a
    /// mixed value (RealmSwift's `AnyRealmValue.list`) as a row holds it.
    case list([QueryValue])
    /// A dictionary nested in a mixed value (RealmSwift's `AnyRealmValue.dictionary`) as a row holds it.
    case dictionary([String: QueryValue])

    /// The timestamp of `date`, rounded to the nearest nanosecond.
    public static func timestamp(_ date: Date) -> QueryValue {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite else { return .timestamp(seconds: 0, nanoseconds: 0) }
        let clamped = max(min(interval, 9.2e18), -9.2e18)
        var seconds = clamped.rounded(.towardZero)
        var nanoseconds = ((clamped - seconds) * 1e9).rounded()
        if abs(nanoseconds) >= 1e9 {
            seconds += nanoseconds > 0 ? 1 : -1
            nanoseconds = 0
        }
        return .timestamp(seconds: Int64(seconds), nanoseconds: Int32(nanoseconds))
    }

    /// The date of a `.timestamp`; nil for other values.
    public var date: Date? {
        guard case .timestamp(let seconds, let nanoseconds) = self else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds) + TimeInterval(nanoseconds) / 1e9)
    }

    public var isNull: Bool { self == .null }

    /// How the value reads in an error message, with its type: "string 'a'", "int 5", "nil".
    public var description: String {
        switch self {
        case .null: "nil"
        case .bool(let value): "bool \(value)"
        case .int(let value): "int \(value)"
        case .float(let value): "float \(value)"
        case .double(let value): "double \(value)"
        case .string(let value): "string '\(value.count > 40 ? String(value.prefix(40)) + "…" : value)'"
        case .data(let bytes): "data (\(bytes.count) bytes)"
        case .timestamp(let seconds, let nanoseconds): "date T\(seconds):\(nanoseconds)"
        case .uuid(let value): "uuid \(value.uuidString.lowercased())"
        case .objectId(let value): "objectId \(value)"
        case .decimal128(let value): "decimal128 \(value)"
        case .object(let className, let key): "\(className) object \(key)"
        case .list(let values): "list of \(values.count) values"
        case .dictionary(let values): "dictionary of \(values.count) values"
        }
    }
}
