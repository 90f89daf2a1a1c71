public import Foundation
public import AtollStorage

// Decimal128 as RealmSwift spells it: literals, Codable, Foundation's Decimal, and its use as
// a persisted property or list element (`@Persisted var price: Decimal128`).

extension Decimal128: ExpressibleByIntegerLiteral {
    /// `let quantity: Decimal128 = 3`.
    public init(integerLiteral value: Int64) { self.init(value) }
}

extension Decimal128: ExpressibleByFloatLiteral {
    /// `let price: Decimal128 = 3.14159`: the Double converted as realm-core converts it
    /// (15 significant digits), so it equals `Decimal128("3.14159")`.
    public init(floatLiteral value: Double) { self.init(value) }
}

extension Decimal128: ExpressibleByStringLiteral {
    /// `let price: Decimal128 = "19.99"`. Text that is not a number is a programming error
    /// (use `init(string:)` for input).
    public init(stringLiteral value: String) {
        do { try self.init(string: value) } catch { atollProgrammerError("invalid Decimal128 literal: \(error)") }
    }
}

extension Decimal128 {
    /// The decimal `value` (exact for up to 34 significant digits).
    public init(_ value: Decimal) {
        do { try self.init(string: value.description) } catch { self = .nan }
    }

    /// The value as Foundation's `Decimal` (38 digits, exponent -128...127; NaN and values
    /// outside that range give `Decimal.nan`).
    public var decimalValue: Decimal { Decimal(string: stringValue, locale: Locale(identifier: "en_US_POSIX")) ?? .nan }

    /// The value converted from `exactly` an integer, as RealmSwift's `Decimal128(exactly:)`.
    public init?<T: BinaryInteger>(exactly source: T) {
        guard let value = Int64(exactly: source) else { return nil }
        self.init(value)
    }

    /// A number as RealmSwift's `Decimal128(number:)`: floating-point numbers through
    /// `init(_: Double)`, integers exactly.
    public init(number: NSNumber) {
        let type = String(cString: number.objCType)
        self = type == "f" || type == "d" ? Decimal128(number.doubleValue) : Decimal128(number.int64Value)
    }

    /// RealmSwift's `Decimal128(value:)`: a Decimal128, a number, `Decimal`, or text; anything
    /// else (`NSNull()`, text that is not a number) gives NaN, as realm-core does.
    public init(value: Any) {
        switch value {
        case let d as Decimal128: self = d
        case let i as Int: self.init(i)
        case let i as Int64: self.init(i)
        case let d as Double: self.init(d)
        case let f as Float: self.init(f)
        case let d as Decimal: self.init(d)
        case let s as String: self = (try? Decimal128(string: s)) ?? .nan
        case let n as NSNumber: self.init(number: n)
        default: self = .nan
        }
    }

    /// `self + n` (RealmSwift's Strideable-style helper).
    public func advanced(by n: Decimal128) -> Decimal128 { self + n }

    /// `other - self`.
    public func distance(to other: Decimal128) -> Decimal128 { other - self }

    /// RealmSwift's name for `isNaN` (realm-core does not distinguish signalling NaNs).
    public var isSignaling: Bool { isNaN }

    /// RealmSwift's name for `isNaN`.
    public var isSignalingNaN: Bool { isNaN }
}

extension Decimal128: Codable {
    /// Decodes the string form, or an integer or floating-point number, as RealmSwift does.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            do { try self.init(string: text) } catch {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not a Decimal128")
            }
        } else if let integer = try? container.decode(Int64.self) {
            self.init(integer)
        } else if let double = try? container.decode(Double.self) {
            self.init(double)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Cannot convert value to Decimal128")
        }
    }

    /// Encodes the string form (`stringValue`), which keeps every digit.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}

extension Decimal128: RealmCollectionValue {
    public static var _atollType: _PropertyType { .scalar(.decimal128) }
    /// 0, as RealmSwift's `Decimal128()`.
    public static func _atollDefault() -> Decimal128 { Decimal128() }
    public static func _atollGet(_ a: _ManagedAccess) -> Decimal128 { a.read { $0.decimal128($1, $2) } }
    public static func _atollFromStorage(_ v: StorageValue, realm: Realm?) -> Decimal128? { if case .decimal128(let d) = v { d } else { nil } }
    public var _atollStorageValue: StorageValue? { .decimal128(self) }
}

/// `where { $0.price > 19.99 }`, `.min`/`.max`/`.sum`/`.avg` in type-safe queries, as RealmSwift.
extension Decimal128: _QueryNumeric {}
