import AtollStorage

/// The type of a property in a ``DynamicSchema``.
public enum DynamicPropertyType: Sendable, Hashable, CustomStringConvertible {
    /// A `Bool`.
    case bool
    /// An integer (`Int64`).
    case int
    /// A `Float`.
    case float
    /// A `Double`.
    case double
    /// A `String`.
    case string
    /// Binary data (`Data`).
    case data
    /// A `Date`.
    case date
    /// A `UUID`.
    case uuid
    /// An `ObjectId`.
    case objectId
    /// An IEEE 754 decimal128 (`Decimal128`).
    case decimal128
    /// A value of any scalar type with its type (`AnyRealmValue`); always optional.
    case mixed
    /// A link to an object of the named class (a single link is always optional).
    case object(String)
    /// The objects of a class whose link (or list of links) `property` points here. Computed
    /// from the links; it cannot be set.
    case linkingObjects(String, property: String)

    /// The realm-js name of a value type (`"int"`, `"objectId"`...), or the class name.
    public var description: String {
        switch self {
        case .object(let name): name
        case .linkingObjects(let name, let property): "linkingObjects(\(name).\(property))"
        default: columnType?.description ?? ""
        }
    }

    /// The value types, by their realm-js names.
    static let valueTypes: [String: DynamicPropertyType] = [
        "bool": .bool, "int": .int, "float": .float, "double": .double, "string": .string,
        "data": .data, "date": .date, "uuid": .uuid, "objectId": .objectId,
        "decimal128": .decimal128, "mixed": .mixed,
    ]

    var columnType: ColumnType? {
        switch self {
        case .bool: .bool
        case .int: .int
        case .float: .float
        case .double: .double
        case .string: .string
        case .data: .binary
        case .date: .timestamp
        case .uuid: .uuid
        case .objectId: .objectId
        case .decimal128: .decimal128
        case .mixed: .mixed
        case .object: .link
        case .linkingObjects: nil
        }
    }

    init(_ column: ColumnSpec) {
        switch column.type {
        case .bool: self = .bool
        case .int: self = .int
        case .float: self = .float
        case .double: self = .double
        case .string: self = .string
        case .binary: self = .data
        case .timestamp: self = .date
        case .uuid: self = .uuid
        case .objectId: self = .objectId
        case .decimal128: self = .decimal128
        case .mixed: self = .mixed
        case .link: self = .object(column.linkTarget ?? "")
        }
    }
}

/// One property of a class in a ``DynamicSchema``.
public struct DynamicProperty: Sendable, Hashable, CustomStringConvertible {
    /// The property's name.
    public var name: String
    /// What the property (or each element of its collection) holds.
    public var type: DynamicPropertyType
    /// For a list: whether its elements may be nil. A single link is always optional.
    public var isOptional: Bool
    /// A list (realm-js `int[]`).
    public var isList: Bool
    /// Whether the property has a search index (primary keys always have one).
    public var isIndexed: Bool
    /// A set (realm-js `int<>`): unique elements.
    public var isSet: Bool
    /// A map with string keys (realm-js `int{}`). A map of objects always holds optional
    /// values: a deleted object's value becomes nil.
    public var isMap: Bool

    /// A property. A single link is always optional, whatever `isOptional` says.
    public init(name: String, type: DynamicPropertyType, isOptional: Bool = false, isList: Bool = false, isIndexed: Bool = false,
                isSet: Bool = false, isMap: Bool = false)
    {
        self.name = name
        self.type = type
        if case .object = type, !isList, !isSet { self.isOptional = true } else if type == .mixed { self.isOptional = true } else { self.isOptional = isOptional }
        self.isList = isList
        self.isIndexed = isIndexed
        self.isSet = isSet
        self.isMap = isMap
    }

    /// Whether the property holds a list, a set or a map.
    public var isCollection: Bool { isList || isSet || isMap }

    /// Whether the property is the objects linking to this one (`linkingObjects` in a schema).
    public var isLinkingObjects: Bool { if case .linkingObjects = type { true } else { false } }

    /// The realm-js type string: `"int"`, `"string?"`, `"Person?"`, `"double[]"`, `"int?[]"`,
    /// `"string<>"` (a set), `"int?{}"` (a map), `"Person{}"` (a map of objects).
    public var typeString: String {
        if case .linkingObjects = type { return "linkingObjects" }
        if case .object = type, isMap { return type.description + "{}" }
        return type.description + (isOptional ? "?" : "") + (isList ? "[]" : isSet ? "<>" : isMap ? "{}" : "")
    }

    public var description: String { "\(name): \(typeString)\(isIndexed ? " (indexed)" : "")" }

    /// The stored column (nil for linking objects).
    func columnSpec(isPrimaryKey: Bool) -> ColumnSpec? {
        guard let t = type.columnType else { return nil }
        var nullable = isOptional
        if case .object(let target) = type {
            nullable = !isList && !isSet
            return ColumnSpec(name: name, type: .link, isNullable: nullable, isList: isList, linkTarget: target, isSet: isSet, isMap: isMap)
        }
        return ColumnSpec(name: name, type: t, isNullable: nullable, isList: isList, isIndexed: isIndexed && !isPrimaryKey,
                          isSet: isSet, isMap: isMap)
    }
}

/// One class of a ``DynamicSchema``.
public struct DynamicClassSchema: Sendable, Hashable, CustomStringConvertible {
    /// The class's name.
    public var name: String
    /// The primary key property's name, if the class has one.
    public var primaryKey: String?
    /// In declaration order: stored properties, then linking objects as declared.
    public var properties: [DynamicProperty]
    /// Whether the class is embedded (realm-js `"embedded": true`): its objects live inside one
    /// parent each, have no primary key, and are given as nested values of the parent.
    public var isEmbedded: Bool

    /// A class with these properties.
    public init(name: String, primaryKey: String? = nil, properties: [DynamicProperty], isEmbedded: Bool = false) {
        self.name = name
        self.primaryKey = primaryKey
        self.properties = properties
        self.isEmbedded = isEmbedded
    }

    /// The property named `name`, or nil.
    public subscript(property name: String) -> DynamicProperty? { properties.first { $0.name == name } }

    public var description: String {
        "\(name)\(isEmbedded ? " (embedded)" : "")\(primaryKey.map { " (primary key \($0))" } ?? "") { \(properties.map(\.description).joined(separator: "; ")) }"
    }

    /// The table this class is stored in.
    var tableSpec: TableSpec {
        var columns: [ColumnSpec] = []
        var linking: [LinkingObjectsSpec] = []
        for p in properties {
            if case .linkingObjects(let origin, let property) = p.type {
                linking.append(LinkingObjectsSpec(name: p.name, originTable: origin, originProperty: property))
            } else if let c = p.columnSpec(isPrimaryKey: p.name == primaryKey) {
                columns.append(c)
            }
        }
        return TableSpec(name: name, columns: columns, primaryKey: primaryKey, linkingObjects: linking, isEmbedded: isEmbedded)
    }

    /// The class of a stored table (internal `__atoll` columns left out).
    init(_ spec: TableSpec) {
        name = spec.name
        primaryKey = spec.primaryKey
        isEmbedded = spec.isEmbedded
        var properties: [DynamicProperty] = []
        for c in spec.columns where !DynamicSchema.isInternal(c.name) {
            properties.append(DynamicProperty(name: c.name, type: DynamicPropertyType(c), isOptional: c.type == .link ? !c.isList || c.isMap : c.isNullable,
                                              isList: c.isList && !c.isSet && !c.isMap, isIndexed: c.isIndexed, isSet: c.isSet, isMap: c.isMap))
        }
        for l in spec.linkingObjects {
            properties.append(DynamicProperty(name: l.name, type: .linkingObjects(l.originTable, property: l.originProperty)))
        }
        self.properties = properties
    }
}

/// A schema known at run time: classes and their properties by name. Parsed from (and printed
/// as) the JSON notation of realm-js, read from a realm file, and used by the dynamic API,
/// `atoll import` and sync.
///
/// ```swift
/// let schema = try DynamicSchema(json: """
///     [{"name": "Dog", "primaryKey": "id",
///       "properties": {"id": "int", "name": "string", "owner": "Person?", "tags": "string[]"}},
///      {"name": "Person", "primaryKey": "name",
///       "properties": {"name": "string",
///                      "dogs": {"type": "linkingObjects", "objectType": "Dog", "property": "owner"}}}]
///     """)
/// let realm = try Realm(configuration: config, dynamicSchema: schema)
/// ```
///
/// Notation (see ``init(json:sourceName:)``): a JSON array of classes
/// `{"name", "primaryKey"?, "properties"}`; each property maps its name to a type string
/// (`bool int float double string data date uuid objectId`, a class name for a link, `T?` for
/// optional, `T[]` for a list) or to an object with `type`, `objectType`, `optional`, `indexed`
/// and `property` (`{"type": "linkingObjects", "objectType": "Person", "property": "dogs"}`).
/// Class and property names beginning with `__atoll` are reserved.
public struct DynamicSchema: Sendable, Hashable, CustomStringConvertible {
    /// The classes, in the order given (or, read from a file, sorted by name).
    public var classes: [DynamicClassSchema]

    /// A schema of the given classes. Call ``validate()`` to check it.
    public init(classes: [DynamicClassSchema]) {
        self.classes = classes
    }

    /// The class named `name`, or nil.
    public subscript(className name: String) -> DynamicClassSchema? { classes.first { $0.name == name } }

    public var description: String { classes.map(\.description).joined(separator: "\n") }

    /// Names reserved for Atoll's own tables and columns, invisible to every user-facing listing.
    public static let reservedPrefix = "__atoll"

    static func isInternal(_ name: String) -> Bool { name.hasPrefix(reservedPrefix) }

    /// The user classes of a transaction, sorted by name (internal tables left out).
    init(transaction: Transaction) {
        classes = transaction.tableSpecs.filter { !Self.isInternal($0.name) }
            .sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
            .map(DynamicClassSchema.init)
    }

    /// Checks names, types, links and primary keys. Throws `.invalidInput` naming the class and
    /// property.
    public func validate() throws {
        try DynamicSchemaValidator(schema: self, locate: nil).validate()
    }
}

/// Semantic checks of a schema; `locate` turns a (class, property) into the position prefix of
/// an error message when the schema came from a file.
struct DynamicSchemaValidator {
    let schema: DynamicSchema
    /// (class index, property name or nil) -> "file:line:column: " or "".
    let locate: ((Int, String?) -> String)?

    private func fail(_ classIndex: Int, _ property: String?, _ message: String) -> AtollError {
        let prefix = locate?(classIndex, property) ?? ""
        let className = schema.classes[classIndex].name
        let subject = property.map { "class '\(className)', property '\($0)'" } ?? "class '\(className)'"
        return AtollError(.invalidInput, "\(prefix)\(subject): \(message)")
    }

    func validate() throws {
        var names = Set<String>()
        let classNames = schema.classes.map(\.name)
        for (ci, c) in schema.classes.enumerated() {
            guard !c.name.isEmpty else { throw fail(ci, nil, "a class needs a name") }
            guard !DynamicSchema.isInternal(c.name) else { throw fail(ci, nil, "names beginning with '\(DynamicSchema.reservedPrefix)' are reserved for Atoll") }
            guard names.insert(c.name).inserted else { throw fail(ci, nil, "the class is declared twice") }
            var propertyNames = Set<String>()
            for p in c.properties {
                guard !p.name.isEmpty else { throw fail(ci, nil, "a property needs a name") }
                guard !DynamicSchema.isInternal(p.name) else { throw fail(ci, p.name, "names beginning with '\(DynamicSchema.reservedPrefix)' are reserved for Atoll") }
                guard propertyNames.insert(p.name).inserted else { throw fail(ci, p.name, "the property is declared twice") }
                switch p.type {
                case .object(let target):
                    guard classNames.contains(target) else { throw fail(ci, p.name, unknownClass(target, classNames)) }
                    if p.isList && p.isOptional { throw fail(ci, p.name, "a list of objects cannot hold nil; write '\(target)[]'") }
                    if p.isSet && p.isOptional { throw fail(ci, p.name, "a set of objects cannot hold nil; write '\(target)<>'") }
                    if p.isSet, schema[className: target]?.isEmbedded == true {
                        throw fail(ci, p.name, TableSpec.setOfEmbeddedObjectsRefusal(className: c.name, property: p.name, target: target))
                    }
                    if p.isIndexed { throw fail(ci, p.name, "links cannot be indexed") }
                case .linkingObjects(let origin, let property):
                    guard let originClass = schema[className: origin] else { throw fail(ci, p.name, unknownClass(origin, classNames)) }
                    guard let originProperty = originClass[property: property] else {
                        let suggestion = NameSuggestion.closest(to: property, among: originClass.properties.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
                        throw fail(ci, p.name, "'\(origin)' has no property '\(property)'\(suggestion)")
                    }
                    guard case .object(let target) = originProperty.type, target == c.name else {
                        throw fail(ci, p.name, "'\(origin).\(property)' is not a link to '\(c.name)', so it cannot be the origin of linking objects")
                    }
                    if p.isCollection || p.isIndexed { throw fail(ci, p.name, "linking objects cannot be a list, set, map or indexed") }
                default:
                    if p.isIndexed {
                        // Sets and maps index their elements; lists cannot be indexed.
                        guard !p.isList, let t = p.type.columnType, t.isIndexable else {
                            throw fail(ci, p.name, "\(p.typeString) properties cannot be indexed (indexable: bool, int, string, date, uuid, objectId, and sets and maps of them)")
                        }
                    }
                }
            }
            if c.isEmbedded, c.primaryKey != nil {
                throw fail(ci, nil, "an embedded class cannot have a primary key")
            }
            if let pk = c.primaryKey {
                guard let p = c[property: pk] else {
                    let suggestion = NameSuggestion.closest(to: pk, among: c.properties.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
                    throw fail(ci, nil, "the primary key '\(pk)' is not one of its properties\(suggestion)")
                }
                guard !p.isCollection, let t = p.type.columnType, t.canBePrimaryKey else {
                    throw fail(ci, pk, "a \(p.typeString) property cannot be the primary key (allowed: int, string, uuid, objectId)")
                }
            }
            do {
                try c.tableSpec.validate()
            } catch let e as AtollError {
                throw fail(ci, nil, e.message)
            }
        }
    }

    private func unknownClass(_ name: String, _ classes: [String]) -> String {
        let suggestion = NameSuggestion.closest(to: name, among: classes + DynamicPropertyType.valueTypes.keys.sorted()).map { "; did you mean '\($0)'?" } ?? ""
        return "'\(name)' is neither a type (\(DynamicSchemaJSON.typeList)) nor a class of the schema\(suggestion)"
    }
}

import AtollQuery
