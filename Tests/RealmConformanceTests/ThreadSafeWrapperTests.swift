// Port of the @ThreadSafe part of realm-swift's RealmSwift/Tests/ThreadSafeReferenceTests.swift
// (ThreadSafeWrapperTests; compat1 ports ThreadSafeReferenceTests itself). Expected values are
// realm-swift's.
//
// Not ported:
// - testThreadSafeWrapperToMap, testThreadSafeWrapperToMutableSet: need Map and MutableSet.
// - testThreadSafeWrapperInvalidConstruction, testThreadSafeWrapperInvalidReassign: wrapping an
//   unmanaged object stops the program in Atoll (README, Differences) instead of raising.
// - testThreadSafeWrapperInline, testThreadSafeFunctionArgument, testThreadSafeUnmanagedArgument,
//   testThreadSafeMultipleDispatch: local and parameter property wrappers around realm-swift's
//   per-thread cached realms; the wrapper's behaviour is the same as in the tests below.
// - testThreadSafeWrapperToAnyRealmCollection's MutableSet part.
//
// realm-swift's `assertResolve` checks that a reference resolves once; Atoll references resolve
// more than once (README, Differences), and `isInvalidated` is true only for a reference to an
// unmanaged value.

import Atoll
import AtollTestSupport
import Foundation
import Testing

struct TestThreadSafeWrapperStruct: Sendable {
    @ThreadSafe var stringObject: SwiftStringObject?
    @ThreadSafe var intObject: SwiftIntObject?
    @ThreadSafe var employees: List<SwiftEmployeeObject>?
    @ThreadSafe var owners: LinkingObjects<SwiftOwnerObject>?
    @ThreadSafe var results: Results<SwiftStringObject>?
    @ThreadSafe var arcResults: AnyRealmCollection<SwiftEmployeeObject>?
    @ThreadSafe var arcList: AnyRealmCollection<SwiftEmployeeObject>?
}

@Suite struct ThreadSafeWrapperTests {
    let t = RealmTestCase()

    func wrapperStruct() throws -> TestThreadSafeWrapperStruct {
        let realm = try t.realm()
        var stringObj: SwiftStringObject?, intObj: SwiftIntObject?
        try realm.write {
            stringObj = realm.create(SwiftStringObject.self, value: ["stringCol": "before"])
            intObj = realm.create(SwiftIntObject.self, value: ["intCol": 1])
        }
        return TestThreadSafeWrapperStruct(stringObject: stringObj, intObject: intObj)
    }

    @Test func testThreadSafeWrapper() throws {
        let testStruct = try wrapperStruct()
        #expect(testStruct.stringObject!.stringCol == "before")
        #expect(testStruct.intObject!.intCol == 1)
        let config = t.defaultConfiguration
        t.dispatchSyncNewThread {
            try! Realm(configuration: config).write {
                testStruct.stringObject!.stringCol = "after"
                testStruct.intObject!.intCol = 2
            }
        }
        #expect(testStruct.stringObject!.stringCol == "after")
        #expect(testStruct.intObject!.intCol == 2)
        t.dispatchSyncNewThread {
            try! Realm(configuration: config).write {
                testStruct.stringObject!.stringCol = "after, again"
                testStruct.intObject!.intCol = 3
            }
        }
        #expect(testStruct.stringObject!.stringCol == "after, again")
        #expect(testStruct.intObject!.intCol == 3)
    }

    @Test func testThreadSafeWrapperDeleteObject() throws {
        let testStruct = try wrapperStruct()
        #expect(testStruct.stringObject!.stringCol == "before")
        let config = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: config)
            try! realm.write {
                realm.delete(testStruct.stringObject!)
                realm.delete(testStruct.intObject!)
            }
        }
        #expect(testStruct.stringObject == nil)
        #expect(testStruct.intObject == nil)
    }

    @Test func testThreadSafeWrapperReassign() throws {
        let testStruct = try wrapperStruct()
        let config = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: config)
            try! realm.write {
                testStruct.stringObject = realm.create(SwiftStringObject.self, value: ["stringCol": "after"])
                testStruct.intObject = realm.create(SwiftIntObject.self, value: ["intCol": 2])
            }
        }
        #expect(testStruct.stringObject!.stringCol == "after")
        #expect(testStruct.intObject!.intCol == 2)
    }

    @Test func testThreadSafeWrapperReassignToNil() throws {
        let testStruct = try wrapperStruct()
        let config = t.defaultConfiguration
        t.dispatchSyncNewThread {
            testStruct.stringObject = nil
            testStruct.intObject = nil
        }
        #expect(testStruct.stringObject == nil)
        #expect(testStruct.intObject == nil)
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: config)
            try! realm.write {
                testStruct.stringObject = realm.create(SwiftStringObject.self, value: ["stringCol": "after, again"])
                testStruct.intObject = realm.create(SwiftIntObject.self, value: ["intCol": 3])
            }
        }
        #expect(testStruct.stringObject!.stringCol == "after, again")
        #expect(testStruct.intObject!.intCol == 3)
    }

    @Test func testThreadSafeWrapperNilConstruction() throws {
        let testStruct = TestThreadSafeWrapperStruct(stringObject: nil, intObject: nil)
        #expect(testStruct.stringObject == nil)
        #expect(testStruct.intObject == nil)
        var c = t.defaultConfiguration
        c.objectTypes = [SwiftStringObject.self, SwiftIntObject.self]
        let config = c
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: config)
            try! realm.write {
                testStruct.stringObject = realm.create(SwiftStringObject.self, value: ["stringCol": "after"])
                testStruct.intObject = realm.create(SwiftIntObject.self, value: ["intCol": 2])
            }
        }
        #expect(testStruct.stringObject!.stringCol == "after")
        #expect(testStruct.intObject!.intCol == 2)
    }

    @Test func testThreadSafeWrapperDifferentConfig() throws {
        let testStruct = try wrapperStruct()
        var c = t.defaultConfiguration
        c.fileURL = c.fileURL!.deletingLastPathComponent().appendingPathComponent("newpath.realm")
        c.objectTypes = [SwiftEmployeeObject.self, SwiftStringObject.self, SwiftIntObject.self]
        let config = c
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: config)
            try! realm.write {
                testStruct.stringObject = realm.create(SwiftStringObject.self, value: ["stringCol": "after"])
                testStruct.intObject = realm.create(SwiftIntObject.self, value: ["intCol": 2])
            }
        }
        #expect(testStruct.stringObject!.stringCol == "after")
        #expect(testStruct.intObject!.intCol == 2)
    }

    @Test func testThreadSafeWrapperToList() throws {
        let realm = try t.realm()
        let company = SwiftCompanyObject()
        try realm.write {
            realm.add(company)
            company.employees.append(SwiftEmployeeObject(value: ["name": "jg"]))
        }
        #expect(1 == company.employees.count)
        let testStruct = TestThreadSafeWrapperStruct(employees: company.employees)
        let config = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: config)
            #expect(1 == testStruct.employees!.count)
            #expect("jg" == testStruct.employees![0].name)
            try! realm.write {
                testStruct.employees!.removeAll()
                testStruct.employees!.append(SwiftEmployeeObject(value: ["name": "jp"]))
                testStruct.employees!.append(SwiftEmployeeObject(value: ["name": "az"]))
            }
            #expect(2 == testStruct.employees!.count)
        }
        #expect(2 == testStruct.employees!.count)
        #expect("jp" == testStruct.employees![0].name)
        #expect("az" == testStruct.employees![1].name)
    }

    @Test func testThreadSafeWrapperToResults() throws {
        let realm = try t.realm()
        try realm.write {
            realm.create(SwiftStringObject.self, value: ["stringCol": "A"])
            realm.create(SwiftStringObject.self, value: ["stringCol": "B"])
        }
        let testStruct = TestThreadSafeWrapperStruct(results: realm.objects(SwiftStringObject.self).filter("stringCol != 'C'").sorted(byKeyPath: "stringCol"))
        let config = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: config)
            #expect(testStruct.results!.map(\.stringCol) == ["A", "B"])
            try! realm.write {
                realm.create(SwiftStringObject.self, value: ["stringCol": "C"])
                realm.create(SwiftStringObject.self, value: ["stringCol": "D"])
            }
        }
        #expect(testStruct.results!.map(\.stringCol) == ["A", "B", "D"])
    }

    @Test func testThreadSafeWrapperLinkingObjects() throws {
        let realm = try t.realm()
        let dogA = SwiftDogObject(value: ["dogName": "Cookie", "age": 10])
        let unaccessedDogB = SwiftDogObject(value: ["dogName": "Skipper", "age": 7])
        try realm.write {
            realm.add(SwiftOwnerObject(value: ["name": "Andrea", "dog": dogA]))
            realm.add(SwiftOwnerObject(value: ["name": "Mike", "dog": unaccessedDogB]))
        }
        #expect(1 == dogA.owners.count)
        let testStruct = TestThreadSafeWrapperStruct(owners: dogA.owners)
        let config = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: config)
            #expect(1 == testStruct.owners!.count)
            try! realm.write { realm.objects(SwiftOwnerObject.self).filter("name == 'Mike'").first!.dog = realm.objects(SwiftDogObject.self).filter("dogName == 'Cookie'").first! }
        }
        #expect(2 == testStruct.owners!.count)
    }

    @Test func testThreadSafeWrapperToAnyRealmCollection() throws {
        let realm = try t.realm()
        let company = SwiftCompanyObject()
        try realm.write {
            realm.add(company)
            company.employees.append(SwiftEmployeeObject(value: ["name": "jg"]))
        }
        let testStruct = TestThreadSafeWrapperStruct(arcResults: AnyRealmCollection(realm.objects(SwiftEmployeeObject.self)),
                                                     arcList: AnyRealmCollection(company.employees))
        let config = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: config)
            #expect(1 == testStruct.arcResults!.count)
            #expect(1 == testStruct.arcList!.count)
            try! realm.write { realm.objects(SwiftCompanyObject.self).first!.employees.append(SwiftEmployeeObject(value: ["name": "az"])) }
        }
        #expect(2 == testStruct.arcResults!.count)
        #expect(2 == testStruct.arcList!.count)
    }

    @Test func referenceIsInvalidatedOnlyForUnmanagedValues() throws {
        let realm = try t.realm()
        let obj = try realm.write { realm.create(SwiftStringObject.self, value: ["a"]) }
        let reference = ThreadSafeReference(to: obj)
        #expect(!reference.isInvalidated)
        #expect(realm.resolve(reference)?.stringCol == "a")
        #expect(ThreadSafeReference(to: SwiftStringObject()).isInvalidated)
    }
}
