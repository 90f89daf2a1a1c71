import AtollQuery
import AtollStorage
import Foundation
import Testing

/// The right-hand constant of `x == <literal>`.
private func literal(_ text: String) throws -> LiteralValue? {
    let parsed = try QueryParser.parse("x == \(text)")
    guard case .comparison(let comparison) = parsed.predicate, case .literal(let value, _) = comparison.right else { return nil }
    return value
}

private func parseError(_ query: String) -> AtollError? {
    do {
        _ = try QueryParser.parse(query)
        return nil
    } catch let error as AtollError {
        return error
    } catch {
        return nil
    }
}

@Suite struct ParserLiteralTests {
    static let cases: [(String, LiteralValue)] = [
        ("42", .int(42)),
        ("-7", .int(-7)),
        ("+7", .int(7)),
        ("0x1F", .int(31)),
        ("-0x10", .int(-16)),
        ("0X7fffffffffffffff", .int(.max)),
        ("-9223372036854775808", .int(.min)),
        ("1.5", .double(1.5)),
        ("-2.25", .double(-2.25)),
        ("1e3", .double(1000)),
        ("1.5E-3", .double(0.0015)),
        ("'hello'", .string("hello")),
        ("\"hello\"", .string("hello")),
        // The text as written between the quotes, backslashes included (realm-core).
        ("'it\\'s'", .string("it\\'s")),
        ("\"say \\\"hi\\\"\"", .string("say \\\"hi\\\"")),
        ("'a\\nb\\tc\\rd\\\\e'", .string("a\\nb\\tc\\rd\\\\e")),
        ("'\\u00e9t\\u00E9'", .string("\\u00e9t\\u00E9")),
        ("'\\/\\b\\f\\0'", .string("\\/\\b\\f\\0")),
        ("'é😀'", .string("é😀")),
        ("'日本語 テキスト'", .string("日本語 テキスト")),
        ("''", .string("")),
        ("true", .bool(true)),
        ("TRUE", .bool(true)),
        ("false", .bool(false)),
        ("YES", .bool(true)),
        ("no", .bool(false)),
        ("nil", .null),
        ("NULL", .null),
        ("2021-02-20@17:30:15", .timestamp(seconds: 1_613_842_215, nanoseconds: 0)),
        ("2021-02-20T17:30:15:500", .timestamp(seconds: 1_613_842_215, nanoseconds: 500)),
        ("1970-01-01@00:00:00", .timestamp(seconds: 0, nanoseconds: 0)),
        ("1969-12-31@23:59:59:5", .timestamp(seconds: 0, nanoseconds: -999_999_995)),
        ("1900-01-01@00:00:00", .timestamp(seconds: -2_208_988_800, nanoseconds: 0)),
        ("2000-02-29@12:00:00", .timestamp(seconds: 951_825_600, nanoseconds: 0)),
        ("T1613842215:0", .timestamp(seconds: 1_613_842_215, nanoseconds: 0)),
        ("T-1:-500", .timestamp(seconds: -1, nanoseconds: -500)),
        ("T0:-5", .timestamp(seconds: 0, nanoseconds: -5)),
        ("B64\"SGVsbG8=\"", .base64(Array("Hello".utf8))),
        ("B64\"\"", .base64([])),
    ]

    @Test(arguments: cases)
    func parsesLiteral(_ text: String, _ expected: LiteralValue) throws {
        #expect(try literal(text) == expected)
    }

    @Test func parsesUUIDAndObjectIdLiterals() throws {
        #expect(try literal("uuid(d1b186e1-e9e0-4768-a1a7-c492519d47ee)") == .uuid(UUID(uuidString: "d1b186e1-e9e0-4768-a1a7-c492519d47ee")!))
        #expect(try literal("UUID(D1B186E1-E9E0-4768-A1A7-C492519D47EE)") == .uuid(UUID(uuidString: "d1b186e1-e9e0-4768-a1a7-c492519d47ee")!))
        #expect(try literal("oid(507f1f77bcf86cd799439011)") == .objectId(try ObjectId(string: "507f1f77bcf86cd799439011")))
    }

    @Test func aPropertyNamedLikeALiteralPrefixIsStillAProperty() throws {
        let parsed = try QueryParser.parse("uuid == oid AND T5 == B64")
        guard case .and(let operands, _) = parsed.predicate, case .comparison(let first) = operands[0], case .keyPath(let path) = first.left else {
            Issue.record("unexpected shape \(parsed.predicate)")
            return
        }
        #expect(path.components == [.property("uuid", offset: 0)])
    }
}

@Suite struct ParserStructureTests {
    @Test func notBindsTighterThanAndWhichBindsTighterThanOr() throws {
        let parsed = try QueryParser.parse("a == 1 OR b == 2 AND NOT c == 3")
        guard case .or(let operands, _) = parsed.predicate, operands.count == 2,
              case .comparison = operands[0],
              case .and(let conjunction, _) = operands[1], conjunction.count == 2,
              case .not(.comparison, _) = conjunction[1]
        else {
            Issue.record("unexpected shape \(parsed.predicate)")
            return
        }
    }

    @Test func parenthesesGroup() throws {
        let parsed = try QueryParser.parse("(a == 1 OR b == 2) && !(c == 3)")
        guard case .and(let operands, _) = parsed.predicate, case .or = operands[0], case .not(.comparison, _) = operands[1] else {
            Issue.record("unexpected shape \(parsed.predicate)")
            return
        }
    }

    @Test func chainsOfAndAndOrAreFlat() throws {
        let parsed = try QueryParser.parse("a == 1 AND b == 2 && c == 3 and d == 4")
        guard case .and(let operands, _) = parsed.predicate else {
            Issue.record("expected AND")
            return
        }
        #expect(operands.count == 4)
    }

    static let operatorSpellings: [(String, ComparisonOperator)] = [
        ("==", .equal), ("=", .equal), ("!=", .notEqual), ("<>", .notEqual), ("<", .less), ("<=", .lessOrEqual),
        ("=<", .lessOrEqual), (">", .greater), (">=", .greaterOrEqual), ("=>", .greaterOrEqual),
        ("BEGINSWITH", .beginsWith), ("beginswith", .beginsWith), ("ENDSWITH", .endsWith), ("Contains", .contains),
        ("LIKE", .like), ("IN", .in), ("in", .in), ("BETWEEN", .between),
    ]

    @Test(arguments: operatorSpellings)
    func recognizesOperatorSpelling(_ spelling: String, _ expected: ComparisonOperator) throws {
        let parsed = try QueryParser.parse("a \(spelling) b")
        guard case .comparison(let comparison) = parsed.predicate else {
            Issue.record("expected a comparison")
            return
        }
        #expect(comparison.operator == expected)
        #expect(comparison.offset == 2)
    }

    static let modifierSpellings: [(String, StringComparisonOptions)] = [
        ("[c]", .caseInsensitive), ("[d]", .diacriticInsensitive),
        ("[cd]", [.caseInsensitive, .diacriticInsensitive]), ("[DC]", [.caseInsensitive, .diacriticInsensitive]),
    ]

    @Test(arguments: modifierSpellings)
    func readsModifiers(_ spelling: String, _ expected: StringComparisonOptions) throws {
        guard case .comparison(let comparison) = try QueryParser.parse("name CONTAINS\(spelling) 'x'").predicate else {
            Issue.record("expected a comparison")
            return
        }
        #expect(comparison.options == expected)
    }

    @Test func keywordsAreCaseInsensitive() throws {
        #expect(try QueryParser.parse("truepredicate").predicate == .constant(true, offset: 0))
        #expect(try QueryParser.parse("FalsePredicate").predicate == .constant(false, offset: 0))
        guard case .comparison(let comparison) = try QueryParser.parse("some tags == 'a'").predicate else {
            Issue.record("expected a comparison")
            return
        }
        #expect(comparison.quantifier == .any)
    }

    @Test func everyNodeRecordsItsOffset() throws {
        let query = "name == 'x' AND NOT age > $0"
        guard case .and(let operands, let andOffset) = try QueryParser.parse(query).predicate,
              case .comparison(let first) = operands[0], case .not(.comparison(let second), let notOffset) = operands[1]
        else {
            Issue.record("unexpected shape")
            return
        }
        #expect(andOffset == 0)
        #expect(first.offset == 5 && first.left.offset == 0 && first.right.offset == 8)
        #expect(notOffset == 16)
        #expect(second.left.offset == 20 && second.offset == 24 && second.right.offset == 26)
    }

    @Test func keyPathsWithOperatorsBacklinksAndVariables() throws {
        let parsed = try QueryParser.parse("@links.Project.items.items.@avg.progressMinutes > 10")
        guard case .comparison(let comparison) = parsed.predicate, case .keyPath(let path) = comparison.left else {
            Issue.record("expected a key path")
            return
        }
        #expect(path.components == [
            .backlinks(className: "Project", propertyName: "items", offset: 0),
            .property("items", offset: 21), .collectionOperator(.avg, offset: 27), .property("progressMinutes", offset: 32),
        ])
        let subquery = try QueryParser.parse("SUBQUERY(tasks, $task, $task.isComplete == false).@size > 0")
        guard case .comparison(let outer) = subquery.predicate, case .subqueryCount(let node) = outer.left else {
            Issue.record("expected a SUBQUERY")
            return
        }
        #expect(node.variable == "task")
        #expect(node.collection.components == [.property("tasks", offset: 9)])
    }

    @Test func reservedWordsCanBeNamesWhenEscapedOrAfterADot() throws {
        guard case .comparison(let comparison) = try QueryParser.parse("#limit == owner.in").predicate,
              case .keyPath(let left) = comparison.left, case .keyPath(let right) = comparison.right
        else {
            Issue.record("unexpected shape")
            return
        }
        #expect(left.components == [.property("limit", offset: 0)])
        #expect(right.components == [.property("owner", offset: 10), .property("in", offset: 16)])
    }

    @Test func trailingClausesComeInAnyOrder() throws {
        let parsed = try QueryParser.parse("age > 1 LIMIT(5) sort(name ASC, age descending) DISTINCT(name, owner.name) SORT(age)")
        #expect(parsed.clauses.count == 4)
        guard case .limit(5, _) = parsed.clauses[0], case .sort(let keys, _) = parsed.clauses[1],
              case .distinct(let paths, _) = parsed.clauses[2], case .sort(let lastKeys, _) = parsed.clauses[3]
        else {
            Issue.record("unexpected clauses \(parsed.clauses)")
            return
        }
        #expect(keys.map(\.ascending) == [true, false])
        #expect(paths.count == 2)
        #expect(lastKeys.map(\.ascending) == [true])
    }

    @Test func formatPlaceholdersTakeArgumentsInOrder() throws {
        let parsed = try QueryParser.parse("%K > %d AND %K == %@ OR x == %f")
        #expect(parsed.formatArgumentCount == 5)
        guard case .or(let operands, _) = parsed.predicate, case .comparison(let last) = operands[1] else {
            Issue.record("unexpected shape")
            return
        }
        #expect(last.right == .argument(.format(.floatingPoint, index: 4), offset: 29))
    }

    @Test func acceptsNoBreakSpaceAsWhitespace() throws {
        _ = try QueryParser.parse("age\u{00A0}>\u{00A0}3")
    }
}

@Suite struct ParserErrorTests {
    static let cases: [(String, [String])] = [
        ("", ["empty", "TRUEPREDICATE"]),
        ("   ", ["empty"]),
        ("age ==", ["expected a value or key path", "the end of the query", "offset 6"]),
        ("age == 3)", ["expected AND, OR, SORT, DISTINCT, LIMIT or the end of the query", "')'", "offset 8"]),
        ("(age == 3", ["expected ')'", "offset 9"]),
        ("age 3", ["expected a comparison operator", "offset 4"]),
        ("age == 'abc", ["unterminated string literal", "offset 7"]),
        ("age == \"abc", ["unterminated string literal", "offset 7"]),
        ("age == 3 & b == 2", ["expected '&&'", "offset 9"]),
        ("age == 3 | b == 2", ["expected '||'", "offset 9"]),
        ("age ~ 3", ["unexpected character '~'", "offset 4"]),
        ("name MATCHES '.*'", ["MATCHES", "not supported", "offset 5"]),
        ("age == 99999999999999999999", ["out of range", "offset 7"]),
        ("age == 0xFFFFFFFFFFFFFFFFF", ["out of range"]),
        ("age == 1e999", ["out of range"]),
        ("age == 12abc", ["invalid number '12abc'", "offset 7"]),
        ("age + 1 == 3", ["arithmetic is not supported", "offset 4"]),
        ("born == 2021-13-01@00:00:00", ["not a valid date", "offset 8"]),
        ("born == 2021-02-30@00:00:00", ["not a valid date"]),
        ("born == 2021-02-20@24:00:00", ["not a valid date"]),
        ("born == 2021-02-20", ["timestamps are written", "offset 8"]),
        ("born == T1:-5", ["mixes signs", "offset 8"]),
        ("born == T1:1000000000", ["out of range"]),
        ("born == T5:", ["T<seconds>:<nanoseconds>"]),
        ("x == uuid(123)", ["not a valid UUID", "offset 5"]),
        ("x == uuid(d1b186e1-e9e0-4768-a1a7-c492519d47ee", ["expected ')'"]),
        ("x == oid(123)", ["not a valid ObjectId", "offset 5"]),
        ("x == B64\"!!\"", ["valid base64", "offset 5"]),
        ("x == B64\"abc", ["unterminated B64"]),
        ("name ==[x] 'a'", ["unknown modifier '[x]'", "offset 7"]),
        ("name ==[c 'a'", ["expected ']'"]),
        ("age <[c] 3", ["cannot be used with <", "offset 5"]),
        ("age BETWEEN[c] {1, 2}", ["cannot be used with BETWEEN"]),
        ("age == %x", ["unsupported format specifier", "offset 7"]),
        ("age == $", ["after '$'", "offset 7"]),
        ("age == $99999999999", ["argument index is larger"]),
        ("name == $0 AND age == %@", ["cannot mix", "offset 22"]),
        ("name == %@ AND age == $0", ["cannot mix", "offset 22"]),
        ("SUBQUERY(dogs, $d, $d.age > 1) > 0", ["must be followed by .@count", "offset 31"]),
        ("SUBQUERY(dogs, d, d.age > 1).@count > 0", ["a variable such as $x", "offset 15"]),
        ("SUBQUERY(dogs $d, $d.age > 1).@count > 0", ["expected ','"]),
        ("dogs.@foo > 1", ["unsupported collection operator '@foo'", "offset 5"]),
        ("@count > 1", ["must follow a collection", "offset 0"]),
        ("@links > 1", ["@links must be followed by .ClassName.propertyName"]),
        ("owner. == 1", ["a property name after '.'", "offset 7"]),
        ("age == {1, 2", ["expected ',' or '}'"]),
        ("age == AND", ["keyword 'AND'", "#AND"]),
        ("age > 1 SORT(", ["expected a key path"]),
        ("age > 1 SORT(age ASC", ["in SORT"]),
        ("age > 1 LIMIT(-1)", ["non-negative integer in LIMIT"]),
        ("age > 1 LIMIT(x)", ["non-negative integer in LIMIT"]),
        ("age > 1 LIMIT(5", ["')' after the LIMIT count"]),
        ("age > 1 FOO(5)", ["expected AND, OR, SORT, DISTINCT, LIMIT"]),
        ("name == \u{2018}Ali\u{2019}", ["typographic quote", "offset 8"]),
        ("name == 'a' #", ["expected a name after '#'"]),
        ("name == '\\u12'", ["4 hexadecimal digits"]),
        ("name == '\\u{1F600}'", ["4 hexadecimal digits"]),
        ("name == '\\*'", ["invalid escape sequence", "offset 9"]),
    ]

    @Test(arguments: cases)
    func rejectsWithAMessageNamingTheProblemAndOffset(_ query: String, _ fragments: [String]) {
        guard let error = parseError(query) else {
            Issue.record("expected '\(query)' to be rejected")
            return
        }
        #expect(error.kind == .invalidQuery)
        for fragment in fragments {
            #expect(error.message.contains(fragment), "'\(query)': \"\(error.message)\" lacks \"\(fragment)\"")
        }
    }

    @Test func rejectsNestingBeyondTheLimit() {
        let depth = QueryLimits.nestingDepthMax + 1
        let parenthesized = String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth)
        #expect(parseError(parenthesized)?.message.contains("nests more than") == true)
        let negated = String(repeating: "NOT ", count: depth) + "a == 1"
        #expect(parseError(negated)?.message.contains("nests more than") == true)
        let bangs = String(repeating: "!", count: depth) + "a == 1"
        #expect(parseError(bangs)?.message.contains("nests more than") == true)
        let lists = "a IN " + String(repeating: "{", count: depth) + String(repeating: "}", count: depth)
        #expect(parseError(lists)?.message.contains("nests more than") == true)
    }

    @Test func acceptsNestingAtTheLimit() throws {
        let depth = QueryLimits.nestingDepthMax
        let parenthesized = String(repeating: "(", count: depth) + "age == 1" + String(repeating: ")", count: depth)
        _ = try QueryParser.parse(parenthesized)
        #expect(try bound(parenthesized) == "age == int(1)")
        let negated = String(repeating: "NOT ", count: depth) + "age == 1"
        _ = try bound(negated)
    }

    @Test func rejectsQueriesLongerThanTheLimit() {
        let long = "name == '" + String(repeating: "x", count: QueryLimits.queryBytesMax) + "'"
        #expect(parseError(long)?.message.contains("the limit is") == true)
    }
}
