import AtollQuery
import AtollStorage
import Foundation
import Testing
import AtollTestSupport

private struct Opaque: Sendable {}

/// Random strings and random mutations of valid queries never crash: they either bind or throw
/// `.invalidQuery`.
@Suite struct FuzzTests {
    @Test func everyCorpusQueryBinds() throws {
        #expect(QueryCorpus.all.count >= 100)
        for entry in QueryCorpus.all {
            do {
                _ = try BoundQuery(entry.query, on: entry.className, schema: TestSchema.schema, arguments: entry.arguments)
            } catch {
                Issue.record("corpus query '\(entry.query)' on \(entry.className) failed: \(error)")
            }
        }
    }

    /// Fragments that make mutations likely to reach deep into the lexer, parser and binder.
    static let vocabulary: [String] = [
        " ", "(", ")", "{", "}", "[", "]", "[c]", "[cd]", ",", ".", "'", "\"", "\\", "==", "=", "!=", "<>", "<", "<=", ">", ">=",
        "=<", "=>", "!", "&&", "||", "&", "|", "AND", "OR", "NOT", "ANY", "ALL", "NONE", "SOME", "IN", "BETWEEN", "BEGINSWITH",
        "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "TRUEPREDICATE", "FALSEPREDICATE", "nil", "NULL", "true", "NO", "SUBQUERY(",
        "$0", "$1", "$9", "$x", "$item", "%@", "%K", "%d", "%f", "%ld", "%", "@count", "@size", "@avg", "@min", "@sum", "@links",
        "@links.Project.items", "#", "#limit", "SORT(", "DISTINCT(", "LIMIT(", "ASC", "DESC", "0", "-1", "0x1F", "1.5", "1e9",
        "99999999999999999999", "2021-02-20@17:30:15", "T1:0", "T-1:5", "uuid(", "oid(", "B64\"", "name", "age", "owner",
        "dogs", "tags", "items", "tasks", "priority", "quota", "é", "ß", "Σ", "日本", "😀", "\u{0301}", "\u{00A0}", "\u{2018}",
        "*", "?", "\n", "\t",
    ]

    static let argumentPool: [any Sendable] = [
        1, -5, 2.5, Float(1), true, "Ali", "", "owner.name", "no.such", Data([1, 2]), Date(timeIntervalSince1970: 0),
        UUID(), QueryCorpus.oid, [1, 2], ["a", "b"], [Int](), String?.none as any Sendable, Opaque(), UInt64.max,
        TestObject(queryClassName: "Dog", queryObjectKey: 1), TestObject(queryClassName: "Person", queryObjectKey: 2),
    ]

    static func mutate(_ query: String, corpus: [QueryCorpus.Entry], using generator: inout SeededGenerator) -> String {
        var characters = Array(query)
        let mutationCount = Int.random(in: 1...3, using: &generator)
        for _ in 0..<mutationCount {
            let position = characters.isEmpty ? 0 : Int.random(in: 0...characters.count, using: &generator)
            switch Int.random(in: 0..<7, using: &generator) {
            case 0 where !characters.isEmpty:  // delete a run
                let end = min(characters.count, position + Int.random(in: 1...5, using: &generator))
                if position < end { characters.removeSubrange(position..<end) }
            case 1:  // insert a fragment
                characters.insert(contentsOf: vocabulary.randomElement(using: &generator) ?? "", at: position)
            case 2 where position < characters.count:  // replace one character
                characters[position] = Character(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &generator)))
            case 3 where !characters.isEmpty:  // duplicate a run
                let start = Int.random(in: 0..<characters.count, using: &generator)
                let end = min(characters.count, start + Int.random(in: 1...12, using: &generator))
                characters.insert(contentsOf: characters[start..<end], at: position)
            case 4:  // truncate
                characters = Array(characters.prefix(position))
            case 5:  // splice with another corpus query
                let other = Array(corpus.randomElement(using: &generator)?.query ?? "")
                let cut = other.isEmpty ? 0 : Int.random(in: 0...other.count, using: &generator)
                characters = Array(characters.prefix(position)) + other[cut...]
            default:  // wrap in parentheses or negate
                characters = Array(Bool.random(using: &generator) ? "(" + String(characters) + ")" : "NOT " + String(characters))
            }
        }
        return String(characters)
    }

    static func randomQuery(using generator: inout SeededGenerator) -> String {
        if Bool.random(using: &generator) {
            let alphabet = Array("abcxyz_019 .,'\"()[]{}!=<>&|@$%#*?\\-+éΣ😀\n")
            return String((0..<Int.random(in: 0...60, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? " " })
        }
        return (0..<Int.random(in: 1...14, using: &generator)).map { _ in vocabulary.randomElement(using: &generator) ?? "" }.joined(separator: Bool.random(using: &generator) ? " " : "")
    }

    /// Binds `query`; any outcome other than success or `.invalidQuery` is recorded.
    static func check(_ query: String, on className: String, _ arguments: [any Sendable]) -> Bool {
        do {
            _ = try BoundQuery(query, on: className, schema: TestSchema.schema, arguments: arguments)
            return true
        } catch let error as AtollError {
            if error.kind != .invalidQuery { Issue.record("'\(query)' threw \(error)") }
            if error.message.isEmpty { Issue.record("'\(query)' threw an empty message") }
        } catch {
            Issue.record("'\(query)' threw a non-Atoll error: \(error)")
        }
        return false
    }

    @Test func mutationsOfValidQueriesBindOrFailCleanly() {
        var generator = SeededGenerator(seed: 0xA7011)
        let corpus = QueryCorpus.all
        let classNames = ["Person", "Dog", "AllTypes", "Project", "Item", "Task"]
        var bound = 0, total = 0
        for _ in 0..<4_000 {
            guard let entry = corpus.randomElement(using: &generator) else { continue }
            let query = Self.mutate(entry.query, corpus: corpus, using: &generator)
            var arguments = entry.arguments
            if Int.random(in: 0..<4, using: &generator) == 0 {
                arguments = (0..<Int.random(in: 0...4, using: &generator)).compactMap { _ in Self.argumentPool.randomElement(using: &generator) }
            }
            let className = Int.random(in: 0..<10, using: &generator) == 0 ? (classNames.randomElement(using: &generator) ?? "Dog") : entry.className
            total += 1
            if Self.check(query, on: className, arguments) { bound += 1 }
        }
        // Some mutations stay valid (so the binder, not only the parser, is exercised).
        #expect(bound > total / 20)
    }

    @Test func randomStringsBindOrFailCleanly() {
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<3_000 {
            let query = Self.randomQuery(using: &generator)
            let arguments = (0..<Int.random(in: 0...3, using: &generator)).compactMap { _ in Self.argumentPool.randomElement(using: &generator) }
            _ = Self.check(query, on: "Person", arguments)
        }
    }

    @Test func pathologicalInputsFailCleanly() {
        let inputs = [
            String(repeating: "(", count: 5_000),
            String(repeating: "NOT ", count: 5_000) + "age > 1",
            String(repeating: "{", count: 5_000),
            "age IN {" + String(repeating: "1,", count: 10_000) + "1}",
            String(repeating: "age > 1 AND ", count: 5_000) + "age > 1",
            String(repeating: "SUBQUERY(dogs, $d, ", count: 600) + "age > 1" + String(repeating: ").@count > 0", count: 600),
            StackSafetyTests.nestedSubqueries(levels: 600),
            String(repeating: "owner.", count: 10_000) + "age > 1",
            "name == '" + String(repeating: "\\", count: 10_001) + "'",
            String(repeating: "'", count: 9_999),
            "\0\0\0", "\u{FEFF}age > 1", "age > 1\u{0}",
        ]
        for input in inputs {
            _ = Self.check(input, on: "Person", [])
            _ = Self.check(input, on: "Dog", [1])
        }
    }
}
