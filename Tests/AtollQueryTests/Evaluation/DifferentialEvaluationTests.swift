import AtollQuery
import AtollStorage
import Foundation
import Testing
import AtollTestSupport

/// Random predicates over a few thousand random rows (many cluster leaves), evaluated by the
/// engine and by a direct reference implementation of the documented semantics; both inside
/// the write transaction that made the rows (in-memory leaves) and after its commit (mapped
/// pages). `ATOLL_QUERY_CASES` sets the number of predicates (default 100).
@Suite struct DifferentialEvaluationTests {
    struct Row {
        var i: Int64?
        var d: Double?
        var s: String?
        var b: Bool
        var next: Int?
        var li: [Int64]
    }

    static let spec = TableSpec(name: "R", columns: [
        ColumnSpec(name: "i", type: .int, isNullable: true),
        ColumnSpec(name: "d", type: .double, isNullable: true),
        ColumnSpec(name: "s", type: .string, isNullable: true),
        ColumnSpec(name: "b", type: .bool),
        ColumnSpec(name: "next", type: .link, isNullable: true, linkTarget: "R"),
        ColumnSpec(name: "li", type: .int, isList: true),
        ColumnSpec(name: "i8", type: .int, intBits: 8),
    ])

    /// Letters whose lowercase form is their case folding, so the reference can use `lowercased()`.
    static let alphabet = Array("abcABCxyzéÉüÜ ")

    static func randomString(_ rng: inout SeededGenerator) -> String {
        String((0..<Int.random(in: 0...6, using: &rng)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] })
    }

    /// One random predicate: its query text and the reference evaluation.
    struct Predicate {
        var text: String
        var holds: (Row, [Row]) -> Bool
    }

    static func like(_ value: [Character], _ pattern: [Character]) -> Bool {
        guard let p = pattern.first else { return value.isEmpty }
        if p == "*" { return (0...value.count).contains { like(Array(value[$0...]), Array(pattern.dropFirst())) } }
        guard let v = value.first, p == "?" || p == v else { return false }
        return like(Array(value.dropFirst()), Array(pattern.dropFirst()))
    }

    static func ordered(_ v: Double?, _ op: String, _ c: Double) -> Bool {
        guard let v else { return op == "!=" }
        switch op {
        case "==": return v == c
        case "!=": return v != c
        case "<": return v < c
        case "<=": return v <= c
        case ">": return v > c
        default: return v >= c
        }
    }

    static func atom(_ rng: inout SeededGenerator) -> Predicate {
        let ops = ["==", "!=", "<", "<=", ">", ">="]
        let op = ops.randomElement(using: &rng) ?? "=="
        switch Int.random(in: 0..<18, using: &rng) {
        case 0:
            let c = Int64.random(in: -3...12, using: &rng)
            return Predicate(text: "i \(op) \(c)") { r, _ in ordered(r.i.map(Double.init), op, Double(c)) }
        case 1:
            let c = Double(Int.random(in: -20...20, using: &rng)) / 4
            return Predicate(text: "d \(op) \(c)") { r, _ in ordered(r.d, op, c) }
        case 2:
            let isNil = Bool.random(using: &rng)
            let column = ["i", "d", "s", "next"].randomElement(using: &rng) ?? "i"
            return Predicate(text: "\(column) \(isNil ? "==" : "!=") nil") { r, _ in
                let null = switch column { case "i": r.i == nil; case "d": r.d == nil; case "s": r.s == nil; default: r.next == nil }
                return null == isNil
            }
        case 3:
            // Bools order false < true (realm-core).
            let b = Bool.random(using: &rng)
            return Predicate(text: "b \(op) \(b)") { r, _ in ordered(r.b ? 1 : 0, op, b ? 1 : 0) }
        case 4:
            let list = (0..<Int.random(in: 0...4, using: &rng)).map { _ in Int64.random(in: -3...12, using: &rng) }
            let withNil = Int.random(in: 0..<4, using: &rng) == 0
            let items = list.map(String.init) + (withNil ? ["nil"] : [])
            return Predicate(text: "i IN {\(items.joined(separator: ", "))}") { r, _ in
                if let v = r.i { return list.contains(v) }
                return withNil
            }
        case 5:
            let lo = Int64.random(in: -3...8, using: &rng), hi = lo + Int64.random(in: 0...5, using: &rng)
            return Predicate(text: "i BETWEEN {\(lo), \(hi)}") { r, _ in r.i.map { $0 >= lo && $0 <= hi } ?? false }
        case 6, 7:
            let operation = ["==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"].randomElement(using: &rng) ?? "=="
            let caseless = Bool.random(using: &rng)
            // Some patterns are nil, some are lists meaning "any of" (realm-core).
            let patternCount = Int.random(in: 0..<4, using: &rng) == 0 ? Int.random(in: 0...3, using: &rng) : -1
            var patterns: [String?] = (0..<max(1, patternCount)).map { _ in Int.random(in: 0..<8, using: &rng) == 0 ? nil : randomString(&rng) }
            if operation == "LIKE" {
                patterns = patterns.map { $0.map { String($0.map { Int.random(in: 0..<4, using: &rng) == 0 ? (Bool.random(using: &rng) ? "*" : "?") : $0 }) } }
            }
            if patternCount == 0 { patterns = [] }
            let fold: (String) -> String = { caseless ? $0.lowercased() : $0 }
            let literals = patterns.map { $0.map { "'\($0)'" } ?? "NULL" }
            let right = patternCount >= 0 ? "{\(literals.joined(separator: ", "))}" : literals[0]
            func holds(_ value: String?, _ pattern: String?) -> Bool {
                guard let pattern else {
                    // A nil pattern: every value begins with, ends with and contains it; == and LIKE match nil.
                    switch operation {
                    case "BEGINSWITH", "ENDSWITH", "CONTAINS": return true
                    case "!=": return value != nil
                    default: return value == nil
                    }
                }
                guard let value else { return operation == "!=" }
                let v = fold(value), p = fold(pattern)
                switch operation {
                case "==": return v == p
                case "!=": return v != p
                case "BEGINSWITH": return v.hasPrefix(p)  // "" begins every string (realm-core)
                case "ENDSWITH": return v.hasSuffix(p)
                case "CONTAINS": return p.isEmpty || v.contains(p)
                default: return like(Array(v), Array(p))
                }
            }
            return Predicate(text: "s \(operation)\(caseless ? "[c]" : "") \(right)") { r, _ in patterns.contains { holds(r.s, $0) } }
        case 8:
            let c = Int64.random(in: -3...12, using: &rng)
            return Predicate(text: "next.i \(op) \(c)") { r, rows in ordered(r.next.flatMap { rows[$0].i }.map(Double.init), op, Double(c)) }
        case 9:
            let c = Int64.random(in: -3...12, using: &rng)
            let q = ["ANY", "ALL", "NONE"].randomElement(using: &rng) ?? "ANY"
            return Predicate(text: "\(q) li \(op) \(c)") { r, _ in
                let hits = r.li.map { ordered(Double($0), op, Double(c)) }
                switch q {
                case "ANY": return hits.contains(true)
                case "ALL": return !hits.contains(false)
                default: return !hits.contains(true)
                }
            }
        case 10:
            let c = Int.random(in: 0...4, using: &rng)
            return Predicate(text: "li.@count \(op) \(c)") { r, _ in ordered(Double(r.li.count), op, Double(c)) }
        case 11:
            let c = Int64.random(in: -3...20, using: &rng)
            return Predicate(text: "li.@max \(op) \(c)") { r, _ in ordered(r.li.max().map(Double.init), op, Double(c)) }
        case 13:
            // The length of a string in UTF-8 bytes (realm-core's @size); nil for nil.
            let c = Int.random(in: 0...8, using: &rng)
            return Predicate(text: "s.@size \(op) \(c)") { r, _ in ordered(r.s.map { Double($0.utf8.count) }, op, Double(c)) }
        case 14:
            // A property that cannot be nil compared with nil: allowed, never equal.
            let equal = Bool.random(using: &rng)
            return Predicate(text: "\(["b", "i8"].randomElement(using: &rng) ?? "b") \(equal ? "==" : "!=") nil") { _, _ in !equal }
        case 15:
            // Lists on both sides: each constant against the list, combined by the left quantifier.
            let list = (0..<Int.random(in: 0...3, using: &rng)).map { _ in Int64.random(in: -3...12, using: &rng) }
            let outer = ["ANY", "ALL", "NONE"].randomElement(using: &rng) ?? "ANY"
            let inner = ["", "ANY ", "ALL ", "NONE "].randomElement(using: &rng) ?? ""
            return Predicate(text: "\(outer) {\(list.map(String.init).joined(separator: ", "))} IN \(inner)li") { r, _ in
                let hits = list.map { c -> Bool in
                    switch inner {
                    case "ALL ": return r.li.allSatisfy { $0 == c }
                    case "NONE ": return !r.li.contains(c)
                    default: return r.li.contains(c)
                    }
                }
                switch outer {
                case "ANY": return hits.contains(true)
                case "ALL": return !hits.contains(false)
                default: return !hits.contains(true)
                }
            }
        case 16:
            // A quantified list on the right of a single value.
            let list = (0..<Int.random(in: 0...3, using: &rng)).map { _ in Int64.random(in: -3...12, using: &rng) }
            let q = ["ANY", "ALL", "NONE"].randomElement(using: &rng) ?? "ANY"
            return Predicate(text: "i \(op) \(q) {\(list.map(String.init).joined(separator: ", "))}") { r, _ in
                let hits = list.map { ordered(r.i.map(Double.init), op, Double($0)) }
                switch q {
                case "ANY": return hits.contains(true)
                case "ALL": return !hits.contains(false)
                default: return !hits.contains(true)
                }
            }
        default:
            let c = Double(Int.random(in: -8...8, using: &rng)) / 2
            return Predicate(text: "i \(op) \(c)") { r, _ in ordered(r.i.map(Double.init), op, c) }   // int vs non-integral
        }
    }

    static func predicate(_ rng: inout SeededGenerator, depth: Int = 0) -> Predicate {
        let roll = depth >= 3 ? 0 : Int.random(in: 0..<10, using: &rng)
        switch roll {
        case 0...4: return atom(&rng)
        case 5, 6:
            let a = predicate(&rng, depth: depth + 1), b = predicate(&rng, depth: depth + 1)
            return Predicate(text: "(\(a.text)) AND (\(b.text))") { r, rows in a.holds(r, rows) && b.holds(r, rows) }
        case 7, 8:
            let a = predicate(&rng, depth: depth + 1), b = predicate(&rng, depth: depth + 1)
            return Predicate(text: "(\(a.text)) OR (\(b.text))") { r, rows in a.holds(r, rows) || b.holds(r, rows) }
        default:
            let a = predicate(&rng, depth: depth + 1)
            return Predicate(text: "NOT (\(a.text))") { r, rows in !a.holds(r, rows) }
        }
    }

    @Test func randomPredicatesAgreeWithTheReferenceInAndAfterTheWriteTransaction() throws {
        let count = ProcessInfo.processInfo.environment["ATOLL_QUERY_CASES"].flatMap(Int.init) ?? 100
        var rng = SeededGenerator(seed: 2024)
        var rows: [Row] = []
        for _ in 0..<3000 {
            rows.append(Row(
                i: Int.random(in: 0..<6, using: &rng) == 0 ? nil : Int64.random(in: -3...12, using: &rng),
                d: Int.random(in: 0..<6, using: &rng) == 0 ? nil : Double(Int.random(in: -20...20, using: &rng)) / 4,
                s: Int.random(in: 0..<6, using: &rng) == 0 ? nil : Self.randomString(&rng),
                b: Bool.random(using: &rng), next: nil,
                li: (0..<Int.random(in: 0...3, using: &rng)).map { _ in Int64.random(in: -3...12, using: &rng) }))
        }
        for j in rows.indices where Int.random(in: 0..<3, using: &rng) != 0 { rows[j].next = Int.random(in: 0..<rows.count, using: &rng) }

        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "differential-\(UUID())"))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(Self.spec))
        var keys: [ObjectKey] = []
        for r in rows {
            let k = try t.create()
            keys.append(k)
            try t.set(k, 0, r.i.map { .int($0) } ?? .null)
            try t.set(k, 1, r.d.map { .double($0) } ?? .null)
            try t.set(k, 2, r.s.map { .string($0) } ?? .null)
            try t.set(k, 3, .bool(r.b))
            try t.setList(k, 5, r.li.map { .int($0) })
        }
        for (j, r) in rows.enumerated() { if let n = r.next { try t.set(keys[j], 4, .link(keys[n])) } }

        let predicates = (0..<count).map { _ in Self.predicate(&rng) }
        func check(_ transaction: Transaction, _ phase: String) throws {
            let engine = QueryEngine(transaction: transaction)
            for p in predicates {
                let expected = rows.indices.filter { p.holds(rows[$0], rows) }.map { keys[$0] }
                let bound = try engine.bind(p.text, on: "R")
                let got = try engine.run(bound)
                #expect(got == expected, "\(phase): '\(p.text)': \(got.count) objects, expected \(expected.count)")
                #expect(try engine.count(bound) == expected.count, "\(phase): count of '\(p.text)'")
                if got != expected { return }
            }
        }
        try check(w, "in the write transaction")
        try w.commit()
        let r = try db.beginRead()
        defer { r.close() }
        let leaves = try #require(try r.table(named: "R")).leafCount()
        #expect(leaves > 10, "rows should span many leaves, not \(leaves)")
        try check(r, "after commit")
    }
}

extension Table {
    func leafCount() throws -> Int {
        var n = 0
        try forEachLeaf { _ in n += 1; return true }
        return n
    }
}
