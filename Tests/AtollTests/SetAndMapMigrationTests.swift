import Atoll
import Foundation
import Testing
import AtollTestSupport

// Migrations adding and removing set and map properties.

final class ShelfV0: Object {
    @Persisted var title = ""
    @Persisted var labels: List<String>
    override class func className() -> String { "Shelf" }
}

final class ShelfV1: Object {
    @Persisted var title = ""
    @Persisted var tags: MutableSet<String>
    @Persisted var counts: Map<String, Int>
    override class func className() -> String { "Shelf" }
}

@Suite struct SetAndMapMigrationTests {
    let dir = TemporaryDirectory()
    var url: URL { URL(fileURLWithPath: dir.file("shelves.atoll")) }

    @Test func aMigrationAddsSetsAndMapsAndFillsThemAndALaterOneRemovesThem() throws {
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [ShelfV0.self]))
            try realm.write { realm.create(ShelfV0.self, value: ["title": "a", "labels": ["x", "y", "x"]]) }
        }
        do {
            var config = Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [ShelfV1.self])
            config.migrationBlock = { migration, _ in
                migration.enumerateObjects(ofType: "Shelf") { old, new in
                    let labels = (old?["labels"] as? [Any?])?.compactMap { $0 as? String } ?? []
                    new?["tags"] = labels
                    new?["counts"] = Dictionary(labels.map { ($0, 1) }, uniquingKeysWith: +)
                }
            }
            let realm = try Realm(configuration: config)
            let shelf = try #require(realm.objects(ShelfV1.self).first)
            #expect(Array(shelf.tags) == ["x", "y"])
            #expect(shelf.counts.keys == ["x", "y"])
            #expect(shelf.counts["x"] == 2)
        }
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 2, objectTypes: [ShelfV0.self]))
            #expect(realm.schema["Shelf"]?.properties.map(\.name) == ["title", "labels"], "the set and map are gone")
            #expect(realm.objects(ShelfV0.self).first?.title == "a")
        }
    }
}
