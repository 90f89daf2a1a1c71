// Behaviours of RealmSwift that Atoll got wrong, with RealmSwift's expected results, so they
// stay fixed whatever suite ports the realm-swift tests that cover them (ListTests,
// RealmCollectionTypeTests, QueryTests, ModernObjectCreationTests): objects of another realm
// (RealmSwift raises; the write throws here), collections and unmanaged objects as query
// arguments, models whose defaults make objects, and the behaviours below them.

import Atoll
import AtollTestSupport
import Foundation
import Testing

@Suite struct RealmSwiftBehaviourTests {
    let t = RealmTestCase()

    // MARK: - Objects of another realm (realm-swift raises; the write throws here)

    /// Deleting objects of another realm never deletes the objects of this one that have the
    /// same keys.
    @Test func deletingObjectsOfAnotherRealmFailsAndDeletesNothing() throws {
        let realm = try t.realm()
        let other = try t.realmWithTestPath()
        try realm.write { for i in 0..<3 { realm.create(SwiftIntObject.self, value: [i]) } }
        try other.write { for i in 0..<3 { other.create(SwiftIntObject.self, value: [10 + i]) } }

        assertWriteFails(realm, kind: .invalidArgument, reason: "another Realm") { realm.delete(other.objects(SwiftIntObject.self)) }
        assertWriteFails(realm, kind: .invalidArgument) { realm.delete(Array(other.objects(SwiftIntObject.self))) }
        assertWriteFails(realm, kind: .invalidArgument) { realm.delete(other.objects(SwiftIntObject.self).first!) }
        #expect(realm.objects(SwiftIntObject.self).count == 3)
        #expect(other.objects(SwiftIntObject.self).count == 3)

        // One foreign object among this realm's own: nothing is deleted.
        var mixed = Array(realm.objects(SwiftIntObject.self))
        mixed.append(other.objects(SwiftIntObject.self).first!)
        assertWriteFails(realm, kind: .invalidArgument) { realm.delete(mixed) }
        #expect(realm.objects(SwiftIntObject.self).count == 3)

        // Unmanaged objects in a sequence fail the write too.
        assertWriteFails(realm, kind: .invalidArgument) { realm.delete([SwiftIntObject()]) }
    }

    /// Linking, listing or adding an object of another realm fails the write.
    @Test func usingObjectsOfAnotherRealmFailsTheWrite() throws {
        let realm = try t.realm()
        let other = try t.realmWithTestPath()
        let foreign = try other.write { other.create(SwiftBoolObject.self, value: [true]) }
        let owner = try realm.write { realm.create(SwiftObject.self) }

        assertWriteFails(realm, kind: .invalidArgument) { owner.objectCol = foreign }
        assertWriteFails(realm, kind: .invalidArgument) { owner.setValue(foreign, forKey: "objectCol") }
        assertWriteFails(realm, kind: .invalidArgument) { owner["objectCol"] = foreign }
        assertWriteFails(realm, kind: .invalidArgument) { owner.arrayCol.append(foreign) }
        assertWriteFails(realm, kind: .invalidArgument) { owner.arrayCol.insert(foreign, at: 0) }
        assertWriteFails(realm, kind: .invalidArgument) { owner.setValue([foreign], forKey: "arrayCol") }
        assertWriteFails(realm, kind: .invalidArgument) { realm.add(SwiftObject(value: ["objectCol": foreign])) }
        try realm.write { owner.arrayCol.append(SwiftBoolObject()) }
        assertWriteFails(realm, kind: .invalidArgument) { owner.arrayCol.replace(index: 0, object: foreign) }
        assertWriteFails(realm, kind: .invalidArgument) { owner.arrayCol[0] = foreign }
        #expect(owner.objectCol?.boolCol == false)
        #expect(owner.arrayCol.count == 1)
        #expect(owner.arrayCol.index(of: foreign) == nil)
        #expect(realm.objects(SwiftBoolObject.self).index(of: foreign) == nil)
    }

    /// realm-swift's `objects(...).filter("x IN %@", results)` and an unmanaged object as `%@`.
    @Test func collectionsAndUnmanagedObjectsAsQueryArguments() throws {
        let realm = try t.realm()
        try realm.write {
            let a = realm.create(SwiftOwnerObject.self, value: ["a", ["dogName": "Rex"]])
            realm.create(SwiftOwnerObject.self, value: ["b", ["dogName": "Fido"]])
            realm.create(SwiftOwnerObject.self, value: ["c", NSNull()])
            a.dog!.dogName = "Rex"
        }
        let dogs = realm.objects(SwiftDogObject.self)
        let rex = dogs.filter("dogName == 'Rex'")
        #expect(realm.objects(SwiftOwnerObject.self).filter("dog IN %@", rex).map(\.name) == ["a"])
        #expect(realm.objects(SwiftOwnerObject.self).filter("dog IN %@", dogs).count == 2)
        #expect(realm.objects(SwiftOwnerObject.self).filter("dog IN %@", Array(rex)).count == 1)
        #expect(realm.objects(SwiftOwnerObject.self).filter("NOT dog IN %@", rex).count == 2)

        // LinkingObjects and List arguments.
        let a = realm.objects(SwiftOwnerObject.self).filter("name == 'a'").first!
        let holder = try realm.write { realm.create(OwnerListHolder.self, value: ["owners": Array(realm.objects(SwiftOwnerObject.self))]) }
        try realm.write { realm.create(OwnerListHolder.self) }
        #expect(realm.objects(OwnerListHolder.self).filter("ANY owners IN %@", a.dog!.owners).count == 1)
        let company = try realm.write { realm.create(SwiftCompanyObject.self, value: ["co", [["ann", 30, true], ["bob", 40, false]]]) }
        try realm.write { realm.create(SwiftCompanyObject.self, value: ["other", [["cid", 50, true]]]) }
        #expect(realm.objects(SwiftCompanyObject.self).filter("ANY employees IN %@", company.employees).map(\.name) == ["co"])
        #expect(realm.objects(OwnerListHolder.self).filter("ANY owners IN %@", holder.owners).count == 1)

        // An unmanaged object matches nothing.
        #expect(realm.objects(SwiftOwnerObject.self).filter("dog == %@", SwiftDogObject()).count == 0)
        #expect(realm.objects(SwiftOwnerObject.self).filter("dog != %@", SwiftDogObject()).count == 3)
        #expect(realm.objects(SwiftOwnerObject.self).filter("dog IN %@", [SwiftDogObject()]).count == 0)
    }

    /// A property default that builds another object (SwiftObject.objectCol,
    /// SwiftOwnerObject.dog) does not stop Atoll when it makes managed instances.
    @Test func modelsWhoseDefaultsMakeObjectsAreRead() throws {
        let realm = try t.realm()
        try realm.write {
            realm.create(SwiftOptionalDefaultValuesObject.self)
            realm.create(SwiftOwnerObject.self, value: ["name": "a"])
        }
        let read = realm.objects(SwiftOptionalDefaultValuesObject.self).first!
        #expect(read.optObjectCol?.boolCol == true)
        #expect(realm.objects(SwiftOwnerObject.self).map { $0.dog?.dogName } == [""])
        #expect(realm.objects(SwiftBoolObject.self).count == 1, "the defaults made while reading are not stored")
        for object in realm.objects(SwiftOwnerObject.self) { #expect(object.name == "a") }
    }
}

/// A list of owners (LinkingObjects and List as query arguments, collections assigned to lists).
class OwnerListHolder: Object {
    @Persisted var owners: List<SwiftOwnerObject>
}
