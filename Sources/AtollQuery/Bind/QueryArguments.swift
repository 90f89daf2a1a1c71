import AtollStorage
import Foundation

/// An object that can be passed as a query argument (`owner == $0`, `ANY dogs == $0`).
///
/// The object layer conforms its managed objects; the binder checks the class against the
/// property's target class and binds `.object(className:key:)`.
public protocol QueryObjectReference {
    var queryClassName: String { get }
    var queryObjectKey: UInt64 { get }
}

/// Turns the `[Any]` arguments of a query into ``QueryValue``s.
///
/// Accepted: `Bool`; `Int` and every fixed-width integer type (`UInt64` above `Int64.max` is
/// rejected); `Double`; `Float`; `String`, `Substring`; `Data`; `Date`; `UUID`; `ObjectId`;
/// `QueryValue`; objects conforming to ``QueryObjectReference``; `nil` (`Optional.none` at any
/// depth, or `NSNull`); `NSNumber`; and arrays, sets and other sequences of these for `IN` and
/// `BETWEEN`.
enum QueryArgumentConversion {
    /// The value of `argument`, or nil if its type is not supported.
    static func queryValue(from argument: Any, depth: Int = 0) -> QueryValue? {
        if let optional = argument as? any OptionalBox {
            guard let wrapped = optional.wrappedValue else { return .null }
            return queryValue(from: wrapped, depth: depth)
        }
        if argument is NSNull { return .null }
        if type(of: argument) is NSNumber.Type, let number = argument as? NSNumber { return queryValue(from: number) }
        switch argument {
        case let value as QueryValue: return value
        case let value as Bool: return .bool(value)
        case let value as Int: return .int(Int64(value))
        case let value as Int8: return .int(Int64(value))
        case let value as Int16: return .int(Int64(value))
        case let value as Int32: return .int(Int64(value))
        case let value as Int64: return .int(value)
        case let value as UInt: return value <= UInt(Int64.max) ? .int(Int64(value)) : nil
        case let value as UInt8: return .int(Int64(value))
        case let value as UInt16: return .int(Int64(value))
        case let value as UInt32: return .int(Int64(value))
        case let value as UInt64: return value <= UInt64(Int64.max) ? .int(Int64(value)) : nil
        case let value as Double: return .double(value)
        case let value as Float: return .float(value)
        case let value as String: return .string(value)
        case let value as Substring: return .string(String(value))
        case let value as Data: return .data(Array(value))
        case let value as Date: return .timestamp(value)
        case let value as UUID: return .uuid(value)
        case let value as ObjectId: return .objectId(value)
        case let value as Decimal128: return .decimal128(value)
        case let value as any QueryObjectReference: return .object(className: value.queryClassName, key: value.queryObjectKey)
        case let sequence as any Sequence:
            // One level of nesting: lists of lists have no meaning in a query.
            guard depth == 0 else { return nil }
            var values: [QueryValue] = []
            for element in elements(of: sequence) {
                guard let value = queryValue(from: element, depth: depth + 1) else { return nil }
                values.append(value)
            }
            return .list(values)
        default:
            return nil
        }
    }

    private static func elements(of sequence: some Sequence) -> [Any] {
        sequence.map { $0 as Any }
    }

    private static func queryValue(from number: NSNumber) -> QueryValue? {
        if String(describing: type(of: number)).contains("Boolean") { return .bool(number.boolValue) }
        switch String(cString: number.objCType) {
        case "f": return .float(number.floatValue)
        case "d": return .double(number.doubleValue)
        case "Q", "L": return number.uint64Value <= UInt64(Int64.max) ? .int(number.int64Value) : nil
        default: return .int(number.int64Value)
        }
    }

    /// The type name shown when an argument is rejected.
    static func typeName(of argument: Any) -> String {
        String(describing: type(of: argument))
    }
}

/// Lets `Optional` values hidden inside `Any` be recognized and unwrapped.
private protocol OptionalBox {
    var wrappedValue: Any? { get }
}

extension Optional: OptionalBox {
    fileprivate var wrappedValue: Any? {
        switch self {
        case .none: nil
        case .some(let value): value
        }
    }
}
