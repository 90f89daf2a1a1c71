public import Foundation
public import AtollStorage

/// A value of any of Realm's scalar types, or an object of any class, stored with its type
/// (RealmSwift's `AnyRealmValue`, realm-js `mixed`): a property that holds an Int in one object
/// and a String in another.
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
/// hold these cases, `.object` included: a link to an object of any class, stored as a typed link
/// (its class and key). Assigning an unmanaged object adds it to the realm; a deleted object reads
/// as `.none` (removed from lists and sets, as realm-core does).
///
/// As in Realm 10.51, a value can also be a nested `.list` or `.dictionary` of further values,
/// nested up to 100 levels (`AnyRealmValue.fromArray`, `.fromDictionary`). Read from a managed
/// object, such a collection writes its changes back to the object (inside a write transaction),
/// and the owning object's observers see the property change. Sets cannot hold them.
///
/// ```swift
/// try realm.write { setting.value = .object(dog) }
/// setting.value.object(Dog.self)?.name
/// ```
//
// @unchecked Sendable: every case but `.object` holds a value. `.object` holds an Object, which
// stays confined as every Atoll object is: a managed one checks its realm's thread on each access
// (`Realm.verifyThread`), and an AnyRealmValue that holds one may cross threads only as the object
// may (frozen, or through a ThreadSafeReference), the rule RealmSwift states for its AnyRealmValue.
// `.list` and `.dictionary` hold a List or Map, which are confined the same way (a nested one
// read from a managed object writes to that object's realm, which checks its thread).
public enum AnyRealmValue: Hashable, @unchecked Sendable {
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
    /// An object of any class (a link; RealmSwift's `AnyRealmValue.object`).
    case object(Object)
    /// A dictionary of further values nested in this one (Realm 10.51+).
    case dictionary(Map<String, AnyRealmValue>)
    /// A list of further values nested in this one (Realm 10.51+).
    case list(List<AnyRealmValue>)

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

    /// The map when the value is `.dictionary`, else nil.
    public var dictionaryValue: Map<String, AnyRealmValue>? { if case .dictionary(let v) = self { v } else { nil } }
    /// The list when the value is `.list`, else nil.
    public var listValue: List<AnyRealmValue>? { if case .list(let v) = self { v } else { nil } }

    /// A `.dictionary` of a new unmanaged map holding `dictionary`'s entries (RealmSwift's).
    public static func fromDictionary(_ dictionary: [String: AnyRealmValue]) -> AnyRealmValue {
        let map = Map<String, AnyRealmValue>()
        map.storage = dictionary
        return .dictionary(map)
    }

    /// A `.list` of a new unmanaged list holding `array`'s elements (RealmSwift's).
    public static func fromArray(_ array: [AnyRealmValue]) -> AnyRealmValue {
        let list = List<AnyRealmValue>()
        list.storage = array
        return .list(list)
    }

    /// The object when the value is `.object` and the object is a `type`, else nil.
    public func object<T: Object>(_ type: T.Type) -> T? { if case .object(let o) = self { o as? T } else { nil } }

    /// The object of `.object` as a `DynamicObject` (its properties by name), else nil (RealmSwift's
    /// `dynamicObject`). Nil as well for an unmanaged object, which has no dynamic form.
    public var dynamicObject: DynamicObject? {
        guard case .object(let o) = self, let m = o._managed, !m.isInvalidated else { return nil }
        do {
            return try m.realm.dynamicObject(throwingOfType: m.schema.className, key: m.key)
        } catch {
            m.realm.readFailed(error, reading: "the '\(m.schema.className)' object of an AnyRealmValue")
        }
    }

    /// The stored form (the tag is the StorageValue case); nil for `.object`, whose typed link
    /// the realm it is written in makes (`ObjectWriter.mixedValue`), and for nested collections,
    /// which may hold objects (`ObjectWriter.mixedValue` too).
    var storageValue: StorageValue? {
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
        case .object, .list, .dictionary: nil
        }
    }

    /// The value of a stored one, a typed link made an object of `realm` (`.none` without a realm,
    /// or when `realm`'s schema does not have the object's class). A nested collection becomes an
    /// unmanaged copy (`nested(_:realm:link:)` makes one that writes back).
    init?(_ v: StorageValue, realm: Realm?) {
        if v.isNestedCollection { self = Self.nested(v, realm: realm, link: nil); return }
        guard case .typedLink(let t, let k) = v else { self.init(v); return }
        guard let realm, let o = realm.makeObject(tableKey: t, key: k) else { self = .none; return }
        self = .object(o)
    }

    /// The value of a stored one without a realm to make objects in; nil for a link, and for a
    /// typed link (`init(_:realm:)` makes it an object).
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
        case .link, .typedLink: return nil
        case .mixedList, .mixedMap: self = Self.nested(v, realm: nil, link: nil)
        }
    }

    /// RealmSwift's equality: by value; two `.object`s are the same object; two nested collections
    /// are equal when both are unmanaged with equal contents, or both are the same collection of
    /// the same managed object (`List`'s and `Map`'s `==`).
    public static func == (lhs: AnyRealmValue, rhs: AnyRealmValue) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none): true
        case (.int(let a), .int(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.float(let a), .float(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.objectId(let a), .objectId(let b)): a == b
        case (.decimal128(let a), .decimal128(let b)): a == b
        case (.uuid(let a), .uuid(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        case (.list(let a), .list(let b)): a == b
        case (.dictionary(let a), .dictionary(let b)): a == b
        default: false
        }
    }

    /// Hashes the value (a nested collection by its kind only, as RealmSwift does).
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .none: hasher.combine(14)
        case .int(let v): hasher.combine(v)
        case .bool(let v): hasher.combine(v)
        case .float(let v): hasher.combine(v)
        case .double(let v): hasher.combine(v)
        case .string(let v): hasher.combine(v)
        case .data(let v): hasher.combine(v)
        case .date(let v): hasher.combine(v)
        case .objectId(let v): hasher.combine(v)
        case .decimal128(let v): hasher.combine(v)
        case .uuid(let v): hasher.combine(v)
        case .object(let o): hasher.combine(o)
        case .dictionary: hasher.combine(12)
        case .list: hasher.combine(13)
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
        case .object(let o): o
        case .list(let l): Array(l).map(\.queryArgument)
        case .dictionary(let m): Dictionary(uniqueKeysWithValues: m.asKeyValueSequence().map { ($0.key, $0.value.queryArgument) })
        }
    }
}

extension AnyRealmValue: RealmCollectionValue {
    /// Always nullable in storage (`.none` is stored as null), as in Realm.
    public static var _atollType: _PropertyType { _PropertyType.scalar(.mixed).optional }
    public static func _atollDefault() -> AnyRealmValue { .none }
    public static func _atollGet(_ a: _ManagedAccess) -> AnyRealmValue {
        a.read { t, row, c in
            do {
                let v = try t.value(row, c)
                if v.isNestedCollection {
                    return nested(v, realm: a.realm, link: NestedMixedLink(realm: a.realm, owner: a.state.binding, key: a.key, column: a.column, root: .property))
                }
                return AnyRealmValue(v, realm: a.realm) ?? .none
            } catch { a.readFailed(error) }
        }
    }
    public static func _atollFromStorage(_ v: StorageValue, realm: Realm?) -> AnyRealmValue? { AnyRealmValue(v, realm: realm) }
    public var _atollStorageValue: StorageValue? { storageValue }
}
