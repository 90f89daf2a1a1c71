import Atoll
import Foundation
import Testing
import AtollTestSupport

final class Invoice: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var total: Decimal128 = 0
    @Persisted var discount: Decimal128?
    @Persisted var quantity = 0
    @Persisted var rate = 0.0
    @Persisted var lines: List<Decimal128>
    @Persisted var credits: List<Decimal128?>
}

/// `Decimal128` through the object API, queries, the dynamic API, JSON and migrations.
@Suite struct Decimal128PropertyTests {
    let realm: Realm

    init() throws {
        realm = try Realm(configuration: freshConfiguration([Invoice.self]))
        let realm = self.realm
        try realm.write {
            for (id, total, discount, quantity, rate, lines) in [
                (1, "19.99", "1.5", 2, 19.99, ["9.99", "10.00"]),
                (2, "100", nil, 100, 1.0, []),
                (3, "0.1", "0.10", 0, 0.1, ["0.1"]),
                (4, "-5.25", nil, -5, -5.25, ["-5.25", "0"]),
                (5, "12345678901234567890.123456789", "0", 7, 1e19, ["1E+3"]),
            ] as [(Int, String, String?, Int, Double, [String])] {
                let invoice = Invoice()
                invoice.id = id
                invoice.total = try Decimal128(string: total)
                invoice.discount = try discount.map { try Decimal128(string: $0) }
                invoice.quantity = quantity
                invoice.rate = rate
                invoice.lines.append(objectsIn: try lines.map { try Decimal128(string: $0) })
                invoice.credits.append(objectsIn: [nil, Decimal128(id)])
                realm.add(invoice)
            }
        }
    }

    func ids(_ query: String, _ args: Any...) -> [Int] {
        do { return try realm.objects(Invoice.self).filter(throwing: query, args).map(\.id).sorted() } catch {
            Issue.record("\(query): \(error)")
            return []
        }
    }

    @Test func propertiesReadBackExactly() throws {
        let one = try #require(realm.object(ofType: Invoice.self, forPrimaryKey: 1))
        #expect(one.total == "19.99")
        #expect(one.total.stringValue == "19.99")
        #expect(one.discount == "1.5")
        #expect(Array(one.lines) == ["9.99", "10"])
        #expect(Array(one.credits) == [nil, 1])
        let five = try #require(realm.object(ofType: Invoice.self, forPrimaryKey: 5))
        #expect(five.total.stringValue == "12345678901234567890.123456789")
        #expect(realm.object(ofType: Invoice.self, forPrimaryKey: 2)?.discount == nil)
        try realm.write { one.discount = nil; one.total = Decimal128(Int64(-1)) }
        #expect(one.discount == nil && one.total == -1)
    }

    @Test func queriesCompareWithDecimalIntegerDoubleAndStringOperands() throws {
        #expect(ids("total == 19.99") == [1])
        #expect(ids("total == '19.990'") == [1])
        #expect(ids("total == 100") == [2])
        #expect(ids("total == 0.1") == [3])
        #expect(ids("total > 0") == [1, 2, 3, 5])
        #expect(ids("total < $0", Decimal128(0)) == [4])
        #expect(ids("total >= $0", 100) == [2, 5])
        #expect(ids("total BETWEEN {0, 20}") == [1, 3])
        #expect(ids("total IN {100, -5.25}") == [2, 4])
        #expect(ids("discount == nil") == [2, 4])
        #expect(ids("discount == 0.1") == [3])
        #expect(ids("total > '12345678901234567890.12345678'") == [5])
        #expect(ids("total > '12345678901234567890.1234567891'") == [])
    }

    @Test func typeSafeQueriesTakeDecimals() throws {
        let cheap = realm.objects(Invoice.self).where { $0.total < Decimal128(20) && $0.total > 0 }
        #expect(cheap.map(\.id).sorted() == [1, 3])
        #expect(realm.objects(Invoice.self).where { $0.lines.sum == "19.99" }.map(\.id) == [1])
    }

    @Test func queriesCompareDecimalsWithOtherNumericProperties() throws {
        #expect(ids("total == quantity") == [2])
        #expect(ids("total == rate") == [1, 3, 4])
        #expect(ids("total > quantity") == [1, 3, 5])
        #expect(ids("quantity < total") == [1, 3, 5])
    }

    @Test func listsQueryWithAnyAllAndAggregates() throws {
        #expect(ids("ANY lines == 10") == [1])
        #expect(ids("ALL lines > 0") == [1, 2, 3, 5])
        #expect(ids("lines.@sum == 19.99") == [1])
        #expect(ids("lines.@avg == -2.625") == [4])
        #expect(ids("lines.@min == -5.25") == [4])
        #expect(ids("lines.@max >= 1000") == [5])
        #expect(ids("lines.@count == 0") == [2])
    }

    @Test func sortingAndResultAggregatesUseExactOrder() throws {
        let sorted = realm.objects(Invoice.self).sorted(byKeyPath: "total").map(\.id)
        #expect(Array(sorted) == [4, 3, 1, 2, 5])
        let descending = realm.objects(Invoice.self).sorted(byKeyPath: "total", ascending: false).map(\.id)
        #expect(Array(descending) == [5, 2, 1, 3, 4])
        let all = realm.objects(Invoice.self)
        #expect(all.min(ofProperty: "total") as Decimal128? == "-5.25")
        #expect(all.max(ofProperty: "total") as Decimal128? == "12345678901234567890.123456789")
        let sum: Decimal128 = all.sum(ofProperty: "total")
        #expect(sum == (try Decimal128(string: "12345678901234568004.963456789")))
        let filteredSum: Decimal128 = all.filter("id < 3").sum(ofProperty: "total")
        #expect(filteredSum == "119.99")
        let average: Double? = all.filter("id < 3").average(ofProperty: "total")
        #expect(abs((average ?? 0) - 59.995) < 1e-9)
        #expect(all.filter("id < 3").max(ofProperty: "discount") as Decimal128? == "1.5")
    }

    @Test func theDynamicAPIReadsAndWritesDecimals() throws {
        let object = try #require(try realm.dynamicObject(throwingOfType: "Invoice", forPrimaryKey: 1))
        #expect(object["total"] as? Decimal128 == "19.99")
        try realm.write {
            object["total"] = "42.5"
            object["discount"] = 3
        }
        #expect(object["total"] as? Decimal128 == "42.50")
        #expect(object["discount"] as? Decimal128 == 3)
        #expect(throws: AtollError.self) { try realm.write { object["total"] = true } }
        #expect(throws: AtollError.self) { try realm.write { object["total"] = "twelve" } }
        let property = try #require(realm.schema["Invoice"]?["total"])
        #expect(property.type == .decimal128)
        #expect(property.isIndexed)
    }

    @Test func codableUsesTheStringForm() throws {
        let value: Decimal128 = "19.990"
        let data = try JSONEncoder().encode([value])
        #expect(String(decoding: data, as: UTF8.self) == "[\"19.99\"]")
        #expect(try JSONDecoder().decode([Decimal128].self, from: Data("[\"1.5\", 2, 2.5]".utf8)) == ["1.5", 2, 2.5])
    }
}

/// Decimal128 in JSON import/export and the realm-js schema notation.
@Suite struct Decimal128InterchangeTests {
    static let schemaJSON = """
    [{"name": "Price", "primaryKey": "sku", "properties": {
        "sku": "string", "amount": {"type": "decimal128", "indexed": true}, "old": "decimal128?", "history": "decimal128[]"}}]
    """

    func openRealm(function: String = #function) throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "\(function)-\(UUID().uuidString)"),
                  dynamicSchema: try DynamicSchema(json: Self.schemaJSON))
    }

    func load(_ realm: Realm, _ json: String) throws {
        let document = try ImportDocument(jsonBytes: Array(json.utf8), sourceName: "data.json")
        _ = try realm.write { try realm.importObjects(document, update: .error) }
    }

    @Test func importAndCanonicalDumpKeepEveryDigit() throws {
        let realm = try openRealm()
        try load(realm, """
        {"Price": [{"sku": "a", "amount": "1.50", "old": null, "history": ["1", "2.5E-7", "NaN", "-Infinity"]},
                   {"sku": "b", "amount": 1234567890.12345678901234567890, "old": "0.5"}]}
        """)
        let dump = try realm.dumpJSON(canonical: true)
        #expect(dump.contains("\"amount\":\"1.50\""))
        #expect(dump.contains("\"history\":[\"1\",\"2.5E-7\",\"NaN\",\"-Infinity\"]"))
        #expect(dump.contains("\"amount\":\"1234567890.12345678901234567890\""))
        #expect(dump.contains("\"old\":\"0.5\""))
        // A dump imports into an empty database and dumps the same again.
        let copy = try openRealm()
        try load(copy, dump)
        #expect(try copy.dumpJSON(canonical: true) == dump)
        let schema = try DynamicSchema(json: Self.schemaJSON)
        #expect(schema[className: "Price"]?[property: "history"]?.typeString == "decimal128[]")
    }

    @Test func badDecimalsAreReportedWithTheirPosition() throws {
        let realm = try openRealm()
        do {
            try load(realm, "{\"Price\": [{\"sku\": \"a\", \"amount\": \"12,5\"}]}")
            Issue.record("accepted 12,5")
        } catch let error as AtollError {
            #expect(error.message.contains("is not a Decimal128"))
            #expect(error.message.contains("data.json:1:"))
        }
        do {
            try load(realm, "{\"Price\": [{\"sku\": \"a\", \"amount\": true}]}")
            Issue.record("accepted true")
        } catch let error as AtollError {
            #expect(error.message.contains("expected a decimal number"))
        }
    }

    @Test func queryArgumentsInJSONTakeNumberDecimal() throws {
        let realm = try openRealm()
        try load(realm, "{\"Price\": [{\"sku\": \"a\", \"amount\": \"19.99\"}, {\"sku\": \"b\", \"amount\": \"5\"}]}")
        let argument = try QueryArgumentJSON.argument(fromJSON: "{\"$numberDecimal\": \"19.990\"}", sourceName: "argument $0")
        #expect(try realm.dynamicObjects(throwing: "Price").filter("amount == $0", arguments: [argument]).count == 1)
    }
}

final class LedgerV0: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var note = ""
    override class func className() -> String { "Ledger" }
}

final class LedgerV1: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var note = ""
    @Persisted var balance: Decimal128
    @Persisted var limit: Decimal128?
    override class func className() -> String { "Ledger" }
}

@Suite(.serialized) struct Decimal128MigrationTests {
    @Test func aMigrationAddsDecimalPropertiesAndFillsThem() throws {
        let dir = TemporaryDirectory()
        let url = URL(fileURLWithPath: dir.file("ledger.atoll"))
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [LedgerV0.self]))
            try realm.write {
                realm.create(LedgerV0.self, value: ["id": 1, "note": "a"])
                realm.create(LedgerV0.self, value: ["id": 2, "note": "b"])
            }
        }
        let configuration = Realm.Configuration(fileURL: url, schemaVersion: 1, migrationBlock: { migration, old in
            if old < 1 {
                migration.enumerateObjects(ofType: "Ledger") { _, new in
                    if new?["id"] as? Int == 2 { new?["balance"] = "2.50" as Decimal128 }
                }
            }
        }, objectTypes: [LedgerV1.self])
        let realm = try Realm(configuration: configuration)
        let one = try #require(realm.object(ofType: LedgerV1.self, forPrimaryKey: 1))
        #expect(one.balance == 0 && one.balance.stringValue == "0", "an added required decimal reads as 0")
        #expect(one.limit == nil)
        #expect(realm.object(ofType: LedgerV1.self, forPrimaryKey: 2)?.balance == "2.5")
        #expect(realm.objects(LedgerV1.self).filter("balance > 1").count == 1)
    }
}
