import Atoll
import Foundation
import Testing

// Writes: transactions, errors inside a write, add/create with update policies, deleting,
// key-value coding, JSON and copying between realms.

final class Contact: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var email: String?
    @Persisted var score = 0
    @Persisted var friends: List<Contact>
    @Persisted var numbers: List<Int>
}

/// `city` has no default in the declaration: creating a City without it is an error.
final class Town: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var city: String
    @Persisted var population = 0
    @Persisted var mayor: String?
}

@Suite struct TransactionTests {
    @Test func writeCommitsAndReturnsTheBlocksValue() throws {
        let realm = try Realm(configuration: freshConfiguration())
        #expect(!realm.isInWriteTransaction)
        let dog = try realm.write {
            #expect(realm.isInWriteTransaction)
            return realm.create(Dog.self, value: ["id": 1, "name": "Rex"])
        }
        #expect(!realm.isInWriteTransaction)
        #expect(dog.name == "Rex")
        #expect(realm.objects(Dog.self).count == 1)
    }

    @Test func beginWriteCommitWriteAndCancelWrite() throws {
        let realm = try Realm(configuration: freshConfiguration())
        realm.beginWrite()
        #expect(realm.isInWriteTransaction)
        realm.create(Dog.self, value: ["id": 1])
        #expect(realm.objects(Dog.self).count == 1, "a write sees its own changes")
        try realm.commitWrite()
        #expect(!realm.isInWriteTransaction)

        realm.beginWrite()
        realm.create(Dog.self, value: ["id": 2])
        realm.objects(Dog.self).first?.name = "changed"
        realm.cancelWrite()
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(Dog.self).count == 1)
        #expect(realm.objects(Dog.self).first?.name == "")
    }

    @Test func anErrorThrownByTheBlockRollsBackAndIsRethrown() throws {
        struct Oops: Error {}
        let realm = try Realm(configuration: freshConfiguration())
        #expect(throws: Oops.self) {
            try realm.write {
                realm.create(Dog.self, value: ["id": 1])
                throw Oops()
            }
        }
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(Dog.self).isEmpty)
    }

    @Test func commitWithoutBeginAndNestedWritesAreErrors() throws {
        let realm = try Realm(configuration: freshConfiguration())
        #expect(throws: AtollError.self) { try realm.commitWrite() }
        do {
            try realm.write { try realm.write {} }
            Issue.record("a nested write must fail")
        } catch let e as AtollError {
            #expect(e.kind == .invalidTransaction)
        }
        #expect(!realm.isInWriteTransaction)
    }

    @Test func aSecondRealmInstanceOnTheSameThreadCannotDeadlockTheWriter() throws {
        let config = freshConfiguration()
        let a = try Realm(configuration: config)
        let b = try Realm(configuration: config)
        try a.write {
            do {
                try b.write { b.create(Dog.self, value: ["id": 2]) }
                Issue.record("a write inside another write of the same thread must fail, not wait forever")
            } catch let e as AtollError {
                #expect(e.kind == .invalidTransaction)
            }
            a.create(Dog.self, value: ["id": 1])
        }
        b.refresh()
        #expect(b.objects(Dog.self).map(\.id) == [1])
    }

    @Test func anInvalidOperationMakesTheWriteThrowAndRollsEverythingBack() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Rex"]) }
        let rex = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 1))

        // A duplicate primary key.
        do {
            try realm.write {
                rex.age = 10
                realm.create(Dog.self, value: ["id": 2])
                realm.add(Dog(value: ["id": 1]))
                realm.create(Dog.self, value: ["id": 3])
            }
            Issue.record("a duplicate primary key must fail")
        } catch let e as AtollError {
            #expect(e.kind == .primaryKeyExists)
            #expect(e.message.contains("Dog") && e.message.contains("1"))
        }
        #expect(rex.age == 0)
        #expect(realm.objects(Dog.self).count == 1)

        // A value of the wrong type.
        do {
            try realm.write { realm.create(Dog.self, value: ["id": 4, "age": "old"]) }
            Issue.record("a string for an int must fail")
        } catch let e as AtollError {
            #expect(e.kind == .typeMismatch)
            #expect(e.message.contains("age"))
        }

        // With beginWrite/commitWrite the commit throws.
        realm.beginWrite()
        realm.create(Dog.self, value: ["id": 5])
        realm.create(Dog.self, value: ["id": 5])
        #expect(throws: AtollError.self) { try realm.commitWrite() }
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(Dog.self).map(\.id) == [1])

        // The realm stays usable.
        try realm.write { realm.create(Dog.self, value: ["id": 6]) }
        #expect(realm.objects(Dog.self).count == 2)
    }

    @Test func cancelWriteDiscardsAPendingError() throws {
        let realm = try Realm(configuration: freshConfiguration())
        realm.beginWrite()
        realm.create(Dog.self, value: ["id": 1])
        realm.create(Dog.self, value: ["id": 1])
        realm.cancelWrite()
        try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        #expect(realm.objects(Dog.self).count == 1)
    }

    @Test func aPrimaryKeyCannotBeChangedAfterAdd() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Rex"]) }
        let rex = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 1))
        do {
            try realm.write { rex.id = 2 }
            Issue.record("changing a primary key must fail")
        } catch let e as AtollError {
            #expect(e.message.contains("primary key"))
        }
        #expect(throws: AtollError.self) { try realm.write { rex.setValue(3, forKey: "id") } }
        try realm.write { rex.id = 1 }   // the same value is not a change
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 1)?.name == "Rex")
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 2) == nil)
    }
}

@Suite struct AddAndCreateTests {
    @Test func addWithUpdatePolicies() throws {
        let realm = try Realm(configuration: freshConfiguration([Contact.self]))
        try realm.write { realm.add(Contact(value: ["id": 1, "name": "Ann", "email": "ann@x", "score": 5])) }
        #expect(throws: AtollError.self) { try realm.write { realm.add(Contact(value: ["id": 1])) } }

        // .modified and .all update the existing object instead; the new instance becomes managed.
        let update = Contact(value: ["id": 1, "name": "Ann B", "score": 5])
        try realm.write { realm.add(update, update: .modified) }
        #expect(update.realm === realm)
        let ann = try #require(realm.object(ofType: Contact.self, forPrimaryKey: 1))
        #expect(ann.name == "Ann B")
        #expect(ann.email == nil, "add writes every property of the object, nil included")
        try realm.write { realm.add(Contact(value: ["id": 1, "name": "Ann C"]), update: .all) }
        #expect(ann.name == "Ann C")
        #expect(ann.score == 0)
        #expect(realm.objects(Contact.self).count == 1)

        // An object without a primary key cannot be updated.
        #expect(throws: AtollError.self) { try realm.write { realm.add(Book(), update: .modified) } }
    }

    @Test func modifiedWritesAndNotifiesOnlyChangedProperties() throws {
        let realm = try Realm(configuration: freshConfiguration([Contact.self]))
        try realm.write { realm.add(Contact(value: ["id": 1, "name": "Ann", "score": 5, "numbers": [1]])) }
        let ann = try #require(realm.object(ofType: Contact.self, forPrimaryKey: 1))
        var changed: [[String]] = []
        let token = ann.observe { (change: ObjectChange<Contact>) in
            if case .change(_, let properties) = change { changed.append(properties.map(\.name)) }
        }
        var modifications: [[Int]] = []
        let resultsToken = realm.objects(Contact.self).observe { change in
            if case .update(_, _, _, let m) = change { modifications.append(m) }
        }
        try realm.write { realm.add(Contact(value: ["id": 1, "name": "Ann", "score": 6, "numbers": [1]]), update: .modified) }
        try realm.write { realm.add(Contact(value: ["id": 1, "name": "Ann", "score": 6, "numbers": [1]]), update: .modified) }
        try realm.write { realm.add(Contact(value: ["id": 1, "name": "Ann", "score": 6, "numbers": [1]]), update: .all) }
        #expect(changed.first == ["score"], ".modified reports only the property that changed")
        #expect(changed.count == 2, "an update that changes nothing notifies nobody; .all rewrites everything")
        #expect(Set(changed.last ?? []) == ["name", "email", "score", "numbers"], "every property is written again (an empty list stays untouched)")
        #expect(modifications == [[0], [0]])
        token.invalidate()
        resultsToken.invalidate()
    }

    @Test func createFromADictionaryAnArrayAndNestedValues() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write {
            realm.create(Dog.self, value: ["id": 1, "name": "Pluto", "age": 3])
            // Every persisted property in declaration order; NSNull for nil.
            realm.create(Dog.self, value: [2, "Fido", 5, NSNull(), ["brown"]])
            // Nested dictionaries and arrays create linked objects.
            realm.create(Person.self, value: ["name": "Jane", "age": 30, "dogs": [["id": 3, "name": "Buster"], [4, "Buddy", 6, NSNull(), []]]])
            realm.create(Dog.self, value: ["id": 5, "owner": ["name": "Tom"]])
        }
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 1)?.age == 3)
        let fido = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 2))
        #expect(fido.name == "Fido" && fido.age == 5 && fido.owner == nil && Array(fido.tags) == ["brown"])
        let jane = try #require(realm.object(ofType: Person.self, forPrimaryKey: "Jane"))
        #expect(jane.dogs.map(\.name) == ["Buster", "Buddy"])
        #expect(jane.dogs[1].age == 6)
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 5)?.owner?.name == "Tom")
        #expect(realm.objects(Person.self).count == 2)

        // Existing objects in nested values are linked, not copied.
        let rex = try realm.write { realm.create(Dog.self, value: ["id": 6, "name": "Rex"]) }
        try realm.write { realm.create(Person.self, value: ["Kim", 40, Date(timeIntervalSince1970: 0), [rex, fido], NSNull()]) }
        #expect(rex.owners.first?.name == "Kim")
        #expect(realm.objects(Dog.self).count == 6)

        // As in RealmSwift, a shorter array leaves the rest at their defaults; a longer one is an error.
        let short = try realm.write { realm.create(Dog.self, value: [7, "Short"]) }
        #expect(short.name == "Short" && short.age == 0 && short.owner == nil)
        #expect(throws: AtollError.self) { try realm.write { realm.create(Dog.self, value: [8, "Long", 1, NSNull(), [], "extra"]) } }
    }

    @Test func partialUpdateByPrimaryKeyLeavesOtherPropertiesUnchanged() throws {
        let realm = try Realm(configuration: freshConfiguration([Contact.self]))
        try realm.write { realm.create(Contact.self, value: ["id": 1, "name": "Ann", "email": "ann@x", "score": 5, "numbers": [1, 2]]) }
        try realm.write { realm.create(Contact.self, value: ["id": 1, "score": 9], update: .modified) }
        let ann = try #require(realm.object(ofType: Contact.self, forPrimaryKey: 1))
        #expect(ann.score == 9)
        #expect(ann.name == "Ann" && ann.email == "ann@x" && Array(ann.numbers) == [1, 2])
        // NSNull is a value: it clears an optional property.
        try realm.write { realm.create(Contact.self, value: ["id": 1, "email": NSNull()], update: .all) }
        #expect(ann.email == nil)
        #expect(ann.name == "Ann")
        // Updating creates when the key is new.
        try realm.write { realm.create(Contact.self, value: ["id": 2, "name": "Bo"], update: .modified) }
        #expect(realm.objects(Contact.self).count == 2)
    }

    @Test func aMissingRequiredValueWithoutADeclaredDefaultIsAnErrorNamingIt() throws {
        let realm = try Realm(configuration: freshConfiguration([Town.self]))
        do {
            try realm.write { realm.create(Town.self, value: ["id": 1, "population": 3]) }
            Issue.record("a missing required value must fail")
        } catch let e as AtollError {
            #expect(e.kind == .requiredValueMissing)
            #expect(e.message.contains("city"))
        }
        try realm.write { realm.create(Town.self, value: ["id": 1, "city": "Visby"]) }
        #expect(realm.object(ofType: Town.self, forPrimaryKey: 1)?.population == 0, "a declared default fills a missing value")
        // A partial update needs only the primary key.
        try realm.write { realm.create(Town.self, value: ["id": 1, "population": 24_000], update: .modified) }
        #expect(realm.object(ofType: Town.self, forPrimaryKey: 1)?.city == "Visby")
    }

    @Test func jsonFromJSONSerializationCreatesObjects() throws {
        let realm = try Realm(configuration: freshConfiguration([Town.self, Contact.self]))
        let json = try JSONSerialization.jsonObject(with: Data(#"""
            [{"id": 1, "city": "Lund", "population": 91940, "mayor": null, "country": "SE"},
             {"id": 2, "city": "Kiruna", "population": 17002.0, "mayor": "Mats"}]
            """#.utf8))
        let towns = try #require(json as? [Any])
        try realm.write { for t in towns { realm.create(Town.self, value: t, update: .modified) } }
        #expect(realm.objects(Town.self).sorted(byKeyPath: "id").map(\.city) == ["Lund", "Kiruna"])
        #expect(realm.object(ofType: Town.self, forPrimaryKey: 2)?.population == 17002)
        #expect(realm.object(ofType: Town.self, forPrimaryKey: 2)?.mayor == "Mats")

        let nested = try JSONSerialization.jsonObject(with: Data(#"{"id": 1, "name": "Ann", "friends": [{"id": 2, "name": "Bo"}], "numbers": [1, 2, 3]}"#.utf8))
        try realm.write { realm.create(Contact.self, value: nested) }
        let ann = try #require(realm.object(ofType: Contact.self, forPrimaryKey: 1))
        #expect(ann.friends.first?.name == "Bo")
        #expect(Array(ann.numbers) == [1, 2, 3])

        for bad in [#"{"id": 3, "population": 1}"#, #"{"id": 3, "city": null}"#, #"{"id": 3, "city": 12}"#] {
            let value = try JSONSerialization.jsonObject(with: Data(bad.utf8))
            do {
                try realm.write { realm.create(Town.self, value: value) }
                Issue.record("\(bad) must fail")
            } catch let e as AtollError {
                #expect(e.message.contains("city"), "\(e.message)")
            }
        }
        #expect(realm.objects(Town.self).count == 2)
    }

    @Test func anObjectIsCopiedFromOneRealmIntoAnother() throws {
        let source = try Realm(configuration: freshConfiguration())
        let target = try Realm(configuration: freshConfiguration())
        try source.write {
            let ann = source.create(Person.self, value: ["name": "Ann", "age": 40, "dogs": [["id": 1, "name": "Rex", "tags": ["a"]]]])
            source.objects(Dog.self).first?.owner = ann
        }
        let ann = try #require(source.object(ofType: Person.self, forPrimaryKey: "Ann"))
        // add refuses an object managed by another realm.
        #expect(throws: AtollError.self) { try target.write { target.add(ann) } }
        let copy = try target.write { target.create(Person.self, value: ann) }
        #expect(copy.realm === target)
        #expect(copy.age == 40)
        #expect(copy.dogs.first?.name == "Rex")
        #expect(Array(copy.dogs.first?.tags ?? List()) == ["a"])
        #expect(copy.dogs.first?.owner?.name == "Ann", "links between copied objects are kept (the cycle is copied once)")
        #expect(target.objects(Person.self).count == 1)
        #expect(target.objects(Dog.self).count == 1)
        #expect(source.objects(Dog.self).count == 1)
        try target.write { copy.age = 41 }
        #expect(ann.age == 40, "the copy is independent")
    }
}

@Suite struct DeleteTests {
    func populated() throws -> Realm {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write {
            realm.create(Person.self, value: ["name": "Ann", "dogs": [["id": 1], ["id": 2], ["id": 3]]])
            for i in 4...6 { realm.create(Dog.self, value: ["id": i, "age": i]) }
            realm.create(Book.self, value: ["title": "B"])
        }
        return realm
    }

    @Test func deleteAnObjectASequenceResultsAListAndEverything() throws {
        let realm = try populated()
        let four = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 4))
        try realm.write { realm.delete(four) }
        #expect(four.isInvalidated)
        #expect(realm.objects(Dog.self).count == 5)

        let ann = try #require(realm.object(ofType: Person.self, forPrimaryKey: "Ann"))
        try realm.write { realm.delete(ann.dogs) }
        #expect(ann.dogs.isEmpty)
        #expect(realm.objects(Dog.self).map(\.id) == [5, 6])

        try realm.write { realm.delete([realm.object(ofType: Dog.self, forPrimaryKey: 5)].compactMap { $0 }) }
        try realm.write { realm.delete(realm.objects(Dog.self).filter("age > 5")) }
        #expect(realm.objects(Dog.self).isEmpty)

        try realm.write { realm.deleteAll() }
        #expect(realm.isEmpty)
        #expect(ann.isInvalidated)
    }

    @Test func deletingAnUnmanagedOrDeletedObjectIsAnError() throws {
        let realm = try populated()
        #expect(throws: AtollError.self) { try realm.write { realm.delete(Dog()) } }
        let four = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 4))
        try realm.write { realm.delete(four) }
        #expect(throws: AtollError.self) { try realm.write { realm.delete(four) } }
    }

    @Test func deletingNullifiesLinksAndRemovesFromLists() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write {
            let rex = realm.create(Dog.self, value: ["id": 1, "name": "Rex"])
            let ann = realm.create(Person.self, value: ["name": "Ann", "dogs": [rex, ["id": 2], rex]])
            realm.create(Dog.self, value: ["id": 3, "owner": ann])
            realm.create(Book.self, value: ["title": "T", "author": ann])
        }
        let ann = try #require(realm.object(ofType: Person.self, forPrimaryKey: "Ann"))
        #expect(ann.dogs.map(\.id) == [1, 2, 1])
        try realm.write { realm.delete(realm.object(ofType: Dog.self, forPrimaryKey: 1)!) }
        #expect(ann.dogs.map(\.id) == [2], "every occurrence is removed from lists")
        try realm.write { realm.delete(ann) }
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 3)?.owner == nil)
        #expect(realm.objects(Book.self).first?.author == nil)
    }
}

@Suite struct KeyValueCodingTests {
    @Test func valueForKeyAndSetValueOnObjects() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Rex", "tags": ["a"]]) }
        let rex = try #require(realm.objects(Dog.self).first)
        #expect(rex.value(forKey: "name") as? String == "Rex")
        #expect(rex["age"] as? Int == 0)
        #expect((rex.value(forKey: "tags") as? List<String>).map(Array.init) == ["a"])
        #expect(rex.value(forKey: "nope") == nil)
        try realm.write {
            rex.setValue("Rexy", forKey: "name")
            rex["age"] = 4
            rex.setValue(["b", "c"], forKey: "tags")
        }
        #expect(rex.name == "Rexy" && rex.age == 4 && Array(rex.tags) == ["b", "c"])
        #expect(throws: AtollError.self) { try realm.write { rex.setValue(1, forKey: "nope") } }
    }

    @Test func keyPathsFollowLinks() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 1, "owner": ["name": "Ann", "age": 30]]) }
        let rex = try #require(realm.objects(Dog.self).first)
        #expect(rex.value(forKeyPath: "owner.name") as? String == "Ann")
        try realm.write { rex.setValue(31, forKeyPath: "owner.age") }
        #expect(rex.owner?.age == 31)
    }

    @Test func resultsAndListsGetAndSetInBulk() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Person.self, value: ["name": "Ann", "dogs": [["id": 1, "name": "a"], ["id": 2, "name": "b"]]]) }
        let dogs = realm.objects(Dog.self)
        try realm.write { dogs.setValue(3, forKey: "age") }
        #expect(dogs.map(\.age) == [3, 3])
        let ann = try #require(realm.objects(Person.self).first)
        #expect(ann.dogs.value(forKey: "name").compactMap { $0 as? String } == ["a", "b"])
        try realm.write { ann.dogs.setValue("same", forKey: "name") }
        #expect(dogs.map(\.name) == ["same", "same"])
    }
}
