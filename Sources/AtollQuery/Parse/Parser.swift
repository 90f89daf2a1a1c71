import AtollStorage
import Synchronization

/// Parses Realm's predicate language into a ``ParsedQuery``.
///
/// The grammar (keywords case-insensitive; `#name` escapes a name that is a keyword):
///
/// ```text
/// query       = predicate clause*
/// predicate   = and ( ("OR" | "||") and )*
/// and         = not ( ("AND" | "&&") not )*
/// not         = ("NOT" | "!") not | atom
/// atom        = "(" predicate ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
/// comparison  = [ quantifier ] operand operator [ "[" ("c"|"d"|"cd") "]" ] [ quantifier ] operand
/// quantifier  = "ANY" | "SOME" | "ALL" | "NONE"
/// operator    = "==" | "=" | "!=" | "<>" | "<" | "<=" | "=<" | ">" | ">=" | "=>"
///             | "BEGINSWITH" | "ENDSWITH" | "CONTAINS" | "LIKE" | "IN" | "BETWEEN"
/// operand     = literal | "$"n | "%@" | "%d" | "%f" | "{" [ operand ("," operand)* ] "}"
///             | "SUBQUERY" "(" keypath "," "$"var "," predicate ")" "." ("@count" | "@size")
///             | keypath
/// keypath     = first ( "." ( name | "@count" | "@size" | "@min" | "@max" | "@sum" | "@avg"
///                           | "@links" "." Class "." property | "%K" ) )*
/// first       = name | "$"var | "%K" | "@links" "." Class "." property
/// clause      = "SORT" "(" keypath [ "ASC" | "ASCENDING" | "DESC" | "DESCENDING" ] ("," …)* ")"
///             | "DISTINCT" "(" keypath ("," keypath)* ")" | "LIMIT" "(" integer ")"
/// ```
///
/// `NOT` binds tighter than `AND`, which binds tighter than `OR`. Placeholders are either all
/// positional (`$0`, `$1`) or all NSPredicate-style (`%@` takes the next argument); mixing them is
/// an error because it is almost always a mistake.
///
/// ```swift
/// let parsed = try QueryParser.parse("ANY dogs.name BEGINSWITH[c] $0")
/// ```
public enum QueryParser {
    /// The syntax tree of `query`.
    ///
    /// - Throws: `AtollError` of kind `.invalidQuery`, naming the problem and its offset.
    /// - Complexity: O(n) in the length of the query.
    public static func parse(_ query: String) throws -> ParsedQuery {
        guard query.utf8.count <= QueryLimits.queryBytesMax else {
            throw AtollError(.invalidQuery, "the query is \(query.utf8.count) bytes long; the limit is \(QueryLimits.queryBytesMax)")
        }
        // Applications run the same few query strings with different arguments: parse each once.
        if let parsed = recent.withLock({ $0[query] }) { return parsed }
        var parser = Parser(tokens: try Lexer.tokenize(query))
        let parsed = try parser.parseQuery()
        recent.withLock { cache in
            if cache.count >= recentCountMax { cache.removeAll(keepingCapacity: true) }
            cache[query] = parsed
        }
        return parsed
    }

    /// Queries parsed lately (valid ones only), by text; emptied when it reaches the limit.
    private static let recent = AtollLock<[String: ParsedQuery]>([:])
    static let recentCountMax = 256

    /// The components of a key path given as a `%K` argument, such as `"owner.name"`.
    static func parseKeyPathArgument(_ text: String, argumentIndex: Int, offset: Int) throws -> [KeyPathComponent] {
        let invalid = AtollError.invalidQuery("argument \(argumentIndex) for %K is not a valid key path: '\(text)'", at: offset)
        guard let tokens = try? Lexer.tokenize(text) else { throw invalid }
        var parser = Parser(tokens: tokens.map { Token(kind: $0.kind, offset: offset) })
        guard let node = try? parser.parseKeyPath(), parser.current.kind == .end else { throw invalid }
        if node.components.contains(where: { if case .keyPathArgument = $0 { true } else { false } }) { throw invalid }
        return node.components
    }
}

struct Parser {
    private let tokens: [Token]
    private var index = 0
    private var depth = 0
    private var formatArgumentCount = 0
    private var firstPositionalOffset: Int?
    private var firstFormatOffset: Int?

    init(tokens: [Token]) {
        self.tokens = tokens
    }

    // MARK: - Token access

    var current: Token { tokens[min(index, tokens.count - 1)] }
    private var next: Token { tokens[min(index + 1, tokens.count - 1)] }

    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private func keyword(_ token: Token) -> Keyword? {
        if case .word(let word) = token.kind { return Keyword(caseInsensitive: word) }
        return nil
    }

    private func isWord(_ token: Token, _ text: String) -> Bool {
        if case .word(let word) = token.kind { return word.caseInsensitiveEquals(text) }
        return false
    }

    private mutating func expect(_ kind: TokenKind, _ what: String) throws {
        guard current.kind == kind else { throw unexpected(expected: what) }
        advance()
    }

    private func unexpected(expected: String) -> AtollError {
        AtollError.invalidQuery("expected \(expected) but found \(current.kind.displayName)", at: current.offset)
    }

    private mutating func enterNesting(cost: Int = 1) throws {
        depth += cost
        if depth > QueryLimits.nestingDepthMax {
            throw AtollError.invalidQuery(
                "the query nests more than \(QueryLimits.nestingDepthMax) levels deep (each (, {, NOT counts 1, each SUBQUERY \(QueryLimits.subqueryNestingCost))",
                at: current.offset
            )
        }
    }

    private mutating func leaveNesting(cost: Int = 1) { depth -= cost }

    // MARK: - Query

    mutating func parseQuery() throws -> ParsedQuery {
        if current.kind == .end {
            throw AtollError.invalidQuery("the query is empty; use TRUEPREDICATE to match every object", at: 0)
        }
        let predicate = try parsePredicate()
        var clauses: [ResultClauseNode] = []
        while current.kind != .end {
            guard next.kind == .leftParen, let clause = try parseClause() else {
                throw unexpected(expected: "AND, OR, SORT, DISTINCT, LIMIT or the end of the query")
            }
            clauses.append(clause)
        }
        return ParsedQuery(predicate: predicate, clauses: clauses, formatArgumentCount: formatArgumentCount)
    }

    // MARK: - Predicates

    /// `conjunction (OR conjunction)*` with `conjunction = unary (AND unary)*`, in one loop, so a
    /// parenthesized level costs three stack frames (predicate, unary, atom) and long AND/OR
    /// chains cost none. Token tests live in small helpers so that these recursive frames stay
    /// small even in debug builds (see ``QueryLimits/nestingDepthMax``).
    private mutating func parsePredicate() throws -> PredicateNode {
        let orOffset = current.offset
        var andOffset = orOffset
        var disjuncts: [PredicateNode] = []
        var conjuncts: [PredicateNode] = []
        while true {
            conjuncts.append(try parseUnary())
            if consumeAnd() { continue }
            disjuncts.append(conjuncts.count == 1 ? conjuncts[0] : .and(conjuncts, offset: andOffset))
            conjuncts.removeAll()
            guard consumeOr() else { break }
            andOffset = current.offset
        }
        return disjuncts.count == 1 ? disjuncts[0] : .or(disjuncts, offset: orOffset)
    }

    /// `(NOT | !)* atom`. Each NOT still counts as a nesting level: the tree nests one deeper.
    private mutating func parseUnary() throws -> PredicateNode {
        var notOffsets: [Int] = []
        defer { for _ in notOffsets { leaveNesting() } }
        while let offset = consumeNot() {
            notOffsets.append(offset)
            try enterNesting()
        }
        var predicate = try parseAtom()
        for offset in notOffsets.reversed() {
            predicate = .not(predicate, offset: offset)
        }
        return predicate
    }

    private mutating func parseAtom() throws -> PredicateNode {
        if consumeLeftParen() {
            try enterNesting()
            defer { leaveNesting() }
            let predicate = try parsePredicate()
            try expectRightParen()
            return predicate
        }
        if let constant = consumeConstantPredicate() { return constant }
        return try parseComparisonPredicate()
    }

    private mutating func consumeAnd() -> Bool {
        guard current.kind == .and || keyword(current) == .and else { return false }
        advance()
        return true
    }

    private mutating func consumeOr() -> Bool {
        guard current.kind == .or || keyword(current) == .or else { return false }
        advance()
        return true
    }

    /// The offset of a NOT or `!` (consumed), or nil.
    private mutating func consumeNot() -> Int? {
        guard current.kind == .not || keyword(current) == .not else { return nil }
        defer { advance() }
        return current.offset
    }

    private mutating func consumeLeftParen() -> Bool {
        guard current.kind == .leftParen else { return false }
        advance()
        return true
    }

    private mutating func expectRightParen() throws {
        try expect(.rightParen, "')'")
    }

    /// TRUEPREDICATE or FALSEPREDICATE (consumed), or nil.
    private mutating func consumeConstantPredicate() -> PredicateNode? {
        let value: Bool
        switch keyword(current) {
        case .truePredicate: value = true
        case .falsePredicate: value = false
        default: return nil
        }
        defer { advance() }
        return .constant(value, offset: current.offset)
    }

    private mutating func parseComparisonPredicate() throws -> PredicateNode {
        .comparison(try parseComparison())
    }

    private mutating func parseComparison() throws -> ComparisonNode {
        let quantifierOffset = current.offset
        let quantifier = parseQuantifier()

        let left = try parseOperand()
        let operatorOffset = current.offset
        guard let comparisonOperator = try parseOperator() else {
            throw unexpected(expected: "a comparison operator (==, !=, <, >, IN, BETWEEN, BEGINSWITH, CONTAINS, LIKE, …)")
        }
        advance()
        let options = try parseOptions(for: comparisonOperator)
        let rightQuantifier = parseQuantifier()
        let right = try parseOperand()
        return ComparisonNode(
            quantifier: quantifier, quantifierOffset: quantifierOffset, left: left,
            operator: comparisonOperator, options: options, rightQuantifier: rightQuantifier, right: right, offset: operatorOffset
        )
    }

    /// ANY, SOME, ALL or NONE at the current token (consumed), or nil.
    private mutating func parseQuantifier() -> Quantifier? {
        guard let word = keyword(current) else { return nil }
        let quantifier: Quantifier
        switch word {
        case .any, .some: quantifier = .any
        case .all: quantifier = .all
        case .none: quantifier = Quantifier.none
        default: return nil
        }
        advance()
        return quantifier
    }

    /// The operator at the current token (not consumed), or nil if there is none.
    private func parseOperator() throws -> ComparisonOperator? {
        switch current.kind {
        case .equal: return .equal
        case .notEqual: return .notEqual
        case .less: return .less
        case .lessOrEqual: return .lessOrEqual
        case .greater: return .greater
        case .greaterOrEqual: return .greaterOrEqual
        default: break
        }
        switch keyword(current) {
        case .beginsWith: return .beginsWith
        case .endsWith: return .endsWith
        case .contains: return .contains
        case .like: return .like
        case .in: return .in
        case .between: return .between
        case .matches:
            throw AtollError.invalidQuery("MATCHES (regular expressions) is not supported; use LIKE with * and ? wildcards", at: current.offset)
        default: return nil
        }
    }

    private mutating func parseOptions(for comparisonOperator: ComparisonOperator) throws -> StringComparisonOptions {
        guard current.kind == .leftBracket else { return [] }
        let offset = current.offset
        advance()
        guard case .word(let word) = current.kind else { throw unexpected(expected: "c, d or cd inside [ ]") }
        var options: StringComparisonOptions = []
        for character in word.lowercased() {
            switch character {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            default:
                throw AtollError.invalidQuery("unknown modifier '[\(word)]'; use [c], [d] or [cd]", at: offset)
            }
        }
        advance()
        try expect(.rightBracket, "']'")
        if comparisonOperator.isOrdering || comparisonOperator == .between {
            throw AtollError.invalidQuery("the modifier \(options) cannot be used with \(comparisonOperator.rawValue); it applies to ==, !=, IN and the string operators", at: offset)
        }
        return options
    }

    // MARK: - Operands

    /// Dispatches so that the operands that nest (SUBQUERY and `{…}`) recurse through small frames.
    private mutating func parseOperand() throws -> ExpressionNode {
        if current.kind == .leftBrace {
            return try parseList()
        }
        if keyword(current) == .subquery {
            return .subqueryCount(try parseSubquery())
        }
        return try parseSimpleOperand()
    }

    private mutating func parseSimpleOperand() throws -> ExpressionNode {
        let token = current
        switch token.kind {
        case .literal(let value):
            advance()
            return .literal(value, offset: token.offset)
        case .argument(let argumentIndex):
            try notePositionalArgument(at: token.offset)
            advance()
            return .argument(.positional(argumentIndex), offset: token.offset)
        case .formatSpecifier(let specifier) where specifier != .keyPath:
            let argumentIndex = try takeFormatArgument(at: token.offset)
            advance()
            return .argument(.format(specifier, index: argumentIndex), offset: token.offset)
        case .word:
            switch keyword(token) {
            case .true, .yes:
                advance()
                return .literal(.bool(true), offset: token.offset)
            case .false, .no:
                advance()
                return .literal(.bool(false), offset: token.offset)
            case .nil, .null:
                advance()
                return .literal(.null, offset: token.offset)
            case nil:
                return .keyPath(try parseKeyPath())
            case let keyword?:
                throw AtollError.invalidQuery(
                    "expected a value or key path but found the keyword '\(keyword.rawValue)' (write #\(wordText(token)) for a property with that name)",
                    at: token.offset
                )
            }
        case .escapedName, .variable, .atName, .formatSpecifier:
            return .keyPath(try parseKeyPath())
        default:
            throw unexpected(expected: "a value or key path")
        }
    }

    private func wordText(_ token: Token) -> String {
        if case .word(let word) = token.kind { return word }
        return ""
    }

    private mutating func parseList() throws -> ExpressionNode {
        let offset = current.offset
        advance()
        try enterNesting()
        defer { leaveNesting() }
        var elements: [ExpressionNode] = []
        if current.kind != .rightBrace {
            while true {
                elements.append(try parseOperand())
                guard current.kind == .comma else { break }
                advance()
            }
        }
        try expect(.rightBrace, "',' or '}'")
        return .list(elements, offset: offset)
    }

    private mutating func parseSubquery() throws -> SubqueryNode {
        let (offset, collection, variable) = try parseSubqueryHeader()
        try enterNesting(cost: QueryLimits.subqueryNestingCost)
        defer { leaveNesting(cost: QueryLimits.subqueryNestingCost) }
        let predicate = try parsePredicate()
        try parseSubqueryEnd()
        return SubqueryNode(collection: collection, variable: variable, predicate: predicate, offset: offset)
    }

    /// `SUBQUERY(collection, $variable,`
    private mutating func parseSubqueryHeader() throws -> (offset: Int, collection: KeyPathNode, variable: String) {
        let offset = current.offset
        advance()
        try expect(.leftParen, "'(' after SUBQUERY")
        let collection = try parseKeyPath()
        try expect(.comma, "',' after the SUBQUERY collection")
        guard case .variable(let variable) = current.kind else {
            throw unexpected(expected: "a variable such as $x as the second SUBQUERY argument")
        }
        advance()
        try expect(.comma, "',' after the SUBQUERY variable")
        return (offset, collection, variable)
    }

    /// `).@count` (or `.@size`).
    private mutating func parseSubqueryEnd() throws {
        try expect(.rightParen, "')' to close SUBQUERY")
        guard current.kind == .dot, case .atName(let name) = next.kind,
              name.caseInsensitiveEquals("count") || name.caseInsensitiveEquals("size")
        else {
            throw AtollError.invalidQuery("SUBQUERY(…) must be followed by .@count", at: current.offset)
        }
        advance()
        advance()
    }

    // MARK: - Key paths

    mutating func parseKeyPath() throws -> KeyPathNode {
        let offset = current.offset
        var components: [KeyPathComponent] = []
        switch current.kind {
        case .word(let name), .escapedName(let name):
            components.append(.property(name, offset: current.offset))
            advance()
        case .variable(let name):
            components.append(.variable(name, offset: current.offset))
            advance()
        case .formatSpecifier(.keyPath):
            let argumentIndex = try takeFormatArgument(at: current.offset)
            components.append(.keyPathArgument(index: argumentIndex, offset: current.offset))
            advance()
        case .atName(let name) where name.caseInsensitiveEquals("links"):
            components.append(try parseBacklinks())
        case .atName(let name):
            throw AtollError.invalidQuery("'@\(name)' must follow a collection, as in items.@\(name)", at: current.offset)
        default:
            throw unexpected(expected: "a key path")
        }
        while current.kind == .dot || current.kind == .leftBracket {
            if current.kind == .leftBracket {
                guard components.count < QueryLimits.keyPathComponentsMax else { throw Self.keyPathTooLong(at: offset) }
                components.append(try parseMapKey())
                continue
            }
            advance()
            guard components.count < QueryLimits.keyPathComponentsMax else { throw Self.keyPathTooLong(at: offset) }
            switch current.kind {
            case .word(let name), .escapedName(let name):
                // After a dot a word can only be a property, even if it is spelled like a keyword.
                components.append(.property(name, offset: current.offset))
                advance()
            case .formatSpecifier(.keyPath):
                let argumentIndex = try takeFormatArgument(at: current.offset)
                components.append(.keyPathArgument(index: argumentIndex, offset: current.offset))
                advance()
            case .atName(let name) where name.caseInsensitiveEquals("links"):
                components.append(try parseBacklinks())
            case .atName(let name):
                components.append(.collectionOperator(try collectionOperator(named: name), offset: current.offset))
                advance()
            default:
                throw unexpected(expected: "a property name after '.'")
            }
        }
        return KeyPathNode(components: components, offset: offset)
    }

    /// `['key']`, `[$0]`, `[%@]` or `[%K]` after a map (at `[`).
    private mutating func parseMapKey() throws -> KeyPathComponent {
        let offset = current.offset
        advance()
        let key: MapKeyNode
        switch current.kind {
        case .literal(.string(let text)):
            key = .literal(text)
        case .argument(let argumentIndex):
            try notePositionalArgument(at: current.offset)
            key = .argument(.positional(argumentIndex))
        case .formatSpecifier(let specifier):
            // `[%K]` with the argument `#any` is `[*]` (RealmSwift's `Query` writes it so); the
            // binder checks the argument.
            key = .argument(.format(specifier, index: try takeFormatArgument(at: current.offset)))
        case .literal(.int(let i)) where i >= 0 && i <= Int64(Int32.max):
            key = .index(Int(i))
        case .word("*"):
            key = .all
        case .word(let word) where ["first", "last", "size"].contains(word.lowercased()):
            key = word.lowercased() == "first" ? .first : word.lowercased() == "last" ? .last : .size
        default:
            throw AtollError.invalidQuery("a map key in [ ] must be a string such as ['key'] or an argument such as [$0] (in a mixed value also [0], [*], [FIRST], [LAST] or [SIZE])", at: current.offset)
        }
        advance()
        try expect(.rightBracket, "']' after the map key")
        return .mapKey(key, offset: offset)
    }

    /// A key path longer than ``QueryLimits/keyPathComponentsMax``.
    static func keyPathTooLong(at offset: Int) -> AtollError {
        AtollError.invalidQuery("the key path has more than \(QueryLimits.keyPathComponentsMax) components (the limit)", at: offset)
    }

    private func collectionOperator(named name: String) throws -> CollectionOperator {
        switch name.lowercased() {
        case "count", "size": return .count
        case "min": return .min
        case "max": return .max
        case "sum": return .sum
        case "avg": return .avg
        case "type": return .type
        // `@allKeys` / `@allValues`: RealmSwift's names (its type-safe `Query` writes them).
        case "keys", "allkeys": return .keys
        case "values", "allvalues": return .values
        default:
            throw AtollError.invalidQuery("unsupported collection operator '@\(name)'; use @count, @size, @min, @max, @sum, @avg, @type, @keys (@allKeys) or @values (@allValues)", at: current.offset)
        }
    }

    /// `@links.Class.property` (at `@links`).
    private mutating func parseBacklinks() throws -> KeyPathComponent {
        let offset = current.offset
        advance()
        guard current.kind == .dot else {
            throw AtollError.invalidQuery("@links must be followed by .ClassName.propertyName (counting all backlinks is not supported)", at: offset)
        }
        advance()
        guard case .word(let className) = current.kind else {
            throw AtollError.invalidQuery("@links must be followed by .ClassName.propertyName", at: offset)
        }
        advance()
        try expect(.dot, "'.' and the linking property after @links.\(className)")
        guard case .word(let propertyName) = current.kind else {
            throw AtollError.invalidQuery("@links must be followed by .ClassName.propertyName", at: offset)
        }
        advance()
        return .backlinks(className: className, propertyName: propertyName, offset: offset)
    }

    // MARK: - Arguments

    private mutating func notePositionalArgument(at offset: Int) throws {
        if firstFormatOffset != nil {
            throw AtollError.invalidQuery("cannot mix $n arguments with %@ placeholders in one query", at: offset)
        }
        if firstPositionalOffset == nil { firstPositionalOffset = offset }
    }

    private mutating func takeFormatArgument(at offset: Int) throws -> Int {
        if firstPositionalOffset != nil {
            throw AtollError.invalidQuery("cannot mix %@ placeholders with $n arguments in one query", at: offset)
        }
        if firstFormatOffset == nil { firstFormatOffset = offset }
        defer { formatArgumentCount += 1 }
        return formatArgumentCount
    }

    // MARK: - Clauses

    /// SORT(…), DISTINCT(…) or LIMIT(…) at the current word; nil if the word is none of those.
    private mutating func parseClause() throws -> ResultClauseNode? {
        let offset = current.offset
        if isWord(current, "SORT") {
            advance()
            advance()
            var keys: [SortKeyNode] = []
            repeat {
                if current.kind == .comma { advance() }
                let keyPath = try parseKeyPath()
                var ascending = true
                if isWord(current, "ASC") || isWord(current, "ASCENDING") {
                    advance()
                } else if isWord(current, "DESC") || isWord(current, "DESCENDING") {
                    ascending = false
                    advance()
                }
                keys.append(SortKeyNode(keyPath: keyPath, ascending: ascending))
            } while current.kind == .comma
            try expect(.rightParen, "ASC, DESC, ',' or ')' in SORT")
            return .sort(keys, offset: offset)
        }
        if isWord(current, "DISTINCT") {
            advance()
            advance()
            var keyPaths = [try parseKeyPath()]
            while current.kind == .comma {
                advance()
                keyPaths.append(try parseKeyPath())
            }
            try expect(.rightParen, "',' or ')' in DISTINCT")
            return .distinct(keyPaths, offset: offset)
        }
        if isWord(current, "LIMIT") {
            advance()
            advance()
            guard case .literal(.int(let limit)) = current.kind, limit >= 0, limit <= Int64(Int.max) else {
                throw unexpected(expected: "a non-negative integer in LIMIT")
            }
            advance()
            try expect(.rightParen, "')' after the LIMIT count")
            return .limit(Int(limit), offset: offset)
        }
        return nil
    }
}

extension String {
    /// ASCII case-insensitive equality (keywords and clause names are ASCII).
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && zip(utf8, other.utf8).allSatisfy { ASCII.lowercased($0) == ASCII.lowercased($1) }
    }
}
