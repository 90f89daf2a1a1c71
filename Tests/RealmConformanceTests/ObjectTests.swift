// Port of realm-swift's RealmSwift/Tests/ObjectTests.swift, expected values kept. Object
// equality (`assertEqual(a, b)`) is `isSameObject(as:)`; Realm equality is `===` on the one
// instance (each `Realm(...)` is a new instance: README). Notifications that realm-swift waits
// for with expectations arrive synchronously here: at the commit for the realm's own writes, at
// `refresh()` for other threads'.
//
// Not ported:
// - testSharedSchemaUnmanaged, testSharedSchemaManaged, testBaseClassesDoNotHaveSharedSchema —
//   need `sharedSchema()` (Objective-C schema cache; Atoll has ObjectSchema.of);
// - testDescription — needs RealmSwift's Objective-C description format (Atoll's is its own);
// - testValueForKeyMutableSet, testSettingUnmanagedObjectValuesWithBadSwiftDictionary (set half),
//   testDynamicMutableSet, testMutableSetPropertyNotifications — need MutableSet;
// - testSettingUnmanagedObjectValuesWithBadSwiftDictionary — an unmanaged setValue cannot throw
//   and has no write to fail; Atoll keeps the old value (documented on setValue(_:forKey:));
// - testDynamicMemberSubscript's `anyCol` lines — AnyRealmValue; the migration-object halves of
//   testSetValueForKey and testSubscript — they pass a MigrationObject where an `Object` is
//   expected; a `DynamicObject` is no `Object` in Atoll (README, Differences);
// - testObjectiveCTypeProperties — NSString/NSDate/NSData properties;
// - testModifyMultipleObservedPartialKeyPathLocally, testModifyUnobservedPartialKeyPathLocally —
//   need `observe(keyPaths:)` with Swift key paths;
// - testObserveOnDifferentQueue, testObserveKeyPathOnDifferentQueue,
//   testInvalidateObserverOnDifferentQueueBeforeRegistration, testObserveOnActor,
//   testAsyncSequenceObserve*, testObserveOnAlreadyCancelledTask — actor/async observation API;
// - testFreezeDynamicObject — Atoll's dynamic objects and lists are not frozen (no
//   `freeze()`); testFreezeAllPropertyTypes — its model has Decimal128, AnyRealmValue,
//   MutableSet and Map properties.
//
// Differences checked as Atoll documents them (README): freezing or thawing an unmanaged
// object and modifying a frozen one stop the program (realm-swift raises). `Realm(...)` opens a
// new instance each time; `thaw()` resolves in the calling thread's live realm of the file, as
// realm-swift's thread-cached instance, so testThawUpdatedOnDifferentThread keeps realm-swift's
// expectations (refreshing that realm, the test's `realm`).

import Atoll
import AtollTestSupport
import Foundation
import Testing

private let dynamicDefaultSeed = DynamicDefaultSeed()

private final class DynamicDefaultSeed: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { value += 1; return value } }
}

class SwiftDynamicDefaultObject: Object {
    @Persisted var intCol = dynamicDefaultSeed.next()
    @Persisted var floatCol = Float(dynamicDefaultSeed.next())
    @Persisted var doubleCol = Double(dynamicDefaultSeed.next())
    @Persisted var dateCol = Date(timeIntervalSinceReferenceDate: TimeInterval(dynamicDefaultSeed.next()))
    @Persisted var stringCol = UUID().uuidString
    @Persisted var binaryCol = UUID().uuidString.data(using: .utf8)

    override static func primaryKey() -> String? { "intCol" }
}

/// Collects object notifications (realm-swift uses expectations).
final class ObjectChangeLog<T: Object> {
    private(set) var changes: [ObjectChange<T>] = []
    func record(_ change: ObjectChange<T>) { changes.append(change) }

    /// realm-swift's `checkChange`: one change of one property, with these values.
    func expectOneChange<V: Equatable, U: Equatable>(_ name: String, _ old: V?, _ new: U?, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(changes.count == 1, "\(changes)", sourceLocation: sourceLocation)
        guard case .change(_, let properties)? = changes.first else {
            Issue.record("expected .change, got \(changes)", sourceLocation: sourceLocation)
            return
        }
        #expect(properties.count == 1, sourceLocation: sourceLocation)
        if let prop = properties.first {
            #expect(prop.name == name, sourceLocation: sourceLocation)
            #expect(prop.oldValue as? V == old, "old value \(String(describing: prop.oldValue))", sourceLocation: sourceLocation)
            #expect(prop.newValue as? U == new, "new value \(String(describing: prop.newValue))", sourceLocation: sourceLocation)
        }
    }
}

@Suite struct ObjectTests {
    let t = RealmTestCase()

    @Test func testRealm() throws {
        let standalone = SwiftStringObject()
        #expect(standalone.realm == nil)

        let realm = try t.realm()
        let persisted = try realm.write { () -> SwiftStringObject in
            let persisted = realm.create(SwiftStringObject.self)
            #expect(persisted.realm != nil)
            #expect(persisted.realm === realm)
            return persisted
        }
        #expect(persisted.realm != nil)
        #expect(persisted.realm === realm)

        let configuration = t.defaultConfiguration
        let other = Handoff(persisted.realm!)
        t.dispatchSyncNewThread {
            #expect((try? Realm(configuration: configuration)) !== other.value)
        }
    }

    @Test func testObjectSchema() {
        let object = SwiftObject()
        let schema = object.objectSchema
        #expect(schema.className == "SwiftObject")
        // realm-swift's list without intEnumCol, decimalCol, anyCol, setCol and mapCol.
        #expect(schema.properties.map { $0.name } ==
                ["boolCol", "intCol", "int8Col", "int16Col", "int32Col", "int64Col", "floatCol", "doubleCol",
                 "stringCol", "binaryCol", "dateCol", "objectIdCol", "objectCol", "uuidCol", "arrayCol"])
    }

    @Test func testObjectSchemaForObjectWithConvenienceInitializer() {
        let object = SwiftConvenienceInitializerObject(stringCol: "abc")
        let schema = object.objectSchema
        #expect(schema.className == "SwiftConvenienceInitializerObject")
        #expect(schema.properties.map { $0.name } == ["stringCol"])
    }

    @Test func testInvalidated() throws {
        let object = SwiftObject()
        #expect(!object.isInvalidated)
        let realm = try t.realm()
        try realm.write {
            realm.add(object)
            #expect(!object.isInvalidated)
        }
        try realm.write {
            realm.deleteAll()
            #expect(object.isInvalidated)
        }
        #expect(object.isInvalidated)
    }

    @Test func testInvalidatedWithCustomObjectClasses() throws {
        var config = t.defaultConfiguration
        config.objectTypes = [SwiftObject.self, SwiftBoolObject.self]
        let realm = try Realm(configuration: config)
        let object = SwiftObject()
        #expect(!object.isInvalidated)
        try realm.write {
            realm.add(object)
            #expect(!object.isInvalidated)
        }
        try realm.write {
            realm.deleteAll()
            #expect(object.isInvalidated)
        }
        #expect(object.isInvalidated)
    }

    @Test func testSchemaHasPrimaryKey() {
        #expect(Object.primaryKey() == nil, "primary key should default to nil")
        #expect(SwiftStringObject.primaryKey() == nil)
        #expect(SwiftStringObject().objectSchema.primaryKeyProperty == nil)
        #expect(SwiftPrimaryStringObject.primaryKey() == "stringCol")
        #expect(SwiftPrimaryStringObject().objectSchema.primaryKeyProperty?.name == "stringCol")
        #expect(SwiftPrimaryUUIDObject().objectSchema.primaryKeyProperty?.name == "uuidCol")
        #expect(SwiftPrimaryObjectIdObject().objectSchema.primaryKeyProperty?.name == "objectIdCol")
    }

    /// realm-swift raises for each assignment inside one write; each makes its own write throw
    /// here (README: invalid operations inside a write throw).
    @Test func testCannotUpdatePrimaryKey() throws {
        let realm = try t.realmWithTestPath()
        let primaryKeyReason = "cannot be changed"

        let intObj = SwiftPrimaryIntObject()
        intObj.intCol = 1
        intObj.intCol = 0 // can change primary key unattached
        #expect(intObj.intCol == 0)

        let optionalIntObj = SwiftPrimaryOptionalIntObject()
        optionalIntObj.intCol = 1
        optionalIntObj.intCol = 0 // can change primary key unattached
        #expect(optionalIntObj.intCol == 0)

        let stringObj = SwiftPrimaryStringObject()
        stringObj.stringCol = "a"
        stringObj.stringCol = "b" // can change primary key unattached
        #expect(stringObj.stringCol == "b")

        let uuidObj = SwiftPrimaryUUIDObject()
        uuidObj.uuidCol = UUID(uuidString: "8a12daba-8b23-11eb-8dcd-0242ac130003")!
        uuidObj.uuidCol = UUID(uuidString: "85d4fbee-6ec6-47df-bfa1-615931903d7e")!
        #expect(uuidObj.uuidCol == UUID(uuidString: "85d4fbee-6ec6-47df-bfa1-615931903d7e")!)

        let objectIdObj = SwiftPrimaryObjectIdObject()
        objectIdObj.objectIdCol = objectId("1234567890ab1234567890aa")
        objectIdObj.objectIdCol = objectId("1234567890ab1234567890ab")
        #expect(objectIdObj.objectIdCol == objectId("1234567890ab1234567890ab"))

        try realm.write {
            realm.add(intObj)
            realm.add(optionalIntObj)
            realm.add(stringObj)
            realm.add(uuidObj)
            realm.add(objectIdObj)
        }
        assertWriteFails(realm, reason: primaryKeyReason) { intObj.intCol = 2 }
        assertWriteFails(realm, reason: primaryKeyReason) { intObj["intCol"] = 2 }
        assertWriteFails(realm, reason: primaryKeyReason) { intObj.setValue(2, forKey: "intCol") }
        assertWriteFails(realm, reason: primaryKeyReason) { optionalIntObj.intCol = 2 }
        assertWriteFails(realm, reason: primaryKeyReason) { optionalIntObj["intCol"] = 2 }
        assertWriteFails(realm, reason: primaryKeyReason) { optionalIntObj.setValue(2, forKey: "intCol") }
        assertWriteFails(realm, reason: primaryKeyReason) { stringObj.stringCol = "c" }
        assertWriteFails(realm, reason: primaryKeyReason) { stringObj["stringCol"] = "c" }
        assertWriteFails(realm, reason: primaryKeyReason) { stringObj.setValue("c", forKey: "stringCol") }
        let otherUUID = UUID(uuidString: "4ee1fa48-8b23-11eb-8dcd-0242ac130003")!
        assertWriteFails(realm, reason: primaryKeyReason) { uuidObj.uuidCol = otherUUID }
        assertWriteFails(realm, reason: primaryKeyReason) { uuidObj["uuidCol"] = otherUUID }
        assertWriteFails(realm, reason: primaryKeyReason) { uuidObj.setValue(otherUUID, forKey: "uuidCol") }
        let otherId = objectId("1234567890ab1234567890ac")
        assertWriteFails(realm, reason: primaryKeyReason) { objectIdObj.objectIdCol = otherId }
        assertWriteFails(realm, reason: primaryKeyReason) { objectIdObj["objectIdCol"] = otherId }
        assertWriteFails(realm, reason: primaryKeyReason) { objectIdObj.setValue(otherId, forKey: "objectIdCol") }
        #expect(intObj.intCol == 0 && stringObj.stringCol == "b" && objectIdObj.objectIdCol == objectId("1234567890ab1234567890ab"))
    }

    @Test func testIgnoredProperties() {
        #expect(Object.ignoredProperties() == [], "ignored properties should default to []")
        #expect(SwiftIgnoredPropertiesObject.ignoredProperties().count == 2)
        #expect(SwiftIgnoredPropertiesObject().objectSchema["runtimeProperty"] == nil)
        // The ignored @Persisted property is not in the schema either.
        #expect(SwiftIgnoredPropertiesObject().objectSchema["runtimeDefaultProperty"] == nil)
        #expect(SwiftIgnoredPropertiesObject().objectSchema.properties.map(\.name) == ["name", "age"])
    }

    @Test func testIndexedProperties() {
        #expect(Object.indexedProperties() == [], "indexed properties should default to []")
        // realm-swift's list has anyCol too.
        #expect(SwiftIndexedPropertiesObject.indexedProperties().count == 9)
        let objectSchema = SwiftIndexedPropertiesObject().objectSchema
        for name in ["stringCol", "intCol", "int8Col", "int16Col", "int32Col", "int64Col", "boolCol", "dateCol", "uuidCol"] {
            #expect(objectSchema[name]?.isIndexed == true, "\(name)")
        }
        for name in ["floatCol", "doubleCol", "dataCol"] {
            #expect(objectSchema[name]?.isIndexed == false, "\(name)")
        }
    }

    @Test func testIndexedOptionalProperties() {
        #expect(SwiftIndexedOptionalPropertiesObject.indexedProperties().count == 9)
        let schema = SwiftIndexedOptionalPropertiesObject().objectSchema
        for name in ["optionalStringCol", "optionalDateCol", "optionalBoolCol", "optionalIntCol", "optionalInt8Col",
                     "optionalInt16Col", "optionalInt32Col", "optionalInt64Col", "optionalUUIDCol"] {
            #expect(schema[name]?.isIndexed == true, "\(name)")
        }
        for name in ["optionalDataCol", "optionalFloatCol", "optionalDoubleCol"] {
            #expect(schema[name]?.isIndexed == false, "\(name)")
        }
    }

    @Test func testDynamicDefaultPropertyValues() throws {
        func assertDifferentPropertyValues(_ obj1: SwiftDynamicDefaultObject, _ obj2: SwiftDynamicDefaultObject) {
            #expect(obj1.intCol != obj2.intCol)
            #expect(obj1.floatCol != obj2.floatCol)
            #expect(obj1.doubleCol != obj2.doubleCol)
            #expect(abs(obj1.dateCol.timeIntervalSinceReferenceDate - obj2.dateCol.timeIntervalSinceReferenceDate) > 0.01)
            #expect(obj1.stringCol != obj2.stringCol)
            #expect(obj1.binaryCol != obj2.binaryCol)
        }
        assertDifferentPropertyValues(SwiftDynamicDefaultObject(), SwiftDynamicDefaultObject())
        let realm = try t.realm()
        try realm.write {
            assertDifferentPropertyValues(realm.create(SwiftDynamicDefaultObject.self), realm.create(SwiftDynamicDefaultObject.self))
        }
    }

    @Test func testValueForKey() throws {
        let test: (SwiftObject) -> Void = { object in
            #expect(object.value(forKey: "boolCol") as? Bool == false)
            #expect(object.value(forKey: "intCol") as? Int == 123)
            #expect(object.value(forKey: "int8Col") as? Int8 == 123)
            #expect(object.value(forKey: "int16Col") as? Int16 == 123)
            #expect(object.value(forKey: "int32Col") as? Int32 == 123)
            #expect(object.value(forKey: "int64Col") as? Int64 == 123)
            #expect(object.value(forKey: "floatCol") as? Float == 1.23 as Float)
            #expect(object.value(forKey: "doubleCol") as? Double == 12.3)
            #expect(object.value(forKey: "stringCol") as? String == "a")
            #expect(object.value(forKey: "uuidCol") as? UUID == UUID(uuidString: "137decc8-b300-4954-a233-f89909f4fd89")!)
            #expect(object.value(forKey: "binaryCol") as? Data == Data("a".utf8))
            #expect(object.value(forKey: "dateCol") as? Date == Date(timeIntervalSince1970: 1))
            #expect((object.value(forKey: "objectCol") as? SwiftBoolObject)?.boolCol == false)
            #expect(object.value(forKey: "arrayCol") is List<SwiftBoolObject>)
        }
        test(SwiftObject())
        let realm = try t.realm()
        try realm.write {
            test(realm.create(SwiftObject.self))
            let addedObj = SwiftObject()
            realm.add(addedObj)
            test(addedObj)
        }
    }

    @Test func testValueForKeyOptionals() throws {
        let test: (SwiftOptionalObject) -> Void = { object in
            for name in ["optStringCol", "optBinaryCol", "optDateCol", "optIntCol", "optInt8Col", "optInt16Col", "optInt32Col",
                         "optInt64Col", "optFloatCol", "optDoubleCol", "optBoolCol", "optUuidCol"] {
                #expect(object.value(forKey: name) == nil, "\(name)")
            }
        }
        test(SwiftOptionalObject())
        let realm = try t.realm()
        try realm.write {
            test(realm.create(SwiftOptionalObject.self))
            let addedObj = SwiftOptionalObject()
            realm.add(addedObj)
            test(addedObj)
        }
    }

    @Test func testValueForKeyList() throws {
        let test: (SwiftListObject) -> Void = { object in
            #expect((object.value(forKey: "int") as? List<Int>)?.first == nil)
            #expect((object.value(forKey: "int8") as? List<Int8>)?.first == nil)
            #expect((object.value(forKey: "int16") as? List<Int16>)?.first == nil)
            #expect((object.value(forKey: "int32") as? List<Int32>)?.first == nil)
            #expect((object.value(forKey: "int64") as? List<Int64>)?.first == nil)
            #expect((object.value(forKey: "float") as? List<Float>)?.first == nil)
            #expect((object.value(forKey: "double") as? List<Double>)?.first == nil)
            #expect((object.value(forKey: "string") as? List<String>)?.first == nil)
            #expect((object.value(forKey: "data") as? List<Data>)?.first == nil)
            #expect((object.value(forKey: "date") as? List<Date>)?.first == nil)
            #expect((object.value(forKey: "objectId") as? List<ObjectId>)?.first == nil)
            #expect((object.value(forKey: "uuid") as? List<UUID>)?.first == nil)
            #expect((object.value(forKey: "intOpt") as? List<Int?>)?.first as Any? == nil)
            #expect((object.value(forKey: "stringOpt") as? List<String?>)?.first as Any? == nil)
            #expect((object.value(forKey: "uuidOpt") as? List<UUID?>)?.first as Any? == nil)
            #expect(object.value(forKey: "int") is List<Int>)
            #expect(object.value(forKey: "uuidOpt") is List<UUID?>)
        }
        test(SwiftListObject())
        let realm = try t.realm()
        try realm.write {
            test(realm.create(SwiftListObject.self))
            let addedObj = SwiftListObject()
            realm.add(addedObj)
            test(addedObj)
        }
    }

    @Test func testValueForKeyLinkingObjects() throws {
        let test: (SwiftDogObject) -> Void = { object in
            let owners = object.value(forKey: "owners") as? LinkingObjects<SwiftOwnerObject>
            #expect(owners != nil)
            if object.realm != nil {
                #expect(owners?.first?.name == "owner name")
            }
        }
        let dog = SwiftDogObject()
        let owner = SwiftOwnerObject(value: ["owner name", dog])
        test(dog)
        let realm = try t.realm()
        try realm.write {
            test(realm.create(SwiftOwnerObject.self, value: owner).dog!)
            realm.add(owner)
            test(dog)
        }
    }

    @Test func testSettingUnmanagedObjectValuesWithSwiftDictionary() {
        let json: [String: Any] = ["name": "foo", "array": [["stringCol": "bar"]], "intArray": [["intCol": 50]]]
        let object = SwiftArrayPropertyObject()
        json.keys.forEach { key in object.setValue(json[key], forKey: key) }
        #expect(object.name == "foo")
        #expect(object.array.first?.stringCol == "bar")
        #expect(object.intArray.first?.intCol == 50)
    }

    @Test func testSetValueForKey() throws {
        func setter(_ object: Object, _ value: Any?, _ key: String) { object.setValue(value, forKey: key) }
        func getter(_ object: Object, _ key: String) -> Any? { object.value(forKey: key) }
        setAndTestAllTypes(setter, getter: getter, object: SwiftObject())
        let realm = try t.realm()
        try realm.write {
            let persistedObject = realm.create(SwiftObject.self)
            setAndTestAllTypes(setter, getter: getter, object: persistedObject)
        }
    }

    @Test func testSubscript() throws {
        func setter(_ object: Object, _ value: Any?, _ key: String) { object[key] = value }
        func getter(_ object: Object, _ key: String) -> Any? { object[key] }
        setAndTestAllTypes(setter, getter: getter, object: SwiftObject())
        let realm = try t.realm()
        try realm.write {
            let persistedObject = realm.create(SwiftObject.self)
            setAndTestAllTypes(setter, getter: getter, object: persistedObject)
        }
    }

    /// realm-swift's `setAndTestAllTypes`, without anyCol and setCol.
    private func setAndTestAllTypes(_ setter: (SwiftObject, Any?, String) -> Void, getter: (SwiftObject, String) -> Any?,
                                    object: SwiftObject) {
        setter(object, true, "boolCol")
        #expect(getter(object, "boolCol") as? Bool == true)
        setter(object, 321, "intCol")
        #expect(getter(object, "intCol") as? Int == 321)
        setter(object, Int8(1), "int8Col")
        #expect(getter(object, "int8Col") as? Int8 == 1)
        setter(object, Int16(321), "int16Col")
        #expect(getter(object, "int16Col") as? Int16 == 321)
        setter(object, Int32(321), "int32Col")
        #expect(getter(object, "int32Col") as? Int32 == 321)
        setter(object, Int64(321), "int64Col")
        #expect(getter(object, "int64Col") as? Int64 == 321)
        setter(object, NSNumber(value: 32.1 as Float), "floatCol")
        #expect(getter(object, "floatCol") as? Float == 32.1 as Float)
        setter(object, 3.21, "doubleCol")
        #expect(getter(object, "doubleCol") as? Double == 3.21)
        setter(object, "z", "stringCol")
        #expect(getter(object, "stringCol") as? String == "z")
        setter(object, Data("z".utf8), "binaryCol")
        #expect(getter(object, "binaryCol") as? Data == Data("z".utf8))
        setter(object, Date(timeIntervalSince1970: 333), "dateCol")
        #expect(getter(object, "dateCol") as? Date == Date(timeIntervalSince1970: 333))
        setter(object, UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD89"), "uuidCol")
        #expect(getter(object, "uuidCol") as? UUID == UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD89"))

        let boolObject = SwiftBoolObject(value: [true])
        setter(object, boolObject, "objectCol")
        #expect((getter(object, "objectCol") as? SwiftBoolObject)?.isSameObject(as: boolObject) == true)
        #expect((getter(object, "objectCol") as? SwiftBoolObject)?.boolCol == true)

        let list = List<SwiftBoolObject>()
        list.append(boolObject)
        setter(object, list, "arrayCol")
        #expect((getter(object, "arrayCol") as? List<SwiftBoolObject>)?.count == 1)
        #expect((getter(object, "arrayCol") as? List<SwiftBoolObject>)?.first?.isSameObject(as: boolObject) == true)

        list.removeAll()
        setter(object, list, "arrayCol")
        #expect((getter(object, "arrayCol") as? List<SwiftBoolObject>)?.count == 0)

        setter(object, [boolObject], "arrayCol")
        #expect((getter(object, "arrayCol") as? List<SwiftBoolObject>)?.count == 1)
        #expect((getter(object, "arrayCol") as? List<SwiftBoolObject>)?.first?.isSameObject(as: boolObject) == true)

        setter(object, nil, "arrayCol")
        #expect((getter(object, "arrayCol") as? List<SwiftBoolObject>)?.count == 0)

        setter(object, [boolObject], "arrayCol")
        setter(object, NSNull(), "arrayCol")
        #expect((getter(object, "arrayCol") as? List<SwiftBoolObject>)?.count == 0)

        if let realm = object.realm {
            let listRes = realm.objects(SwiftBoolObject.self).filter("boolCol == true")
            setter(object, listRes, "arrayCol")
            #expect((getter(object, "arrayCol") as? List<SwiftBoolObject>)?.count == listRes.count)
            #expect((getter(object, "arrayCol") as? List<SwiftBoolObject>)?.first?.isSameObject(as: boolObject) == true)
        }
    }

    // MARK: - Observation tests

    @Test func testObserveUnmanagedObject() throws {
        // realm-swift: assertThrows(SwiftIntObject().observe { _ in }, reason: "managed").
        try MisuseStop.stops("conformance-observe-unmanaged", with: "managed")
    }

    @Test func testDeleteObservedObject() throws {
        let realm = try t.realm()
        realm.beginWrite()
        let object0 = realm.create(SwiftIntObject.self, value: [0])
        let object1 = realm.create(SwiftIntObject.self, value: [0])
        try realm.commitWrite()

        let log0 = ObjectChangeLog<SwiftIntObject>()
        let token0 = object0.observe(log0.record)
        let log1 = ObjectChangeLog<SwiftIntObject>()
        let token1 = object1.observe(keyPaths: ["intCol"], log1.record)

        realm.beginWrite()
        realm.delete(object0)
        realm.delete(object1)
        try realm.commitWrite()

        for log in [log0, log1] {
            #expect(log.changes.count == 1)
            guard case .deleted? = log.changes.first else {
                Issue.record("expected .deleted, got \(log.changes)")
                continue
            }
        }
        token0.invalidate()
        token1.invalidate()
    }

    private func createObject(_ value: Int = 0) throws -> SwiftObject {
        let realm = try t.realm()
        return try realm.write { realm.create(SwiftObject.self, value: ["intCol": value]) }
    }

    @Test func testObserveInvalidKeyPath() throws {
        // realm-swift: assertThrows(object.observe(keyPaths: ["notAProperty"], ...),
        //   reason: "property 'notAProperty' not found in object of type 'SwiftObject'") and the
        //   same for "arrayCol.alsoNotAProperty" ('SwiftBoolObject').
        try MisuseStop.stops("conformance-observe-object-unknown-key-path", with: "property 'nonexistent' not found in object of type 'Note'")
        try MisuseStop.stops("conformance-observe-unknown-key-path-through-list", with: "property 'alsoNotAProperty' not found in object of type 'NoteTag'")
    }

    /// Changes made on the observing thread carry no old value, as in RealmSwift.
    @Test func testModifyObservedObjectLocally() throws {
        let object = try createObject()
        let log = ObjectChangeLog<SwiftObject>()
        let token = object.observe(log.record)
        try object.realm!.write { object.intCol = 2 }
        log.expectOneChange("intCol", Int?.none, 2)
        token.invalidate()
    }

    @Test func testModifyObservedKeyPathLocally() throws {
        let object = try createObject()
        let log = ObjectChangeLog<SwiftObject>()
        let token = object.observe(keyPaths: ["intCol"], log.record)
        try object.realm!.write { object.intCol = 2 }
        log.expectOneChange("intCol", Int?.none, 2)
        token.invalidate()
    }

    @Test func testModifyUnobservedKeyPathLocally() throws {
        let object = try createObject()
        // Expect no notification for "boolCol" keypath when "intCol" is modified
        let log = ObjectChangeLog<SwiftObject>()
        let token = object.observe(keyPaths: ["boolCol"], log.record)
        try object.realm!.write { object.intCol = 3 }
        #expect(log.changes.isEmpty)
        token.invalidate()
    }

    @Test func testModifyObservedObjectRemotely() throws {
        let object = try createObject(1)
        let log = ObjectChangeLog<SwiftObject>()
        let token = object.observe(log.record)
        let configuration = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write { realm.objects(SwiftObject.self).first!.intCol = 2 }
        }
        object.realm!.refresh()
        log.expectOneChange("intCol", 1, 2)
        token.invalidate()
    }

    @Test func testModifyObservedKeyPathRemotely() throws {
        let object = try createObject(123)
        let log = ObjectChangeLog<SwiftObject>()
        let token = object.observe(keyPaths: ["intCol"], log.record)
        let configuration = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write { realm.objects(SwiftObject.self).first!.intCol = 2 }
        }
        object.realm!.refresh()
        log.expectOneChange("intCol", 123, 2)
        token.invalidate()
    }

    @Test func testModifyUnobservedKeyPathRemotely() throws {
        let object = try createObject()
        let log = ObjectChangeLog<SwiftObject>()
        let token = object.observe(keyPaths: ["boolCol"], log.record)
        let configuration = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write {
                let first = realm.objects(SwiftObject.self).first!
                first.intCol += 1
            }
        }
        object.realm!.refresh()
        #expect(log.changes.isEmpty)
        token.invalidate()
    }

    @Test func testListPropertyNotifications() throws {
        let realm = try t.realm()
        realm.beginWrite()
        let object = realm.create(SwiftRecursiveObject.self)
        try realm.commitWrite()

        let log = ObjectChangeLog<SwiftRecursiveObject>()
        let token = object.observe(log.record)
        let configuration = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write {
                let obj = realm.objects(SwiftRecursiveObject.self).first!
                obj.objects.append(obj)
            }
        }
        realm.refresh()
        #expect(log.changes.count == 1)
        guard case .change(_, let properties)? = log.changes.first else {
            Issue.record("expected .change, got \(log.changes)")
            return
        }
        #expect(properties.map(\.name) == ["objects"])
        token.invalidate()
    }
}

extension ObjectTests {
    // MARK: - Key path notifications through lists, links and backlinks

    @Test func testListPropertyKeyPathNotifications() throws {
        let realm = try t.realm()
        realm.beginWrite()
        let employee = realm.create(SwiftEmployeeObject.self)
        let company = realm.create(SwiftCompanyObject.self)
        company.employees.append(employee)
        try realm.commitWrite()

        func observe(_ keyPaths: [String], _ write: () -> Void) throws -> [ObjectChange<SwiftCompanyObject>] {
            let log = ObjectChangeLog<SwiftCompanyObject>()
            let token = company.observe(keyPaths: keyPaths, log.record)
            try realm.write(write)
            token.invalidate()
            return log.changes
        }
        func expectEmployeesChanged(_ changes: [ObjectChange<SwiftCompanyObject>], sourceLocation: SourceLocation = #_sourceLocation) {
            guard changes.count == 1, case .change(_, let properties) = changes[0] else {
                Issue.record("expected one change, got \(changes)", sourceLocation: sourceLocation)
                return
            }
            #expect(properties.map(\.name) == ["employees"], sourceLocation: sourceLocation)
        }

        // Expect no notification for "employees" when "employee.hired" is changed
        #expect(try observe(["employees"]) { employee.hired = true }.isEmpty)
        // Expect a notification for "employees.hired" when "employee.hired" is changed
        expectEmployeesChanged(try observe(["employees.hired"]) {
            #expect(employee.hired)
            employee.hired = false
        })
        // Expect no notification for "employees.hired" when "employee.age" is changed.
        #expect(try observe(["employees.hired"]) { employee.age = 35 }.isEmpty)
        // Expect notification for "employees.hired" when an employee is deleted.
        expectEmployeesChanged(try observe(["employees.hired"]) { realm.delete(employee) })
        // Expect notification for "employees.hired" when an employee is added.
        expectEmployeesChanged(try observe(["employees.hired"]) { company.employees.append(realm.create(SwiftEmployeeObject.self)) })
        // Expect notification for "employees.hired" when an employee is reassigned.
        expectEmployeesChanged(try observe(["employees.hired"]) { company.employees[0] = realm.create(SwiftEmployeeObject.self) })
        // Expect notification for "employees" when an employee is added.
        expectEmployeesChanged(try observe(["employees"]) { company.employees.append(realm.create(SwiftEmployeeObject.self)) })
        // Expect notification for "employees" when an employee is reassigned.
        expectEmployeesChanged(try observe(["employees"]) { company.employees[0] = realm.create(SwiftEmployeeObject.self) })
        // Expect no notification for "employees" when "company.name" is changed
        #expect(try observe(["employees"]) { company.name = "changed" }.isEmpty)
    }

    /// An owner and its dog, as realm-swift's link and backlink key path tests start.
    private func ownerAndDog() throws -> (Realm, SwiftOwnerObject, SwiftDogObject) {
        let realm = try t.realm()
        realm.beginWrite()
        let person = realm.create(SwiftOwnerObject.self)
        let dog = realm.create(SwiftDogObject.self)
        person.dog = dog
        try realm.commitWrite()
        return (realm, person, dog)
    }

    private func changes<T: Object>(of object: T, keyPaths: [String], in realm: Realm, _ write: () -> Void) throws -> [ObjectChange<T>] {
        let log = ObjectChangeLog<T>()
        let token = object.observe(keyPaths: keyPaths, log.record)
        try realm.write(write)
        token.invalidate()
        return log.changes
    }

    private func changedNames<T: Object>(_ changes: [ObjectChange<T>]) -> [[String]] {
        changes.map { change in
            if case .change(_, let properties) = change { return properties.map(\.name) }
            return ["\(change)"]
        }
    }

    @Test func testLinkPropertyKeyPathNotifications1() throws {
        let (realm, person, dog) = try ownerAndDog()
        // Expect notification for "dog.dogName" when "dog.dogName" is changed
        #expect(changedNames(try changes(of: person, keyPaths: ["dog.dogName"], in: realm) { dog.dogName = "rex" }) == [["dog"]])
    }

    @Test func testLinkPropertyKeyPathNotifications2() throws {
        let (realm, person, _) = try ownerAndDog()
        // Expect notification for "dog.dogName" when "dog" is reassigned.
        #expect(changedNames(try changes(of: person, keyPaths: ["dog.dogName"], in: realm) { person.dog = SwiftDogObject() }) == [["dog"]])
    }

    @Test func testLinkPropertyKeyPathNotifications3() throws {
        let (realm, person, _) = try ownerAndDog()
        // Expect no notification for "dog" when "person.name" is changed
        #expect(try changes(of: person, keyPaths: ["dog"], in: realm) { person.name = "Teddy" }.isEmpty)
    }

    @Test func testLinkPropertyKeyPathNotifications4() throws {
        let (realm, person, dog) = try ownerAndDog()
        // Expect no notification for "dog" when "dog.dogName" is changed
        #expect(try changes(of: person, keyPaths: ["dog"], in: realm) { dog.dogName = "fido" }.isEmpty)
    }

    @Test func testBacklinkPropertyKeyPathNotifications1() throws {
        let (realm, _, dog) = try ownerAndDog()
        // Expect no notification for "owners" when "dog.dogName" is changed
        #expect(try changes(of: dog, keyPaths: ["owners"], in: realm) { dog.dogName = "fido" }.isEmpty)
    }

    @Test func testBacklinkPropertyKeyPathNotifications2() throws {
        let (realm, _, dog) = try ownerAndDog()
        // Expect no notification for "owners" when "owner.name" is changed
        #expect(try changes(of: dog, keyPaths: ["owners"], in: realm) { dog.owners.first!.name = "Tom" }.isEmpty)
    }

    @Test func testBacklinkPropertyKeyPathNotifications3() throws {
        let (realm, _, dog) = try ownerAndDog()
        // Expect notification for "owners.name" when "owner.name" is changed
        #expect(changedNames(try changes(of: dog, keyPaths: ["owners.name"], in: realm) { dog.owners.first!.name = "Abe" }) == [["owners"]])
    }

    @Test func testBacklinkPropertyKeyPathNotifications4() throws {
        let (realm, _, dog) = try ownerAndDog()
        // Expect notification for "owners" when a new owner is added.
        #expect(changedNames(try changes(of: dog, keyPaths: ["owners"], in: realm) {
            let newPerson = SwiftOwnerObject()
            realm.add(newPerson)
            newPerson.dog = dog
        }) == [["owners"]])
    }

    @Test func testBacklinkPropertyKeyPathNotifications5() throws {
        let (realm, _, dog) = try ownerAndDog()
        // Expect notification for "owners.name" when a new owner is added.
        #expect(changedNames(try changes(of: dog, keyPaths: ["owners.name"], in: realm) {
            let newPerson = SwiftOwnerObject()
            realm.add(newPerson)
            newPerson.dog = dog
        }) == [["owners"]])
    }

    // MARK: - Optional properties, changed by another thread

    private func changeOptInt(to value: Int?) {
        let configuration = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write { realm.objects(SwiftOptionalDefaultValuesObject.self).first!.optIntCol = value }
        }
    }

    @Test func testOptionalPropertyNotifications() throws {
        let realm = try t.realm()
        let object = SwiftOptionalDefaultValuesObject()
        try realm.write { realm.add(object) }

        for (old, new) in [(1, 2), (2, nil), (nil, 3)] as [(Int?, Int?)] {
            let log = ObjectChangeLog<SwiftOptionalDefaultValuesObject>()
            let token = object.observe(log.record)
            changeOptInt(to: new)
            realm.refresh()
            log.expectOneChange("optIntCol", old, new)
            token.invalidate()
        }
    }

    @Test func testOptionalPropertyKeyPathNotifications() throws {
        let realm = try t.realm()
        let object = SwiftOptionalDefaultValuesObject()
        try realm.write { realm.add(object) }

        // Expect notification for change on observed path
        var log = ObjectChangeLog<SwiftOptionalDefaultValuesObject>()
        var token = object.observe(keyPaths: ["optIntCol"], log.record)
        changeOptInt(to: 2)
        realm.refresh()
        log.expectOneChange("optIntCol", 1, 2)
        token.invalidate()

        // Expect no notification for change outside of observed path
        log = ObjectChangeLog<SwiftOptionalDefaultValuesObject>()
        token = object.observe(keyPaths: ["optStringCol"], log.record)
        changeOptInt(to: 3)
        realm.refresh()
        #expect(log.changes.isEmpty)
        token.invalidate()

        // Expect notification for change from value to nil on observed path
        log = ObjectChangeLog<SwiftOptionalDefaultValuesObject>()
        token = object.observe(keyPaths: ["optIntCol"], log.record)
        changeOptInt(to: nil)
        realm.refresh()
        log.expectOneChange("optIntCol", 3, Int?.none)
        token.invalidate()

        // Expect notification for change from nil to value on observed path
        log = ObjectChangeLog<SwiftOptionalDefaultValuesObject>()
        token = object.observe(keyPaths: ["optIntCol"], log.record)
        changeOptInt(to: 2)
        realm.refresh()
        log.expectOneChange("optIntCol", Int?.none, 2)
        token.invalidate()
    }

    // MARK: - Runtime types

    @Test func testRetrievingObjectWithRuntimeType() throws {
        let realm = try t.realm()
        let unmanagedStringObject = SwiftPrimaryStringObject()
        unmanagedStringObject.stringCol = UUID().uuidString
        let managedStringObject = SwiftPrimaryStringObject()
        managedStringObject.stringCol = UUID().uuidString
        try realm.write { realm.add(managedStringObject) }
        // Shouldn't throw when using type(of:).
        #expect(realm.object(ofType: type(of: unmanagedStringObject), forPrimaryKey: managedStringObject.stringCol) != nil)
        #expect(realm.object(ofType: type(of: managedStringObject), forPrimaryKey: managedStringObject.stringCol) != nil)
    }

    @Test func testRetrievingObjectsWithRuntimeType() throws {
        let realm = try t.realm()
        let unmanagedStringObject = SwiftStringObject()
        unmanagedStringObject.stringCol = "foo"
        let managedStringObject = SwiftStringObject()
        managedStringObject.stringCol = "bar"
        try realm.write { realm.add(managedStringObject) }
        #expect(realm.objects(type(of: unmanagedStringObject)).count == 1)
        #expect(realm.objects(type(of: managedStringObject)).count == 1)
    }

    // MARK: - Frozen objects

    @Test func testIsFrozen() throws {
        let obj = SwiftStringObject()
        #expect(!obj.isFrozen)
        let realm = try t.realm()
        try realm.write { realm.add(obj) }
        #expect(!obj.isFrozen)
        let frozen = obj.freeze()
        #expect(!obj.isFrozen)
        #expect(frozen.isFrozen)
    }

    @Test func testFreezeUnmanaged() throws {
        // realm-swift: assertThrows(SwiftStringObject().freeze(), reason: "Unmanaged objects cannot be frozen.")
        try MisuseStop.stops("conformance-freeze-unmanaged", with: "unmanaged")
    }

    @Test func testModifyFrozenObject() throws {
        // realm-swift: assertThrows(frozenObj.stringCol = "foo", reason: "Attempting to modify a frozen object ...")
        try MisuseStop.stops("set-frozen", with: "the object is frozen")
    }

    @Test func testThaw() throws {
        let realm = try t.realm()
        let obj = try realm.write { realm.create(SwiftBoolObject.self, value: ["boolCol": true]) }
        let frozenObj = obj.freeze()
        #expect(frozenObj.isFrozen)
        // realm-swift: assertThrows(try! frozenObj.realm!.write {}, reason: "Can't perform transactions on a frozen Realm")
        #expect(throws: AtollError.self) { try frozenObj.realm!.write {} }

        let liveObj = try #require(frozenObj.thaw())
        #expect(!liveObj.isFrozen)
        #expect(liveObj.boolCol == frozenObj.boolCol)
        try liveObj.realm!.write { liveObj.boolCol = false }
        #expect(liveObj.boolCol != frozenObj.boolCol)
    }

    @Test func testThawUnmanaged() throws {
        // realm-swift: assertThrows(SwiftBoolObject().thaw(), reason: "Unmanaged objects cannot be thawed.")
        try MisuseStop.stops("conformance-thaw-unmanaged", with: "unmanaged")
    }

    @Test func testThawDeleted() throws {
        let realm = try t.realm()
        let obj = try realm.write { realm.create(SwiftBoolObject.self, value: ["boolCol": true]) }
        let frozen = obj.freeze()
        try realm.write { realm.delete(obj) }
        #expect(frozen.thaw() == nil, "Thaw should return nil when object was deleted")
    }

    @Test func testThawPreviousVersion() throws {
        let realm = try t.realm()
        let obj = try realm.write { realm.create(SwiftBoolObject.self, value: ["boolCol": true]) }
        let frozen = obj.freeze()
        #expect(frozen.isFrozen)
        try obj.realm!.write { obj.boolCol = false }
        #expect(frozen.boolCol, "Frozen objects shouldn't mutate")
        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen)
        #expect(!thawed.boolCol, "Thaw should reflect transactions since the original reference was frozen")
    }

    @Test func testThawUpdatedOnDifferentThread() throws {
        let realm = try t.realm()
        let obj = try realm.write { realm.create(SwiftBoolObject.self, value: ["boolCol": true]) }
        let frozen = obj.freeze()
        let thawed = try #require(frozen.thaw())
        let tsr = ThreadSafeReference(to: thawed)
        let configuration = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            let resolved = realm.resolve(tsr)!
            try! realm.write { resolved.boolCol = false }
        }
        #expect(frozen.thaw()!.boolCol)
        #expect(thawed.boolCol)
        realm.refresh()
        #expect(!frozen.thaw()!.boolCol)
        #expect(!thawed.boolCol)
    }
}

/// Passes a value to another thread on purpose (tests that check what happens there).
struct Handoff<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

// realm-swift's equality tests (Equatable and Hashable objects).
extension ObjectTests {
    @Test func testEqualityForObjectTypeWithPrimaryKey() throws {
        let realm = try t.realm()
        let pk = "123456"

        let testObject = SwiftPrimaryStringObject()
        testObject.stringCol = pk
        testObject.intCol = 12345

        let unmanaged = SwiftPrimaryStringObject()
        unmanaged.stringCol = pk
        unmanaged.intCol = 12345

        let otherObject = SwiftPrimaryStringObject()
        otherObject.stringCol = "not" + pk
        otherObject.intCol = 12345

        try realm.write { realm.add([testObject, otherObject]) }

        // Should not match an object that's not equal.
        #expect(testObject != otherObject)
        // Should not match an object whose fields are equal if it's not the same row in the database.
        #expect(testObject != unmanaged)
        // Should match an object that represents the same row.
        let retrievedObject = realm.object(ofType: SwiftPrimaryStringObject.self, forPrimaryKey: pk)!
        #expect(testObject == retrievedObject)
        #expect(testObject.hash == retrievedObject.hash)
        #expect(testObject.isSameObject(as: retrievedObject))
    }

    @Test func testEqualityForObjectTypeWithoutPrimaryKey() throws {
        let realm = try t.realm()
        let pk = "123456"
        #expect(SwiftStringObject.primaryKey() == nil)

        let testObject = SwiftStringObject()
        testObject.stringCol = pk
        let alias = testObject
        try realm.write { realm.add(testObject) }
        #expect(testObject == alias)

        // Should not match an object even if it represents the same row.
        let retrievedObject = realm.objects(SwiftStringObject.self).first!
        #expect(testObject != retrievedObject)
        // Should be able to use `isSameObject(as:)` to check if same row in the database.
        #expect(testObject.isSameObject(as: retrievedObject))
    }

    @Test func testEqualityForFrozenObjectTypeWithoutPrimaryKey() throws {
        let realm = try t.realm()
        let testObject = try realm.write { realm.create(SwiftStringObject.self) }
        let frozen = testObject.freeze()
        let retrievedObject = realm.objects(SwiftStringObject.self).first!.freeze()
        #expect(frozen == retrievedObject)
    }
}

// realm-swift's testDynamicList: `dynamicList(_:)` gives a `DynamicList` of `DynamicObject`s in
// Atoll (README, Differences), so its elements are compared with the same objects read
// dynamically; realm-swift's `assertThrows` for an unknown property stops the program.
extension ObjectTests {
    @Test func testDynamicList() throws {
        let realm = try t.realm()
        let arrayObject = SwiftArrayPropertyObject()
        let str1 = SwiftStringObject()
        let str2 = SwiftStringObject()
        arrayObject.array.append(objectsIn: [str1, str2])
        try realm.write { realm.add(arrayObject) }
        let dynamicArray = arrayObject.dynamicList("array")
        #expect(dynamicArray.count == 2)
        let strings = realm.dynamicObjects("SwiftStringObject")
        #expect(dynamicArray[0] == strings[0])
        #expect(dynamicArray[1] == strings[1])
        #expect(arrayObject.dynamicList("intArray").count == 0)
        try MisuseStop.stops("conformance-dynamic-list-unknown-property", with: "has no property 'noSuchList'")
    }

    /// The rest of `DynamicList`'s methods, through a managed object's list.
    @Test func dynamicListChangesInPlace() throws {
        let realm = try t.realm()
        let arrayObject = try realm.write {
            realm.create(SwiftArrayPropertyObject.self, value: ["name", [["a"], ["b"]], []])
        }
        let list = arrayObject.dynamicList("array")
        func names() -> [String] { list.map { $0["stringCol"] as? String ?? "?" } }
        try realm.write {
            list.append(["stringCol": "c"])
            list.insert(realm.create(SwiftStringObject.self, value: ["z"]), at: 0)
            list.move(from: 0, to: 3)
            list.swapAt(0, 1)
        }
        #expect(names() == ["b", "a", "c", "z"])
        #expect(arrayObject.array.map(\.stringCol) == ["b", "a", "c", "z"])
        #expect(list.index(of: list[2]) == 2)
        try realm.write {
            list[0] = list[3]
            list.remove(at: 1)
            list.removeLast()
        }
        #expect(names() == ["z", "c"])
        // An invalid change fails the write, and nothing of it is kept.
        #expect(throws: AtollError.self) {
            try realm.write {
                list.append(["stringCol": "d"])
                list.remove(at: 7)
            }
        }
        #expect(names() == ["z", "c"])
        try realm.write { list.removeAll() }
        #expect(list.isEmpty)
        #expect(realm.objects(SwiftStringObject.self).count == 4, "removing from the list keeps the objects")
    }
}

// realm-swift's testDynamicMemberSubscript without its `anyCol` lines (AnyRealmValue), with
// realm-swift's `withMigrationObject`: a migration of the test file's SwiftObject hands its new
// object to the block.
extension ObjectTests {
    private func withMigrationObject(block: @escaping @Sendable (MigrationObject, Migration) -> Void) throws {
        do {
            let realm = try t.realmWithTestPath()
            try realm.write { _ = realm.create(SwiftObject.self) }
        }
        let enumerated = LockedValue(false)
        let configuration = Realm.Configuration(schemaVersion: 1, migrationBlock: { migration, _ in
            migration.enumerateObjects(ofType: SwiftObject.className()) { _, newObject in
                if let newObject {
                    block(newObject, migration)
                    enumerated.value = true
                }
            }
        })
        _ = try t.realmWithTestPath(configuration: configuration)
        #expect(enumerated.value)
    }

    @Test func testDynamicMemberSubscript() throws {
        try withMigrationObject { migrationObject, migration in
            let boolObject = migration.create("SwiftBoolObject", value: [true])
            migrationObject.objectCol = boolObject
            #expect(migrationObject.objectCol as? DynamicObject == boolObject)
            #expect((migrationObject.objectCol as? DynamicObject)?.boolCol as? Bool == true)
        }
    }
}
