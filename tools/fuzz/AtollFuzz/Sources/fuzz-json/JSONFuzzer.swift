import Atoll
import AtollStorage
import Foundation
import FuzzSupport

// JSON interchange: the JSON parser and what reads its trees. Byte 0 chooses:
//     0: a data file, imported (ImportDocument, Realm.importObjects) into an in-memory realm with
//        a fixed schema of every property type and links, in a write that is then cancelled;
//        an import that succeeds is dumped as canonical JSON;
//     1: a schema file (DynamicSchema(jsonBytes:)); a valid one is applied in a cancelled write
//        and must read back from its own JSON;
//     2: a query argument (QueryArgumentJSON, as `atoll query --arg` reads it).
//
// Checked: outcomes are values or an AtollError of a kind these readers report for bad input.

private let importOutcome = Outcome(target: "fuzz-json", allowedKinds: [
    .invalidInput, .typeMismatch, .requiredValueMissing, .objectNotFound, .primaryKeyMissing, .primaryKeyExists, .limitExceeded,
])
private let schemaOutcome = Outcome(target: "fuzz-json", allowedKinds: [.invalidInput, .limitExceeded])
private let argumentOutcome = Outcome(target: "fuzz-json", allowedKinds: [.invalidInput, .limitExceeded])
private let strict = Outcome(target: "fuzz-json", allowedKinds: [])

private nonisolated(unsafe) let realm: Realm = {
    do {
        let schema = try DynamicSchema(json: JSONSeeds.schema)
        return try Realm(configuration: .init(inMemoryIdentifier: "fuzz-json"), dynamicSchema: schema)
    } catch {
        fatalError("fuzz-json: the fixed schema does not open: \(error)")
    }
}()

@main
enum JSONFuzzMain {
    static func main() {
        _ = realm
        FuzzDriver.run(seeds: JSONSeeds.all, fuzzJSON)
    }
}

func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard let mode = input.first else { return 0 }
    let text = Array(input.dropFirst())
    switch mode % 3 {
    case 0: importData(text)
    case 1: readSchema(text)
    default: argumentOutcome.check("argument", { try QueryArgumentJSON.argument(fromJSON: String(decoding: text, as: UTF8.self), sourceName: "$0") })
    }
    return 0
}

private func importData(_ bytes: [UInt8]) {
    guard let document = importOutcome.check("parse data", { try ImportDocument(jsonBytes: bytes, sourceName: "data.json") }) else { return }
    realm.beginWrite()
    defer { realm.cancelWrite() }
    let update: Realm.UpdatePolicy = bytes.count % 3 == 0 ? .error : (bytes.count % 3 == 1 ? .modified : .all)
    guard importOutcome.check("import", { try realm.importObjects(document, update: update) }) != nil else { return }
    strict.check("dump", { try realm.dumpJSON(canonical: true) })
}

private func readSchema(_ bytes: [UInt8]) {
    guard let schema = schemaOutcome.check("parse schema", { try DynamicSchema(jsonBytes: bytes, sourceName: "schema.json") }) else { return }
    let json = schema.json
    let again = strict.check("re-read schema", { try DynamicSchema(json: json) })
    schemaOutcome.require(again?.json == json, "a schema does not read back from its own JSON:\n\(json)")
}

enum JSONSeeds {
    static let schema = """
    [
      {"name": "Person", "primaryKey": "name", "properties": {
        "name": "string", "age": "int?", "best": "Person", "dogs": "Dog[]", "born": "date?", "photo": "data?",
        "score": "double", "ratio": "float?", "member": "bool", "card": "uuid?", "ref": "objectId?",
        "nicknames": "string[]", "lucky": "int?[]", "days": "date[]", "flags": "bool[]", "weights": "double?[]"
      }},
      {"name": "Dog", "primaryKey": "id", "properties": {
        "id": "int", "name": {"type": "string", "indexed": true}, "age": "int?", "owner": "Person", "collar": "Collar",
        "chip": {"type": "uuid", "optional": true, "indexed": true},
        "owners": {"type": "linkingObjects", "objectType": "Person", "property": "dogs"}
      }},
      {"name": "Collar", "properties": {"color": "string", "size": "int", "tags": "objectId[]", "blob": "data[]"}},
      {"name": "Tag", "primaryKey": "oid", "properties": {"oid": "objectId", "label": "string?", "links": "Collar[]"}}
    ]
    """

    static let data = """
    {
      "Dog": [
        {"id": 1, "name": "Rex", "age": 3, "owner": "ali", "collar": {"color": "red", "size": 2, "tags": ["65f1c0d2a1b2c3d4e5000001"], "blob": ["AAE="]}},
        {"id": 2, "name": "Fido", "age": 5, "owner": {"name": "bo", "score": 1.5, "member": false, "best": "ali", "dogs": [2]}},
        {"id": -9223372036854775808, "name": "Bolt", "age": null, "chip": "5e4f3a1c-8b6d-4c1f-9a3e-2b7c6d5e4f3a"}
      ],
      "Person": [
        {"name": "ali", "age": 41, "best": "ali", "dogs": [3, 1], "born": "1983-04-05T06:07:08.123456789Z",
         "photo": "AAEC/w==", "score": -0.0, "ratio": 0.1, "member": true, "lucky": [7, null],
         "card": "5e4f3a1c-8b6d-4c1f-9a3e-2b7c6d5e4f3a", "ref": "65f1c0d2a1b2c3d4e5000001", "nicknames": ["al", "a\\u00e9\\ud83d\\ude00"],
         "days": ["1969-12-31T23:59:59.5Z"], "flags": [true, false], "weights": ["NaN", "-Infinity", 1e308, null]}
      ],
      "Tag": [{"oid": "65f1c0d2a1b2c3d4e5000002", "label": null, "links": [{"color": "blue", "size": -1}]}]
    }
    """

    static func all() -> [(name: String, bytes: [UInt8])] {
        [
            (name: "data", bytes: [0] + Array(data.utf8)),
            (name: "data-update", bytes: [3] + Array("{\"Person\": [{\"name\": \"x\", \"score\": 1, \"member\": true}], \"Dog\": []}".utf8)),
            (name: "schema", bytes: [1] + Array(schema.utf8)),
            (name: "schema-forms", bytes: [1] + Array("""
            [{"name": "A", "properties": {"l": {"type": "list", "objectType": "A"}, "o": {"type": "object", "objectType": "A"},
              "f": {"type": "float", "optional": true}, "s": "string?[]"}}]
            """.utf8)),
            (name: "argument-date", bytes: [2] + Array("{\"$date\": \"2024-05-17T09:30:00.5Z\"}".utf8)),
            (name: "argument-list", bytes: [2] + Array("[1, 2.5, \"x\", null, true, {\"$data\": \"AAE=\"}, {\"$uuid\": \"5e4f3a1c-8b6d-4c1f-9a3e-2b7c6d5e4f3a\"}, {\"$oid\": \"65f1c0d2a1b2c3d4e5000001\"}]".utf8)),
        ]
    }
}
