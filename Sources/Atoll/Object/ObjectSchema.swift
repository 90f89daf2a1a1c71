import AtollStorage
import Synchronization

/// One persisted property of a model class.
public struct PropertyInfo: Sendable, CustomStringConvertible {
    /// The property's name (the stored column's name).
    public let name: String
    /// What the property stores, exactly (`type` is RealmSwift's coarser `PropertyType`).
    let atollType: _PropertyType
    /// Whether this is the class's primary key.
    public let isPrimaryKey: Bool
    /// Whether the property has a search index (primary keys always do).
    public let isIndexed: Bool
    /// Declared with @Persisted but listed in `ignoredProperties()`: kept in memory only.
    public let isIgnored: Bool
    /// For `LinkingObjects`: the property of the origin class that links here.
    public let originProperty: String?
    /// Whether the declaration gives a default value (`@Persisted var name = ""`).
    public let hasDeclaredDefault: Bool
    /// The Swift type of the property (for dynamic conversions).
    let valueType: any PersistableValue.Type
    /// The linked class's name when there is no model class for it (the old schema of a
    /// migration, read from the file).
    var fileLinkTarget: String? = nil

    /// Whether this is a `LinkingObjects` property (computed from links, not stored).
    public var isLinkingObjects: Bool { if case .linkingObjects = atollType.kind { true } else { false } }
    /// Whether this is a `List` property.
    public var isList: Bool { if case .list = atollType.kind { true } else { false } }
    /// Whether this is a `MutableSet` property.
    public var isSet: Bool { if case .set = atollType.kind { true } else { false } }
    /// Whether this is a `Map` property.
    public var isMap: Bool { if case .map = atollType.kind { true } else { false } }
    /// Whether the property may be nil (for lists: whether its elements may be).
    public var isOptional: Bool { atollType.isOptional }
    /// The linked class for links, lists of links and linking objects.
    public var objectClassName: String? { atollType.objectType?.className() ?? fileLinkTarget }
    var isStored: Bool { !isIgnored && !isLinkingObjects }

    /// Whether a new object made from a dictionary, array or JSON must be given a value for
    /// this property: it is a required scalar whose declaration has no default. Identifiers
    /// (`ObjectId`, `UUID`) default to a new one instead.
    var needsValueOnCreate: Bool {
        guard isStored, !atollType.isOptional, !hasDeclaredDefault, case .scalar(let t) = atollType.kind else { return false }
        return t != .objectId && t != .uuid
    }

    /// `name: Type`.
    public var description: String { "\(name): \(valueType)" }

    /// The column this property is stored in.
    var columnSpec: ColumnSpec? {
        guard isStored, let t = atollType.columnType else { return nil }
        var nullable = atollType.isOptional
        if case .link = atollType.kind { nullable = true }
        if case .list(_, let target) = atollType.kind { nullable = target == nil && atollType.isOptional }
        if case .set(_, let target) = atollType.kind { nullable = target == nil && atollType.isOptional }
        // A map of objects holds nil for a deleted target (`Map<String, Dog?>`, as RealmSwift requires).
        if case .map(_, let target) = atollType.kind { nullable = target != nil || atollType.isOptional }
        return ColumnSpec(name: name, type: t, isNullable: nullable, isList: isList, isIndexed: isIndexed && !isPrimaryKey,
                          linkTarget: atollType.objectType?.className(), intBits: atollType.intBits,
                          isSet: isSet, isMap: isMap)
    }
}

/// The schema of one model class, derived once from the class and cached.
public final class ObjectSchema: Sendable, CustomStringConvertible {
    /// The class name (its table's name).
    public let className: String
    /// The persisted properties as RealmSwift lists them: a superclass's before its
    /// subclass's, each class's in declaration order. Ignored properties are not in the schema.
    public let properties: [PropertyInfo]
    /// Every @Persisted property by slot, ignored ones included: the order Swift initializes
    /// them (a subclass's before its superclass's), which accessors, bindings and writers index.
    let allProperties: [PropertyInfo]
    /// The slots of the stored properties (no ignored, no linking objects) in the order of
    /// `properties`: the order of an array literal (`Dog(value: ["Rex", 3])`).
    let storedSlotsInOrder: [Int]
    /// The primary key property, if the class has one.
    public let primaryKeyProperty: PropertyInfo?
    /// The model class.
    public let objectType: Object.Type
    /// Whether the class is embedded (an `EmbeddedObject` subclass): owned by one parent, with
    /// no primary key (RealmSwift's `ObjectSchema.isEmbedded`).
    public let isEmbedded: Bool
    let tableSpec: TableSpec
    /// Why the class cannot be used as a model, if it cannot.
    let error: AtollError?
    private let indexByName: [String: Int]

    /// The class and its properties.
    public var description: String { "\(className) { \(properties.map(\.description).joined(separator: "; ")) }" }

    /// The slot of a property (its position in `allProperties`), ignored ones included, or nil.
    func index(of name: String) -> Int? { indexByName[name] }

    /// The persisted property named `name`, or nil (also for ignored properties, as in RealmSwift).
    public subscript(name: String) -> PropertyInfo? {
        guard let i = indexByName[name], !allProperties[i].isIgnored else { return nil }
        return allProperties[i]
    }

    /// The schema of a class as the file stores it, for a class that may have no model class
    /// (`Migration.oldSchema`): `objectType` is `Object`.
    init(fileSpec spec: TableSpec) {
        objectType = Object.self
        className = spec.name
        isEmbedded = spec.isEmbedded
        properties = spec.columns.map { PropertyInfo(fileColumn: $0, isPrimaryKey: $0.name == spec.primaryKey) }
        allProperties = properties
        storedSlotsInOrder = Array(properties.indices)
        primaryKeyProperty = properties.first(where: \.isPrimaryKey)
        tableSpec = spec
        error = nil
        indexByName = Dictionary(properties.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    private init(type: Object.Type) {
        objectType = type
        className = type.className()
        isEmbedded = type is EmbeddedObject.Type
        let probe = type.init()
        // (slot, name, wrapper, depth of the declaring class below `type`).
        var found: [(Int, String, any PersistedProperty, Int)] = []
        var mirror: Mirror? = Mirror(reflecting: probe)
        var depth = 0
        while let m = mirror {
            for child in m.children {
                guard let label = child.label, label.hasPrefix("_"), let wrapper = child.value as? any PersistedProperty else { continue }
                found.append((Int(wrapper.rawIndex) - probe._indexBase, String(label.dropFirst()), wrapper, depth))
            }
            mirror = m.superclassMirror
            depth += 1
        }
        found.sort { $0.0 < $1.0 }
        // RealmSwift's order: the base class's properties first.
        let presentationSlots = found.indices.sorted { a, b in
            found[a].3 != found[b].3 ? found[a].3 > found[b].3 : found[a].0 < found[b].0
        }
        let ignored = Set(type.ignoredProperties())
        let indexedNames = Set(type.indexedProperties())
        let declaredPrimaryKey = type.primaryKey()
        var properties: [PropertyInfo] = []
        var problems: [String] = []
        for (position, name, wrapper, _) in found {
            if position != properties.count { problems.append("property '\(name)' was not initialized in declaration order") }
            let t = wrapper.valueType._atollType
            let isPK = wrapper.isPrimaryKey || declaredPrimaryKey == name
            properties.append(PropertyInfo(name: name, atollType: t, isPrimaryKey: isPK, isIndexed: wrapper.isIndexed || indexedNames.contains(name) || isPK,
                                           isIgnored: ignored.contains(name), originProperty: wrapper.originProperty,
                                           hasDeclaredDefault: wrapper.hasDeclaredDefault, valueType: wrapper.valueType))
        }
        allProperties = properties
        self.properties = presentationSlots.map { properties[$0] }.filter { !$0.isIgnored }
        storedSlotsInOrder = presentationSlots.filter { properties[$0].isStored }
        indexByName = Dictionary(properties.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        let pks = properties.filter(\.isPrimaryKey)
        primaryKeyProperty = pks.first
        if isEmbedded, let pk = pks.first { problems.append("an embedded class cannot have a primary key ('\(pk.name)')") }
        if pks.count > 1 { problems.append("more than one primary key (\(pks.map(\.name).joined(separator: ", ")))") }
        if let name = declaredPrimaryKey, indexByName[name] == nil { problems.append("primaryKey() names '\(name)', which is not a @Persisted property") }
        for p in properties where p.isStored {
            switch p.atollType.kind {
            case .link where !p.atollType.isOptional:
                problems.append("link property '\(p.name)' must be optional (\(p.objectClassName ?? "Object")?)")
            case .scalar(let t) where p.isPrimaryKey && !t.canBePrimaryKey:
                problems.append("property '\(p.name)' of type \(t) cannot be a primary key")
            case .scalar(let t) where p.isIndexed && !p.isPrimaryKey && !t.isIndexable:
                problems.append("property '\(p.name)' of type \(t) cannot be indexed")
            case .map(_, _?) where !p.atollType.isOptional:
                problems.append("map property '\(p.name)' of objects must have optional values (Map<String, \(p.objectClassName ?? "Object")?>)")
            case .set(_, _?) where p.atollType.isOptional:
                problems.append("set property '\(p.name)' of objects cannot hold nil (MutableSet<\(p.objectClassName ?? "Object")>)")
            case .set(_, _?) where p.atollType.objectType is EmbeddedObject.Type:
                problems.append(TableSpec.setOfEmbeddedObjectsRefusal(className: className, property: p.name, target: p.objectClassName ?? "EmbeddedObject"))
            case .list, .link, .set, .map:
                if p.isPrimaryKey { problems.append("property '\(p.name)' cannot be a primary key") }
            default: break
            }
        }
        var columns: [ColumnSpec] = []
        var linking: [LinkingObjectsSpec] = []
        for p in properties where !p.isIgnored {
            if p.isLinkingObjects {
                linking.append(LinkingObjectsSpec(name: p.name, originTable: p.objectClassName ?? "", originProperty: p.originProperty ?? ""))
            } else if let c = p.columnSpec {
                columns.append(c)
            }
        }
        tableSpec = TableSpec(name: className, columns: columns, primaryKey: primaryKeyProperty?.name, linkingObjects: linking,
                              isEmbedded: isEmbedded)
        var error: AtollError? = problems.isEmpty ? nil : AtollError(.schemaMismatch, "class '\(className)' is not a valid model: " + problems.joined(separator: "; "))
        if error == nil {
            do { try tableSpec.validate() } catch let e as AtollError { error = e } catch {}
        }
        self.error = error
    }

    /// Stops the program when a key path to observe names no property (RealmSwift raises): a
    /// path follows links and lists of objects (`"owner.name"`, `"dogs.age"`).
    func requireObservable(_ keyPaths: [String]?) {
        for path in keyPaths ?? [] {
            var schema = self
            let names = path.split(separator: ".").map(String.init)
            for (i, name) in names.enumerated() {
                guard let p = schema[name] else {
                    atollProgrammerError("cannot observe '\(path)': property '\(name)' not found in object of type '\(schema.className)'")
                }
                guard i < names.count - 1 else { break }
                guard let target = p.atollType.objectType else {
                    atollProgrammerError("cannot observe '\(path)': property '\(schema.className).\(name)' is not a link to objects")
                }
                schema = ObjectSchema.of(target)
            }
        }
    }

    // MARK: caches

    private static let schemas = AtollLock<[ObjectIdentifier: ObjectSchema]>([:])
    private static let counts = AtollLock<[ObjectIdentifier: Int]>([:])

    /// The schema of `type`, derived on first use.
    public static func of(_ type: Object.Type) -> ObjectSchema {
        let id = ObjectIdentifier(type)
        if let s = schemas.withLock({ $0[id] }) { return s }
        let schema = ObjectSchema(type: type)
        return schemas.withLock { cache in
            if let existing = cache[id] { return existing }
            cache[id] = schema
            return schema
        }
    }

    /// Every class whose schema was derived in this process.
    static var knownTypes: [Object.Type] { schemas.withLock { $0.values.map(\.objectType) } }

    /// Number of @Persisted properties of an object's class (counted once with Mirror).
    static func propertyCount(of object: Object) -> Int {
        let id = ObjectIdentifier(type(of: object))
        if let n = counts.withLock({ $0[id] }) { return n }
        var n = 0
        var mirror: Mirror? = Mirror(reflecting: object)
        while let m = mirror {
            for child in m.children where child.value is any PersistedProperty { n += 1 }
            mirror = m.superclassMirror
        }
        counts.withLock { $0[id] = n }
        return n
    }
}
