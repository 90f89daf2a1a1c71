import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// Decimal128 as a value: the BID bits (checked against the BSON decimal128 test corpus and
/// realm-core), parsing, printing, the total order, conversion from Double, and the arithmetic
/// aggregates use.
@Suite struct Decimal128ValueTests {
    /// Encodings from MongoDB's BSON corpus (decimal128-1.json): text → (high, low).
    static let corpus: [(String, UInt64, UInt64)] = [
        ("0", 0x3040_0000_0000_0000, 0),
        ("-0", 0xB040_0000_0000_0000, 0),
        ("1", 0x3040_0000_0000_0000, 1),
        ("-1", 0xB040_0000_0000_0000, 1),
        ("0.1", 0x303E_0000_0000_0000, 1),
        ("0.001234", 0x3034_0000_0000_0000, 1234),
        ("1E+3", 0x3046_0000_0000_0000, 1),
        ("12345678901234567890", 0x3040_0000_0000_0000, 0xAB54_A98C_EB1F_0AD2),
        ("9.999999999999999999999999999999999E+6144", 0x5FFF_ED09_BEAD_87C0, 0x378D_8E63_FFFF_FFFF),
        ("1E-6176", 0x0000_0000_0000_0000, 1),
        ("NaN", 0x7C00_0000_0000_0000, 0),
        ("Infinity", 0x7800_0000_0000_0000, 0),
        ("-Infinity", 0xF800_0000_0000_0000, 0),
    ]

    @Test func parsingGivesTheBSONCorpusEncodings() throws {
        for (text, high, low) in Self.corpus {
            let d = try Decimal128(string: text)
            #expect(d.high == high && d.low == low, "\(text)")
        }
    }

    @Test func scientificStringKeepsTheEncoding() throws {
        for (text, high, low) in Self.corpus {
            let d = Decimal128(high: high, low: low)
            let again = try Decimal128(string: d.scientificString)
            #expect(again.high == high && again.low == low, "\(text) printed as \(d.scientificString)")
        }
        #expect(try Decimal128(string: "1.50").scientificString == "1.50")
        #expect(try Decimal128(string: "0.5").scientificString == "0.5")
        #expect(try Decimal128(string: "1E+3").scientificString == "1E+3")
        #expect(try Decimal128(string: "0.0000001").scientificString == "1E-7")
        #expect(try Decimal128(string: "-12.5").scientificString == "-12.5")
    }

    /// RealmSwift's `stringValue`: realm-core's to_string with trailing zeros trimmed.
    @Test func stringValueIsRealmSwifts() throws {
        #expect(try Decimal128(string: "1.234567").stringValue == "1.234567")
        #expect(try Decimal128(string: "11.111110").stringValue == "11.11111")
        #expect(try Decimal128(string: "-1.0").stringValue == "-1")
        #expect(try Decimal128(string: "123").stringValue == "123")
        #expect(try Decimal128(string: "0.5").stringValue == "5E-1")
        #expect(try Decimal128(string: "1E+3").stringValue == "1E3")
        #expect(try Decimal128(string: "12E+3").stringValue == "1.2E4")
        #expect(Decimal128.nan.stringValue == "NaN")
        #expect(Decimal128.infinity.stringValue == "Inf")
    }

    @Test func parsingRejectsTextThatIsNotANumber() {
        for bad in ["", "abc", "1.2.3", "1e", "--1", "1,5", " 1", "0x10", "1e+"] {
            #expect(throws: AtollError.self, "\(bad)") { try Decimal128(string: bad) }
        }
    }

    @Test func moreThan34DigitsRoundHalfToEven() throws {
        let d = try Decimal128(string: "1234567890123456789012345678901234.5")
        #expect(d == (try Decimal128(string: "1234567890123456789012345678901234")))
        let up = try Decimal128(string: "1234567890123456789012345678901235.5")
        #expect(up == (try Decimal128(string: "1234567890123456789012345678901236")))
        let sticky = try Decimal128(string: "1234567890123456789012345678901234.50001")
        #expect(sticky == (try Decimal128(string: "1234567890123456789012345678901235")))
        #expect(try Decimal128(string: "1E+7000") == .infinity)
        #expect(try Decimal128(string: "1E-7000").isZero)
    }

    @Test func equalValuesWithDifferentEncodingsCompareAndHashEqual() throws {
        let a = try Decimal128(string: "1.0"), b = try Decimal128(string: "1"), c = try Decimal128(string: "100E-2")
        #expect(a == b && b == c)
        #expect(Set([a, b, c]).count == 1)
        #expect(try Decimal128(string: "0") == Decimal128(string: "-0.000"))
    }

    @Test func orderIsTotalWithNaNFirst() throws {
        let sorted = try ["NaN", "-Infinity", "-1E+10", "-2.5", "-0", "1E-20", "0.1", "0.25", "1", "12", "1E+6111", "Infinity"]
            .map { try Decimal128(string: $0) }
        for i in sorted.indices.dropLast() { #expect(sorted[i] < sorted[i + 1], "\(sorted[i]) < \(sorted[i + 1])") }
        #expect(sorted.shuffled().sorted() == sorted)
        #expect(Decimal128.nan == Decimal128.nan)
        #expect(Decimal128.min < Decimal128.max)
    }

    @Test func orderedKeyOrdersAsCompareAndIsCanonical() throws {
        let values = try ["NaN", "-Infinity", "-1E+10", "-2.5", "-2.50", "-0", "0E+5", "1E-20", "0.1", "0.10", "1", "12", "Infinity"]
            .map { try Decimal128(string: $0) }
        for a in values {
            for b in values {
                let keys = (a.orderedKey, b.orderedKey)
                let byKey = keys.0 == keys.1 ? 0 : (keys.0.lexicographicallyPrecedes(keys.1) ? -1 : 1)
                #expect(byKey == a.compare(b), "\(a) vs \(b)")
            }
        }
    }

    /// realm-core's Decimal128(double): exact when short, otherwise 15 significant digits.
    @Test func doublesConvertAsRealmCoreConvertsThem() throws {
        #expect(Decimal128(3.14159) == (try Decimal128(string: "3.14159")))
        #expect(Decimal128(0.1) == (try Decimal128(string: "0.1")))
        #expect(Decimal128(0.1).stringValue == "1E-1")
        #expect(Decimal128(2.5) == (try Decimal128(string: "2.5")))
        #expect(Decimal128(123.0).stringValue == "123")
        #expect(Decimal128(1.0 / 3.0) == (try Decimal128(string: "0.333333333333333")))
        #expect(Decimal128(-1e300) == (try Decimal128(string: "-1E300")))
        #expect(Decimal128(Double.nan).isNaN)
        #expect(Decimal128(-Double.infinity) == (try Decimal128(string: "-Inf")))
        #expect(Decimal128(Double.leastNonzeroMagnitude) == (try Decimal128(string: "4.94065645841247E-324")))
        #expect(Decimal128(Int64.min) == (try Decimal128(string: "-9223372036854775808")))
        #expect(try Decimal128(string: "19.99").doubleValue == 19.99)
        #expect(try Decimal128(string: "-42.000").exactInt64 == -42)
        #expect(try Decimal128(string: "4.5").exactInt64 == nil)
    }

    @Test func additionAndAverageRoundTo34Digits() throws {
        #expect(try Decimal128(string: "1.234567") + Decimal128(string: "9.876543") == Decimal128(string: "11.11111"))
        #expect(try (Decimal128(string: "2.5") - Decimal128(string: "3.5")).stringValue == "-1")
        #expect(try Decimal128(string: "1E+40") + Decimal128(string: "1") == Decimal128(string: "1E+40"))
        #expect(try Decimal128(string: "1E+33") + Decimal128(string: "0.5") == Decimal128(string: "1000000000000000000000000000000000"))
        #expect(try Decimal128(string: "1E+33") + Decimal128(string: "1.5") == Decimal128(string: "1000000000000000000000000000000002"))
        #expect((Decimal128.infinity + Decimal128.infinity) == .infinity)
        #expect((Decimal128.infinity - Decimal128.infinity).isNaN)
        #expect(try Decimal128(string: "10").divided(by: 4) == Decimal128(string: "2.5"))
        #expect(try Decimal128(string: "1").divided(by: 3) == Decimal128(string: "0.3333333333333333333333333333333333"))
        #expect(try Decimal128(string: "2").divided(by: 3) == Decimal128(string: "0.6666666666666666666666666666666667"))
    }

    @Test func storageBytesAreLittleEndianLowWordFirst() throws {
        let d = try Decimal128(string: "1")
        #expect(d.littleEndianBytes == [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x30])
        #expect(Decimal128(littleEndianBytes: d.littleEndianBytes) == d)
        var w = ByteWriter()
        StorageValue.decimal128(d).encode(into: &w)
        let bytes = w.bytes
        let decoded = try bytes.withUnsafeBytes { raw -> StorageValue in
            var r = ByteReader(raw, context: "test")
            return try StorageValue.decode(from: &r)
        }
        #expect(decoded == .decimal128(d))
    }
}

/// Decimal128 columns in the storage engine: scalar, optional, list, index, aggregates,
/// reopen, encryption.
@Suite struct Decimal128ColumnTests {
    static let spec = TableSpec(name: "Price", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "amount", type: .decimal128, isIndexed: true),
        ColumnSpec(name: "discount", type: .decimal128, isNullable: true),
        ColumnSpec(name: "history", type: .decimal128, isList: true),
    ], primaryKey: "id")

    static func amount(_ i: Int) -> Decimal128 { (try? Decimal128(string: "\(i).\(i % 100)")) ?? .nan }

    func fill(_ db: Database, count: Int = 300) throws {
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(Self.spec))
        for i in 0..<count {
            let k = try t.create(primaryKey: .int(Int64(i)))
            try t.set(k, 1, .decimal128(Self.amount(i)))
            try t.set(k, 2, i % 3 == 0 ? .null : .decimal128(Decimal128(Int64(i))))
            try t.setList(k, 3, (0..<(i % 4)).map { .decimal128(Decimal128(Int64($0))) })
        }
        try w.commit()
    }

    func check(_ db: Database, count: Int = 300) throws {
        let r = try db.beginRead()
        defer { r.close() }
        let t = try #require(try r.table(named: "Price"))
        #expect(t.spec == Self.spec)
        for i in [0, 1, 2, 3, 150, count - 1] {
            let k = ObjectKey(primaryKey: Int64(i))
            #expect(try t.value(k, 1) == .decimal128(Self.amount(i)))
            #expect(try t.value(k, 2) == (i % 3 == 0 ? .null : .decimal128(Decimal128(Int64(i)))))
            #expect(try t.listValues(k, 3) == (0..<(i % 4)).map { .decimal128(Decimal128(Int64($0))) })
        }
        // The index key is canonical: 42.42 finds the row stored as "42.42", and so does 42.420.
        #expect(try t.findAll(indexed: 1, equalTo: .decimal128(Decimal128(string: "42.420"))) == [ObjectKey(primaryKey: 42)])
        #expect(try t.aggregate(1, .min) == .decimal128(Self.amount(0)))
        #expect(try t.aggregate(1, .max) == .decimal128(Self.amount(count - 1)))
        let sum = (0..<count).map(Self.amount).reduce(Decimal128.zero, +)
        #expect(try t.aggregate(1, .sum) == .decimal128(sum))
        #expect(try t.aggregate(1, .average) == .decimal128(sum.divided(by: count)))
        #expect(try t.aggregate(2, .count) == .int(Int64(count - (count + 2) / 3)))
    }

    @Test func valuesListsAndIndexSurviveReopen() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("prices.atoll")
        do {
            let db = try Database.open(DatabaseConfiguration(path: path))
            try fill(db)
            try check(db)
        }
        let db = try Database.open(DatabaseConfiguration(path: path))
        try check(db)
        #expect(try db.verify().tables.first?.objects == 300)
    }

    @Test func overwritingPatchesInPlaceAndKeepsTheIndex() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "decimal-\(UUID())"))
        try fill(db, count: 10)
        let w = try db.beginWrite()
        let t = try #require(try w.table(named: "Price"))
        try t.set(ObjectKey(primaryKey: 4), 1, .decimal128(try Decimal128(string: "-7.5")))
        try w.commit()
        let r = try db.beginRead()
        defer { r.close() }
        let rt = try #require(try r.table(named: "Price"))
        #expect(try rt.value(ObjectKey(primaryKey: 4), 1) == .decimal128(try Decimal128(string: "-7.50")))
        #expect(try rt.findAll(indexed: 1, equalTo: .decimal128(Self.amount(4))) == [])
        #expect(try rt.findAll(indexed: 1, equalTo: .decimal128(try Decimal128(string: "-7.5"))) == [ObjectKey(primaryKey: 4)])
    }

    @Test func anEncryptedFileStoresAndReadsDecimals() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("secret.atoll")
        let key = try EncryptionKey(bytes: [UInt8](repeating: 7, count: 64))
        do {
            let db = try Database.open(DatabaseConfiguration(path: path, encryptionKey: key))
            try fill(db)
        }
        let db = try Database.open(DatabaseConfiguration(path: path, encryptionKey: key))
        try check(db)
        // The plaintext of a decimal does not appear in the file.
        let raw = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(raw.range(of: Data(Self.amount(299).littleEndianBytes)) == nil)
    }
}
