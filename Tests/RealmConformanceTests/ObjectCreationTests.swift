// Port of realm-swift's RealmSwift/Tests/ObjectCreationTests.swift: the expected values are
// realm-swift's. SwiftObject here lacks intEnumCol, decimalCol, anyCol, setCol and mapCol
// (Support/SwiftTestObjects.swift), so array literals are shorter and the values of those
// properties are left out of the dictionaries. `XCTAssertEqual(objectA, objectB)` between
// objects is `isSameObject(as:)` (Object is not Equatable yet); `XCTAssertEqual(a.realm, b)`
// is `===` on the one Realm instance.
//
// Differences checked as Atoll documents them (README, "Differences from RealmSwift"):
// - an invalid operation inside a write (`assertThrows(realm.create(...))`) makes the enclosing
//   write throw an AtollError instead of raising;
// - `create` outside a write stops the program (misuse), checked in a child process.
//
// Not ported:
// - the invalid-value halves of testInitWithDictionary and testInitWithArray — `Object(value:)`
//   of an unmanaged object cannot throw and has no write to fail; Atoll skips invalid values
//   there (documented on `init(value:)`); the valid-value halves are ported;
// - testInitWithObjcName, testCreateWithObjcName, testCreateWithDifferentObjcName — need
//   `@objc(name)` class renames (Objective-C runtime);
// - the embedded-object tests (testDynamicCreateEmbeddedDirectly ... testAddAndUpdateChangedEmbedded)
//   are ported in EmbeddedObjectTests.swift;
// - the MutableSet half of testCreateWithDeeplyNestedObjectsFromAnotherRealm and the set and
//   map checks of the other tests — need MutableSet and Map.

import Atoll
import AtollTestSupport
import Foundation
import Testing

/// realm-swift's ObjectWithPrivateOptionals: private plain optionals are not persisted.
class ObjectWithPrivateOptionals: Object {
    private var nilInt: Int?
    private var nilFloat: Float?
    private var nilString: String?
    private var int: Int? = 123
    private var float: Float? = 1.23
    private var string: String? = "123"

    @Persisted var value = 5
}

@Suite struct ObjectCreationTests {
    let t = RealmTestCase()

    // MARK: - Init tests

    @Test func testInitWithDefaults() {
        let object = SwiftObject()
        #expect(object.realm == nil)
        verifySwiftObjectWithDictionaryLiteral(object, dictionary: SwiftObject.defaultValues(), boolObjectValue: false,
                                               boolObjectListValues: [])
        #expect(object.realm == nil)
        #expect(object.objectCol!.realm == nil)
        #expect(object.arrayCol.realm == nil)
    }

    @Test func testInitWithOptionalWithoutDefaults() {
        let object = SwiftOptionalObject()
        for prop in object.objectSchema.properties {
            #expect(object[prop.name] == nil, "\(prop.name)")
        }
    }

    @Test func testInitWithOptionalDefaults() {
        let object = SwiftOptionalDefaultValuesObject()
        verifySwiftOptionalObjectWithDictionaryLiteral(object, dictionary: SwiftOptionalDefaultValuesObject.defaultValues(),
                                                       boolObjectValue: true)
    }

    /// Dictionary literals with every property given, one property at a time taking each of its
    /// valid values. (The invalid values are not ported: see the top of the file.)
    @Test func testInitWithDictionary() throws {
        let baselineValues: [String: Any] = [
            "boolCol": true,
            "intCol": 1,
            "int8Col": 1 as Int8,
            "int16Col": 1 as Int16,
            "int32Col": 1 as Int32,
            "int64Col": 1 as Int64,
            "floatCol": 1.1 as Float,
            "doubleCol": 11.1,
            "stringCol": "b",
            "binaryCol": Data("b".utf8),
            "dateCol": Date(timeIntervalSince1970: 2),
            "objectIdCol": ObjectId(),
            "objectCol": SwiftBoolObject(value: [true]),
            "uuidCol": UUID(uuidString: "137decc8-b300-4954-a233-f89909f4fd89")!,
            "arrayCol": [SwiftBoolObject(value: [true]), SwiftBoolObject()],
        ]
        let realm = try t.realm()
        for name in swiftObjectArrayProperties {
            for validValue in try validValuesForSwiftObjectProperty(name, realm) {
                var values = baselineValues
                values[name] = validValue
                let object = SwiftObject(value: values)
                verifySwiftObjectWithDictionaryLiteral(object, dictionary: values, boolObjectValue: true, boolObjectListValues: [true, false])
            }
        }
    }

    @Test func testInitWithDefaultsAndDictionary() {
        let object = SwiftObject(value: ["intCol": 200])
        let valueDict = defaultSwiftObjectValuesWithReplacements(["intCol": 200])
        verifySwiftObjectWithDictionaryLiteral(object, dictionary: valueDict, boolObjectValue: false, boolObjectListValues: [])
    }

    @Test func testInitWithArray() throws {
        let baselineValues: [Any] = [true, 1, Int8(1), Int16(1), Int32(1), Int64(1), 1.1 as Float, 11.1, "b", Data("b".utf8),
                                     Date(timeIntervalSince1970: 2), ObjectId(), ["boolCol": true],
                                     UUID(uuidString: "137decc8-b300-4954-a233-f89909f4fd89")!, [[true], [false]]]
        let realm = try t.realm()
        for (propNum, name) in swiftObjectArrayProperties.enumerated() {
            for validValue in try validValuesForSwiftObjectProperty(name, realm) {
                var values = baselineValues
                values[propNum] = validValue
                let object = SwiftObject(value: values)
                verifySwiftObjectWithArrayLiteral(object, array: values, boolObjectValue: true, boolObjectListValues: [true, false])
            }
        }
    }

    @Test func testInitWithKVCObject() {
        let objectWithInt = SwiftObject(value: ["intCol": 200])
        let objectWithKVCObject = SwiftObject(value: objectWithInt)
        let valueDict = defaultSwiftObjectValuesWithReplacements(["intCol": 200])
        verifySwiftObjectWithDictionaryLiteral(objectWithKVCObject, dictionary: valueDict, boolObjectValue: false, boolObjectListValues: [])
    }

    @Test func testGenericInit() {
        func createObject<T: Object>() -> T { T() }
        let obj1: SwiftBoolObject = createObject()
        let obj2 = SwiftBoolObject()
        #expect(obj1.boolCol == obj2.boolCol, "object created via generic initializer should equal object created by calling initializer directly")
    }

    // MARK: - Creation tests

    @Test func testCreateWithDefaults() throws {
        // realm-swift: assertThrows(realm.create(SwiftObject.self), "Must be in write transaction").
        try MisuseStop.stops("conformance-create-outside-write", with: "must be called inside a write transaction")

        let realm = try t.realm()
        let objects = realm.objects(SwiftObject.self)
        #expect(objects.count == 0)
        let object = try realm.write { realm.create(SwiftObject.self) }
        verifySwiftObjectWithDictionaryLiteral(object, dictionary: SwiftObject.defaultValues(), boolObjectValue: false, boolObjectListValues: [])
        #expect(object.realm === realm)
        #expect(object.objectCol!.realm === realm)
        #expect(object.arrayCol.realm === realm)
    }

    @Test func testCreateWithOptionalWithoutDefaults() throws {
        let realm = try t.realm()
        try realm.write {
            let object = realm.create(SwiftOptionalObject.self)
            for prop in object.objectSchema.properties {
                #expect(object[prop.name] == nil, "\(prop.name)")
            }
        }
    }

    @Test func testCreateWithOptionalDefaults() throws {
        let realm = try t.realm()
        try realm.write {
            let object = realm.create(SwiftOptionalDefaultValuesObject.self)
            verifySwiftOptionalObjectWithDictionaryLiteral(object, dictionary: SwiftOptionalDefaultValuesObject.defaultValues(),
                                                           boolObjectValue: true)
        }
    }

    @Test func testCreateWithOptionalIgnoredProperties() throws {
        let realm = try t.realm()
        try realm.write {
            let object = realm.create(SwiftOptionalIgnoredPropertiesObject.self)
            let properties = object.objectSchema.properties
            #expect(properties.count == 1)
            #expect(properties.first?.name == "id")
        }
    }

    @Test func testCreateWithDictionary() throws {
        let baselineValues: [String: Any] = [
            "boolCol": true,
            "intCol": 1,
            "int8Col": 1 as Int8,
            "int16Col": 1 as Int16,
            "int32Col": 1 as Int32,
            "int64Col": 1 as Int64,
            "floatCol": 1.1 as Float,
            "doubleCol": 11.1,
            "stringCol": "b",
            "binaryCol": Data("b".utf8),
            "dateCol": Date(timeIntervalSince1970: 2),
            "objectIdCol": ObjectId(),
            "objectCol": SwiftBoolObject(value: [true]),
            "arrayCol": [SwiftBoolObject(value: [true]), SwiftBoolObject()],
        ]
        let realm = try t.realm()
        for name in swiftObjectArrayProperties {
            for validValue in try validValuesForSwiftObjectProperty(name, realm) {
                var values = baselineValues
                values[name] = validValue
                realm.beginWrite()
                let object = realm.create(SwiftObject.self, value: values)
                verifySwiftObjectWithDictionaryLiteral(object, dictionary: values, boolObjectValue: true, boolObjectListValues: [true, false])
                try realm.commitWrite()
                verifySwiftObjectWithDictionaryLiteral(object, dictionary: values, boolObjectValue: true, boolObjectListValues: [true, false])
            }
        }
        for name in swiftObjectArrayProperties {
            for invalidValue in try invalidValuesForSwiftObjectProperty(name, realm) {
                var values = baselineValues
                values[name] = invalidValue
                // realm-swift: assertThrows(create(...), "Invalid property value").
                assertWriteFails(realm) { realm.create(SwiftObject.self, value: values) }
            }
        }
    }

    @Test func testCreateWithDefaultsAndDictionary() throws {
        let realm = try t.realm()
        realm.beginWrite()
        let objectWithInt = realm.create(SwiftObject.self, value: ["intCol": 200])
        try realm.commitWrite()
        let valueDict = defaultSwiftObjectValuesWithReplacements(["intCol": 200])
        verifySwiftObjectWithDictionaryLiteral(objectWithInt, dictionary: valueDict, boolObjectValue: false, boolObjectListValues: [])
    }

    @Test func testCreateWithArray() throws {
        let baselineValues: [Any] = [true, 1, Int8(1), Int16(1), Int32(1), Int64(1), 1.1 as Float, 11.1, "b", Data("b".utf8),
                                     Date(timeIntervalSince1970: 2), ObjectId(), ["boolCol": true],
                                     UUID(uuidString: "137decc8-b300-4954-a233-f89909f4fd89")!, [[true], [false]]]
        let realm = try t.realm()
        for (propNum, name) in swiftObjectArrayProperties.enumerated() {
            for validValue in try validValuesForSwiftObjectProperty(name, realm) {
                var values = baselineValues
                values[propNum] = validValue
                realm.beginWrite()
                let object = realm.create(SwiftObject.self, value: values)
                verifySwiftObjectWithArrayLiteral(object, array: values, boolObjectValue: true, boolObjectListValues: [true, false])
                try realm.commitWrite()
                verifySwiftObjectWithArrayLiteral(object, array: values, boolObjectValue: true, boolObjectListValues: [true, false])
            }
        }
        for (propNum, name) in swiftObjectArrayProperties.enumerated() {
            for invalidValue in try invalidValuesForSwiftObjectProperty(name, realm) {
                var values = baselineValues
                values[propNum] = invalidValue
                // realm-swift: assertThrows(..., "Invalid property value '\(invalidValue)' for property number \(propNum)").
                assertWriteFails(realm) { realm.create(SwiftObject.self, value: values) }
            }
        }
    }

    @Test func testCreateWithKVCObject() throws {
        let realm = try t.realm()
        realm.beginWrite()
        let objectWithInt = realm.create(SwiftObject.self, value: ["intCol": 200])
        let objectWithKVCObject = realm.create(SwiftObject.self, value: objectWithInt)
        let valueDict = defaultSwiftObjectValuesWithReplacements(["intCol": 200])
        try realm.commitWrite()
        verifySwiftObjectWithDictionaryLiteral(objectWithKVCObject, dictionary: valueDict, boolObjectValue: false, boolObjectListValues: [])
        #expect(realm.objects(SwiftObject.self).count == 2, "Object should have been copied")
    }

    @Test func testCreateWithNestedObjects() throws {
        let standalone = SwiftPrimaryStringObject(value: ["p0", 11])
        let realm = try t.realm()
        let objectWithNestedObjects = try realm.write {
            realm.create(SwiftLinkToPrimaryStringObject.self, value: ["p1", ["p1", 12] as [Any], [standalone]])
        }
        let stringObjects = realm.objects(SwiftPrimaryStringObject.self)
        #expect(stringObjects.count == 2)
        let p0 = realm.object(ofType: SwiftPrimaryStringObject.self, forPrimaryKey: "p0")
        let p1 = realm.object(ofType: SwiftPrimaryStringObject.self, forPrimaryKey: "p1")

        // standalone object should be copied into the realm, not added directly
        #expect(standalone.realm == nil)
        #expect(!standalone.isSameObject(as: p0))
        #expect(objectWithNestedObjects.object!.isSameObject(as: p1))
        #expect(objectWithNestedObjects.objects.first!.isSameObject(as: p0))

        let standalone1 = SwiftPrimaryStringObject(value: ["p3", 11])
        // realm-swift: assertThrows(..., "Should throw with duplicate primary key").
        assertWriteFails(realm, kind: .primaryKeyExists) {
            realm.create(SwiftLinkToPrimaryStringObject.self, value: ["p3", ["p3", 11] as [Any], [standalone1]])
        }
    }

    @Test func testUpdateWithNestedObjects() throws {
        let standalone = SwiftPrimaryStringObject(value: ["primary", 11])
        let realm = try t.realm()
        let object = try realm.write {
            realm.create(SwiftLinkToPrimaryStringObject.self, value: ["otherPrimary", ["primary", 12] as [Any], [["primary", 12] as [Any]]],
                         update: .all)
        }
        let stringObjects = realm.objects(SwiftPrimaryStringObject.self)
        #expect(stringObjects.count == 1)
        let persistedObject = object.object!
        #expect(persistedObject.intCol == 12)
        #expect(standalone.realm == nil) // the standalone object should be copied, rather than added, to the realm
        #expect(object.object!.isSameObject(as: persistedObject))
        #expect(object.objects.first!.isSameObject(as: persistedObject))
    }

    @Test func testUpdateChangedWithNestedObjects() throws {
        let standalone = SwiftPrimaryStringObject(value: ["primary", 11])
        let realm = try t.realm()
        let object = try realm.write {
            realm.create(SwiftLinkToPrimaryStringObject.self, value: ["otherPrimary", ["primary", 12] as [Any], [["primary", 12] as [Any]]],
                         update: .modified)
        }
        let stringObjects = realm.objects(SwiftPrimaryStringObject.self)
        #expect(stringObjects.count == 1)
        let persistedObject = object.object!
        #expect(persistedObject.intCol == 12)
        #expect(standalone.realm == nil)
        #expect(object.object!.isSameObject(as: persistedObject))
        #expect(object.objects.first!.isSameObject(as: persistedObject))
    }

    @Test func testCreateWithObjectsFromAnotherRealm() throws {
        let values: [String: Any] = [
            "boolCol": true,
            "intCol": 1,
            "int8Col": 1 as Int8,
            "int16Col": 1 as Int16,
            "int32Col": 1 as Int32,
            "int64Col": 1 as Int64,
            "floatCol": 1.1 as Float,
            "doubleCol": 11.1,
            "stringCol": "b",
            "binaryCol": Data("b".utf8),
            "dateCol": Date(timeIntervalSince1970: 2),
            "objectIdCol": ObjectId(),
            "objectCol": SwiftBoolObject(value: [true]),
            "arrayCol": [SwiftBoolObject(value: [true]), SwiftBoolObject()],
        ]
        let testRealm = try t.realmWithTestPath()
        testRealm.beginWrite()
        let otherRealmObject = testRealm.create(SwiftObject.self, value: values)
        try testRealm.commitWrite()

        let realm = try t.realm()
        let object = try realm.write { realm.create(SwiftObject.self, value: otherRealmObject) }
        #expect(!otherRealmObject.isSameObject(as: object))
        verifySwiftObjectWithDictionaryLiteral(object, dictionary: values, boolObjectValue: true, boolObjectListValues: [true, false])
    }

    @Test func testCreateWithDeeplyNestedObjectsFromAnotherRealm() throws {
        let values: [String: Any] = [
            "boolCol": true,
            "intCol": 1,
            "int8Col": 1 as Int8,
            "int16Col": 1 as Int16,
            "int32Col": 1 as Int32,
            "int64Col": 1 as Int64,
            "floatCol": 1.1 as Float,
            "doubleCol": 11.1,
            "stringCol": "b",
            "binaryCol": Data("b".utf8),
            "dateCol": Date(timeIntervalSince1970: 2),
            "objectIdCol": ObjectId(),
            "objectCol": SwiftBoolObject(value: [true]),
            "arrayCol": [SwiftBoolObject(value: [true]), SwiftBoolObject()],
        ]
        let realmA = try t.realmWithTestPath()
        let realmB = try t.realm()
        let realmAListObject = try realmA.write {
            let array = [SwiftObject(value: values), SwiftObject(value: values)]
            return realmA.create(SwiftListOfSwiftObject.self, value: ["array": array])
        }
        let realmBListObject = try realmB.write { realmB.create(SwiftListOfSwiftObject.self, value: realmAListObject) }
        #expect(!realmAListObject.isSameObject(as: realmBListObject))
        #expect(realmBListObject.array.count == 2)
        for swiftObject in realmBListObject.array {
            verifySwiftObjectWithDictionaryLiteral(swiftObject, dictionary: values, boolObjectValue: true, boolObjectListValues: [true, false])
        }
    }

    @Test func testUpdateWithObjectsFromAnotherRealm() throws {
        let testRealm = try t.realmWithTestPath()
        let otherRealmObject = try testRealm.write {
            testRealm.create(SwiftLinkToPrimaryStringObject.self, value: ["primary", NSNull(), [["2", 2] as [Any], ["4", 4]]])
        }
        let realm = try t.realm()
        let object = try realm.write { () -> SwiftLinkToPrimaryStringObject in
            realm.create(SwiftLinkToPrimaryStringObject.self, value: ["primary", ["10", 10] as [Any], [["11", 11] as [Any]]])
            return realm.create(SwiftLinkToPrimaryStringObject.self, value: otherRealmObject, update: .all)
        }
        #expect(!otherRealmObject.isSameObject(as: object)) // the object from the other realm should be copied into this realm
        #expect(realm.objects(SwiftLinkToPrimaryStringObject.self).count == 1)
        #expect(realm.objects(SwiftPrimaryStringObject.self).count == 4)
    }

    @Test func testUpdateChangedWithObjectsFromAnotherRealm() throws {
        let testRealm = try t.realmWithTestPath()
        let otherRealmObject = try testRealm.write {
            testRealm.create(SwiftLinkToPrimaryStringObject.self, value: ["primary", NSNull(), [["2", 2] as [Any], ["4", 4]]])
        }
        let realm = try t.realm()
        let object = try realm.write { () -> SwiftLinkToPrimaryStringObject in
            realm.create(SwiftLinkToPrimaryStringObject.self, value: ["primary", ["10", 10] as [Any], [["11", 11] as [Any]]])
            return realm.create(SwiftLinkToPrimaryStringObject.self, value: otherRealmObject, update: .modified)
        }
        #expect(!otherRealmObject.isSameObject(as: object))
        #expect(realm.objects(SwiftLinkToPrimaryStringObject.self).count == 1)
        #expect(realm.objects(SwiftPrimaryStringObject.self).count == 4)
    }

    @Test func testCreateWithNSNullLinks() throws {
        let values: [String: Any] = [
            "boolCol": true,
            "intCol": 1,
            "floatCol": 1.1,
            "doubleCol": 11.1,
            "stringCol": "b",
            "binaryCol": Data("b".utf8),
            "dateCol": Date(timeIntervalSince1970: 2),
            "objectIdCol": ObjectId(),
            "objectCol": NSNull(),
            "arrayCol": NSNull(),
        ]
        let testRealm = try t.realmWithTestPath()
        testRealm.beginWrite()
        let object = testRealm.create(SwiftObject.self, value: values)
        try testRealm.commitWrite()
        #expect(object.objectCol == nil)
        #expect(object.arrayCol.count == 0)
    }

    @Test func testCreateOrUpdateNil() throws {
        try checkCreateOrUpdateNil(update: .all)
    }

    @Test func testCreateOrUpdateModifiedNil() throws {
        try checkCreateOrUpdateNil(update: .modified)
    }

    private func checkCreateOrUpdateNil(update: Realm.UpdatePolicy) throws {
        let realm = try t.realm()
        realm.beginWrite()
        // Create with all fields nil
        let object = realm.create(SwiftOptionalPrimaryObject.self, value: SwiftOptionalPrimaryObject(), update: update)
        expectAllNil(object)

        // Try to switch to non-nil
        let object2 = SwiftOptionalPrimaryObject()
        fillNonNil(object2)
        realm.create(SwiftOptionalPrimaryObject.self, value: object2, update: update)
        #expect(object.id == nil)
        expectAllNonNil(object)

        // Try to switch back to nil
        realm.create(SwiftOptionalPrimaryObject.self, value: SwiftOptionalPrimaryObject(), update: update)
        expectAllNil(object)
        realm.cancelWrite()
    }

    @Test func testCreateOrUpdateDynamicUnmanagedType() throws {
        let realm = try t.realm()
        let unmanagedValue = SwiftOptionalPrimaryObject()
        // Shouldn't throw.
        let error = writeError(realm) { _ = realm.create(type(of: unmanagedValue), value: unmanagedValue, update: .modified) }
        #expect(error == nil)
    }

    @Test func testCreateOrUpdateDynamicManagedType() throws {
        let realm = try t.realm()
        let managedValue = SwiftOptionalPrimaryObject()
        try realm.write { realm.add(managedValue) }
        // Shouldn't throw.
        let error = writeError(realm) { _ = realm.create(type(of: managedValue), value: managedValue, update: .all) }
        #expect(error == nil)
    }

    @Test func testCreateOrUpdateModifiedDynamicManagedType() throws {
        let realm = try t.realm()
        let managedValue = SwiftOptionalPrimaryObject()
        try realm.write { realm.add(managedValue) }
        // Shouldn't throw.
        let error = writeError(realm) { _ = realm.create(type(of: managedValue), value: managedValue, update: .modified) }
        #expect(error == nil)
    }

    @Test func testCreateOrUpdateWithMismatchedStaticAndDynamicTypes() throws {
        let realm = try t.realm()
        let obj: Object = SwiftOptionalPrimaryObject()
        try realm.write {
            let obj2 = realm.create(type(of: obj), value: obj)
            #expect(obj2.objectSchema.className == "SwiftOptionalPrimaryObject")
            let obj3 = realm.create(type(of: obj), value: obj, update: .all)
            #expect(obj3.objectSchema.className == "SwiftOptionalPrimaryObject")
        }
    }

    // MARK: - Add tests

    @Test func testAddWithExisingNestedObjects() throws {
        let realm = try t.realm()
        realm.beginWrite()
        let existingObject = realm.create(SwiftBoolObject.self)
        try realm.commitWrite()

        realm.beginWrite()
        let object = SwiftObject(value: ["objectCol": existingObject])
        realm.add(object)
        try realm.commitWrite()

        #expect(object.realm != nil)
        #expect(object.objectCol!.isSameObject(as: existingObject))
    }

    @Test func testAddAndUpdateWithExisingNestedObjects() throws {
        let realm = try t.realm()
        let existingObject = try realm.write { realm.create(SwiftPrimaryStringObject.self, value: ["primary", 1]) }
        let object = try realm.write { () -> SwiftLinkToPrimaryStringObject in
            let object = SwiftLinkToPrimaryStringObject(value: ["primary", ["primary", 2] as [Any]])
            realm.add(object, update: .all)
            return object
        }
        #expect(object.realm != nil)
        #expect(object.object!.isSameObject(as: existingObject)) // the existing object should be updated
        #expect(existingObject.intCol == 2)
    }

    @Test func testAddAndUpdateChangedWithExisingNestedObjects() throws {
        let realm = try t.realm()
        realm.beginWrite()
        let existingObject = realm.create(SwiftPrimaryStringObject.self, value: ["primary", 1])
        try realm.commitWrite()

        realm.beginWrite()
        let object = SwiftLinkToPrimaryStringObject(value: ["primary", ["primary", 2] as [Any]])
        realm.add(object, update: .modified)
        try realm.commitWrite()

        #expect(object.realm != nil)
        #expect(object.object!.isSameObject(as: existingObject)) // the existing object should be updated
        #expect(existingObject.intCol == 2)
    }

    @Test func testAddObjectCycle() throws {
        weak var weakObj1: SwiftCircleObject?, weakObj2: SwiftCircleObject?
        let realm = try t.realm()
        do {
            let obj1 = SwiftCircleObject(value: [])
            let obj2 = SwiftCircleObject(value: [obj1, [obj1]])
            obj1.obj = obj2
            obj1.array.append(obj2)

            weakObj1 = obj1
            weakObj2 = obj2

            try realm.write { realm.add(obj1) }

            #expect(obj1.realm === realm)
            #expect(obj2.realm === realm)
        }
        #expect(weakObj1 == nil)
        #expect(weakObj2 == nil)
    }

    @Test func testAddOrUpdateNil() throws {
        try checkAddOrUpdateNil(update: .all)
    }

    @Test func testAddOrUpdateModifiedNil() throws {
        try checkAddOrUpdateNil(update: .modified)
    }

    private func checkAddOrUpdateNil(update: Realm.UpdatePolicy) throws {
        let realm = try t.realm()
        realm.beginWrite()
        // Create with all fields nil
        let object = SwiftOptionalPrimaryObject()
        realm.add(object)
        expectAllNil(object)

        // Try to switch to non-nil
        let object2 = SwiftOptionalPrimaryObject()
        fillNonNil(object2)
        realm.add(object2, update: update)
        #expect(object.id == nil)
        expectAllNonNil(object)

        // Try to switch back to nil
        let object3 = SwiftOptionalPrimaryObject()
        realm.add(object3, update: update)
        expectAllNil(object)
        realm.cancelWrite()
    }

    /// If a Swift class declares generic properties before non-generic ones, the properties
    /// should be registered in order and creation from an array of values should work. (Without
    /// the MutableSet properties of realm-swift's model: their values are left out.)
    @Test func testProperOrderingOfProperties() {
        let v: [Any] = [
            // Superclass's columns
            [["intCol": 42], ["intCol": 9001]],
            100,
            200,
            // Class's columns
            1,
            [["stringCol": "hello"], ["stringCol": "world"]],
            2,
            [["stringCol": "goodbye"], ["stringCol": "cruel"], ["stringCol": "world"]],
            NSNull(),
            3,
            300,
        ]
        let object = SwiftGenericPropsOrderingObject(value: v)
        #expect(object.firstNumber == 1)
        #expect(object.secondNumber == 2)
        #expect(object.thirdNumber == 3)
        #expect(object.firstArray.count == 2)
        #expect(object.firstArray.first?.stringCol == "hello")
        #expect(object.firstArray.last?.stringCol == "world")
        #expect(object.secondArray.count == 3)
        #expect(object.secondArray.map(\.stringCol) == ["goodbye", "cruel", "world"])
        #expect(object.firstOptionalNumber == nil)
        #expect(object.secondOptionalNumber == 300)
        #expect(object.parentFirstList.count == 2)
        #expect(object.parentFirstList.map(\.intCol) == [42, 9001])
        #expect(object.parentFirstNumber == 100)
        #expect(object.parentSecondNumber == 200)
        #expect(object.firstLinking.count == 0)
        #expect(object.secondLinking.count == 0)
    }

    @Test func testPrivateOptionalNonobjcString() throws {
        let realm = try t.realm()
        try realm.write {
            let obj = ObjectWithPrivateOptionals()
            obj.value = 5
            realm.add(obj)
            #expect(realm.objects(ObjectWithPrivateOptionals.self).first!.value == 5)
        }
    }

    // MARK: - Helpers (realm-swift's private utilities)

    private func expectAllNil(_ object: SwiftOptionalPrimaryObject, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(object.id == nil, sourceLocation: sourceLocation)
        #expect(object.optIntCol == nil, sourceLocation: sourceLocation)
        #expect(object.optInt8Col == nil, sourceLocation: sourceLocation)
        #expect(object.optInt16Col == nil, sourceLocation: sourceLocation)
        #expect(object.optInt32Col == nil, sourceLocation: sourceLocation)
        #expect(object.optInt64Col == nil, sourceLocation: sourceLocation)
        #expect(object.optBoolCol == nil, sourceLocation: sourceLocation)
        #expect(object.optFloatCol == nil, sourceLocation: sourceLocation)
        #expect(object.optDoubleCol == nil, sourceLocation: sourceLocation)
        #expect(object.optDateCol == nil, sourceLocation: sourceLocation)
        #expect(object.optStringCol == nil, sourceLocation: sourceLocation)
        #expect(object.optBinaryCol == nil, sourceLocation: sourceLocation)
        #expect(object.optObjectCol == nil, sourceLocation: sourceLocation)
    }

    private func expectAllNonNil(_ object: SwiftOptionalPrimaryObject, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(object.optIntCol != nil, sourceLocation: sourceLocation)
        #expect(object.optInt8Col != nil, sourceLocation: sourceLocation)
        #expect(object.optInt16Col != nil, sourceLocation: sourceLocation)
        #expect(object.optInt32Col != nil, sourceLocation: sourceLocation)
        #expect(object.optInt64Col != nil, sourceLocation: sourceLocation)
        #expect(object.optBoolCol != nil, sourceLocation: sourceLocation)
        #expect(object.optFloatCol != nil, sourceLocation: sourceLocation)
        #expect(object.optDoubleCol != nil, sourceLocation: sourceLocation)
        #expect(object.optDateCol != nil, sourceLocation: sourceLocation)
        #expect(object.optStringCol != nil, sourceLocation: sourceLocation)
        #expect(object.optBinaryCol != nil, sourceLocation: sourceLocation)
        #expect(object.optObjectCol != nil, sourceLocation: sourceLocation)
    }

    private func fillNonNil(_ object2: SwiftOptionalPrimaryObject) {
        object2.optIntCol = 1
        object2.optInt8Col = 1
        object2.optInt16Col = 1
        object2.optInt32Col = 1
        object2.optInt64Col = 1
        object2.optFloatCol = 1
        object2.optDoubleCol = 1
        object2.optBoolCol = true
        object2.optDateCol = Date()
        object2.optStringCol = ""
        object2.optBinaryCol = Data()
        object2.optObjectCol = SwiftBoolObject()
    }

    /// realm-swift's `validValuesForSwiftObjectType`, by property name.
    private func validValuesForSwiftObjectProperty(_ name: String, _ realm: Realm) throws -> [Any] {
        realm.beginWrite()
        let persistedObject = realm.create(SwiftBoolObject.self, value: [true])
        try realm.commitWrite()
        switch name {
        case "arrayCol":
            return [
                [[true], [false]],
                [["boolCol": true], ["boolCol": false]],
                [SwiftBoolObject(value: [true]), SwiftBoolObject(value: [false])],
                [persistedObject, [false]] as [Any],
            ]
        case "boolCol": return [true, NSNumber(value: 0 as Int), NSNumber(value: 1 as Int)]
        case "intCol", "int8Col", "int16Col", "int32Col", "int64Col": return [NSNumber(value: 1 as Int)]
        case "floatCol", "doubleCol": return [NSNumber(value: 1 as Int), NSNumber(value: 1.1 as Float), NSNumber(value: 11.1 as Double)]
        case "stringCol": return ["b"]
        case "binaryCol": return [Data("b".utf8)]
        case "dateCol": return [Date(timeIntervalSince1970: 2)]
        case "objectCol": return [[true], ["boolCol": true], SwiftBoolObject(value: [true]), persistedObject]
        case "objectIdCol": return [objectId("1234567890ab1234567890ab")]
        case "uuidCol": return [UUID(uuidString: "137decc8-b300-4954-a233-f89909f4fd89")!, UUID(uuidString: "00000000-0000-0000-0000-000000000000")!]
        default: Issue.record("no values for \(name)"); return []
        }
    }

    /// realm-swift's `invalidValuesForSwiftObjectType`, by property name.
    private func invalidValuesForSwiftObjectProperty(_ name: String, _ realm: Realm) throws -> [Any] {
        realm.beginWrite()
        let persistedObject = realm.create(SwiftIntObject.self)
        try realm.commitWrite()
        switch name {
        case "arrayCol": return ["invalid", [["a"]], [["boolCol": "a"]], [[SwiftIntObject()]], [[persistedObject]]]
        case "boolCol": return ["invalid", NSNumber(value: 2 as Int), NSNumber(value: 1.1 as Float), NSNumber(value: 11.1 as Double)]
        case "intCol", "int8Col", "int16Col", "int32Col", "int64Col": return ["invalid", NSNumber(value: 1.1 as Float), NSNumber(value: 11.1 as Double)]
        case "floatCol", "doubleCol": return ["invalid", true, false]
        case "stringCol": return [0x197A71D, true, false]
        case "binaryCol", "dateCol", "uuidCol": return ["invalid"]
        case "objectCol": return ["invalid", ["a"], ["boolCol": "a"], SwiftIntObject()]
        case "objectIdCol": return ["invalid", 123]
        default: Issue.record("no values for \(name)"); return []
        }
    }
}
