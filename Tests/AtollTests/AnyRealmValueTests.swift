import Atoll
import Foundation
import Testing
import AtollTestSupport

final class Setting: Object {
    @Persisted(primaryKey: true) var key = ""
    @Persisted(indexed: true) var value: AnyRealmValue
    @Persisted var history: List<AnyRealmValue>
}

/// `AnyRealmValue` (a mixed property) through the object API, queries, the index, the
/// dynamic API and JSON.
@Suite struct AnyRealmValueTests {
    let realm: Realm
    static let uuid = UUID(uuidString: "5E4F3A1C-8B6D-4C1F-9A3E-2B7C6D5E4F3A")!
    static let oid = try! ObjectId(string: "65f1c0d2a1b2c3d4e5000001")
    static let date = Date(timeIntervalSince1970: 1_700_000_000)

    static let values: [(String, AnyRealmValue)] = [
        ("none", .none), ("int", .int(50)), ("bigint", .int(51)), ("bool", .bool(true)), ("float", .float(2.5)),
        ("double", .double(50.0)), ("string", .string("fifty")), ("data", .data(Data([1, 2, 3]))),
        ("date", .date(date)), ("oid", .objectId(oid)), ("decimal", .decimal128("50.5")), ("uuid", .uuid(uuid)),
    ]

    init() throws {
        realm = try Realm(configuration: freshConfiguration([Setting.self]))
        let realm = self.realm
        try realm.write {
            for (key, value) in Self.values {
                let s = Setting()
                s.key = key
                s.value = value
                s.history.append(objectsIn: [value, .int(1), .none])
                realm.add(s)
            }
        }
    }

    func keys(_ query: String, _ args: Any...) -> [String] {
        do { return try realm.objects(Setting.self).filter(throwing: query, args).map(\.key).sorted() } catch {
            Issue.record("\(query): \(error)")
            return []
        }
    }

    @Test func everyTagReadsBackWithItsType() throws {
        for (key, value) in Self.values {
            let s = try #require(realm.object(ofType: Setting.self, forPrimaryKey: key))
            #expect(s.value == value, "\(key)")
            #expect(Array(s.history) == [value, .int(1), .none], "\(key)")
        }
        let s = try #require(realm.object(ofType: Setting.self, forPrimaryKey: "int"))
        #expect(s.value.intValue == 50 && s.value.stringValue == nil)
        try realm.write { s.value = .string("now a string") }
        #expect(s.value == .string("now a string"))
    }

    @Test func queriesCompareAcrossNumericTypes() throws {
        #expect(keys("value == 50") == ["double", "int"])
        #expect(keys("value == 50.0") == ["double", "int"])
        #expect(keys("value > 50") == ["bigint", "decimal"])
        #expect(keys("value < 3") == ["float"])
        #expect(keys("value == 'fifty'") == ["string"])
        #expect(keys("value == nil") == ["none"])
        #expect(keys("value == $0", Self.uuid) == ["uuid"])
        #expect(keys("value == $0", Self.oid) == ["oid"])
        #expect(keys("value == true") == ["bool"])
        #expect(keys("value BEGINSWITH 'fi'") == ["string"])
        #expect(keys("value IN {51, 'fifty'}") == ["bigint", "string"])
        #expect(keys("ANY history == 50.5") == ["decimal"])
    }

    @Test func typeTestsAndTypeSafeQueries() throws {
        #expect(keys("value.@type == 'string'") == ["string"])
        #expect(keys("value.@type IN {'int', 'double'}") == ["bigint", "double", "int"])
        #expect(keys("value.@type == 'numeric'") == ["bigint", "decimal", "double", "float", "int"])
        #expect(keys("value.@type == 'null'") == ["none"])
        #expect(keys("ANY history.@type == 'uuid'") == ["uuid"])
        let settings = realm.objects(Setting.self)
        #expect(settings.where { $0.value == .int(50) }.map(\.key).sorted() == ["double", "int"])
        #expect(settings.where { $0.value > .double(50.1) }.map(\.key).sorted() == ["bigint", "decimal"])
        #expect(settings.where { $0.value == AnyRealmValue.none }.map(\.key) == ["none"])
        #expect(settings.where { $0.value != .string("fifty") && $0.value >= .int(50) }.map(\.key).sorted() == ["bigint", "decimal", "double", "int"])
        #expect(keys("value IN $0", [AnyRealmValue.int(51), .string("fifty"), .uuid(Self.uuid)]) == ["bigint", "string", "uuid"])
    }

    @Test func theIndexFindsEqualNumbersOfEveryType() throws {
        // value is indexed: equality goes through the index, which keys numbers canonically.
        #expect(keys("value == $0", Decimal128(50)) == ["double", "int"])
        try realm.write { realm.create(Setting.self, value: ["key": "float50", "value": AnyRealmValue.float(50)]) }
        #expect(keys("value == 50") == ["double", "float50", "int"])
    }

    @Test func theDynamicAPIAndJSONKeepTheType() throws {
        let object = try #require(try realm.dynamicObject(throwingOfType: "Setting", forPrimaryKey: "float"))
        #expect(object["value"] as? Float == 2.5)
        try realm.write { object["value"] = "text" }
        #expect(object["value"] as? String == "text")
        try realm.write { object["value"] = 2.5 }
        let dump = try realm.dumpJSON(canonical: true)
        #expect(dump.contains("{\"history\":[50,1,null],\"key\":\"int\",\"value\":50}"))
        #expect(dump.contains("\"key\":\"double\",\"value\":50.0}"))
        #expect(dump.contains("\"value\":{\"$numberDecimal\":\"50.5\"}"))
        #expect(dump.contains("\"value\":{\"$uuid\":\"5e4f3a1c-8b6d-4c1f-9a3e-2b7c6d5e4f3a\"}"))
        let copy = try Realm(configuration: freshConfiguration([Setting.self], function: "copy-\(UUID())"))
        let document = try ImportDocument(jsonBytes: Array(dump.utf8), sourceName: "dump.json")
        _ = try copy.write { try copy.importObjects(document, update: .error) }
        #expect(try copy.dumpJSON(canonical: true) == dump)
    }
}

final class NoteV0: Object {
    @Persisted(primaryKey: true) var id = 0
    override class func className() -> String { "MixedNote" }
}

final class NoteV1: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var payload: AnyRealmValue
    @Persisted var extras: List<AnyRealmValue>
    override class func className() -> String { "MixedNote" }
}

/// A migration that adds AnyRealmValue properties: existing objects read `.none` and an empty
/// list, and the migration block can give them values of any type.
@Suite(.serialized) struct AnyRealmValueMigrationTests {
    @Test func aMigrationAddsAnAnyRealmValuePropertyAndFillsIt() throws {
        let dir = TemporaryDirectory()
        let url = URL(fileURLWithPath: dir.file("notes.atoll"))
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [NoteV0.self]))
            try realm.write {
                for id in 1...3 { realm.create(NoteV0.self, value: ["id": id]) }
            }
        }
        let configuration = Realm.Configuration(fileURL: url, schemaVersion: 1, migrationBlock: { migration, old in
            if old < 1 {
                migration.enumerateObjects(ofType: "MixedNote") { _, new in
                    if new?["id"] as? Int == 2 { new?["payload"] = "two" }
                    if new?["id"] as? Int == 3 { new?["payload"] = 3.5 }
                }
            }
        }, objectTypes: [NoteV1.self])
        let realm = try Realm(configuration: configuration)
        let one = try #require(realm.object(ofType: NoteV1.self, forPrimaryKey: 1))
        #expect(one.payload == .none && one.extras.isEmpty)
        #expect(realm.object(ofType: NoteV1.self, forPrimaryKey: 2)?.payload == .string("two"))
        #expect(realm.object(ofType: NoteV1.self, forPrimaryKey: 3)?.payload == .double(3.5))
        #expect(realm.objects(NoteV1.self).filter("payload.@type == 'numeric'").map(\.id) == [3])
        #expect(realm.objects(NoteV1.self).filter("payload == nil").map(\.id) == [1])
    }
}
