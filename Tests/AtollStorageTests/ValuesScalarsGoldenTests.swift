import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// The golden file of the scalar value types added after format v2 (Fixtures/values-scalars):
/// decimal128 columns (required, optional, indexed, list). Every later Atoll must open it and
/// read the same values, bit for bit. `ATOLL_WRITE_GOLDEN_VALUES=1` regenerates it (only when
/// the encoding is meant to change, which it must not).
@Suite struct ValuesScalarsGoldenTests {
    static let fixture = GoldenFixture.path("values-scalars")

    static let spec = TableSpec(name: "Scalars", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "amount", type: .decimal128, isIndexed: true),
        ColumnSpec(name: "maybe", type: .decimal128, isNullable: true),
        ColumnSpec(name: "series", type: .decimal128, isList: true),
        ColumnSpec(name: "gaps", type: .decimal128, isNullable: true, isList: true),
    ], primaryKey: "id")

    /// The decimals of object `i`, as (high, low) bits so that the check is on the encoding.
    static let samples: [(UInt64, UInt64)] = [
        (0x3040_0000_0000_0000, 0), (0xB040_0000_0000_0000, 0), (0x3040_0000_0000_0000, 1),
        (0x303C_0000_0000_0000, 150), (0x3034_0000_0000_0000, 1234), (0x3046_0000_0000_0000, 1),
        (0x5FFF_ED09_BEAD_87C0, 0x378D_8E63_FFFF_FFFF), (0xDFFF_ED09_BEAD_87C0, 0x378D_8E63_FFFF_FFFF),
        (0x0000_0000_0000_0000, 1), (0x7C00_0000_0000_0000, 0), (0x7800_0000_0000_0000, 0),
        (0xF800_0000_0000_0000, 0), (0x3040_0000_0000_0000, 0xAB54_A98C_EB1F_0AD2),
    ]

    static func decimal(_ i: Int) -> Decimal128 {
        let (high, low) = samples[i % samples.count]
        return Decimal128(high: high, low: low)
    }

    static func expected(_ i: Int) -> (amount: StorageValue, maybe: StorageValue, series: [StorageValue], gaps: [StorageValue]) {
        (.decimal128(decimal(i)), i % 3 == 0 ? .null : .decimal128(decimal(i + 5)),
         (0..<(i % 5)).map { .decimal128(decimal(i + $0)) },
         (0..<(i % 3)).map { $0 == 1 ? .null : .decimal128(decimal(i * 7 + $0)) })
    }

    @Test func writeGoldenFileWhenAsked() throws {
        let fixture = Self.fixture
        guard let db = try GoldenFixture.startRegenerating(fixture, when: "ATOLL_WRITE_GOLDEN_VALUES") else { return }
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(Self.spec))
        for i in 0..<200 {
            let k = try t.create(primaryKey: .int(Int64(i)))
            let e = Self.expected(i)
            try t.set(k, 1, e.amount)
            try t.set(k, 2, e.maybe)
            try t.setList(k, 3, e.series)
            try t.setList(k, 4, e.gaps)
        }
        try w.commit()
        try GoldenFixture.finishRegenerating(fixture)
        #expect(try db.verify().tables.first?.objects == 200)
    }

    /// Same bits, not only equal values: the golden file pins the encoding.
    static func sameBits(_ a: StorageValue, _ b: StorageValue) -> Bool {
        switch (a, b) {
        case (.decimal128(let x), .decimal128(let y)): x.high == y.high && x.low == y.low
        default: a == b
        }
    }

    @Test func theGoldenFileOpensAndReadsTheSameBits() throws {
        let dir = TemporaryDirectory()
        let copy = try GoldenFixture.copy(Self.fixture, into: dir)
        let db = try Database.open(DatabaseConfiguration(path: copy))
        #expect(try db.verify().tables.first?.objects == 200)
        let r = try db.beginRead()
        defer { r.close() }
        let t = try #require(try r.table(named: "Scalars"))
        #expect(t.spec == Self.spec)
        for i in 0..<200 {
            let k = ObjectKey(primaryKey: Int64(i))
            let e = Self.expected(i)
            #expect(Self.sameBits(try t.value(k, 1), e.amount), "amount of \(i)")
            #expect(Self.sameBits(try t.value(k, 2), e.maybe), "maybe of \(i)")
            let series = try t.listValues(k, 3), gaps = try t.listValues(k, 4)
            #expect(series.count == e.series.count && zip(series, e.series).allSatisfy(Self.sameBits), "series of \(i)")
            #expect(gaps.count == e.gaps.count && zip(gaps, e.gaps).allSatisfy(Self.sameBits), "gaps of \(i)")
        }
        // Index: the 1 stored as 150E-2 (1.50) is found by 1.5; sample 2 (1) by 1.0.
        let onePointFive = try Decimal128(string: "1.5")
        #expect(try t.findAll(indexed: 1, equalTo: .decimal128(onePointFive)).count == (0..<200).filter { $0 % 13 == 3 }.count)
        #expect(try t.findAll(indexed: 1, equalTo: .decimal128(try Decimal128(string: "1.0"))).count == (0..<200).filter { $0 % 13 == 2 }.count)
    }
}
