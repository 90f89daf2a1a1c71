import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// Sets and maps in the engine: sets unique and sorted by value, maps sorted by key with Realm's
/// key rules, both logged as positional list instructions, both surviving commit, verify,
/// compaction and link-target deletion the way Realm specifies.
@Suite struct SetAndMapStorageTests {
    static let bagSpec = TableSpec(name: "Bag", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "tags", type: .string, isSet: true),
        ColumnSpec(name: "scores", type: .int, isNullable: true, isMap: true),
        ColumnSpec(name: "friends", type: .link, linkTarget: "Bag", isSet: true),
        ColumnSpec(name: "byName", type: .link, isNullable: true, linkTarget: "Bag", isMap: true),
        ColumnSpec(name: "ratios", type: .double, isNullable: true, isSet: true),
        ColumnSpec(name: "dates", type: .timestamp, isMap: true),
    ], primaryKey: "id")

    static func memory(_ name: String) throws -> Database {
        try Database.open(DatabaseConfiguration(inMemoryIdentifier: "\(name)-\(UUID())", historyRetainedVersions: 10))
    }

    static func d(_ id: Int64) -> ObjectKey { ObjectKey(primaryKey: id) }

    @Test func aSetKeepsOneOfEachElementInValueOrder() throws {
        let db = try Self.memory("set-order")
        var w = try db.beginWrite()
        let bag = try w.createTable(Self.bagSpec)
        var t = try w.table(bag)
        let k = try t.create(primaryKey: .int(1))
        #expect(try t.setInsert(k, 1, .string("pear")))
        #expect(try t.setInsert(k, 1, .string("apple")))
        #expect(try t.setInsert(k, 1, .string("Zebra")))
        #expect(try !t.setInsert(k, 1, .string("pear")), "a second insert of the same element changes nothing")
        #expect(try t.listValues(k, 1) == [.string("Zebra"), .string("apple"), .string("pear")], "strings order by their UTF-8 bytes")
        #expect(try t.setContains(k, 1, .string("apple")))
        #expect(try !t.setContains(k, 1, .string("plum")))
        for v: StorageValue in [.double(2.5), .null, .double(.nan), .double(-1), .double(.nan), .double(2.5)] { try t.setInsert(k, 5, v) }
        #expect(try t.listValues(k, 5).count == 4)
        let ratios = try t.listValues(k, 5)
        #expect(ratios[0] == .null, "null orders first")
        if case .double(let x) = ratios[1] { #expect(x.isNaN, "NaN orders before every number, and all NaNs are one element") } else { Issue.record("expected NaN, got \(ratios[1])") }
        #expect(Array(ratios[2...]) == [.double(-1), .double(2.5)])
        let version = try w.commit()

        let r = try db.beginRead()
        t = try #require(try r.table(named: "Bag"))
        #expect(try t.listValues(k, 1) == [.string("Zebra"), .string("apple"), .string("pear")], "the committed encoding reads back in order")
        let log = try TransactionLogReader.decodeAll(try #require(try r.log(of: version)))
        let setInstructions = log.filter { if case .listInsert(_, _, 1, _, _) = $0 { true } else { false } }
        #expect(setInstructions == [
            .listInsert(bag, k, column: 1, index: 0, value: .string("pear")),
            .listInsert(bag, k, column: 1, index: 0, value: .string("apple")),
            .listInsert(bag, k, column: 1, index: 0, value: .string("Zebra")),
        ], "each insert is logged at the element's position in set order")
        r.close()

        w = try db.beginWrite()
        t = try #require(try w.table(named: "Bag"))
        #expect(try t.setRemove(k, 1, .string("apple")))
        #expect(try !t.setRemove(k, 1, .string("apple")))
        #expect(try t.listValues(k, 1) == [.string("Zebra"), .string("pear")])
        try t.setAssign(k, 1, [.string("b"), .string("a"), .string("b")])
        #expect(try t.listValues(k, 1) == [.string("a"), .string("b")])
        try t.setClear(k, 1)
        #expect(try t.listValues(k, 1).isEmpty)
        #expect { try t.setInsert(k, 1, .null) } throws: { ($0 as? AtollError)?.kind == .requiredValueMissing }
        #expect { try t.setInsert(k, 1, .int(3)) } throws: { ($0 as? AtollError)?.kind == .typeMismatch }
        #expect { try t.listInsert(k, 1, at: 0, .string("x")) } throws: { ($0 as? AtollError)?.kind == .typeMismatch }
        w.rollback()
    }

    @Test func aMapKeepsItsEntriesSortedByKeyAndFollowsRealmsKeyRules() throws {
        let db = try Self.memory("map-order")
        var w = try db.beginWrite()
        let bag = try w.createTable(Self.bagSpec)
        var t = try w.table(bag)
        let k = try t.create(primaryKey: .int(1))
        try t.mapSet(k, 2, key: "b", .int(2))
        try t.mapSet(k, 2, key: "a", .int(1))
        try t.mapSet(k, 2, key: "c", .null)
        try t.mapSet(k, 2, key: "b", .int(20))
        #expect(try t.mapEntries(k, 2).map(\.key) == ["a", "b", "c"])
        #expect(try t.mapEntries(k, 2).map(\.value) == [.int(1), .int(20), .null])
        #expect(try t.listValues(k, 2) == [.int(1), .int(20), .null], "readers of values see them in key order")
        #expect(try t.mapValue(k, 2, key: "c") == .null, "a key holding nil is present")
        #expect(try t.mapValue(k, 2, key: "z") == nil)
        for bad in ["", "a.b", "$a"] {
            #expect { try t.mapSet(k, 2, key: bad, .int(1)) } throws: { ($0 as? AtollError)?.kind == .invalidArgument }
        }
        #expect(try t.mapValue(k, 2, key: "a$") == nil)
        try t.mapSet(k, 2, key: "a$", .int(5))
        #expect(try t.mapValue(k, 2, key: "a$") == .int(5), "'$' is allowed after the first character")
        let version = try w.commit()

        let r = try db.beginRead()
        t = try #require(try r.table(named: "Bag"))
        #expect(try t.mapEntries(k, 2).map(\.key) == ["a", "a$", "b", "c"])
        #expect(try t.mapEntries(k, 2).map(\.value) == [.int(1), .int(5), .int(20), .null])
        let log = try TransactionLogReader.decodeAll(try #require(try r.log(of: version)))
        let mapInstructions = log.filter {
            switch $0 {
            case .listInsert(_, _, 2, _, _), .listSet(_, _, 2, _, _): true
            default: false
            }
        }
        #expect(mapInstructions == [
            .listInsert(bag, k, column: 2, index: 0, value: .int(2)),
            .listInsert(bag, k, column: 2, index: 0, value: .int(1)),
            .listInsert(bag, k, column: 2, index: 2, value: .null),
            .listSet(bag, k, column: 2, index: 1, value: .int(20)),
            .listInsert(bag, k, column: 2, index: 1, value: .int(5)),
        ])
        r.close()

        w = try db.beginWrite()
        t = try #require(try w.table(named: "Bag"))
        #expect(try t.mapRemove(k, 2, key: "b"))
        #expect(try !t.mapRemove(k, 2, key: "b"))
        #expect(try t.mapEntries(k, 2).map(\.key) == ["a", "a$", "c"])
        try t.mapAssign(k, 2, [(key: "y", value: .int(1)), (key: "x", value: .int(2))])
        #expect(try t.mapEntries(k, 2).map(\.key) == ["x", "y"])
        let now = Timestamp(seconds: 1_700_000_000, nanoseconds: 5)
        try t.mapSet(k, 6, key: "then", .timestamp(now))
        #expect(try t.mapValue(k, 6, key: "then") == .timestamp(now))
        try t.mapClear(k, 2)
        #expect(try t.mapEntries(k, 2).isEmpty)
        try w.commit()
        #expect(try db.verify().tables.first?.objects == 1)
    }

    @Test func deletingATargetRemovesItFromSetsAndNullsItInMaps() throws {
        let db = try Self.memory("set-map-links")
        let w = try db.beginWrite()
        let bag = try w.createTable(Self.bagSpec)
        let t = try w.table(bag)
        for id: Int64 in 1...3 { try t.create(primaryKey: .int(id)) }
        let d = Self.d
        try t.setInsert(d(1), 3, .link(d(3)))
        try t.setInsert(d(1), 3, .link(d(2)))
        try t.setInsert(d(1), 3, .link(d(2)))
        try t.mapSet(d(1), 4, key: "two", .link(d(2)))
        try t.mapSet(d(1), 4, key: "deux", .link(d(2)))
        try t.mapSet(d(1), 4, key: "three", .link(d(3)))
        #expect(try t.listValues(d(1), 3) == [.link(d(2)), .link(d(3))])
        #expect(try t.backlinks(to: d(2), from: bag, column: 3) == [d(1)])
        #expect(try t.backlinkCount(to: d(2)) == 3)
        #expect { try t.mapSet(d(1), 4, key: "gone", .link(d(9))) } throws: { ($0 as? AtollError)?.kind == .objectNotFound }

        try t.erase(d(2))
        #expect(try t.listValues(d(1), 3) == [.link(d(3))], "a set drops a deleted target")
        #expect(try t.mapEntries(d(1), 4).map(\.key) == ["deux", "three", "two"], "a map keeps the keys")
        #expect(try t.mapEntries(d(1), 4).map(\.value) == [.null, .link(d(3)), .null], "and their values become nil")
        try t.erase(d(1))
        #expect(try t.backlinkCount(to: d(3)) == 0, "deleting the origin drops its set's and map's backlinks")
        try w.commit()
        #expect(try db.verify().tables.first?.objects == 1)
    }

    @Test func aSchemaWithSetsAndMapsRoundTripsAndOthersKeepTheOldEncoding() throws {
        #expect(Self.bagSpec.encode().first == 2, "a spec with a set or a map uses table-spec format 2")
        #expect(GoldenFileTests.spec.encode().first == 1, "a spec without them stays format 1, readable by older versions")
        let decoded = try Self.bagSpec.encode().withUnsafeBytes { try TableSpec.decode($0) }
        #expect(decoded == Self.bagSpec)
        #expect(decoded.columns[1].collectionKind == .set)
        #expect(decoded.columns[2].collectionKind == .map)
        #expect(decoded.columns[0].collectionKind == nil)
        #expect(decoded.columns.map(\.description)[1...2] == ["tags: string<>", "scores: int?{}"])

        // Flags of a set in a format-1 spec are refused, not misread.
        var bytes = Self.bagSpec.encode()
        bytes[0] = 1
        #expect(throws: AtollError.self) { _ = try bytes.withUnsafeBytes { try TableSpec.decode($0) } }

        #expect(throws: AtollError.self) {
            try TableSpec(name: "X", columns: [ColumnSpec(name: "m", type: .link, linkTarget: "X", isMap: true)]).validate()
        }
        // Lists cannot be indexed; sets and maps can (CollectionIndexTests), in spec format 4,
        // which a reader refuses to see as format 2 (it would not maintain the index).
        #expect(throws: AtollError.self) {
            try TableSpec(name: "X", columns: [ColumnSpec(name: "l", type: .string, isList: true, isIndexed: true)]).validate()
        }
        let indexed = TableSpec(name: "X", columns: [ColumnSpec(name: "s", type: .string, isIndexed: true, isSet: true)])
        try indexed.validate()
        var indexedBytes = indexed.encode()
        #expect(indexedBytes[0] == 4)
        #expect(try indexedBytes.withUnsafeBytes { try TableSpec.decode($0) } == indexed)
        indexedBytes[0] = 2
        #expect(throws: AtollError.self) { _ = try indexedBytes.withUnsafeBytes { try TableSpec.decode($0) } }
    }

    @Test func setsAndMapsSurviveReopenVerifyAndCompaction() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("bag.atoll"), copy = dir.file("copy.atoll")
        do {
            let db = try Database.open(DatabaseConfiguration(path: path))
            let w = try db.beginWrite()
            let t = try w.table(w.createTable(Self.bagSpec))
            for id: Int64 in 0..<200 {
                let k = try t.create(primaryKey: .int(id))
                for j in 0..<(id % 7) { try t.setInsert(k, 1, .string("tag\((id * 13 + j) % 11)")) }
                for j in 0..<(id % 5) { try t.mapSet(k, 2, key: "k\(j)", j == 2 ? .null : .int(id * j)) }
            }
            try w.commit()
            try db.writeCopy(to: copy)
        }
        for p in [path, copy] {
            let db = try Database.open(DatabaseConfiguration(path: p))
            #expect(try db.verify().tables.first?.objects == 200)
            let r = try db.beginRead()
            defer { r.close() }
            let t = try #require(try r.table(named: "Bag"))
            #expect(t.spec == Self.bagSpec)
            for id: Int64 in [0, 6, 13, 199] {
                let k = Self.d(id)
                let tags = Set((0..<(id % 7)).map { "tag\((id * 13 + $0) % 11)" }).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                #expect(try t.listValues(k, 1) == tags.map { .string($0) })
                #expect(try t.mapEntries(k, 2).map(\.key) == (0..<(id % 5)).map { "k\($0)" })
                #expect(try t.mapEntries(k, 2).map(\.value) == (0..<(id % 5)).map { $0 == 2 ? .null : .int(id * $0) })
            }
        }
    }

    // MARK: golden file

    static let goldenFixture = GoldenFixture.path("values-collections")

    static let goldenSpec = TableSpec(name: "Holder", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "tags", type: .string, isSet: true),
        ColumnSpec(name: "numbers", type: .int, isNullable: true, isSet: true),
        ColumnSpec(name: "ids", type: .uuid, isSet: true),
        ColumnSpec(name: "neighbours", type: .link, linkTarget: "Holder", isSet: true),
        ColumnSpec(name: "scores", type: .double, isNullable: true, isMap: true),
        ColumnSpec(name: "labels", type: .string, isMap: true),
        ColumnSpec(name: "stamps", type: .timestamp, isMap: true),
        ColumnSpec(name: "blobs", type: .binary, isNullable: true, isMap: true),
        ColumnSpec(name: "byRole", type: .link, isNullable: true, linkTarget: "Holder", isMap: true),
    ], primaryKey: "id")

    static let goldenCount: Int64 = 120

    /// Object `i`'s sets (as inserted, before set order) and maps.
    static func goldenValues(_ i: Int64) -> (sets: [Int: [StorageValue]], maps: [Int: [(key: String, value: StorageValue)]]) {
        let tags = (0..<(i % 5)).map { StorageValue.string("tag\((i + $0 * 7) % 9)") }
        let numbers = (0..<(i % 4)).map { j -> StorageValue in j == 1 ? .null : .int((i * 31 + j * 5) % 17 - 8) }
        let ids = (0..<(i % 3)).map { j in StorageValue.uuid(UUID(uuid: (UInt8(i), UInt8(j), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))) }
        let neighbours = (0..<(i % 3)).map { j in StorageValue.link(ObjectKey(primaryKey: (i + j + 1) % goldenCount)) }
        let scores = (0..<(i % 4)).map { j in (key: "s\(j)", value: j == 2 ? StorageValue.null : .double(Double(i) / Double(j + 1))) }
        let labels = (0..<(i % 3)).map { j in (key: "label-\(2 - j)", value: StorageValue.string(String(repeating: "x", count: Int(i + j)))) }
        let stamps = (0..<(i % 2)).map { _ in (key: "created", value: StorageValue.timestamp(Timestamp(seconds: 1_700_000_000 + i, nanoseconds: Int32(i)))) }
        let blobs = i % 40 == 0 ? [(key: "big", value: StorageValue.binary([UInt8](repeating: UInt8(i % 256), count: 2000))), (key: "none", value: .null)] : []
        let byRole = (0..<(i % 3)).map { j in (key: "r\(j)", value: StorageValue.link(ObjectKey(primaryKey: (i * 7 + j) % goldenCount))) }
        return ([1: tags, 2: numbers, 3: ids, 4: neighbours], [5: scores, 6: labels, 7: stamps, 8: blobs, 9: byRole])
    }

    /// Writes Fixtures/values-collections/golden.atoll (only when asked).
    @Test func writeCollectionsGoldenFileWhenAsked() throws {
        let fixture = Self.goldenFixture
        guard let db = try GoldenFixture.startRegenerating(fixture, when: "ATOLL_WRITE_GOLDEN_COLLECTIONS") else { return }
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(Self.goldenSpec))
        for i in 0..<Self.goldenCount { try t.create(primaryKey: .int(i)) }
        for i in 0..<Self.goldenCount {
            let k = ObjectKey(primaryKey: i)
            let (sets, maps) = Self.goldenValues(i)
            for (c, values) in sets { try t.setAssign(k, c, values) }
            for (c, entries) in maps { try t.mapAssign(k, c, entries) }
        }
        // Deleted targets: removed from sets, nil in maps.
        try t.erase(ObjectKey(primaryKey: Self.goldenCount - 1))
        try w.commit()
        try GoldenFixture.finishRegenerating(fixture)
        #expect(try db.verify().tables.first?.objects == Int(Self.goldenCount) - 1)
    }

    /// The golden file of sets and maps opens and reads the same (sets in set order, maps by key).
    @Test func collectionsGoldenFileStillOpens() throws {
        let dir = TemporaryDirectory()
        let copy = try GoldenFixture.copy(Self.goldenFixture, into: dir)
        let db = try Database.open(DatabaseConfiguration(path: copy))
        #expect(try db.verify().tables.first?.objects == Int(Self.goldenCount) - 1)
        let r = try db.beginRead()
        defer { r.close() }
        let t = try #require(try r.table(named: "Holder"))
        #expect(t.spec == Self.goldenSpec)
        let deleted = StorageValue.link(ObjectKey(primaryKey: Self.goldenCount - 1))
        for i in 0..<(Self.goldenCount - 1) {
            let k = ObjectKey(primaryKey: i)
            let (sets, maps) = Self.goldenValues(i)
            for (c, values) in sets {
                #expect(try t.listValues(k, c) == SortedSearch.sortedUnique(values.filter { $0 != deleted }), "object \(i) column \(c)")
            }
            for (c, entries) in maps {
                let expected = Dictionary(entries.map { ($0.key, $0.value == deleted ? StorageValue.null : $0.value) }, uniquingKeysWith: { _, b in b })
                let stored = try t.mapEntries(k, c)
                #expect(stored.map(\.key) == expected.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, "object \(i) column \(c)")
                #expect(stored.allSatisfy { expected[$0.key] == $0.value }, "object \(i) column \(c)")
            }
        }
    }
}
