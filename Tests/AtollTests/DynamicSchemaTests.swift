import Atoll
import Foundation
import Testing

@Suite struct DynamicSchemaTests {
    static let petsJSON = """
    [
      {"name": "Dog", "primaryKey": "id", "properties": {
        "id": "int",
        "name": {"type": "string", "indexed": true},
        "age": "int?",
        "weight": "double",
        "owner": "Person",
        "friends": "Dog[]",
        "tags": "string[]",
        "scores": {"type": "list", "objectType": "int", "optional": true},
        "born": "date",
        "chip": "uuid?",
        "ref": "objectId?",
        "photo": "data?",
        "good": "bool",
        "ratio": "float"
      }},
      {"name": "Person", "primaryKey": "name", "properties": {
        "name": "string",
        "dogs": {"type": "linkingObjects", "objectType": "Dog", "property": "owner"},
        "best": {"type": "object", "objectType": "Dog"}
      }}
    ]
    """

    @Test func parsesEveryTypeNotation() throws {
        let schema = try DynamicSchema(json: Self.petsJSON, sourceName: "pets.json")
        let dog = try #require(schema[className: "Dog"])
        #expect(dog.primaryKey == "id")
        #expect(dog.properties.map(\.name) == ["id", "name", "age", "weight", "owner", "friends", "tags", "scores", "born", "chip", "ref", "photo", "good", "ratio"],
                "properties keep their declaration order")
        #expect(dog[property: "name"]?.isIndexed == true)
        #expect(dog[property: "age"]?.isOptional == true)
        #expect(dog[property: "owner"]?.type == .object("Person"))
        #expect(dog[property: "owner"]?.isOptional == true, "a link is always optional")
        #expect(dog[property: "friends"]?.isList == true)
        #expect(dog[property: "scores"].map { $0.isList && $0.isOptional && $0.type == .int } == true)
        #expect(dog[property: "chip"]?.typeString == "uuid?")
        let person = try #require(schema[className: "Person"])
        #expect(person[property: "dogs"]?.type == .linkingObjects("Dog", property: "owner"))
        #expect(person[property: "best"]?.typeString == "Dog?")
    }

    @Test func printedSchemaReadsBackEqual() throws {
        let schema = try DynamicSchema(json: Self.petsJSON)
        let again = try DynamicSchema(json: schema.json)
        #expect(again == schema)
        #expect(schema.json.contains("\"scores\": \"int?[]\""))
        #expect(schema.json.contains("{\"type\": \"string\", \"indexed\": true}"))
    }

    private func error(_ json: String) -> String {
        do {
            _ = try DynamicSchema(json: json, sourceName: "s.json")
            return "no error"
        } catch let e as AtollError {
            return e.message
        } catch {
            return "\(error)"
        }
    }

    @Test func errorsNameTheFileAndPosition() {
        #expect(error("[{\"name\": \"Dog\", \"properties\": {\"owner\": \"Persn\"}}, {\"name\": \"Person\", \"properties\": {}}]")
                .hasPrefix("s.json:1:42: class 'Dog', property 'owner': 'Persn' is neither a type"))
        #expect(error("[{\"name\": \"Dog\", \"properties\": {\"owner\": \"Persn\"}}, {\"name\": \"Person\", \"properties\": {}}]").contains("did you mean 'Person'?"))
        #expect(error("[\n  {\"name\": \"Dog\",\n   \"properties\": {\"a\": \"int\",}}]").hasPrefix("s.json:3:30: unexpected '}'"))
        #expect(error("{\"name\": \"Dog\"}").hasPrefix("s.json:1:1: a schema is a JSON array of classes"))
        #expect(error("").hasPrefix("s.json:1:1: the file is empty"))
        #expect(error("[{\"name\": \"Dog\", \"properties\": {\"a\": \"int\", \"a\": \"string\"}}]").contains("duplicate key \"a\""))
    }

    @Test func rejectsWhatAtollDoesNotSupport() {
        // mixed (AnyRealmValue) is supported (AnyRealmValueTests); a mixed primary key is not, as in Realm.
        #expect(error("[{\"name\": \"A\", \"properties\": {\"m\": \"mixed\", \"l\": \"mixed[]\", \"s\": \"mixed<>\", \"d\": \"mixed{}\"}}]") == "no error")
        #expect(error("[{\"name\": \"A\", \"primaryKey\": \"m\", \"properties\": {\"m\": \"mixed\"}}]").contains("cannot be the primary key"))
        // Sets and maps are supported (SetAndMapInterchangeTests); what they cannot be is refused.
        #expect(error("[{\"name\": \"A\", \"properties\": {\"s\": \"A?<>\"}}]").contains("a set of objects cannot hold nil"))
        // Sets and maps can be indexed (CollectionIndexObjectTests); lists cannot.
        #expect(error("[{\"name\": \"A\", \"properties\": {\"d\": {\"type\": \"int{}\", \"indexed\": true}}}]") == "no error")
        #expect(error("[{\"name\": \"A\", \"properties\": {\"l\": {\"type\": \"int[]\", \"indexed\": true}}}]").contains("cannot be indexed"))
        // Embedded classes are supported (EmbeddedInterchangeTests); asymmetric ones are not.
        #expect(error("[{\"name\": \"A\", \"embedded\": true, \"properties\": {}}]") == "no error")
        #expect(error("[{\"name\": \"A\", \"asymmetric\": true, \"properties\": {}}]").contains("asymmetric classes are not supported"))
        #expect(error("[{\"name\": \"A\", \"properties\": {\"x\": {\"type\": \"int\", \"default\": 3}}}]").contains("default values are not supported"))
    }

    @Test func checksPrimaryKeysIndexesAndLinkingObjects() {
        #expect(error("[{\"name\": \"A\", \"primaryKey\": \"x\", \"properties\": {\"x\": \"double\"}}]").contains("cannot be the primary key"))
        #expect(error("[{\"name\": \"A\", \"primaryKey\": \"nme\", \"properties\": {\"name\": \"string\"}}]").contains("did you mean 'name'?"))
        #expect(error("[{\"name\": \"A\", \"properties\": {\"x\": {\"type\": \"double\", \"indexed\": true}}}]").contains("cannot be indexed"))
        #expect(error("[{\"name\": \"A\", \"properties\": {\"b\": {\"type\": \"linkingObjects\", \"objectType\": \"A\", \"property\": \"x\"}, \"x\": \"int\"}}]")
                .contains("is not a link to 'A'"))
        #expect(error("[{\"name\": \"A\", \"properties\": {\"l\": \"A?[]\"}}]").contains("a list of objects cannot hold nil"))
        #expect(error("[{\"name\": \"__atoll_meta\", \"properties\": {}}]").contains("reserved"))
        #expect(error("[{\"name\": \"A\", \"properties\": {}}, {\"name\": \"A\", \"properties\": {}}]").contains("declared twice"))
    }
}
