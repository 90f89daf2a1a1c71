import AtollStorage

// `mixed.@type == 'string'`, `value.@type IN {'int', 'double'}`, `list.@type == 'numeric'`:
// tests of the type of each value of a mixed (AnyRealmValue) property, as realm-core's
// TypeOfValue defines them (src/realm/query_value.cpp). A type name is matched case-insensitively
// against realm-core's list of names; several names stand for one type (`int`, `integer`,
// `long`, ...), and `numeric` stands for int, double, float and decimal128.
//
// A value's type is written as one canonical name (``QueryValue/typeName``), so a test binds to
// an `IN` over the canonical names a type string stands for, and the evaluator compares each
// value's name with them. `!=` is the negation of `==` with the quantifier turned around
// (`ANY list.@type != 'int'` holds when not every value is an int).

extension QueryValue {
    /// The canonical name of the value's type, as `@type` compares it: null, int, bool, string,
    /// binary, timestamp, float, double, decimal128, objectid, uuid, objectlink.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .double: "double"
        case .string: "string"
        case .data: "binary"
        case .timestamp: "timestamp"
        case .uuid: "uuid"
        case .objectId: "objectid"
        case .decimal128: "decimal128"
        case .object: "objectlink"
        case .list: "array"
        case .dictionary: "object"
        }
    }
}

enum TypeOfValueNames {
    /// realm-core's names (lowercase) and the canonical names each stands for. `object`,
    /// `array` and `collection` are the nested collections of Realm 10.51 (`object` and `dictionary`
    /// a nested dictionary, `array` and `list` a nested list).
    static let attributes: [String: [String]] = {
        var map: [String: [String]] = [:]
        for name in ["int", "integer", "int16", "int32", "int64", "short", "long", "byte", "char"] { map[name] = ["int"] }
        for name in ["bool", "boolean"] { map[name] = ["bool"] }
        for name in ["binary", "data", "bytearray", "byte[]", "bindata"] { map[name] = ["binary"] }
        for name in ["date", "datetimeoffset", "timestamp"] { map[name] = ["timestamp"] }
        for name in ["decimal128", "decimal"] { map[name] = ["decimal128"] }
        for name in ["objectlink", "link"] { map[name] = ["objectlink"] }
        for name in ["uuid", "guid"] { map[name] = ["uuid"] }
        for name in ["object", "dictionary"] { map[name] = ["object"] }
        for name in ["array", "list"] { map[name] = ["array"] }
        map["null"] = ["null"]
        map["string"] = ["string"]
        map["float"] = ["float"]
        map["double"] = ["double"]
        map["objectid"] = ["objectid"]
        map["numeric"] = ["int", "double", "float", "decimal128"]
        map["collection"] = ["array", "object"]
        return map
    }()

    /// The canonical names `text` stands for, or an error naming the accepted ones.
    static func names(_ text: String, at offset: Int) throws -> [String] {
        guard let names = attributes[text.lowercased()] else {
            throw AtollError.invalidQuery(
                "unable to parse the type attribute string '\(text)'; @type takes (case-insensitively) \(attributes.keys.sorted().joined(separator: ", "))",
                at: offset
            )
        }
        return names
    }
}

extension Operand {
    var isTypeOf: Bool {
        if case .typeOf = self { return true }
        return false
    }
}

extension BindingSession {
    /// A comparison with `path.@type` on one side.
    func typeComparison(_ node: ComparisonNode, left: Operand, right: Operand) throws -> BoundPredicate {
        var left = left
        var right = right
        if !left.isTypeOf, node.operator == .equal || node.operator == .notEqual {
            swap(&left, &right)  // `'int' == mixed.@type`
        }
        guard case .typeOf(let path, _) = left else {
            throw AtollError.invalidQuery("@type must be on the left side of \(node.operator.rawValue)", at: node.offset)
        }
        guard node.options.isEmpty else {
            throw AtollError.invalidQuery("unsupported comparison operator '\(node.operator.rawValue)\(node.options)' against @type; use ==, != or IN without options", at: node.offset)
        }
        if let quantifier = node.quantifier, !path.isToMany {
            throw AtollError.invalidQuery("\(quantifier.rawValue) needs a key path through a list or linking objects", at: node.quantifierOffset)
        }
        if node.rightQuantifier != nil {
            throw AtollError.invalidQuery("@type compares with a type name or a list {…} of them, without ANY/ALL/NONE on the right", at: node.right.offset)
        }
        let quantifier = node.quantifier ?? .any

        func rawValueError(_ operand: Operand) -> AtollError {
            let what: String
            switch operand {
            case .constant(let constant): what = constant.value.typeName
            default: what = info(of: operand)?.description ?? "that operand"
            }
            return AtollError.invalidQuery("unsupported comparison between @type and \(what); @type compares with a type name such as 'string' or 'numeric'", at: operand.offset)
        }
        func typeNames(of constant: ConstantOperand) throws -> [String] {
            guard case .string(let text) = constant.value else { throw rawValueError(.constant(constant)) }
            return try TypeOfValueNames.names(text, at: constant.offset)
        }

        let rightExpression: BoundExpression
        let positive: Bool
        switch (node.operator, right) {
        case (.equal, .constant(let constant)), (.notEqual, .constant(let constant)), (.in, .constant(let constant)):
            rightExpression = .constant(.list(try typeNames(of: constant).map { QueryValue.string($0) }))
            positive = node.operator != .notEqual
        case (.equal, .list(let constants, _)), (.in, .list(let constants, _)), (.notEqual, .list(let constants, _)):
            var names: [String] = []
            for constant in constants { names.append(contentsOf: try typeNames(of: constant)) }
            rightExpression = .constant(.list(names.map { QueryValue.string($0) }))
            positive = node.operator != .notEqual
        case (.equal, .typeOf(let other, let offset)), (.notEqual, .typeOf(let other, let offset)):
            guard !other.isToMany else {
                throw AtollError.invalidQuery("cannot compare two collections; the right side of @type must be a single value", at: offset)
            }
            rightExpression = .typeOf(other)
            positive = node.operator == .equal
        case (.equal, _), (.notEqual, _), (.in, _):
            throw rawValueError(right)
        default:
            throw AtollError.invalidQuery("unsupported comparison operator '\(node.operator.rawValue)' against @type; use ==, != or IN", at: node.offset)
        }
        let operatorUsed: ComparisonOperator = if case .typeOf = rightExpression { .equal } else { .in }
        func comparison(_ q: Quantifier) -> BoundPredicate {
            .comparison(BoundComparison(quantifier: q, left: .typeOf(path), operator: operatorUsed, right: rightExpression, valueType: .string, offset: node.offset))
        }
        if positive { return comparison(quantifier) }
        // `!=`: ANY v: t(v) ∉ S is NOT(ALL v: t(v) ∈ S); ALL v: t(v) ∉ S is NONE v: t(v) ∈ S;
        // NONE v: t(v) ∉ S is ALL v: t(v) ∈ S.
        switch quantifier {
        case .any: return .not(comparison(.all))
        case .all: return comparison(.none)
        case .none: return comparison(.all)
        }
    }
}
