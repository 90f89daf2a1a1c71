// Port of realm-swift's RealmSwift/Tests/MixedCollectionTest.swift: collections nested in an
// AnyRealmValue (Realm 10.51+). realm-swift's values and expectations are kept. Differences:
// - realm-swift's AnyRealmTypeObject holds its value in a `RealmProperty<AnyRealmValue>`
//   (`o.anyValue.value`); Atoll has no RealmProperty, so the model here is the same class with
//   `@Persisted var anyValue: AnyRealmValue` and the tests read `o.anyValue`.
// - testMixedCollectionModernObjectEquality uses a model with only the `anyCol` property of
//   ModernAllTypesObject (which, here, other suites share and which has no anyCol).
// - Dates are a fixed instant instead of `Date()`, which a stored date (nanoseconds) need not
//   reproduce to the last bit of its Double.
// - testMixedCollectionObjectNotifications counts the changes its observer gets when the write
//   commits (Atoll delivers them then, on this thread) instead of waiting for an expectation;
//   so do testMixedCollectionDictionaryNotifications and testMixedCollectionArrayNotifications,
//   which also check that the observer got exactly one update.

import Atoll
import Foundation
import Testing

/// realm-swift's AnyRealmTypeObject, with a @Persisted property for its RealmProperty.
final class AnyRealmTypeObject: Object {
    @Persisted var anyValue: AnyRealmValue
}

/// realm-swift's ModernAllTypesObject, only `anyCol`.
final class ModernAnyColObject: Object {
    @Persisted var anyCol: AnyRealmValue
}

@Suite struct MixedCollectionTests {
    let t = RealmTestCase()

    @Test func testAnyMixedDictionary() throws {
        let so = SwiftStringObject()
        so.stringCol = "hello"
        let d = Date(timeIntervalSince1970: 1_700_000_000.25)
        let oid = ObjectId.generate()
        let uuid = UUID()

        func assertObject(_ o: AnyRealmTypeObject, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(o.anyValue.dictionaryValue?["key1"] == .string("hello"), sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key2"] == .bool(false), sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key3"] == .int(234), sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key4"] == .float(789.123), sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key5"] == .double(12345.678901), sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key6"] == .data(Data("a".utf8)), sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key7"] == .date(d), sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key9"] == .objectId(oid), sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key10"] == .uuid(uuid), sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key11"] == .decimal128(Decimal128(number: 567)), sourceLocation: sourceLocation)

            #expect(o.anyValue.dictionaryValue?["key1"]?.stringValue == "hello", sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key2"]?.boolValue == false, sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key3"]?.intValue == 234, sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key4"]?.floatValue == 789.123, sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key5"]?.doubleValue == 12345.678901, sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key6"]?.dataValue == Data("a".utf8), sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key7"]?.dateValue == d, sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key8"]?.object(SwiftStringObject.self)?.stringCol == so.stringCol, sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key9"]?.objectIdValue == oid, sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key10"]?.uuidValue == uuid, sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key11"]?.decimal128Value == Decimal128(number: 567), sourceLocation: sourceLocation)
        }

        let dictionary: [String: AnyRealmValue] = [
            "key1": .string("hello"),
            "key2": .bool(false),
            "key3": .int(234),
            "key4": .float(789.123),
            "key5": .double(12345.678901),
            "key6": .data(Data("a".utf8)),
            "key7": .date(d),
            "key8": .object(so),
            "key9": .objectId(oid),
            "key10": .uuid(uuid),
            "key11": .decimal128(Decimal128(number: 567)),
        ]
        let dictionary1: [String: AnyRealmValue] = ["key": .none]

        let o = AnyRealmTypeObject()
        // Unmanaged set
        o.anyValue = AnyRealmValue.fromDictionary(dictionary)
        assertObject(o)
        // Unmanaged update
        o.anyValue = AnyRealmValue.fromDictionary(dictionary1)
        #expect(o.anyValue.dictionaryValue?["key"] == AnyRealmValue.none)

        // Add mixed collection to object
        let realm = try t.realmWithTestPath()
        try realm.write { realm.add(o) }
        #expect(o.anyValue.dictionaryValue?["key"] == AnyRealmValue.none)

        // Update managed object
        try realm.write { o.anyValue = AnyRealmValue.fromDictionary(dictionary1) }
        #expect(o.anyValue.dictionaryValue?["key"] == AnyRealmValue.none)

        // Create managed object
        try realm.write {
            let object = realm.create(AnyRealmTypeObject.self, value: ["anyValue": dictionary])
            assertObject(object)
        }

        // Results
        let result = realm.objects(AnyRealmTypeObject.self).last
        #expect(result != nil)
        if let result { assertObject(result) }
    }

    @Test func testAnyMixedDictionaryUpdateAndDelete() throws {
        let so = SwiftStringObject()
        so.stringCol = "hello"
        let dictionary: [String: AnyRealmValue] = ["key1": .string("hello"), "key2": .bool(false), "key3": .int(234)]

        let o = AnyRealmTypeObject()
        // Unmanaged set
        o.anyValue = AnyRealmValue.fromDictionary(dictionary)
        #expect(o.anyValue.dictionaryValue?["key1"] == .string("hello"))

        // Unmanaged update
        o.anyValue.dictionaryValue?["key1"] = .object(so)
        o.anyValue.dictionaryValue?["key2"] = .data(Data("a".utf8))
        #expect(o.anyValue.dictionaryValue?["key1"]?.object(SwiftStringObject.self)?.stringCol == so.stringCol)
        #expect(o.anyValue.dictionaryValue?["key2"] == .data(Data("a".utf8)))

        // Add mixed collection to object
        let realm = try t.realmWithTestPath()
        try realm.write { realm.add(o) }
        #expect(o.anyValue.dictionaryValue?["key1"]?.object(SwiftStringObject.self)?.stringCol == so.stringCol)
        #expect(o.anyValue.dictionaryValue?["key2"] == .data(Data("a".utf8)))

        // Update managed object
        try realm.write {
            o.anyValue.dictionaryValue?["key1"] = .double(12345.678901)
            o.anyValue.dictionaryValue?["key2"] = .float(789.123)
        }
        #expect(o.anyValue.dictionaryValue?["key1"] == .double(12345.678901))
        #expect(o.anyValue.dictionaryValue?["key2"] == .float(789.123))

        let result = realm.objects(AnyRealmTypeObject.self).last
        #expect(result != nil)
        // Delete
        try realm.write {
            result?.anyValue.dictionaryValue?["key1"] = nil
            result?.anyValue.dictionaryValue?["key2"] = nil
        }
        #expect(result?.anyValue.dictionaryValue?["key1"] == nil)
        #expect(result?.anyValue.dictionaryValue?["key2"] == nil)
    }

    @Test func testAnyMixedNestedDictionary() throws {
        let so = SwiftStringObject()
        so.stringCol = "hello"

        func assertDictionary1(_ o: AnyRealmTypeObject, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(o.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.dictionaryValue?["key2"]?.dictionaryValue?["key3"]?.object(SwiftStringObject.self)?.stringCol == "hello", sourceLocation: sourceLocation)
            #expect(o.anyValue.dictionaryValue?["key4"]?.boolValue == false, sourceLocation: sourceLocation)
        }
        func assertDictionary2(_ o: AnyRealmTypeObject, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(o.anyValue.dictionaryValue?["key10"]?.dictionaryValue?["key11"]?.dictionaryValue?["key12"]?.dictionaryValue?["key1"]?.dictionaryValue?["key2"]?.dictionaryValue?["key3"]?.object(SwiftStringObject.self)?.stringCol == "hello", sourceLocation: sourceLocation)
        }

        let subDict2: AnyRealmValue = AnyRealmValue.fromDictionary(["key3": .object(so)])
        let subDict3: AnyRealmValue = AnyRealmValue.fromDictionary(["key2": subDict2])
        let subDict4: AnyRealmValue = AnyRealmValue.fromDictionary(["key1": subDict3])
        let dictionary1: [String: AnyRealmValue] = ["key0": subDict4, "key4": .bool(false)]
        let subDict5: AnyRealmValue = AnyRealmValue.fromDictionary(["key12": subDict4])
        let subDict6: AnyRealmValue = AnyRealmValue.fromDictionary(["key11": subDict5])
        let dictionary2: [String: AnyRealmValue] = ["key10": subDict6]

        let o = AnyRealmTypeObject()
        // Unmanaged set and read
        o.anyValue = AnyRealmValue.fromDictionary(dictionary2)
        assertDictionary2(o)
        // Unmanaged update
        o.anyValue = AnyRealmValue.fromDictionary(dictionary1)
        assertDictionary1(o)

        // Add mixed collection to object
        let realm = try t.realmWithTestPath()
        try realm.write { realm.add(o) }
        assertDictionary1(o)

        // Update managed object
        try realm.write { o.anyValue = AnyRealmValue.fromDictionary(dictionary2) }
        assertDictionary2(o)

        try realm.write {
            let d = ["key0": ["key1": ["key2": ["key3": AnyRealmValue.object(so)]]], "key4": AnyRealmValue.bool(false)] as [String: Any]
            let object = realm.create(AnyRealmTypeObject.self, value: ["anyValue": d])
            assertDictionary1(object)
        }

        // Results
        let result = realm.objects(AnyRealmTypeObject.self).last
        #expect(result != nil)
        if let result { assertDictionary1(result) }
    }

    @Test func testAnyMixedList() throws {
        let so = SwiftStringObject()
        so.stringCol = "hello"
        let d = Date(timeIntervalSince1970: 1_700_000_000.25)
        let oid = ObjectId.generate()
        let uuid = UUID()

        func assertObject(_ o: AnyRealmTypeObject, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(o.anyValue.listValue?[0] == .string("hello"), sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[1] == .bool(false), sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[2] == .int(234), sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[3] == .float(789.123), sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[4] == .double(12345.678901), sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[5] == .data(Data("a".utf8)), sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[6] == .date(d), sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[8] == .objectId(oid), sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[9] == .uuid(uuid), sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[10] == .decimal128(Decimal128(number: 567)), sourceLocation: sourceLocation)

            #expect(o.anyValue.listValue?[0].stringValue == "hello", sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[1].boolValue == false, sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[2].intValue == 234, sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[3].floatValue == 789.123, sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[4].doubleValue == 12345.678901, sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[5].dataValue == Data("a".utf8), sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[6].dateValue == d, sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[7].object(SwiftStringObject.self)?.stringCol == so.stringCol, sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[8].objectIdValue == oid, sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[9].uuidValue == uuid, sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[10].decimal128Value == Decimal128(number: 567), sourceLocation: sourceLocation)
        }

        let list: [AnyRealmValue] = [
            .string("hello"), .bool(false), .int(234), .float(789.123), .double(12345.678901), .data(Data("a".utf8)),
            .date(d), .object(so), .objectId(oid), .uuid(uuid), .decimal128(Decimal128(number: 567)),
        ]
        let list1: [AnyRealmValue] = [.none]

        let o = AnyRealmTypeObject()
        // Unmanaged set
        o.anyValue = AnyRealmValue.fromArray(list)
        assertObject(o)
        // Unmanaged update
        o.anyValue = AnyRealmValue.fromArray(list1)
        #expect(o.anyValue.listValue?[0] == AnyRealmValue.none)

        // Add mixed collection to object
        let realm = try t.realmWithTestPath()
        try realm.write { realm.add(o) }
        #expect(o.anyValue.listValue?[0] == AnyRealmValue.none)

        // Update managed object
        try realm.write { o.anyValue = AnyRealmValue.fromArray(list1) }
        #expect(o.anyValue.listValue?[0] == AnyRealmValue.none)

        // Create managed object
        try realm.write {
            let object = realm.create(AnyRealmTypeObject.self, value: ["anyValue": list])
            assertObject(object)
        }

        // Results
        let result = realm.objects(AnyRealmTypeObject.self).last
        #expect(result != nil)
        if let result { assertObject(result) }
    }

    @Test func testAnyMixedListUpdateAndDelete() throws {
        let so = SwiftStringObject()
        so.stringCol = "hello"
        let list: [AnyRealmValue] = [.string("hello"), .bool(false), .int(234)]

        let o = AnyRealmTypeObject()
        // Unmanaged set
        o.anyValue = AnyRealmValue.fromArray(list)
        #expect(o.anyValue.listValue?[0] == .string("hello"))

        // Unmanaged update
        o.anyValue.listValue?[0] = .object(so)
        o.anyValue.listValue?[1] = .data(Data("a".utf8))
        #expect(o.anyValue.listValue?[0].object(SwiftStringObject.self)?.stringCol == so.stringCol)
        #expect(o.anyValue.listValue?[1] == .data(Data("a".utf8)))

        // Add mixed collection to object
        let realm = try t.realmWithTestPath()
        try realm.write { realm.add(o) }
        #expect(o.anyValue.listValue?[0].object(SwiftStringObject.self)?.stringCol == so.stringCol)
        #expect(o.anyValue.listValue?[1] == .data(Data("a".utf8)))

        // Update managed object
        try realm.write {
            o.anyValue.listValue?[0] = .double(12345.678901)
            o.anyValue.listValue?[1] = .float(789.123)
        }
        #expect(o.anyValue.listValue?[0] == .double(12345.678901))
        #expect(o.anyValue.listValue?[1] == .float(789.123))

        let result = realm.objects(AnyRealmTypeObject.self).last
        #expect(result != nil)
        #expect(result?.anyValue.listValue?.count == 3)
        // Delete
        try realm.write {
            result?.anyValue.listValue?.remove(at: 0)
            result?.anyValue.listValue?.remove(at: 0)
        }
        #expect(result?.anyValue.listValue?[0] != .double(12345.678901))
        #expect(result?.anyValue.listValue?[0] == .int(234))
        #expect(result?.anyValue.listValue?.count == 1)
    }

    @Test func testAnyMixedNestedArray() throws {
        let so = SwiftStringObject()
        so.stringCol = "hello"

        func assertArray1(_ o: AnyRealmTypeObject, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(o.anyValue.listValue?[0].listValue?[0].listValue?[0].listValue?[0].object(SwiftStringObject.self)?.stringCol == "hello", sourceLocation: sourceLocation)
            #expect(o.anyValue.listValue?[1].boolValue == false, sourceLocation: sourceLocation)
        }
        func assertArray2(_ o: AnyRealmTypeObject, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(o.anyValue.listValue?[0].listValue?[0].listValue?[0].listValue?[0].listValue?[0].listValue?[0].object(SwiftStringObject.self)?.stringCol == "hello", sourceLocation: sourceLocation)
        }

        let subArray2: AnyRealmValue = AnyRealmValue.fromArray([.object(so)])
        let subArray3: AnyRealmValue = AnyRealmValue.fromArray([subArray2])
        let subArray4: AnyRealmValue = AnyRealmValue.fromArray([subArray3])
        let array1: [AnyRealmValue] = [subArray4, .bool(false)]
        let subArray5: AnyRealmValue = AnyRealmValue.fromArray([subArray4])
        let subArray6: AnyRealmValue = AnyRealmValue.fromArray([subArray5])
        let array2: [AnyRealmValue] = [subArray6]

        let o = AnyRealmTypeObject()
        // Unmanaged set and read
        o.anyValue = AnyRealmValue.fromArray(array2)
        assertArray2(o)
        // Unmanaged update
        o.anyValue = AnyRealmValue.fromArray(array1)
        assertArray1(o)

        // Add mixed collection to object
        let realm = try t.realmWithTestPath()
        try realm.write { realm.add(o) }
        assertArray1(o)

        // Update managed object
        try realm.write { o.anyValue = AnyRealmValue.fromArray(array2) }
        assertArray2(o)

        try realm.write {
            let d: [Any] = [[[[AnyRealmValue.object(so)]]], AnyRealmValue.bool(false)]
            let object = realm.create(AnyRealmTypeObject.self, value: ["anyValue": d])
            assertArray1(object)
        }

        // Results
        let result = realm.objects(AnyRealmTypeObject.self).last
        #expect(result != nil)
        if let result { assertArray1(result) }
    }

    /// The nested value of realm-swift's testMixedNestedCollection, testMixedCollectionEquality
    /// and testMixedCollectionModernObjectEquality.
    static func deepDictionary(_ so: SwiftStringObject, innermostHasDictionary: Bool = true) -> [String: AnyRealmValue] {
        let subArray2: AnyRealmValue = AnyRealmValue.fromArray([.object(so)])
        let subDict2: AnyRealmValue = AnyRealmValue.fromDictionary(["key1": subArray2])
        let subArray3: AnyRealmValue = innermostHasDictionary ? AnyRealmValue.fromArray([subArray2, subDict2]) : AnyRealmValue.fromArray([subDict2])
        let subDict3: AnyRealmValue = AnyRealmValue.fromDictionary(["key2": subArray3])
        let subArray4: AnyRealmValue = AnyRealmValue.fromArray([subDict3])
        let subDict4: AnyRealmValue = AnyRealmValue.fromDictionary(["key3": subArray4])
        let subArray5: AnyRealmValue = AnyRealmValue.fromArray([subDict4])
        let subDict5: AnyRealmValue = AnyRealmValue.fromDictionary(["key4": subArray5])
        let subArray6: AnyRealmValue = AnyRealmValue.fromArray([subDict5])
        let subDict6: AnyRealmValue = AnyRealmValue.fromDictionary(["key5": subArray6])
        return ["key0": subDict6]
    }

    @Test func testMixedNestedCollection() throws {
        let so = SwiftStringObject()
        so.stringCol = "hello"
        let dictionary = Self.deepDictionary(so)

        func assertMixed(_ o: AnyRealmTypeObject, sourceLocation: SourceLocation = #_sourceLocation) {
            let baseNested: List<AnyRealmValue>? = o.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key5"]?.listValue?[0].dictionaryValue?["key4"]?.listValue?[0].dictionaryValue?["key3"]?.listValue
            let nested1: String? = baseNested?[0].dictionaryValue?["key2"]?.listValue?[0].listValue?[0].object(SwiftStringObject.self)?.stringCol
            #expect(nested1 == "hello", sourceLocation: sourceLocation)
            let nested2: String? = baseNested?[0].dictionaryValue?["key2"]?.listValue?[1].dictionaryValue?["key1"]?.listValue?[0].object(SwiftStringObject.self)?.stringCol
            #expect(nested2 == "hello", sourceLocation: sourceLocation)
        }

        let o = AnyRealmTypeObject()
        // Unmanaged set and read
        o.anyValue = AnyRealmValue.fromDictionary(dictionary)
        assertMixed(o)
        // Unmanaged update
        o.anyValue = AnyRealmValue.fromDictionary(dictionary)
        assertMixed(o)

        // Add mixed collection to object
        let realm = try t.realmWithTestPath()
        try realm.write { realm.add(o) }
        assertMixed(o)

        // Update managed object
        try realm.write { o.anyValue = AnyRealmValue.fromDictionary(dictionary) }
        assertMixed(o)

        try realm.write {
            let d = ["key0": ["key5": [["key4": [["key3": [["key2": [[AnyRealmValue.object(so)], ["key1": [AnyRealmValue.object(so)]]]]]]]]]]] as [String: Any]
            let object = realm.create(AnyRealmTypeObject.self, value: ["anyValue": d])
            assertMixed(object)
        }

        // Results
        let result = realm.objects(AnyRealmTypeObject.self).last
        #expect(result != nil)
        if let result { assertMixed(result) }
    }

    @Test func testMixedCollectionEquality() throws {
        let so = SwiftStringObject()
        so.stringCol = "hello"
        let dictionary = Self.deepDictionary(so)

        #expect(AnyRealmValue.fromDictionary([:]) == AnyRealmValue.fromDictionary([:])) // Empty mixed lists should be equal
        #expect(AnyRealmValue.fromDictionary(dictionary) == AnyRealmValue.fromDictionary(dictionary)) // Unmanaged mixed lists should be equal

        var dictionary2 = dictionary
        dictionary2["newKey"] = .bool(false)
        #expect(AnyRealmValue.fromDictionary(dictionary) != AnyRealmValue.fromDictionary(dictionary2))

        let anyValue = AnyRealmValue.fromDictionary(dictionary)
        let anyValue2 = AnyRealmValue.fromDictionary(dictionary)
        anyValue2.dictionaryValue?["newKey"] = .bool(false)
        #expect(anyValue != anyValue2)

        let mixedObject = AnyRealmTypeObject()
        mixedObject.anyValue = anyValue
        let mixedObject2 = mixedObject

        #expect(mixedObject.anyValue == mixedObject2.anyValue)
        #expect(mixedObject.isEqual(mixedObject2), "instances should be equal by `isEqual` method")
        #expect(mixedObject.anyValue.dictionaryValue == mixedObject.anyValue.dictionaryValue)

        let realm = try t.realmWithTestPath()
        try realm.write {
            realm.add(mixedObject)
            realm.add(mixedObject2)
        }

        #expect(mixedObject.anyValue == mixedObject2.anyValue)
        #expect(mixedObject.anyValue.dictionaryValue?["key0"] == mixedObject2.anyValue.dictionaryValue?["key0"])
        #expect(mixedObject.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key5"]?.listValue?[0] == mixedObject2.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key5"]?.listValue?[0])

        let mixedObject3 = AnyRealmTypeObject()
        mixedObject3.anyValue = AnyRealmValue.fromDictionary(dictionary)
        try realm.write { realm.add(mixedObject3) }

        #expect(mixedObject.anyValue != mixedObject3.anyValue)
        #expect(mixedObject.anyValue.dictionaryValue?["key0"] != mixedObject3.anyValue.dictionaryValue?["key0"])
        #expect(mixedObject.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key5"]?.listValue?[0] != mixedObject3.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key5"]?.listValue?[0])
    }

    @Test func testMixedCollectionModernObjectEquality() throws {
        let so = SwiftStringObject()
        so.stringCol = "hello"
        let dictionary = Self.deepDictionary(so)

        let anyValue = AnyRealmValue.fromDictionary(dictionary)
        let anyValue2 = AnyRealmValue.fromDictionary(dictionary)
        anyValue2.dictionaryValue?["newKey"] = .bool(false)
        #expect(anyValue != anyValue2)

        // Unmanaged equality
        let mixedObject = ModernAnyColObject()
        mixedObject.anyCol = anyValue
        #expect(mixedObject.anyCol == anyValue)
        #expect(mixedObject.anyCol == AnyRealmValue.fromDictionary(dictionary))
        let mixedObject2 = mixedObject
        #expect(mixedObject2.anyCol == anyValue)
        #expect(mixedObject2.anyCol == AnyRealmValue.fromDictionary(dictionary))
        #expect(mixedObject.anyCol == mixedObject2.anyCol)
        #expect(mixedObject.isEqual(mixedObject2))
        #expect(mixedObject.anyCol.dictionaryValue == mixedObject.anyCol.dictionaryValue)

        let realm = try t.realmWithTestPath()
        try realm.write {
            realm.add(mixedObject)
            realm.add(mixedObject2)
        }
        #expect(mixedObject.anyCol == mixedObject2.anyCol)
        #expect(mixedObject.isEqual(mixedObject2))

        let mixedObject3 = ModernAnyColObject()
        mixedObject3.anyCol = AnyRealmValue.fromDictionary(dictionary)
        try realm.write { realm.add(mixedObject3) }

        #expect(mixedObject.anyCol != mixedObject3.anyCol)
        #expect(mixedObject.anyCol.dictionaryValue?["key0"] != mixedObject3.anyCol.dictionaryValue?["key0"])
        #expect(mixedObject.anyCol.dictionaryValue?["key0"]?.dictionaryValue?["key5"]?.listValue?[0] != mixedObject3.anyCol.dictionaryValue?["key0"]?.dictionaryValue?["key5"]?.listValue?[0])
    }

    /// realm-swift's testMixedCollectionObjectNotifications: each change of a nested collection is
    /// one change of the `anyValue` property of its object.
    @Test func testMixedCollectionObjectNotifications() throws {
        let subArray3: AnyRealmValue = AnyRealmValue.fromArray([.int(3)])
        let subArray2: AnyRealmValue = AnyRealmValue.fromArray([subArray3])
        let subDict1: AnyRealmValue = AnyRealmValue.fromDictionary(["key1": subArray2])
        let dictionary: [String: AnyRealmValue] = ["key0": subDict1]

        let o = AnyRealmTypeObject()
        let realm = try t.realmWithTestPath()
        try realm.write { realm.add(o) }

        func assertObjectNotification(_ block: () -> Void, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let log = ObjectChangeLog<AnyRealmTypeObject>()
            let token = o.observe(log.record)
            try realm.write { block() }
            #expect(log.changes.count == 1, "\(log.changes)", sourceLocation: sourceLocation)
            if case .change(_, let properties)? = log.changes.first {
                #expect(properties.count == 1, sourceLocation: sourceLocation)
                #expect(properties.first?.name == "anyValue", sourceLocation: sourceLocation)
            } else {
                Issue.record("expected .change, got \(log.changes)", sourceLocation: sourceLocation)
            }
            token.invalidate()
        }

        try assertObjectNotification { o.anyValue = AnyRealmValue.fromDictionary(dictionary) }
        try assertObjectNotification { o.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.listValue?[0].listValue?[0] = .bool(true) }
        try assertObjectNotification { o.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.listValue?.append(.float(33.33)) }
        try assertObjectNotification { o.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.listValue?.removeLast() }
        try assertObjectNotification { o.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.listValue?.removeAll() }
        try assertObjectNotification { o.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key2"] = .string("nowhere") }
        try assertObjectNotification { o.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key2"] = nil }
        try assertObjectNotification { o.anyValue.dictionaryValue?.removeAll() }
        #expect(o.anyValue.dictionaryValue?.count == 0)
    }

    /// realm-swift's testMixedCollectionDictionaryNotifications: a dictionary nested in a
    /// managed AnyRealmValue, observed by itself, reports changed keys.
    @Test func testMixedCollectionDictionaryNotifications() throws {
        let subDict2: AnyRealmValue = AnyRealmValue.fromDictionary(["key5": .float(43)])
        let subDict1: AnyRealmValue = AnyRealmValue.fromDictionary(["key1": subDict2])
        let dictionary: [String: AnyRealmValue] = [
            "key0": subDict1,
            "key3": .decimal128(Decimal128(1)),
        ]

        let o = AnyRealmTypeObject()
        o.anyValue = AnyRealmValue.fromDictionary(dictionary)
        let realm = try t.realmWithTestPath()
        try realm.write { realm.add(o) }

        func assertDictionaryNotification(_ dictionary: Map<String, AnyRealmValue>?, deletions: [String], insertions: [String], modifications: [String],
                                          sourceLocation: SourceLocation = #_sourceLocation, block: () -> Void) throws {
            var updates: [(d: [String], i: [String], m: [String])] = []
            let token = dictionary?.observe { change in
                switch change {
                case .initial: break
                case .update(_, deletions: let d, insertions: let i, modifications: let m): updates.append((d, i, m))
                case .error(let error): Issue.record("Unexpected error \(error)", sourceLocation: sourceLocation)
                }
            }
            #expect(token != nil, sourceLocation: sourceLocation)
            try realm.write { block() }
            #expect(updates.count == 1, "\(updates)", sourceLocation: sourceLocation)
            if let u = updates.first {
                #expect(u.d == deletions, sourceLocation: sourceLocation)
                #expect(u.i == insertions, sourceLocation: sourceLocation)
                #expect(u.m == modifications, sourceLocation: sourceLocation)
            }
            token?.invalidate()
        }

        try assertDictionaryNotification(o.anyValue.dictionaryValue, deletions: [], insertions: ["key2"], modifications: []) {
            o.anyValue.dictionaryValue?["key2"] = AnyRealmValue.fromDictionary(dictionary)
        }
        try assertDictionaryNotification(o.anyValue.dictionaryValue, deletions: [], insertions: ["key10"], modifications: []) {
            o.anyValue.dictionaryValue?["key10"] = AnyRealmValue.fromDictionary(dictionary)
        }
        try assertDictionaryNotification(o.anyValue.dictionaryValue?["key10"]?.dictionaryValue, deletions: [], insertions: [], modifications: ["key0"]) {
            o.anyValue.dictionaryValue?["key10"]?.dictionaryValue?["key0"] = .string("new")
        }
        try assertDictionaryNotification(o.anyValue.dictionaryValue, deletions: ["key3"], insertions: [], modifications: []) {
            o.anyValue.dictionaryValue?["key3"] = nil
        }
        try assertDictionaryNotification(o.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.dictionaryValue, deletions: [], insertions: ["key6"], modifications: []) {
            o.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.dictionaryValue?["key6"] = .date(Date(timeIntervalSince1970: 1_700_000_000))
        }
        try assertDictionaryNotification(o.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.dictionaryValue, deletions: ["key5", "key6"], insertions: [], modifications: []) {
            o.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.dictionaryValue?.removeAll()
        }
    }

    /// realm-swift's testMixedCollectionArrayNotifications: a list nested in a managed
    /// AnyRealmValue, observed by itself, reports changed positions.
    @Test func testMixedCollectionArrayNotifications() throws {
        let subArray2: AnyRealmValue = AnyRealmValue.fromArray([.float(43), .string("lunch"), .double(12.34)])
        let subArray1: AnyRealmValue = AnyRealmValue.fromArray([subArray2, .bool(false)])
        let array: [AnyRealmValue] = [subArray1, .decimal128(Decimal128(1))]

        let o = AnyRealmTypeObject()
        o.anyValue = AnyRealmValue.fromArray(array)
        let realm = try t.realmWithTestPath()
        try realm.write { realm.add(o) }

        func assertListNotification(_ list: List<AnyRealmValue>?, deletions: [Int], insertions: [Int], modifications: [Int],
                                    sourceLocation: SourceLocation = #_sourceLocation, block: () -> Void) throws {
            var updates: [(d: [Int], i: [Int], m: [Int])] = []
            let token = list?.observe { change in
                switch change {
                case .initial: break
                case .update(_, deletions: let d, insertions: let i, modifications: let m): updates.append((d, i, m))
                case .error(let error): Issue.record("Unexpected error \(error)", sourceLocation: sourceLocation)
                }
            }
            #expect(token != nil, sourceLocation: sourceLocation)
            try realm.write { block() }
            #expect(updates.count == 1, "\(updates)", sourceLocation: sourceLocation)
            if let u = updates.first {
                #expect(u.d == deletions, sourceLocation: sourceLocation)
                #expect(u.i == insertions, sourceLocation: sourceLocation)
                #expect(u.m == modifications, sourceLocation: sourceLocation)
            }
            token?.invalidate()
        }

        try assertListNotification(o.anyValue.listValue, deletions: [], insertions: [2], modifications: []) {
            o.anyValue.listValue?.append(AnyRealmValue.fromArray(array))
        }
        try assertListNotification(o.anyValue.listValue?[0].listValue, deletions: [], insertions: [], modifications: [1]) {
            o.anyValue.listValue?[0].listValue?[1] = .objectId(ObjectId.generate())
        }
        try assertListNotification(o.anyValue.listValue?[0].listValue?[0].listValue, deletions: [2], insertions: [], modifications: []) {
            o.anyValue.listValue?[0].listValue?[0].listValue?.removeLast()
        }
        try assertListNotification(o.anyValue.listValue?[0].listValue?[0].listValue, deletions: [0, 1], insertions: [], modifications: []) {
            o.anyValue.listValue?[0].listValue?[0].listValue?.removeAll()
        }
    }

    @Test func testReassignToMixedList() throws {
        let list = AnyRealmValue.fromArray([.bool(true), AnyRealmValue.fromDictionary(["key": .int(12)]), .float(13.12)])

        let mixedObject = AnyRealmTypeObject()
        mixedObject.anyValue = list

        let realm = try t.realmWithTestPath()
        try realm.write { realm.add(mixedObject) }
        #expect(mixedObject.anyValue.listValue?[1].dictionaryValue?["key"] == .int(12))

        try realm.write { mixedObject.anyValue.listValue?.append(AnyRealmValue.fromArray([.double(20.20), .string("hello")])) }
        #expect(mixedObject.anyValue.listValue?[3].listValue?[0] == .double(20.20))

        try realm.write {
            let listItem = mixedObject.anyValue.listValue?[0]
            mixedObject.anyValue.listValue?.append(listItem!)
        }
        #expect(mixedObject.anyValue.listValue?[4] == .bool(true))

        // realm-swift leaves the self-assignments unchecked (realm-core issue 7422); Atoll copies
        // the collection, so they hold here.
        try realm.write {
            let listItem = mixedObject.anyValue.listValue?[3]
            mixedObject.anyValue.listValue?.append(listItem!)
        }
        #expect(mixedObject.anyValue.listValue?[5].listValue?[0] == .double(20.20))

        try realm.write { mixedObject.anyValue.listValue?[1] = AnyRealmValue.fromDictionary(["new-key": .int(3)]) }
        #expect(mixedObject.anyValue.listValue?[1].dictionaryValue?["new-key"] == .int(3))

        try realm.write {
            let listItem = mixedObject.anyValue.listValue?[1]
            mixedObject.anyValue.listValue?[3] = listItem!
        }
        #expect(mixedObject.anyValue.listValue?[3].dictionaryValue?["new-key"] == .int(3))
    }

    @Test func testReassignToMixedDictionary() throws {
        let dictionary = AnyRealmValue.fromDictionary(["key1": .bool(true), "key2": AnyRealmValue.fromDictionary(["key4": .int(12)]), "key3": .float(13.12)])

        let mixedObject = AnyRealmTypeObject()
        mixedObject.anyValue = dictionary

        let realm = try t.realmWithTestPath()
        try realm.write { realm.add(mixedObject) }
        #expect(mixedObject.anyValue.dictionaryValue?["key2"]?.dictionaryValue?["key4"] == .int(12))

        try realm.write { mixedObject.anyValue.dictionaryValue?["key4"] = AnyRealmValue.fromDictionary(["new-key": .int(3)]) }
        #expect(mixedObject.anyValue.dictionaryValue?["key4"]?.dictionaryValue?["new-key"] == .int(3))

        try realm.write {
            let dictItem = mixedObject.anyValue.dictionaryValue?["key1"]
            mixedObject.anyValue.dictionaryValue?["key5"] = dictItem
        }
        #expect(mixedObject.anyValue.dictionaryValue?["key5"] == .bool(true))

        try realm.write {
            let dictItem = mixedObject.anyValue.dictionaryValue?["key2"]
            mixedObject.anyValue.dictionaryValue?["key6"] = dictItem
        }
        #expect(mixedObject.anyValue.dictionaryValue?["key6"]?.dictionaryValue?["key4"] == .int(12))

        try realm.write { mixedObject.anyValue.dictionaryValue?["key7"] = AnyRealmValue.fromArray([.string("hello"), .double(20.20)]) }
        #expect(mixedObject.anyValue.dictionaryValue?["key7"]?.listValue?[0] == .string("hello"))

        try realm.write {
            let dictItem = mixedObject.anyValue.dictionaryValue?["key7"]
            mixedObject.anyValue.dictionaryValue?["key2"] = dictItem
        }
        #expect(mixedObject.anyValue.dictionaryValue?["key2"]?.listValue?[0] == .string("hello"))
    }

    @Test func testEnumerationNestedCollection() throws {
        var count = 0
        var accessNestedValue = false
        func iterateNestedCollectionKeyValue(_ value: AnyRealmValue) {
            count += 1
            switch value {
            case .list(let l):
                for item in l { iterateNestedCollectionKeyValue(item) }
            case .dictionary(let d):
                for (_, val) in d.asKeyValueSequence() { iterateNestedCollectionKeyValue(val) }
            default:
                accessNestedValue = true
            }
        }

        let so = SwiftStringObject()
        so.stringCol = "hello"
        let dictionary = Self.deepDictionary(so, innermostHasDictionary: false)

        let o = AnyRealmTypeObject()
        o.anyValue = AnyRealmValue.fromDictionary(dictionary)
        let realm = try t.realmWithTestPath()
        try realm.write { realm.add(o) }

        iterateNestedCollectionKeyValue(o.anyValue)
        #expect(count == 12)
        #expect(accessNestedValue)

        var countValue = 0
        var accessNestedValueValue = false
        func iterateNestedCollectionValue(_ value: AnyRealmValue) {
            countValue += 1
            switch value {
            case .list(let l):
                for item in l { iterateNestedCollectionValue(item) }
            case .dictionary(let d):
                for entry in d { iterateNestedCollectionValue(entry.value) }
            default:
                accessNestedValueValue = true
            }
        }
        iterateNestedCollectionValue(o.anyValue)
        #expect(countValue == 12)
        #expect(accessNestedValueValue)
    }

    /// Changing a managed nested collection outside a write is a programming error, as for a
    /// managed List (realm-swift throws "Cannot modify managed ... outside of a write transaction").
    @Test func changingANestedCollectionOutsideAWriteStops() throws {
        try MisuseStop.stops("conformance-nested-mixed-write-outside-transaction", with: "must happen inside a write transaction")
    }

    @Test func testCollectionReassign() throws {
        let dictionary: [String: AnyRealmValue] = ["key1": .string("hello"), "key2": .bool(false)]
        let dictionary1: [String: AnyRealmValue] = ["key1": .string("adios")]

        let o = AnyRealmTypeObject()
        o.anyValue = AnyRealmValue.fromDictionary(dictionary)
        let realm = try t.realmWithTestPath()
        try realm.write { realm.add(o) }
        #expect(o.anyValue.dictionaryValue?["key1"] == .string("hello"))
        #expect(o.anyValue.dictionaryValue?["key2"] == .bool(false))

        try realm.write { o.anyValue = AnyRealmValue.fromDictionary(dictionary1) }
        #expect(o.anyValue.dictionaryValue?["key1"] == .string("adios"))
        #expect(o.anyValue.dictionaryValue?["key2"] == nil)
    }
}
