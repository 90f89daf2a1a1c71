/// The schema the binder checks queries against, supplied at run time by the object layer.
///
/// Atoll's `Realm` conforms by describing each model class; tests use ``QuerySchema``.
///
/// ```swift
/// struct MySchema: QuerySchemaProvider {
///     func queryClass(named name: String) -> QueryClassSchema? { classes[name] }
/// }
/// ```
public protocol QuerySchemaProvider {
    /// The class called `name`, or nil if there is none.
    func queryClass(named name: String) -> QueryClassSchema?

    /// An argument whose type does not match the property it is compared with, converted by the
    /// provider, or nil to reject it (the default: "cannot compare ...").
    ///
    /// The dynamic API and the `atoll` tool use this to accept arguments written as they are in
    /// data files: a link compared with the target's primary-key value (`owner == $0` with
    /// `"ali"`), a UUID or ObjectId as its string form. Literals in the query text are never
    /// passed here. Throws when the provider cannot read what it needs (a primary-key lookup
    /// in a damaged file): a failed read is never an answer.
    func convertArgument(_ value: QueryValue, toType type: QueryValueType, objectClassName: String?) throws -> QueryValue?
}

extension QuerySchemaProvider {
    public func convertArgument(_ value: QueryValue, toType type: QueryValueType, objectClassName: String?) throws -> QueryValue? { nil }
}

/// A fixed set of classes: the simplest ``QuerySchemaProvider``.
///
/// ```swift
/// let schema = QuerySchema([
///     QueryClassSchema(name: "Dog", properties: [
///         QueryProperty(name: "name", type: .string, columnIndex: 0),
///         QueryProperty(name: "age", type: .int, columnIndex: 1),
///     ]),
/// ])
/// ```
public struct QuerySchema: QuerySchemaProvider, Sendable {
    public var classes: [String: QueryClassSchema]

    public init(_ classes: [QueryClassSchema]) {
        self.classes = Dictionary(classes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public func queryClass(named name: String) -> QueryClassSchema? { classes[name] }
}

/// One model class as the query language sees it.
public struct QueryClassSchema: Sendable, Hashable {
    public var name: String
    public var properties: [QueryProperty]
    /// The primary key property's name, if the class has one.
    public var primaryKey: String?

    public init(name: String, properties: [QueryProperty], primaryKey: String? = nil) {
        self.name = name
        self.properties = properties
        self.primaryKey = primaryKey
    }

    /// The property called `name` (exact, case-sensitive match). O(number of properties).
    public func property(named name: String) -> QueryProperty? {
        properties.first { $0.name == name }
    }
}

/// The value types a property (or a list's elements) can have.
public enum QueryValueType: String, Sendable, Hashable, CaseIterable {
    case bool, int, float, double, string, data, date, uuid, objectId, object
    case decimal128
    /// A mixed property (`AnyRealmValue`): holds values of any of the other types.
    case mixed

    /// int, float, double and decimal128, which compare with each other.
    public var isNumeric: Bool { self == .int || self == .float || self == .double || self == .decimal128 }
}

/// One property of a ``QueryClassSchema``.
///
/// - A to-one link: `type: .object, objectClassName: "Person"` (links are always optional).
/// - A list: `isList: true`, with `type` the element type (`.object` plus `objectClassName` for a
///   list of objects); `isOptional` then says whether the *elements* can be nil.
/// - Linking objects (an inverse relationship): use ``linkingObjects(name:originClassName:originPropertyName:columnIndex:)``.
public struct QueryProperty: Sendable, Hashable {
    public var name: String
    public var type: QueryValueType
    public var isOptional: Bool
    public var isList: Bool
    /// The target class of a link, a list of objects or linking objects.
    public var objectClassName: String?
    /// For linking objects: which class and property link here.
    public var linkingObjectsOrigin: LinkingObjectsOrigin?
    public var isIndexed: Bool
    /// Opaque to the binder: where the evaluator finds this property's values.
    public var columnIndex: Int
    /// A map (`isList` is true too: a map reads as the list of its values, ordered by key);
    /// only maps take `map['key']`, `@keys` and `@values`.
    public var isMap = false
    /// A set (`isList` is true too). Sets take no positions or nested paths.
    public var isSet = false

    public init(
        name: String, type: QueryValueType, isOptional: Bool = false, isList: Bool = false,
        objectClassName: String? = nil, isIndexed: Bool = false, columnIndex: Int
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.isList = isList
        self.objectClassName = objectClassName
        self.linkingObjectsOrigin = nil
        self.isIndexed = isIndexed
        self.columnIndex = columnIndex
    }

    /// A linking objects property: the objects of `originClassName` whose `originPropertyName`
    /// (a link or list of links) points at the object that has this property.
    public static func linkingObjects(
        name: String, originClassName: String, originPropertyName: String, columnIndex: Int
    ) -> QueryProperty {
        var property = QueryProperty(name: name, type: .object, objectClassName: originClassName, columnIndex: columnIndex)
        property.linkingObjectsOrigin = LinkingObjectsOrigin(className: originClassName, propertyName: originPropertyName)
        return property
    }

    public var isLinkingObjects: Bool { linkingObjectsOrigin != nil }

    /// A list or linking objects: the property has any number of values per object.
    public var isToMany: Bool { isList || isLinkingObjects }

    /// A to-one link.
    public var isLink: Bool { type == .object && !isToMany }
}

/// The origin of a linking objects property.
public struct LinkingObjectsOrigin: Sendable, Hashable {
    public var className: String
    public var propertyName: String

    public init(className: String, propertyName: String) {
        self.className = className
        self.propertyName = propertyName
    }
}
