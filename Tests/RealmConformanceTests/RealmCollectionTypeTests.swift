// Port of realm-swift's RealmSwift/Tests/RealmCollectionTypeTests.swift: the generic
// RealmCollectionTests run on each kind of collection realm-swift instantiates them with
// (ResultsFromTableTests, ResultsFromTableViewTests, ResultsFromLinkViewTests, the managed
// List*RealmCollectionTests, LinkingObjectsCollectionTypeTests, AnyRealmCollectionTests), as
// Swift Testing arguments; each collection is used through AnyRealmCollection, which forwards
// to the collection's own implementation. Expected values are realm-swift's.
//
// Not ported:
// - testIndexOfQuery, testCount/testFirst/testLast/testIndexOfObject's `where { }` lines,
//   testSortWithSwiftKeyPath, testSortWithDescriptorBySwiftKeyPath, test{Min,Max,Sum,Average}BySwiftKeyPath:
//   need the type-safe query API and key-path sorting.
// - testIndexOfPredicate, testFilterPredicate: need NSPredicate (README, Differences).
// - testFilterFormat's AnyRealmValue and StringWrapper arguments: need AnyRealmValue and
//   CustomPersistable.
// - testAssignSetProperty and every MutableSet*RealmCollectionTests: need MutableSet.
// - testNotificationBlockUpdating, testNotificationBlockChangeIndices (Results' run-loop
//   notifications) and testCancelTaskForObservationInit (async observation): covered for
//   Atoll's notifications by AtollTests.
// - testFreeze of ListUnmanagedRealmCollectionTests and the MutableSet suites: see below.
// - testObserve*, testObserveOnActor*, testObserveKeyPath*, testObservePartialKeyPath*: covered
//   for Atoll's notifications by AtollTests; the key-path and actor variants need Swift key
//   paths and actor-isolated realms.
// - testThawFromDifferentThread, testThawUpdatedOnDifferentThread, testAccessFrozenCollectionFromDifferentThread,
//   testFreezeFromWrongThread: thread hops; ThreadSafeWrapperTests covers frozen values across threads.
// - ListUnmanagedRealmCollectionTests: queries on an unmanaged list need a realm in Atoll
//   (README, Differences); the rest of List on unmanaged lists is covered by ListTests.
// - testDescription: Atoll's collection descriptions are one line (`Results<Dog> (2 objects)`).
// - the `as NSNumber?` and narrow-integer lines of testMin/testMax/testSum: CTTAggregateObject's
//   int8Col...int64Col are `Int` properties read as Int8...Int64 through NSNumber bridging
//   (compat1 ports aggregates' integer widths); the natural types are checked.
// - `assertThrows` on an unknown property or out-of-bounds index: a programming error that
//   stops the program in Atoll (README, Differences).

import Atoll
import AtollTestSupport
import Foundation
import Testing

class CTTAggregateObject: Object {
    @Persisted var intCol = 0
    @Persisted var int8Col = 0
    @Persisted var int16Col = 0
    @Persisted var int32Col = 0
    @Persisted var int64Col = 0
    @Persisted var floatCol = 0 as Float
    @Persisted var doubleCol = 0.0
    @Persisted var boolCol = false
    @Persisted var dateCol = Date()
    @Persisted var trueCol = true
    @Persisted var stringListCol: List<CTTNullableStringObjectWithLink>
    @Persisted var linkCol: CTTLinkTarget?
    @Persisted var childIntCol: CTTIntegerObject?
}

class CTTIntegerObject: Object {
    @Persisted var intCol = 0
}

class CTTAggregateObjectList: Object {
    @Persisted var list: List<CTTAggregateObject>
}

class CTTNullableStringObjectWithLink: Object {
    @Persisted var stringCol: String? = ""
    @Persisted var linkCol: CTTLinkTarget?
}

class CTTLinkTarget: Object {
    @Persisted var id = 0
    @Persisted(originProperty: "linkCol") var stringObjects: LinkingObjects<CTTNullableStringObjectWithLink>
    @Persisted(originProperty: "linkCol") var aggregateObjects: LinkingObjects<CTTAggregateObject>
}

class CTTStringList: Object {
    @Persisted var array: List<CTTNullableStringObjectWithLink>
}

enum CollectionKind: String, CaseIterable, Sendable {
    case resultsFromTable, resultsFromTableView, resultsFromLinkView
    case listNewlyAdded, listNewlyCreated, listRetrieved, linkingObjects, anyRealmCollection
}

/// realm-swift's RealmCollectionTests setUp: two strings linking to one target, and the
/// collection of the kind under test.
final class CollectionFixture {
    let t = RealmTestCase()
    let kind: CollectionKind
    let realm: Realm
    let str1: CTTNullableStringObjectWithLink
    let str2: CTTNullableStringObjectWithLink
    let target1: CTTLinkTarget
    var collection: AnyRealmCollection<CTTNullableStringObjectWithLink>!

    var configuration: Realm.Configuration {
        var c = t.inMemoryConfiguration("collection")
        c.objectTypes = [CTTAggregateObject.self, CTTNullableStringObjectWithLink.self, CTTIntegerObject.self,
                         CTTAggregateObjectList.self, CTTLinkTarget.self, CTTStringList.self,
                         SwiftDoubleListOfSwiftObject.self, SwiftListOfSwiftObject.self, SwiftObject.self, SwiftBoolObject.self]
        return c
    }

    init(_ kind: CollectionKind) throws {
        self.kind = kind
        target1 = CTTLinkTarget()
        target1.id = 1
        str1 = CTTNullableStringObjectWithLink()
        str1.stringCol = "1"
        str1.linkCol = target1
        str2 = CTTNullableStringObjectWithLink()
        str2.stringCol = "2"
        str2.linkCol = target1
        var c = t.inMemoryConfiguration("collection")
        c.objectTypes = [CTTAggregateObject.self, CTTNullableStringObjectWithLink.self, CTTIntegerObject.self,
                         CTTAggregateObjectList.self, CTTLinkTarget.self, CTTStringList.self,
                         SwiftDoubleListOfSwiftObject.self, SwiftListOfSwiftObject.self, SwiftObject.self, SwiftBoolObject.self]
        realm = try Realm(configuration: c)
        let (realm, str1, str2, target1) = (realm, str1, str2, target1)
        collection = try realm.write {
            realm.add(str1)
            realm.add(str2)
            realm.add(target1)
            return makeCollection()
        }
    }

    private func makeCollection() -> AnyRealmCollection<CTTNullableStringObjectWithLink> {
        switch kind {
        case .resultsFromTable:
            return AnyRealmCollection(realm.objects(CTTNullableStringObjectWithLink.self))
        case .resultsFromTableView:
            return AnyRealmCollection(realm.objects(CTTNullableStringObjectWithLink.self).filter("stringCol != ''"))
        case .resultsFromLinkView:
            return AnyRealmCollection(realm.create(CTTStringList.self, value: [[str1, str2]]).array.filter("stringCol != ''"))
        case .listNewlyAdded:
            let list = CTTStringList()
            list.array.append(objectsIn: [str1, str2])
            realm.add(list)
            return AnyRealmCollection(list.array)
        case .listNewlyCreated, .anyRealmCollection:
            return AnyRealmCollection(realm.create(CTTStringList.self, value: [[str1, str2]]).array)
        case .listRetrieved:
            realm.create(CTTStringList.self, value: [[str1, str2]])
            return AnyRealmCollection(realm.objects(CTTStringList.self).first!.array)
        case .linkingObjects:
            return AnyRealmCollection(target1.stringObjects)
        }
    }

    func makeAggregateableObjectsInWriteTransaction() -> [CTTAggregateObject] {
        let obj1 = CTTAggregateObject()
        (obj1.intCol, obj1.int8Col, obj1.int16Col, obj1.int32Col, obj1.int64Col) = (1, 1, 1, 1, 1)
        obj1.floatCol = 1.1
        obj1.doubleCol = 1.11
        obj1.dateCol = Date(timeIntervalSince1970: 1)
        obj1.boolCol = false
        let obj2 = CTTAggregateObject()
        (obj2.intCol, obj2.int8Col, obj2.int16Col, obj2.int32Col, obj2.int64Col) = (2, 2, 2, 2, 2)
        obj2.floatCol = 2.2
        obj2.doubleCol = 2.22
        obj2.dateCol = Date(timeIntervalSince1970: 2)
        obj2.boolCol = false
        let obj3 = CTTAggregateObject()
        (obj3.intCol, obj3.int8Col, obj3.int16Col, obj3.int32Col, obj3.int64Col) = (3, 3, 3, 3, 3)
        obj3.floatCol = 2.2
        obj3.doubleCol = 2.22
        obj3.dateCol = Date(timeIntervalSince1970: 2)
        obj3.boolCol = false
        realm.add([obj1, obj2, obj3])
        return [obj1, obj2, obj3]
    }

    /// realm-swift's getAggregateableCollection for the kind under test.
    func aggregateableCollection() throws -> AnyRealmCollection<CTTAggregateObject> {
        try realm.write {
            switch kind {
            case .resultsFromTable:
                _ = makeAggregateableObjectsInWriteTransaction()
                return AnyRealmCollection(realm.objects(CTTAggregateObject.self))
            case .resultsFromTableView:
                _ = makeAggregateableObjectsInWriteTransaction()
                return AnyRealmCollection(realm.objects(CTTAggregateObject.self).filter("trueCol == true"))
            case .resultsFromLinkView:
                let list = realm.create(CTTAggregateObjectList.self, value: [makeAggregateableObjectsInWriteTransaction()])
                return AnyRealmCollection(list.list.filter("trueCol == true"))
            case .listNewlyAdded:
                let list = CTTAggregateObjectList()
                list.list.append(objectsIn: makeAggregateableObjectsInWriteTransaction())
                realm.add(list)
                return AnyRealmCollection(list.list)
            case .listNewlyCreated, .anyRealmCollection:
                return AnyRealmCollection(realm.create(CTTAggregateObjectList.self, value: [makeAggregateableObjectsInWriteTransaction()]).list)
            case .listRetrieved:
                realm.create(CTTAggregateObjectList.self, value: [makeAggregateableObjectsInWriteTransaction()])
                return AnyRealmCollection(realm.objects(CTTAggregateObjectList.self).first!.list)
            case .linkingObjects:
                let target = realm.create(CTTLinkTarget.self, value: [0])
                for object in makeAggregateableObjectsInWriteTransaction() { object.linkCol = target }
                return AnyRealmCollection(target.aggregateObjects)
            }
        }
    }
}

@Suite struct RealmCollectionTypeTests {
    @Test(arguments: CollectionKind.allCases) func testRealm(_ kind: CollectionKind) throws {
        let f = try CollectionFixture(kind)
        #expect(f.collection.realm! == f.realm)
    }

    @Test(arguments: CollectionKind.allCases) func testCount(_ kind: CollectionKind) throws {
        let c = try CollectionFixture(kind).collection!
        #expect(2 == c.count)
        #expect(1 == c.filter("stringCol = '1'").count)
        #expect(1 == c.filter("stringCol = '2'").count)
        #expect(0 == c.filter("stringCol = '0'").count)
    }

    @Test(arguments: CollectionKind.allCases) func testIndexOfObject(_ kind: CollectionKind) throws {
        let f = try CollectionFixture(kind)
        let c = f.collection!
        #expect(0 == c.index(of: f.str1)!)
        #expect(1 == c.index(of: f.str2)!)
        let str1Only = c.filter("stringCol = '1'")
        #expect(0 == str1Only.index(of: f.str1)!)
        #expect(str1Only.index(of: f.str2) == nil)
    }

    @Test(arguments: CollectionKind.allCases) func testIndexOfFormat(_ kind: CollectionKind) throws {
        let c = try CollectionFixture(kind).collection!
        #expect(0 == c.index(matching: "stringCol = '1'")!)
        #expect(0 == c.index(matching: "stringCol = %@", "1")!)
        #expect(1 == c.index(matching: "stringCol = %@", "2")!)
        #expect(c.index(matching: "stringCol = %@", "3") == nil)
    }

    @Test(arguments: CollectionKind.allCases) func testSubscript(_ kind: CollectionKind) throws {
        let f = try CollectionFixture(kind)
        expectSame(f.str1, f.collection[0])
        expectSame(f.str2, f.collection[1])
    }

    @Test(arguments: CollectionKind.allCases) func testObjectsAtIndexes(_ kind: CollectionKind) throws {
        let f = try CollectionFixture(kind)
        let objs = f.collection.objects(at: [0, 1])
        expectSame(f.str1, objs[0])
        expectSame(f.str2, objs[1])
    }

    @Test(arguments: CollectionKind.allCases) func testFirst(_ kind: CollectionKind) throws {
        let f = try CollectionFixture(kind)
        expectSame(f.str1, f.collection.first!)
        expectSame(f.str2, f.collection.filter("stringCol = '2'").first!)
        #expect(f.collection.filter("stringCol = '3'").first == nil)
    }

    @Test(arguments: CollectionKind.allCases) func testLast(_ kind: CollectionKind) throws {
        let f = try CollectionFixture(kind)
        expectSame(f.str2, f.collection.last!)
        expectSame(f.str2, f.collection.filter("stringCol = '2'").last!)
        #expect(f.collection.filter("stringCol = '3'").last == nil)
    }

    @Test(arguments: CollectionKind.allCases) func testValueForKey(_ kind: CollectionKind) throws {
        let c = try CollectionFixture(kind).collection!
        let expected = Array(c.map { $0.stringCol })
        let actual = c.value(forKey: "stringCol") as? [String]
        #expect(expected as? [String] == actual)
        let selves = try #require(c.value(forKey: "self") as? [CTTNullableStringObjectWithLink])
        #expect(zip(Array(c), selves).allSatisfy { $0.isSameObject(as: $1) })
    }

    @Test(arguments: CollectionKind.allCases) func testSetValueForKey(_ kind: CollectionKind) throws {
        let f = try CollectionFixture(kind)
        let c = f.collection!
        try f.realm.write { c.setValue("hi there!", forKey: "stringCol") }
        let expected = Array((0..<c.count).map { _ in "hi there!" })
        let actual = Array(c.map { $0.stringCol })
        #expect(expected == actual as? [String])
    }

    @Test(arguments: CollectionKind.allCases) func testFilterFormat(_ kind: CollectionKind) throws {
        let c = try CollectionFixture(kind).collection!
        #expect(1 == c.filter("stringCol = '1'").count)
        #expect(1 == c.filter("stringCol = %@", "1").count)
        #expect(1 == c.filter("stringCol = %@", "2").count)
        #expect(0 == c.filter("stringCol = %@", "3").count)
        #expect(1 == c.filter { $0.stringCol == "1" }.count)
        #expect(1 == c.filter { $0.stringCol == "2" }.count)
        #expect(0 == c.filter { $0.stringCol == "3" }.count)
    }

    @Test(arguments: CollectionKind.allCases) func testFilterWithAnyVarags(_ kind: CollectionKind) throws {
        let c = try CollectionFixture(kind).collection!
        let firstCriterion: String? = "1"
        let secondCriterion: String = "2"
        let thirdCriterion: String? = nil
        let result = c.filter("stringCol = %@ OR stringCol = %@ OR stringCol = %@",
                              firstCriterion as Any, secondCriterion as Any, thirdCriterion as Any)
        #expect(2 == result.count)
    }

    @Test(arguments: CollectionKind.allCases) func testSortWithProperty(_ kind: CollectionKind) throws {
        let c = try CollectionFixture(kind).collection!
        var sorted = c.sorted(byKeyPath: "stringCol", ascending: true)
        #expect("1" == sorted[0].stringCol)
        #expect("2" == sorted[1].stringCol)
        sorted = c.sorted(byKeyPath: "stringCol", ascending: false)
        #expect("2" == sorted[0].stringCol)
        #expect("1" == sorted[1].stringCol)
        sorted = c.sorted(byKeyPath: "linkCol.id", ascending: true)
        #expect("1" == sorted[0].stringCol)
        #expect("2" == sorted[1].stringCol)
    }

    @Test(arguments: CollectionKind.allCases) func testSortWithDescriptor(_ kind: CollectionKind) throws {
        let collection = try CollectionFixture(kind).aggregateableCollection()
        let notActuallySorted = collection.sorted(by: [])
        for (offset, element) in collection.enumerated() { expectSame(element, notActuallySorted[offset]) }
        let sorted = collection.sorted(by: [SortDescriptor(keyPath: "intCol", ascending: true)])
        for offset in sorted.indices { #expect(offset + 1 == sorted[offset].intCol) }
    }

    @Test(arguments: CollectionKind.allCases) func testMin(_ kind: CollectionKind) throws {
        let collection = try CollectionFixture(kind).aggregateableCollection()
        #expect(1 == collection.min(ofProperty: "intCol") as Int?)
        #expect(1.1 == collection.min(ofProperty: "floatCol") as Float?)
        #expect(1.11 == collection.min(ofProperty: "doubleCol") as Double?)
        #expect(Date(timeIntervalSince1970: 1) == collection.min(ofProperty: "dateCol") as Date?)
    }

    @Test(arguments: CollectionKind.allCases) func testMax(_ kind: CollectionKind) throws {
        let collection = try CollectionFixture(kind).aggregateableCollection()
        #expect(3 == collection.max(ofProperty: "intCol") as Int?)
        #expect(2.2 == collection.max(ofProperty: "floatCol") as Float?)
        #expect(2.22 == collection.max(ofProperty: "doubleCol") as Double?)
        #expect(Date(timeIntervalSince1970: 2) == collection.max(ofProperty: "dateCol") as Date?)
    }

    @Test(arguments: CollectionKind.allCases) func testSum(_ kind: CollectionKind) throws {
        let collection = try CollectionFixture(kind).aggregateableCollection()
        #expect(6 == collection.sum(ofProperty: "intCol") as Int)
        #expect(abs(5.5 - (collection.sum(ofProperty: "floatCol") as Float)) < 0.001)
        #expect(abs(5.55 - (collection.sum(ofProperty: "doubleCol") as Double)) < 0.001)
    }

    @Test(arguments: CollectionKind.allCases) func testAverage(_ kind: CollectionKind) throws {
        let collection = try CollectionFixture(kind).aggregateableCollection()
        #expect(2 == collection.average(ofProperty: "intCol") as Double?)
        #expect(2 == collection.average(ofProperty: "int8Col") as Double?)
        #expect(2 == collection.average(ofProperty: "int64Col") as Double?)
        #expect(abs(1.8333 - (collection.average(ofProperty: "floatCol") as Double?)!) < 0.001)
        #expect(abs(1.85 - (collection.average(ofProperty: "doubleCol") as Double?)!) < 0.001)
    }

    @Test(arguments: CollectionKind.allCases) func testFastEnumeration(_ kind: CollectionKind) throws {
        let c = try CollectionFixture(kind).collection!
        var str = ""
        for obj in c { str += obj.stringCol! }
        #expect(str == "12")
    }

    @Test(arguments: CollectionKind.allCases) func testFastEnumerationWithMutation(_ kind: CollectionKind) throws {
        let f = try CollectionFixture(kind)
        let c = f.collection!
        try f.realm.write {
            for obj in c { f.realm.delete(obj) }
        }
        #expect(0 == c.count)
    }

    @Test(arguments: CollectionKind.allCases) func testValueForKeyPath(_ kind: CollectionKind) throws {
        let f = try CollectionFixture(kind)
        #expect(["1", "2"] == f.collection.value(forKeyPath: "@unionOfObjects.stringCol") as? [String])
        let theCollection = try f.aggregateableCollection()
        #expect(3 == theCollection.value(forKeyPath: "@count") as? Int)
        #expect(3 == theCollection.value(forKeyPath: "@max.intCol") as? Int)
        #expect(1 == theCollection.value(forKeyPath: "@min.intCol") as? Int)
        #expect(6 == theCollection.value(forKeyPath: "@sum.intCol") as? Int)
        #expect(2.0 == theCollection.value(forKeyPath: "@avg.intCol") as? Double)
    }

    @Test(arguments: CollectionKind.allCases) func testInvalidate(_ kind: CollectionKind) throws {
        let c = try CollectionFixture(kind).collection!
        #expect(!c.isInvalidated)
        c.realm!.invalidate()
        // Atoll keeps collections usable after invalidate() (README, Differences).
        #expect(!c.isInvalidated)
    }

    @Test(arguments: CollectionKind.allCases) func testIsFrozen(_ kind: CollectionKind) throws {
        let c = try CollectionFixture(kind).collection!
        #expect(!c.isFrozen)
        #expect(c.freeze().isFrozen)
    }

    @Test(arguments: CollectionKind.allCases) func testThaw(_ kind: CollectionKind) throws {
        let f = try CollectionFixture(kind)
        let frozen = f.collection.freeze()
        #expect(frozen.isFrozen)
        let frozenQuery = frozen.filter("stringCol = '1'")
        #expect(frozenQuery.isFrozen)
        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen)
        #expect(thawed.count == 2)
        // Frozen: unchanged by a later write; thawed: live.
        try thawed.realm!.write { thawed.realm!.delete(thawed.realm!.objects(CTTNullableStringObjectWithLink.self).filter("stringCol = '1'")) }
        #expect(frozen.count == 2)
        #expect(thawed.count == 1)
    }

    @Test(arguments: CollectionKind.allCases) func testThawDeletedParent(_ kind: CollectionKind) throws {
        let f = try CollectionFixture(kind)
        let frozen = f.collection.freeze()
        #expect(frozen.isFrozen)
        let (realm, collection) = (f.realm, f.collection!)
        try realm.write {
            switch kind {
            case .listNewlyAdded, .listNewlyCreated, .listRetrieved, .anyRealmCollection: realm.delete(realm.objects(CTTStringList.self))
            case .linkingObjects: realm.delete(f.target1)
            default: realm.delete(collection)
            }
        }
        let thawed = frozen.thaw()
        switch kind {
        case .resultsFromTable, .resultsFromTableView, .resultsFromLinkView:
            #expect(thawed?.count == 0 || thawed == nil)
        default:
            #expect(thawed == nil || thawed?.isInvalidated == true)
        }
    }

    @Test(arguments: CollectionKind.allCases) func testQueryFrozenCollection(_ kind: CollectionKind) throws {
        let frozen = try CollectionFixture(kind).collection.freeze()
        #expect(frozen.filter("stringCol = '1'").count == 1)
        #expect(frozen.filter("stringCol = '3'").count == 0)
        #expect(frozen.sorted(byKeyPath: "stringCol", ascending: false).first?.stringCol == "2")
    }
}

@Suite struct ResultsEquatabilityTests {
    @Test func testEquatability() throws {
        let t = RealmTestCase()
        let realm = try t.realmWithTestPath()
        try realm.write { realm.add(SwiftCustomInitializerObject(stringVal: "A")) }
        let resultsA = realm.objects(SwiftCustomInitializerObject.self)
        let resultsB = realm.objects(SwiftCustomInitializerObject.self)
        #expect(resultsA != resultsB)
        #expect(resultsA == resultsA)
        #expect(resultsB == resultsB)
    }
}

@Suite struct LinkingObjectsEquatabilityTests {
    @Test func testEquatability() throws {
        let t = RealmTestCase()
        let realm = try t.realmWithTestPath()
        var parentA: CTTLinkTarget!
        var parentB: CTTLinkTarget!
        try realm.write {
            parentA = realm.create(CTTLinkTarget.self, value: [0])
            parentB = realm.create(CTTLinkTarget.self, value: [0])
            let targetA = realm.create(CTTNullableStringObjectWithLink.self)
            let targetB = realm.create(CTTNullableStringObjectWithLink.self)
            targetA.linkCol = parentA
            targetB.linkCol = parentB
        }
        #expect(parentA.stringObjects != parentA.stringObjects)
        #expect(parentA.stringObjects != parentB.stringObjects)
        let ref = parentA.stringObjects
        #expect(ref == ref)
    }
}

@Suite struct AnyRealmCollectionEquatabilityTests {
    @Test func testEquatability() throws {
        let t = RealmTestCase()
        let realm = try t.realmWithTestPath()
        try realm.write {
            realm.add(SwiftCustomInitializerObject(stringVal: "A"))
            realm.add(SwiftListObject(value: ["int": [1, 2, 3]]))
            realm.add(SwiftListObject(value: ["int": [1, 2, 3]]))
        }
        let resultsA = AnyRealmCollection(realm.objects(SwiftCustomInitializerObject.self))
        let resultsB = AnyRealmCollection(realm.objects(SwiftCustomInitializerObject.self))
        #expect(resultsA != resultsB)
        #expect(resultsA == resultsA)
        #expect(resultsB == resultsB)
        // realm-swift also wraps lists of Int: Atoll's AnyRealmCollection holds objects only;
        // lists of values compare the same way directly.
        let listA = realm.objects(SwiftListObject.self)[0].int
        let listB = realm.objects(SwiftListObject.self)[1].int
        #expect(listA != listB)
        #expect(listA == listA)
        #expect(listB == listB)
    }
}

// realm-swift's filters on integer properties of each width (RealmCollectionTests, run once: they
// query the realm, not the collection under test), without their `where { }` halves (the
// type-safe query API), and ResultsDistinctTests.testDistinctResultsUsingKeyPaths.
@Suite struct IntegerFilterAndDistinctTests {
    private func aggregateResults() throws -> (Realm, Results<CTTAggregateObject>) {
        let f = try CollectionFixture(.resultsFromTable)
        _ = try f.aggregateableCollection()
        return (f.realm, f.realm.objects(CTTAggregateObject.self))
    }

    @Test func testFilterWithInt8Property() throws {
        let (_, objects) = try aggregateResults()
        #expect(objects.filter("int8Col = %d", Int8(0)).count == 0)
        #expect(objects.filter("int8Col = %d", Int8(1)).count == 1)
        #expect(objects.filter("int8Col = %d", Int8(2)).count == 1)
        #expect(objects.filter("int8Col = %d", Int8(3)).count == 1)
    }

    @Test func testFilterWithInt16Property() throws {
        let (_, objects) = try aggregateResults()
        #expect(objects.filter("int16Col = %d", Int16(0)).count == 0)
        #expect(objects.filter("int16Col = %d", Int16(1)).count == 1)
        #expect(objects.filter("int16Col = %d", Int16(2)).count == 1)
        #expect(objects.filter("int16Col = %d", Int16(3)).count == 1)
    }

    @Test func testFilterWithInt32Property() throws {
        let (_, objects) = try aggregateResults()
        #expect(objects.filter("int32Col = %d", Int32(0)).count == 0)
        #expect(objects.filter("int32Col = %d", Int32(1)).count == 1)
        #expect(objects.filter("int32Col = %d", Int32(2)).count == 1)
        #expect(objects.filter("int32Col = %d", Int32(3)).count == 1)
    }

    @Test func testFilterWithInt64Property() throws {
        let (_, objects) = try aggregateResults()
        #expect(objects.filter("int64Col = %d", Int64(0)).count == 0)
        #expect(objects.filter("int64Col = %d", Int64(1)).count == 1)
        #expect(objects.filter("int64Col = %d", Int64(2)).count == 1)
        #expect(objects.filter("int64Col = %d", Int64(3)).count == 1)
    }

    /// Without realm-swift's `assertThrows` for key paths `distinct` cannot use (a link, an
    /// aggregate, a list): a programming error that stops the program in Atoll (README).
    /// realm-swift's `assertEqual` of two arrays of objects: the same objects, in order.
    private func sameObjects(_ a: [CTTAggregateObject], _ b: [CTTAggregateObject]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.isSameObject(as: $1) }
    }

    @Test func testDistinctResultsUsingKeyPaths() throws {
        let t = RealmTestCase()
        let realm = try t.realmWithTestPath()

        let obj1 = CTTAggregateObject()
        obj1.intCol = 1
        obj1.trueCol = true
        let obj2 = CTTAggregateObject()
        obj2.intCol = 1
        obj2.trueCol = true
        let obj3 = CTTAggregateObject()
        obj3.intCol = 1
        obj3.trueCol = false
        let obj4 = CTTAggregateObject()
        obj4.intCol = 2
        obj4.trueCol = false

        let childObj1 = CTTIntegerObject()
        childObj1.intCol = 1
        obj1.childIntCol = childObj1
        let childObj2 = CTTIntegerObject()
        childObj2.intCol = 1
        obj2.childIntCol = childObj2
        let childObj3 = CTTIntegerObject()
        childObj3.intCol = 2
        obj3.childIntCol = childObj3

        try realm.write {
            realm.add(obj1)
            realm.add(obj2)
            realm.add(obj3)
            realm.add(obj4)
        }

        let collection = realm.objects(CTTAggregateObject.self)
        var distinctResults = collection.distinct(by: ["intCol"])
        #expect(Array(distinctResults.map { ["int": $0.intCol] }) == [["int": 1], ["int": 2]])
        #expect(sameObjects(distinctResults.map { $0 }, distinctResults.value(forKey: "self") as! [CTTAggregateObject]))

        distinctResults = collection.distinct(by: ["intCol", "trueCol"])
        #expect(distinctResults.map { ["int": $0.intCol, "true": $0.trueCol ? 1 : 0] }
            == [["int": 1, "true": 1], ["int": 1, "true": 0], ["int": 2, "true": 0]])
        #expect(sameObjects(distinctResults.map { $0 }, distinctResults.value(forKey: "self") as! [CTTAggregateObject]))

        distinctResults = collection.distinct(by: ["childIntCol.intCol"])
        #expect(distinctResults.map { ["int": $0.childIntCol!.intCol] } == [["int": 1], ["int": 2]])
        #expect(sameObjects(distinctResults.map { $0 }, distinctResults.value(forKey: "self") as! [CTTAggregateObject]))
    }
}

// More of realm-swift's RealmCollectionTests (without the `where { }` halves: the type-safe
// query API).
extension RealmCollectionTypeTests {
    @Test(arguments: CollectionKind.allCases) func testFilterList(_ kind: CollectionKind) throws {
        let realm = try CollectionFixture(kind).realm
        let outerArray = SwiftDoubleListOfSwiftObject()
        let innerArray = SwiftListOfSwiftObject()
        innerArray.array.append(SwiftObject())
        outerArray.array.append(innerArray)
        try realm.write { realm.add(outerArray) }
        #expect(1 == outerArray.array.filter("ANY array IN %@", realm.objects(SwiftObject.self)).count)
    }

    @Test(arguments: CollectionKind.allCases) func testFilterResults(_ kind: CollectionKind) throws {
        let realm = try CollectionFixture(kind).realm
        let array = SwiftListOfSwiftObject()
        array.array.append(SwiftObject())
        try realm.write { realm.add(array) }
        #expect(1 == realm.objects(SwiftListOfSwiftObject.self).filter("ANY array IN %@", realm.objects(SwiftObject.self)).count)
    }

    @Test(arguments: CollectionKind.allCases) func testAssignListProperty(_ kind: CollectionKind) throws {
        let f = try CollectionFixture(kind)
        let realm = f.realm
        let collection = f.collection!
        try realm.write {
            let array = CTTStringList()
            realm.add(array)
            array["array"] = collection
        }
        let lists = realm.objects(CTTStringList.self)
        #expect(lists.last!.array.map(\.stringCol) == ["1", "2"])
    }

    @Test(arguments: CollectionKind.allCases) func testArrayAggregateWithSwiftObjectDoesntThrow(_ kind: CollectionKind) throws {
        let collection = try CollectionFixture(kind).aggregateableCollection()
        // Should not throw a type error.
        #expect(0 == collection.filter("ANY stringListCol == %@", CTTNullableStringObjectWithLink()).count)
    }

    @Test(arguments: CollectionKind.allCases) func testThawPreviousVersion(_ kind: CollectionKind) throws {
        let f = try CollectionFixture(kind)
        let collection = f.collection!
        let frozen = collection.freeze()
        #expect(frozen.isFrozen)
        #expect(collection.count == frozen.count)

        let realm = collection.realm!
        try realm.write { realm.delete(collection) }
        #expect(frozen.count != collection.count, "Frozen collections should not change")

        let live = frozen.thaw()
        #expect(live!.isEmpty, "Thawed collection should reflect transactions since the original reference was frozen")
        #expect(!frozen.isEmpty)
        #expect(live!.count == collection.count)
    }
}
