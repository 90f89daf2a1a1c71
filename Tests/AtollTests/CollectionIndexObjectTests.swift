import Atoll
import Foundation
import Testing
import AtollTestSupport

final class TaggedItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var tags: MutableSet<String>
    @Persisted(indexed: true) var attributes: Map<String, Int>
}

final class ListIndexedItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var names: List<String>
}

/// `@Persisted(indexed: true)` on a `MutableSet` or a `Map` (an Atoll addition): the schema
/// records the index, queries through the object API give what the objects hold after
/// inserts, removals, reassignments and deletions, and the JSON schema notation round-trips it.
@Suite struct CollectionIndexObjectTests {
    @Test func indexedSetsAndMapsAnswerQueriesAsTheObjectsHoldThem() throws {
        let realm = try Realm(configuration: freshConfiguration([TaggedItem.self]))
        #expect(realm.schema["TaggedItem"]?["tags"]?.isIndexed == true)
        #expect(realm.schema["TaggedItem"]?["attributes"]?.isIndexed == true)
        try realm.write {
            for i in 0..<300 {
                let item = TaggedItem()
                item.id = i
                for j in 0..<(i % 5) { item.tags.insert("t\((i + j) % 13)") }
                for j in 0..<(i % 4) { item.attributes["k\(j)"] = (i * 7 + j) % 50 }
                realm.add(item)
            }
        }
        try realm.write {
            for item in realm.objects(TaggedItem.self) where item.id % 3 == 0 {
                item.tags.remove("t1")
                item.tags.insert("t12")
                item.attributes["k0"] = item.id % 17
                item.attributes.removeObject(for: "k1")
            }
            realm.delete(realm.objects(TaggedItem.self).filter("id < 20"))
        }
        func expectMatches(_ query: String, _ args: [Any], _ holds: (TaggedItem) -> Bool) {
            let all = Array(realm.objects(TaggedItem.self))
            let expected = Set(all.filter(holds).map(\.id))
            let results = realm.objects(TaggedItem.self).filter(query, args)
            #expect(Set(results.map(\.id)) == expected, "\(query) \(args)")
            #expect(results.count == expected.count, "\(query) \(args) counted")
        }
        for tag in ["t1", "t5", "t12", "absent"] {
            expectMatches("ANY tags == %@", [tag]) { $0.tags.contains(tag) }
            expectMatches("%@ IN tags", [tag]) { $0.tags.contains(tag) }
        }
        for v in [0, 10, 30, 49] {
            expectMatches("attributes['k0'] > %@", [v]) { ($0.attributes["k0"] ?? nil).map { $0 > v } ?? false }
            expectMatches("attributes['k1'] <= %@", [v]) { ($0.attributes["k1"] ?? nil).map { $0 <= v } ?? false }
            expectMatches("attributes['k2'] == %@", [v]) { $0.attributes["k2"] == v }
        }
        expectMatches("attributes['k0'] BETWEEN {%@, %@}", [5, 9]) { ($0.attributes["k0"] ?? nil).map { (5...9).contains($0) } ?? false }
        expectMatches("ANY tags == 't3' AND attributes['k0'] > 4", []) { $0.tags.contains("t3") && (($0.attributes["k0"] ?? nil) ?? 0) > 4 }
    }

    @Test func aListCannotBeIndexed() {
        #expect(throws: AtollError.self) { _ = try Realm(configuration: freshConfiguration([ListIndexedItem.self])) }
    }

    @Test func theJSONSchemaNotationRecordsAnIndexedSetOrMap() throws {
        let json = """
        [{"name": "Bag", "primaryKey": "id", "properties": {"id": "int",
          "tags": {"type": "set", "objectType": "string", "indexed": true},
          "scores": {"type": "int{}", "indexed": true}}}]
        """
        let schema = try DynamicSchema(json: json)
        #expect(schema[className: "Bag"]?[property: "tags"]?.isIndexed == true)
        #expect(schema[className: "Bag"]?[property: "scores"]?.isIndexed == true)
        #expect(try DynamicSchema(json: schema.json) == schema, "the notation round-trips")
        #expect(throws: AtollError.self) {
            try DynamicSchema(json: #"[{"name": "L", "properties": {"names": {"type": "string[]", "indexed": true}}}]"#).validate()
        }
    }
}
