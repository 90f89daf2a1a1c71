// Port of realm-swift's RealmSwift/Tests/MutableSetTests.swift: MutableSetTests run on the four
// kinds of set realm-swift uses (MutableSetStandaloneTests, MutableSetNewlyAddedTests,
// MutableSetNewlyCreatedTests, MutableSetRetrievedTests). Expected values are realm-swift's.
//
// Not ported:
// - testValueForKey, testValueForKeyOptional: need Decimal128 (decimalCol) and NSString.
// - testPrimitiveIterationAcrossNil's Decimal128 lines.
// - testUnmanagedSetComparison's `isEqual` lines (NSObject's method; `==` is checked).
// - testEnumeratingSetWithSetProperties checks `arrayCol` where realm-swift checks `setCol`:
//   Atoll's shared SwiftObject has no set property (adding one would change other suites).

import Atoll
import AtollTestSupport
import Foundation
import Testing

/// realm-swift's MutableSetTests setUp/tearDown: three strings added to the test realm, two set
/// objects of the given kind, and an open write.
final class MutableSetFixture {
    let t = RealmTestCase()
    let realm: Realm
    let str1: SwiftStringObject
    let str2: SwiftStringObject
    let str3: SwiftStringObject
    let setObject: SwiftMutableSetPropertyObject
    let setObject2: SwiftMutableSetPropertyObject
    let kind: ListFixtureKind
    var set: MutableSet<SwiftStringObject> { setObject.set }
    var set2: MutableSet<SwiftStringObject> { setObject2.set }

    init(_ kind: ListFixtureKind) throws {
        self.kind = kind
        realm = try t.realmWithTestPath()
        str1 = SwiftStringObject(stringCol: "1")
        str2 = SwiftStringObject(stringCol: "2")
        str3 = SwiftStringObject(stringCol: "3")
        setObject = try Self.createSet(kind, realm)
        setObject2 = try Self.createSet(kind, realm)
        let (s1, s2, s3) = (str1, str2, str3)
        try realm.write {
            realm.add(s1)
            realm.add(s2)
            realm.add(s3)
        }
        realm.beginWrite()
    }

    static func createSet(_ kind: ListFixtureKind, _ realm: Realm) throws -> SwiftMutableSetPropertyObject {
        switch kind {
        case .standalone:
            return SwiftMutableSetPropertyObject()
        case .newlyAdded:
            let set = SwiftMutableSetPropertyObject()
            set.name = "name"
            try realm.write { realm.add(set) }
            return set
        case .newlyCreated:
            realm.beginWrite()
            let set = realm.create(SwiftMutableSetPropertyObject.self, value: ["name": "name"])
            try realm.commitWrite()
            return set
        case .retrieved:
            realm.beginWrite()
            realm.create(SwiftMutableSetPropertyObject.self, value: ["name": "name"])
            try realm.commitWrite()
            return try #require(realm.objects(SwiftMutableSetPropertyObject.self).last)
        }
    }

    /// realm-swift's createSetWithLinks.
    func createSetWithLinks() throws -> SwiftMutableSetOfSwiftObject {
        let realm = try t.realm()
        switch kind {
        case .standalone:
            return SwiftMutableSetOfSwiftObject()
        case .newlyAdded:
            let set = SwiftMutableSetOfSwiftObject()
            try realm.write { realm.add(set) }
            return set
        case .newlyCreated:
            realm.beginWrite()
            let set = realm.create(SwiftMutableSetOfSwiftObject.self)
            try realm.commitWrite()
            return set
        case .retrieved:
            realm.beginWrite()
            realm.create(SwiftMutableSetOfSwiftObject.self)
            try realm.commitWrite()
            return try #require(realm.objects(SwiftMutableSetOfSwiftObject.self).first)
        }
    }

    /// tearDown: commits the write.
    func finish() throws {
        if realm.isInWriteTransaction { try realm.commitWrite() }
    }
}

@Suite struct MutableSetTests {
    @Test func testPrimitive() {
        let obj = SwiftMutableSetObject()
        obj.int.insert(5)
        #expect(obj.int.first! == 5)
        #expect(obj.int.last! == 5)
        #expect(obj.int[0] == 5)
        obj.int.insert(objectsIn: [6, 7, 8] as [Int])
        #expect(obj.int.max() == 8)
        #expect(obj.int.sum() == 26)

        obj.string.insert("str")
        #expect(obj.string.first! == "str")
        #expect(obj.string[0] == "str")
    }

    @Test func testPrimitiveIterationAcrossNil() {
        let obj = SwiftMutableSetObject()
        #expect(!obj.int.contains(5))
        #expect(!obj.int8.contains(5))
        #expect(!obj.int16.contains(5))
        #expect(!obj.int32.contains(5))
        #expect(!obj.int64.contains(5))
        #expect(!obj.float.contains(3.141592))
        #expect(!obj.double.contains(3.141592))
        #expect(!obj.string.contains("foobar"))
        #expect(!obj.data.contains(Data()))
        #expect(!obj.date.contains(Date()))
        #expect(!obj.objectId.contains(ObjectId()))
        #expect(!obj.uuidOpt.contains(UUID()))

        #expect(!obj.intOpt.contains { $0 == nil })
        #expect(!obj.int8Opt.contains { $0 == nil })
        #expect(!obj.int16Opt.contains { $0 == nil })
        #expect(!obj.int32Opt.contains { $0 == nil })
        #expect(!obj.int64Opt.contains { $0 == nil })
        #expect(!obj.floatOpt.contains { $0 == nil })
        #expect(!obj.doubleOpt.contains { $0 == nil })
        #expect(!obj.stringOpt.contains { $0 == nil })
        #expect(!obj.dataOpt.contains { $0 == nil })
        #expect(!obj.dateOpt.contains { $0 == nil })
        #expect(!obj.objectIdOpt.contains { $0 == nil })
        #expect(!obj.uuidOpt.contains { $0 == nil })
    }

    @Test(arguments: ListFixtureKind.allCases) func testInvalidated(_ kind: ListFixtureKind) throws {
        let f = try MutableSetFixture(kind)
        #expect(!f.set.isInvalidated)
        if let realm = f.setObject.realm {
            realm.delete(f.setObject)
            #expect(f.set.isInvalidated)
        }
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testFastEnumerationWithMutation(_ kind: ListFixtureKind) throws {
        let f = try MutableSetFixture(kind)
        let (set, str1, str2) = (f.set, f.str1, f.str2)
        set.insert(objectsIn: [str1, str2, str1, str2, str1, str2, str1, str2, str1,
                               str2, str1, str2, str1, str2, str1, str2, str1, str2, str1, str2])
        var str = ""
        for obj in set {
            str += obj.stringCol
            set.insert(objectsIn: [str1])
        }
        #expect(set.contains(str1))
        #expect(set.contains(str2))
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testAppendObject(_ kind: ListFixtureKind) throws {
        let f = try MutableSetFixture(kind)
        for str in [f.str1, f.str2, f.str1] { f.set.insert(str) }
        #expect(2 == f.set.count)
        #expect(f.set.contains(f.str1))
        #expect(f.set.contains(f.str2))
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testInsert(_ kind: ListFixtureKind) throws {
        let f = try MutableSetFixture(kind)
        f.set.insert(objectsIn: [f.str1, f.str2, f.str1])
        #expect(2 == f.set.count)
        #expect(f.set.contains(f.str1))
        #expect(f.set.contains(f.str2))
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testAppendResults(_ kind: ListFixtureKind) throws {
        let f = try MutableSetFixture(kind)
        f.set.insert(objectsIn: f.realm.objects(SwiftStringObject.self))
        #expect(3 == f.set.count)
        f.set.forEach {
            #expect($0.isSameObject(as: f.str1) || $0.isSameObject(as: f.str2) || $0.isSameObject(as: f.str3))
        }
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testRemoveAll(_ kind: ListFixtureKind) throws {
        let f = try MutableSetFixture(kind)
        f.set.insert(objectsIn: [f.str1, f.str2])
        f.set.removeAll()
        #expect(0 == f.set.count)
        f.set.removeAll() // should be a no-op
        #expect(0 == f.set.count)
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testRemoveObject(_ kind: ListFixtureKind) throws {
        let f = try MutableSetFixture(kind)
        let set = f.set
        set.insert(objectsIn: [f.str1, f.str2])
        #expect(set.contains(f.str1))
        #expect(2 == set.count)
        set.remove(f.str1)
        #expect(!set.contains(f.str1))
        #expect(1 == set.count)
        set.removeAll()
        #expect(0 == set.count)
        #expect(!set.contains(f.str1))
        #expect(!set.contains(f.str2))
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testChangesArePersisted(_ kind: ListFixtureKind) throws {
        let f = try MutableSetFixture(kind)
        if let realm = f.set.realm {
            f.set.insert(objectsIn: [f.str1, f.str2])
            let otherSet = try #require(realm.objects(SwiftMutableSetPropertyObject.self).first).set
            #expect(2 == otherSet.count)
        }
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testPopulateEmptySet(_ kind: ListFixtureKind) throws {
        let f = try MutableSetFixture(kind)
        let set = f.set
        #expect(set.count == 0, "Should start with no set elements.")
        let obj = SwiftStringObject()
        obj.stringCol = "a"
        set.insert(obj)
        set.insert(f.realm.create(SwiftStringObject.self, value: ["stringCol": "b"]))
        set.insert(obj)
        #expect(set.count == 2)
        set.forEach { #expect($0.stringCol == "a" || $0.stringCol == "b") }
        for obj in set { #expect(obj.description.utf16.count > 0, "Object should have description") }
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testEnumeratingSetWithSetProperties(_ kind: ListFixtureKind) throws {
        let f = try MutableSetFixture(kind)
        try f.finish()
        let setObject = try f.createSetWithLinks()
        setObject.realm?.beginWrite()
        for _ in 0..<10 { setObject.set.insert(SwiftObject()) }
        try setObject.realm?.commitWrite()
        #expect(10 == setObject.set.count)
        for object in setObject.set {
            #expect(123 == object.intCol)
            #expect(false == object.objectCol!.boolCol)
            #expect(0 == object.arrayCol.count)
        }
    }

    @Test func testUnmanagedSetComparison() {
        let obj = SwiftIntObject()
        obj.intCol = 5
        let obj2 = SwiftIntObject()
        obj2.intCol = 6
        let obj3 = SwiftIntObject()
        obj3.intCol = 8

        let objects = [obj, obj2, obj3]
        let objects2 = [obj, obj2]

        let set1 = MutableSet<SwiftIntObject>()
        let set2 = MutableSet<SwiftIntObject>()
        #expect(set1 == set2, "Empty instances should be equal by `==` operator")

        set1.insert(objectsIn: objects)
        set2.insert(objectsIn: objects)

        let set3 = MutableSet<SwiftIntObject>()
        set3.insert(objectsIn: objects2)

        #expect(set1 !== set2, "instances should not be identical")
        #expect(set1 == set2, "instances should be equal by `==` operator")
        #expect(set1 != set3, "instances should be equal by `==` operator")
        #expect(Array(set1) == Array(set2), "instances converted to Swift.Array should be equal")
        #expect(Array(set1) != Array(set3), "instances converted to Swift.Array should be equal")
        #expect(Set(set1) == Set(set2), "instances converted to Swift.Array should be equal")
        #expect(Set(set1) != Set(set3), "instances converted to Swift.Array should be equal")
        set3.insert(obj3)
        #expect(set1 == set3, "instances should be equal by `==` operator")
    }

    @Test(arguments: ListFixtureKind.allCases) func testSubset(_ kind: ListFixtureKind) throws {
        let f = try MutableSetFixture(kind)
        let (set, set2) = (f.set, f.set2)
        set.removeAll()
        set2.removeAll()
        #expect(0 == set.count)
        #expect(0 == set2.count)
        set.insert(objectsIn: [f.str1, f.str2, f.str1])
        set2.insert(objectsIn: [f.str1])
        #expect(2 == set.count)
        #expect(1 == set2.count)
        #expect(set2.isSubset(of: set))
        #expect(!set.isSubset(of: set2))
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testUnion(_ kind: ListFixtureKind) throws {
        let f = try MutableSetFixture(kind)
        let (set, set2) = (f.set, f.set2)
        set.removeAll()
        set2.removeAll()
        set.insert(objectsIn: [f.str1, f.str2, f.str1])
        set2.insert(objectsIn: [f.str1])
        #expect(2 == set.count)
        #expect(1 == set2.count)
        #expect(set2.isSubset(of: set))
        #expect(!set.isSubset(of: set2))
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testIntersection(_ kind: ListFixtureKind) throws {
        let f = try MutableSetFixture(kind)
        let (set, set2) = (f.set, f.set2)
        set.removeAll()
        set2.removeAll()
        set.insert(objectsIn: [f.str1, f.str2])
        set2.insert(objectsIn: [f.str2, f.str3])
        #expect(2 == set.count)
        #expect(2 == set2.count)
        #expect(set.intersects(set2))
        #expect(set2.intersects(set))

        set.formIntersection(set2)
        #expect(set.intersects(set2))
        #expect(set2.intersects(set))
        #expect(1 == set.count)
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testSubtract(_ kind: ListFixtureKind) throws {
        let f = try MutableSetFixture(kind)
        let (set, set2) = (f.set, f.set2)
        set.removeAll()
        set2.removeAll()
        set.insert(objectsIn: [f.str1, f.str2])
        set2.insert(objectsIn: [f.str2, f.str3])
        #expect(2 == set.count)
        #expect(2 == set2.count)

        set.subtract(set2)
        #expect(1 == set.count)
        #expect(set.contains(f.str1))
        try f.finish()
    }
}
