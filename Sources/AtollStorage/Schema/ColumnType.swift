/// The type of a stored column. Every column may be optional (nullable) and may be a list.
public enum ColumnType: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case bool = 1
    case int = 2
    case float = 3
    case double = 4
    case string = 5
    case binary = 6
    case timestamp = 7
    case uuid = 8
    case objectId = 9
    /// A link to an object of `ColumnSpec.linkTarget`, stored as the target's object key.
    case link = 10
    /// An IEEE 754-2008 decimal128 in BID encoding (`Decimal128`), 16 bytes.
    case decimal128 = 11
    /// Any scalar value with its type (`AnyRealmValue`, realm-js `mixed`): stored as the
    /// value's tagged encoding (StorageValue.encode) in a bytes block. Always nullable.
    case mixed = 12

    public var description: String {
        switch self {
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .double: "double"
        case .string: "string"
        case .binary: "data"
        case .timestamp: "date"
        case .uuid: "uuid"
        case .objectId: "objectId"
        case .link: "link"
        case .decimal128: "decimal128"
        case .mixed: "mixed"
        }
    }

    /// Whether a search index may be built on a column of this type (as in Realm).
    public var isIndexable: Bool {
        switch self {
        case .bool, .int, .string, .timestamp, .uuid, .objectId, .decimal128, .mixed: true
        case .float, .double, .binary, .link: false
        }
    }

    /// Whether a primary key may have this type.
    public var canBePrimaryKey: Bool {
        switch self {
        case .int, .string, .uuid, .objectId: true
        default: false
        }
    }
}

/// How a column is laid out in a cluster leaf.
@usableFromInline
enum PhysicalKind: Equatable, Sendable {
    /// Bit-packed integers (int, bool, link, timestamp seconds).
    case ints
    case float32
    case float64
    /// Fixed-width byte strings (uuid: 16, objectId: 12, decimal128: 16).
    case fixed(Int)
    /// Variable-length bytes (string, binary, every list).
    case bytes
}
