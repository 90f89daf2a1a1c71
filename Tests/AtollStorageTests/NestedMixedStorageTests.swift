import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// Collections nested in mixed values (Realm 10.51's AnyRealmValue.list/.dictionary) in storage:
/// the tagged encoding (tags 15 and 16), its validation when read and written, the depth limit,
/// typed links inside them (backlinks, and what deleting the target does), sets refusing them,
/// and `verify`.
@Suite struct NestedMixedStorageTests {
    static let holderSpec = TableSpec(name: "Holder", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "value", type: .mixed, isNullable: true, isIndexed: true),
        ColumnSpec(name: "list", type: .mixed, isNullable: true, isList: true),
        ColumnSpec(name: "set", type: .mixed, isNullable: true, isSet: true),
        ColumnSpec(name: "map", type: .mixed, isNullable: true, isMap: true),
    ], primaryKey: "id")
    static let dogSpec = TableSpec(name: "Dog", columns: [ColumnSpec(name: "id", type: .int)], primaryKey: "id")

    /// A value with every scalar type, nested three levels.
    static let sample: StorageValue = .mixedMap([
        "b": .bool(true), "i": .int(-7), "f": .float(1.5), "d": .double(2.25), "s": .string("héllo"),
        "data": .binary([0, 1, 255]), "t": .timestamp(Timestamp(seconds: -3, nanoseconds: -500)),
        "u": .uuid(UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD89")!), "o": .objectId(ObjectId(twelveBytes: Array(0..<12))),
        "dec": .decimal128(Decimal128(15)), "n": .null,
        "list": .mixedList([.int(1), .mixedList([]), .mixedMap(["k": .mixedList([.string("deep")])])]),
        "empty": .mixedMap([:]),
    ])

    static func nested(_ depth: Int) -> StorageValue {
        var v = StorageValue.int(1)
        for _ in 0..<depth { v = .mixedList([v]) }
        return v
    }

    @Test func theEncodingRoundTripsAndKeepsMapKeysInByteOrder() throws {
        let bytes = Self.sample.mixedBytes
        #expect(bytes.first == 16)
        let back = try bytes.withUnsafeBytes { try StorageValue.mixed(from: $0) }
        #expect(back == Self.sample)
        // Keys are written ascending by their UTF-8 bytes: the same map built in another order
        // encodes to the same bytes.
        var reordered: [String: StorageValue] = [:]
        if case .mixedMap(let m) = Self.sample { for k in m.keys.sorted(by: >) { reordered[k] = m[k] } }
        #expect(StorageValue.mixedMap(reordered).mixedBytes == bytes)
        #expect(StorageValue.mixedList([.int(1), .string("a")]).mixedBytes == [15, 2, 3, 2, 6, 1, 0x61])
    }

    @Test func decodingRefusesMalformedNestedValues() throws {
        func decode(_ bytes: [UInt8]) throws -> StorageValue { try bytes.withUnsafeBytes { try StorageValue.mixed(from: $0) } }
        func corrupt(_ bytes: [UInt8], _ message: String) {
            #expect { _ = try decode(bytes) } throws: { e in
                guard let e = e as? AtollError else { return false }
                return e.kind == .fileCorrupted && e.message.contains(message)
            }
        }
        // Keys out of order, repeated, invalid; a bare link; more elements than bytes.
        corrupt([16, 2, 1, 0x62, 0, 1, 0x61, 0], "not unique and ascending")
        corrupt([16, 2, 1, 0x61, 0, 1, 0x61, 0], "not unique and ascending")
        corrupt([16, 1, 2, 0x24, 0x61, 0], "starts with '$'")
        corrupt([16, 1, 3, 0x61, 0x2E, 0x62, 0], "contains '.'")
        corrupt([15, 1, 11, 5], "link without its table")
        corrupt([15, 200, 1, 0], "nested collection of 200 elements")
        // The depth limit: 100 levels read, 101 are corrupt (and never overflow the stack).
        let deepest = Self.nested(StorageValue.mixedNestingMax)
        #expect(try decode(deepest.mixedBytes) == deepest)
        corrupt([UInt8](repeating: 15, count: 1) + [1] + Self.nested(StorageValue.mixedNestingMax).mixedBytes, "more than 100 deep")
        corrupt([UInt8](repeating: 0, count: 0) + Array(repeating: [15, 1], count: 100_000).flatMap { $0 } + [0], "more than 100 deep")
    }

    @Test func propertiesListsAndMapsHoldNestedValuesAndSetsRefuseThem() throws {
        let dir = TemporaryDirectory()
        let db = try Database.open(DatabaseConfiguration(path: dir.file("n.atoll")))
        let w = try db.beginWrite()
        let h = try w.table(w.createTable(Self.holderSpec))
        let k = try h.create(primaryKey: .int(1))
        try h.set(k, 1, Self.sample)
        try h.setList(k, 2, [.int(1), Self.sample, .mixedList([])])
        try h.mapSet(k, 4, key: "a", Self.sample)
        #expect(try h.value(k, 1) == Self.sample)
        #expect(try h.listValues(k, 2) == [.int(1), Self.sample, .mixedList([])])
        #expect(try h.mapValue(k, 4, key: "a") == Self.sample)
        #expect { _ = try h.setInsert(k, 3, .mixedList([.int(1)])) } throws: { ($0 as? AtollError)?.kind == .typeMismatch }
        #expect { try h.set(k, 1, .mixedMap(["a.b": .int(1)])) } throws: { ($0 as? AtollError)?.kind == .invalidArgument }
        #expect { try h.set(k, 1, .mixedList([.link(ObjectKey(1))])) } throws: { ($0 as? AtollError)?.kind == .typeMismatch }
        // 100 levels are stored; 101 are refused with a clear error, and nothing changed.
        try h.set(k, 1, Self.nested(StorageValue.mixedNestingMax))
        #expect { try h.set(k, 1, Self.nested(StorageValue.mixedNestingMax + 1)) } throws: { e in
            guard let e = e as? AtollError else { return false }
            return e.kind == .limitExceeded && e.message.contains("at most 100 levels deep")
        }
        #expect(try h.value(k, 1) == Self.nested(StorageValue.mixedNestingMax))
        // Index: an indexed mixed property moves between a nested value and scalars.
        try h.set(k, 1, .int(5))
        #expect(try h.findAll(indexed: 1, equalTo: .int(5)) == [k])
        try h.set(k, 1, Self.sample)
        #expect(try h.findAll(indexed: 1, equalTo: .int(5)).isEmpty)
        #expect(try h.findAll(indexed: 1, equalTo: .null).isEmpty)
        try w.commit()
        #expect(try db.verify().tables.count == 1)

        // Reopened, every value reads back.
        let r = try db.beginRead()
        let h2 = try #require(try r.table(named: "Holder"))
        #expect(try h2.value(k, 1) == Self.sample)
        #expect(try h2.listValues(k, 2)[1] == Self.sample)
        r.close()
    }

    @Test func typedLinksInsideNestedValuesKeepBacklinksAndGoWithTheirTarget() throws {
        let dir = TemporaryDirectory()
        let db = try Database.open(DatabaseConfiguration(path: dir.file("n.atoll")))
        let w = try db.beginWrite()
        let h = try w.table(w.createTable(Self.holderSpec))
        let d = try w.table(w.createTable(Self.dogSpec))
        let rex = try d.create(primaryKey: .int(1)), fido = try d.create(primaryKey: .int(2))
        let toRex = StorageValue.typedLink(d.key, rex), toFido = StorageValue.typedLink(d.key, fido)
        let k = try h.create(primaryKey: .int(1))
        let value: StorageValue = .mixedMap(["dogs": .mixedList([toRex, toFido, toRex]), "best": toRex, "other": .mixedMap(["x": toFido])])
        try h.set(k, 1, value)
        try h.setList(k, 2, [.mixedList([toRex]), toRex])
        try h.mapSet(k, 4, key: "m", .mixedMap(["a": toRex, "b": .int(2)]))
        #expect(try d.backlinkCount(to: rex) == 6)
        #expect(try d.backlinkCount(to: fido) == 2)
        // Replacing a value moves its backlinks.
        try h.set(k, 1, .mixedList([toFido]))
        #expect(try d.backlinkCount(to: rex) == 3)
        #expect(try d.backlinkCount(to: fido) == 1)
        try h.set(k, 1, value)
        // A link to a missing object is refused.
        #expect { try h.set(k, 1, .mixedList([.typedLink(d.key, ObjectKey(primaryKey: 9))])) } throws: { ($0 as? AtollError)?.kind == .objectNotFound }
        try w.commit()

        // Deleting the target removes it from nested lists and makes it null in nested maps.
        let w2 = try db.beginWrite()
        try #require(try w2.table(named: "Dog")).erase(rex)
        let h2 = try #require(try w2.table(named: "Holder"))
        #expect(try h2.value(k, 1) == .mixedMap(["dogs": .mixedList([toFido]), "best": .null, "other": .mixedMap(["x": toFido])]))
        #expect(try h2.listValues(k, 2) == [.mixedList([])])
        #expect(try h2.mapValue(k, 4, key: "m") == .mixedMap(["a": .null, "b": .int(2)]))
        try w2.commit()
        #expect(try db.verify().tables.count == 2)

        // A compacted copy keeps the backlinks of nested typed links.
        let copy = dir.file("copy.atoll")
        try db.writeCopy(to: copy)
        let db2 = try Database.open(DatabaseConfiguration(path: copy))
        #expect(try db2.verify().tables.count == 2)
        let w3 = try db2.beginWrite()
        #expect(try #require(try w3.table(named: "Dog")).backlinkCount(to: fido) == 2)
        try #require(try w3.table(named: "Dog")).erase(fido)
        #expect(try #require(try w3.table(named: "Holder")).value(k, 1) == .mixedMap(["dogs": .mixedList([]), "best": .null, "other": .mixedMap(["x": .null])]))
        try w3.commit()
    }
}

/// The golden file of collections nested in mixed values (Fixtures/values-nestedmixed): holders
/// whose indexed mixed property and whose list and map of mixed values hold nested lists and
/// dictionaries, some with typed links to dogs, one of which was deleted before the file was
/// written. Every later Atoll must open it, read the same values and keep the backlinks of the
/// nested links. `ATOLL_WRITE_GOLDEN_VALUES=1` regenerates it (only when the encoding is meant to
/// change, which it must not).
@Suite struct ValuesNestedMixedGoldenTests {
    static let fixture = GoldenFixture.path("values-nestedmixed")
    static let holders = 20, dogs = 4

    /// Holder i's values, with links to dog n as `link(n)` (dog 3 is deleted).
    static func given(_ i: Int, link: (Int) -> StorageValue) -> (value: StorageValue, list: [StorageValue], map: [(String, StorageValue)]) {
        let value: StorageValue = i % 2 == 0
            ? .mixedMap(["n": .int(Int64(i)), "dogs": .mixedList([link(i % dogs), .string("s\(i)")]), "deep": NestedMixedStorageTests.nested(i % 5)])
            : .mixedList([.double(Double(i) / 2), .mixedMap(["best": link((i + 1) % dogs)]), .null])
        let list: [StorageValue] = [.int(Int64(i)), .mixedList([link((i + 2) % dogs)]), .mixedMap([:])]
        let map: [(String, StorageValue)] = [("a", .mixedList([.bool(i % 3 == 0)])), ("b", .mixedMap(["x": link(i % dogs), "y": .string("y")]))]
        return (value, list, map)
    }

    @Test func writeGoldenFileWhenAsked() throws {
        let fixture = Self.fixture
        guard let db = try GoldenFixture.startRegenerating(fixture, when: "ATOLL_WRITE_GOLDEN_VALUES") else { return }
        let w = try db.beginWrite()
        let h = try w.table(w.createTable(NestedMixedStorageTests.holderSpec))
        let d = try w.table(w.createTable(NestedMixedStorageTests.dogSpec))
        let dogKeys = try (0..<Self.dogs).map { try d.create(primaryKey: .int(Int64($0))) }
        for i in 0..<Self.holders {
            let k = try h.create(primaryKey: .int(Int64(i)))
            let g = Self.given(i) { .typedLink(d.key, dogKeys[$0]) }
            try h.set(k, 1, g.value)
            try h.setList(k, 2, g.list)
            for (key, v) in g.map { try h.mapSet(k, 4, key: key, v) }
        }
        try d.erase(dogKeys[3])
        try w.commit()
        try GoldenFixture.finishRegenerating(fixture)
        #expect(try db.verify().tables.count == 2)
    }

    @Test func theGoldenFileReadsTheSameValuesAndKeepsTheirBacklinks() throws {
        let dir = TemporaryDirectory()
        let copy = try GoldenFixture.copy(Self.fixture, into: dir)
        let db = try Database.open(DatabaseConfiguration(path: copy))
        #expect(try db.verify().tables.count == 2)
        let r = try db.beginRead()
        let h = try #require(try r.table(named: "Holder")), d = try #require(try r.table(named: "Dog"))
        #expect(h.spec == NestedMixedStorageTests.holderSpec)
        // Dog 3 was deleted: gone from nested lists, null in nested maps.
        func now(_ v: StorageValue) -> StorageValue {
            switch v {
            case .mixedList(let l): .mixedList(l.filter { $0 != .typedLink(d.key, ObjectKey(primaryKey: 3)) }.map(now))
            case .mixedMap(let m): .mixedMap(m.mapValues { $0 == .typedLink(d.key, ObjectKey(primaryKey: 3)) ? .null : now($0) })
            default: v
            }
        }
        var linksToDog0 = 0
        for i in 0..<Self.holders {
            let k = ObjectKey(primaryKey: Int64(i))
            let g = Self.given(i) { .typedLink(d.key, ObjectKey(primaryKey: Int64($0))) }
            #expect(try h.value(k, 1) == now(g.value), "value of \(i)")
            #expect(try h.listValues(k, 2) == g.list.map(now), "list of \(i)")
            #expect(try h.mapEntries(k, 4).map(\.value) == g.map.map { now($0.1) }, "map of \(i)")
            let dog0 = StorageValue.typedLink(d.key, ObjectKey(primaryKey: 0))
            linksToDog0 += ([g.value] + g.list + g.map.map(\.1)).map { $0.typedLinks.filter { StorageValue.typedLink($0.table, $0.key) == dog0 }.count }.reduce(0, +)
        }
        #expect(try d.backlinkCount(to: ObjectKey(primaryKey: 0)) == linksToDog0)
        r.close()

        // The stored backlinks still work: deleting dog 0 removes every nested link to it.
        let w = try db.beginWrite()
        try #require(try w.table(named: "Dog")).erase(ObjectKey(primaryKey: 0))
        let h2 = try #require(try w.table(named: "Holder"))
        for i in 0..<Self.holders {
            let k = ObjectKey(primaryKey: Int64(i))
            let all = [try h2.value(k, 1)] + (try h2.listValues(k, 2)) + (try h2.mapEntries(k, 4).map(\.value))
            #expect(!all.contains { $0.typedLinks.contains { $0.key == ObjectKey(primaryKey: 0) } }, "holder \(i)")
        }
        try w.commit()
        #expect(try db.verify().tables.count == 2)
    }
}
