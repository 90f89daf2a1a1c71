import Atoll
import AtollTestSupport
import Foundation
import Testing

// Embedded classes in the JSON schema notation (realm-js `"embedded": true`), in data files
// (embedded objects inline in their parent), canonical dumps, and migrations.

@Suite struct EmbeddedInterchangeTests {
    static let schemaJSON = """
    [{"name": "Shop", "primaryKey": "id", "properties": {"id": "int", "address": "Place", "branches": "Place[]"}},
     {"name": "Place", "embedded": true, "properties": {"street": "string", "geo": "Geo?"}},
     {"name": "Geo", "embedded": true, "properties": {"lat": "double"}}]
    """

    func openRealm(function: String = #function) throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "\(function)-\(UUID().uuidString)"),
                  dynamicSchema: try DynamicSchema(json: Self.schemaJSON))
    }

    func load(_ realm: Realm, _ json: String, update: Realm.UpdatePolicy = .error) throws {
        let document = try ImportDocument(jsonBytes: Array(json.utf8), sourceName: "data.json")
        _ = try realm.write { try realm.importObjects(document, update: update) }
    }

    @Test func theSchemaNotationReadsAndWritesEmbeddedClasses() throws {
        let schema = try DynamicSchema(json: Self.schemaJSON)
        #expect(schema[className: "Place"]?.isEmbedded == true)
        #expect(schema[className: "Shop"]?.isEmbedded == false)
        #expect(schema.json.contains(#""embedded": true"#))
        #expect(try DynamicSchema(json: schema.json) == schema, "the written schema reads back the same")
        #expect(throws: AtollError.self) {
            _ = try DynamicSchema(json: #"[{"name": "P", "embedded": true, "primaryKey": "id", "properties": {"id": "int"}}]"#)
        }
        #expect(throws: AtollError.self) { _ = try DynamicSchema(json: #"[{"name": "P", "embedded": "yes", "properties": {}}]"#) }
    }

    @Test func dataFilesCarryEmbeddedObjectsInlineAndDumpsWriteThemSo() throws {
        let realm = try openRealm()
        try load(realm, """
        {"Shop": [{"id": 1, "address": {"street": "Main", "geo": {"lat": 1.5}}, "branches": [{"street": "B"}, {"street": "A"}]},
                  {"id": 2, "address": null, "branches": []}]}
        """)
        let dump = try realm.dumpJSON(canonical: true)
        #expect(dump.contains(#"{"address":{"geo":{"lat":1.5},"street":"Main"},"branches":[{"geo":null,"street":"B"},{"geo":null,"street":"A"}],"id":1}"#))
        #expect(dump.contains(#""Place":[]"#), "no embedded object stands alone")
        #expect(realm.dynamicObjects("Place").count == 3)

        let copy = try openRealm(function: "copy")
        try load(copy, try realm.dumpJSON())
        #expect(try copy.dumpJSON(canonical: true) == dump)

        // An update replaces the embedded objects (the old ones go).
        try load(realm, #"{"Shop": [{"id": 1, "address": {"street": "New"}, "branches": []}]}"#, update: .modified)
        #expect(realm.dynamicObjects("Place").count == 1)
        #expect(realm.dynamicObjects("Geo").count == 0)
    }

    @Test func anEmbeddedClassCannotBeImportedOnItsOwn() throws {
        let realm = try openRealm()
        let error = #expect(throws: AtollError.self) { try load(realm, #"{"Place": [{"street": "x"}]}"#) }
        #expect(error?.message.contains("embedded class") == true)
        #expect(realm.dynamicObjects("Place").count == 0)
    }
}

// Migrations: adding and removing embedded properties, and changing a class to embedded and back.

final class MigShopV1: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var place: MigPlaceTop?
    @Persisted var places: List<MigPlaceTop>
    override class func className() -> String { "MigShop" }
}

final class MigPlaceTop: Object {
    @Persisted var street = ""
    override class func className() -> String { "MigPlace" }
}

final class MigShopV2: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var place: MigPlaceEmbedded?
    @Persisted var places: List<MigPlaceEmbedded>
    @Persisted var extra: MigExtra?
    override class func className() -> String { "MigShop" }
}

final class MigPlaceEmbedded: EmbeddedObject {
    @Persisted var street = ""
    override class func className() -> String { "MigPlace" }
}

final class MigExtra: EmbeddedObject {
    @Persisted var note = ""
}

final class MigShopV3: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var place: MigPlaceTopAgain?
    @Persisted var places: List<MigPlaceTopAgain>
    override class func className() -> String { "MigShop" }
}

final class MigPlaceTopAgain: Object {
    @Persisted var street = ""
    override class func className() -> String { "MigPlace" }
}

@Suite struct EmbeddedMigrationTests {
    @Test func aClassBecomesEmbeddedAndBackInMigrations() throws {
        let dir = TemporaryDirectory()
        let url = URL(fileURLWithPath: dir.path + "/shops.atoll")
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [MigShopV1.self]))
            try realm.write {
                realm.create(MigShopV1.self, value: ["id": 1, "place": ["street": "Main"], "places": [["street": "A"]]])
                realm.create(MigPlaceTop.self, value: ["street": "Orphan"])
            }
        }
        // Without a migration the change is refused, as a schema difference.
        #expect(throws: AtollError.self) {
            _ = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [MigShopV2.self]))
        }
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 2, objectTypes: [MigShopV2.self]))
            #expect(ObjectSchema.of(MigPlaceEmbedded.self).isEmbedded)
            #expect(realm.objects(MigPlaceEmbedded.self).count == 2, "the object nothing linked to was deleted")
            let shop = try #require(realm.object(ofType: MigShopV2.self, forPrimaryKey: 1))
            #expect(shop.place?.street == "Main")
            #expect(shop.places.map(\.street) == ["A"])
            #expect(shop.extra == nil)
            try realm.write { shop.extra = MigExtra(value: ["note": "n"]) }
            try realm.write { shop.place = nil }
            #expect(realm.objects(MigPlaceEmbedded.self).count == 1, "embedded now: unlinking deletes")
        }
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 3, objectTypes: [MigShopV3.self]))
            #expect(realm.objects(MigPlaceTopAgain.self).count == 1)
            #expect(realm.dynamicObjects("MigExtra").count == 0, "the removed embedded property took its objects")
            let shop = try #require(realm.object(ofType: MigShopV3.self, forPrimaryKey: 1))
            try realm.write { shop.places.removeAll() }
            #expect(realm.objects(MigPlaceTopAgain.self).count == 1, "top-level again: unlinking keeps the object")
        }
    }

    @Test func aClassWithSharedObjectsCannotBecomeEmbedded() throws {
        let dir = TemporaryDirectory()
        let url = URL(fileURLWithPath: dir.path + "/shared.atoll")
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [MigShopV1.self]))
            try realm.write {
                let place = realm.create(MigPlaceTop.self, value: ["street": "Shared"])
                realm.create(MigShopV1.self, value: ["id": 1, "place": place, "places": [place]])
            }
        }
        let error = #expect(throws: AtollError.self) {
            _ = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 2, objectTypes: [MigShopV2.self]))
        }
        #expect(error?.message.contains("exactly one owner") == true)
    }
}
