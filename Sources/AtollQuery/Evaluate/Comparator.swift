import AtollStorage

/// One comparison operator with its right-hand operand prepared (string matchers built once).
struct Comparator {
    let op: ComparisonOperator
    let options: StringComparisonOptions
    let valueType: QueryValueType
    let stringMatcher: StringMatcher?
    let binaryMatcher: BinaryMatcher?
    let listMatchers: [StringMatcher]

    init(op: ComparisonOperator, options: StringComparisonOptions, valueType: QueryValueType, constant: QueryValue?) {
        self.op = op
        self.options = options
        self.valueType = valueType
        var sm: StringMatcher?, bm: BinaryMatcher?
        var lists: [StringMatcher] = []
        if let operation = Self.stringOperation(op, options: options) {
            if case .string(let s)? = constant { sm = StringMatcher(operation, pattern: s, options: options) }
            if case .data(let d)? = constant { bm = BinaryMatcher(operation, pattern: d, options: options) }
        }
        if op == .in, !options.isEmpty, case .list(let elements)? = constant {
            for e in elements { if case .string(let s) = e { lists.append(StringMatcher(.equal, pattern: s, options: options)) } }
        }
        stringMatcher = sm
        binaryMatcher = bm
        listMatchers = lists
    }

    /// The string operation `op` performs, if it is one (== and != with options count).
    static func stringOperation(_ op: ComparisonOperator, options: StringComparisonOptions) -> StringOperation? {
        switch op {
        case .beginsWith: .beginsWith
        case .endsWith: .endsWith
        case .contains: .contains
        case .like: .like
        case .equal, .notEqual: options.isEmpty ? nil : .equal
        default: nil
        }
    }

    var isStringOperation: Bool { Self.stringOperation(op, options: options) != nil }

    private static func isStringLike(_ v: QueryValue) -> Bool {
        switch v {
        case .string, .data: true
        default: false
        }
    }

    /// Whether a string operation matches when its pattern (right side) is nil, as realm-core's
    /// string comparisons decide: every value, nil included, begins with, ends with and contains
    /// nil (`name CONTAINS NULL` matches every object); `==[c]` and LIKE match only a nil value.
    /// (A nil value with a non-nil pattern matches nothing.)
    func nilPatternMatches(valueIsNull: Bool) -> Bool {
        switch op {
        case .beginsWith, .endsWith, .contains: true
        default: valueIsNull
        }
    }

    /// `value <op> rhs`.
    func holds(_ value: QueryValue, _ rhs: QueryValue) -> Bool {
        if isStringOperation {
            let positive = op != .notEqual
            if value.isNull || rhs.isNull {
                let matched = rhs.isNull ? nilPatternMatches(valueIsNull: value.isNull) : false
                return positive ? matched : !matched
            }
            let matched: Bool
            switch value {
            case .string(let s):
                if let m = stringMatcher { matched = m.matches(s) }
                else if case .string(let p) = rhs, let operation = Self.stringOperation(op, options: options) {
                    matched = StringMatcher(operation, pattern: p, options: options).matches(s)
                } else { matched = false }
            case .data(let d):
                if let m = binaryMatcher { matched = m.matches(d) }
                else if case .data(let p) = rhs, let operation = Self.stringOperation(op, options: options) {
                    matched = BinaryMatcher(operation, pattern: p, options: options).matches(d)
                } else { matched = false }
            default: matched = false
            }
            return positive ? matched : !matched
        }
        switch op {
        case .equal: return ValueComparison.equal(value, rhs)
        case .notEqual: return !ValueComparison.equal(value, rhs)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            // Two properties, as in Realm's engine: nil is equal to nil, the smallest string or
            // binary value, and ordered with no other value.
            if value.isNull || rhs.isNull {
                guard (value.isNull && rhs.isNull) || Self.isStringLike(value) || Self.isStringLike(rhs) else { return false }
            } else if valueType == .mixed, !ValueComparison.areOrdered(value, rhs) {
                return false
            }
            let c = ValueComparison.compare(value, rhs)
            switch op {
            case .less: return c < 0
            case .lessOrEqual: return c <= 0
            case .greater: return c > 0
            default: return c >= 0
            }
        case .between:
            guard !value.isNull, case .list(let bounds) = rhs, bounds.count == 2, !bounds[0].isNull, !bounds[1].isNull else { return false }
            if valueType == .mixed, !ValueComparison.areOrdered(value, bounds[0]) || !ValueComparison.areOrdered(value, bounds[1]) { return false }
            return ValueComparison.compare(value, bounds[0]) >= 0 && ValueComparison.compare(value, bounds[1]) <= 0
        case .in:
            guard case .list(let elements) = rhs else { return false }
            if !listMatchers.isEmpty {
                guard case .string(let s) = value else { return value.isNull && elements.contains(.null) }
                return listMatchers.contains { $0.matches(s) }
            }
            return elements.contains { ValueComparison.equal(value, $0) }
        default:
            return false
        }
    }
}
