import AtollStorage

/// Checks a ``ParsedQuery`` against a schema and produces the typed ``BoundQuery`` an evaluator
/// runs.
///
/// Binding resolves every key path (through links, lists, linking objects, `@links` and SUBQUERY
/// variables), checks that each operator applies to its operands' types, converts constants and
/// arguments to the type they are compared with, expands `%K`, and checks the arguments.
///
/// ```swift
/// let binder = QueryBinder(schema: schema)
/// let parsed = try QueryParser.parse("owner.name == %@ AND age >= %d")
/// let query = try binder.bind(parsed, on: "Dog", arguments: ["Ali", 3])
/// ```
///
/// Realm semantics followed (realm-core's, which its `test/test_parser.cpp` pins down), and the
/// choices made where Realm's SDKs differ:
/// - **Numbers** of any type compare with each other (`intCol > 2.5`, `doubleCol == 3`). Strings
///   never convert to numbers: `intCol == '5'` is an error, as is `boolCol == 1`. Bools order
///   false < true.
/// - **nil**: `optionalProp == nil` matches nil values. A property that cannot be nil (or a list
///   of such values) may be compared with nil too: `age == nil` matches nothing, `age != nil`
///   everything, `ALL scores == nil` only empty lists. A collection of objects is never compared
///   with nil (an error, as in realm-core). A path through a to-one link can be nil when the link
///   is (`owner.age == nil`). Orderings with nil follow realm-core (see `checkedComparison`);
///   BETWEEN rejects nil. String operators with a nil pattern: every value (nil too) BEGINSWITH,
///   ENDSWITH and CONTAINS nil; `LIKE nil` and `==[c] nil` match only nil. With nil on the left
///   (`NULL CONTAINS name`) nothing matches, except `NULL LIKE name`, which is `name == nil`.
/// - **Either side** may be the constant: `5 < age` binds as `age > 5`; `'comedy' IN genres`
///   binds as `ANY genres == 'comedy'`; `'ie' IN name` (a string on the right) binds as
///   `name CONTAINS 'ie'`, as NSPredicate does. String operators need the key path on the left,
///   except with nil on the left.
/// - **Lists** of constants (`{…}` or an array argument): `age == {18, 21}` and
///   `age == ANY {18, 21}` mean `age IN {18, 21}`. After any other operator, or after ALL or NONE,
///   a list means "some (every, no) element": `name CONTAINS[c] {'a', 'b'}`, `age != ALL {…}`.
///   A quantified list on the left compares each element with the right side:
///   `ANY {1, 2} IN ANY list`, `ALL {'a', 'b'} IN list`, `NONE {…} < ALL list`. Both forms bind
///   to ANDs and ORs of plain comparisons. Comparing two collections, two constants, or an
///   unquantified list with a collection (realm-core compares those position by position) is an
///   error. BETWEEN on a collection needs ALL.
/// - **Aggregates** need a collection: `@count`/`@size` on lists and linking objects, and on a
///   string or binary value its length in bytes; `@min`/`@max`/`@sum`/`@avg` on lists of numbers,
///   or on a numeric property through a list of objects (`items.@avg.priority`); `@min`/`@max`
///   also on dates.
/// - **Strings**: a literal keeps its text as written between the quotes, backslashes included
///   (see `Lexer.scanString`). `LIKE[d]` is an error (as in Realm Swift, which has no diacritic-insensitive
///   LIKE); `[d]` applies to the other string operators.
/// - **SUBQUERY**: inside the predicate, key paths with or without the variable (`$x.name`,
///   `name`) refer to the element, as in Realm; a variable of an enclosing SUBQUERY cannot be used.
/// - **Arguments**: `$n` picks argument n; `%@`, `%d`, `%f`, `%K` take arguments in order. Using
///   an argument that was not given is an error; extra arguments are ignored (as NSPredicate does).
/// - Not supported (clear errors): arithmetic, `@type`, dictionaries, `TEXT`, geospatial
///   queries, `MATCHES`, `@links.@count`, `.length`, `inf`/`NaN` literals.
public struct QueryBinder {
    let schema: any QuerySchemaProvider

    public init(schema: any QuerySchemaProvider) {
        self.schema = schema
    }

    /// The bound form of `query` on the objects of `className`.
    ///
    /// - Parameter arguments: the values for `$0…$n` or `%@`-style placeholders; see
    ///   ``QueryObjectReference`` for objects.
    /// - Throws: `AtollError` of kind `.invalidQuery` naming the problem and its offset.
    /// - Complexity: O(size of the query × properties per class).
    public func bind(_ query: ParsedQuery, on className: String, arguments: [Any] = []) throws -> BoundQuery {
        guard schema.queryClass(named: className) != nil else {
            throw AtollError(.invalidQuery, "the schema has no class named '\(className)'")
        }
        let session = BindingSession(schema: schema, arguments: arguments, formatArgumentCount: query.formatArgumentCount)
        let scope = BindingScope(className: className, variables: [])
        let predicate = try session.bindPredicate(query.predicate, in: scope)
        let clauses = try query.clauses.map { try session.bindClause($0, in: scope) }
        return BoundQuery(className: className, predicate: predicate, clauses: clauses)
    }
}

extension BoundQuery {
    /// Parses and binds `query` in one step.
    ///
    /// ```swift
    /// let query = try BoundQuery("name BEGINSWITH[c] $0 SORT(age DESC)", on: "Dog",
    ///                            schema: schema, arguments: ["re"])
    /// ```
    public init(_ query: String, on className: String, schema: any QuerySchemaProvider, arguments: [Any] = []) throws {
        self = try QueryBinder(schema: schema).bind(QueryParser.parse(query), on: className, arguments: arguments)
    }
}

/// Where key paths start: the queried class, or inside SUBQUERYs the element class, with the
/// SUBQUERY variables in scope (innermost last).
struct BindingScope {
    var className: String
    var variables: [String]
}

/// The state of one bind call.
struct BindingSession {
    let schema: any QuerySchemaProvider
    let arguments: [Any]
    let formatArgumentCount: Int

    func classSchema(named name: String, at offset: Int) throws -> QueryClassSchema {
        guard let classSchema = schema.queryClass(named: name) else {
            throw AtollError.invalidQuery("the schema has no class named '\(name)'", at: offset)
        }
        return classSchema
    }

    // MARK: - Predicates

    func bindPredicate(_ node: PredicateNode, in scope: BindingScope) throws -> BoundPredicate {
        switch node {
        case .constant(let value, _):
            return .constant(value)
        case .not(let operand, _):
            return .not(try bindPredicate(operand, in: scope))
        case .and(let operands, _):
            // Loops rather than `map` closures: one stack frame per nesting level.
            var bound: [BoundPredicate] = []
            bound.reserveCapacity(operands.count)
            for operand in operands { bound.append(try bindPredicate(operand, in: scope)) }
            return .and(bound)
        case .or(let operands, _):
            var bound: [BoundPredicate] = []
            bound.reserveCapacity(operands.count)
            for operand in operands { bound.append(try bindPredicate(operand, in: scope)) }
            return .or(bound)
        case .comparison(let comparison):
            return try bindComparison(comparison, in: scope)
        }
    }

    // MARK: - Arguments

    /// The argument a placeholder refers to, converted.
    func argument(_ reference: ArgumentReference, at offset: Int) throws -> QueryValue {
        let index = reference.index
        guard index < arguments.count else {
            switch reference {
            case .positional:
                throw AtollError.invalidQuery(
                    "query uses $\(index) but only \(arguments.count) argument\(arguments.count == 1 ? " was" : "s were") given", at: offset
                )
            case .format:
                throw AtollError.invalidQuery(
                    "query has \(formatArgumentCount) placeholders but only \(arguments.count) argument\(arguments.count == 1 ? " was" : "s were") given", at: offset
                )
            }
        }
        guard let value = QueryArgumentConversion.queryValue(from: arguments[index]) else {
            throw AtollError.invalidQuery(
                "argument \(index) (\(reference.spelling)) has unsupported type \(QueryArgumentConversion.typeName(of: arguments[index])); "
                    + "use Bool, an integer, Double, Float, String, Data, Date, UUID, ObjectId, Decimal128, an object, nil, or an array of these",
                at: offset
            )
        }
        guard case .format(let specifier, _) = reference else { return value }
        switch (specifier, value) {
        case (.integer, .int), (.integer, .null), (.floatingPoint, .double), (.floatingPoint, .float), (.floatingPoint, .null), (.object, _), (.keyPath, _):
            return value
        case (.integer, .double(let number)) where number.rounded() == number && abs(number) < 9.2e18:
            return .int(Int64(number))
        case (.floatingPoint, .int(let number)):
            return .double(Double(number))
        default:
            throw AtollError.invalidQuery("\(specifier.rawValue) needs \(specifier == .integer ? "an integer" : "a number") but argument \(index) is \(value)", at: offset)
        }
    }

    // MARK: - Clauses

    func bindClause(_ node: ResultClauseNode, in scope: BindingScope) throws -> BoundResultClause {
        switch node {
        case .sort(let keys, _):
            return .sort(try keys.map { BoundSortKey(keyPath: try orderingKeyPath($0.keyPath, clause: "SORT", in: scope), ascending: $0.ascending) })
        case .distinct(let keyPaths, _):
            return .distinct(try keyPaths.map { try orderingKeyPath($0, clause: "DISTINCT", in: scope) })
        case .limit(let count, _):
            return .limit(count)
        }
    }

    /// A SORT or DISTINCT key: a to-one path to a value.
    private func orderingKeyPath(_ node: KeyPathNode, clause: String, in scope: BindingScope) throws -> BoundKeyPath {
        guard case .value(let path) = try resolveKeyPath(node, in: scope) else {
            throw AtollError.invalidQuery("\(clause) needs a property, not an aggregate", at: node.offset)
        }
        if path.isToMany {
            throw AtollError.invalidQuery("\(clause) cannot use '\(path)' because it passes through a list or linking objects", at: node.offset)
        }
        if path.valueType == .object {
            throw AtollError.invalidQuery("\(clause) cannot use '\(path)' because it is a link; name a property of the linked object, such as '\(path).name'", at: node.offset)
        }
        return path
    }
}
