import Atoll
import Foundation
import Testing
import AtollTestSupport

@Suite struct DynamicRealmTests {
    static let schemaJSON = """
    [{"name": "Dog", "primaryKey": "id", "properties": {
        "id": "int", "name": {"type": "string", "indexed": true}, "age": "int?", "owner": "Person", "tags": "string[]"}},
     {"name": "Person", "primaryKey": "name", "properties": {
        "name": "string", "dogs": {"type": "linkingObjects", "objectType": "Dog", "property": "owner"}}},
     {"name": "Note", "properties": {"text": "string"}}]
    """

    var schema: DynamicSchema { get throws { try DynamicSchema(json: Self.schemaJSON) } }

    func openRealm(function: String = #function) throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "\(function)-\(UUID().uuidString)"), dynamicSchema: try schema)
    }

    @Test func createQueryUpdateDeleteByName() throws {
        let realm = try openRealm()
        #expect(realm.dynamicSchema == DynamicSchema(classes: try schema.classes.sorted { $0.name < $1.name }))
        try realm.write {
            try realm.dynamicCreate("Dog", value: ["id": 1, "name": "Rex", "age": 3, "owner": ["name": "Ali"], "tags": ["a", "b"]])
            try realm.dynamicCreate("Dog", value: ["id": 2, "name": "Fido", "owner": "Ali"])
            try realm.dynamicCreate("Dog", value: ["id": 3, "name": "Bolt", "age": 1])
        }
        let dogs = try realm.dynamicObjects(throwing: "Dog")
        #expect(dogs.count == 3)
        let rex = try #require(try realm.dynamicObject(throwingOfType: "Dog", forPrimaryKey: 1))
        #expect(rex["name"] as? String == "Rex")
        #expect(rex["tags"] as? [String?] == ["a", "b"])
        #expect((rex["owner"] as? DynamicObject)?["name"] as? String == "Ali")
        #expect(rex["age"] as? Int == 3)
        #expect((try realm.dynamicObject(throwingOfType: "Dog", forPrimaryKey: 2))?["age"] == nil)

        let young = try dogs.filter(throwing: "age < $0", 2)
        #expect(young.map { $0["name"] as? String } == ["Bolt"])
        let sorted = try dogs.sorted(throwingByKeyPath: "name")
        #expect(sorted.map { $0["name"] as? String } == ["Bolt", "Fido", "Rex"])
        #expect(try dogs.filter(throwing: "owner == $0", "Ali").count == 2, "a link compared with the target's primary key")
        #expect(try dogs.filter(throwing: "owner == $0", "Nobody").count == 0)
        #expect(try dogs.filter(throwing: "owner IN $0", ["Ali", "Nobody"]).count == 2)
        #expect(try realm.dynamicObjects(throwing: "Person").filter(throwing: "dogs.@count == 2").count == 1, "linking objects from the schema")

        try realm.write { try rex.setValue(4, forProperty: "age") }
        #expect(rex["age"] as? Int == 4)
        try realm.write { try realm.delete(try dogs.filter(throwing: "name == 'Fido'")) }
        #expect(dogs.count == 2, "results are live")
        try realm.write { try realm.dynamicCreate("Dog", value: ["id": 1, "name": "Rex II"], update: .modified) }
        #expect(rex["name"] as? String == "Rex II")
        #expect(rex["age"] as? Int == 4, "an update keeps the properties it is not given")
    }

    @Test func invalidOperationsThrowAndPoisonTheWrite() throws {
        let realm = try openRealm()
        #expect(throws: AtollError.self) { try realm.dynamicObjects(throwing: "Dgo") }
        do {
            _ = try realm.dynamicObjects(throwing: "Dgo")
        } catch let e as AtollError {
            #expect(e.message.contains("did you mean 'Dog'?"))
        }
        #expect(throws: AtollError.self) { try realm.dynamicObjects(throwing: "Dog").filter(throwing: "nme == 'x'") }
        #expect(throws: AtollError.self) { try realm.dynamicObjects(throwing: "Dog").sorted(throwingByKeyPath: "nme") }
        #expect(throws: AtollError.self, "changes need a write transaction") { try realm.dynamicCreate("Dog", value: ["id": 1, "name": "x"]) }
        #expect(throws: AtollError.self) {
            try realm.write {
                try realm.dynamicCreate("Dog", value: ["id": 1, "name": "Rex"])
                _ = try? realm.dynamicCreate("Dog", value: ["id": 2, "name": 5])
            }
        }
        #expect(try realm.dynamicObjects(throwing: "Dog").count == 0, "a failed operation makes the whole write fail")
        #expect(throws: AtollError.self, "a new object needs its required properties") {
            try realm.write { try realm.dynamicCreate("Dog", value: ["id": 1]) }
        }
        #expect(throws: AtollError.self, "a link to a primary key that does not exist") {
            try realm.write { try realm.dynamicCreate("Dog", value: ["id": 1, "name": "Rex", "owner": "Nobody"]) }
        }
    }

    @Test func existingClassesMustMatchTheSchema() throws {
        let id = "mismatch-\(UUID().uuidString)"
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: id), dynamicSchema: try schema)
        let changed = try DynamicSchema(json: """
        [{"name": "Note", "properties": {"text": "int"}}, {"name": "Tag", "properties": {"label": "string"}}]
        """)
        do {
            _ = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: id), dynamicSchema: changed)
            Issue.record("a mismatching schema was accepted")
        } catch let e as AtollError {
            #expect(e.kind == .schemaMismatch)
            #expect(e.message.contains("'Note.text' is int in the schema but string in the file"))
        }
        let added = try DynamicSchema(json: "[{\"name\": \"Tag\", \"properties\": {\"label\": \"string\"}}]")
        _ = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: id), dynamicSchema: added)
        #expect(realm.dynamicSchema.classes.map(\.name) == ["Dog", "Note", "Person"])
        realm.refresh()
        #expect(realm.dynamicSchema.classes.map(\.name) == ["Dog", "Note", "Person", "Tag"], "new classes are added")
    }

    @Test func dynamicResultsDeliverChangeSets() throws {
        let realm = try openRealm()
        let dogs = try realm.dynamicObjects(throwing: "Dog").filter(throwing: "age > 1")
        var changes: [String] = []
        let token = dogs.observe { change in
            switch change {
            case .initial(let r): changes.append("initial \(r.count)")
            case .update(_, let d, let i, let m): changes.append("update d\(d) i\(i) m\(m)")
            case .error(let e): changes.append("error \(e)")
            }
        }
        try realm.write {
            try realm.dynamicCreate("Dog", value: ["id": 1, "name": "Rex", "age": 3])
            try realm.dynamicCreate("Dog", value: ["id": 2, "name": "Pup", "age": 0])
        }
        try realm.write { try realm.dynamicObject(throwingOfType: "Dog", forPrimaryKey: 1)?.setValue(5, forProperty: "age") }
        token.invalidate()
        #expect(changes == ["initial 0", "update d[] i[0] m[]", "update d[] i[] m[0]"])
    }

    @Test func objectsWithoutPrimaryKeysAreAlwaysCreated() throws {
        let realm = try openRealm()
        try realm.write {
            try realm.dynamicCreate("Note", value: ["text": "a"], update: .modified)
            try realm.dynamicCreate("Note", value: ["text": "a"], update: .all)
        }
        #expect(try realm.dynamicObjects(throwing: "Note").count == 2)
    }

    @Test func modelFilesOpenDynamically() throws {
        let dir = TemporaryDirectory()
        let url = URL(fileURLWithPath: dir.file("models.atoll"))
        do {
            let typed = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Dog.self, Person.self]))
            try typed.write { typed.create(Dog.self, value: ["id": 7, "name": "Rex", "age": 2, "owner": ["name": "Ali"]]) }
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, readOnly: true), dynamicSchema: nil)
        let dog = try #require(try realm.dynamicObjects(throwing: "Dog").first)
        #expect(dog["name"] as? String == "Rex")
        #expect(try dog.json() == "{\"id\": 7, \"name\": \"Rex\", \"age\": 2, \"owner\": \"Ali\", \"tags\": []}")
        #expect(realm.dynamicSchema[className: "Person"]?[property: "dogs"]?.type == .object("Dog"))
    }
}
