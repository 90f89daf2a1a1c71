// Port of realm-swift's RealmSwift/Tests/ListTests.swift: ListTests run on the four kinds of
// list realm-swift uses (ListStandaloneTests, ListNewlyAddedTests, ListNewlyCreatedTests,
// ListRetrievedTests), plus ListRRCMethodsTests. Expected values are realm-swift's.
//
// Not ported:
// - testAppendEmbedded, testSetEmbedded: ported in EmbeddedObjectTests.swift.
// - testValueForKey, testValueForKeyOptional: need Decimal128 (decimalCol) and NSString.
// - testPrimitive's `index(matching: NSPredicate)` lines: no NSPredicate on Linux (README,
//   Differences); the closure form is checked.
// - testPrimitiveIterationAcrossNil's Decimal128 lines.
//
// Where Atoll differs on purpose (README, "Differences from RealmSwift"): an out-of-bounds call
// on a managed list inside a write makes the write throw (`commitWrite` here) instead of raising
// an exception at the call; on an unmanaged list it stops the program, so those `assertThrows`
// lines are checked on managed lists only (`expectWriteFails`).

import Atoll
import AtollTestSupport
import Foundation
import Testing

enum ListFixtureKind: String, CaseIterable, Sendable {
    case standalone, newlyAdded, newlyCreated, retrieved
}

/// realm-swift's ListTests setUp/tearDown: two strings added to the test realm, an array object
/// of the given kind, and an open write.
final class ListFixture {
    let t = RealmTestCase()
    let realm: Realm
    let str1: SwiftStringObject
    let str2: SwiftStringObject
    let arrayObject: SwiftArrayPropertyObject
    var array: List<SwiftStringObject> { arrayObject.array }

    init(_ kind: ListFixtureKind) throws {
        realm = try t.realmWithTestPath()
        str1 = SwiftStringObject()
        str1.stringCol = "1"
        str2 = SwiftStringObject()
        str2.stringCol = "2"
        switch kind {
        case .standalone:
            arrayObject = SwiftArrayPropertyObject()
        case .newlyAdded:
            arrayObject = SwiftArrayPropertyObject()
            arrayObject.name = "name"
            try realm.write { realm.add(arrayObject) }
        case .newlyCreated:
            realm.beginWrite()
            // realm-swift passes `["name"]`: an array shorter than the properties (create from
            // arrays is compat1's); the dictionary makes the same object.
            arrayObject = realm.create(SwiftArrayPropertyObject.self, value: ["name": "name"])
            try realm.commitWrite()
        case .retrieved:
            realm.beginWrite()
            realm.create(SwiftArrayPropertyObject.self, value: ["name": "name"])
            try realm.commitWrite()
            arrayObject = try #require(realm.objects(SwiftArrayPropertyObject.self).first)
        }
        let (s1, s2) = (str1, str2)
        try realm.write {
            realm.add(s1)
            realm.add(s2)
        }
        realm.beginWrite()
    }

    var isManaged: Bool { arrayObject.realm != nil }

    /// tearDown: commits the write.
    func finish() throws {
        if realm.isInWriteTransaction { try realm.commitWrite() }
    }

    /// For managed lists: runs an invalid operation last in the write, which then fails.
    func expectWriteFails(_ body: () -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
        guard isManaged else { return }
        body()
        #expect(throws: AtollError.self, sourceLocation: sourceLocation) { try realm.commitWrite() }
    }
}

/// realm-swift's `assertEqual` for objects: the same object.
func expectSame(_ a: Object?, _ b: Object?, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(a?.isSameObject(as: b) == true, "\(String(describing: a)) is not \(String(describing: b))", sourceLocation: sourceLocation)
}

@Suite struct ListTests {
    @Test func testPrimitive() {
        let obj = SwiftListObject()
        obj.int.append(5)
        #expect(obj.int.first! == 5)
        #expect(obj.int.last! == 5)
        #expect(obj.int[0] == 5)
        obj.int.append(objectsIn: [6, 7, 8] as [Int])
        #expect(obj.int.index(of: 6) == 1)
        #expect(2 == obj.int.index(matching: { $0 == 7 && $0 < 456 }))
        #expect(obj.int.index(matching: { $0 == 9 }) == nil)
        #expect(obj.int.max() == 8)
        #expect(obj.int.sum() == 26)

        obj.string.append("str")
        #expect(obj.string.first! == "str")
        #expect(obj.string[0] == "str")
    }

    @Test func testPrimitiveIterationAcrossNil() {
        let obj = SwiftListObject()
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
        let f = try ListFixture(kind)
        #expect(!f.array.isInvalidated)
        if let realm = f.arrayObject.realm {
            realm.delete(f.arrayObject)
            #expect(f.array.isInvalidated)
        }
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testFastEnumerationWithMutation(_ kind: ListFixtureKind) throws {
        let f = try ListFixture(kind)
        let (array, str1, str2) = (f.array, f.str1, f.str2)
        array.append(objectsIn: [str1, str2, str1, str2, str1, str2, str1, str2, str1,
                                 str2, str1, str2, str1, str2, str1, str2, str1, str2, str1, str2])
        var str = ""
        for obj in array {
            str += obj.stringCol
            array.append(objectsIn: [str1])
        }
        #expect(str == "12121212121212121212")
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testAppendObject(_ kind: ListFixtureKind) throws {
        let f = try ListFixture(kind)
        for str in [f.str1, f.str2, f.str1] { f.array.append(str) }
        #expect(3 == f.array.count)
        expectSame(f.str1, f.array[0])
        expectSame(f.str2, f.array[1])
        expectSame(f.str1, f.array[2])
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testAppendArray(_ kind: ListFixtureKind) throws {
        let f = try ListFixture(kind)
        f.array.append(objectsIn: [f.str1, f.str2, f.str1])
        #expect(3 == f.array.count)
        expectSame(f.str1, f.array[0])
        expectSame(f.str2, f.array[1])
        expectSame(f.str1, f.array[2])
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testAppendResults(_ kind: ListFixtureKind) throws {
        let f = try ListFixture(kind)
        f.array.append(objectsIn: f.realm.objects(SwiftStringObject.self))
        #expect(2 == f.array.count)
        expectSame(f.str1, f.array[0])
        expectSame(f.str2, f.array[1])
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testInsert(_ kind: ListFixtureKind) throws {
        let f = try ListFixture(kind)
        let array = f.array
        #expect(0 == array.count)
        array.insert(f.str1, at: 0)
        #expect(1 == array.count)
        expectSame(f.str1, array[0])
        array.insert(f.str2, at: 0)
        #expect(2 == array.count)
        expectSame(f.str2, array[0])
        expectSame(f.str1, array[1])
        f.expectWriteFails { array.insert(f.str2, at: 200) }
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testRemoveAtIndex(_ kind: ListFixtureKind) throws {
        let f = try ListFixture(kind)
        let array = f.array
        array.append(objectsIn: [f.str1, f.str2, f.str1])
        array.remove(at: 1)
        expectSame(f.str1, array[0])
        expectSame(f.str1, array[1])
        f.expectWriteFails { array.remove(at: 2) }
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testRemoveAtOffsets(_ kind: ListFixtureKind) throws {
        let f = try ListFixture(kind)
        let array = f.array
        array.append(objectsIn: [f.str1, f.str2, f.str1])
        array.remove(atOffsets: [0, 2])
        #expect(array.count == 1)
        expectSame(f.str2, array[0])
        array.remove(atOffsets: [])
        #expect(array.count == 1)
        f.expectWriteFails { array.remove(atOffsets: [1]) }
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testRemoveLast(_ kind: ListFixtureKind) throws {
        let f = try ListFixture(kind)
        let array = f.array
        array.append(objectsIn: [f.str1, f.str2])
        array.removeLast()
        #expect(1 == array.count)
        expectSame(f.str1, array[0])
        array.removeLast()
        #expect(0 == array.count)
        f.expectWriteFails { array.removeLast() }    // Should throw if already empty
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testRemoveAll(_ kind: ListFixtureKind) throws {
        let f = try ListFixture(kind)
        let array = f.array
        array.append(objectsIn: [f.str1, f.str2])
        array.removeAll()
        #expect(0 == array.count)
        array.removeAll() // should be a no-op
        #expect(0 == array.count)
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testReplace(_ kind: ListFixtureKind) throws {
        let f = try ListFixture(kind)
        let array = f.array
        array.append(objectsIn: [f.str1, f.str1])
        array.replace(index: 0, object: f.str2)
        #expect(2 == array.count)
        expectSame(f.str2, array[0])
        expectSame(f.str1, array[1])
        array.replace(index: 1, object: f.str2)
        #expect(2 == array.count)
        expectSame(f.str2, array[0])
        expectSame(f.str2, array[1])
        f.expectWriteFails { array.replace(index: 200, object: f.str2) }
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testMove(_ kind: ListFixtureKind) throws {
        let f = try ListFixture(kind)
        let array = f.array
        array.append(objectsIn: [f.str1, f.str2])
        array.move(from: 1, to: 0)
        #expect(array[0].stringCol == "2")
        #expect(array[1].stringCol == "1")
        array.move(from: 0, to: 1)
        #expect(array[0].stringCol == "1")
        #expect(array[1].stringCol == "2")
        array.move(from: 0, to: 0)
        #expect(array[0].stringCol == "1")
        #expect(array[1].stringCol == "2")
        f.expectWriteFails { array.move(from: 0, to: 2) }
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testMoveFromOffsets(_ kind: ListFixtureKind) throws {
        let f = try ListFixture(kind)
        let array = f.array
        let str3 = SwiftStringObject(value: ["3"])
        array.append(objectsIn: [f.str1, f.str2, str3])
        func check(_ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(array.map(\.stringCol) == expected, sourceLocation: sourceLocation)
        }
        array.move(fromOffsets: IndexSet([1]), toOffset: 0)
        check(["2", "1", "3"])
        array.move(fromOffsets: IndexSet([0]), toOffset: 3)
        check(["1", "3", "2"])
        array.move(fromOffsets: IndexSet([0]), toOffset: 1)
        check(["1", "3", "2"])
        array.move(fromOffsets: IndexSet([2]), toOffset: 1)
        check(["1", "2", "3"])
        array.move(fromOffsets: IndexSet([]), toOffset: 1)
        check(["1", "2", "3"])
        array.move(fromOffsets: IndexSet([0, 2]), toOffset: 1)
        check(["1", "3", "2"])
        f.expectWriteFails { array.move(fromOffsets: IndexSet([0]), toOffset: 4) }
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testReplaceRange(_ kind: ListFixtureKind) throws {
        let f = try ListFixture(kind)
        let (array, str1, str2) = (f.array, f.str1, f.str2)
        array.append(objectsIn: [str1, str1])
        array.replaceSubrange(0..<1, with: [str2])
        #expect(2 == array.count)
        expectSame(str2, array[0])
        expectSame(str1, array[1])
        array.replaceSubrange(1..<2, with: [str2])
        #expect(2 == array.count)
        expectSame(str2, array[0])
        expectSame(str2, array[1])
        array.replaceSubrange(0..<0, with: [str2])
        #expect(3 == array.count)
        expectSame(str2, array[0])
        expectSame(str2, array[1])
        expectSame(str2, array[2])
        array.replaceSubrange(0..<3, with: [])
        #expect(0 == array.count)
        f.expectWriteFails { array.replaceSubrange(200..<201, with: [str2]) }
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testSwapAt(_ kind: ListFixtureKind) throws {
        let f = try ListFixture(kind)
        let array = f.array
        array.append(objectsIn: [f.str1, f.str2])
        array.swapAt(0, 1)
        #expect(2 == array.count)
        expectSame(f.str2, array[0])
        expectSame(f.str1, array[1])
        array.swapAt(1, 1)
        #expect(2 == array.count)
        expectSame(f.str2, array[0])
        expectSame(f.str1, array[1])
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testChangesArePersisted(_ kind: ListFixtureKind) throws {
        let f = try ListFixture(kind)
        if let realm = f.array.realm {
            f.array.append(objectsIn: [f.str1, f.str2])
            let otherArray = try #require(realm.objects(SwiftArrayPropertyObject.self).first).array
            #expect(2 == otherArray.count)
        }
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testPopulateEmptyArray(_ kind: ListFixtureKind) throws {
        let f = try ListFixture(kind)
        let array = f.array
        #expect(array.count == 0, "Should start with no array elements.")
        let obj = SwiftStringObject()
        obj.stringCol = "a"
        array.append(obj)
        array.append(f.realm.create(SwiftStringObject.self, value: ["b"]))
        array.append(obj)
        #expect(array.count == 3)
        #expect(array[0].stringCol == "a")
        #expect(array[1].stringCol == "b")
        #expect(array[2].stringCol == "a")
        for obj in array { #expect(obj.description.utf16.count > 0, "Object should have description") }
        try f.finish()
    }

    @Test(arguments: ListFixtureKind.allCases) func testEnumeratingListWithListProperties(_ kind: ListFixtureKind) throws {
        let t = RealmTestCase()
        let realm = try t.realm()
        let arrayObject: SwiftListOfSwiftObject
        switch kind {
        case .standalone: arrayObject = SwiftListOfSwiftObject()
        case .newlyAdded:
            arrayObject = SwiftListOfSwiftObject()
            try realm.write { realm.add(arrayObject) }
        case .newlyCreated:
            realm.beginWrite()
            arrayObject = realm.create(SwiftListOfSwiftObject.self)
            try realm.commitWrite()
        case .retrieved:
            try realm.write { realm.create(SwiftListOfSwiftObject.self) }
            arrayObject = try #require(realm.objects(SwiftListOfSwiftObject.self).first)
        }
        arrayObject.realm?.beginWrite()
        for _ in 0..<10 { arrayObject.array.append(SwiftObject()) }
        try arrayObject.realm?.commitWrite()
        #expect(10 == arrayObject.array.count)
        for object in arrayObject.array {
            #expect(123 == object.intCol)
            #expect(false == object.objectCol!.boolCol)
            #expect(0 == object.arrayCol.count)
        }
    }

    @Test func testUnmanagedListComparison() {
        let obj = SwiftIntObject()
        obj.intCol = 5
        let obj2 = SwiftIntObject()
        obj2.intCol = 6
        let obj3 = SwiftIntObject()
        obj3.intCol = 8
        let objects = [obj, obj2, obj3]
        let objects2 = [obj, obj2]
        let list1 = List<SwiftIntObject>()
        let list2 = List<SwiftIntObject>()
        #expect(list1 == list2, "Empty instances should be equal by `==` operator")
        list1.append(objectsIn: objects)
        list2.append(objectsIn: objects)
        let list3 = List<SwiftIntObject>()
        list3.append(objectsIn: objects2)
        #expect(list1 !== list2, "instances should not be identical")
        #expect(list1 == list2, "instances should be equal by `==` operator")
        #expect(list1 != list3, "instances should be equal by `==` operator")
        #expect(Array(list1) == Array(list2), "instances converted to Swift.Array should be equal")
        #expect(Array(list1) != Array(list3), "instances converted to Swift.Array should be equal")
        list3.append(obj3)
        #expect(list1 == list3, "instances should be equal by `==` operator")
    }
}

/// realm-swift's ListRRCMethodsTests (an unmanaged list), and the same on a managed list: Atoll
/// makes each of these calls one list write.
@Suite struct ListRRCMethodsTests {
    enum Kind: CaseIterable, Sendable { case unmanaged, managed }

    final class Fixture {
        let t = RealmTestCase()
        var realm: Realm?
        var array: [Int] = [0, 1, 2, 3, 4, 5, 6]
        let list: List<SwiftIntObject>

        init(_ kind: Kind) throws {
            let object = SwiftArrayPropertyObject()
            object.intArray.append(objectsIn: Fixture.makeSwiftIntObjects(from: [0, 1, 2, 3, 4, 5, 6]))
            if kind == .managed {
                let realm = try t.realmWithTestPath()
                try realm.write { realm.add(object) }
                realm.beginWrite()
                self.realm = realm
            }
            list = object.intArray
        }

        static func makeSwiftIntObjects(from array: [Int]) -> [SwiftIntObject] { array.map { SwiftIntObject(value: [$0]) } }

        func compare(sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(list.map(\.intCol) == array, sourceLocation: sourceLocation)
            if let realm, realm.isInWriteTransaction { try realm.commitWrite() }
            #expect(list.map(\.intCol) == array, "after the commit", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: Kind.allCases) func testSubscript(_ kind: Kind) throws {
        let f = try Fixture(kind)
        f.list[0] = SwiftIntObject(value: [5])
        let other = List<SwiftIntObject>()
        other.append(objectsIn: Fixture.makeSwiftIntObjects(from: [10, 11, 12]))
        f.list[1..<4] = other[0..<2]
        f.array[0] = 5
        f.array[1..<4] = [10, 11]
        try f.compare()
    }

    @Test(arguments: Kind.allCases) func testReplaceWithCollectionIndices(_ kind: Kind) throws {
        let f = try Fixture(kind)
        f.list.replaceSubrange(f.list.indices, with: Fixture.makeSwiftIntObjects(from: [1, 2, 3]))
        f.array.replaceSubrange(f.array.indices, with: [1, 2, 3])
        try f.compare()
    }

    @Test(arguments: Kind.allCases) func testRemoveWithCollectionIndices(_ kind: Kind) throws {
        let f = try Fixture(kind)
        f.list.removeSubrange(f.list.indices)
        #expect(f.list.isEmpty)
        f.array.removeAll()
        try f.compare()
    }

    @Test(arguments: Kind.allCases) func testRemoveFirst(_ kind: Kind) throws {
        let f = try Fixture(kind)
        f.list.removeFirst()
        f.array.removeFirst()
        try f.compare()
    }

    @Test(arguments: Kind.allCases) func testRemoveFirstFew(_ kind: Kind) throws {
        let f = try Fixture(kind)
        f.list.removeFirst(3)
        f.array.removeFirst(3)
        try f.compare()
    }

    @Test func testRemoveFirstInvalid() throws {
        // Managed: the write fails (unmanaged lists stop the program; README, Differences).
        let f = try Fixture(.managed)
        f.list.removeFirst(100)
        #expect(throws: AtollError.self) { try f.realm?.commitWrite() }
    }

    @Test(arguments: Kind.allCases) func testRemoveLastFew(_ kind: Kind) throws {
        let f = try Fixture(kind)
        f.list.removeLast(3)
        f.array.removeLast(3)
        try f.compare()
    }

    @Test(arguments: Kind.allCases) func testInsert(_ kind: Kind) throws {
        let f = try Fixture(kind)
        f.list.insert(contentsOf: Fixture.makeSwiftIntObjects(from: [10, 11, 12, 13]), at: 2)
        f.array.insert(contentsOf: [10, 11, 12, 13], at: 2)
        try f.compare()
    }

    @Test(arguments: Kind.allCases) func testRemoveClosedSubrange(_ kind: Kind) throws {
        let f = try Fixture(kind)
        f.list.removeSubrange(1...3)
        f.array.removeSubrange(1...3)
        try f.compare()
    }

    @Test(arguments: Kind.allCases) func testRemoveOpenSubrange(_ kind: Kind) throws {
        let f = try Fixture(kind)
        f.list.removeSubrange(1..<3)
        f.array.removeSubrange(1..<3)
        try f.compare()
    }

    @Test(arguments: Kind.allCases) func testReplaceClosedSubrange(_ kind: Kind) throws {
        let f = try Fixture(kind)
        let newElements = [10, 11, 12, 13, 14, 15, 16]
        f.list.replaceSubrange(2...5, with: Fixture.makeSwiftIntObjects(from: newElements))
        f.array.replaceSubrange(2...5, with: newElements)
        try f.compare()
    }

    @Test(arguments: Kind.allCases) func testReplaceOpenSubrange(_ kind: Kind) throws {
        let f = try Fixture(kind)
        let newElements = [10, 11, 12, 13, 14, 15, 16]
        f.list.replaceSubrange(2..<5, with: Fixture.makeSwiftIntObjects(from: newElements))
        f.array.replaceSubrange(2..<5, with: newElements)
        try f.compare()
    }
}
