import AtollStorage

/// What a key path in a query denotes.
enum ResolvedKeyPath {
    /// The value(s) at its end.
    case value(BoundKeyPath)
    /// It ends in `@count` / `@size`.
    case count(BoundKeyPath)
    /// It contains `@min`, `@max`, `@sum` or `@avg`.
    case aggregate(BoundAggregate)
    /// It ends in `@type` (after a mixed property).
    case typeOf(BoundKeyPath)
}

extension BindingSession {
    /// Resolves `node` against the schema, starting at the scope's class.
    func resolveKeyPath(_ node: KeyPathNode, in scope: BindingScope) throws -> ResolvedKeyPath {
        let components = try expandKeyPathArguments(node.components)
        var steps: [BoundKeyPathStep] = []
        // The class whose properties the next component names; nil after a non-object value.
        var currentClass: QueryClassSchema? = try classSchema(named: scope.className, at: node.offset)
        var index = components.startIndex

        if case .variable(let name, let offset) = components.first {
            try checkVariable(name, at: offset, in: scope)
            index += 1
        }
        while index < components.endIndex {
            switch components[index] {
            case .variable(let name, let offset):
                throw AtollError.invalidQuery("the variable '$\(name)' can only start a key path", at: offset)
            case .keyPathArgument(_, let offset):
                throw AtollError.invalidQuery("%K cannot be nested in a key path argument", at: offset)
            case .property(let name, _) where Self.isMixedValue(steps.last) || Self.isMixedMapEntry(steps.last):
                // `value.key` in a mixed value: the value under `key` of its nested dictionary
                // (also `dict['a'].key` on a map of mixed values).
                Self.enterMixedPath(&steps)
                steps[steps.count - 1].mixedPath.append(.key(name))
            case .mapKey(let keyNode, let offset) where Self.isMixedValue(steps.last) || Self.isMixedMapEntry(steps.last)
                || Self.entersMixedCollectionColumn(steps.last, keyNode):
                // In a mixed value; or the first step into a list (`list[0]`, `list[*]`) or
                // map (`dict[*]`, `dict['a'][0]`) of mixed values, whose elements may hold
                // nested collections (realm-core's paths on collection columns).
                if case .literal(let text) = keyNode, let last = steps.last, last.property.isList, !last.property.isMap, last.mixedPath.isEmpty {
                    throw AtollError.invalidQuery("'\(last.property.name)' is a list, so ['\(text)'] has no value; a list takes a position ([0], [FIRST], [LAST]) or [*]", at: offset)
                }
                Self.enterMixedPath(&steps)
                let element: MixedPathElement
                switch keyNode {
                case .literal(let text): element = .key(text)
                case .argument(.format(.keyPath, let i)):
                    // `[%K]`: RealmSwift's spelling of `[*]`, with the argument `#any`.
                    guard case .string("#any") = try argument(.format(.keyPath, index: i), at: offset) else {
                        throw AtollError.invalidQuery("[%K] in a mixed value takes the argument '#any' (every element, as [*])", at: offset)
                    }
                    element = .all
                case .argument(let reference):
                    switch try argument(reference, at: offset) {
                    case .string(let text): element = .key(text)
                    case .int(let i) where i >= 0 && i <= Int64(Int32.max): element = .index(Int(i))
                    default:
                        throw AtollError.invalidQuery("the argument \(reference.spelling) in [ ] must be a string (a key) or a non-negative integer (a position)", at: offset)
                    }
                case .index(let i): element = .index(i)
                case .all: element = .all
                case .first: element = .index(0)
                case .last: element = .index(-1)
                case .size:
                    guard index == components.endIndex - 1 else {
                        throw AtollError.invalidQuery("[SIZE] must be at the end of a key path", at: offset)
                    }
                    return .count(try mixedSize(steps, scope: scope, offset: offset))
                }
                steps[steps.count - 1].mixedPath.append(element)
            case .collectionOperator(let op, let offset) where (Self.isMixedValue(steps.last) || Self.isMixedMapEntry(steps.last)) && (op == .count || op == .keys):
                // `value.@size` (`@count`), `value.@keys`: of the collection nested in a mixed
                // value (also `dict['a'].@size` on a map of mixed values).
                guard index == components.endIndex - 1 else {
                    throw AtollError.invalidQuery("\(op.rawValue) must be at the end of a key path", at: offset)
                }
                Self.enterMixedPath(&steps)
                if op == .count { return .count(try mixedSize(steps, scope: scope, offset: offset)) }
                steps[steps.count - 1].mixedPath.append(.keys)
            case .property(let name, _) where steps.last.map({ $0.property.isMap && $0.property.type != .object && $0.mapAccess == nil }) ?? false:
                // `map.key` on a map of values: the value under `key` (realm-core), as `map['key']`.
                steps[steps.count - 1].mapAccess = .key(name)
            case .property(let name, let offset):
                guard let owner = currentClass else {
                    throw notAnObject(steps: steps, followedBy: "'\(name)'", at: offset)
                }
                guard let property = owner.property(named: name) else {
                    throw unknownProperty(name, on: owner, at: offset)
                }
                steps.append(BoundKeyPathStep(className: owner.name, property: property))
                currentClass = try property.type == .object ? targetClass(of: property, at: offset) : nil
            case .backlinks(let originClassName, let originPropertyName, let offset):
                guard let target = currentClass else {
                    throw notAnObject(steps: steps, followedBy: "@links", at: offset)
                }
                let step = try backlinkStep(to: target, from: originClassName, property: originPropertyName, at: offset)
                steps.append(step)
                currentClass = try classSchema(named: originClassName, at: offset)
            case .mapKey(let keyNode, let offset):
                let mapIndex = try mapStep(steps, before: "[…]", at: offset)
                let key: String
                switch keyNode {
                case .literal(let text): key = text
                case .argument(.format(.keyPath, _)):
                    throw AtollError.invalidQuery("[%K] ('#any', every element) applies to the collections nested in a mixed (AnyRealmValue) value; a map key in [ ] is a string or %@", at: offset)
                case .argument(let reference):
                    guard case .string(let text) = try argument(reference, at: offset) else {
                        throw AtollError.invalidQuery("the map key argument \(reference.spelling) must be a string", at: offset)
                    }
                    key = text
                case .index, .all, .first, .last, .size:
                    throw AtollError.invalidQuery("[0], [*], [FIRST], [LAST] and [SIZE] apply to the collections nested in a mixed (AnyRealmValue) property", at: offset)
                }
                steps[mapIndex].mapAccess = .key(key)
            case .collectionOperator(.values, let offset):
                // The values: what a map reads as anyway.
                _ = try mapStep(steps, before: "@values", at: offset)
            case .collectionOperator(.keys, let offset):
                let mapIndex = try mapStep(steps, before: "@keys", at: offset)
                guard index == components.endIndex - 1 else {
                    throw AtollError.invalidQuery("@keys must be at the end of a key path", at: offset)
                }
                steps[mapIndex].mapAccess = .keys
                currentClass = nil
            case .collectionOperator(let collectionOperator, let offset):
                return try resolveCollectionOperator(
                    collectionOperator, at: offset, steps: steps, elementClass: currentClass,
                    following: components[(index + 1)...], scope: scope
                )
            }
            index += 1
        }
        return .value(try keyPath(scope: scope, steps: steps, offset: node.offset))
    }

    /// Whether `step` reads a mixed (AnyRealmValue) property, whose value may be a nested
    /// collection, or is already on a path into a list or map of mixed values.
    static func isMixedValue(_ step: BoundKeyPathStep?) -> Bool {
        guard let step, step.property.type == .mixed, !step.property.isLinkingObjects, step.mapAccess == nil || step.mapAccess == .collection else { return false }
        if step.property.isList && step.mixedPath.isEmpty { return false }
        return !step.mixedPath.contains(.keys)
    }

    /// Whether `step` reads one key of a map of mixed values (`dict['a']`), whose value may be
    /// a nested collection that the path goes on into.
    static func isMixedMapEntry(_ step: BoundKeyPathStep?) -> Bool {
        guard let step, step.property.type == .mixed, step.property.isMap, step.mixedPath.isEmpty,
              case .key? = step.mapAccess else { return false }
        return true
    }

    /// Whether `[key]` after `step` starts a path into a list or map column of mixed values:
    /// any subscript of a list (not a set), and of a map `[*]` and `[SIZE]` (a key stays a map
    /// access, `map['key']`; a position in a map is an error).
    static func entersMixedCollectionColumn(_ step: BoundKeyPathStep?, _ key: MapKeyNode) -> Bool {
        guard let step, step.property.type == .mixed, step.property.isList, !step.property.isSet,
              step.mapAccess == nil, step.mixedPath.isEmpty else { return false }
        if !step.property.isMap { return true }
        switch key {
        case .literal, .argument, .index, .first, .last: return false
        case .all, .size: return true
        }
    }

    /// Turns `dict['a']` on a map of mixed values into the path `['a']` into the map read as
    /// one mixed dictionary, so that nested path elements can follow it.
    /// A list or map column entering a path gets `MapAccess.collection`, which sends the
    /// evaluator through the frame that reads it as one mixed collection.
    static func enterMixedPath(_ steps: inout [BoundKeyPathStep]) {
        guard let last = steps.last, last.property.type == .mixed, last.property.isList else { return }
        if case .key(let key)? = last.mapAccess, isMixedMapEntry(last) {
            steps[steps.count - 1].mixedPath = [.key(key)]
        }
        steps[steps.count - 1].mapAccess = .collection
    }

    /// `value.@size`, `value[SIZE]`: the number of elements of the collection nested at the end
    /// of the path, counted as the values of `[*]` (none for a value that is no collection).
    private func mixedSize(_ steps: [BoundKeyPathStep], scope: BindingScope, offset: Int) throws -> BoundKeyPath {
        var steps = steps
        steps[steps.count - 1].mixedPath.append(.all)
        return try keyPath(scope: scope, steps: steps, offset: offset)
    }

    /// The index of the last step, which must be a map not yet narrowed by `[…]` or `@keys`.
    private func mapStep(_ steps: [BoundKeyPathStep], before what: String, at offset: Int) throws -> Int {
        guard let last = steps.last, last.property.isMap, last.mapAccess == nil else {
            let path = steps.map(\.property.name).joined(separator: ".")
            let description = steps.last.map { "'\(path)' is " + Self.typeDescription(of: $0.property) } ?? "there is no property before it"
            throw AtollError.invalidQuery("\(what) must follow a map (Map<String, T>), but \(description)", at: offset)
        }
        return steps.count - 1
    }

    /// Replaces each `%K` with the components of the key path its argument names.
    private func expandKeyPathArguments(_ components: [KeyPathComponent]) throws -> [KeyPathComponent] {
        guard components.contains(where: { if case .keyPathArgument = $0 { true } else { false } }) else { return components }
        var expanded: [KeyPathComponent] = []
        for component in components {
            guard case .keyPathArgument(let index, let offset) = component else {
                expanded.append(component)
                continue
            }
            guard case .string(let text) = try argument(.format(.keyPath, index: index), at: offset) else {
                throw AtollError.invalidQuery("%K needs a key path string, but argument \(index) is not a string", at: offset)
            }
            let parsed = try QueryParser.parseKeyPathArgument(text, argumentIndex: index, offset: offset)
            if !expanded.isEmpty, case .variable = parsed.first {
                throw AtollError.invalidQuery("argument \(index) for %K starts with a variable, which can only start a key path", at: offset)
            }
            expanded.append(contentsOf: parsed)
            guard expanded.count <= QueryLimits.keyPathComponentsMax else { throw Parser.keyPathTooLong(at: offset) }
        }
        return expanded
    }

    private func checkVariable(_ name: String, at offset: Int, in scope: BindingScope) throws {
        guard let innermost = scope.variables.last else {
            throw AtollError.invalidQuery("unknown variable '$\(name)'; variables are defined only inside SUBQUERY(collection, $\(name), …)", at: offset)
        }
        guard innermost == name else {
            if scope.variables.contains(name) {
                throw AtollError.invalidQuery("the variable '$\(name)' of an enclosing SUBQUERY cannot be used inside a nested SUBQUERY", at: offset)
            }
            throw AtollError.invalidQuery("unknown variable '$\(name)'; this SUBQUERY's variable is '$\(innermost)'", at: offset)
        }
    }

    private func targetClass(of property: QueryProperty, at offset: Int) throws -> QueryClassSchema {
        guard let name = property.objectClassName else {
            throw AtollError.invalidQuery("the schema gives no target class for the object property '\(property.name)'", at: offset)
        }
        return try classSchema(named: name, at: offset)
    }

    /// The step for `@links.Origin.property`: the `Origin` objects whose `property` links to `target`.
    private func backlinkStep(to target: QueryClassSchema, from originClassName: String, property propertyName: String, at offset: Int) throws -> BoundKeyPathStep {
        guard let origin = schema.queryClass(named: originClassName) else {
            throw AtollError.invalidQuery("@links names the class '\(originClassName)', which is not in the schema", at: offset)
        }
        guard let originProperty = origin.property(named: propertyName) else {
            throw unknownProperty(propertyName, on: origin, at: offset)
        }
        guard originProperty.type == .object, !originProperty.isLinkingObjects, originProperty.objectClassName == target.name else {
            throw AtollError.invalidQuery("'\(originClassName).\(propertyName)' does not link to \(target.name), so @links cannot follow it back", at: offset)
        }
        var synthesized = QueryProperty.linkingObjects(
            name: "@links.\(originClassName).\(propertyName)", originClassName: originClassName,
            originPropertyName: propertyName, columnIndex: originProperty.columnIndex
        )
        synthesized.isIndexed = false
        return BoundKeyPathStep(className: target.name, property: synthesized)
    }

    private func resolveCollectionOperator(
        _ collectionOperator: CollectionOperator, at offset: Int, steps: [BoundKeyPathStep], elementClass: QueryClassSchema?,
        following rest: ArraySlice<KeyPathComponent>, scope: BindingScope
    ) throws -> ResolvedKeyPath {
        let name = collectionOperator.rawValue
        if collectionOperator == .type {
            // realm-core: @type applies to mixed values (one, or a list of them); on a typed
            // property it would compare two constants.
            guard rest.isEmpty else {
                throw AtollError.invalidQuery("@type must be at the end of a key path", at: offset)
            }
            guard let last = steps.last, last.property.type == .mixed else {
                let path = steps.map(\.property.name).joined(separator: ".")
                let what = steps.last.map { Self.typeDescription(of: $0.property) } ?? "the object itself"
                throw AtollError.invalidQuery("@type applies to mixed (AnyRealmValue) values, but '\(path)' is \(what), whose type is known", at: offset)
            }
            return .typeOf(try keyPath(scope: scope, steps: steps, offset: offset))
        }
        guard let collection = steps.last else {
            throw AtollError.invalidQuery("\(name) must follow a list or linking objects, as in dogs.\(name)", at: offset)
        }
        if collectionOperator == .count, !collection.property.isToMany,
           collection.property.type == .string || collection.property.type == .data {
            // `name.@count` / `name.@size`: the length of a string or binary value (realm-core).
            guard rest.isEmpty else {
                throw AtollError.invalidQuery("@count must be at the end of a key path", at: offset)
            }
            return .count(try keyPath(scope: scope, steps: steps, offset: offset))
        }
        guard collection.property.isToMany else {
            let path = steps.map(\.property.name).joined(separator: ".")
            throw AtollError.invalidQuery("\(name) can only follow a list or linking objects, but '\(path)' is \(Self.typeDescription(of: collection.property))", at: offset)
        }
        let function: AggregateFunction
        switch collectionOperator {
        case .count:
            guard rest.isEmpty else {
                throw AtollError.invalidQuery("@count must be at the end of a key path", at: offset)
            }
            return .count(try keyPath(scope: scope, steps: steps, offset: offset))
        case .min: function = .min
        case .max: function = .max
        case .sum: function = .sum
        case .avg: function = .avg
        case .type, .keys, .values: preconditionFailure("@type, @keys and @values are resolved before")
        }

        var valueSteps = steps
        if let elementClass {
            // A list of objects: exactly one property of the elements follows.
            guard rest.count == 1, case .property(let propertyName, let propertyOffset)? = rest.first else {
                throw AtollError.invalidQuery("\(name) on a list of objects must be followed by one property, as in items.\(name).priority", at: offset)
            }
            guard let property = elementClass.property(named: propertyName) else {
                throw unknownProperty(propertyName, on: elementClass, at: propertyOffset)
            }
            guard !property.isToMany, property.type != .object else {
                throw AtollError.invalidQuery("\(name) needs a numeric property, but '\(propertyName)' is \(Self.typeDescription(of: property))", at: propertyOffset)
            }
            valueSteps.append(BoundKeyPathStep(className: elementClass.name, property: property))
        } else if !rest.isEmpty {
            throw AtollError.invalidQuery("\(name) on a list of values must be at the end of the key path", at: offset)
        }
        let values = try keyPath(scope: scope, steps: valueSteps, offset: offset)
        let resultType: QueryValueType
        switch (function, values.valueType) {
        case (.min, let type) where type.isNumeric || type == .date, (.max, let type) where type.isNumeric || type == .date:
            resultType = type
        case (.sum, .int):
            resultType = .int
        case (.sum, .decimal128), (.avg, .decimal128):
            resultType = .decimal128
        case (.min, .mixed), (.max, .mixed):
            // Mixed values: over every value but a decimal NaN (and links), in mixed order
            // (realm-core); the smallest or largest keeps its type.
            resultType = .mixed
        case (.sum, .mixed), (.avg, .mixed):
            resultType = .decimal128
        case (.sum, let type) where type.isNumeric:
            resultType = .double
        case (.avg, let type) where type.isNumeric:
            resultType = .double
        default:
            throw AtollError.invalidQuery(
                "\(name) cannot be applied to the \(values.valueType.rawValue) values of '\(values)'; it needs numbers\(function == .min || function == .max ? " or dates" : "")",
                at: offset
            )
        }
        return .aggregate(BoundAggregate(function: function, values: values, resultType: resultType))
    }

    /// The bound path for `steps` (empty steps: the SUBQUERY element itself).
    private func keyPath(scope: BindingScope, steps: [BoundKeyPathStep], offset: Int) throws -> BoundKeyPath {
        guard let last = steps.last else {
            guard !scope.variables.isEmpty else {
                throw AtollError.invalidQuery("expected a property name", at: offset)
            }
            return BoundKeyPath(rootClassName: scope.className, steps: [], valueType: .object, objectClassName: scope.className, isToMany: false, canBeNull: false)
        }
        // A to-one link, or one key of a map, on the way can be nil.
        let throughNullableLink = steps.dropLast().contains { $0.property.isLink || ($0.property.isMap && !$0.isToMany) }
        if last.mapAccess == .keys || last.mixedPath.last == .keys {
            return BoundKeyPath(
                rootClassName: scope.className, steps: steps, valueType: .string, objectClassName: nil,
                isToMany: true, canBeNull: false
            )
        }
        let isOneKey = last.property.isMap && !last.isToMany
        return BoundKeyPath(
            rootClassName: scope.className, steps: steps, valueType: last.property.type,
            objectClassName: last.property.type == .object ? last.property.objectClassName : nil,
            isToMany: steps.contains { $0.isToMany },
            canBeNull: last.property.isOptional || last.property.isLink || throughNullableLink || isOneKey
        )
    }

    // MARK: - Errors

    func unknownProperty(_ name: String, on owner: QueryClassSchema, at offset: Int) -> AtollError {
        var message = "unknown property '\(name)' on \(owner.name) at offset \(offset)"
        if let suggestion = NameSuggestion.closest(to: name, among: owner.properties.map(\.name)) {
            message += " (did you mean '\(suggestion)'?)"
        }
        return AtollError(.invalidQuery, message)
    }

    private func notAnObject(steps: [BoundKeyPathStep], followedBy what: String, at offset: Int) -> AtollError {
        guard let last = steps.last else {
            return AtollError.invalidQuery("\(what) cannot be used here", at: offset)
        }
        let path = steps.map(\.property.name).joined(separator: ".")
        return AtollError.invalidQuery("'\(path)' is \(Self.typeDescription(of: last.property)), so it has no \(what)", at: offset)
    }

    /// "an int property", "a list of strings", "a link to Person", "linking objects from Project".
    static func typeDescription(of property: QueryProperty) -> String {
        if let origin = property.linkingObjectsOrigin { return "linking objects from \(origin.className)" }
        let element = property.type == .object ? (property.objectClassName ?? "object") : property.type.rawValue
        if property.isList { return property.type == .object ? "a list of \(element) objects" : "a list of \(element) values" }
        if property.type == .object { return "a link to \(element)" }
        let article = ["int", "objectId"].contains(element) ? "an" : "a"
        return "\(article) \(element) property"
    }
}
