import Atoll
import Foundation
import Testing
import AtollTestSupport

/// Query results checked against the same selection and order computed in Swift, on random
/// data: index-selected candidates, the typed single-column sort (nil first ascending, last
/// descending, ties in key order) and primary keys read from query results.
@Suite struct QueryEvaluationTests {
    final class Reading: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted(indexed: true) var sensor = ""
        @Persisted var level: Int?
        @Persisted var value = 0.0
        @Persisted var ok = false
        @Persisted var tiny = 0
        @Persisted var wide = 0
    }

    struct Row {
        var id: Int, sensor: String, level: Int?, value: Double, ok: Bool, tiny = 0, wide = 0
    }

    private func makeRealm(_ n: Int, seed: UInt64) throws -> (Realm, [Row]) {
        let realm = try Realm(configuration: freshConfiguration([Reading.self]))
        var rng = SeededGenerator(seed: seed)
        var rows: [Row] = []
        let specials: [Double] = [0, -0.0, -1.5, 1e300, -1e300, .infinity, -.infinity]
        try realm.write {
            for i in 0..<n {
                let level: Int? = rng.next() % 5 == 0 ? nil : Int(rng.next() % 7) - 3
                let value = rng.next() % 10 == 0 ? specials[Int(rng.next() % UInt64(specials.count))] : Double(Int(rng.next() % 2001) - 1000) / 8
                let row = Row(id: i * 3 - n, sensor: "s\(rng.next() % 6)", level: level, value: value, ok: rng.next() % 2 == 0,
                              tiny: Int(rng.next() % 4), wide: Int(Int64(bitPattern: rng.next()) >> 20))
                rows.append(row)
                realm.create(Reading.self, value: ["id": row.id, "sensor": row.sensor, "level": row.level as Any, "value": row.value, "ok": row.ok,
                                                   "tiny": row.tiny, "wide": row.wide])
            }
        }
        return (realm, rows.sorted { $0.id < $1.id })
    }

    /// Stable sort with nil first (ascending) or last (descending), as the query language orders.
    private func expected<V: Comparable>(_ rows: [Row], by value: (Row) -> V?, ascending: Bool) -> [Int] {
        rows.enumerated().sorted { a, b in
            let x = value(a.element), y = value(b.element)
            let c: Int = switch (x, y) {
            case (nil, nil): 0
            case (nil, _): -1
            case (_, nil): 1
            case let (x?, y?): x < y ? -1 : (x > y ? 1 : 0)
            }
            if c != 0 { return ascending ? c < 0 : c > 0 }
            return a.offset < b.offset
        }.map(\.element.id)
    }

    @Test func indexedEqualityAloneAndWithOtherTerms() throws {
        let (realm, rows) = try makeRealm(700, seed: 1)
        let all = realm.objects(Reading.self)
        for sensor in ["s0", "s3", "missing"] {
            #expect(all.filter("sensor == %@", sensor).map(\.id) == rows.filter { $0.sensor == sensor }.map(\.id))
            #expect(all.filter("sensor == %@ AND ok == true", sensor).map(\.id) == rows.filter { $0.sensor == sensor && $0.ok }.map(\.id))
            #expect(all.filter("value > 10 AND sensor == %@", sensor).count == rows.filter { $0.sensor == sensor && $0.value > 10 }.count)
        }
        #expect(all.filter("sensor IN {'s1', 's2'}").map(\.id) == rows.filter { $0.sensor == "s1" || $0.sensor == "s2" }.map(\.id))
    }

    @Test func singleColumnSortsMatchTheDocumentedOrder() throws {
        let (realm, rows) = try makeRealm(900, seed: 2)
        let all = realm.objects(Reading.self)
        for ascending in [true, false] {
            #expect(all.sorted(byKeyPath: "level", ascending: ascending).map(\.id) == expected(rows, by: \.level, ascending: ascending))
            #expect(all.sorted(byKeyPath: "value", ascending: ascending).map(\.id) == expected(rows, by: { $0.value == 0 ? 0 : $0.value }, ascending: ascending))
            #expect(all.sorted(byKeyPath: "id", ascending: ascending).map(\.id) == expected(rows, by: \.id, ascending: ascending))
            #expect(all.sorted(byKeyPath: "ok", ascending: ascending).map(\.id) == expected(rows, by: { $0.ok ? 1 : 0 }, ascending: ascending))
            #expect(all.sorted(byKeyPath: "sensor", ascending: ascending).map(\.id) == expected(rows, by: \.sensor, ascending: ascending))
            let s2 = rows.filter { $0.sensor == "s2" }
            #expect(all.filter("sensor == 's2'").sorted(byKeyPath: "level", ascending: ascending).map(\.id) == expected(s2, by: \.level, ascending: ascending))
        }
    }

    @Test func countsOfIntegerRangeTestsMatchTheRows() throws {
        let (realm, rows) = try makeRealm(2_500, seed: 4)
        let all = realm.objects(Reading.self)
        let w = rows[rows.count / 2].wide
        let (lo, hi) = (w - 1_000_000_000, w + 1_000_000_000)
        let cases: [(String, (Row) -> Bool)] = [
            ("tiny == 2", { $0.tiny == 2 }),
            ("tiny > 1 AND ok == false", { $0.tiny > 1 && !$0.ok }),
            ("ok == true AND tiny <= 0", { $0.ok && $0.tiny <= 0 }),
            ("ok == false AND ok == true", { _ in false }),
            ("wide BETWEEN {\(lo), \(hi)}", { $0.wide >= lo && $0.wide <= hi }),
            ("wide < 0 AND tiny >= 1", { $0.wide < 0 && $0.tiny >= 1 }),
            ("wide > \(Int.max)", { _ in false }),
            ("tiny < \(Int.min)", { _ in false }),
            ("id > 0 AND ok == true", { $0.id > 0 && $0.ok }),
            ("level > 0 AND ok == true", { ($0.level ?? 0) > 0 && $0.level != nil && $0.ok }),
            ("level == nil AND tiny == 3", { $0.level == nil && $0.tiny == 3 }),
            ("tiny != 1", { $0.tiny != 1 }),
        ]
        for (query, expected) in cases {
            #expect(all.filter(query).count == rows.filter(expected).count, "\(query)")
            #expect(all.filter(query).map(\.id) == rows.filter(expected).map(\.id), "\(query)")
        }
    }

    @Test func extremeAndNaNValuesSortLikeTheGeneralPath() throws {
        let realm = try Realm(configuration: freshConfiguration([Reading.self]))
        let values: [Double] = [3, .nan, -2, 7, .nan, -2]
        try realm.write {
            for (i, v) in values.enumerated() { realm.create(Reading.self, value: ["id": i, "value": v, "level": i == 2 ? Int.max : Int.min + i]) }
        }
        // NaN compares equal to every value, so the sort is whatever the stable general path
        // gives; it must still return every object once.
        let byValue = realm.objects(Reading.self).sorted(byKeyPath: "value").map(\.id)
        #expect(byValue.sorted() == Array(0..<values.count))
        let byLevel = realm.objects(Reading.self).sorted(byKeyPath: "level").map(\.id)
        #expect(byLevel == [0, 1, 3, 4, 5, 2])
    }

    @Test func primaryKeysOfQueryResultsFollowWritesInTheLoop() throws {
        let (realm, rows) = try makeRealm(300, seed: 3)
        let s1 = realm.objects(Reading.self).filter("sensor == 's1'")
        var seen: [Int] = []
        try realm.write {
            for r in s1 {
                seen.append(r.id)
                r.value = -1
                seen.append(r.id)
            }
        }
        let ids = rows.filter { $0.sensor == "s1" }.map(\.id)
        #expect(seen == ids.flatMap { [$0, $0] })
        #expect(realm.objects(Reading.self).filter("value == -1").map(\.id) == ids)
    }
}

