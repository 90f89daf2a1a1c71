import Foundation
import Testing
import AtollStorage
@testable import AtollSync

/// Sets and maps have no merge rules in sync yet: a synced class with one is refused, naming the
/// property, and leaving the class out of the synced classes works.
@Suite struct SetAndMapSyncGuardTests {
    @Test func aSyncedClassWithASetOrAMapIsRefusedUntilTheyMerge() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "setmap-sync-\(UUID())"))
        try db.write { w in
            try w.createTable(TableSpec(name: "Tagged", columns: [
                ColumnSpec(name: "id", type: .int), ColumnSpec(name: "tags", type: .string, isSet: true),
            ], primaryKey: "id"))
            try w.createTable(TableSpec(name: "Scored", columns: [
                ColumnSpec(name: "id", type: .int), ColumnSpec(name: "scores", type: .int, isMap: true),
            ], primaryKey: "id"))
            try w.createTable(TestSchema.person)
        }
        for (name, property) in [("Tagged", "'Tagged.tags' is a set"), ("Scored", "'Scored.scores' is a map")] {
            #expect {
                try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "r", classes: [name]))
            } throws: { e in
                (e as? AtollError)?.kind == .schemaMismatch && (e as? AtollError)?.message.contains(property) == true
            }
        }
        _ = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "r", classes: ["Person"]))
    }
}
