import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// The golden file of mixed columns (AnyRealmValue, Fixtures/values-mixed): a required-shape
/// indexed mixed column, a list, a set and a map of mixed values, holding every tag. Every later
/// Atoll must open it and read the same values with the same types.
/// `ATOLL_WRITE_GOLDEN_VALUES=1` regenerates it (only when the encoding is meant to change,
/// which it must not).
@Suite struct ValuesMixedGoldenTests {
    static let fixture = GoldenFixture.path("values-mixed")

    static let spec = TableSpec(name: "Mixed", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "value", type: .mixed, isNullable: true, isIndexed: true),
        ColumnSpec(name: "history", type: .mixed, isNullable: true, isList: true),
        ColumnSpec(name: "bag", type: .mixed, isNullable: true, isSet: true),
        ColumnSpec(name: "named", type: .mixed, isNullable: true, isMap: true),
    ], primaryKey: "id")

    /// One value of every tag (and the edge values of the numeric ones).
    static let samples: [StorageValue] = [
        .null, .bool(false), .bool(true), .int(0), .int(-1), .int(Int64.max), .int(Int64.min),
        .float(2.5), .float(.nan), .double(1.0), .double(-0.0), .double(.infinity),
        .string(""), .string("zwölf"), .binary([]), .binary([0, 255, 7]),
        .timestamp(Timestamp(seconds: -1, nanoseconds: -500_000_000)), .timestamp(Timestamp(seconds: 1_700_000_000, nanoseconds: 1)),
        .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))),
        .objectId(ObjectId(bytes: [0x65, 0xF1, 0xC0, 0xD2, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0, 0, 1])!),
        .decimal128(Decimal128(high: 0x303C_0000_0000_0000, low: 150)), .decimal128(.nan),
    ]

    static func sample(_ i: Int) -> StorageValue { samples[i % samples.count] }

    static func expected(_ i: Int) -> (value: StorageValue, history: [StorageValue], bag: [StorageValue], named: [(String, StorageValue)]) {
        (sample(i), (0..<(i % 4)).map { sample(i * 3 + $0) },
         SortedSearch.sortedUnique((0..<(i % 5)).map { sample(i * 7 + $0) }),
         (0..<(i % 3)).map { ("k\($0)", sample(i * 11 + $0)) })
    }

    @Test func writeGoldenFileWhenAsked() throws {
        let fixture = Self.fixture
        guard let db = try GoldenFixture.startRegenerating(fixture, when: "ATOLL_WRITE_GOLDEN_VALUES") else { return }
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(Self.spec))
        for i in 0..<200 {
            let k = try t.create(primaryKey: .int(Int64(i)))
            let e = Self.expected(i)
            try t.set(k, 1, e.value)
            try t.setList(k, 2, e.history)
            for v in e.bag { _ = try t.setInsert(k, 3, v) }
            for (key, v) in e.named { try t.mapSet(k, 4, key: key, v) }
        }
        try w.commit()
        try GoldenFixture.finishRegenerating(fixture)
        #expect(try db.verify().tables.first?.objects == 200)
    }

    /// The same value with the same type, bit for bit (NaN included).
    static func same(_ a: StorageValue, _ b: StorageValue) -> Bool {
        switch (a, b) {
        case (.float(let x), .float(let y)): x.bitPattern == y.bitPattern
        case (.double(let x), .double(let y)): x.bitPattern == y.bitPattern
        case (.decimal128(let x), .decimal128(let y)): x.high == y.high && x.low == y.low
        default: a == b
        }
    }

    static func same(_ a: [StorageValue], _ b: [StorageValue]) -> Bool { a.count == b.count && zip(a, b).allSatisfy { same($0, $1) } }

    @Test func theGoldenFileOpensAndReadsTheSameValuesWithTheirTypes() throws {
        let dir = TemporaryDirectory()
        let copy = try GoldenFixture.copy(Self.fixture, into: dir)
        let db = try Database.open(DatabaseConfiguration(path: copy))
        #expect(try db.verify().tables.first?.objects == 200)
        let r = try db.beginRead()
        defer { r.close() }
        let t = try #require(try r.table(named: "Mixed"))
        #expect(t.spec == Self.spec)
        for i in 0..<200 {
            let k = ObjectKey(primaryKey: Int64(i))
            let e = Self.expected(i)
            #expect(Self.same(try t.value(k, 1), e.value), "value of \(i)")
            #expect(Self.same(try t.listValues(k, 2), e.history), "history of \(i)")
            #expect(Self.same(try t.listValues(k, 3), e.bag), "bag of \(i)")
            let named = try t.mapEntries(k, 4)
            #expect(named.map(\.key) == e.named.map(\.0) && Self.same(named.map(\.value), e.named.map(\.1)), "named of \(i)")
        }
        // The index keys numbers by value: the double 1.0 (sample 9) is found by int 1 and by
        // decimal 1.00; binary values and NaNs (float and decimal) have keys of their own.
        func objects(withSamples indices: Set<Int>) -> Set<ObjectKey> {
            Set((0..<200).filter { indices.contains($0 % Self.samples.count) }.map { ObjectKey(primaryKey: Int64($0)) })
        }
        #expect(Set(try t.findAll(indexed: 1, equalTo: .int(1))) == objects(withSamples: [9]))
        #expect(Set(try t.findAll(indexed: 1, equalTo: .decimal128(Decimal128(high: 0x303C_0000_0000_0000, low: 100)))) == objects(withSamples: [9]))
        #expect(Set(try t.findAll(indexed: 1, equalTo: .int(0))) == objects(withSamples: [3, 10]), "int 0 and double -0.0")
        #expect(Set(try t.findAll(indexed: 1, equalTo: .binary([0, 255, 7]))) == objects(withSamples: [15]))
        #expect(Set(try t.findAll(indexed: 1, equalTo: .binary([]))) == objects(withSamples: [14]))
        #expect(Set(try t.findAll(indexed: 1, equalTo: .double(.nan))) == objects(withSamples: [8, 21]))
        #expect(Set(try t.findAll(indexed: 1, equalTo: .null)) == objects(withSamples: [0]))
        #expect(Set(try t.findAll(indexed: 1, equalTo: .string("zwölf"))) == objects(withSamples: [13]))
        #expect(Set(try t.findAll(indexed: 1, equalTo: .string(""))) == objects(withSamples: [12]))
    }
}
