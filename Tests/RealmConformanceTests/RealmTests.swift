// Port of realm-swift's RealmSwift/Tests/RealmTests.swift, expected values kept.
//
// Differences checked as Atoll documents them (README, "Differences from RealmSwift"):
// - invalid operations inside a write (`assertThrows(realm.add(...))` in a write) make the write
//   throw; the same operations outside a write, `cancelWrite()` outside a write and
//   `objects(Object.self)` stop the program (misuse), checked in a child process;
// - each `Realm(...)` is a new instance, so realm-swift's `try! Realm()` inside a write of the
//   same thread is the realm the write belongs to (`realm` here), and a second instance that
//   begins a write while the thread has one open throws `.invalidTransaction`;
// - a `DynamicObject`'s list reads as an array through the subscript and as a `DynamicList`
//   through `dynamicList(_:)` (realm-swift: `List<DynamicObject>` for both).
//
// Not ported:
// - testUnsupportedFileFormatVersion, testFileFormatUpgradeRequiredButDisabled — need Realm's
//   bundled file-format fixtures (Realm files of older formats);
// - testReadOnlyFile, testFilePermissionDenied — file permissions and the immutable attribute
//   do not stop root, which the tests run as here;
// - the last assertion of testReadOnly (opening read-write while a read-only instance is open
//   raises "Realm has different readOnly settings") — Atoll opens the file read-write beside
//   the read-only instance;
// - testInitCustomClassList, testDeleteMutableSetOfObjects, testDynamicObjectMutableSetProperties —
//   need EmbeddedObject / MutableSet;
// - testAsyncTransaction*, testAsyncRefresh*, testAsyncWrite*, testOpenBehaviorForLocalRealm —
//   async transactions and `Realm.open`;
// - testAutorefresh — needs a run loop on the test thread (Linux threads have none; Atoll
//   autorefreshes queue-confined realms, covered by AtollTests);
// - testSetDefaultLogLevel, testDefaultLogger — the logger API.

import Atoll
import AtollTestSupport
import Foundation
import Testing

private struct IntentionalError: Error, Equatable {}

@Suite struct RealmTests {
    let t = RealmTestCase()

    @Test func testSchema() throws {
        let realm = try t.realm()
        _ = realm.objects(SwiftStringObject.self).count
        let schema = realm.schema
        #expect(schema.filter { $0.className == "SwiftStringObject" }.count == 1)
    }

    @Test func testIsEmpty() throws {
        let realm = try t.realm()
        #expect(realm.isEmpty, "Realm should be empty on creation.")

        realm.beginWrite()
        realm.create(SwiftStringObject.self, value: ["a"])
        #expect(!realm.isEmpty, "Realm should not be empty within a write transaction after adding an object.")
        realm.cancelWrite()

        #expect(realm.isEmpty, "Realm should be empty after canceling a write transaction that added an object.")

        realm.beginWrite()
        realm.create(SwiftStringObject.self, value: ["a"])
        try realm.commitWrite()
        #expect(!realm.isEmpty, "Realm should not be empty after committing a write transaction that added an object.")
    }

    /// Without the part writing through a second instance inside the first's write (one
    /// instance per `Realm(...)`: README).
    @Test func testInitInMemory() throws {
        do {
            let realm = try t.inMemoryRealm("identifier")
            try realm.write { realm.create(SwiftIntObject.self, value: [1]) }
        }
        let realm = try t.inMemoryRealm("identifier")
        #expect(realm.objects(SwiftIntObject.self).count == 0)

        try realm.write {
            realm.create(SwiftIntObject.self, value: [1])
            #expect(realm.objects(SwiftIntObject.self).count == 1)
        }
        let realm2 = try t.inMemoryRealm("identifier2")
        #expect(realm2.objects(SwiftIntObject.self).count == 0)
    }

    @Test func testWrite() throws {
        let realm = try t.realm()
        // Opened before the write: opening may itself write (tables of classes used since).
        let other = try t.realm()
        try realm.write {
            // realm-swift: assertThrows(try! Realm().beginWrite()), assertThrows(try! Realm().write { }).
            #expect(throws: AtollError.self) { try other.write {} }
            realm.create(SwiftStringObject.self, value: ["1"])
            #expect(realm.objects(SwiftStringObject.self).count == 1)
        }
        #expect(realm.objects(SwiftStringObject.self).count == 1)
    }

    @Test func testWriteWithoutNotifying() throws {
        let realm = try t.realm()
        var called = false
        let token = realm.observe { _, _ in called = true }
        try realm.write(withoutNotifying: [token]) { realm.deleteAll() }
        // local realm notifications are called synchronously so no need to wait for anything
        #expect(!called, "should not have been called")
        token.invalidate()
    }

    @Test func testBeginWrite() throws {
        let realm = try t.realm()
        let other = try t.realm()
        realm.beginWrite()
        // realm-swift: assertThrows(try! Realm().beginWrite()) — a second write of the thread.
        other.beginWrite()
        #expect(throws: AtollError.self) { try other.commitWrite() }
        realm.cancelWrite()
        realm.beginWrite()
        realm.create(SwiftStringObject.self, value: ["1"])
        #expect(realm.objects(SwiftStringObject.self).count == 1)
        realm.cancelWrite()
    }

    @Test func testWriteReturning() throws {
        let realm = try t.realm()
        let object = try realm.write { realm.create(SwiftStringObject.self, value: ["1"]) }
        #expect(object.stringCol == "1")
    }

    @Test func testCommitWrite() throws {
        let realm = try t.realm()
        realm.beginWrite()
        realm.create(SwiftStringObject.self, value: ["1"])
        try realm.commitWrite()
        #expect(realm.objects(SwiftStringObject.self).count == 1)
        realm.beginWrite()
        realm.cancelWrite()
    }

    @Test func testCancelWrite() throws {
        // realm-swift: assertThrows(try! Realm().cancelWrite()) outside a write.
        try MisuseStop.stops("conformance-cancel-write-outside-write", with: "cancelWrite() called outside a write transaction")
        let realm = try t.realm()
        realm.beginWrite()
        realm.create(SwiftStringObject.self, value: ["1"])
        realm.cancelWrite()
        #expect(realm.objects(SwiftStringObject.self).count == 0)

        try realm.write {
            let object = realm.create(SwiftStringObject.self)
            realm.cancelWrite()
            #expect(object.isInvalidated)
            #expect(realm.objects(SwiftStringObject.self).count == 0)
        }
        #expect(realm.objects(SwiftStringObject.self).count == 0)
    }

    @Test func testThrowsWrite() throws {
        let realm = try t.realm()
        #expect(throws: IntentionalError.self) {
            try realm.write { throw IntentionalError() }
        }
        #expect(throws: IntentionalError.self) {
            try realm.write {
                realm.create(SwiftStringObject.self, value: ["1"])
                throw IntentionalError()
            }
        }
        #expect(realm.objects(SwiftStringObject.self).count == 0)
    }

    @Test func testInWriteTransaction() throws {
        let realm = try t.realm()
        #expect(!realm.isInWriteTransaction)
        realm.beginWrite()
        #expect(realm.isInWriteTransaction)
        realm.cancelWrite()
        try realm.write {
            #expect(realm.isInWriteTransaction)
            realm.cancelWrite()
            #expect(!realm.isInWriteTransaction)
        }
        realm.beginWrite()
        realm.invalidate()
        #expect(!realm.isInWriteTransaction)
    }

    @Test func testAddSingleObject() throws {
        let realm = try t.realm()
        #expect(realm.objects(SwiftObject.self).count == 0)
        let defaultRealmObject = SwiftObject()
        try realm.write {
            realm.add(defaultRealmObject)
            #expect(realm.objects(SwiftObject.self).count == 1)
            realm.add(defaultRealmObject)
            #expect(realm.objects(SwiftObject.self).count == 1)
        }
        #expect(realm.objects(SwiftObject.self).count == 1)

        let testRealm = try t.realmWithTestPath()
        assertWriteFails(testRealm, kind: .invalidArgument) { testRealm.add(defaultRealmObject) }
        #expect(testRealm.objects(SwiftObject.self).count == 0)
    }

    @Test func testAddWithUpdateSingleObject() throws {
        let realm = try t.realm()
        #expect(realm.objects(SwiftPrimaryStringObject.self).count == 0)
        let defaultRealmObject = SwiftPrimaryStringObject()
        try realm.write {
            realm.add(defaultRealmObject, update: .all)
            #expect(realm.objects(SwiftPrimaryStringObject.self).count == 1)
            realm.add(SwiftPrimaryStringObject(), update: .all)
            #expect(realm.objects(SwiftPrimaryStringObject.self).count == 1)
        }
        #expect(realm.objects(SwiftPrimaryStringObject.self).count == 1)

        let testRealm = try t.realmWithTestPath()
        assertWriteFails(testRealm, kind: .invalidArgument) { testRealm.add(defaultRealmObject, update: .all) }
    }

    @Test func testAddMultipleObjects() throws {
        let realm = try t.realm()
        #expect(realm.objects(SwiftObject.self).count == 0)
        try realm.write {
            let objs = [SwiftObject(), SwiftObject()]
            realm.add(objs)
            #expect(realm.objects(SwiftObject.self).count == 2)
        }
        #expect(realm.objects(SwiftObject.self).count == 2)

        let testRealm = try t.realmWithTestPath()
        assertWriteFails(testRealm, kind: .invalidArgument) { testRealm.add(realm.objects(SwiftObject.self)) }
    }

    @Test func testAddWithUpdateMultipleObjects() throws {
        let realm = try t.realm()
        #expect(realm.objects(SwiftPrimaryStringObject.self).count == 0)
        try realm.write {
            let objs = [SwiftPrimaryStringObject(), SwiftPrimaryStringObject()]
            realm.add(objs, update: .all)
            #expect(realm.objects(SwiftPrimaryStringObject.self).count == 1)
        }
        #expect(realm.objects(SwiftPrimaryStringObject.self).count == 1)

        let testRealm = try t.realmWithTestPath()
        assertWriteFails(testRealm, kind: .invalidArgument) { testRealm.add(realm.objects(SwiftPrimaryStringObject.self), update: .all) }
    }

    @Test func testDeleteSingleObject() throws {
        let realm = try t.realm()
        #expect(realm.objects(SwiftObject.self).count == 0)
        let defaultRealmObject = SwiftObject()
        // realm-swift: assertThrows(realm.delete(defaultRealmObject)) of an unmanaged object.
        assertWriteFails(realm, kind: .invalidArgument) { realm.delete(defaultRealmObject) }
        try realm.write {
            #expect(realm.objects(SwiftObject.self).count == 0)
            realm.add(defaultRealmObject)
            #expect(realm.objects(SwiftObject.self).count == 1)
            realm.delete(defaultRealmObject)
            #expect(realm.objects(SwiftObject.self).count == 0)
        }
        #expect(realm.objects(SwiftObject.self).count == 0)

        let testRealm = try t.realmWithTestPath()
        assertWriteFails(testRealm) { testRealm.delete(defaultRealmObject) }
    }

    @Test func testDeleteSequenceOfObjects() throws {
        let realm = try t.realm()
        #expect(realm.objects(SwiftObject.self).count == 0)
        let objs = [SwiftObject(), SwiftObject()]
        try realm.write {
            realm.add(objs)
            #expect(realm.objects(SwiftObject.self).count == 2)
            realm.delete(objs)
            #expect(realm.objects(SwiftObject.self).count == 0)
        }
        #expect(realm.objects(SwiftObject.self).count == 0)

        let testRealm = try t.realmWithTestPath()
        assertWriteFails(testRealm, kind: .invalidArgument) { testRealm.delete(objs) }
    }

    @Test func testDeleteListOfObjects() throws {
        let realm = try t.realm()
        #expect(realm.objects(SwiftCompanyObject.self).count == 0)
        try realm.write {
            let obj = SwiftCompanyObject()
            obj.employees.append(SwiftEmployeeObject())
            realm.add(obj)
            #expect(realm.objects(SwiftEmployeeObject.self).count == 1)
            realm.delete(obj.employees)
            #expect(obj.employees.count == 0)
            #expect(realm.objects(SwiftEmployeeObject.self).count == 0)
        }
        #expect(realm.objects(SwiftEmployeeObject.self).count == 0)
    }

    @Test func testDeleteResults() throws {
        let realm = try t.realmWithTestPath()
        #expect(realm.objects(SwiftCompanyObject.self).count == 0)
        try realm.write {
            realm.add(SwiftIntObject(value: [1]))
            realm.add(SwiftIntObject(value: [1]))
            realm.add(SwiftIntObject(value: [2]))
            #expect(realm.objects(SwiftIntObject.self).count == 3)
            realm.delete(realm.objects(SwiftIntObject.self).filter("intCol = 1"))
            #expect(realm.objects(SwiftIntObject.self).count == 1)
        }
        #expect(realm.objects(SwiftIntObject.self).count == 1)
    }

    @Test func testDeleteAll() throws {
        let realm = try t.realm()
        try realm.write {
            realm.add(SwiftObject())
            #expect(realm.objects(SwiftObject.self).count == 1)
            realm.deleteAll()
            #expect(realm.objects(SwiftObject.self).count == 0)
        }
        #expect(realm.objects(SwiftObject.self).count == 0)
    }

    @Test func testObjects() throws {
        let realm = try t.realm()
        try realm.write {
            realm.create(SwiftIntObject.self, value: [100])
            realm.create(SwiftIntObject.self, value: [200])
            realm.create(SwiftIntObject.self, value: [300])
        }
        #expect(realm.objects(SwiftStringObject.self).count == 0)
        #expect(realm.objects(SwiftIntObject.self).count == 3)
        // realm-swift: assertThrows(try! Realm().objects(Object.self)).
        try MisuseStop.stops("conformance-objects-of-object", with: "'Object' itself is not a model class")
    }

    @Test func testIntPrimaryKey() throws {
        func check<O: Object>(_ type: O.Type, _ key: (Int) -> Any) throws {
            let realm = try t.realm()
            try realm.write {
                realm.create(type, value: ["a", 1])
                realm.create(type, value: ["b", 2])
            }
            #expect(realm.object(ofType: type, forPrimaryKey: key(1)) != nil)
            #expect(realm.object(ofType: type, forPrimaryKey: key(0)) == nil)
        }
        try check(SwiftPrimaryIntObject.self) { $0 }
        try check(SwiftPrimaryInt8Object.self) { Int8($0) }
        try check(SwiftPrimaryInt16Object.self) { Int16($0) }
        try check(SwiftPrimaryInt32Object.self) { Int32($0) }
        try check(SwiftPrimaryInt64Object.self) { Int64($0) }
    }

    @Test func testOptionalIntPrimaryKey() throws {
        func check<O: Object, Wrapped: ExpressibleByIntegerLiteral>(_ type: O.Type, _ wrapped: Wrapped.Type) throws {
            let realm = try t.realm()
            try realm.write {
                realm.create(type, value: ["a", NSNull()])
                realm.create(type, value: ["b", 2])
            }
            #expect(realm.object(ofType: type, forPrimaryKey: NSNull()) != nil)
            #expect(realm.object(ofType: type, forPrimaryKey: nil as Wrapped?) != nil)
            #expect(realm.object(ofType: type, forPrimaryKey: 2 as Wrapped) != nil)
            #expect(realm.object(ofType: type, forPrimaryKey: 0 as Wrapped) == nil)
        }
        try check(SwiftPrimaryOptionalIntObject.self, Int.self)
        try check(SwiftPrimaryOptionalInt8Object.self, Int8.self)
        try check(SwiftPrimaryOptionalInt16Object.self, Int16.self)
        try check(SwiftPrimaryOptionalInt32Object.self, Int32.self)
        try check(SwiftPrimaryOptionalInt64Object.self, Int64.self)
    }

    @Test func testStringPrimaryKey() throws {
        let realm = try t.realm()
        try realm.write {
            realm.create(SwiftPrimaryStringObject.self, value: ["a", 1])
            realm.create(SwiftPrimaryStringObject.self, value: ["b", 2])
        }
        #expect(realm.object(ofType: SwiftPrimaryStringObject.self, forPrimaryKey: "a") != nil)
        #expect(realm.object(ofType: SwiftPrimaryStringObject.self, forPrimaryKey: "z") == nil)
    }

    @Test func testOptionalStringPrimaryKey() throws {
        let realm = try t.realm()
        try realm.write {
            realm.create(SwiftPrimaryStringObject.self, value: ["a", 1])
            realm.create(SwiftPrimaryStringObject.self, value: ["b", 2])
            realm.create(SwiftPrimaryOptionalStringObject.self, value: [NSNull(), 1])
            realm.create(SwiftPrimaryOptionalStringObject.self, value: ["b", 2])
        }
        #expect(realm.object(ofType: SwiftPrimaryOptionalStringObject.self, forPrimaryKey: NSNull()) != nil)
        #expect(realm.object(ofType: SwiftPrimaryOptionalStringObject.self, forPrimaryKey: "b") != nil)
        #expect(realm.object(ofType: SwiftPrimaryOptionalStringObject.self, forPrimaryKey: "z") == nil)
    }

    @Test func testUUIDPrimaryKey() throws {
        let realm = try t.realm()
        try realm.write {
            realm.create(SwiftPrimaryUUIDObject.self, value: [UUID(uuidString: "8a12daba-8b23-11eb-8dcd-0242ac130003")!, "a"])
            realm.create(SwiftPrimaryUUIDObject.self, value: [UUID(uuidString: "85d4fbee-6ec6-47df-bfa1-615931903d7e")!, "b"])
        }
        let object1 = realm.object(ofType: SwiftPrimaryUUIDObject.self, forPrimaryKey: UUID(uuidString: "8a12daba-8b23-11eb-8dcd-0242ac130003")!)
        #expect(object1?.stringCol == "a")
        let object2 = realm.object(ofType: SwiftPrimaryUUIDObject.self, forPrimaryKey: UUID(uuidString: "85d4fbee-6ec6-47df-bfa1-615931903d7e")!)
        #expect(object2?.stringCol == "b")
        #expect(realm.object(ofType: SwiftPrimaryUUIDObject.self, forPrimaryKey: UUID(uuidString: "4ee1fa48-8b23-11eb-8dcd-0242ac130003")!) == nil)
    }

    @Test func testObjectIdPrimaryKey() throws {
        let realm = try t.realm()
        try realm.write {
            realm.create(SwiftPrimaryObjectIdObject.self, value: [objectId("1234567890ab1234567890aa"), 1])
            realm.create(SwiftPrimaryObjectIdObject.self, value: [objectId("1234567890ab1234567890ab"), 2])
        }
        #expect(realm.object(ofType: SwiftPrimaryObjectIdObject.self, forPrimaryKey: objectId("1234567890ab1234567890aa"))?.intCol == 1)
        #expect(realm.object(ofType: SwiftPrimaryObjectIdObject.self, forPrimaryKey: objectId("1234567890ab1234567890ab"))?.intCol == 2)
        #expect(realm.object(ofType: SwiftPrimaryObjectIdObject.self, forPrimaryKey: objectId("1234567890ab1234567890ac")) == nil)
    }

    /// An empty write notifies `Realm.observe`.
    @Test func testObserve() throws {
        let realm = try t.realm()
        var notificationCalled = false
        let url = t.defaultRealmURL
        let token = realm.observe { _, realm in
            #expect(realm.configuration.fileURL == url)
            notificationCalled = true
        }
        #expect(!notificationCalled)
        try realm.write {}
        #expect(notificationCalled)
        token.invalidate()
    }

    @Test func testRemoveNotification() throws {
        let realm = try t.realm()
        var notificationCalled = false
        let token = realm.observe { _, _ in notificationCalled = true }
        token.invalidate()
        try realm.write {}
        #expect(!notificationCalled)
    }

    @Test func testRefresh() throws {
        let realm = try t.realm()
        realm.autorefresh = false
        var notifications = 0
        var token: NotificationToken?
        token = realm.observe { _, _ in
            token?.invalidate()
            notifications += 1
        }
        let results = realm.objects(SwiftStringObject.self)
        #expect(results.count == 0)

        let configuration = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write { _ = realm.create(SwiftStringObject.self, value: ["string"]) }
        }
        #expect(results.count == 0, "There should be 0 objects of type StringObject before refreshing")

        realm.refresh()
        #expect(notifications == 1)
        #expect(results.count == 1, "There should be 1 object of type StringObject")
        #expect(results[0].stringCol == "string", "Value of first column should be 'string'")
    }

    /// Atoll's `invalidate()` differs on purpose (README): objects read before stay usable and
    /// re-read the newest version, so `object.isInvalidated` stays false (realm-swift: true).
    @Test func testInvalidate() throws {
        let realm = try t.realm()
        let object = SwiftObject()
        try realm.write { realm.add(object) }
        realm.invalidate()
        #expect(object.isInvalidated == false)

        try realm.write { realm.add(SwiftObject()) }
        #expect(realm.objects(SwiftObject.self).count == 2)
        #expect(object.isInvalidated == false)
    }

    @Test func testWriteCopyToPath() throws {
        let realm = try t.realm()
        try realm.write { realm.add(SwiftObject()) }
        let fileURL = t.defaultRealmURL.deletingLastPathComponent().appendingPathComponent("copy.realm")
        try realm.writeCopy(toFile: fileURL)
        do {
            let copy = try Realm(configuration: Realm.Configuration(fileURL: fileURL))
            #expect(copy.objects(SwiftObject.self).count == 1)
            let frozenCopy = copy.freeze()
            #expect(frozenCopy.objects(SwiftObject.self).count == 1)
            #expect(frozenCopy.isFrozen)
            #expect(frozenCopy.objects(SwiftObject.self).isFrozen)
        }
        try FileManager.default.removeItem(at: fileURL)
    }

    /// realm-swift checks the count through `try! Realm()`, its thread's cached instance; here it
    /// is the one realm of the thread (`realm`).
    @Test func testThaw() throws {
        let realm = try t.realm()
        #expect(realm.objects(SwiftBoolObject.self).count == 0)
        let frozenRealm = Handoff(realm.freeze())
        #expect(frozenRealm.value.isFrozen)
        t.dispatchSyncNewThread {
            let thawedRealm = frozenRealm.value.thaw()
            #expect(!thawedRealm.isFrozen)
            try! thawedRealm.write { thawedRealm.create(SwiftBoolObject.self, value: ["boolCol": true]) }
        }
        #expect(realm.objects(SwiftBoolObject.self).count == 0)
        realm.refresh()
        #expect(realm.objects(SwiftBoolObject.self).count == 1)
    }

    @Test func testFileURL() throws {
        #expect(try Realm(configuration: .init(fileURL: t.testRealmURL)).configuration.fileURL == t.testRealmURL)
    }

    @Test func testReadOnly() throws {
        do {
            let realm = try t.realm()
            #expect(realm.configuration.readOnly == false)
            try realm.write { realm.create(SwiftIntObject.self, value: [100]) }
        }
        let config = Realm.Configuration(fileURL: t.defaultRealmURL, readOnly: true)
        let readOnlyRealm = try Realm(configuration: config)
        #expect(readOnlyRealm.configuration.readOnly == true)
        #expect(readOnlyRealm.objects(SwiftIntObject.self).count == 1)
    }

    @Test func testOpeningInvalidPathThrows() throws {
        let url = URL(fileURLWithPath: "/dev/null/foo")
        #expect(throws: AtollError.self) { try Realm(configuration: .init(fileURL: url)) }
    }

    @Test func testReadOnlyRealmMustExist() throws {
        let error = #expect(throws: AtollError.self) {
            try Realm(configuration: Realm.Configuration(fileURL: t.defaultRealmURL, readOnly: true))
        }
        #expect(error?.kind == .fileNotFound)
    }
}

// realm-swift tests that need the RealmSwift-shaped API (Realm(fileURL:), Realm.Error, the file
// class methods, Equatable realms, the dynamic API without `try`).
extension RealmTests {
    @Test func testInit() throws {
        #expect(try Realm(fileURL: t.testRealmURL).configuration.fileURL == t.testRealmURL)
    }

    /// realm-swift checks `.invalidDatabase` and Realm's message; Atoll's message is its own.
    @Test func testInitFailable() throws {
        try Data("a".utf8).write(to: t.defaultRealmURL)
        do {
            _ = try t.realm()
            Issue.record("opening a one-byte file succeeded")
        } catch Realm.Error.invalidDatabase {
            // Success
        } catch {
            Issue.record("Unexpected error \(error)")
        }
    }

    /// Atoll's `Realm(...)` instances inside the write are the realm the write belongs to (one
    /// instance per `Realm(...)`, README); a second instance that begins a write throws.
    @Test func testDynamicWrite() throws {
        let realm = try t.realm()
        let other = try t.realm()
        try realm.write {
            #expect(throws: AtollError.self) { try other.write {} }
            try realm.dynamicCreate("SwiftStringObject", value: ["stringCol": "1"])
            #expect(realm.objects(SwiftStringObject.self).count == 1)
        }
        #expect(realm.objects(SwiftStringObject.self).count == 1)
    }

    /// realm-swift's `dynamicCreate` takes an array (`["1"]`); Atoll's takes a dictionary.
    @Test func testDynamicWriteSubscripting() throws {
        let realm = try t.realm()
        realm.beginWrite()
        let object = try realm.dynamicCreate("SwiftStringObject", value: ["stringCol": "1"])
        try realm.commitWrite()
        let stringVal = object["stringCol"] as! String
        #expect(stringVal == "1", "Object Subscripting Failed")
    }

    /// realm-swift's `assertThrows(dynamicObjects("Object"))` stops the program in Atoll.
    @Test func testDynamicObjects() throws {
        let realm = try t.realm()
        try realm.write {
            realm.create(SwiftIntObject.self, value: [100])
            realm.create(SwiftIntObject.self, value: [200])
            realm.create(SwiftIntObject.self, value: [300])
        }
        _ = realm.objects(SwiftStringObject.self).count
        #expect(0 == realm.dynamicObjects("SwiftStringObject").count)
        #expect(3 == realm.dynamicObjects("SwiftIntObject").count)
        try MisuseStop.stops("conformance-dynamic-objects-of-object", with: "no class 'Object'")
    }

    /// A link reads as a `DynamicObject` in Atoll (realm-swift: the model class's accessor), so
    /// `objectCol`'s `boolCol` is read through the subscript.
    @Test func testDynamicObjectProperties() throws {
        let realm = try t.realm()
        try realm.write { realm.create(SwiftObject.self) }
        let object = realm.dynamicObjects("SwiftObject")[0]
        let dictionary = SwiftObject.defaultValues()
        expectDefaultValues(of: object, dictionary)
    }

    private func expectDefaultValues(of object: DynamicObject, _ dictionary: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) {
        for name in ["boolCol", "intCol", "int8Col", "int16Col", "int32Col", "int64Col", "doubleCol"] {
            #expect(object[name] as? NSNumber == dictionary[name] as! NSNumber?, "\(name)", sourceLocation: sourceLocation)
        }
        #expect(abs((object["floatCol"] as! Float) - (dictionary["floatCol"] as! Float)) <= 0.001, sourceLocation: sourceLocation)
        #expect(object["stringCol"] as! String? == dictionary["stringCol"] as! String?, sourceLocation: sourceLocation)
        #expect(object["binaryCol"] as! Data? == dictionary["binaryCol"] as! Data?, sourceLocation: sourceLocation)
        #expect(object["dateCol"] as! Date? == dictionary["dateCol"] as! Date?, sourceLocation: sourceLocation)
        #expect((object["objectCol"] as? DynamicObject)?["boolCol"] as? Bool == false, sourceLocation: sourceLocation)
    }

    /// Without `optNSStringCol` and `optDecimalCol` (Atoll's model has no NSString property and
    /// no Decimal128).
    @Test func testDynamicObjectOptionalProperties() throws {
        let realm = try t.realm()
        try realm.write { realm.create(SwiftOptionalDefaultValuesObject.self) }
        let object = realm.dynamicObjects("SwiftOptionalDefaultValuesObject")[0]
        let dictionary = SwiftOptionalDefaultValuesObject.defaultValues()
        for name in ["optIntCol", "optInt8Col", "optInt16Col", "optInt32Col", "optInt64Col", "optFloatCol", "optDoubleCol"] {
            #expect(object[name] as? NSNumber == dictionary[name] as! NSNumber?, "\(name)")
        }
        #expect(object["optStringCol"] as! String? == dictionary["optStringCol"] as! String?)
        #expect(object["optBinaryCol"] as! Data? == dictionary["optBinaryCol"] as! Data?)
        #expect(object["optDateCol"] as! Date? == dictionary["optDateCol"] as! Date?)
        #expect(object["optObjectIdCol"] as! ObjectId? == dictionary["optObjectIdCol"] as! ObjectId?)
        #expect((object["optObjectCol"] as? DynamicObject)?["boolCol"] as? Bool == true)
        #expect(object["optUuidCol"] as! UUID == dictionary["optUuidCol"] as! UUID)
    }

    @Test func testIterateDynamicObjects() throws {
        let realm = try t.realm()
        try realm.write {
            for _ in 1..<3 { realm.create(SwiftObject.self) }
        }
        let objects = realm.dynamicObjects("SwiftObject")
        let dictionary = SwiftObject.defaultValues()
        var count = 0
        for object in objects {
            expectDefaultValues(of: object, dictionary)
            count += 1
        }
        #expect(count == 2)
    }

    /// realm-swift casts `object["array"]` to `List<DynamicObject>`; Atoll's subscript gives an
    /// array, and `dynamicList(_:)` the live list (README, Differences). Both are checked.
    @Test func testDynamicObjectListProperties() throws {
        let realm = try t.realm()
        try realm.write {
            realm.create(SwiftArrayPropertyObject.self, value: ["string", [["array"]], [[2]]])
        }
        let object = realm.dynamicObjects("SwiftArrayPropertyObject")[0]
        #expect(object["name"] as? String == "string")

        let array = object.dynamicList("array")
        #expect(array.first!["stringCol"] as? String == "array")
        #expect(array.last!["stringCol"] as? String == "array")
        for object in array {
            #expect(object["stringCol"] as? String == "array")
        }
        #expect((object["array"] as? [DynamicObject])?.map { $0["stringCol"] as? String } == ["array"])

        let intArray = object.dynamicList("intArray")
        #expect(intArray[0]["intCol"] as? Int == 2)
        #expect(intArray.first!["intCol"] as? Int == 2)
        #expect(intArray.last!["intCol"] as? Int == 2)
        for object in intArray {
            #expect(object["intCol"] as? Int == 2)
        }
    }

    @Test func testDynamicObjectForPrimaryKey() throws {
        let realm = try t.realm()
        try realm.write {
            realm.create(SwiftPrimaryStringObject.self, value: ["a", 1])
            realm.create(SwiftPrimaryStringObject.self, value: ["b", 2])
        }
        #expect(realm.dynamicObject(ofType: "SwiftPrimaryStringObject", forPrimaryKey: "a") != nil)
        #expect(realm.dynamicObject(ofType: "SwiftPrimaryStringObject", forPrimaryKey: "z") == nil)
    }

    @Test func testDynamicObjectForPrimaryKeySubscripting() throws {
        let realm = try t.realm()
        try realm.write { realm.create(SwiftPrimaryStringObject.self, value: ["a", 1]) }
        let object = realm.dynamicObject(ofType: "SwiftPrimaryStringObject", forPrimaryKey: "a")
        let stringVal = object!["stringCol"] as! String
        #expect(stringVal == "a", "Object Subscripting Failed!")
    }

    @Test func testWriteCopyForConfiguration() throws {
        var localConfig = t.defaultConfiguration
        localConfig.fileURL = t.defaultRealmURL.deletingLastPathComponent().appendingPathComponent("original.realm")
        let realm = try Realm(configuration: localConfig)
        try realm.write { realm.add(SwiftBoolObject()) }
        #expect(realm.objects(SwiftBoolObject.self).count == 1)

        var destinationConfig = t.defaultConfiguration
        destinationConfig.fileURL = t.defaultRealmURL.deletingLastPathComponent().appendingPathComponent("destination.realm")
        try realm.writeCopy(configuration: destinationConfig)

        let destinationRealm = try Realm(configuration: destinationConfig)
        #expect(destinationRealm.objects(SwiftBoolObject.self).count == 1)
        try destinationRealm.write { destinationRealm.add(SwiftBoolObject()) }
        #expect(destinationRealm.objects(SwiftBoolObject.self).count == 2)

        let frozenRealm = destinationRealm.freeze()
        #expect(frozenRealm.isFrozen)
        #expect(frozenRealm.objects(SwiftBoolObject.self).isFrozen)
    }

    @Test func testSeedFilePath() throws {
        var localConfig = t.defaultConfiguration
        localConfig.fileURL = t.defaultRealmURL.deletingLastPathComponent().appendingPathComponent("original.realm")
        do {
            let realm = try Realm(configuration: localConfig)
            try realm.write { realm.add(SwiftBoolObject()) }
            #expect(realm.objects(SwiftBoolObject.self).count == 1)
        }

        var destinationConfig = t.defaultConfiguration
        destinationConfig.fileURL = t.defaultRealmURL.deletingLastPathComponent().appendingPathComponent("destination.realm")
        destinationConfig.seedFilePath = t.defaultRealmURL.deletingLastPathComponent().appendingPathComponent("original.realm")
        do {
            // Should copy the seed file over before opening
            let destinationRealm = try Realm(configuration: destinationConfig)
            #expect(destinationRealm.objects(SwiftBoolObject.self).count == 1)
            try destinationRealm.write { destinationRealm.add(SwiftBoolObject()) }
            #expect(destinationRealm.objects(SwiftBoolObject.self).count == 2)
        }
        do {
            let realm = try Realm(configuration: localConfig)
            try realm.write { realm.deleteAll() }
            #expect(realm.objects(SwiftBoolObject.self).count == 0)
        }
        do {
            // Should not have copied the seed file as the Realm already exists
            let destinationRealm = try Realm(configuration: destinationConfig)
            #expect(destinationRealm.objects(SwiftBoolObject.self).count == 2)
        }
    }

    @Test func testEquals() throws {
        let realm = try t.realm()
        #expect(try realm == t.realm())

        let testRealm = try t.realmWithTestPath()
        #expect(!(realm == testRealm))

        let sameOnOtherThread = LockedValue(true)
        let config = t.defaultConfiguration
        nonisolated(unsafe) let unsafeRealm = realm
        t.dispatchSyncNewThread {
            let otherThreadRealm = try! Realm(configuration: config)
            sameOnOtherThread.value = unsafeRealm == otherThreadRealm
        }
        #expect(!sameOnOtherThread.value)
    }

    @Test func testCatchSpecificErrors() throws {
        do {
            _ = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: "/dev/null/foo")))
            Issue.record("Error should be thrown")
        } catch Realm.Error.fileOperationFailed {
            // Success to catch the error
        } catch {
            Issue.record("Unexpected error \(error)")
        }
        do {
            var config = t.defaultConfiguration
            config.readOnly = true
            _ = try Realm(configuration: config)
            Issue.record("Error should be thrown")
        } catch Realm.Error.fileNotFound {
            // Success to catch the error
        } catch {
            Issue.record("Unexpected error \(error)")
        }
    }

    @Test func testExists() throws {
        let config = t.defaultConfiguration
        #expect(!Realm.fileExists(for: config))
        do { _ = try Realm(configuration: config) }
        #expect(Realm.fileExists(for: config))
        #expect(try Realm.deleteFiles(for: config))
        #expect(!Realm.fileExists(for: config))
    }
}
