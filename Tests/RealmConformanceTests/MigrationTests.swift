// Port of realm-swift's RealmSwift/Tests/MigrationTests.swift, expected values kept, for the
// behaviour of `Migration` (enumerate, create, delete, deleteData). realm-swift's helper
// `testMigration` copies the default realm's file to the test path and migrates it to a higher
// schema version with a migration block, by opening it and by `Realm.performMigration(for:)`;
// the port does the same (without the default-configuration and asyncOpen variants). The
// older ports write `migration.create`'s values as dictionaries (`["stringCol": "A"]` for
// `["A"]`); both forms work.
//
// Not ported:
// - testObjectWithCustomColumnNames, testCustomColumn* — need `propertiesMapping()` (custom
//   column names);
// - testAnyInEnumerate, the MutableSet and Map parts of testEnumerate — AnyRealmValue, MutableSet, Map;
// - testMigrationObject except its list part (testMigrationObjectLists), and
//   testCollectionAccess — need AnyRealmValue, Decimal128, MutableSet and Map, and RealmSwift's
//   Objective-C description format;
// - testDeleteRealmIfMigrationNeeded — replaces RLMSchema's sharedSchema through the
//   Objective-C runtime.
// realm-swift reads migration objects by dynamic member (`oldObject!.boolCol`); the older ports
// use the subscript (`oldObject!["boolCol"]`), which gives the same values (every integer as Int).

import Atoll
import AtollTestSupport
import Foundation
import Testing

@Suite struct MigrationTests {
    let t = RealmTestCase()

    /// realm-swift's `testMigration`: copies the default realm's file to the test path, opens it
    /// with `schemaVersion` and `block`, checks that the block ran, then calls `validation`.
    private func testMigration(schemaVersion: UInt64 = 1, block: @escaping MigrationBlock,
                               validation: ((Realm) throws -> Void)? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let didRun = LockedValue(false)
        let config = Realm.Configuration(fileURL: t.testRealmURL, schemaVersion: schemaVersion, migrationBlock: { migration, old in
            block(migration, old)
            didRun.value = true
        }, syncWrites: false)
        func withTestFile(_ migrate: () throws -> Void) throws {
            didRun.value = false
            try FileManager.default.copyItem(at: t.defaultRealmURL, to: t.testRealmURL)
            try migrate()
            #expect(didRun.value, "the migration block ran", sourceLocation: sourceLocation)
            #expect(try schemaVersionAtURL(t.testRealmURL) == schemaVersion, sourceLocation: sourceLocation)
            if let validation { try validation(try Realm(configuration: config)) }
            #expect(try Realm.deleteFiles(for: config), sourceLocation: sourceLocation)
        }
        try withTestFile { _ = try Realm(configuration: config) }
        try withTestFile { try Realm.performMigration(for: config) }
    }

    private func createDefaultRealm() throws {
        _ = try t.realm()
    }

    @Test func testEnumerate() throws {
        try createDefaultRealm()
        do {
            let realm = try t.realm()
            _ = realm.objects(SwiftStringObject.self).count
        }
        try testMigration { migration, _ in
            migration.enumerateObjects(ofType: "SwiftStringObject") { _, _ in Issue.record("No objects to enumerate") }
            migration.enumerateObjects(ofType: "NoSuchClass") { _, _ in } // shouldn't throw
        }

        do {
            let realm = try t.realm()
            try realm.write { realm.create(SwiftStringObject.self, value: ["string"]) }
        }
        try testMigration(schemaVersion: 2) { migration, _ in
            var count = 0
            migration.enumerateObjects(ofType: "SwiftStringObject") { oldObj, newObj in
                guard let oldObj, let newObj else {
                    Issue.record("did not get objects in enumerate")
                    return
                }
                #expect(newObj.className == "SwiftStringObject")
                #expect(oldObj.className == "SwiftStringObject")
                #expect(newObj["stringCol"] as? String == "string")
                #expect(oldObj["stringCol"] as? String == "string")
                count += 1
            }
            #expect(count == 1)
        }

        do {
            let realm = try t.realm()
            try realm.write { realm.create(SwiftArrayPropertyObject.self, value: ["string", [["array"]], [[2]]]) }
        }
        try testMigration(schemaVersion: 3) { migration, _ in
            var count = 0
            migration.enumerateObjects(ofType: "SwiftArrayPropertyObject") { oldObject, newObject in
                #expect(oldObject?["name"] as? String == "string")
                #expect(newObject?["name"] as? String == "string")
                count += 1
            }
            #expect(count == 1)
        }
    }

    /// Objects created during the migration are not enumerated; deleted ones are not either.
    @Test func testEnumerateObjectsAfterDeleteInsertObjects() throws {
        do {
            let realm = try t.realm()
            try realm.write {
                for s in ["1", "2", "3"] { realm.create(SwiftStringObject.self, value: [s]) }
                for i in 1...3 { realm.create(SwiftIntObject.self, value: [i]) }
                for i in 1...3 { realm.create(SwiftInt8Object.self, value: [i]) }
                realm.create(SwiftBoolObject.self, value: [true])
                realm.create(SwiftBoolObject.self, value: [false])
                realm.create(SwiftBoolObject.self, value: [true])
            }
        }
        try testMigration(schemaVersion: 1) { migration, _ in
            var count = 0
            migration.enumerateObjects(ofType: "SwiftStringObject") { oldObj, newObj in
                #expect(newObj!["stringCol"] as? String == oldObj!["stringCol"] as? String)
                if oldObj!["stringCol"] as? String == "2" {
                    migration.delete(newObj!)
                    migration.create("SwiftStringObject", value: ["stringCol": "A"])
                }
            }
            migration.enumerateObjects(ofType: "SwiftStringObject") { oldObj, newObj in
                #expect(newObj!["stringCol"] as? String == oldObj!["stringCol"] as? String)
                count += 1
            }
            #expect(count == 2)

            count = 0
            migration.enumerateObjects(ofType: "SwiftIntObject") { oldObj, newObj in
                #expect(newObj!["intCol"] as? Int == oldObj!["intCol"] as? Int)
                if oldObj!["intCol"] as? Int == 1 {
                    migration.delete(newObj!)
                    migration.create("SwiftIntObject", value: ["intCol": 0])
                }
            }
            migration.enumerateObjects(ofType: "SwiftIntObject") { oldObj, newObj in
                #expect(newObj!["intCol"] as? Int == oldObj!["intCol"] as? Int)
                count += 1
            }
            #expect(count == 2)

            count = 0
            migration.enumerateObjects(ofType: "SwiftInt8Object") { oldObj, newObj in
                if oldObj!["int8Col"] as? Int == 1 {
                    migration.delete(newObj!)
                    migration.create("SwiftInt8Object", value: ["int8Col": 0])
                }
            }
            migration.enumerateObjects(ofType: "SwiftInt8Object") { _, _ in count += 1 }
            #expect(count == 2)

            migration.enumerateObjects(ofType: "SwiftBoolObject") { oldObj, newObj in
                #expect(newObj!["boolCol"] as? Bool == oldObj!["boolCol"] as? Bool)
                migration.delete(newObj!)
                migration.create("SwiftBoolObject", value: ["boolCol": false])
            }
            migration.enumerateObjects(ofType: "SwiftBoolObject") { _, _ in
                Issue.record("This line should not executed since all objects have been deleted.")
            }
        } validation: { realm in
            #expect(realm.objects(SwiftStringObject.self).map(\.stringCol).sorted() == ["1", "3", "A"])
            #expect(realm.objects(SwiftBoolObject.self).count == 3)
        }
    }

    @Test func testEnumerateObjectsAfterDeleteData() throws {
        do {
            let realm = try t.realm()
            try realm.write {
                for s in ["1", "2", "3"] { realm.create(SwiftStringObject.self, value: [s]) }
            }
        }
        try testMigration { migration, _ in
            var count = 0
            migration.enumerateObjects(ofType: "SwiftStringObject") { _, _ in count += 1 }
            #expect(count == 3)

            migration.deleteData(forType: "SwiftStringObject")
            migration.create("SwiftStringObject", value: ["stringCol": "A"])

            count = 0
            migration.enumerateObjects(ofType: "SwiftStringObject") { _, _ in count += 1 }
            #expect(count == 0)
        }
    }

    /// Without the rows made from ModernStringEnum and a custom persistable (PersistableEnum,
    /// custom persistable types) and without `assertThrows(migration.create("NoSuchObject"))`,
    /// which Atoll reports as the migration's error.
    @Test func testCreate() throws {
        do {
            let realm = try t.realm()
            _ = realm.objects(SwiftStringObject.self).count
        }
        try testMigration { migration, _ in
            migration.create("SwiftStringObject", value: ["stringCol": "string1"])
            migration.create("SwiftStringObject", value: ["stringCol": "string2"])
            migration.create("SwiftStringObject")
        } validation: { realm in
            let objects = realm.objects(SwiftStringObject.self)
            #expect(objects.count == 3)
            #expect(objects.map(\.stringCol) == ["string1", "string2", ""])
        }
    }

    @Test func testDelete() throws {
        do {
            let realm = try t.realm()
            try realm.write {
                realm.create(SwiftStringObject.self, value: ["string1"])
                realm.create(SwiftStringObject.self, value: ["string2"])
            }
        }
        try testMigration { migration, _ in
            var deleted = false
            migration.enumerateObjects(ofType: "SwiftStringObject") { _, newObj in
                if !deleted {
                    migration.delete(newObj!)
                    deleted = true
                }
            }
        } validation: { realm in
            #expect(realm.objects(SwiftStringObject.self).count == 1)
        }
    }

    @Test func testBasic() throws {
        try createDefaultRealm()
        do {
            let realm = try t.realm()
            _ = realm.objects(SwiftStringObject.self).count
        }
        try testMigration { _, _ in }
    }

    @Test func testBasicTypesInEnumerate() throws {
        do {
            let realm = try t.realm()
            try realm.write { realm.add(SwiftObject()) }
        }
        try testMigration { migration, _ in
            var count = 0
            migration.enumerateObjects(ofType: "SwiftObject") { oldObject, newObject in
                for object in [oldObject!, newObject!] {
                    #expect(object["boolCol"] is Bool)
                    #expect(object["intCol"] is Int)
                    #expect(object["int8Col"] is Int)
                    #expect(object["int16Col"] is Int)
                    #expect(object["int32Col"] is Int)
                    #expect(object["int64Col"] is Int)
                    #expect(object["floatCol"] is Float)
                    #expect(object["doubleCol"] is Double)
                    #expect(object["stringCol"] is String)
                    #expect(object["binaryCol"] is Data)
                    #expect(object["dateCol"] is Date)
                    #expect(object["objectIdCol"] is ObjectId)
                    #expect(object["objectCol"] is DynamicObject)
                    #expect(object["uuidCol"] is UUID)
                }
                count += 1
            }
            #expect(count == 1)
        }
    }

    @Test func testOptionalsInEnumerate() throws {
        do {
            let realm = try t.realm()
            try realm.write { realm.add(SwiftOptionalObject()) }
        }
        let names = ["optStringCol", "optBinaryCol", "optDateCol", "optIntCol", "optInt8Col", "optInt16Col", "optInt32Col",
                     "optInt64Col", "optFloatCol", "optDoubleCol", "optBoolCol", "optObjectIdCol"]
        try testMigration { migration, _ in
            migration.enumerateObjects(ofType: "SwiftOptionalObject") { oldObject, newObject in
                for object in [oldObject!, newObject!] {
                    for name in names { #expect(object[name] == nil, "\(name)") }
                }
            }
        }

        do {
            let realm = try t.realm()
            try realm.write {
                let soo = realm.objects(SwiftOptionalObject.self).first!
                soo.optStringCol = "String"
                soo.optBinaryCol = Data()
                soo.optDateCol = Date()
                soo.optIntCol = 1
                soo.optInt8Col = 2
                soo.optInt16Col = 3
                soo.optInt32Col = 4
                soo.optInt64Col = 5
                soo.optFloatCol = 6.1
                soo.optDoubleCol = 7.2
                soo.optObjectIdCol = objectId("1234567890bc1234567890bc")
                soo.optBoolCol = true
            }
        }
        try testMigration(schemaVersion: 2) { migration, _ in
            migration.enumerateObjects(ofType: "SwiftOptionalObject") { oldObject, newObject in
                for object in [oldObject!, newObject!] {
                    #expect(object["optStringCol"] is String)
                    #expect(object["optBinaryCol"] is Data)
                    #expect(object["optDateCol"] is Date)
                    #expect(object["optIntCol"] is Int)
                    #expect(object["optInt8Col"] is Int)
                    #expect(object["optInt16Col"] is Int)
                    #expect(object["optInt32Col"] is Int)
                    #expect(object["optInt64Col"] is Int)
                    #expect(object["optFloatCol"] is Float)
                    #expect(object["optDoubleCol"] is Double)
                    #expect(object["optBoolCol"] is Bool)
                    #expect(object["optObjectIdCol"] is ObjectId)
                }
            }
        }
    }

    @Test func testEnumerateObjectsAfterDeleteObjects() throws {
        do {
            let realm = try t.realm()
            try realm.write {
                for s in ["1", "2", "3"] { realm.create(SwiftStringObject.self, value: [s]) }
                for i in 1...3 { realm.create(SwiftIntObject.self, value: [i]) }
                for i in 1...3 { realm.create(SwiftInt8Object.self, value: [i]) }
                for i in 1...3 { realm.create(SwiftInt16Object.self, value: [i]) }
                for i in 1...3 { realm.create(SwiftInt32Object.self, value: [i]) }
                for i in 1...3 { realm.create(SwiftInt64Object.self, value: [i]) }
                realm.create(SwiftBoolObject.self, value: [true])
                realm.create(SwiftBoolObject.self, value: [false])
                realm.create(SwiftBoolObject.self, value: [true])
            }
        }
        try testMigration(schemaVersion: 1) { migration, _ in
            var count = 0
            migration.enumerateObjects(ofType: "SwiftStringObject") { oldObj, newObj in
                #expect(newObj!["stringCol"] as? String == oldObj!["stringCol"] as? String)
                if oldObj!["stringCol"] as? String == "2" { migration.delete(newObj!) }
            }
            migration.enumerateObjects(ofType: "SwiftStringObject") { oldObj, newObj in
                #expect(newObj!["stringCol"] as? String == oldObj!["stringCol"] as? String)
                count += 1
            }
            #expect(count == 2)

            for (className, column) in [("SwiftIntObject", "intCol"), ("SwiftInt8Object", "int8Col"), ("SwiftInt16Object", "int16Col"),
                                        ("SwiftInt32Object", "int32Col"), ("SwiftInt64Object", "int64Col")] {
                count = 0
                migration.enumerateObjects(ofType: className) { oldObj, newObj in
                    #expect(newObj![column] as? Int == oldObj![column] as? Int)
                    if oldObj![column] as? Int == 1 { migration.delete(newObj!) }
                }
                migration.enumerateObjects(ofType: className) { oldObj, newObj in
                    #expect(newObj![column] as? Int == oldObj![column] as? Int)
                    count += 1
                }
                #expect(count == 2, "\(className)")
            }

            migration.enumerateObjects(ofType: "SwiftBoolObject") { oldObj, newObj in
                #expect(newObj!["boolCol"] as? Bool == oldObj!["boolCol"] as? Bool)
                migration.delete(newObj!)
            }
            migration.enumerateObjects(ofType: "SwiftBoolObject") { _, _ in
                Issue.record("This line should not executed since all objects have been deleted.")
            }
        }
    }
}

// realm-swift tests that need `schemaVersionAtURL`, `Realm.Error`, `migration.oldSchema`/
// `newSchema` and files made with a custom schema (realm-swift's `realmWithSingleClassProperties`
// is a realm opened with a `DynamicSchema` here).
extension MigrationTests {
    /// A file at `url` whose only class is `className` with `properties`.
    private func realmWithSingleClassProperties(_ url: URL, className: String, properties: [DynamicProperty]) throws -> Realm {
        let schema = DynamicSchema(classes: [DynamicClassSchema(name: className, properties: properties)])
        return try Realm(configuration: Realm.Configuration(fileURL: url, syncWrites: false), dynamicSchema: schema)
    }

    /// The classes of the migrated file as stored (realm-swift's dynamic realm's schema).
    private func testFileSchema(schemaVersion: UInt64 = 1) throws -> DynamicSchema {
        try Realm(configuration: Realm.Configuration(fileURL: t.testRealmURL, schemaVersion: schemaVersion, syncWrites: false),
                  dynamicSchema: nil).dynamicSchema
    }

    /// Atoll's error for a file that is not there is `.fileNotFound` (realm-swift:
    /// `.invalidDatabase`, "has not been initialized").
    @Test func testSchemaVersionAtURL() throws {
        do {
            // Version should throw before Realm creation
            _ = try schemaVersionAtURL(t.defaultRealmURL)
            Issue.record("Expected an error")
        } catch Realm.Error.fileNotFound {
            // Success!
        } catch {
            Issue.record("Unexpected error \(error)")
        }

        _ = try t.realm()
        #expect(0 == (try schemaVersionAtURL(t.defaultRealmURL)), "Initial version should be 0")

        do {
            _ = try schemaVersionAtURL(URL(fileURLWithPath: "/dev/null"))
            Issue.record("Expected .filePermissionDenied or .fileAccess, but no error was raised")
        } catch Realm.Error.filePermissionDenied {
            // Success!
        } catch Realm.Error.fileAccess {
            // Success!
        } catch {
            Issue.record("Expected .filePermissionDenied or .fileAccess, got \(error)")
        }
    }

    @Test func testMigrationProperties() throws {
        _ = SwiftStringObject().objectSchema
        _ = SwiftBoolObject().objectSchema
        _ = try realmWithSingleClassProperties(t.defaultRealmURL, className: "SwiftStringObject",
                                               properties: [DynamicProperty(name: "stringCol", type: .int)])
        try testMigration { migration, _ in
            #expect(migration.oldSchema.objectSchema.count == 1)
            #expect(migration.newSchema.objectSchema.count > 1)
            #expect(migration.oldSchema.objectSchema[0].properties.count == 1)
            #expect(migration.newSchema["SwiftStringObject"]!.properties.count == 1)
            #expect(migration.oldSchema["SwiftStringObject"]!.properties[0].type == PropertyType.int)
            #expect(migration.newSchema["SwiftStringObject"]!["stringCol"]!.type == PropertyType.string)
        }
    }

    @Test func testMigrationObjectSchema() throws {
        let properties: [Property] = try {
            let realm = try t.realm()
            return try realm.write {
                let obj = SwiftObject()
                realm.add(obj)
                return obj.objectSchema.properties
            }
        }()

        try testMigration { migration, _ in
            #expect(migration.oldSchema["SwiftObject"]!.properties == properties)
            #expect(migration.newSchema["SwiftObject"]!.properties == properties)
            var enumerated = false
            migration.enumerateObjects(ofType: "SwiftObject") { oldObj, newObj in
                guard let oldObj, let newObj else {
                    Issue.record("did not get objects in enumerate")
                    return
                }
                enumerated = true
                #expect(oldObj.objectSchema.properties == properties)
                #expect(newObj.objectSchema.properties == properties)
            }
            #expect(enumerated)
        }
    }

    @Test func testDeleteData() throws {
        do {
            let realm = try realmWithSingleClassProperties(t.defaultRealmURL, className: "DeletedClass",
                                                           properties: [DynamicProperty(name: "id", type: .int)])
            try realm.write { try realm.dynamicCreate("DeletedClass", value: ["id": 0]) }
        }
        _ = SwiftStringObject().objectSchema
        try testMigration { migration, oldSchemaVersion in
            #expect(oldSchemaVersion == 0, "Initial schema version should be 0")

            #expect(migration.deleteData(forType: "DeletedClass"))
            #expect(!migration.deleteData(forType: "NoSuchClass"))

            migration.create(SwiftStringObject.className(), value: ["migration"])
            #expect(migration.deleteData(forType: SwiftStringObject.className()))
        } validation: { realm in
            let schema = try testFileSchema()
            #expect(schema[className: "DeletedClass"] == nil)
            #expect(0 == realm.objects(SwiftStringObject.self).count)
        }
    }

    @Test func testRenameProperty() throws {
        do {
            let realm = try realmWithSingleClassProperties(t.defaultRealmURL, className: "SwiftStringObject",
                                                           properties: [DynamicProperty(name: "before_stringCol", type: .string)])
            try realm.write { try realm.dynamicCreate("SwiftStringObject", value: ["before_stringCol": "a"]) }
        }
        _ = SwiftStringObject().objectSchema
        try testMigration { migration, _ in
            #expect(migration.oldSchema.objectSchema[0].properties.count == 1)
            migration.renameProperty(onType: "SwiftStringObject", from: "before_stringCol", to: "stringCol")
        } validation: { realm in
            let schema = try testFileSchema()
            #expect(schema[className: "SwiftStringObject"]!.properties.count == 1)
            #expect(1 == realm.objects(SwiftStringObject.self).count)
            #expect("a" == realm.objects(SwiftStringObject.self).first!.stringCol)
        }
    }

    /// realm-swift's `.schemaMismatch` is Atoll's `.migrationRequired` (the same RealmSwift code).
    @Test func testFailOnSchemaMismatch() throws {
        _ = try realmWithSingleClassProperties(t.defaultRealmURL, className: "SwiftEmployeeObject",
                                               properties: [DynamicProperty(name: "name", type: .string)])
        let config = Realm.Configuration(fileURL: t.defaultRealmURL, objectTypes: [SwiftEmployeeObject.self])
        do {
            _ = try Realm(configuration: config)
            Issue.record("opening with a changed schema succeeded")
        } catch Realm.Error.schemaMismatch {
            // Success
        } catch {
            Issue.record("Unexpected error \(error)")
        }
    }

    @Test func testDeleteRealmIfMigrationNeededWithSetCustomSchema() throws {
        _ = try realmWithSingleClassProperties(t.defaultRealmURL, className: "SwiftEmployeeObject",
                                               properties: [DynamicProperty(name: "name", type: .string)])
        var config = Realm.Configuration(fileURL: t.defaultRealmURL, objectTypes: [SwiftEmployeeObject.self])
        config.migrationBlock = { _, _ in Issue.record("Migration block should not be called") }
        config.deleteRealmIfMigrationNeeded = true
        _ = try Realm(configuration: config)
    }
}

// The list part of realm-swift's testMigrationObject (its AnyRealmValue, Decimal128,
// MutableSet, Map and description parts wait for those types). A migration object's list is
// read with `dynamicList(_:)` (realm-swift also casts the subscript's value to
// `List<MigrationObject>`, which Atoll's array cannot be; README, Differences).
extension MigrationTests {
    @Test func testMigrationObjectLists() throws {
        do {
            let realm = try t.realm()
            try realm.write {
                let object = SwiftObject()
                object.boolCol = true
                object.objectCol = SwiftBoolObject(value: [true])
                object.arrayCol.append(SwiftBoolObject(value: [false]))
                realm.add(object)
            }
        }
        try testMigration { migration, _ in
            var enumerated = false
            migration.enumerateObjects(ofType: "SwiftObject") { oldObj, newObj in
                guard let oldObj, let newObj else {
                    Issue.record("did not get objects in enumerate")
                    return
                }
                #expect((oldObj["boolCol"] as! Bool) == true)
                #expect((newObj["boolCol"] as! Bool) == true)
                #expect((oldObj["intCol"] as! Int) == 123)
                newObj["dateCol"] = Date(timeIntervalSince1970: 2)
                newObj["objectIdCol"] = ObjectId("abcdef123456abcdef123456")

                let falseObj = SwiftBoolObject(value: [false])
                newObj["objectCol"] = falseObj

                var list = newObj.dynamicList("arrayCol")
                list[0]["boolCol"] = true
                list.append(newObj["objectCol"] as! MigrationObject)

                let trueObj = migration.create(SwiftBoolObject.className(), value: [true])!
                list.append(trueObj)

                // verify list property
                list = newObj.dynamicList("arrayCol")
                #expect(list.count == 3)
                #expect((list[0]["boolCol"] as! Bool) == true)
                #expect((list[1]["boolCol"] as! Bool) == false)
                #expect((list[2]["boolCol"] as! Bool) == true)

                // set it again
                newObj["arrayCol"] = [falseObj, trueObj]
                #expect(list.count == 2)

                newObj["arrayCol"] = [SwiftBoolObject(value: [false])]
                #expect(list.count == 1)
                #expect((list[0]["boolCol"] as! Bool) == false)
                enumerated = true
            }
            #expect(enumerated)
        } validation: { realm in
            let object = realm.objects(SwiftObject.self).first!
            #expect(object.boolCol == true)
            #expect(object.dateCol == Date(timeIntervalSince1970: 2))
            #expect(object.objectIdCol == ObjectId("abcdef123456abcdef123456"))
            #expect(object.objectCol!.boolCol == false)
            #expect(object.arrayCol.count == 1)
            #expect(object.arrayCol[0].boolCol == false)
        }
    }
}
