// Port of realm-swift's RealmSwift/Tests/ObjectAccessorTests.swift, expected values kept.
// RealmSwift's KVC returns NSNumber, which bridges to any integer type (`obj["int8"] as! Int`);
// Atoll returns the property's own Swift type, so the casts name it (`as? Int8`).
//
// Not ported:
// - testUnmanagedAccessors, testManagedAccessors — their helpers cover AnyRealmValue,
//   RealmProperty/RealmOptional wrappers, Codable objects, MutableSet and Map in one body;
//   to be ported with those types;
// - testRenamedProperties — `propertiesMapping()`;
// - testSetEmbeddedLink — EmbeddedObject;
// - the MutableSet, RealmOptional and RealmProperty parts of
//   testCollectionsDuringResultsFastEnumeration and testPropertiesOutlivingParentObject.

import Atoll
import AtollTestSupport
import Foundation
import Testing

@Suite struct ObjectAccessorTests {
    let t = RealmTestCase()

    @Test func testIntSizes() throws {
        let realm = try t.realmWithTestPath()
        let v8 = Int8(1) << 6
        let v16 = Int16(1) << 12
        let v32 = Int32(1) << 30
        let v64 = Int64(1) << 40
        try realm.write {
            let obj = SwiftAllIntSizesObject()
            let testObject: () -> Void = {
                obj.objectSchema.properties.map { $0.name }.forEach { obj[$0] = 0 }

                obj["int8"] = NSNumber(value: v8)
                #expect(obj["int8"] as? Int8 == v8)
                obj["int16"] = NSNumber(value: v16)
                #expect(obj["int16"] as? Int16 == v16)
                obj["int32"] = NSNumber(value: v32)
                #expect(obj["int32"] as? Int32 == v32)
                obj["int64"] = NSNumber(value: v64)
                #expect(obj["int64"] as? Int64 == v64)

                obj.objectSchema.properties.map { $0.name }.forEach { obj[$0] = 0 }

                obj.setValue(NSNumber(value: v8), forKey: "int8")
                #expect(obj.value(forKey: "int8") as? Int8 == v8)
                obj.setValue(NSNumber(value: v16), forKey: "int16")
                #expect(obj.value(forKey: "int16") as? Int16 == v16)
                obj.setValue(NSNumber(value: v32), forKey: "int32")
                #expect(obj.value(forKey: "int32") as? Int32 == v32)
                obj.setValue(NSNumber(value: v64), forKey: "int64")
                #expect(obj.value(forKey: "int64") as? Int64 == v64)

                obj.objectSchema.properties.map { $0.name }.forEach { obj[$0] = 0 }

                obj.int8 = v8
                #expect(obj.int8 == v8)
                obj.int16 = v16
                #expect(obj.int16 == v16)
                obj.int32 = v32
                #expect(obj.int32 == v32)
                obj.int64 = v64
                #expect(obj.int64 == v64)
            }
            testObject()
            realm.add(obj)
            testObject()
        }
        let obj = realm.objects(SwiftAllIntSizesObject.self).first!
        #expect(obj.int8 == v8)
        #expect(obj.int16 == v16)
        #expect(obj.int32 == v32)
        #expect(obj.int64 == v64)
    }

    @Test func testLongType() throws {
        let longNumber: Int64 = 17179869184
        let intNumber: Int64 = 2147483647
        let negativeLongNumber: Int64 = -17179869184
        let updatedLongNumber: Int64 = 8589934592
        let realm = try t.realmWithTestPath()

        realm.beginWrite()
        realm.create(SwiftLongObject.self, value: [NSNumber(value: longNumber)])
        realm.create(SwiftLongObject.self, value: [NSNumber(value: intNumber)])
        realm.create(SwiftLongObject.self, value: [NSNumber(value: negativeLongNumber)])
        try realm.commitWrite()

        let objects = realm.objects(SwiftLongObject.self)
        #expect(objects.count == 3, "3 rows expected")
        #expect(objects[0].longCol == longNumber, "2 ^ 34 expected")
        #expect(objects[1].longCol == intNumber, "2 ^ 31 - 1 expected")
        #expect(objects[2].longCol == negativeLongNumber, "-2 ^ 34 expected")

        realm.beginWrite()
        objects[0].longCol = updatedLongNumber
        try realm.commitWrite()
        #expect(objects[0].longCol == updatedLongNumber, "After update: 2 ^ 33 expected")
    }

    @Test func testCollectionsDuringResultsFastEnumeration() throws {
        let realm = try t.realmWithTestPath()
        let object1 = SwiftObject()
        let object2 = SwiftObject()
        let trueObject = SwiftBoolObject()
        trueObject.boolCol = true
        let falseObject = SwiftBoolObject()
        falseObject.boolCol = false
        object1.arrayCol.append(trueObject)
        object1.arrayCol.append(falseObject)
        object2.arrayCol.append(trueObject)
        object2.arrayCol.append(falseObject)
        try realm.write {
            realm.add(object1)
            realm.add(object2)
        }
        let objects = realm.objects(SwiftObject.self)
        #expect(objects.first!.arrayCol.count == 2)
        #expect(objects.last!.arrayCol.count == 2)
        var iterator = objects.makeIterator()
        let next = iterator.next()!
        #expect(next.arrayCol.count == 2)
        for obj in objects {
            #expect(obj.arrayCol.count == 2)
        }
    }

    /// realm-swift raises for a setter of a deleted object inside the write; the write throws here.
    @Test func testSettingOptionalPropertyOnDeletedObjectsThrows() throws {
        let realm = try t.realm()
        let (obj, copy) = try realm.write { () -> (SwiftOptionalObject, SwiftOptionalObject) in
            let obj = realm.create(SwiftOptionalObject.self)
            return (obj, realm.objects(SwiftOptionalObject.self).first!)
        }
        for object in [copy, obj] {
            assertWriteFails(realm) {
                realm.delete(realm.objects(SwiftOptionalObject.self))
                object.optIntCol = 1
            }
            assertWriteFails(realm) {
                realm.delete(realm.objects(SwiftOptionalObject.self))
                object.optIntCol = nil
            }
        }
    }

    @Test func testLinkingObjectsDynamicGet() throws {
        let fido = SwiftDogObject()
        let owner = SwiftOwnerObject()
        owner.dog = fido
        owner.name = "JP"
        let realm = try t.realm()
        try realm.write { realm.add([fido, owner]) }

        // Get the linking objects property via subscript.
        let owners = fido["owners"] as? LinkingObjects<SwiftOwnerObject>
        #expect(owners != nil)
        #expect(owners?.first?.name == "JP")
    }

    @Test func testPropertiesOutlivingParentObject() throws {
        let realm = try t.realm()
        let list = try realm.write { realm.create(SwiftListObject.self, value: ["int": [1]]).int }
        #expect(list.count == 1)
        #expect(list[0] == 1)
        try realm.write { list.append(2) }
        #expect(list.count == 2)
        #expect(Array(list) == [1, 2])
        #expect(Array(realm.objects(SwiftListObject.self).first!.int) == [1, 2])
        try realm.write { list.removeAll() }
        #expect(list.count == 0)
        #expect(Array(realm.objects(SwiftListObject.self).first!.int) == [])
    }
}
