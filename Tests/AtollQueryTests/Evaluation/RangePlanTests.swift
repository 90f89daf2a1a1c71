@testable import AtollQuery
import AtollStorage
import Foundation
import Testing

/// Ranges (`>`, `>=`, `<`, `<=`, BETWEEN) on an indexed int, date or decimal128 property take
/// their candidates from the index and give exactly what a scan of an unindexed copy of the
/// same column gives, nulls and a decimal NaN included; a range holding more than a quarter of
/// the objects is scanned.
@Suite struct RangePlanTests {
    let db: Database

    init() throws {
        db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "range-\(UUID())"))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(TableSpec(name: "Item", columns: [
            ColumnSpec(name: "n", type: .int, isNullable: true, isIndexed: true), ColumnSpec(name: "nCopy", type: .int, isNullable: true),
            ColumnSpec(name: "d", type: .decimal128, isNullable: true, isIndexed: true), ColumnSpec(name: "dCopy", type: .decimal128, isNullable: true),
            ColumnSpec(name: "t", type: .timestamp, isIndexed: true), ColumnSpec(name: "tCopy", type: .timestamp),
        ])))
        for i in 0..<5000 {
            let k = try t.create()
            let n: StorageValue = i % 11 == 0 ? .null : .int(Int64(i % 400) - 200)
            let d: StorageValue = i % 13 == 0 ? .null : i % 17 == 0 ? .decimal128(.nan) : .decimal128(try Decimal128(string: "\(i % 1000).\(i % 7)"))
            let time: StorageValue = .timestamp(Timestamp(seconds: Int64(i % 500) * 60 - 3000, nanoseconds: Int32(i % 3)))
            for (c, v) in [(0, n), (1, n), (2, d), (3, d), (4, time), (5, time)] { try t.set(k, c, v) }
        }
        try w.commit()
    }

    @Test func rangesOnIndexedColumnsMatchAScanOfTheSameValues() throws {
        let r = try db.beginRead()
        defer { r.close() }
        let engine = QueryEngine(transaction: r)
        let table = try #require(try r.table(named: "Item"))
        let cases: [(String, [Any])] = [
            ("n > 190", []), ("n >= 190", []), ("n < -195", []), ("n <= -195", []), ("n BETWEEN {-3, 4}", []), ("n BETWEEN {4, -3}", []),
            ("n > 150 AND n < 160", []), ("n >= $0", [199]), ("n > 199", []),
            ("d BETWEEN {$0, $1}", [Decimal128(100), Decimal128(110)]), ("d > $0", [try Decimal128(string: "990.5")]),
            ("d <= $0", [Decimal128(5)]), ("d < $0", [try Decimal128(string: "0.5")]), ("d >= $0", [Decimal128.nan]),
            ("t BETWEEN {$0, $1}", [Date(timeIntervalSince1970: -60), Date(timeIntervalSince1970: 240)]),
            ("t < $0", [Date(timeIntervalSince1970: -2900)]),
        ]
        for (query, arguments) in cases {
            let bound = try engine.bind(query, on: "Item", arguments: arguments)
            let copy = query.replacingOccurrences(of: "n ", with: "nCopy ").replacingOccurrences(of: "d ", with: "dCopy ")
                .replacingOccurrences(of: "t ", with: "tCopy ")
            let scanned = try engine.run(try engine.bind(copy, on: "Item", arguments: arguments))
            #expect(try engine.run(bound) == scanned, "\(query) vs \(copy)")
            #expect(try engine.count(bound) == scanned.count, "\(query) counted")
            if query != "d >= $0" {
                let candidates = try #require(try engine.plannedCandidates(bound.predicate, table: table), "\(query) should use the index")
                #expect(Set(scanned).isSubset(of: Set(candidates)), "\(query): the candidates hold every match")
            }
        }
    }

    /// BETWEEN, `>=` and `<=`, and `>`/`<` on ints, are answered by the index alone (nothing is
    /// checked again); a strict bound on a date or decimal, and `>=` alone on a decimal (which
    /// reaches the NaNs), leave candidates that the predicate checks.
    @Test func theIndexAloneAnswersTheRangesItCoversExactly() throws {
        let r = try db.beginRead()
        defer { r.close() }
        let engine = QueryEngine(transaction: r)
        let table = try #require(try r.table(named: "Item"))
        let exact: [(String, [Any])] = [
            ("n > 190", []), ("n >= 190", []), ("n < -195", []), ("n <= -195", []), ("n BETWEEN {-3, 4}", []),
            ("n BETWEEN {4, -3}", []), ("n > $0", [Int64.max]), ("n < $0", [Int64.min]), ("n > $0", [Int64.max - 1]),
            ("d BETWEEN {$0, $1}", [Decimal128(100), Decimal128(110)]), ("d <= $0", [Decimal128(5)]),
            ("t BETWEEN {$0, $1}", [Date(timeIntervalSince1970: -60), Date(timeIntervalSince1970: 240)]),
            ("t >= $0", [Date(timeIntervalSince1970: 27_000)]), ("t <= $0", [Date(timeIntervalSince1970: -2900)]),
            ("n > 150 AND nCopy < 155", []),
        ]
        for (query, arguments) in exact {
            let bound = try engine.bind(query, on: "Item", arguments: arguments)
            let plan = try #require(try engine.indexPlan(bound.predicate, table: table), "\(query) should use the index")
            let remaining = try engine.run(try engine.bind(query.contains("AND") ? "nCopy < 155" : "TRUEPREDICATE", on: "Item"),
                                           candidates: plan.keys)
            #expect(remaining == plan.keys.filter { Set(remaining).contains($0) })
            let copy = query.replacingOccurrences(of: "n ", with: "nCopy ").replacingOccurrences(of: "d ", with: "dCopy ")
                .replacingOccurrences(of: "t ", with: "tCopy ")
            let scanned = try engine.run(try engine.bind(copy, on: "Item", arguments: arguments))
            if query.contains("AND") {
                #expect(remaining == scanned, "\(query)")
            } else {
                if case .constant(true) = plan.remaining {} else { Issue.record("\(query): the range should be answered exactly") }
                #expect(plan.keys == scanned, "\(query): the run is exactly the matches")
            }
            #expect(try engine.count(bound) == scanned.count, "\(query) counted")
            if !query.contains("AND") {
                #expect(try engine.exactRangeCount(bound.predicate, table: table) == scanned.count, "\(query) counted in the index")
            }
        }
        for (query, arguments) in [("d > $0", [try Decimal128(string: "990.5")] as [Any]), ("d < $0", [try Decimal128(string: "0.5")]),
                                   ("d >= $0", [try Decimal128(string: "990.5")]), ("t > $0", [Date(timeIntervalSince1970: 27_000)]),
                                   ("t < $0", [Date(timeIntervalSince1970: -2900)])] {
            let bound = try engine.bind(query, on: "Item", arguments: arguments)
            let plan = try #require(try engine.indexPlan(bound.predicate, table: table), "\(query) should use the index")
            if case .constant(true) = plan.remaining { Issue.record("\(query): the run is only a superset and must be checked") }
        }
    }

    /// A value held by a thousand objects spans several postings chunks; counting in the index
    /// adds up their headers. A count over more than a quarter of the objects scans.
    @Test func countingInTheIndexAddsUpEveryChunkOfAValue() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "range-chunks-\(UUID())"))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(TableSpec(name: "Item", columns: [ColumnSpec(name: "v", type: .int, isIndexed: true)])))
        for i in 0..<5000 { try t.set(try t.create(), 0, .int(i < 1000 ? 7 : Int64(i))) }
        try w.commit()
        let r = try db.beginRead()
        defer { r.close() }
        let engine = QueryEngine(transaction: r)
        let table = try #require(try r.table(named: "Item"))
        for (query, expected) in [("v BETWEEN {7, 7}", 1000), ("v <= 1005", 1006), ("v < 7", 0), ("v > 4990", 9)] {
            let bound = try engine.bind(query, on: "Item")
            #expect(try engine.exactRangeCount(bound.predicate, table: table) == expected, "\(query)")
            #expect(try engine.count(bound) == expected, "\(query)")
        }
        let wide = try engine.bind("v >= 7", on: "Item")
        #expect(try engine.exactRangeCount(wide.predicate, table: table) == nil)
        #expect(try engine.count(wide) == 5000)
    }

    @Test func wideRangesAndOtherTypesAreScanned() throws {
        let r = try db.beginRead()
        defer { r.close() }
        let engine = QueryEngine(transaction: r)
        let table = try #require(try r.table(named: "Item"))
        for (query, arguments) in [("n > -150", [Any]()), ("n < 180", []), ("nCopy > 190", []), ("n > 190.5", []),
                                   ("d > $0", [Decimal128(1)])] {
            let bound = try engine.bind(query, on: "Item", arguments: arguments)
            #expect(try engine.plannedCandidates(bound.predicate, table: table) == nil, "\(query) should scan")
        }
    }
}
