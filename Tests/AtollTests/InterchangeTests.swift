import Atoll
import Foundation
import Testing

@Suite struct InterchangeTests {
    static let schemaJSON = """
    [{"name": "Person", "primaryKey": "name", "properties": {
        "name": "string", "best": "Person", "dogs": "Dog[]", "born": "date?", "score": "double", "ratio": "float?",
        "photo": "data?", "id": "uuid?", "ref": "objectId?", "tags": "string?[]"}},
     {"name": "Dog", "primaryKey": "id", "properties": {
        "id": "int", "name": "string", "owner": "Person", "collar": "Collar"}},
     {"name": "Collar", "properties": {"color": "string", "size": "int"}}]
    """

    func openRealm(function: String = #function) throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "\(function)-\(UUID().uuidString)"),
                  dynamicSchema: try DynamicSchema(json: Self.schemaJSON))
    }

    @discardableResult
    func load(_ realm: Realm, _ json: String, update: Realm.UpdatePolicy = .error) throws -> ImportSummary {
        let document = try ImportDocument(jsonBytes: Array(json.utf8), sourceName: "data.json")
        return try realm.write { try realm.importObjects(document, update: update) }
    }

    @Test func linksResolveAcrossClassesInAnyOrder() throws {
        let realm = try openRealm()
        let summary = try load(realm, """
        {"Dog": [{"id": 1, "name": "Rex", "owner": "ali", "collar": {"color": "red", "size": 3}},
                 {"id": 2, "name": "Fido", "owner": {"name": "bo", "score": 1, "best": "ali", "dogs": [2]}}],
         "Person": [{"name": "ali", "score": 2.5, "best": "ali", "dogs": [1, 2]}]}
        """)
        #expect(summary.created == 5)
        let ali = try #require(try realm.dynamicObject(throwingOfType: "Person", forPrimaryKey: "ali"))
        #expect((ali["best"] as? DynamicObject) == ali, "a self link")
        #expect((ali["dogs"] as? [Any?])?.count == 2)
        let fido = try #require(try realm.dynamicObject(throwingOfType: "Dog", forPrimaryKey: 2))
        let bo = try #require(fido["owner"] as? DynamicObject)
        #expect(bo["name"] as? String == "bo", "a nested object is created")
        #expect((bo["dogs"] as? [Any?])?.first as? DynamicObject == fido, "a link to the enclosing object")
        #expect(try realm.dynamicObjects(throwing: "Collar").count == 1)
    }

    @Test func valuesKeepFullPrecision() throws {
        let realm = try openRealm()
        try load(realm, """
        {"Person": [{"name": "a", "score": -0.0, "ratio": 0.1, "born": "1969-12-31T23:59:59.123456789Z",
                     "photo": "AAEC/w==", "id": "5E4F3A1C-8B6D-4C1F-9A3E-2B7C6D5E4F3A", "ref": "65f1c0d2a1b2c3d4e5000001", "tags": ["x", null]},
                    {"name": "b", "score": "NaN", "ratio": "-Infinity"},
                    {"name": "c", "score": 1.7976931348623157e308, "born": "+10000-01-01T00:00:00+01:00"}]}
        """)
        let dump = try realm.dumpJSON(canonical: true)
        #expect(dump.contains("\"born\":\"1969-12-31T23:59:59.123456789Z\""))
        #expect(dump.contains("\"score\":-0.0"))
        #expect(dump.contains("\"ratio\":0.1"))
        #expect(dump.contains("\"photo\":\"AAEC/w==\""))
        #expect(dump.contains("\"id\":\"5e4f3a1c-8b6d-4c1f-9a3e-2b7c6d5e4f3a\""))
        #expect(dump.contains("\"tags\":[\"x\",null]"))
        #expect(dump.contains("\"score\":\"NaN\""))
        #expect(dump.contains("\"ratio\":\"-Infinity\""))
        #expect(dump.contains("\"score\":1.7976931348623157e+308"))
        #expect(dump.contains("\"born\":\"9999-12-31T23:00:00Z\""))
    }

    @Test func canonicalDumpsOfEqualContentsAreIdentical() throws {
        let a = try openRealm()
        let b = try openRealm()
        try load(a, """
        {"Person": [{"name": "zed", "score": 1}, {"name": "ali", "score": 2, "best": "zed"}],
         "Dog": [{"id": 10, "name": "x", "collar": {"color": "red", "size": 1}}, {"id": -3, "name": "y", "collar": {"color": "blue", "size": 2}}]}
        """)
        try load(b, """
        {"Dog": [{"id": -3, "name": "y", "collar": {"size": 2, "color": "blue"}}], "Person": [{"name": "zed", "score": 1}]}
        """)
        try load(b, """
        {"Dog": [{"collar": {"color": "red", "size": 1}, "name": "x", "id": 10}], "Person": [{"best": "zed", "score": 2.0, "name": "ali"}]}
        """)
        let dumpA = try a.dumpJSON(canonical: true)
        #expect(dumpA == (try b.dumpJSON(canonical: true)))
        #expect(dumpA.hasPrefix("{\"Collar\":[],\"Dog\":[{\"collar\":{\"color\":\"blue\",\"size\":2},\"id\":-3,"),
                "objects without a primary key that are linked appear nested, not at the top level")
        // A dump imports into an empty database and dumps the same again.
        let c = try openRealm()
        try load(c, try a.dumpJSON())
        #expect(try c.dumpJSON(canonical: true) == dumpA)
    }

    @Test func updateModesFollowAddUpdate() throws {
        let realm = try openRealm()
        try load(realm, "{\"Person\": [{\"name\": \"ali\", \"score\": 1, \"ratio\": 2}]}")
        #expect(throws: AtollError.self) { try load(realm, "{\"Person\": [{\"name\": \"ali\", \"score\": 5}]}") }
        let summary = try load(realm, "{\"Person\": [{\"name\": \"ali\", \"score\": 5}, {\"name\": \"bo\", \"score\": 0}]}", update: .modified)
        #expect(summary.created == 1 && summary.updated == 1)
        let ali = try #require(try realm.dynamicObject(throwingOfType: "Person", forPrimaryKey: "ali"))
        #expect(ali["score"] as? Double == 5)
        #expect(ali["ratio"] as? Float == 2, "properties the file does not give keep their value")
        try load(realm, "{\"Person\": [{\"name\": \"ali\", \"score\": 6}]}", update: .all)
        #expect(ali["score"] as? Double == 6)
    }

    private func importError(_ json: String) throws -> String {
        let realm = try openRealm()
        try load(realm, "{\"Person\": [{\"name\": \"ali\", \"score\": 1}]}")
        let before = try realm.dumpJSON(canonical: true)
        do {
            try load(realm, json)
        } catch let e as AtollError {
            #expect(try realm.dumpJSON(canonical: true) == before, "a failed import changes nothing")
            return e.message
        }
        return "no error"
    }

    @Test func badDataIsReportedWithItsPosition() throws {
        #expect(try importError("{\"Person\": [{\"name\": \"bo\", \"score\": 1}, {\"name\": \"cy\", \"scroe\": 1}]}")
            == "data.json:1:56: 'Person' has no property 'scroe'; did you mean 'score'?")
        #expect(try importError("{\"Persons\": []}").hasPrefix("data.json:1:2: unknown class 'Persons'; did you mean 'Person'?"))
        #expect(try importError("{\"Person\": [{\"name\": \"bo\", \"score\": \"high\"}]}").hasPrefix("data.json:1:37: 'Person.score' is double: expected a number"))
        #expect(try importError("{\"Person\": [{\"name\": \"bo\", \"score\": 1, \"best\": \"nobody\"}]}")
            .hasPrefix("data.json:1:48: 'Person.best': no 'Person' object has primary key \"nobody\""))
        #expect(try importError("{\"Person\": [{\"name\": \"ali\", \"score\": 1}]}").hasPrefix("data.json:1:22: an object of class 'Person' with primary key \"ali\" already exists"))
        #expect(try importError("{\"Person\": [{\"name\": \"bo\"}]}").hasPrefix("data.json:1:13: this new 'Person' has no value for its required property 'score'"))
        #expect(try importError("{\"Person\": [{\"name\": \"bo\", \"score\": 1, \"born\": \"2024-01-01T00:00:00.1234567891Z\"}]}").contains("more than 9 fractional digits"))
        #expect(try importError("{\"Dog\": [{\"id\": 1.5, \"name\": \"x\"}]}").contains("expected an integer, found 1.5"))
        #expect(try importError("{\"Dog\": [{\"id\": 1, \"name\": \"x\", \"collar\": 3}]}").contains("'Collar', which has no primary key"))
    }

    @Test func iso8601RoundTripsEveryTimestamp() throws {
        let realm = try openRealm()
        let dates = ["0001-01-01T00:00:00Z", "1970-01-01T00:00:00.000000001Z", "1969-12-31T23:59:59.999999999Z",
                     "2000-02-29T12:34:56.5Z", "-0044-03-15T12:00:00Z", "+275760-09-13T00:00:00Z", "1900-03-01T00:00:00Z"]
        let people = dates.enumerated().map { "{\"name\": \"p\($0.offset)\", \"score\": 0, \"born\": \"\($0.element)\"}" }
        try load(realm, "{\"Person\": [\(people.joined(separator: ","))]}")
        let dump = try realm.dumpJSON(canonical: true)
        for d in dates { #expect(dump.contains("\"born\":\"\(d)\""), "\(d)") }
    }

    @Test func jsonReaderHandlesEscapesAndRejectsWhatIsNotJSON() throws {
        let realm = try openRealm()
        try load(realm, #"{"Person": [{"name": "\u00e9\ud83d\ude00\n\"x\"", "score": 1e2}]}"#)
        #expect(try realm.dynamicObject(throwingOfType: "Person", forPrimaryKey: "é😀\n\"x\"")?["score"] as? Double == 100)
        func parseError(_ bytes: [UInt8]) -> String {
            do {
                _ = try ImportDocument(jsonBytes: bytes, sourceName: "d.json")
                return "no error"
            } catch let e as AtollError {
                return e.message
            } catch {
                return "\(error)"
            }
        }
        #expect(parseError(Array("{\"a\": [\"ok\", \"".utf8) + [0xC3, 0x28] + Array("\"]}".utf8)) == "d.json:1:15: the file is not valid UTF-8")
        #expect(parseError(Array(String(repeating: "[", count: 600).utf8)).contains("nested more than \(InputLimits.jsonNestingDepthMax) levels"))
        #expect(parseError(Array("{\"a\": [01]}".utf8)) == "d.json:1:8: numbers cannot have leading zeros")
        #expect(parseError(Array("{\"a\": [NaN]}".utf8)).contains("NaN and Infinity are written as the strings"))
        #expect(parseError(Array("{\"a\": \"\\ud800\"}".utf8)).contains("unpaired surrogate"))
        #expect(parseError(Array("{\"a\": []} x".utf8)) == "d.json:1:11: unexpected 'x' after the JSON value")
    }
}
