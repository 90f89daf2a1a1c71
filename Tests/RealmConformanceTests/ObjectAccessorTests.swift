// Port of realm-swift's RealmSwift/Tests/ObjectAccessorTests.swift, expected values kept.
// RealmSwift's KVC returns NSNumber, which bridges to any integer type (`obj["int8"] as! Int`);
// Atoll returns the property's own Swift type, so the casts name it (`as? Int8`).
//
// Not ported:
// - in testUnmanagedAccessors and testManagedAccessors, the helpers for AnyRealmValue
//   (setAndTestAnyViaAccessorObjectWith*), RealmProperty/RealmOptional wrappers and Codable
//   objects (setAndTestRealmPropertyViaAccessor, setAndTestRealmOptionalViaAccessor), MutableSet
//   and Map (setAndTestSetViaAccessor, setAndTestMapViaAccessor), and the intEnumCol,
//   decimalCol, anyCol and optNSStringCol/optEnumCol parts of the other helpers;
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

    @Test func testUnmanagedAccessors() {
        setAndTestAllPropertiesViaNormalAccess(SwiftObject(), SwiftOptionalObject())
        setAndTestAllPropertiesViaSubscript(SwiftObject(), SwiftOptionalObject())
        setAndTestListViaAccessor(SwiftListObject())
    }

    @Test func testManagedAccessors() throws {
        let realm = try t.realm()
        realm.beginWrite()
        let object = realm.create(SwiftObject.self)
        let optionalObject = realm.create(SwiftOptionalObject.self)
        setAndTestAllPropertiesViaNormalAccess(object, optionalObject)
        setAndTestAllPropertiesViaSubscript(object, optionalObject)
        setAndTestListViaAccessor(realm.create(SwiftListObject.self))
        realm.cancelWrite()
    }

    private func setAndTestAllPropertiesViaNormalAccess(_ object: SwiftObject, _ optObject: SwiftOptionalObject) {
        object.boolCol = true
        #expect(object.boolCol == true)
        object.boolCol = false
        #expect(object.boolCol == false)
        for v in [-1, 0, 1] {
            object.intCol = v
            #expect(object.intCol == v)
            object.int8Col = Int8(v)
            #expect(object.int8Col == Int8(v))
            object.int16Col = Int16(v)
            #expect(object.int16Col == Int16(v))
            object.int32Col = Int32(v)
            #expect(object.int32Col == Int32(v))
            object.int64Col = Int64(v)
            #expect(object.int64Col == Int64(v))
        }
        object.floatCol = 20
        #expect(object.floatCol == 20 as Float)
        object.floatCol = 20.2
        #expect(object.floatCol == 20.2 as Float)
        object.floatCol = Float(16777217 as Double) // rounds, as the literal would
        #expect(Double(object.floatCol) == 16777216.0 as Double)
        object.doubleCol = 20
        #expect(object.doubleCol == 20)
        object.doubleCol = 20.2
        #expect(object.doubleCol == 20.2)
        object.doubleCol = 16777217
        #expect(object.doubleCol == 16777217)
        object.stringCol = ""
        #expect(object.stringCol == "")
        let utf8TestString = "值значен™👍☞⎠‱௹♣︎☐▼❒∑⨌⧭иеمرحبا"
        object.stringCol = utf8TestString
        #expect(object.stringCol == utf8TestString)
        let data = Data("b".utf8)
        object.binaryCol = data
        #expect(object.binaryCol == data)
        let date = Date(timeIntervalSinceReferenceDate: 2)
        object.dateCol = date
        #expect(object.dateCol == date)
        object.objectCol = SwiftBoolObject(value: [true])
        #expect(object.objectCol!.boolCol == true)
        let oid1 = objectId("1234567890ab1234567890ab")
        let oid2 = objectId("abcdef123456abcdef123456")
        object.objectIdCol = oid1
        #expect(object.objectIdCol == oid1)
        object.objectIdCol = oid2
        #expect(object.objectIdCol == oid2)

        // Optional properties
        optObject.optStringCol = ""
        #expect(optObject.optStringCol == "")
        optObject.optStringCol = utf8TestString
        #expect(optObject.optStringCol == utf8TestString)
        optObject.optStringCol = nil
        #expect(optObject.optStringCol == nil)
        optObject.optBinaryCol = data
        #expect(optObject.optBinaryCol == data)
        optObject.optBinaryCol = nil
        #expect(optObject.optBinaryCol == nil)
        optObject.optDateCol = date
        #expect(optObject.optDateCol == date)
        optObject.optDateCol = nil
        #expect(optObject.optDateCol == nil)
        for v in [Int.min, 0, Int.max] {
            optObject.optIntCol = v
            #expect(optObject.optIntCol == v)
        }
        optObject.optIntCol = nil
        #expect(optObject.optIntCol == nil)
        for v in [Int8.min, 0, Int8.max] {
            optObject.optInt8Col = v
            #expect(optObject.optInt8Col == v)
        }
        optObject.optInt8Col = nil
        #expect(optObject.optInt8Col == nil)
        for v in [Int16.min, 0, Int16.max] {
            optObject.optInt16Col = v
            #expect(optObject.optInt16Col == v)
        }
        optObject.optInt16Col = nil
        #expect(optObject.optInt16Col == nil)
        for v in [Int32.min, 0, Int32.max] {
            optObject.optInt32Col = v
            #expect(optObject.optInt32Col == v)
        }
        optObject.optInt32Col = nil
        #expect(optObject.optInt32Col == nil)
        for v in [Int64.min, 0, Int64.max] {
            optObject.optInt64Col = v
            #expect(optObject.optInt64Col == v)
        }
        optObject.optInt64Col = nil
        #expect(optObject.optInt64Col == nil)
        for v in [-Float.greatestFiniteMagnitude, 0, Float.greatestFiniteMagnitude] {
            optObject.optFloatCol = v
            #expect(optObject.optFloatCol == v)
        }
        optObject.optFloatCol = nil
        #expect(optObject.optFloatCol == nil)
        for v in [-Double.greatestFiniteMagnitude, 0, Double.greatestFiniteMagnitude] {
            optObject.optDoubleCol = v
            #expect(optObject.optDoubleCol == v)
        }
        optObject.optDoubleCol = nil
        #expect(optObject.optDoubleCol == nil)
        optObject.optBoolCol = true
        #expect(optObject.optBoolCol == true)
        optObject.optBoolCol = false
        #expect(optObject.optBoolCol == false)
        optObject.optBoolCol = nil
        #expect(optObject.optBoolCol == nil)
        optObject.optObjectCol = SwiftBoolObject(value: [true])
        #expect(optObject.optObjectCol?.boolCol == true)
        optObject.optObjectCol = nil
        #expect(optObject.optObjectCol == nil)
    }

    /// realm-swift reads integers through `as! Int` (NSNumber bridging); here each width is
    /// read as its own type.
    private func setAndTestAllPropertiesViaSubscript(_ object: SwiftObject, _ optObject: SwiftOptionalObject) {
        object["boolCol"] = true
        #expect(object["boolCol"] as? Bool == true)
        object["boolCol"] = false
        #expect(object["boolCol"] as? Bool == false)
        for v in [-1, 0, 1] {
            object["intCol"] = v
            #expect(object["intCol"] as? Int == v)
            object["int8Col"] = v
            #expect(object["int8Col"] as? Int8 == Int8(v))
            object["int16Col"] = v
            #expect(object["int16Col"] as? Int16 == Int16(v))
            object["int32Col"] = v
            #expect(object["int32Col"] as? Int32 == Int32(v))
            object["int64Col"] = v
            #expect(object["int64Col"] as? Int64 == Int64(v))
        }
        object["floatCol"] = 20
        #expect(object["floatCol"] as? Float == 20 as Float)
        object["floatCol"] = 20.2
        #expect(object["floatCol"] as? Float == 20.2 as Float)
        object["floatCol"] = 16777217
        #expect(object["floatCol"] as? Float == 16777216 as Float)
        object["doubleCol"] = 20
        #expect(object["doubleCol"] as? Double == 20)
        object["doubleCol"] = 20.2
        #expect(object["doubleCol"] as? Double == 20.2)
        object["doubleCol"] = 16777217
        #expect(object["doubleCol"] as? Double == 16777217)
        object["stringCol"] = ""
        #expect(object["stringCol"] as? String == "")
        let utf8TestString = "值значен™👍☞⎠‱௹♣︎☐▼❒∑⨌⧭иеمرحبا"
        object["stringCol"] = utf8TestString
        #expect(object["stringCol"] as? String == utf8TestString)
        let data = Data("b".utf8)
        object["binaryCol"] = data
        #expect(object["binaryCol"] as? Data == data)
        let date = Date(timeIntervalSinceReferenceDate: 2)
        object["dateCol"] = date
        #expect(object["dateCol"] as? Date == date)
        object["objectCol"] = SwiftBoolObject(value: [true])
        #expect((object["objectCol"] as? SwiftBoolObject)?.boolCol == true)
        let oid1 = objectId("1234567890ab1234567890ab")
        object["objectIdCol"] = oid1
        #expect(object["objectIdCol"] as? ObjectId == oid1)

        // Optional properties
        optObject["optStringCol"] = ""
        #expect(optObject["optStringCol"] as? String == "")
        optObject["optStringCol"] = utf8TestString
        #expect(optObject["optStringCol"] as? String == utf8TestString)
        optObject["optStringCol"] = nil
        #expect(optObject["optStringCol"] == nil)
        optObject["optBinaryCol"] = data
        #expect(optObject["optBinaryCol"] as? Data == data)
        optObject["optBinaryCol"] = nil
        #expect(optObject["optBinaryCol"] == nil)
        optObject["optDateCol"] = date
        #expect(optObject["optDateCol"] as? Date == date)
        optObject["optDateCol"] = nil
        #expect(optObject["optDateCol"] == nil)
        for v in [Int.min, 0, Int.max] {
            optObject["optIntCol"] = v
            #expect(optObject["optIntCol"] as? Int == v)
        }
        optObject["optIntCol"] = nil
        #expect(optObject["optIntCol"] == nil)
        for v in [Int8.min, 0, Int8.max] {
            optObject["optInt8Col"] = v
            #expect(optObject["optInt8Col"] as? Int8 == v)
        }
        optObject["optInt8Col"] = nil
        #expect(optObject["optInt8Col"] == nil)
        for v in [Int64.min, 0, Int64.max] {
            optObject["optInt64Col"] = v
            #expect(optObject["optInt64Col"] as? Int64 == v)
        }
        optObject["optInt64Col"] = nil
        #expect(optObject["optInt64Col"] == nil)
        for v in [-Float.greatestFiniteMagnitude, 0, Float.greatestFiniteMagnitude] {
            optObject["optFloatCol"] = v
            #expect(optObject["optFloatCol"] as? Float == v)
        }
        optObject["optFloatCol"] = nil
        #expect(optObject["optFloatCol"] == nil)
        for v in [-Double.greatestFiniteMagnitude, 0, Double.greatestFiniteMagnitude] {
            optObject["optDoubleCol"] = v
            #expect(optObject["optDoubleCol"] as? Double == v)
        }
        optObject["optDoubleCol"] = nil
        #expect(optObject["optDoubleCol"] == nil)
        optObject["optBoolCol"] = true
        #expect(optObject["optBoolCol"] as? Bool == true)
        optObject["optBoolCol"] = false
        #expect(optObject["optBoolCol"] as? Bool == false)
        optObject["optBoolCol"] = nil
        #expect(optObject["optBoolCol"] == nil)
        optObject["optObjectCol"] = SwiftBoolObject(value: [true])
        #expect((optObject["optObjectCol"] as? SwiftBoolObject)?.boolCol == true)
        optObject["optObjectCol"] = nil
        #expect(optObject["optObjectCol"] == nil)
    }

    private func setAndTestListViaAccessor(_ object: Object) {
        func get(_ name: String) -> Any? { object.value(forKey: name) }
        func set(_ name: String, _ value: Any?) { object.setValue(value, forKey: name) }
        #expect(get("int") is List<Int>)
        #expect(get("int8") is List<Int8>)
        #expect(get("int16") is List<Int16>)
        #expect(get("int32") is List<Int32>)
        #expect(get("int64") is List<Int64>)
        #expect(get("float") is List<Float>)
        #expect(get("double") is List<Double>)
        #expect(get("string") is List<String>)
        #expect(get("data") is List<Data>)
        #expect(get("date") is List<Date>)
        #expect(get("objectId") is List<ObjectId>)
        #expect(get("uuid") is List<UUID>)
        #expect(get("intOpt") is List<Int?>)
        #expect(get("int8Opt") is List<Int8?>)
        #expect(get("int16Opt") is List<Int16?>)
        #expect(get("int32Opt") is List<Int32?>)
        #expect(get("int64Opt") is List<Int64?>)
        #expect(get("floatOpt") is List<Float?>)
        #expect(get("doubleOpt") is List<Double?>)
        #expect(get("stringOpt") is List<String?>)
        #expect(get("dataOpt") is List<Data?>)
        #expect(get("dateOpt") is List<Date?>)
        #expect(get("objectIdOpt") is List<ObjectId?>)
        #expect(get("uuidOpt") is List<UUID?>)

        set("int", [1, 2, 3])
        #expect((get("int") as? List<Int>).map(Array.init) == [1, 2, 3])
        set("int", [4, 5, 6])
        #expect((get("int") as? List<Int>).map(Array.init) == [4, 5, 6])
        set("int8", get("int"))
        #expect((get("int8") as? List<Int8>).map(Array.init) == [4, 5, 6])
        set("int", NSNull())
        #expect((get("int") as? List<Int>)?.count == 0)
    }
}
