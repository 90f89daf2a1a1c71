import Atoll
import Foundation
import Testing

// Sets and maps in the JSON schema notation (realm-js: `T<>`, `T{}`), in data files (arrays and
// objects), in canonical dumps (set order, sorted keys) and through the dynamic API.

@Suite struct SetAndMapInterchangeTests {
    static let schemaJSON = """
    [{"name": "Team", "primaryKey": "name", "properties": {
        "name": "string", "tags": "string<>", "scores": "int?{}", "members": "Member<>", "roles": "Member{}",
        "ids": {"type": "set", "objectType": "uuid"}, "notes": {"type": "dictionary", "objectType": "string"}}},
     {"name": "Member", "primaryKey": "id", "properties": {"id": "int"}}]
    """

    func openRealm(function: String = #function) throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "\(function)-\(UUID().uuidString)"),
                  dynamicSchema: try DynamicSchema(json: Self.schemaJSON))
    }

    func load(_ realm: Realm, _ json: String) throws {
        let document = try ImportDocument(jsonBytes: Array(json.utf8), sourceName: "data.json")
        _ = try realm.write { try realm.importObjects(document, update: .error) }
    }

    @Test func theSchemaNotationReadsAndWritesSetsAndMaps() throws {
        let schema = try DynamicSchema(json: Self.schemaJSON)
        let team = try #require(schema[className: "Team"])
        #expect(team[property: "tags"]?.isSet == true)
        #expect(team[property: "tags"]?.typeString == "string<>")
        #expect(team[property: "scores"]?.isMap == true)
        #expect(team[property: "scores"]?.typeString == "int?{}")
        #expect(team[property: "members"]?.typeString == "Member<>")
        #expect(team[property: "roles"]?.typeString == "Member{}")
        #expect(team[property: "ids"]?.typeString == "uuid<>")
        #expect(team[property: "notes"]?.typeString == "string{}")
        #expect(try DynamicSchema(json: schema.json) == schema, "the written schema reads back the same")
        #expect(throws: AtollError.self) { _ = try DynamicSchema(json: #"[{"name": "A", "properties": {"s": "A?<>"}}]"#) }
    }

    @Test func dataFilesCarrySetsAsArraysAndMapsAsObjectsAndDumpsAreCanonical() throws {
        let realm = try openRealm()
        try load(realm, """
        {"Member": [{"id": 2}, {"id": 1}],
         "Team": [{"name": "t", "tags": ["b", "a", "b"], "scores": {"z": 1, "a": null}, "members": [2, 1, 2],
                   "roles": {"lead": 1, "spare": null}, "ids": [], "notes": {"k": "v"}}]}
        """)
        let dump = try realm.dumpJSON(canonical: true)
        #expect(dump.contains(#""members":[1,2]"#), "a set of links in set order (by object key), as primary keys")
        #expect(dump.contains(#""notes":{"k":"v"}"#))
        #expect(dump.contains(#""roles":{"lead":1,"spare":null}"#))
        #expect(dump.contains(#""scores":{"a":null,"z":1}"#), "map keys sorted")
        #expect(dump.contains(#""tags":["a","b"]"#), "duplicates collapse, set order")

        // A dump imports into an empty realm and dumps the same again.
        let copy = try openRealm(function: "copy")
        try load(copy, try realm.dumpJSON())
        #expect(try copy.dumpJSON(canonical: true) == dump)

        // The dynamic API reads a set as an array and a map as a dictionary.
        let t = try #require(realm.dynamicObjects("Team").first)
        #expect((t["tags"] as? [Any?])?.compactMap { $0 as? String } == ["a", "b"])
        let scores = try #require(t["scores"] as? [String: Any?])
        #expect(scores.count == 2)
        #expect(scores["z"].flatMap { $0 } as? Int == 1)
    }

    @Test func badMapKeysAndWrongShapesAreReported() throws {
        let realm = try openRealm()
        #expect(throws: AtollError.self) { try load(realm, #"{"Team": [{"name": "t", "scores": {"a.b": 1}}]}"#) }
        #expect(throws: AtollError.self) { try load(realm, #"{"Team": [{"name": "t", "scores": {"$a": 1}}]}"#) }
        #expect(throws: AtollError.self) { try load(realm, #"{"Team": [{"name": "t", "scores": [1]}]}"#) }
        #expect(throws: AtollError.self) { try load(realm, #"{"Team": [{"name": "t", "tags": {"a": "b"}}]}"#) }
        #expect(try realm.dumpJSON(canonical: true).contains(#""Team":[]"#), "a failed import changes nothing")
    }
}
