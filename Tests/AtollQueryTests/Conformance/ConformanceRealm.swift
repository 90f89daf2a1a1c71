import AtollQuery
import AtollStorage
import Foundation
import Testing

/// A small database built for one test ported from realm-core's `test/test_parser.cpp` or
/// realm-js's `integration-tests/tests/src/tests/queries.ts`: tables from specs, filled by the
/// test, queried through ``QueryEngine`` exactly as the object layer and `Query<T>` do.
final class ConformanceRealm {
    let db: Database

    init(_ specs: [TableSpec], fill: (Transaction) throws -> Void) throws {
        db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "conformance-\(UUID())"))
        let w = try db.beginWrite()
        for spec in specs { _ = try w.createTable(spec) }
        try fill(w)
        try w.commit()
    }

    /// The keys `query` selects on `className`. Like realm-core's `verify_query`, which runs a
    /// query twice (parsed, then re-parsed from its description), every query runs three ways
    /// here that must agree: planned (index or scan), `count`, and filtering all keys as
    /// candidates (the row-by-row evaluator).
    func keys(_ query: String, on className: String, _ arguments: [Any] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> [ObjectKey] {
        let r = try db.beginRead()
        defer { r.close() }
        let engine = QueryEngine(transaction: r)
        let bound = try engine.bind(query, on: className, arguments: arguments)
        let keys = try engine.run(bound)
        if bound.clauses.isEmpty {
            #expect(try engine.count(bound) == keys.count, "count disagrees with run for '\(query)'", sourceLocation: sourceLocation)
            let all = try #require(try r.table(named: className)).objectKeys()
            #expect(try engine.run(bound, candidates: all) == keys, "filtering candidates disagrees with run for '\(query)'", sourceLocation: sourceLocation)
        }
        return keys
    }

    /// How many objects `query` selects (realm-core's `verify_query(…, num_results)`).
    func count(_ query: String, on className: String, _ arguments: [Any] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        try keys(query, on: className, arguments, sourceLocation: sourceLocation).count
    }

    /// The int values of column `column` of the objects `query` selects, in result order.
    func ints(_ query: String, on className: String, column: Int, _ arguments: [Any] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> [Int64] {
        let keys = try keys(query, on: className, arguments, sourceLocation: sourceLocation)
        let r = try db.beginRead()
        defer { r.close() }
        let t = try #require(try r.table(named: className))
        return try keys.map { k in if case .int(let v) = try t.value(k, column) { v } else { Int64.min } }
    }

    /// Checks each (expected count, query, arguments) row.
    func expectCounts(on className: String, _ cases: [CountCase], sourceLocation: SourceLocation = #_sourceLocation) {
        for c in cases {
            do {
                let got = try count(c.query, on: className, c.arguments, sourceLocation: sourceLocation)
                #expect(got == c.expected, "'\(c.query)' \(c.arguments): \(got) objects, realm expects \(c.expected)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("'\(c.query)' \(c.arguments) failed: \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Checks that each query is refused with `.invalidQuery` (realm's CHECK_THROW).
    func expectInvalid(on className: String, _ queries: [(String, [Any])], sourceLocation: SourceLocation = #_sourceLocation) {
        for (query, arguments) in queries {
            do {
                let r = try db.beginRead()
                defer { r.close() }
                _ = try QueryEngine(transaction: r).bind(query, on: className, arguments: arguments)
                Issue.record("'\(query)' should be refused, as realm refuses it", sourceLocation: sourceLocation)
            } catch let error as AtollError {
                #expect(error.kind == .invalidQuery, "'\(query)': \(error)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("'\(query)': unexpected error \(error)", sourceLocation: sourceLocation)
            }
        }
    }
}

/// One ported `verify_query` / `expectQueryLength` row.
struct CountCase {
    let expected: Int
    let query: String
    let arguments: [Any]

    init(_ expected: Int, _ query: String, _ arguments: [Any] = []) {
        self.expected = expected
        self.query = query
        self.arguments = arguments
    }
}
