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

    /// realm-swift (ObjectTests/ListTests): `person.dog = Dog()` for a class without a primary
    /// key creates the object; so do KVC, subscripts and updates of a graph holding one.
    @Test func linkingAnUnmanagedObjectWithoutPrimaryKeyCreatesIt() throws {
        let realm = try t.realm()
        let owner = try realm.write { realm.create(SwiftOwnerObject.self, value: ["name": "a", "dog": NSNull()]) }
        let rex = SwiftDogObject(value: ["dogName": "Rex"])
        try realm.write { owner.dog = rex }
        #expect(rex.realm === realm, "the linked object is managed now")
        #expect(owner.dog?.dogName == "Rex")
        try realm.write { owner.setValue(SwiftDogObject(value: ["dogName": "Fido"]), forKey: "dog") }
        #expect(owner.dog?.dogName == "Fido")
        try realm.write { owner["dog"] = SwiftDogObject(value: ["dogName": "Bo"]) }
        #expect(owner.dog?.dogName == "Bo")
        #expect(realm.objects(SwiftDogObject.self).count == 3)

        let link = SwiftLinkToPrimaryStringObject(value: ["pk": "x", "object": ["p", 1]])
        let company = SwiftCompanyObject(value: ["name": "co", "employees": [["name": "ann"]]])
        try realm.write {
            realm.add(link, update: .modified)
            realm.create(SwiftLinkToPrimaryStringObject.self, value: ["pk": "y", "objects": [["q", 2]]], update: .all)
            realm.add(company)
        }
        #expect(realm.objects(SwiftPrimaryStringObject.self).count == 2)
        // The class added with update: must have a primary key (realm-swift raises).
        assertWriteFails(realm, kind: .primaryKeyMissing) { realm.add(SwiftCompanyObject(), update: .all) }
        assertWriteFails(realm, kind: .primaryKeyMissing) { realm.create(SwiftCompanyObject.self, value: ["name": "b"], update: .modified) }
    }

    /// realm-swift's array literals may be shorter than the properties: the rest take their
    /// defaults; a longer one is an error.
    @Test func createFromAShortArrayGivesTheRestTheirDefaults() throws {
        let realm = try t.realm()
        let object = try realm.write { realm.create(SwiftObject.self, value: [true, 7]) }
        #expect(object.boolCol == true)
        #expect(object.intCol == 7)
        #expect(object.stringCol == "a")
        #expect(object.objectCol?.boolCol == false)
        let tooMany: [Any] = [true, 7, Int8(1), Int16(1), Int32(1), Int64(1), Float(1), 1.0, "s", Data(), Date(), ObjectId(),
                              [false], UUID(), [[true]], "one too many"]
        assertWriteFails(realm, kind: .invalidArgument) { realm.create(SwiftObject.self, value: tooMany) }
        // An unmanaged object from a short array too.
        #expect(SwiftObject(value: [true, 7]).stringCol == "a")
    }

    /// Any collection can be assigned to a list property: Results, LinkingObjects, List, array.
    @Test func anyCollectionCanBeAssignedToAList() throws {
        let realm = try t.realm()
        let (owner, target) = try realm.write { () -> (SwiftObject, SwiftArrayPropertyObject) in
            let owner = realm.create(SwiftObject.self, value: ["arrayCol": [[true], [false]]])
            return (owner, realm.create(SwiftArrayPropertyObject.self))
        }
        try realm.write {
            owner.arrayCol = owner.arrayCol
            owner.setValue(realm.objects(SwiftBoolObject.self).filter("boolCol == true"), forKey: "arrayCol")
        }
        #expect(owner.arrayCol.map(\.boolCol) == [true])
        let dog = try realm.write { () -> SwiftDogObject in
            let dog = realm.create(SwiftDogObject.self, value: ["dogName": "d"])
            realm.create(SwiftOwnerObject.self, value: ["name": "o1", "dog": dog])
            realm.create(SwiftOwnerObject.self, value: ["name": "o2", "dog": dog])
            return dog
        }
        let holder = try realm.write { realm.create(OwnerListHolder.self) }
        try realm.write { holder.setValue(dog.owners, forKey: "owners") }
        #expect(holder.owners.map(\.name).sorted() == ["o1", "o2"])
        try realm.write { target.setValue(realm.objects(SwiftStringObject.self), forKey: "array") }
        #expect(target.array.count == 0)
        // Unmanaged: a List, Results and LinkingObjects fill the list.
        let unmanaged = OwnerListHolder()
        unmanaged.setValue(dog.owners, forKey: "owners")
        #expect(unmanaged.owners.count == 2)
        unmanaged.setValue(realm.objects(SwiftOwnerObject.self), forKey: "owners")
        #expect(unmanaged.owners.count == 2)
    }

    /// realm-swift (RealmCollectionTypeTests): aggregates convert to the requested type.
    @Test func aggregatesReturnTheRequestedType() throws {
        let realm = try t.realm()
        try realm.write {
            for i in [1, 2, 3] { realm.create(SwiftAggregateObject.self, value: ["intCol": i, "doubleCol": Double(i) + 0.5, "floatCol": Float(i)]) }
        }
        let objects = realm.objects(SwiftAggregateObject.self)
        #expect(objects.min(ofProperty: "intCol") as Int8? == 1)
        #expect(objects.max(ofProperty: "intCol") as Int16? == 3)
        #expect(objects.max(ofProperty: "intCol") as Int? == 3)
        #expect(objects.min(ofProperty: "intCol") as Double? == 1)
        #expect(objects.sum(ofProperty: "intCol") as Int32 == 6)
        #expect(objects.sum(ofProperty: "intCol") as Double == 6)
        #expect(objects.max(ofProperty: "doubleCol") as Double? == 3.5)
        #expect(objects.min(ofProperty: "floatCol") as Double? == 1)
        let filtered = objects.filter("intCol > 1")
        #expect(filtered.min(ofProperty: "intCol") as Int8? == 2)
        #expect(filtered.sum(ofProperty: "intCol") as Int64 == 5)
    }

    /// realm-swift (RealmCollectionTypeTests.testDistinct): objects whose link on the key path
    /// is nil are left out.
    @Test func distinctByALinkPathDropsNilLinks() throws {
        let realm = try t.realm()
        try realm.write {
            realm.create(SwiftOwnerObject.self, value: ["a", ["dogName": "Rex"]])
            realm.create(SwiftOwnerObject.self, value: ["b", ["dogName": "Rex"]])
            realm.create(SwiftOwnerObject.self, value: ["c", ["dogName": "Fido"]])
            realm.create(SwiftOwnerObject.self, value: ["d", NSNull()])
        }
        let distinct = realm.objects(SwiftOwnerObject.self).distinct(by: ["dog.dogName"])
        #expect(distinct.map(\.name) == ["a", "c"])
        #expect(realm.objects(SwiftOwnerObject.self).distinct(by: ["name"]).count == 4)
    }

    /// `value(forKey: "self")` of a collection is its elements.
    @Test func valueForKeySelfOfACollectionIsItsElements() throws {
        let realm = try t.realm()
        let company = try realm.write { realm.create(SwiftCompanyObject.self, value: ["co", [["ann"], ["bob"]]]) }
        let employees = company.employees.value(forKey: "self").compactMap { $0 as? SwiftEmployeeObject }
        #expect(employees.map(\.name) == ["ann", "bob"])
        let results = realm.objects(SwiftEmployeeObject.self).value(forKey: "self").compactMap { $0 as? SwiftEmployeeObject }
        #expect(results.count == 2)
        #expect(SwiftEmployeeObject().value(forKey: "self") is SwiftEmployeeObject)
    }

    /// realm-swift: ignored properties are not in objectSchema, but they keep their values.
    @Test func ignoredPropertiesAreKeptButNotInTheSchema() throws {
        let realm = try t.realm()
        let object = SwiftIgnoredPropertiesObject(value: ["name": "n", "age": 3])
        object.runtimeDefaultProperty = "kept"
        try realm.write { realm.add(object) }
        #expect(object.runtimeDefaultProperty == "kept")
        #expect(object.objectSchema.properties.map(\.name) == ["name", "age"])
        #expect(object.name == "n")
    }
}

/// A list of owners (LinkingObjects and List as query arguments, collections assigned to lists).
class OwnerListHolder: Object {
    @Persisted var owners: List<SwiftOwnerObject>
}

extension RealmSwiftBehaviourTests {
    /// An `AnyRealmCollection` is a collection like the others: as an `IN %@` argument and
    /// through a key path (assigned to a list property: RealmCollectionTypeTests).
    @Test func anyRealmCollectionWorksWhereOtherCollectionsDo() throws {
        let realm = try t.realm()
        try realm.write {
            let a = realm.create(SwiftDogObject.self, value: ["dogName": "a"])
            realm.create(SwiftDogObject.self, value: ["dogName": "b"])
            realm.create(SwiftOwnerObject.self, value: ["name": "o", "dog": a])
        }
        let any = AnyRealmCollection(realm.objects(SwiftDogObject.self).filter("dogName == 'a'"))
        #expect(realm.objects(SwiftOwnerObject.self).filter("dog IN %@", any).count == 1)
        #expect(any.value(forKeyPath: "dogName") as? [String] == ["a"])
    }
}
