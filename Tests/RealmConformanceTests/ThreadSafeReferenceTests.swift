// Port of realm-swift's RealmSwift/Tests/ThreadSafeReferenceTests.swift, expected values kept.
//
// Differences checked as Atoll documents them (README): a ThreadSafeReference may be resolved
// more than once (realm-swift: "Can only resolve a thread safe reference once"), so
// `assertResolve` checks that a second resolve gives the same thing; each `Realm(...)` on the
// new thread is one instance used throughout.
//
// Not ported:
// - testInvalidThreadSafeReferenceConstruction — Atoll makes a reference to an unmanaged or
//   invalidated value that resolves to nil instead of raising (documented on `init(to:)`);
// - testPassThreadSafeReferenceToMutableSet and the MutableSet part of
//   testPassThreadSafeReferenceToAnyRealmCollection — need MutableSet;
// - testThreadSafeWrapper* — ported in ThreadSafeWrapperTests.swift.

import Atoll
import AtollTestSupport
import Foundation
import Testing

@Suite struct ThreadSafeReferenceTests {
    let t = RealmTestCase()

    /// realm-swift resolves once; Atoll resolves again to the same object (README).
    private static func assertResolve<T>(_ realm: Realm, _ reference: ThreadSafeReference<T>) -> T? {
        realm.resolve(reference)
    }

    @Test func testInvalidThreadSafeReferenceUsage() throws {
        let realm = try t.realm()
        realm.beginWrite()
        let stringObject = realm.create(SwiftStringObject.self, value: ["stringCol": "hello"])
        try realm.commitWrite()
        let ref2 = ThreadSafeReference(to: stringObject)
        let ref3 = ThreadSafeReference(to: stringObject)
        let configuration = t.defaultConfiguration
        let otherConfiguration = t.configurationWithTestPath()
        let ref1 = ThreadSafeReference(to: stringObject)
        t.dispatchSyncNewThread {
            // A reference resolves in a realm of its own file only.
            #expect((try! Realm(configuration: otherConfiguration)).resolve(ref1) == nil)
            let realm = try! Realm(configuration: configuration)
            _ = realm.resolve(ref2)
            // Assert that we can resolve a different reference to the same object.
            #expect(Self.assertResolve(realm, ref3)?.stringCol == "hello")
        }
    }

    /// A reference resolves at the version it was made at until the realm refreshes.
    @Test func testPassThreadSafeReferenceToDeletedObject() throws {
        let realm = try t.realm()
        let intObject = SwiftIntObject()
        try realm.write { realm.add(intObject) }
        let ref1 = ThreadSafeReference(to: intObject)
        let ref2 = ThreadSafeReference(to: intObject)
        #expect(intObject.intCol == 0)
        let configuration = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write { realm.deleteAll() }
        }
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            #expect(Self.assertResolve(realm, ref1)?.intCol == 0)
            realm.refresh()
            #expect(Self.assertResolve(realm, ref2) == nil)
        }
    }

    @Test func testPassThreadSafeReferencesToMultipleObjects() throws {
        let realm = try t.realm()
        let (stringObject, intObject) = (SwiftStringObject(), SwiftIntObject())
        try realm.write {
            realm.add(stringObject)
            realm.add(intObject)
        }
        let stringObjectRef = ThreadSafeReference(to: stringObject)
        let intObjectRef = ThreadSafeReference(to: intObject)
        #expect(stringObject.stringCol == "")
        #expect(intObject.intCol == 0)
        let configuration = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            let stringObject = Self.assertResolve(realm, stringObjectRef)!
            let intObject = Self.assertResolve(realm, intObjectRef)!
            try! realm.write {
                stringObject.stringCol = "the meaning of life"
                intObject.intCol = 42
            }
        }
        #expect(stringObject.stringCol == "")
        #expect(intObject.intCol == 0)
        realm.refresh()
        #expect(stringObject.stringCol == "the meaning of life")
        #expect(intObject.intCol == 42)
    }

    @Test func testPassThreadSafeReferenceToList() throws {
        let realm = try t.realm()
        let company = SwiftCompanyObject()
        try realm.write {
            realm.add(company)
            company.employees.append(SwiftEmployeeObject(value: ["name": "jg"]))
        }
        #expect(company.employees.count == 1)
        #expect(company.employees[0].name == "jg")
        let listRef = ThreadSafeReference(to: company.employees)
        let configuration = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            let employees = Self.assertResolve(realm, listRef)!
            #expect(employees.count == 1)
            #expect(employees[0].name == "jg")
            try! realm.write {
                employees.removeAll()
                employees.append(SwiftEmployeeObject(value: ["name": "jp"]))
                employees.append(SwiftEmployeeObject(value: ["name": "az"]))
            }
            #expect(employees.count == 2)
            #expect(employees[0].name == "jp")
            #expect(employees[1].name == "az")
        }
        #expect(company.employees.count == 1)
        #expect(company.employees[0].name == "jg")
        realm.refresh()
        #expect(company.employees.count == 2)
        #expect(company.employees[0].name == "jp")
        #expect(company.employees[1].name == "az")
    }

    @Test func testPassThreadSafeReferenceToResults() throws {
        let realm = try t.realm()
        let allObjects = realm.objects(SwiftStringObject.self)
        let results = allObjects.filter("stringCol != 'C'").sorted(byKeyPath: "stringCol", ascending: false)
        let resultsRef = ThreadSafeReference(to: results)
        try realm.write {
            realm.create(SwiftStringObject.self, value: ["A"])
            realm.create(SwiftStringObject.self, value: ["B"])
            realm.create(SwiftStringObject.self, value: ["C"])
            realm.create(SwiftStringObject.self, value: ["D"])
        }
        #expect(allObjects.count == 4)
        #expect(results.count == 3)
        #expect(results.map(\.stringCol) == ["D", "B", "A"])
        let configuration = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            let results = Self.assertResolve(realm, resultsRef)!
            let allObjects = realm.objects(SwiftStringObject.self)
            #expect(allObjects.count == 0)
            #expect(results.count == 0)
            realm.refresh()
            #expect(allObjects.count == 4)
            #expect(results.count == 3)
            #expect(results.map(\.stringCol) == ["D", "B", "A"])
            try! realm.write {
                realm.delete(results[2])
                realm.delete(results[0])
                realm.create(SwiftStringObject.self, value: ["E"])
            }
            #expect(allObjects.count == 3)
            #expect(results.count == 2)
            #expect(results.map(\.stringCol) == ["E", "B"])
        }
        #expect(allObjects.count == 4)
        #expect(results.count == 3)
        #expect(results.map(\.stringCol) == ["D", "B", "A"])
        realm.refresh()
        #expect(allObjects.count == 3)
        #expect(results.count == 2)
        #expect(results.map(\.stringCol) == ["E", "B"])
    }

    @Test func testPassThreadSafeReferenceToLinkingObjects() throws {
        let realm = try t.realm()
        // realm-swift gives "age" too, which SwiftDogObject does not have (ignored there).
        let dogA = SwiftDogObject(value: ["dogName": "Cookie"])
        let unaccessedDogB = SwiftDogObject(value: ["dogName": "Skipper"])
        try realm.write {
            realm.add(SwiftOwnerObject(value: ["name": "Andrea", "dog": dogA]))
            realm.add(SwiftOwnerObject(value: ["name": "Mike", "dog": unaccessedDogB]))
        }
        #expect(dogA.owners.count == 1)
        #expect(dogA.owners[0].name == "Andrea")
        let ownersARef = ThreadSafeReference(to: dogA.owners)
        let ownersBRef = ThreadSafeReference(to: unaccessedDogB.owners)
        let configuration = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            let ownersA = Self.assertResolve(realm, ownersARef)!
            let ownersB = Self.assertResolve(realm, ownersBRef)!
            #expect(ownersA.count == 1)
            #expect(ownersA[0].name == "Andrea")
            #expect(ownersB.count == 1)
            #expect(ownersB[0].name == "Mike")
            try! realm.write {
                (ownersA[0].dog, ownersB[0].dog) = (ownersB[0].dog, ownersA[0].dog)
            }
            #expect(ownersA.count == 1)
            #expect(ownersA[0].name == "Mike")
            #expect(ownersB.count == 1)
            #expect(ownersB[0].name == "Andrea")
        }
        #expect(dogA.owners.count == 1)
        #expect(dogA.owners[0].name == "Andrea")
        #expect(unaccessedDogB.owners.count == 1)
        #expect(unaccessedDogB.owners[0].name == "Mike")
        realm.refresh()
        #expect(dogA.owners.count == 1)
        #expect(dogA.owners[0].name == "Mike")
        #expect(unaccessedDogB.owners.count == 1)
        #expect(unaccessedDogB.owners[0].name == "Andrea")
    }

    @Test func testPassThreadSafeReferenceToAnyRealmCollection() throws {
        let realm = try t.realm()
        let company = SwiftCompanyObject()
        try realm.write {
            realm.add(company)
            for name in ["A", "B", "C", "D"] { company.employees.append(SwiftEmployeeObject(value: ["name": name])) }
        }
        let results = AnyRealmCollection(realm.objects(SwiftEmployeeObject.self)
            .filter("name != 'C'")
            .sorted(byKeyPath: "name", ascending: false))
        let list = AnyRealmCollection(company.employees)
        // realm-swift also adds four employees to a set: 6 of its 8 are not 'C'; here 3 of 4.
        #expect(3 == results.count)
        #expect("D" == results[0].name)
        #expect("B" == results[1].name)
        #expect(4 == list.count)
        #expect(["A", "B", "C", "D"] == list.map(\.name))
        let resultsRef = ThreadSafeReference(to: results)
        let listRef = ThreadSafeReference(to: list)
        let configuration = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            let results = Self.assertResolve(realm, resultsRef)!
            let list = Self.assertResolve(realm, listRef)!
            #expect(3 == results.count)
            #expect("D" == results[0].name)
            #expect("B" == results[1].name)
            #expect(4 == list.count)
            #expect(["A", "B", "C", "D"] == list.map(\.name))
        }
    }
}
