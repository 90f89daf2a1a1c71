import AtollStorage

/// One side of a comparison after its names are resolved, before types are checked.
enum Operand {
    case constant(ConstantOperand)
    /// `{a, b}` or an array argument.
    case list([ConstantOperand], offset: Int)
    case keyPath(BoundKeyPath, offset: Int)
    case count(BoundKeyPath, offset: Int)
    case aggregate(BoundAggregate, offset: Int)
    case subqueryCount(BoundSubquery, offset: Int)
    /// `mixed.@type`.
    case typeOf(BoundKeyPath, offset: Int)

    var offset: Int {
        switch self {
        case .constant(let constant): constant.offset
        case .list(_, let offset), .keyPath(_, let offset), .count(_, let offset), .aggregate(_, let offset), .subqueryCount(_, let offset),
             .typeOf(_, let offset): offset
        }
    }

    var isConstant: Bool {
        switch self {
        case .constant, .list: true
        default: false
        }
    }

    /// The key path as written, for messages ("" for other operands).
    var keyPathDescription: String {
        if case .keyPath(let path, _) = self { return path.description }
        return ""
    }

    var isToManyKeyPath: Bool {
        if case .keyPath(let path, _) = self { return path.isToMany }
        return false
    }
}

/// A literal or argument value with where it came from, for conversion and error messages.
struct ConstantOperand {
    var value: QueryValue
    var offset: Int
    /// "argument $0", "argument 1 (%@)", or nil for a literal.
    var argumentName: String?
    /// `B64"…"` literals may stand for strings as well as data (Realm).
    var isBase64Literal: Bool

    var description: String {
        if let argumentName { return "\(value) (\(argumentName))" }
        return value.description
    }
}

/// What the binder knows about the left side of a comparison.
struct OperandInfo {
    var type: QueryValueType
    var objectClassName: String?
    var canBeNull: Bool
    /// "int property 'age'", "'tasks.@count'".
    var description: String
}

extension BindingSession {
    /// Dispatches so that only SUBQUERY (the one operand that contains a predicate) recurses,
    /// through a small frame.
    func bindOperand(_ node: ExpressionNode, in scope: BindingScope) throws -> Operand {
        if case .subqueryCount(let subquery) = node {
            return .subqueryCount(try bindSubquery(subquery, in: scope), offset: subquery.offset)
        }
        return try bindSimpleOperand(node, in: scope)
    }

    private func bindSimpleOperand(_ node: ExpressionNode, in scope: BindingScope) throws -> Operand {
        switch node {
        case .literal(let literal, let offset):
            return .constant(Self.constant(from: literal, at: offset))
        case .argument(let reference, let offset):
            let value = try argument(reference, at: offset)
            let name = reference.spelling.hasPrefix("$") ? "argument \(reference.spelling)" : "argument \(reference.index) (\(reference.spelling))"
            if case .list(let values) = value {
                return .list(values.map { ConstantOperand(value: $0, offset: offset, argumentName: name, isBase64Literal: false) }, offset: offset)
            }
            return .constant(ConstantOperand(value: value, offset: offset, argumentName: name, isBase64Literal: false))
        case .list(let elements, let offset):
            var constants: [ConstantOperand] = []
            for element in elements {
                if case .list(_, let elementOffset) = element {
                    throw AtollError.invalidQuery("a list cannot contain another list", at: elementOffset)
                }
                switch try bindSimpleOperand(element, in: scope) {
                case .constant(let constant):
                    constants.append(constant)
                case .list(_, let elementOffset):
                    throw AtollError.invalidQuery("a list cannot contain another list", at: elementOffset)
                default:
                    throw AtollError.invalidQuery("a list {…} can contain only values and arguments, not key paths", at: element.offset)
                }
            }
            return .list(constants, offset: offset)
        case .keyPath(let keyPathNode):
            switch try resolveKeyPath(keyPathNode, in: scope) {
            case .value(let path): return .keyPath(path, offset: keyPathNode.offset)
            case .count(let path): return .count(path, offset: keyPathNode.offset)
            case .aggregate(let aggregate): return .aggregate(aggregate, offset: keyPathNode.offset)
            case .typeOf(let path): return .typeOf(path, offset: keyPathNode.offset)
            }
        case .subqueryCount(let subquery):
            throw AtollError.invalidQuery("a list {…} can contain only values and arguments, not SUBQUERY", at: subquery.offset)
        }
    }

    private static func constant(from literal: LiteralValue, at offset: Int) -> ConstantOperand {
        let value: QueryValue
        switch literal {
        case .null: value = .null
        case .bool(let bool): value = .bool(bool)
        case .int(let int): value = .int(int)
        case .double(let double): value = .double(double)
        case .string(let string): value = .string(string)
        case .base64(let bytes): value = .data(bytes)
        case .timestamp(let seconds, let nanoseconds): value = .timestamp(seconds: seconds, nanoseconds: nanoseconds)
        case .uuid(let uuid): value = .uuid(uuid)
        case .objectId(let objectId): value = .objectId(objectId)
        }
        if case .base64 = literal {
            return ConstantOperand(value: value, offset: offset, argumentName: nil, isBase64Literal: true)
        }
        return ConstantOperand(value: value, offset: offset, argumentName: nil, isBase64Literal: false)
    }

    func bindSubquery(_ node: SubqueryNode, in scope: BindingScope) throws -> BoundSubquery {
        let (collection, inner) = try subqueryScope(node, in: scope)
        let predicate = try bindPredicate(node.predicate, in: inner)
        return BoundSubquery(collection: collection, elementClassName: inner.className, predicate: predicate)
    }

    /// The collection a SUBQUERY iterates and the scope of its predicate.
    private func subqueryScope(_ node: SubqueryNode, in scope: BindingScope) throws -> (BoundKeyPath, BindingScope) {
        guard case .value(let collection) = try resolveKeyPath(node.collection, in: scope) else {
            throw AtollError.invalidQuery("SUBQUERY needs a list of objects as its first argument, not an aggregate", at: node.collection.offset)
        }
        guard collection.isToMany, collection.valueType == .object, let elementClassName = collection.objectClassName else {
            let what = collection.isToMany ? "a list of \(collection.valueType.rawValue) values" : "not a list"
            throw AtollError.invalidQuery("SUBQUERY needs a list of objects or linking objects, but '\(collection)' is \(what)", at: node.collection.offset)
        }
        guard !scope.variables.contains(node.variable) else {
            throw AtollError.invalidQuery("the variable '$\(node.variable)' is already used by an enclosing SUBQUERY", at: node.offset)
        }
        return (collection, BindingScope(className: elementClassName, variables: scope.variables + [node.variable]))
    }

    /// The type information of a non-constant operand.
    func info(of operand: Operand) -> OperandInfo? {
        switch operand {
        case .constant, .list:
            return nil
        case .keyPath(let path, _):
            let typeName = path.valueType == .object ? (path.objectClassName ?? "object") : path.valueType.rawValue
            let description: String
            if let last = path.steps.last {
                description = last.property.isToMany
                    ? "'\(path)' (\(Self.typeDescription(of: last.property)))"
                    : "\(typeName) property '\(path)'"
            } else {
                description = "the SUBQUERY element"
            }
            return OperandInfo(type: path.valueType, objectClassName: path.objectClassName, canBeNull: path.canBeNull, description: description)
        case .count(let path, _):
            return OperandInfo(type: .int, objectClassName: nil, canBeNull: path.measuresLength && path.canBeNull, description: "'\(path).@count'")
        case .aggregate(let aggregate, _):
            return OperandInfo(
                type: aggregate.resultType, objectClassName: nil, canBeNull: aggregate.function.isNilWhenEmpty,
                description: "'\(Self.spelling(of: aggregate))'"
            )
        case .subqueryCount:
            return OperandInfo(type: .int, objectClassName: nil, canBeNull: false, description: "SUBQUERY(…).@count")
        case .typeOf(let path, _):
            return OperandInfo(type: .string, objectClassName: nil, canBeNull: false, description: "'\(path).@type'")
        }
    }

    /// The aggregate as it would be written: "items.@avg.priority", "scores.@max".
    static func spelling(of aggregate: BoundAggregate) -> String {
        var names = aggregate.values.steps.map(\.property.name)
        let steps = aggregate.values.steps
        if steps.count >= 2, steps[steps.count - 2].property.type == .object {
            names.insert(aggregate.function.rawValue, at: names.count - 1)
        } else {
            names.append(aggregate.function.rawValue)
        }
        return names.joined(separator: ".")
    }
}
