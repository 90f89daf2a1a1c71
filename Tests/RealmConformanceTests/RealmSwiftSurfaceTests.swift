// RealmSwift API that realm-swift's own tests exercise only in files not ported here (or only
// through Objective-C): object equality, Realm.Error codes, file-level API, PersistableEnum,
// dynamic members, freezing through the realm, lists of optionals, key-path operators on lists.
// The expected behaviour is RealmSwift's documented one.

import Atoll
import AtollTestSupport
import Foundation
import Testing

final class CompatEnumObject: Object {
    @Persisted var color: CompatColor
    @Persisted var size = CompatSize.large
    @Persisted var optColor: CompatColor?
    @Persisted var colors: List<CompatColor>
}

final class CompatPrimaryObject: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

@Suite struct RealmSwiftSurfaceTests {
    let t = RealmTestCase()

    @Test func objectEqualityFollowsRealmSwift() throws {
        let realm = try t.realm()
        let (a, b) = try realm.write {
            (realm.create(CompatPrimaryObject.self, value: [1, "a"]), realm.create(SwiftStringObject.self, value: ["s"]))
        }
        // Primary key: the same stored object is equal, whichever instance.
        let a2 = try #require(realm.object(ofType: CompatPrimaryObject.self, forPrimaryKey: 1))
        #expect(a == a2)
        #expect(a.hashValue == a2.hashValue)
        #expect(Set([a, a2]).count == 1)
        let other = try t.realm().object(ofType: CompatPrimaryObject.self, forPrimaryKey: 1)
        #expect(other == a)
        // No primary key: identity only, but isSameObject(as:) compares the stored object.
        let b2 = try #require(realm.objects(SwiftStringObject.self).first)
        #expect(b != b2)
        #expect(b.isSameObject(as: b2))
        #expect(b == b)
        // Frozen objects compare as stored objects.
        #expect(b.freeze() == b2.freeze())
        #expect(b.freeze() != b2)
        // Unmanaged objects with a primary key: identity.
        #expect(CompatPrimaryObject(value: [1, "a"]) != CompatPrimaryObject(value: [1, "a"]))
        #expect(realm == realm)
        #expect(try t.realm() == realm)
        #expect(realm.freeze() == realm.freeze())
        #expect(realm.freeze() != realm)
    }

    @Test func realmErrorCodesMatchAtollErrors() throws {
        var config = t.defaultConfiguration
        config.fileURL = URL(fileURLWithPath: t.directory.file("missing.realm"))
        config.readOnly = true
        do {
            _ = try Realm(configuration: config)
            Issue.record("opening a missing read-only file succeeded")
        } catch Realm.Error.fileNotFound {
            // RealmSwift's pattern matches Atoll's `.fileNotFound`.
        } catch {
            Issue.record("unexpected \(error)")
        }
        let error = AtollError(.schemaMismatch, "x")
        #expect(error.code == .schemaMismatch)
        #expect(Realm.Error(error).code == Realm.Error.schemaMismatch)
        #expect(Realm.Error.Code.fileNotFound.rawValue == 5)
    }

    @Test func fileLevelAPI() throws {
        let config = t.defaultConfiguration
        #expect(!Realm.fileExists(for: config))
        do {
            let realm = try Realm(fileURL: t.defaultRealmURL)
            try realm.write { realm.add(SwiftStringObject(value: ["a"])) }
            #expect(realm.configuration.fileURL == t.defaultRealmURL)
            #expect(Realm.fileExists(for: config))
            var copy = config
            copy.fileURL = URL(fileURLWithPath: t.directory.file("copy.realm"))
            try realm.writeCopy(configuration: copy)
            #expect(try Realm(configuration: copy).objects(SwiftStringObject.self).count == 1)
            #expect(try schemaVersionAtURL(copy.fileURL!) == 0)
        }
        var seeded = config
        seeded.fileURL = URL(fileURLWithPath: t.directory.file("seeded.realm"))
        seeded.seedFilePath = URL(fileURLWithPath: t.directory.file("copy.realm"))
        #expect(try Realm(configuration: seeded).objects(SwiftStringObject.self).first?.stringCol == "a")

        var v1 = config
        v1.schemaVersion = 1
        try Realm.performMigration(for: v1)
        #expect(try schemaVersionAtURL(t.defaultRealmURL) == 1)
        var missing = config
        missing.fileURL = URL(fileURLWithPath: t.directory.file("none.realm"))
        #expect(throws: AtollError.self) { try schemaVersionAtURL(missing.fileURL!) }
    }

    @Test func persistableEnums() throws {
        let unmanaged = CompatEnumObject()
        #expect(unmanaged.color == .red)
        #expect(unmanaged.size == .large)
        let realm = try t.realm()
        try realm.write {
            let o = CompatEnumObject()
            o.color = .blue
            o.optColor = .green
            o.colors.append(objectsIn: [.green, .red])
            realm.add(o)
            realm.create(CompatEnumObject.self, value: ["color": CompatColor.green, "size": CompatSize.small])
        }
        let objects = realm.objects(CompatEnumObject.self)
        #expect(objects.count == 2)
        let first = try #require(objects.filter("color == %@", CompatColor.blue).first)
        #expect(first.optColor == .green)
        #expect(Array(first.colors) == [.green, .red])
        #expect(first.value(forKey: "color") as? CompatColor == .blue)
        #expect(objects.filter("size == %@", CompatSize.small).count == 1)
        try realm.write { first.optColor = nil }
        #expect(first.optColor == nil)
    }

    @Test func dynamicMembersAndRealmFreeze() throws {
        let realm = try t.realm()
        let obj = try realm.write { realm.create(SwiftStringObject.self, value: ["a"]) }
        let dynamicRealm = try Realm(configuration: t.defaultConfiguration, dynamicSchema: nil)
        let dog = try #require(dynamicRealm.dynamicObjects("SwiftStringObject").filter("stringCol == %@", "a").sorted(byKeyPath: "stringCol").first)
        #expect(dog.stringCol as? String == "a")
        #expect(dog["stringCol"] as? String == "a")
        #expect(dynamicRealm.dynamicObjects("SwiftStringObject").index(matching: "stringCol == 'a'") == 0)
        #expect(throws: AtollError.self) { try dynamicRealm.dynamicObjects(throwing: "NoSuchClass") }
        let frozen = realm.freeze(obj)
        #expect(frozen.isFrozen)
        #expect(realm.thaw(frozen)?.isFrozen == false)
        let frozenResults = realm.freeze(realm.objects(SwiftStringObject.self))
        #expect(frozenResults.isFrozen)
        #expect(realm.freeze().thaw().isFrozen == false)
    }

    @Test func listsOfOptionalsAggregate() throws {
        let obj = SwiftListObject()
        obj.intOpt.append(objectsIn: [3, nil, 1])
        obj.doubleOpt.append(objectsIn: [1.5, nil, 2.5])
        #expect(obj.intOpt.min() == 1)
        #expect(obj.intOpt.max() == 3)
        #expect(obj.intOpt.sum() == 4)
        #expect(obj.intOpt.average() == 2)
        #expect(obj.doubleOpt.average() == 2)
        #expect(obj.intOpt.sorted() == [nil, 1, 3])
        let realm = try t.realm()
        try realm.write { realm.add(obj) }
        #expect(obj.intOpt.min() == 1)
        #expect(obj.intOpt.sorted(ascending: false) == [3, 1, nil])
    }

    @Test func listKeyPathOperatorsAndObjectAggregates() throws {
        let company = SwiftCompanyObject()
        for (name, age) in [("a", 30), ("b", 40), ("c", 50)] { company.employees.append(SwiftEmployeeObject(value: ["name": name, "age": age])) }
        #expect(company.employees.value(forKeyPath: "@count") as? Int == 3)
        #expect(company.employees.value(forKeyPath: "@sum.age") as? Int == 120)
        #expect(company.employees.max(ofProperty: "age") as Int? == 50)
        #expect(company.employees.average(ofProperty: "age") as Double? == 40)
        let realm = try t.realm()
        try realm.write { realm.add(company) }
        #expect(company.employees.value(forKeyPath: "@min.age") as? Int == 30)
        #expect(company.employees.sum(ofProperty: "age") as Int == 120)
        #expect(company.employees.index(matching: "name == %@", "b") == 1)
        try realm.write { company.employees.setValue(true, forKey: "hired") }
        #expect(company.employees.allSatisfy { $0.hired })
    }
}

final class CompatMigratedV1: Object {
    override class func className() -> String { "CompatMigrated" }
    @Persisted var name = ""
    @Persisted var age = 0
}

final class CompatMigratedV2: Object {
    override class func className() -> String { "CompatMigrated" }
    @Persisted var fullName = ""
    @Persisted var age = 0
    @Persisted var tags: List<String>
}

@Suite struct MigrationSurfaceTests {
    let t = RealmTestCase()

    @Test func migrationSchemasMembersAndArrayCreate() throws {
        var v1 = t.defaultConfiguration
        v1.objectTypes = [CompatMigratedV1.self]
        do {
            let realm = try Realm(configuration: v1)
            try realm.write { realm.add(CompatMigratedV1(value: ["name": "Ann", "age": 30])) }
        }
        let seen = LockedValue<[String]>([])
        var v2 = t.defaultConfiguration
        v2.objectTypes = [CompatMigratedV2.self]
        v2.schemaVersion = 1
        v2.migrationBlock = { migration, oldVersion in
            var notes = ["old version \(oldVersion)"]
            notes.append("old: " + (migration.oldSchema["CompatMigrated"]?.properties.map(\.name).joined(separator: ",") ?? "none"))
            notes.append("new: " + (migration.newSchema["CompatMigrated"]?.properties.map(\.name).joined(separator: ",") ?? "none"))
            notes.append("old type of age: \(migration.oldSchema["CompatMigrated"]?["age"]?.type.description ?? "?")")
            migration.enumerateObjects(ofType: "CompatMigrated") { oldObject, newObject in
                notes.append("member: \(oldObject!.name as? String ?? "?"), subscript: \(oldObject!["age"] as? Int ?? -1)")
                newObject!["fullName"] = oldObject!.name
            }
            migration.create("CompatMigrated", value: ["Bob", 40, ["x", "y"]])
            seen.value = notes
        }
        let realm = try Realm(configuration: v2)
        #expect(seen.value == ["old version 0", "old: name,age", "new: fullName,age,tags", "old type of age: int",
                               "member: Ann, subscript: 30"])
        let people = realm.objects(CompatMigratedV2.self).sorted(byKeyPath: "age")
        #expect(people.map(\.fullName) == ["Ann", "Bob"])
        #expect(Array(people[1].tags) == ["x", "y"])
    }
}
