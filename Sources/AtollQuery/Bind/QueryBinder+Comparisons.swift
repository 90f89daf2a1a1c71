import AtollStorage

extension BindingSession {
    /// A comparison, with quantified lists on either side expanded (see ``quantifiedComparison``).
    func bindComparison(_ node: ComparisonNode, in scope: BindingScope) throws -> BoundPredicate {
        // Only operand binding recurses (into SUBQUERY); the rest runs in its own frames so the
        // recursive path stays small (see QueryLimits.nestingDepthMax).
        let left = try bindOperand(node.left, in: scope)
        let right = try bindOperand(node.right, in: scope)
        if left.isTypeOf || right.isTypeOf {
            return try typeComparison(node, left: left, right: right)
        }
        return try quantifiedComparison(node, left: left, right: right)
    }

    /// Lists of constants compared element by element, as realm-core does, expanded here into
    /// ANDs and ORs of plain comparisons so that the planner and evaluator see only those:
    /// - a list on the left, `ANY {1, 2} IN ANY list`, `ALL {'a', 'b'} IN list`: the left quantifier
    ///   (ANY when absent) says whether some, every or no element `c` satisfies `c <op> right`;
    /// - a list on the right of an operator other than ==, IN and BETWEEN, or after ALL or NONE:
    ///   `name CONTAINS[c] {'a', 'b'}`, `name ENDSWITH $0` (an array), `age == ALL {…}`,
    ///   `age != NONE {…}`; the right quantifier (ANY when absent) combines the elements.
    /// A quantifier before a collection on the same side stays on the comparison it applies to.
    /// Expansion is exact: combinations that would need the two quantifiers nested per element
    /// (`ANY tags CONTAINS ALL {…}`) are refused.
    private func quantifiedComparison(_ node: ComparisonNode, left: Operand, right: Operand) throws -> BoundPredicate {
        if left.isConstant && right.isConstant {
            throw AtollError.invalidQuery("cannot compare two constants; one side of \(node.operator.rawValue) must be a key path", at: node.offset)
        }
        if let quantifier = node.quantifier, case .constant = left {
            throw AtollError.invalidQuery("\(quantifier.rawValue) needs a list {…} or a key path through a collection after it", at: node.quantifierOffset)
        }
        if node.operator == .equal, node.quantifier == nil, node.rightQuantifier == nil {
            // `value[*] == {1, 2, 3}`, `{3, 2, 1} == value[*][*]`: the elements of a nested
            // collection, as a whole, equal to the list (realm-core, without ANY/ALL/NONE).
            if case .list(let constants, _) = right, case .keyPath(let path, let offset) = left, let whole = Self.wholeCollectionPath(path) {
                return try wholeCollectionEquality(node, path: whole, offset: offset, constants: constants)
            }
            if case .list(let constants, _) = left, case .keyPath(let path, let offset) = right, let whole = Self.wholeCollectionPath(path) {
                return try wholeCollectionEquality(node, path: whole, offset: offset, constants: constants)
            }
        }
        if case .list(let constants, let offset) = left, !right.isConstant {
            guard node.quantifier != nil || node.rightQuantifier != nil || !right.isToManyKeyPath else {
                throw AtollError.invalidQuery(
                    "comparing a list {…} with the collection '\(right.keyPathDescription)' needs ANY, ALL or NONE before the list "
                        + "(Atoll does not compare collections position by position)", at: offset
                )
            }
            if node.quantifier == nil && node.rightQuantifier == nil {
                // `{1, 2} == age`: IN, by the plain rules below.
                return try keyPathFirst(node, left: left, right: right)
            }
            var element = node
            element.quantifier = nil
            var operands: [BoundPredicate] = []
            operands.reserveCapacity(constants.count)
            for constant in constants {
                operands.append(try keyPathFirst(element, left: .constant(constant), right: right, rightQuantifier: node.rightQuantifier))
            }
            return Self.combine(operands, node.quantifier ?? .any)
        }
        var right = right
        if let rightQuantifier = node.rightQuantifier, case .constant(let constant) = right {
            // `age == ANY $0` with one value: a list of one. A literal or IN needs a list.
            guard constant.argumentName != nil, node.operator != .in else {
                throw AtollError.invalidQuery("\(rightQuantifier.rawValue) on the right side needs a list {…} or a collection", at: constant.offset)
            }
            right = .list([constant], offset: constant.offset)
        }
        if case .list(let constants, let offset) = right, !left.isConstant {
            let inner = node.rightQuantifier ?? .any
            let plainIn = (node.operator == .equal || node.operator == .in) && inner == .any
            if (node.operator == .equal || node.operator == .in) && inner == .none && !left.isToManyKeyPath {
                // `age == NONE {…}`: NOT IN.
                var membership = node
                membership.rightQuantifier = nil
                return .not(try keyPathFirst(membership, left: left, right: right))
            }
            if plainIn || node.operator == .between {
                if node.operator == .between && node.rightQuantifier != nil {
                    throw AtollError.invalidQuery("BETWEEN takes {low, high}, not a quantified list", at: offset)
                }
                return try keyPathFirst(node, left: left, right: right)
            }
            // The quantifier of each element's comparison, and how their results combine.
            var elementQuantifier = node.quantifier
            var outer = inner
            if left.isToManyKeyPath {
                switch (node.quantifier ?? Quantifier.any, inner) {
                case (.any, .any): (elementQuantifier, outer) = (Quantifier.any, Quantifier.any)
                case (.all, .all): (elementQuantifier, outer) = (Quantifier.all, Quantifier.all)
                case (.none, .any), (.all, .none): (elementQuantifier, outer) = (Quantifier.none, Quantifier.all)
                case (let leftQuantifier, _):
                    throw AtollError.invalidQuery(
                        "\(leftQuantifier.rawValue) before a collection cannot be combined with \(inner.rawValue) before a list on the right; "
                            + "write the comparison for each value of the list", at: offset
                    )
                }
            }
            var element = node
            element.quantifier = elementQuantifier
            element.rightQuantifier = nil
            if element.operator == .in { element.operator = .equal }
            var operands: [BoundPredicate] = []
            operands.reserveCapacity(constants.count)
            for constant in constants {
                operands.append(try checkedComparison(element, left: left, right: .constant(constant)))
            }
            return Self.combine(operands, outer)
        }
        if node.rightQuantifier != nil && !right.isToManyKeyPath {
            throw AtollError.invalidQuery("\(node.rightQuantifier?.rawValue ?? "ANY") on the right side needs a list {…} or a collection", at: node.right.offset)
        }
        return try keyPathFirst(node, left: left, right: right, rightQuantifier: node.rightQuantifier)
    }

    /// `path` with its final `[*]` into a mixed value read as the nested collection itself
    /// (``MixedPathElement/whole``); nil when the path does not end in `[*]` there.
    static func wholeCollectionPath(_ path: BoundKeyPath) -> BoundKeyPath? {
        guard var last = path.steps.last, last.mixedPath.last == .all, last.mapAccess == nil || last.mapAccess == .collection else { return nil }
        last.mixedPath[last.mixedPath.count - 1] = .whole
        var steps = path.steps
        steps[steps.count - 1] = last
        return BoundKeyPath(rootClassName: path.rootClassName, steps: steps, valueType: path.valueType, objectClassName: path.objectClassName,
                            isToMany: steps.contains { $0.isToMany }, canBeNull: true)
    }

    /// The elements of each collection `path` reaches (ANY over the collections before it)
    /// compared position by position with `constants`, each pair as mixed values compare.
    private func wholeCollectionEquality(_ node: ComparisonNode, path: BoundKeyPath, offset: Int, constants: [ConstantOperand]) throws -> BoundPredicate {
        let info = OperandInfo(type: .mixed, objectClassName: nil, canBeNull: true, description: "the elements of '\(path)'")
        let values = try constants.map { try convert($0, to: info, operator: .equal) }
        return .comparison(BoundComparison(
            quantifier: .any, left: .keyPath(path), operator: .equal, right: .constant(.list(values)),
            valueType: .mixed, offset: node.offset
        ))
    }

    /// ANY: some operand holds; ALL: every one; NONE: none.
    private static func combine(_ operands: [BoundPredicate], _ quantifier: Quantifier) -> BoundPredicate {
        switch quantifier {
        case .any: operands.count == 1 ? operands[0] : .or(operands)
        case .all: operands.count == 1 ? operands[0] : .and(operands)
        case .none: .not(operands.count == 1 ? operands[0] : .or(operands))
        }
    }

    /// A constant compared with a quantified collection on the right (`5 == ANY scores`,
    /// `'a' IN ALL tags`) becomes the collection compared with the constant; `NULL <string
    /// operator> name` becomes what realm-core makes of it; then the plain rules apply.
    private func keyPathFirst(_ node: ComparisonNode, left: Operand, right: Operand, rightQuantifier: Quantifier? = nil) throws -> BoundPredicate {
        if case .constant(let constant) = left, constant.value == .null, node.operator.isStringOperator,
           let rightInfo = info(of: right) {
            return try nilOnTheLeft(node, right: right, rightInfo: rightInfo)
        }
        guard let rightQuantifier else {
            return try checkedComparison(node, left: left, right: right)
        }
        guard right.isToManyKeyPath else {
            throw AtollError.invalidQuery("\(rightQuantifier.rawValue) on the right side needs a list {…} or a collection", at: node.right.offset)
        }
        guard left.isConstant else {
            throw AtollError.invalidQuery("cannot compare two collections; put ANY, ALL or NONE before one collection and compare with a single value", at: node.offset)
        }
        let mirrored: ComparisonOperator
        if node.operator == .in {
            mirrored = .equal
        } else if let operatorMirrored = node.operator.mirrored {
            mirrored = operatorMirrored
        } else {
            throw AtollError.invalidQuery("\(node.operator.rawValue) needs the collection on its left side", at: node.offset)
        }
        var swapped = node
        swapped.quantifier = rightQuantifier
        swapped.quantifierOffset = node.right.offset
        swapped.operator = mirrored
        swapped.rightQuantifier = nil
        swapped.left = node.right
        swapped.right = node.left
        return try checkedComparison(swapped, left: right, right: left)
    }

    /// `NULL CONTAINS name`, `NULL LIKE name`: nil as the string searched, as realm-core evaluates
    /// it: nil begins with, ends with and contains no value, not even nil; nil is LIKE only nil.
    private func nilOnTheLeft(_ node: ComparisonNode, right: Operand, rightInfo: OperandInfo) throws -> BoundPredicate {
        guard rightInfo.type == .string || rightInfo.type == .data || rightInfo.type == .mixed else {
            throw AtollError.invalidQuery("\(node.operator.rawValue) needs a string or binary data on its right side, but it is \(rightInfo.description)", at: node.offset)
        }
        if node.operator == .like && node.options.contains(.diacriticInsensitive) {
            throw AtollError.invalidQuery("LIKE does not take [d] (as in Realm Swift); use [c], or BEGINSWITH/ENDSWITH/CONTAINS/== with [d]", at: node.offset)
        }
        guard !right.isToManyKeyPath else {
            throw AtollError.invalidQuery("nil before \(node.operator.rawValue) needs a single value on the right side, not a collection", at: node.offset)
        }
        guard node.operator == .like else { return .constant(false) }
        var equality = node
        equality.operator = .equal
        equality.options = []
        equality.left = node.right
        equality.right = node.left
        return try checkedComparison(equality, left: right, right: .constant(ConstantOperand(value: .null, offset: node.left.offset, argumentName: nil, isBase64Literal: false)))
    }

    private func checkedComparison(_ node: ComparisonNode, left boundLeft: Operand, right boundRight: Operand) throws -> BoundPredicate {
        var left = boundLeft
        var right = boundRight
        var comparisonOperator = node.operator

        if left.isConstant && right.isConstant {
            throw AtollError.invalidQuery("cannot compare two constants; one side of \(comparisonOperator.rawValue) must be a key path", at: node.offset)
        }
        // `x IN keyPath`: membership in a collection, or (NSPredicate) a substring of a string.
        if comparisonOperator == .in, case .keyPath(let path, _) = right {
            if path.isToMany {
                swap(&left, &right)
                comparisonOperator = .equal
            } else if path.valueType == .string || path.valueType == .data {
                swap(&left, &right)
                comparisonOperator = .contains
            } else {
                throw AtollError.invalidQuery("IN needs a list, a collection or a string on its right side, but '\(path)' is a single \(path.valueType.rawValue) value", at: right.offset)
            }
        }
        // Put the key path on the left (`5 < age` is `age > 5`), and the collection on the left.
        if left.isConstant || (right.isToManyKeyPath && !left.isToManyKeyPath) {
            guard let mirrored = comparisonOperator.mirrored else {
                let side = left.isConstant ? "a key path" : "the collection"
                throw AtollError.invalidQuery("\(comparisonOperator.rawValue) needs \(side) on its left side", at: node.offset)
            }
            swap(&left, &right)
            comparisonOperator = mirrored
        }
        if right.isToManyKeyPath {
            throw AtollError.invalidQuery("cannot compare two collections; put ANY, ALL or NONE before one collection and compare with a single value", at: node.offset)
        }
        // Lists on the right.
        if case .list = right {
            switch comparisonOperator {
            case .equal: comparisonOperator = .in  // `age == {18, 21}` means ANY of them (Realm)
            case .in, .between: break
            default:
                throw AtollError.invalidQuery("a list can only follow ==, IN or BETWEEN, not \(comparisonOperator.rawValue)", at: right.offset)
            }
        } else if comparisonOperator == .in {
            throw AtollError.invalidQuery("IN needs a list on its right side, such as {1, 2} or an array argument", at: right.offset)
        } else if comparisonOperator == .between {
            throw AtollError.invalidQuery("BETWEEN needs two values {low, high} on its right side", at: right.offset)
        }

        let leftIsToMany = left.isToManyKeyPath
        if let quantifier = node.quantifier, !leftIsToMany {
            throw AtollError.invalidQuery("\(quantifier.rawValue) needs a key path through a list or linking objects", at: node.quantifierOffset)
        }
        if comparisonOperator == .between && leftIsToMany && node.quantifier != .all {
            // realm-core: "Only 'ALL' supported for operator 'BETWEEN' when applied to lists".
            throw AtollError.invalidQuery("BETWEEN on the collection '\(left.keyPathDescription)' needs ALL before it (every value in the range); "
                + "for some value in a range write ANY x >= low AND …, or SUBQUERY", at: node.offset)
        }
        if leftIsToMany, case .keyPath(let path, _) = left, path.valueType == .object,
           case .constant(let constant) = right, constant.value == .null {
            // realm-core: a collection of objects is never compared with nil.
            throw AtollError.invalidQuery("'\(path)' is a collection of objects, which cannot be compared with nil; use \(path.description).@count == 0", at: node.offset)
        }
        guard let leftInfo = info(of: left) else {
            throw AtollError.invalidQuery("one side of \(comparisonOperator.rawValue) must be a key path", at: node.offset)
        }
        try checkOperator(comparisonOperator, options: node.options, on: leftInfo, at: node.offset)
        let boundRight = try bindRight(right, comparedWith: leftInfo, operator: comparisonOperator)
        if comparisonOperator.isOrdering, case .constant(.null) = boundRight {
            // An ordering with nil, as in Realm's engine. Among strings and binary data nil is the
            // smallest value: `s > nil` is `s != nil`, `s >= nil` always holds, `s < nil` never,
            // `s <= nil` is `s == nil`. Other values are ordered with nil only when nil too:
            // `x < nil` and `x > nil` never hold, `x <= nil` and `x >= nil` are `x == nil`.
            let nilIsSmallest = leftInfo.type == .string || leftInfo.type == .data
            switch comparisonOperator {
            case .greater where nilIsSmallest:
                guard leftInfo.canBeNull else { return .constant(true) }
                comparisonOperator = .notEqual
            case .greaterOrEqual where nilIsSmallest:
                return .constant(true)
            case .lessOrEqual, .greaterOrEqual:
                guard leftInfo.canBeNull else { return .constant(false) }
                comparisonOperator = .equal
            default:
                return .constant(false)
            }
        }
        return .comparison(BoundComparison(
            quantifier: node.quantifier ?? .any, left: expression(left), operator: comparisonOperator, right: boundRight,
            options: node.options, valueType: leftInfo.type, offset: node.offset
        ))
    }

    private func expression(_ operand: Operand) -> BoundExpression {
        switch operand {
        case .constant(let constant): return .constant(constant.value)
        case .list(let constants, _): return .constant(.list(constants.map(\.value)))
        case .keyPath(let path, _): return .keyPath(path)
        case .count(let path, _): return .count(path)
        case .aggregate(let aggregate, _): return .aggregate(aggregate)
        case .subqueryCount(let subquery, _): return .subqueryCount(subquery)
        case .typeOf(let path, _): return .typeOf(path)
        }
    }

    /// Whether `comparisonOperator` (with `options`) applies to values of the left side's type.
    private func checkOperator(_ comparisonOperator: ComparisonOperator, options: StringComparisonOptions, on left: OperandInfo, at offset: Int) throws {
        let type = left.type
        // A mixed value takes every operator: one that does not apply to the value's type at
        // run time is false for it (realm-core: `value BEGINSWITH 'a'` skips non-strings).
        if type == .mixed { return }
        if !options.isEmpty && type != .string && type != .data {
            throw AtollError.invalidQuery("the modifier \(options) applies only to strings and binary data, not to \(left.description)", at: offset)
        }
        switch comparisonOperator {
        case .equal, .notEqual, .in:
            return
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            // Bools order false < true (realm-core).
            guard type.isNumeric || [.bool, .date, .string, .objectId].contains(type) else {
                throw AtollError.invalidQuery("\(comparisonOperator.rawValue) cannot compare \(left.description); use == or !=", at: offset)
            }
        case .between:
            guard type.isNumeric || type == .date else {
                throw AtollError.invalidQuery("BETWEEN needs numbers or dates, but the left side is \(left.description)", at: offset)
            }
        case .beginsWith, .endsWith, .contains, .like:
            guard type == .string || type == .data else {
                throw AtollError.invalidQuery("\(comparisonOperator.rawValue) needs a string or binary data on its left side, but it is \(left.description)", at: offset)
            }
            if comparisonOperator == .like && options.contains(.diacriticInsensitive) {
                throw AtollError.invalidQuery("LIKE does not take [d] (as in Realm Swift); use [c], or BEGINSWITH/ENDSWITH/CONTAINS/== with [d]", at: offset)
            }
        }
    }

    private func bindRight(_ right: Operand, comparedWith left: OperandInfo, operator comparisonOperator: ComparisonOperator) throws -> BoundExpression {
        switch right {
        case .constant(let constant):
            return .constant(try convert(constant, to: left, operator: comparisonOperator))
        case .list(let constants, let offset):
            if comparisonOperator == .between && constants.count != 2 {
                throw AtollError.invalidQuery("BETWEEN needs exactly two values {low, high}, but the list has \(constants.count)", at: offset)
            }
            let elementOperator: ComparisonOperator = comparisonOperator == .between ? .between : .equal
            return .constant(.list(try constants.map { try convert($0, to: left, operator: elementOperator) }))
        case .keyPath(let path, let offset):
            let typeName = path.valueType == .object ? (path.objectClassName ?? "object") : path.valueType.rawValue
            let rightInfo = OperandInfo(type: path.valueType, objectClassName: path.objectClassName, canBeNull: path.canBeNull, description: "\(typeName) property '\(path)'")
            try checkCompatible(left, rightInfo, operator: comparisonOperator, at: offset)
            return .keyPath(path)
        case .count, .aggregate, .subqueryCount, .typeOf:
            guard let rightInfo = info(of: right) else { return expression(right) }
            try checkCompatible(left, rightInfo, operator: comparisonOperator, at: right.offset)
            return expression(right)
        }
    }

    /// Two non-constant sides: numbers with numbers, otherwise equal types (and the same class).
    private func checkCompatible(_ left: OperandInfo, _ right: OperandInfo, operator comparisonOperator: ComparisonOperator, at offset: Int) throws {
        let compatible: Bool
        if comparisonOperator.isStringOperator {
            compatible = right.type == .string || right.type == .data || right.type == .mixed
        } else if left.type.isNumeric && right.type.isNumeric {
            compatible = true
        } else if left.type == .mixed || right.type == .mixed {
            compatible = true
        } else {
            compatible = left.type == right.type && left.objectClassName == right.objectClassName
        }
        guard compatible else {
            throw AtollError.invalidQuery("cannot compare \(left.description) with \(right.description)", at: offset)
        }
    }

    /// `constant` converted to the left side's type, or an error naming both.
    private func convert(_ constant: ConstantOperand, to left: OperandInfo, operator comparisonOperator: ComparisonOperator) throws -> QueryValue {
        let mismatch = AtollError.invalidQuery("cannot compare \(left.description) with \(constant.description)", at: constant.offset)
        let value = constant.value
        if case .list = value {
            throw AtollError.invalidQuery("a list cannot contain another list", at: constant.offset)
        }
        if value == .null {
            if comparisonOperator.isStringOperator { return .null }  // never matches (Foundation)
            if comparisonOperator == .between {
                throw AtollError.invalidQuery("\(comparisonOperator.rawValue) cannot compare with nil", at: constant.offset)
            }
            // Orderings: see checkedComparison. Equality with a value that cannot be nil is
            // allowed and never holds for a value (realm-core), so `age == nil` matches nothing.
            return .null
        }
        switch (left.type, value) {
        case (.bool, .bool), (.date, .timestamp), (.uuid, .uuid), (.objectId, .objectId):
            return value
        case (.string, .string), (.data, .data):
            return value
        case (.data, .string(let string)):
            return .data(Array(string.utf8))
        case (.string, .data(let bytes)) where constant.isBase64Literal:
            guard let string = String(validating: bytes, as: UTF8.self) else {
                throw AtollError.invalidQuery("the B64 literal is not valid UTF-8, so it cannot be compared with \(left.description)", at: constant.offset)
            }
            return .string(string)
        case (.int, .int), (.float, .float), (.double, .double):
            return value
        case (.int, .double(let number)):
            return Self.integerIfExact(number) ?? value
        case (.int, .float(let number)):
            return Self.integerIfExact(Double(number)) ?? .double(Double(number))
        case (.float, .int(let number)):
            return .float(Float(number))
        case (.float, .double(let number)):
            return .float(Float(number))
        case (.double, .int(let number)):
            return .double(Double(number))
        case (.double, .float(let number)):
            return .double(Double(number))
        case (.mixed, _):
            // A mixed value compares with a constant of any type (across numeric types).
            return value
        case (.decimal128, .decimal128):
            return value
        case (.decimal128, .int(let number)):
            return .decimal128(Decimal128(number))
        case (.decimal128, .double(let number)):
            // realm-core converts a Double as Decimal128(double) does: 15 significant digits,
            // so a literal such as 0.1 equals the stored "0.1". Write more digits as a string.
            return .decimal128(Decimal128(number))
        case (.decimal128, .float(let number)):
            return .decimal128(Decimal128(number))
        case (.decimal128, .string(let text)):
            // realm-core accepts a number written as a string for a decimal property.
            guard let decimal = try? Decimal128(string: text) else { throw mismatch }
            return .decimal128(decimal)
        case (.int, .decimal128(let number)):
            return number.exactInt64.map { .int($0) } ?? value
        case (.float, .decimal128), (.double, .decimal128):
            // Compared exactly, through Decimal128 (ValueComparison).
            return value
        case (.object, .object(let className, _)):
            guard className == left.objectClassName else {
                throw AtollError.invalidQuery("cannot compare \(left.description) with a \(className) object; it holds \(left.objectClassName ?? "other") objects", at: constant.offset)
            }
            return value
        default:
            if constant.argumentName != nil,
               let converted = try schema.convertArgument(value, toType: left.type, objectClassName: left.objectClassName) {
                return converted
            }
            throw mismatch
        }
    }

    /// `number` as an int when it is an integer in Int64's range.
    private static func integerIfExact(_ number: Double) -> QueryValue? {
        guard number.rounded() == number, number >= -9.223_372_036_854_775_808e18, number < 9.223_372_036_854_775_808e18 else { return nil }
        return .int(Int64(number))
    }
}
