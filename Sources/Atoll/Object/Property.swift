import AtollStorage
import Foundation

/// What a property stores, as RealmSwift names it (`property.type == .string`). Lists report
/// their element's type (with `isArray`), links `.object`.
public enum PropertyType: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// An integer of any width (`Int`, `Int8` ... `Int64`).
    case int = 0
    /// A `Bool`.
    case bool = 1
    /// A `String`.
    case string = 2
    /// A `Data` value.
    case data = 3
    /// A `Date`.
    case date = 4
    /// A `Float`.
    case float = 5
    /// A `Double`.
    case double = 6
    /// A link to an object (a single link, or the elements of a list of objects).
    case object = 7
    /// The objects linking to this one through a property (`LinkingObjects`).
    case linkingObjects = 8
    /// A value of any type (`AnyRealmValue` in RealmSwift).
    case any = 9
    /// An `ObjectId`.
    case objectId = 10
    /// A `Decimal128`.
    case decimal128 = 11
    /// A `UUID`.
    case UUID = 12

    /// The type's name as RealmSwift prints it.
    public var description: String {
        switch self {
        case .int: "int"
        case .bool: "bool"
        case .string: "string"
        case .data: "data"
        case .date: "date"
        case .float: "float"
        case .double: "double"
        case .object: "object"
        case .linkingObjects: "linking objects"
        case .any: "mixed"
        case .objectId: "object id"
        case .decimal128: "decimal128"
        case .UUID: "uuid"
        }
    }

    init(_ column: ColumnType) {
        switch column {
        case .bool: self = .bool
        case .int: self = .int
        case .float: self = .float
        case .double: self = .double
        case .string: self = .string
        case .binary: self = .data
        case .timestamp: self = .date
        case .uuid: self = .UUID
        case .objectId: self = .objectId
        case .decimal128: self = .decimal128
        case .mixed: self = .any
        case .link: self = .object
        }
    }
}

/// RealmSwift's name for a property of an `ObjectSchema`.
public typealias Property = PropertyInfo

extension PropertyInfo: Equatable {
    /// The property's type (for a list, its elements').
    public var type: PropertyType {
        switch atollType.kind {
        case .scalar(let t): PropertyType(t)
        case .link: .object
        case .list(_, _?), .set(_, _?), .map(_, _?): .object
        case .list(let t, nil), .set(let t, nil), .map(let t, nil): PropertyType(t)
        case .linkingObjects: .linkingObjects
        }
    }

    /// Whether this is a `List` property (RealmSwift's name).
    public var isArray: Bool { isList }
    /// The stored column's name (Atoll stores every property under its own name).
    public var columnName: String { name }

    /// Same name, type, optionality, list/set/map or not, integer width, index, primary key and target
    /// class (by name: a property read from the file, as in `Migration.oldSchema`, equals the
    /// model's).
    public static func == (lhs: PropertyInfo, rhs: PropertyInfo) -> Bool {
        lhs.name == rhs.name && lhs.type == rhs.type && lhs.isList == rhs.isList && lhs.isSet == rhs.isSet && lhs.isMap == rhs.isMap && lhs.isOptional == rhs.isOptional
            && lhs.atollType.intBits == rhs.atollType.intBits && lhs.isIndexed == rhs.isIndexed
            && lhs.isPrimaryKey == rhs.isPrimaryKey && lhs.objectClassName == rhs.objectClassName && lhs.originProperty == rhs.originProperty
    }
}

extension ObjectSchema: Equatable {
    /// The model class (RealmSwift's `objectClass`).
    public var objectClass: AnyClass { objectType }

    /// Same class name and properties.
    public static func == (lhs: ObjectSchema, rhs: ObjectSchema) -> Bool {
        lhs.className == rhs.className && lhs.properties == rhs.properties
    }
}

/// The classes of a realm, as RealmSwift's `Schema`: `realm.schema["Dog"]`.
public struct Schema: Sendable, Equatable, CustomStringConvertible, RandomAccessCollection {
    /// The schema of each class, sorted by class name.
    public let objectSchema: [ObjectSchema]

    init(_ objectSchema: [ObjectSchema]) { self.objectSchema = objectSchema }

    /// The schema of the class named `className`, or nil. O(n) in the number of classes.
    public subscript(className: String) -> ObjectSchema? { objectSchema.first { $0.className == className } }

    public var startIndex: Int { objectSchema.startIndex }
    public var endIndex: Int { objectSchema.endIndex }
    public subscript(position: Int) -> ObjectSchema { objectSchema[position] }

    public var description: String { "Schema {\n" + objectSchema.map { "\t\($0)" }.joined(separator: "\n") + "\n}" }
}

extension PropertyInfo {
    /// A property as the file stores it (no model class behind it).
    init(fileColumn c: ColumnSpec, isPrimaryKey: Bool) {
        let kind: _PropertyType.Kind
        let target = c.type == .link ? ObjectIdentifier(Object.self) : nil
        if c.isSet {
            kind = .set(c.type, target: target)
        } else if c.isMap {
            kind = .map(c.type, target: target)
        } else if c.isList {
            kind = .list(c.type, target: target)
        } else if c.type == .link {
            kind = .link(ObjectIdentifier(Object.self))
        } else {
            kind = .scalar(c.type)
        }
        let optional = c.type == .link ? !c.isList || c.isMap : c.isNullable
        self.init(name: c.name, atollType: _PropertyType(kind: kind, isOptional: optional, intBits: c.intBits, objectType: nil),
                  isPrimaryKey: isPrimaryKey, isIndexed: c.isIndexed || isPrimaryKey, isIgnored: false, originProperty: nil,
                  hasDeclaredDefault: false, valueType: Self.swiftType(of: c), fileLinkTarget: c.linkTarget)
    }

    /// A Swift type for a stored column (for dynamic conversions).
    static func swiftType(of c: ColumnSpec) -> any PersistableValue.Type {
        func scalar<T: RealmCollectionValue>(_ t: T.Type) -> any PersistableValue.Type {
            if c.isSet { return c.isNullable ? MutableSet<T?>.self : MutableSet<T>.self }
            if c.isMap { return c.isNullable ? Map<String, T?>.self : Map<String, T>.self }
            if c.isList { return c.isNullable ? List<T?>.self : List<T>.self }
            return c.isNullable ? T?.self : T.self
        }
        switch c.type {
        case .bool: return scalar(Bool.self)
        case .int: return scalar(Int.self)
        case .float: return scalar(Float.self)
        case .double: return scalar(Double.self)
        case .string: return scalar(String.self)
        case .binary: return scalar(Data.self)
        case .timestamp: return scalar(Date.self)
        case .uuid: return scalar(UUID.self)
        case .objectId: return scalar(ObjectId.self)
        case .decimal128: return scalar(Decimal128.self)
        case .mixed:
            if c.isSet { return MutableSet<AnyRealmValue>.self }
            if c.isMap { return Map<String, AnyRealmValue>.self }
            return c.isList ? List<AnyRealmValue>.self : AnyRealmValue.self
        case .link:
            if c.isSet { return MutableSet<Object>.self }
            if c.isMap { return Map<String, Object?>.self }
            return c.isList ? List<Object>.self : Object?.self
        }
    }
}
