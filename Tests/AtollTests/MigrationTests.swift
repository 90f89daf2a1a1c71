import Atoll
import Foundation
import Testing
import AtollTestSupport

// Four versions of one model class ("Person"), as in the reference documents' migration guide.
final class PersonV0: Object {
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var age = 0
    override class func className() -> String { "Person" }
}

final class PersonV1: Object {
    @Persisted var fullName = ""
    @Persisted var age = 0
    override class func className() -> String { "Person" }
}

final class PersonV2: Object {
    @Persisted var fullName = ""
    @Persisted var age = 0
    @Persisted var email = ""
    override class func className() -> String { "Person" }
}

final class PersonV3: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var email = ""
    override class func className() -> String { "Person" }
}

@Suite(.serialized) struct MigrationTests {
    let dir = TemporaryDirectory()
    var url: URL { URL(fileURLWithPath: dir.file("people.atoll")) }

    func makeV0() throws {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [PersonV0.self]))
        try realm.write {
            realm.create(PersonV0.self, value: ["firstName": "Ada", "lastName": "Lovelace", "age": 36])
            realm.create(PersonV0.self, value: ["firstName": "Alan", "lastName": "Turing", "age": 41])
        }
    }

    /// One block handling every old version, so a v0 file opens under any later code.
    static func migration(_ migration: Migration, _ oldSchemaVersion: UInt64) {
        if oldSchemaVersion < 1 {
            migration.enumerateObjects(ofType: "Person") { old, new in
                let first = old?["firstName"] as? String ?? ""
                let last = old?["lastName"] as? String ?? ""
                new?["fullName"] = "\(first) \(last)"
            }
        }
        if oldSchemaVersion < 2 {
            migration.enumerateObjects(ofType: "Person") { _, new in new?["email"] = "" }
        }
    }

    @Test func schemaChangeWithoutVersionBumpIsAnError() throws {
        try makeV0()
        do {
            _ = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [PersonV1.self]))
            Issue.record("opening a changed schema without a version bump must fail")
        } catch let e as AtollError {
            #expect(e.kind == .migrationRequired)
            #expect(e.message.contains("fullName") && e.message.contains("added"))
            #expect(e.message.contains("firstName") && e.message.contains("removed"))
        }
    }

    @Test func migrationBlockComputesNewProperties() throws {
        try makeV0()
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, migrationBlock: Self.migration, objectTypes: [PersonV1.self]))
        let names = realm.objects(PersonV1.self).sorted(byKeyPath: "age").map(\.fullName)
        #expect(names == ["Ada Lovelace", "Alan Turing"])
        #expect(realm.objects(PersonV1.self).filter("age == 41").first?.fullName == "Alan Turing")
    }

    @Test func migrationsAreLinearFromV0ToV3() throws {
        try makeV0()
        let block: MigrationBlock = { migration, old in
            Self.migration(migration, old)
            if old < 3 { migration.renameProperty(onType: "Person", from: old < 1 ? "firstName" : "fullName", to: "name") }
        }
        // v0 straight to v3: fullName is computed, then renamed; firstName/lastName are dropped.
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 3, migrationBlock: { m, old in
            if old < 1 {
                m.enumerateObjects(ofType: "Person") { o, n in
                    n?["name"] = "\(o?["firstName"] as? String ?? "") \(o?["lastName"] as? String ?? "")"
                    n?["email"] = ""
                }
            } else {
                block(m, old)
            }
        }, objectTypes: [PersonV3.self]))
        #expect(Set(realm.objects(PersonV3.self).map(\.name)) == ["Ada Lovelace", "Alan Turing"])
        #expect(realm.objects(PersonV3.self).allSatisfy { $0.email == "" })
    }

    @Test func stepByStepMigrationsWithRename() throws {
        try makeV0()
        do {
            let r1 = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, migrationBlock: Self.migration, objectTypes: [PersonV1.self]))
            #expect(r1.objects(PersonV1.self).count == 2)
        }
        do {
            let r2 = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 2, migrationBlock: Self.migration, objectTypes: [PersonV2.self]))
            #expect(r2.objects(PersonV2.self).first?.email == "")
            try r2.write { r2.objects(PersonV2.self).first?.email = "ada@example.org" }
        }
        let r3 = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 3, migrationBlock: { m, old in
            if old < 3 { m.renameProperty(onType: "Person", from: "fullName", to: "name") }
        }, objectTypes: [PersonV3.self]))
        let ada = try #require(r3.objects(PersonV3.self).filter("name == 'Ada Lovelace'").first)
        #expect(ada.email == "ada@example.org")
        #expect(ada.age == 36)
    }

    @Test func deleteRealmIfMigrationNeeded() throws {
        try makeV0()
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url, deleteRealmIfMigrationNeeded: true, objectTypes: [PersonV1.self]))
        #expect(realm.objects(PersonV1.self).isEmpty)
    }

    @Test func olderSchemaVersionThanTheFileIsAnError() throws {
        try makeV0()
        _ = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, migrationBlock: Self.migration, objectTypes: [PersonV1.self]))
        #expect(throws: AtollError.self) { _ = try Realm(configuration: Realm.Configuration(fileURL: url, schemaVersion: 0, objectTypes: [PersonV1.self])) }
    }
}


// MARK: more schema changes

/// The overview's rename: `yearsSinceBirth` becomes `age`.
final class PersonYears: Object {
    @Persisted var name = ""
    @Persisted var yearsSinceBirth = 0
    override class func className() -> String { "Aged" }
}

final class PersonAge: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    override class func className() -> String { "Aged" }
}

/// A property whose type changes (String -> Int), converted by the block.
final class ScoreText: Object {
    @Persisted var score = ""
    override class func className() -> String { "Score" }
}

final class ScoreNumber: Object {
    @Persisted var score = 0
    @Persisted var note: String?
    override class func className() -> String { "Score" }
}

final class ScoreRequiredNote: Object {
    @Persisted var score = 0
    @Persisted var note = ""
    override class func className() -> String { "Score" }
}

final class Archived: Object {
    @Persisted var text = ""
}

@Suite(.serialized) struct MoreMigrationTests {
    let dir = TemporaryDirectory()
    var url: URL { URL(fileURLWithPath: dir.file("more.atoll")) }

    func config(_ types: [Object.Type], version: UInt64 = 0, block: MigrationBlock? = nil) -> Realm.Configuration {
        Realm.Configuration(fileURL: url, schemaVersion: version, migrationBlock: block, objectTypes: types)
    }

    @Test func renamePropertyKeepsTheValues() throws {
        do {
            let realm = try Realm(configuration: config([PersonYears.self]))
            try realm.write { realm.create(PersonYears.self, value: ["name": "Ada", "yearsSinceBirth": 36]) }
        }
        let realm = try Realm(configuration: config([PersonAge.self], version: 3) { migration, old in
            if old < 3 { migration.renameProperty(onType: "Aged", from: "yearsSinceBirth", to: "age") }
        })
        #expect(realm.objects(PersonAge.self).first?.age == 36)
        #expect(realm.objects(PersonAge.self).filter("age == 36").count == 1)
    }

    @Test func addingAndRemovingPropertiesNeedsOnlyAVersionBump() throws {
        do {
            let realm = try Realm(configuration: config([ScoreNumber.self]))
            try realm.write { realm.create(ScoreNumber.self, value: ["score": 5, "note": "n"]) }
        }
        // Removing `note` is detected...
        do {
            _ = try Realm(configuration: config([PersonV0.self, ScoreText.self]))
            Issue.record("a removed property needs a migration")
        } catch let e as AtollError {
            #expect(e.kind == .migrationRequired)
        }
        // ...and a bump applies it without any block; added properties get their defaults.
        let realm = try Realm(configuration: config([ScoreNumber.self, Archived.self], version: 1))
        #expect(realm.objects(ScoreNumber.self).first?.score == 5)
        #expect(realm.objects(Archived.self).isEmpty, "a new class needs no migration")
    }

    @Test func aTypeChangeIsConvertedByTheBlock() throws {
        do {
            let realm = try Realm(configuration: config([ScoreText.self]))
            try realm.write { for s in ["3", "40", "x"] { realm.create(ScoreText.self, value: ["score": s]) } }
        }
        let realm = try Realm(configuration: config([ScoreNumber.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "Score") { old, new in
                new?["score"] = Int(old?["score"] as? String ?? "") ?? -1
            }
        })
        #expect(realm.objects(ScoreNumber.self).map(\.score).sorted() == [-1, 3, 40])
    }

    @Test func makingAPropertyRequiredKeepsValuesAndDefaultsNil() throws {
        do {
            let realm = try Realm(configuration: config([ScoreNumber.self]))
            try realm.write {
                realm.create(ScoreNumber.self, value: ["score": 1, "note": "kept"])
                realm.create(ScoreNumber.self, value: ["score": 2])
            }
        }
        let realm = try Realm(configuration: config([ScoreRequiredNote.self], version: 1))
        #expect(realm.objects(ScoreRequiredNote.self).sorted(byKeyPath: "score").map(\.note) == ["kept", ""])
    }

    @Test func deleteDataRemovesEveryObjectOfAClass() throws {
        do {
            let realm = try Realm(configuration: config([ScoreText.self, Archived.self]))
            try realm.write {
                realm.create(ScoreText.self, value: ["score": "1"])
                realm.create(Archived.self, value: ["text": "old"])
            }
        }
        let realm = try Realm(configuration: config([ScoreNumber.self, Archived.self], version: 1) { migration, _ in
            migration.deleteData(forType: "Score")
            migration.deleteData(forType: "Archived")
        })
        #expect(realm.objects(ScoreNumber.self).isEmpty)
        #expect(realm.objects(Archived.self).isEmpty)
    }

    @Test func aFailingMigrationLeavesTheFileAsItWas() throws {
        do {
            let realm = try Realm(configuration: config([ScoreText.self]))
            try realm.write { realm.create(ScoreText.self, value: ["score": "7"]) }
        }
        do {
            _ = try Realm(configuration: config([ScoreNumber.self], version: 1) { migration, _ in
                migration.enumerateObjects(ofType: "Score") { _, new in new?["score"] = 1 }
                migration.renameProperty(onType: "Score", from: "noSuchProperty", to: "score")
            })
            Issue.record("a migration error must fail the open")
        } catch let e as AtollError {
            #expect(e.message.contains("noSuchProperty"))
        }
        let old = try Realm(configuration: config([ScoreText.self]))
        #expect(old.objects(ScoreText.self).first?.score == "7")
    }

    @Test func migrationObjectsCanBeCreatedAndDeleted() throws {
        do {
            let realm = try Realm(configuration: config([ScoreText.self]))
            try realm.write { for s in ["keep", "drop"] { realm.create(ScoreText.self, value: ["score": s]) } }
        }
        let realm = try Realm(configuration: config([ScoreText.self, Archived.self], version: 1) { migration, _ in
            migration.enumerateObjects(ofType: "Score") { old, _ in
                guard let old, let text = old["score"] as? String else { return }
                if text == "drop" { migration.delete(old) }
                migration.create("Archived", value: ["text": text])
            }
        })
        #expect(realm.objects(ScoreText.self).map(\.score) == ["keep"])
        #expect(realm.objects(Archived.self).map(\.text).sorted() == ["drop", "keep"])
    }
}
