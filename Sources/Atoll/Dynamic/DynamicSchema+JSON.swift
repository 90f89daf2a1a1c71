import AtollStorage

extension DynamicSchema {
    /// Parses a schema in realm-js notation and validates it.
    ///
    /// - A JSON array of classes: `{"name": "Dog", "primaryKey": "id", "properties": {...}}`
    ///   (`primaryKey` optional).
    /// - Each property maps its name to a type string or an object:
    ///   - `"bool" "int" "float" "double" "string" "data" "date" "uuid" "objectId" "decimal128"`;
    ///   - a class name for a link (`"Person"` and `"Person?"` both mean an optional link);
    ///   - `T?` for optional, `T[]` for a list, `T?[]` for a list of optional values;
    ///   - `{"type": T, "optional": Bool, "indexed": Bool}`, `{"type": "list", "objectType": T}`,
    ///     `{"type": "object", "objectType": "Person"}`,
    ///     `{"type": "linkingObjects", "objectType": "Person", "property": "dogs"}`.
    /// - `mixed` is always optional (`mixed` and `mixed?` mean the same).
    /// - Not supported (clear errors): sets (`<>`), dictionaries (`{}`),
    ///   asymmetric classes, default values.
    /// - `"embedded": true` on a class makes it embedded (no primary key; its objects are given
    ///   inline as values of their parent's properties).
    ///
    /// - Parameters:
    ///   - json: the schema file's text.
    ///   - sourceName: the file name used in error messages (`schema.json:4:17: ...`).
    /// - Throws: `AtollError` of kind `.invalidInput` with the position of the problem.
    public init(json: String, sourceName: String = "schema") throws {
        try self.init(jsonBytes: Array(json.utf8), sourceName: sourceName)
    }

    /// Like ``init(json:sourceName:)``, from the bytes of a file.
    public init(jsonBytes: [UInt8], sourceName: String = "schema") throws {
        let source = JSONSource(name: sourceName, bytes: jsonBytes)
        let root = try JSONParser.parse(source)
        var reader = DynamicSchemaJSON(source: source)
        self = try reader.read(root)
    }

    /// The schema in realm-js notation: classes in order, properties in declaration order, one
    /// property per line. `DynamicSchema(json:)` reads it back to an equal schema.
    public var json: String {
        var out = JSONOutput()
        out.raw("[")
        for (ci, c) in classes.enumerated() {
            out.raw(ci == 0 ? "\n  {\n    \"name\": " : ",\n  {\n    \"name\": ")
            out.string(c.name)
            if let pk = c.primaryKey {
                out.raw(",\n    \"primaryKey\": ")
                out.string(pk)
            }
            if c.isEmbedded { out.raw(",\n    \"embedded\": true") }
            out.raw(",\n    \"properties\": {")
            for (pi, p) in c.properties.enumerated() {
                out.raw(pi == 0 ? "\n      " : ",\n      ")
                out.string(p.name)
                out.raw(": ")
                switch p.type {
                case .linkingObjects(let origin, let property):
                    out.raw("{\"type\": \"linkingObjects\", \"objectType\": ")
                    out.string(origin)
                    out.raw(", \"property\": ")
                    out.string(property)
                    out.raw("}")
                default:
                    if p.isIndexed && p.name != c.primaryKey {
                        out.raw("{\"type\": ")
                        out.string(p.typeString)
                        out.raw(", \"indexed\": true}")
                    } else {
                        out.string(p.typeString)
                    }
                }
            }
            out.raw(c.properties.isEmpty ? "}\n  }" : "\n    }\n  }")
        }
        out.raw(classes.isEmpty ? "]\n" : "\n]\n")
        return out.text
    }
}

/// Reads the realm-js notation, keeping positions for error messages.
struct DynamicSchemaJSON {
    let source: JSONSource
    /// Per class index: the offset of the class object and of each property's value.
    private var classOffsets: [Int] = []
    private var propertyOffsets: [[String: Int]] = []

    static let typeList = "bool, int, float, double, string, data, date, uuid, objectId, decimal128, mixed"

    init(source: JSONSource) { self.source = source }

    private func fail(_ offset: Int, _ message: String) -> AtollError {
        source.error(.invalidInput, at: offset, message)
    }

    mutating func read(_ root: JSONNode) throws -> DynamicSchema {
        guard case .array(let elements) = root.value else {
            throw fail(root.offset, "a schema is a JSON array of classes such as [{\"name\": \"Dog\", \"properties\": {\"name\": \"string\"}}], not \(root.typeName)")
        }
        var classes: [DynamicClassSchema] = []
        for element in elements { classes.append(try readClass(element)) }
        let schema = DynamicSchema(classes: classes)
        let classOffsets = self.classOffsets, propertyOffsets = self.propertyOffsets, source = self.source
        try DynamicSchemaValidator(schema: schema, locate: { ci, property in
            let offset = property.flatMap { propertyOffsets[ci][$0] } ?? classOffsets[ci]
            return source.location(offset) + ": "
        }).validate()
        return schema
    }

    private mutating func readClass(_ node: JSONNode) throws -> DynamicClassSchema {
        guard let members = node.members else {
            throw fail(node.offset, "each class is an object {\"name\": ..., \"properties\": {...}}, not \(node.typeName)")
        }
        var name: String?
        var primaryKey: String?
        var isEmbedded = false
        var properties: JSONNode?
        for m in members {
            switch m.key {
            case "name":
                guard let s = m.value.string else { throw fail(m.value.offset, "\"name\" must be a string") }
                name = s
            case "primaryKey":
                guard let s = m.value.string else { throw fail(m.value.offset, "\"primaryKey\" must be a string naming a property") }
                primaryKey = s
            case "properties":
                properties = m.value
            case "embedded":
                guard case .bool(let b) = m.value.value else { throw fail(m.value.offset, "\"embedded\" must be true or false") }
                isEmbedded = b
            case "asymmetric":
                if case .bool(false) = m.value.value { continue }
                throw fail(m.keyOffset, "\(m.key) classes are not supported by Atoll")
            default:
                throw fail(m.keyOffset, "unknown key \"\(m.key)\" in a class (allowed: name, primaryKey, embedded, properties)")
            }
        }
        guard let className = name else { throw fail(node.offset, "the class has no \"name\"") }
        guard let propertiesNode = properties else { throw fail(node.offset, "class '\(className)' has no \"properties\"") }
        guard let propertyMembers = propertiesNode.members else {
            throw fail(propertiesNode.offset, "\"properties\" of class '\(className)' must be an object mapping names to types, not \(propertiesNode.typeName)")
        }
        classOffsets.append(node.offset)
        var offsets: [String: Int] = [:]
        var result: [DynamicProperty] = []
        for m in propertyMembers {
            offsets[m.key] = m.value.offset
            result.append(try readProperty(m, className: className))
        }
        propertyOffsets.append(offsets)
        return DynamicClassSchema(name: className, primaryKey: primaryKey, properties: result, isEmbedded: isEmbedded)
    }

    private func readProperty(_ m: JSONMember, className: String) throws -> DynamicProperty {
        let where_ = "class '\(className)', property '\(m.key)'"
        if let typeString = m.value.string {
            return try parseTypeString(typeString, name: m.key, at: m.value.offset, where_)
        }
        guard let members = m.value.members else {
            throw fail(m.value.offset, "\(where_): a property's type is a string such as \"int?\" or an object such as {\"type\": \"int\", \"optional\": true}, not \(m.value.typeName)")
        }
        var type: String?, objectType: String?, originProperty: String?
        var optional: Bool?, indexed = false
        for member in members {
            switch member.key {
            case "type", "objectType", "property":
                guard let s = member.value.string else { throw fail(member.value.offset, "\(where_): \"\(member.key)\" must be a string") }
                if member.key == "type" { type = s } else if member.key == "objectType" { objectType = s } else { originProperty = s }
            case "optional", "indexed":
                guard case .bool(let b) = member.value.value else { throw fail(member.value.offset, "\(where_): \"\(member.key)\" must be true or false") }
                if member.key == "optional" { optional = b } else { indexed = b }
            case "default":
                throw fail(member.keyOffset, "\(where_): default values are not supported; give every value in the data")
            case "mapTo":
                throw fail(member.keyOffset, "\(where_): \"mapTo\" is not supported")
            default:
                throw fail(member.keyOffset, "\(where_): unknown key \"\(member.key)\" (allowed: type, objectType, optional, indexed, property)")
            }
        }
        guard let type else { throw fail(m.value.offset, "\(where_): the property has no \"type\"") }
        var property: DynamicProperty
        switch type {
        case "linkingObjects":
            guard let objectType, let originProperty else {
                throw fail(m.value.offset, "\(where_): linkingObjects needs \"objectType\" (the class that links here) and \"property\" (its link property)")
            }
            if optional == true { throw fail(m.value.offset, "\(where_): linking objects cannot be optional") }
            return DynamicProperty(name: m.key, type: .linkingObjects(objectType, property: originProperty), isIndexed: indexed)
        case "list", "set", "dictionary", "object":
            guard let objectType else { throw fail(m.value.offset, "\(where_): type \"\(type)\" needs \"objectType\"") }
            let element = try parseTypeString(objectType, name: m.key, at: m.value.offset, where_)
            guard !element.isCollection else { throw fail(m.value.offset, "\(where_): collections of collections are not supported") }
            if type == "object" {
                guard case .object = element.type else { throw fail(m.value.offset, "\(where_): type \"object\" needs a class name as \"objectType\", not '\(objectType)'") }
                property = element
            } else {
                property = DynamicProperty(name: m.key, type: element.type, isOptional: element.isOptional || optional == true,
                                           isList: type == "list", isSet: type == "set", isMap: type == "dictionary")
                if case .object = element.type, optional == true, type != "dictionary" {
                    throw fail(m.value.offset, "\(where_): a \(type) of objects cannot hold nil")
                }
                property.isIndexed = indexed
                return property
            }
        default:
            if originProperty != nil { throw fail(m.value.offset, "\(where_): \"property\" applies only to linkingObjects") }
            if objectType != nil { throw fail(m.value.offset, "\(where_): \"objectType\" applies only to list, set, dictionary, object and linkingObjects") }
            property = try parseTypeString(type, name: m.key, at: m.value.offset, where_)
        }
        if let optional {
            if case .object = property.type, !property.isList, !property.isSet {
                // Links are always optional (realm-js accepts either spelling).
            } else if optional {
                property.isOptional = true
            } else if property.isOptional, !property.isCollection {
                throw fail(m.value.offset, "\(where_): '\(type)' is optional but \"optional\" is false")
            }
        }
        property.isIndexed = indexed
        return property
    }

    /// `int`, `int?`, `int[]`, `int?[]`, `int<>` (a set), `int?{}` (a map), `Person`, `Person?`,
    /// `Person[]`, `Person<>`, `Person{}`.
    private func parseTypeString(_ text: String, name: String, at offset: Int, _ where_: String) throws -> DynamicProperty {
        var base = Substring(text)
        var isList = false, isSet = false, isMap = false, isOptional = false
        if base.hasSuffix("[]") { isList = true; base = base.dropLast(2) }
        else if base.hasSuffix("<>") { isSet = true; base = base.dropLast(2) }
        else if base.hasSuffix("{}") { isMap = true; base = base.dropLast(2) }
        if base.hasSuffix("?") { isOptional = true; base = base.dropLast() }
        guard !base.isEmpty, !base.contains("?"), !base.contains("["), !base.contains("]"), !base.contains("<"), !base.contains("{") else {
            throw fail(offset, "\(where_): '\(text)' is not a type; write T, T?, T[], T?[], T<>, T?<>, T{} or T?{}")
        }
        let name_ = String(base)
        if let valueType = DynamicPropertyType.valueTypes[name_] {
            return DynamicProperty(name: name, type: valueType, isOptional: isOptional, isList: isList, isSet: isSet, isMap: isMap)
        }
        switch name_ {
        case "decimal", "counter":
            throw fail(offset, "\(where_): type '\(name_)' is not supported by Atoll (supported: \(Self.typeList), class names)")
        case "list", "set", "dictionary", "object", "linkingObjects":
            throw fail(offset, "\(where_): '\(name_)' needs the object form, e.g. {\"type\": \"\(name_)\", \"objectType\": ...}")
        default:
            // A class name; whether it exists is checked once every class is known.
            return DynamicProperty(name: name, type: .object(name_), isOptional: isOptional || isMap, isList: isList, isSet: isSet, isMap: isMap)
        }
    }
}
