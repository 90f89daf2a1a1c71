@testable import AtollQuery
import AtollStorage
import Foundation
import Testing

/// Indexes on the elements of sets and the entries of maps: after random inserts, removals,
/// clears, reassignments and object deletions (inside a transaction, after commit, after
/// reopening, compaction and encryption), every query the index answers gives exactly what a
/// scan of an unindexed copy of the same collection gives, counts included, and `verify`
/// finds the index equal to the data.
@Suite struct CollectionIndexTests {
    /// Columns: 0 tags (string set, indexed), 1 tagsCopy; 2 nums (optional int set, indexed),
    /// 3 numsCopy; 4 attrs (map of optional ints, indexed), 5 attrsCopy; 6 mixed (set of mixed
    /// values, indexed), 7 mixedCopy; 8 when (map of dates, indexed), 9 whenCopy.
    static let spec = TableSpec(name: "Item", columns: [
        ColumnSpec(name: "tags", type: .string, isIndexed: true, isSet: true), ColumnSpec(name: "tagsCopy", type: .string, isSet: true),
        ColumnSpec(name: "nums", type: .int, isNullable: true, isIndexed: true, isSet: true),
        ColumnSpec(name: "numsCopy", type: .int, isNullable: true, isSet: true),
        ColumnSpec(name: "attrs", type: .int, isNullable: true, isIndexed: true, isMap: true),
        ColumnSpec(name: "attrsCopy", type: .int, isNullable: true, isMap: true),
        ColumnSpec(name: "mixed", type: .mixed, isNullable: true, isIndexed: true, isSet: true),
        ColumnSpec(name: "mixedCopy", type: .mixed, isNullable: true, isSet: true),
        ColumnSpec(name: "when", type: .timestamp, isIndexed: true, isMap: true), ColumnSpec(name: "whenCopy", type: .timestamp, isMap: true),
    ])

    /// Queries on the indexed columns; each is compared with the same query on the copies.
    static var queries: [(String, [Any])] { [
        ("ANY tags == $0", ["t3"]), ("$0 IN tags", ["t5"]), ("tags CONTAINS $0", ["t7"]), ("ANY tags IN {'t1', 't2', 'nope'}", []),
        ("ANY tags == $0", [String(repeating: "long", count: 120) + "1"]), ("ANY tags ==[c] $0", ["T3"]), ("ANY tags != $0", ["t3"]),
        ("ANY nums == $0", [4]), ("ANY nums == nil", []), ("ANY nums == $0", [4.0]), ("ANY nums == $0", [4.5]), ("ANY nums > $0", [7]),
        ("attrs['k1'] > $0", [5]), ("attrs['k1'] >= $0", [5]), ("attrs['k2'] < $0", [3]), ("attrs['k2'] <= $0", [3]),
        ("attrs['k3'] BETWEEN {$0, $1}", [2, 6]), ("attrs['k3'] == $0", [4]), ("attrs['k3'] == nil", []), ("attrs['k0'] IN {1, 2}", []),
        ("attrs['k1'] > $0", [4.5]), ("attrs['nokey'] > $0", [0]), ("attrs['k1'] > $0", [Int64.max]), ("attrs['k1'] < $0", [Int64.min]),
        ("ANY mixed == $0", ["t2"]), ("ANY mixed == 't2'", []), ("ANY mixed == $0", [2]), ("ANY mixed == nil", []),
        ("when['a'] > $0", [Date(timeIntervalSince1970: 300)]), ("when['a'] <= $0", [Date(timeIntervalSince1970: 300)]),
        ("when['b'] == $0", [Date(timeIntervalSince1970: 120)]),
        ("ANY tags == $0 AND attrs['k1'] > $1", ["t2", 3]), ("ANY tags == $0 OR ANY nums == $1", ["t2", 3]),
    ] }

    /// The queries the index answers (a plan exists). Not `tags CONTAINS x`, which on a
    /// collection of strings is a substring test of each element (as in realm-core), nor a
    /// number compared with a mixed set (scanned, as for indexed mixed properties).
    static let planned: Set<String> = ["ANY tags == $0", "$0 IN tags", "ANY mixed == 't2'", "ANY tags == $0 AND attrs['k1'] > $1", "ANY tags IN {'t1', 't2', 'nope'}", "ANY nums == nil", "attrs['k1'] > $0",
                                       "attrs['k1'] >= $0", "attrs['k2'] < $0", "attrs['k2'] <= $0", "attrs['k3'] BETWEEN {$0, $1}",
                                       "attrs['k3'] == $0", "attrs['k0'] IN {1, 2}", "when['a'] > $0", "when['a'] <= $0", "when['b'] == $0"]

    static func copyQuery(_ q: String) -> String {
        var s = q
        for name in ["tags", "nums", "attrs", "mixed", "when"] {
            s = s.replacingOccurrences(of: "\(name) ", with: "\(name)Copy ").replacingOccurrences(of: "\(name)[", with: "\(name)Copy[")
        }
        return s
    }

    static func checkQueries(_ txn: Transaction, _ context: String) throws {
        let engine = QueryEngine(transaction: txn)
        let table = try #require(try txn.table(named: "Item"))
        var nonEmpty = 0
        for (query, arguments) in queries {
            let bound = try engine.bind(query, on: "Item", arguments: arguments)
            let copy = try engine.bind(copyQuery(query), on: "Item", arguments: arguments)
            let scanned = try engine.run(copy)
            if !scanned.isEmpty { nonEmpty += 1 }
            #expect(try engine.run(bound) == scanned, "\(context): \(query) \(arguments)")
            #expect(try engine.count(bound) == scanned.count, "\(context): \(query) \(arguments) counted")
            if planned.contains(query), !(arguments.first is Double), !(arguments.first.map { "\($0)".count > 100 } ?? false),
               !(arguments.first as? Int64 == .max || arguments.first as? Int64 == .min) {
                #expect(try engine.plannedCandidates(bound.predicate, table: table) != nil, "\(context): \(query) should use the index")
            }
        }
        #expect(table.count < 20 || nonEmpty > queries.count / 2, "\(context): most queries find objects (\(nonEmpty) of \(queries.count))")
        // A scan plan (string options, non-int numbers) is never taken from the index.
        for query in ["ANY tags ==[c] 'T3'", "ANY nums == 4.5"] {
            #expect(try engine.plannedCandidates(try engine.bind(query, on: "Item").predicate, table: table) == nil, "\(query)")
        }
    }

    /// One random change, applied alike to an indexed column and its copy.
    static func randomChange(_ t: Table, keys: inout [ObjectKey], _ rng: inout SplitMix) throws {
        let tagPool = (0..<10).map { StorageValue.string("t\($0)") } + [.string(String(repeating: "long", count: 120) + "1"),
                                                                      .string(String(repeating: "long", count: 120) + "2")]
        func tag() -> StorageValue { tagPool[rng.next(tagPool.count)] }
        func num() -> StorageValue { rng.next(8) == 0 ? .null : .int(Int64(rng.next(12))) }
        func mixed() -> StorageValue {
            switch rng.next(5) {
            case 0: .null
            case 1: .int(Int64(rng.next(4)))
            case 2: .double(Double(rng.next(4)))
            case 3: .string("t\(rng.next(4))")
            default: .decimal128(Decimal128(Int64(rng.next(4))))
            }
        }
        func date() -> StorageValue { .timestamp(Timestamp(seconds: Int64(rng.next(10)) * 60, nanoseconds: 0)) }
        if keys.isEmpty || rng.next(10) == 0 {
            keys.append(try t.create())
            return
        }
        let k = keys[rng.next(keys.count)]
        func both(_ c: Int, _ body: (Int) throws -> Void) throws { try body(c); try body(c + 1) }
        switch rng.next(14) {
        case 0, 1: let v = tag(); try both(0) { _ = try t.setInsert(k, $0, v) }
        case 2: let v = tag(); try both(0) { _ = try t.setRemove(k, $0, v) }
        case 3: let vs = (0..<rng.next(4)).map { _ in tag() }; try both(0) { try t.setAssign(k, $0, vs) }
        case 4: let v = num(); try both(2) { _ = try t.setInsert(k, $0, v) }
        case 5: let v = num(); try both(2) { _ = try t.setRemove(k, $0, v) }
        case 6, 7: let key = "k\(rng.next(4))", v = num(); try both(4) { try t.mapSet(k, $0, key: key, v) }
        case 8: let key = "k\(rng.next(4))"; try both(4) { _ = try t.mapRemove(k, $0, key: key) }
        case 9: try both(rng.next(2) == 0 ? 4 : 0) { c in if c < 2 { try t.setClear(k, c) } else { try t.mapClear(k, c) } }
        case 10: let v = mixed(); try both(6) { _ = try t.setInsert(k, $0, v) }
        case 11: let v = mixed(); try both(6) { _ = try t.setRemove(k, $0, v) }
        case 12: let key = ["a", "b"][rng.next(2)], v = date(); try both(8) { try t.mapSet(k, $0, key: key, v) }
        default:
            if rng.next(3) == 0 {
                try t.erase(k)
                keys.removeAll { $0 == k }
            } else {
                var entries: [(key: String, value: StorageValue)] = []
                for _ in 0..<rng.next(4) { entries.append((key: "k\(rng.next(4))", value: num())) }
                var unique: [(key: String, value: StorageValue)] = []
                for e in entries where !unique.contains(where: { $0.key == e.key }) { unique.append(e) }
                try both(4) { try t.mapAssign(k, $0, unique) }
            }
        }
    }

    @Test(arguments: [1, 2, 3])
    func randomChangesKeepTheIndexEqualToAScan(seed: UInt64) throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "collindex-\(seed)-\(UUID())"))
        var rng = SplitMix(seed: seed)
        var keys: [ObjectKey] = []
        let w0 = try db.beginWrite()
        _ = try w0.createTable(Self.spec)
        try w0.commit()
        for round in 0..<6 {
            let w = try db.beginWrite()
            let t = try #require(try w.table(named: "Item"))
            for step in 0..<400 {
                try Self.randomChange(t, keys: &keys, &rng)
                // Queries in the middle of a transaction see its changes (the index is flushed).
                if step == 200 { try Self.checkQueries(w, "seed \(seed) round \(round) in the transaction") }
            }
            try w.commit()
            _ = try db.verify()
            let r = try db.beginRead()
            try Self.checkQueries(r, "seed \(seed) round \(round)")
            r.close()
        }
        // Deleting every object leaves an empty index.
        let w = try db.beginWrite()
        try #require(try w.table(named: "Item")).clear()
        try w.commit()
        _ = try db.verify()
    }

    @Test func theIndexSurvivesReopeningCompactionAndEncryption() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("collindex-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = EncryptionKey.random()
        let path = dir.appendingPathComponent("a.atoll").path
        var rng = SplitMix(seed: 9)
        do {
            var config = DatabaseConfiguration(path: path)
            config.encryptionKey = key
            let db = try Database.open(config)
            let w = try db.beginWrite()
            let t = try w.table(w.createTable(Self.spec))
            var keys: [ObjectKey] = []
            for _ in 0..<1500 { try Self.randomChange(t, keys: &keys, &rng) }
            try w.commit()
            try db.writeCopy(to: dir.appendingPathComponent("b.atoll").path, encryptionKey: key)
        }
        for file in ["a.atoll", "b.atoll"] {
            var config = DatabaseConfiguration(path: dir.appendingPathComponent(file).path)
            config.encryptionKey = key
            let db = try Database.open(config)
            _ = try db.verify()
            let r = try db.beginRead()
            try Self.checkQueries(r, "reopened \(file)")
            r.close()
        }
    }

    @Test func addingTheFlagBuildsTheIndexAndRemovingItFreesIt() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "collindex-flag-\(UUID())"))
        var unindexed = Self.spec
        for c in unindexed.columns.indices { unindexed.columns[c].isIndexed = false }
        var rng = SplitMix(seed: 4)
        let w = try db.beginWrite()
        let tableKey = try w.createTable(unindexed)
        let t = try w.table(tableKey)
        var keys: [ObjectKey] = []
        for _ in 0..<1000 { try Self.randomChange(t, keys: &keys, &rng) }
        try w.commit()
        let w2 = try db.beginWrite()
        for c in [0, 2, 4, 6, 8] { try w2.setIndexed(tableKey, c, true) }
        // Changes after the flag is added in the same transaction are indexed too.
        let t2 = try w2.table(tableKey)
        for _ in 0..<300 { try Self.randomChange(t2, keys: &keys, &rng) }
        try w2.commit()
        _ = try db.verify()
        let r = try db.beginRead()
        try Self.checkQueries(r, "after adding the flag")
        r.close()
        let w3 = try db.beginWrite()
        try w3.setIndexed(tableKey, 0, false)
        #expect(try w3.table(tableKey).hasIndex(0) == false)
        try w3.commit()
        _ = try db.verify()
        let r2 = try db.beginRead()
        let engine = QueryEngine(transaction: r2)
        let bound = try engine.bind("ANY tags == 't3'", on: "Item")
        #expect(try engine.plannedCandidates(bound.predicate, table: try #require(try r2.table(named: "Item"))) == nil)
        #expect(try engine.run(bound) == engine.run(try engine.bind("ANY tagsCopy == 't3'", on: "Item")))
        r2.close()
    }

    @Test func listsAndUnindexableElementsCannotBeIndexed() {
        for column in [ColumnSpec(name: "l", type: .string, isList: true, isIndexed: true),
                       ColumnSpec(name: "s", type: .double, isIndexed: true, isSet: true),
                       ColumnSpec(name: "m", type: .binary, isIndexed: true, isMap: true)] {
            #expect(throws: AtollError.self, "\(column.name)") { try TableSpec(name: "X", columns: [column]).validate() }
        }
        #expect(throws: Never.self) { try TableSpec(name: "X", columns: [ColumnSpec(name: "s", type: .uuid, isIndexed: true, isSet: true)]).validate() }
    }
}

/// A small deterministic generator (SplitMix64).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func next(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
