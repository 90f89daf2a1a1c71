public import Foundation
public import AtollStorage

/// A value of any of Realm's scalar types, stored with its type (RealmSwift's `AnyRealmValue`,
/// realm-js `mixed`): a property that holds an Int in one object and a String in another.
///
/// ```swift
/// final class Setting: Object {
///     @Persisted(primaryKey: true) var key = ""
///     @Persisted var value: AnyRealmValue
/// }
/// setting.value = .int(3)
/// realm.objects(Setting.self).filter("value > 2")          // numbers compare across types
/// realm.objects(Setting.self).filter("value.@type == 'string'")
/// realm.objects(Setting.self).where { $0.value == .int(3) }
/// ```
///
/// Properties, `List<AnyRealmValue>`, `MutableSet<AnyRealmValue>` and `Map<String, AnyRealmValue>`
/// hold these cases. Not in Atoll: `.object` (a link to an object of any class, RealmSwift's
/// `dynamicObject`) and the nested `.list`/`.dictionary` of Realm 10.51.
public enum AnyRealmValue: Hashable, Sendable {
    /// No value (nil).
    case none
    /// An integer.
    case int(Int)
    /// A `Bool`.
    case bool(Bool)
    /// A `Float`.
    case float(Float)
    /// A `Double`.
    case double(Double)
    /// A `String`.
    case string(String)
    /// Binary data.
    case data(Data)
    /// A `Date`.
    case date(Date)
    /// An `ObjectId`.
    case objectId(ObjectId)
    /// A `Decimal128`.
    case decimal128(Decimal128)
    /// A `UUID`.
    case uuid(UUID)

    /// `.none`, the default of an `AnyRealmValue` property.
    public init() { self = .none }

    /// The value when it is `.int`, else nil (no conversion between types).
    public var intValue: Int? { if case .int(let v) = self { v } else { nil } }
    /// The value when it is `.bool`, else nil (no conversion between types).
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    /// The value when it is `.float`, else nil (no conversion between types).
    public var floatValue: Float? { if case .float(let v) = self { v } else { nil } }
    /// The value when it is `.double`, else nil (no conversion between types).
    public var doubleValue: Double? { if case .double(let v) = self { v } else { nil } }
    /// The value when it is `.string`, else nil (no conversion between types).
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    /// The value when it is `.data`, else nil (no conversion between types).
    public var dataValue: Data? { if case .data(let v) = self { v } else { nil } }
    /// The value when it is `.date`, else nil (no conversion between types).
    public var dateValue: Date? { if case .date(let v) = self { v } else { nil } }
    /// The value when it is `.objectId`, else nil (no conversion between types).
    public var objectIdValue: ObjectId? { if case .objectId(let v) = self { v } else { nil } }
    /// The value when it is `.decimal128`, else nil (no conversion between types).
    public var decimal128Value: Decimal128? { if case .decimal128(let v) = self { v } else { nil } }
    /// The value when it is `.uuid`, else nil (no conversion between types).
    public var uuidValue: UUID? { if case .uuid(let v) = self { v } else { nil } }

    /// The stored form (the tag is the StorageValue case).
    var storageValue: StorageValue {
        switch self {
        case .none: .null
        case .int(let v): .int(Int64(v))
        case .bool(let v): .bool(v)
        case .float(let v): .float(v)
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .data(let v): .binary([UInt8](v))
        case .date(let v): .timestamp(Timestamp(v))
        case .objectId(let v): .objectId(v)
        case .decimal128(let v): .decimal128(v)
        case .uuid(let v): .uuid(v)
        }
    }

    /// The value of a stored one; nil for a value no AnyRealmValue holds (a link).
    init?(_ v: StorageValue) {
        switch v {
        case .null: self = .none
        case .int(let i): self = .int(Int(truncatingIfNeeded: i))
        case .bool(let b): self = .bool(b)
        case .float(let f): self = .float(f)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .binary(let b): self = .data(Data(b))
        case .timestamp(let t): self = .date(Date(t))
        case .objectId(let o): self = .objectId(o)
        case .decimal128(let d): self = .decimal128(d)
        case .uuid(let u): self = .uuid(u)
        case .link: return nil
        }
    }
}

extension AnyRealmValue: _QueryNumeric {}

extension AnyRealmValue {
    /// The value as a query argument takes it (`.none` is nil).
    var queryArgument: Any {
        switch self {
        case .none: NSNull()
        case .int(let v): v
        case .bool(let v): v
        case .float(let v): v
        case .double(let v): v
        case .string(let v): v
        case .data(let v): v
        case .date(let v): v
        case .objectId(let v): v
        case .decimal128(let v): v
        case .uuid(let v): v
        }
    }
}

extension AnyRealmValue: RealmCollectionValue {
    /// Always nullable in storage (`.none` is stored as null), as in Realm.
    public static var _atollType: _PropertyType { _PropertyType.scalar(.mixed).optional }
    public static func _atollDefault() -> AnyRealmValue { .none }
    public static func _atollGet(_ a: _ManagedAccess) -> AnyRealmValue {
        a.read { t, row, c in
            do { return AnyRealmValue(try t.value(row, c)) ?? .none } catch { a.readFailed(error) }
        }
    }
    public static func _atollFromStorage(_ v: StorageValue, realm: Realm?) -> AnyRealmValue? { AnyRealmValue(v) }
    public var _atollStorageValue: StorageValue? { storageValue }
}
