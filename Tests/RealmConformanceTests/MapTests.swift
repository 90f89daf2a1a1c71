// Port of realm-swift's RealmSwift/Tests/MapTests.swift: MapTests run on the four kinds of map
// realm-swift uses (MapStandaloneTests, MapNewlyAddedTests, MapNewlyCreatedTests,
// MapRetrievedTests). Expected values are realm-swift's.
//
// Not ported:
// - testAppendEmbedded, testSetEmbedded: ported in EmbeddedObjectTests.swift.
// - testValueForKey, testValueForKeyOptional: need Decimal128 and NSString.
// - testMapDescription: Atoll's description is "Map<String, T> (n entries)", not RealmSwift's
//   multi-line dump.
// - testKeyedSortable, testKeyedAggregatable: key-path (`\.intCol`) sorting and aggregates of
//   collections are not in Atoll (string key paths are: checked in testFilter).
// - testAllKeysQuery, testAllValuesQuery: NSPredicate; the query language's `@keys`/`@values`
//   are not implemented yet.
// - the Decimal128 and AnyRealmValue lines of testPrimitiveIterationAcrossNil; the
//   `Dictionary(_immutableCocoaDictionary:)` lines of testUnmanagedMapComparison.
//
// Where Atoll differs: `filter`/`sorted` on a map of objects give `Results<SwiftStringObject>`
// (Atoll's Results hold objects, never nil) where RealmSwift gives `Results<SwiftStringObject?>`;
// on an unmanaged map they are a programming error (RealmSwift throws), so testFilter checks
// managed maps only.

import Atoll
import AtollTestSupport
import Foundation
import Testing

/// realm-swift's MapTests setUp/tearDown: two strings added to the test realm, a map of the
/// given kind, and an open write (cancelled at the end).
final class MapFixture {
    let t = RealmTestCase()
    let realm: Realm
    let str1: SwiftStringObject
    let str2: SwiftStringObject
    let kind: ListFixtureKind

    init(_ kind: ListFixtureKind) throws {
        self.kind = kind
        realm = try t.realmWithTestPath()
        str1 = SwiftStringObject(stringCol: "1")
        str2 = SwiftStringObject(stringCol: "2")
        let (s1, s2) = (str1, str2)
        try realm.write {
            realm.add(s1)
            realm.add(s2)
        }
        realm.beginWrite()
    }

    /// realm-swift's createMapObject for this kind (inside the open write).
    func createMapObject() throws -> SwiftMapPropertyObject {
        switch kind {
        case .standalone:
            return SwiftMapPropertyObject()
        case .newlyAdded:
            let o = SwiftMapPropertyObject()
            realm.add(o)
            return o
        case .newlyCreated:
            return realm.create(SwiftMapPropertyObject.self, value: ["name": "name"])
        case .retrieved:
            realm.create(SwiftMapPropertyObject.self, value: ["name": "name"])
            return try #require(realm.objects(SwiftMapPropertyObject.self).first)
        }
    }

    func createMap() throws -> Map<String, SwiftStringObject?> { try createMapObject().map }

    /// tearDown: cancels the write.
    func finish() {
        if realm.isInWriteTransaction { realm.cancelWrite() }
    }
}

@Suite struct MapTests {
    @Test func testPrimitive() {
        let obj = SwiftMapObject()
        obj.int["key"] = 5
        #expect(obj.int["key"]! == 5)
        #expect(obj.int["doesntExist"] == nil)
        obj.int["keyB"] = 6
        obj.int["keyC"] = 7
        obj.int["keyD"] = 8
        #expect(obj.int.max() == 8)
        #expect(obj.int.min() == 5)
        #expect(obj.int.sum() == 26)
        #expect(obj.int.average() == 6.5)

        obj.string["key"] = "str"
        #expect(obj.string["key"] == "str")
    }

    @Test func testPrimitiveIterationAcrossNil() {
        let obj = SwiftMapObject()
        #expect(!obj.int.contains(where: { $0 == "0" || $1 == 5 }))
        #expect(!obj.int8.contains(where: { $0 == "0" || $1 == 5 }))
        #expect(!obj.int16.contains(where: { $0 == "0" || $1 == 5 }))
        #expect(!obj.int32.contains(where: { $0 == "0" || $1 == 5 }))
        #expect(!obj.int64.contains(where: { $0 == "0" || $1 == 5 }))
        #expect(!obj.float.contains(where: { $0 == "0" || $1 == 3.141592 }))
        #expect(!obj.double.contains(where: { $0 == "0" || $1 == 3.141592 }))
        #expect(!obj.string.contains(where: { $0 == "0" || $1 == "foobar" }))
        #expect(!obj.data.contains(where: { $0 == "0" || $1 == Data() }))
        #expect(!obj.date.contains(where: { $0 == "0" || $1 == Date() }))
        #expect(!obj.objectId.contains(where: { $0 == "0" || $1 == ObjectId() }))
        #expect(!obj.uuid.contains(where: { $0 == "0" || $1 == UUID() }))
        #expect(!obj.object.contains(where: { $0 == "0" || $1 == SwiftStringObject() }))

        #expect(!obj.intOpt.contains { $1 == nil })
        #expect(!obj.int8Opt.contains { $1 == nil })
        #expect(!obj.int16Opt.contains { $1 == nil })
        #expect(!obj.int32Opt.contains { $1 == nil })
        #expect(!obj.int64Opt.contains { $1 == nil })
        #expect(!obj.floatOpt.contains { $1 == nil })
        #expect(!obj.doubleOpt.contains { $1 == nil })
        #expect(!obj.stringOpt.contains { $1 == nil })
        #expect(!obj.dataOpt.contains { $1 == nil })
        #expect(!obj.dateOpt.contains { $1 == nil })
        #expect(!obj.objectIdOpt.contains { $1 == nil })
        #expect(!obj.uuidOpt.contains { $1 == nil })

        #expect(!obj.int.map(obj.int.contains).contains(true))
        #expect(!obj.string.map(obj.string.contains).contains(true))
        #expect(!obj.object.map(obj.object.contains).contains(true))
        #expect(!obj.intOpt.map(obj.intOpt.contains).contains(true))
    }

    @Test(arguments: ListFixtureKind.allCases) func testInvalidated(_ kind: ListFixtureKind) throws {
        let f = try MapFixture(kind)
        let mapObject = SwiftMapOfSwiftObject()
        f.realm.add(mapObject)
        #expect(!mapObject.map.isInvalidated)
        if let realm = mapObject.realm {
            realm.delete(mapObject)
            #expect(mapObject.map.isInvalidated)
        }
        f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testFastEnumerationWithMutation(_ kind: ListFixtureKind) throws {
        let f = try MapFixture(kind)
        let map = try f.createMap()
        for i in 0...5 { map["key\(i)"] = f.str1 }
        var str = ""
        for obj in map {
            str += obj.value!.stringCol
            map[obj.key] = f.str2
        }
        #expect(str == "111111")
        f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testAppendObject(_ kind: ListFixtureKind) throws {
        let f = try MapFixture(kind)
        let map = try f.createMap()
        map["key1"] = f.str1
        map["key2"] = f.str2
        #expect(2 == map.count)
        #expect("1" == map["key1"]!!.stringCol)
        #expect("2" == map["key2"]!!.stringCol)
        f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testInsert(_ kind: ListFixtureKind) throws {
        let f = try MapFixture(kind)
        let map = try f.createMap()
        #expect(0 == map.count)
        #expect(map[f.str1.stringCol] as Any? == nil)
        map[f.str1.stringCol] = f.str1
        #expect(1 == map.count)
        #expect(map[f.str2.stringCol] as Any? == nil)
        map[f.str2.stringCol] = f.str2
        #expect(2 == map.count)
        f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testRemove(_ kind: ListFixtureKind) throws {
        let f = try MapFixture(kind)
        let map = try f.createMap()
        let key = f.str1.stringCol
        map[key] = f.str1
        #expect(1 == map.count)
        #expect(map[key] as Any? != nil)

        map.removeObject(for: key)
        #expect(0 == map.count)
        #expect(map[key] as Any? == nil)

        map[key] = f.str1
        #expect(1 == map.count)
        #expect(map[key] as Any? != nil)

        map[key] = nil
        #expect(0 == map.count)
        #expect(map[key] as Any? == nil)
        f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testRemoveAll(_ kind: ListFixtureKind) throws {
        let f = try MapFixture(kind)
        let map = try f.createMap()
        for i in 0..<5 { map[String(i)] = f.str1 }
        #expect(5 == map.count)
        map.removeAll()
        #expect(0 == map.count)
        f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testDeleteObjectFromMap(_ kind: ListFixtureKind) throws {
        let f = try MapFixture(kind)
        let map = try f.createMap()
        if let realm = map.realm {
            map["key"] = f.str1
            #expect(map["key"]!!.stringCol == f.str1.stringCol)
            realm.delete(f.str1)
            #expect((map["key"] ?? nil) == nil)
        }
        f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testMerge(_ kind: ListFixtureKind) throws {
        let f = try MapFixture(kind)
        let map = try f.createMap()
        let (str1, str2) = (f.str1, f.str2)
        map["a"] = str1

        map.merge(["b": str2].map { (key: $0.key, value: Optional($0.value)) }, uniquingKeysWith: { old, _ in
            Issue.record("combine called with no duplicates")
            return old
        })
        #expect(map.count == 2)
        #expect(str1.isSameObject(as: map["a"]!!))
        #expect(str2.isSameObject(as: map["b"]!!))

        // Does not actually update because the combine function picks the existing value
        map.merge([(key: "b", value: Optional(str1))], uniquingKeysWith: { old, _ in old })
        #expect(map.count == 2)
        #expect(str1.isSameObject(as: map["a"]!!))
        #expect(str2.isSameObject(as: map["b"]!!))

        // Does actually update
        map.merge([(key: "b", value: Optional(str1))], uniquingKeysWith: { _, new in new })
        #expect(map.count == 2)
        #expect(str1.isSameObject(as: map["a"]!!))
        #expect(str1.isSameObject(as: map["b"]!!))

        // Creating an entirely new value is valid too
        map.merge([(key: "a", value: Optional(str1))], uniquingKeysWith: { _, _ in SwiftStringObject(stringCol: "c") })
        #expect(map.count == 2)
        #expect(map["a"]!!.stringCol == "c")
        #expect(str1.isSameObject(as: map["b"]!!))
        f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testChangesArePersisted(_ kind: ListFixtureKind) throws {
        let f = try MapFixture(kind)
        let map = try f.createMap()
        map["key"] = f.str1
        map["key2"] = f.str2
        if let realm = map.realm {
            let mapFromResults = try #require(realm.objects(SwiftMapPropertyObject.self).first).map
            #expect(map["key"]!!.stringCol == mapFromResults["key"]!!.stringCol)
            #expect(map["key2"]!!.stringCol == mapFromResults["key2"]!!.stringCol)
        }
        f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testPopulateEmptyMap(_ kind: ListFixtureKind) throws {
        let f = try MapFixture(kind)
        let map = try f.createMap()
        #expect(map.count == 0, "Should start with no array elements.")
        map["a"] = SwiftStringObject(stringCol: "a")
        map["b"] = f.realm.create(SwiftStringObject.self, value: ["stringCol": "b"])
        map[f.str1.stringCol] = f.str1
        #expect(map.count == 3)
        #expect(map["a"]!!.stringCol == "a")
        #expect(map["b"]!!.stringCol == "b")
        #expect(map[f.str1.stringCol]!!.stringCol == f.str1.stringCol)
        var count = 0
        for object in map {
            #expect(object.key.description.utf16.count > 0, "Object should have description")
            #expect(object.value!.description.utf16.count > 0, "Object should have description")
            count += 1
        }
        #expect(count == 3)
        f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testEnumeratingMap(_ kind: ListFixtureKind) throws {
        let f = try MapFixture(kind)
        let map = try f.createMap()
        for i in 0..<10 { map["key\(i)"] = SwiftStringObject(stringCol: "key\(i)") }
        #expect(10 == map.count)
        var expected = Set((0..<10).map { "key\($0)" })
        for element in map {
            #expect(element.key == element.value!.stringCol)
            expected.remove(element.key)
        }
        #expect(expected.count == 0)
        expected = Set((0..<10).map { "key\($0)" })
        for (key, value) in map.asKeyValueSequence() {
            #expect(key == value!.stringCol)
            expected.remove(key)
        }
        #expect(expected.count == 0)
        f.finish()
    }

    @Test func testUnmanagedMapComparison() {
        let obj = SwiftIntObject()
        obj.intCol = 5
        let obj2 = SwiftIntObject()
        obj2.intCol = 6
        let obj3 = SwiftIntObject()
        obj3.intCol = 8

        let objects: [(key: String, value: SwiftIntObject?)] = [("obj", obj), ("obj2", obj2), ("obj3", obj3)]
        let objects2: [(key: String, value: SwiftIntObject?)] = [("obj", obj), ("obj2", obj2)]

        let map1 = Map<String, SwiftIntObject?>()
        let map2 = Map<String, SwiftIntObject?>()
        #expect(map1 == map2, "Empty instances should be equal by `==` operator")

        map1.merge(objects) { a, _ in a }
        map2.merge(objects) { a, _ in a }

        let map3 = Map<String, SwiftIntObject?>()
        map3.merge(objects2) { a, _ in a }

        #expect(map1 !== map2, "instances should not be identical")
        #expect(map1 == map2, "instances should be equal by `==` operator")
        #expect(map1 != map3, "instances should be equal by `==` operator")

        map3["obj3"] = obj3
        #expect(map1 == map3, "instances should be equal by `==` operator")
    }

    @Test(arguments: [ListFixtureKind.newlyAdded, .newlyCreated, .retrieved]) func testFilter(_ kind: ListFixtureKind) throws {
        let f = try MapFixture(kind)
        let map = try f.createMap()
        map["key"] = SwiftStringObject(stringCol: "apples")
        map["key2"] = SwiftStringObject(stringCol: "bananas")
        map["key3"] = SwiftStringObject(stringCol: "cockroach")

        let results: Results<SwiftStringObject> = map.filter("stringCol = 'apples'")
        #expect(results.count == 1)
        #expect(results.first!.stringCol == "apples")

        let results2: Results<SwiftStringObject> = map.sorted(byKeyPath: "stringCol", ascending: true)
        #expect(results2.count == 3)
        #expect(results2[0].stringCol == "apples")
        #expect(results2[1].stringCol == "bananas")
        #expect(results2[2].stringCol == "cockroach")
        f.finish()
    }
}
