import Foundation
import AtollStorage

// Converting the values users pass dynamically (KVC, `create(_:value:)`, JSON from
// JSONSerialization, migrations) to stored values, with clear errors naming the property.

/// Removes any level of Optional wrapping from a value held as `Any` (nil for an empty one).
func flattenOptional(_ value: Any?) -> Any? {
    guard let value else { return nil }
    if Swift.type(of: value) is any OptionalProtocol.Type, let optional = value as? any OptionalProtocol {
        if optional.isNone { return nil }
        let mirror = Mirror(reflecting: value)
        return flattenOptional(mirror.children.first?.value)
    }
    if instance(value, of: NSNull.self) != nil { return nil }
    return value
}

/// `value as? T` for a class (or class-bound protocol) `T`, without bridging. Casting a Swift
/// dictionary or array to a class type first converts all of it to Foundation objects,
/// recursively: nested input then costs stack and time per level, before any limit is checked.
/// A value that is not a class instance is never a `T`, so it is not cast at all.
@inline(__always)
func instance<T>(_ value: Any?, of type: T.Type) -> T? {
    guard let value, Swift.type(of: value) is AnyClass else { return nil }
    return value as? T
}

enum ValueConversion {
    /// A stored scalar value of `type` from a dynamic value, or nil when it cannot be one.
    static func scalar(_ value: Any, type: ColumnType) -> StorageValue? {
        if let e = value as? any _AtollRawValued { return scalar(e._atollRawValue, type: type) }
        switch type {
        case .bool:
            if let b = value as? Bool, Swift.type(of: value) == Bool.self { return .bool(b) }
            // As in RealmSwift, a number is a Bool only when it is an integer 0 or 1.
            if let n = value as? NSNumber {
                let type = String(cString: n.objCType)
                guard type != "f", type != "d" else { return nil }
                switch n.int64Value { case 0: return .bool(false); case 1: return .bool(true); default: return nil }
            }
        case .int:
            if Swift.type(of: value) == Bool.self { return nil }
            if let i = value as? any BinaryInteger { return Int64(exactly: i).map { .int($0) } }
            if let d = value as? Double, let i = Int64(exactly: d) { return .int(i) }
            if let n = value as? NSNumber {
                let d = n.doubleValue
                if d == d.rounded(), abs(d) < 9.2e18 { return .int(n.int64Value) }
            }
        case .float:
            if Swift.type(of: value) == Bool.self { return nil }
            if let f = value as? Float { return .float(f) }
            if let d = value as? Double { return .float(Float(d)) }
            if let i = value as? any BinaryInteger { return .float(Float(Int64(truncatingIfNeeded: i))) }
            if let n = value as? NSNumber { return .float(n.floatValue) }
        case .double:
            if Swift.type(of: value) == Bool.self { return nil }
            if let d = value as? Double { return .double(d) }
            if let f = value as? Float { return .double(Double(f)) }
            if let i = value as? any BinaryInteger { return .double(Double(Int64(truncatingIfNeeded: i))) }
            if let n = value as? NSNumber { return .double(n.doubleValue) }
        case .string:
            if let s = value as? String { return .string(s) }
            if let s = value as? Substring { return .string(String(s)) }
            if let s = value as? NSString { return .string(s as String) }
        case .binary:
            if let d = value as? Data { return .binary([UInt8](d)) }
            if let b = value as? [UInt8] { return .binary(b) }
        case .timestamp:
            if let d = value as? Date { return .timestamp(Timestamp(d)) }
        case .uuid:
            if let u = value as? UUID { return .uuid(u) }
        case .objectId:
            if let o = value as? ObjectId { return .objectId(o) }
        case .decimal128:
            // As RealmSwift: a Decimal128, any number, or a numeric string.
            if Swift.type(of: value) == Bool.self { return nil }
            if let d = value as? Decimal128 { return .decimal128(d) }
            if let i = value as? any BinaryInteger { return Int64(exactly: i).map { .decimal128(Decimal128($0)) } }
            if let d = value as? Double { return .decimal128(Decimal128(d)) }
            if let f = value as? Float { return .decimal128(Decimal128(f)) }
            if let d = value as? Decimal { return (try? Decimal128(string: d.description)).map { .decimal128($0) } }
            if let s = value as? String { return (try? Decimal128(string: s)).map { .decimal128($0) } }
            if let n = value as? NSNumber {
                let type = String(cString: n.objCType)
                return .decimal128(type == "f" || type == "d" ? Decimal128(n.doubleValue) : Decimal128(n.int64Value))
            }
        case .mixed:
            // Any value a typed column takes, with its own type; an AnyRealmValue as it is.
            if let v = value as? AnyRealmValue { return v.storageValue }
            if Swift.type(of: value) == Bool.self, let b = value as? Bool { return .bool(b) }
            if value is any BinaryInteger { return scalar(value, type: .int) }
            if let f = value as? Float { return .float(f) }
            if let d = value as? Double { return .double(d) }
            if let n = value as? NSNumber {
                let type = String(cString: n.objCType)
                return type == "f" ? .float(n.floatValue) : type == "d" ? .double(n.doubleValue) : .int(n.int64Value)
            }
            for t in [ColumnType.string, .binary, .timestamp, .uuid, .objectId, .decimal128] {
                if t == .decimal128, !(value is Decimal128) { continue }
                if let v = scalar(value, type: t) { return v }
            }
        case .link:
            return nil
        }
        return nil
    }

    /// An aggregate (min, max, sum) as the type the caller asked for, as RealmSwift converts
    /// it: an integer column's value as any integer width or floating-point type, a
    /// floating-point one's as Float or Double, a date's as Date.
    static func aggregate<T: PersistableValue>(_ v: StorageValue, as type: T.Type) -> T? {
        if let direct = T._atollFromStorage(v, realm: nil) { return direct }
        let integerType = T.self as? any _AtollInteger.Type
        func integer<I: _AtollInteger>(_ type: I.Type, _ i: Int64) -> I { I(truncatingIfNeeded: i) }
        switch v {
        case .int(let i):
            if let integerType { return integer(integerType, i) as? T }
            if T.self == Double.self { return Double(i) as? T }
            if T.self == Float.self { return Float(i) as? T }
        case .float(let f):
            if T.self == Double.self { return Double(f) as? T }
            if let integerType, f.isFinite, abs(f) < 9.2e18 { return integer(integerType, Int64(f.rounded(.towardZero))) as? T }
        case .double(let d):
            if T.self == Float.self { return Float(d) as? T }
            if let integerType, d.isFinite, abs(d) < 9.2e18 { return integer(integerType, Int64(d.rounded(.towardZero))) as? T }
        case .decimal128(let d):
            if T.self == Double.self { return d.doubleValue as? T }
            if T.self == Float.self { return Float(d.doubleValue) as? T }
        default:
            break
        }
        return nil
    }

    static func describe(_ value: Any?) -> String {
        guard let value = flattenOptional(value) else { return "nil" }
        return "'\(value)' of type \(Swift.type(of: value))"
    }

    /// A stored value back to a Swift value for KVC (`Any`).
    static func swiftValue(_ v: StorageValue, property: PropertyInfo, realm: Realm?) -> Any? {
        switch v {
        case .null: return nil
        case .bool(let b): return b
        case .int(let i):
            switch property.atollType.intBits {
            case 8: return Int8(truncatingIfNeeded: i)
            case 16: return Int16(truncatingIfNeeded: i)
            case 32: return Int32(truncatingIfNeeded: i)
            default:
                if let t = property.valueType as? any _AtollInteger.Type, t == Int64.self || t == Optional<Int64>.self { return i }
                return Int(truncatingIfNeeded: i)
            }
        case .float(let f): return f
        case .double(let d): return d
        case .string(let s): return s
        case .binary(let b): return Data(b)
        case .timestamp(let t): return Date(t)
        case .uuid(let u): return u
        case .objectId(let o): return o
        case .decimal128(let d): return d
        case .link(let k):
            guard let realm, let target = property.atollType.objectType else { return nil }
            return realm.makeObject(target, key: k)
        case .typedLink(let t, let k):
            guard let realm else { return nil }
            return realm.makeObject(tableKey: t, key: k)
        case .mixedList, .mixedMap:
            return AnyRealmValue.nested(v, realm: realm, link: nil)
        }
    }
}

extension PropertyInfo {
    var label: String { name }

    /// Whether a dynamic value is a dictionary or array describing an object.
    static func isNestedValue(_ value: Any) -> Bool {
        value is [String: Any] || value is [String: Any?] || instance(value, of: NSDictionary.self) != nil || ObjectWriter.array(value) != nil
    }

    /// The stored value for a scalar property (no links or lists) from a dynamic value.
    func storageValue(from value: Any?, realm: Realm?) throws -> StorageValue {
        guard let value = flattenOptional(value) else {
            guard atollType.isOptional else {
                throw AtollError(.requiredValueMissing, "property '\(name)' is required; nil is not allowed")
            }
            return .null
        }
        guard case .scalar(let t) = atollType.kind else {
            throw AtollError(.typeMismatch, "property '\(name)' is not a scalar")
        }
        guard let converted = ValueConversion.scalar(value, type: t) else {
            throw AtollError(.typeMismatch, "invalid value \(ValueConversion.describe(value)) for \(t) property '\(name)'")
        }
        if case .int(let i) = converted, atollType.intBits < 64 {
            let lo = -(Int64(1) << (atollType.intBits - 1)), hi = (Int64(1) << (atollType.intBits - 1)) - 1
            guard i >= lo && i <= hi else { throw AtollError(.typeMismatch, "\(i) does not fit the \(atollType.intBits)-bit property '\(name)'") }
        }
        return converted
    }

    /// A Swift value of this property's type from a dynamic value (unmanaged KVC).
    func swiftValue(from value: Any?, realm: Realm?) throws -> Any {
        switch atollType.kind {
        case .scalar:
            // A nested collection for a mixed property: an AnyRealmValue `.list`/`.dictionary` as
            // it is, a Swift array or dictionary as one (unmanaged, so objects stay as given).
            if atollType.columnType == .mixed, let flat = flattenOptional(value) {
                if let v = flat as? AnyRealmValue, v.listValue != nil || v.dictionaryValue != nil { return v }
                if let nested = try AnyRealmValue.nestedInput(flat) { return nested }
            }
            let stored = try storageValue(from: value, realm: realm)
            guard let v = valueType._atollFromStorage(stored, realm: realm) else {
                throw AtollError(.typeMismatch, "invalid value \(ValueConversion.describe(value)) for property '\(name)'")
            }
            return v
        case .link:
            let flat = flattenOptional(value)
            if flat == nil { return valueType._atollDefault() }
            guard let target = atollType.objectType else { return valueType._atollDefault() }
            if let o = instance(flat, of: Object.self), ObjectIdentifier(Swift.type(of: o)) == ObjectIdentifier(target) { return o }
            if let flat, Self.isNestedValue(flat) {
                // A dictionary or array describing the linked object: a new unmanaged one.
                return Object.makeUnmanaged(target, value: flat)
            }
            throw AtollError(.typeMismatch, "invalid value \(ValueConversion.describe(value)) for link property '\(name)'")
        case .list:
            guard let listType = valueType as? any _ListProtocol.Type else { return valueType._atollDefault() }
            let list = listType.makeUnmanaged()
            try list.replaceAll(with: value, property: self)
            return list
        case .set:
            guard let setType = valueType as? any _MutableSetProtocol.Type else { return valueType._atollDefault() }
            let set = setType.makeUnmanaged()
            try set.replaceAll(with: value, property: self)
            return set
        case .map:
            guard let mapType = valueType as? any _MapProtocol.Type else { return valueType._atollDefault() }
            let map = mapType.makeUnmanaged()
            try map.replaceAll(with: value, property: self)
            return map
        case .linkingObjects:
            return valueType._atollDefault()
        }
    }
}


/// Primary-key lookups with the key types models use most, converted without dynamic casts
/// (the general path, `PropertyInfo.storageValue(from:realm:)`, handles everything else).
enum PrimaryKeyConversion {
    enum Kind {
        case int64, string, other
    }

    /// The kind of a class's primary key property.
    static func kind(of property: PropertyInfo?) -> Kind {
        guard let property, !property.atollType.isOptional, case .scalar(let type) = property.atollType.kind else { return .other }
        switch type {
        case .int where property.atollType.intBits == 64: return .int64
        case .string: return .string
        default: return .other
        }
    }

    /// The stored value of `key` for a primary key of `kind`, or nil to take the general path.
    @inline(__always)
    static func direct<K>(_ key: K, _ kind: Kind) -> StorageValue? {
        switch kind {
        case .int64:
            if K.self == Int.self { return .int(Int64(unsafeBitCast(key, to: Int.self))) }
            if K.self == Int64.self { return .int(unsafeBitCast(key, to: Int64.self)) }
        case .string:
            if K.self == String.self { return .string(unsafeBitCast(key, to: String.self)) }
        case .other:
            break
        }
        return nil
    }
}
