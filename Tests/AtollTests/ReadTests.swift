import Atoll
import Foundation
import Testing

// Reads: live Results, lookups by primary key, auto-updating objects, lists and inverse links.

final class Item: Object {
    @Persisted(primaryKey: true) var id = ObjectId()
    @Persisted var name = ""
    @Persisted var price = 0.0
    @Persisted var weight: Float = 0
    @Persisted var stock = 0
    @Persisted var added = Date(timeIntervalSince1970: 0)
    @Persisted var category = ""
}

@Suite struct ResultsTests {
    func dogs() throws -> Realm {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write {
            for (i, name) in ["Rex", "Bella", "Max", "Ada", "Bo"].enumerated() {
                realm.create(Dog.self, value: ["id": i + 1, "name": name, "age": [3, 1, 3, 7, 1][i]])
            }
        }
        return realm
    }

    @Test func resultsAreLazyAndLive() throws {
        let realm = try Realm(configuration: freshConfiguration())
        let all = realm.objects(Dog.self)
        let puppies = all.filter("age < 2")
        #expect(all.count == 0 && puppies.isEmpty)
        try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Fido", "age": 1]) }
        #expect(all.count == 1)
        #expect(puppies.count == 1)
        #expect(puppies.first?.name == "Fido")
        try realm.write { all.first?.age = 5 }
        #expect(puppies.isEmpty, "results re-evaluate after every change")
    }

    @Test func countSubscriptFirstLastAndIteration() throws {
        let realm = try dogs()
        let all = realm.objects(Dog.self)
        #expect(all.count == 5)
        #expect(all[0].name == "Rex")
        #expect(all[4].name == "Bo")
        #expect(all.first?.name == "Rex")
        #expect(all.last?.name == "Bo")
        var names: [String] = []
        for dog in all { names.append(dog.name) }
        #expect(names == ["Rex", "Bella", "Max", "Ada", "Bo"])
        #expect(all.map(\.id) == [1, 2, 3, 4, 5])
        #expect(realm.objects(Dog.self).filter("age > 100").first == nil)
        #expect(realm.objects(Dog.self).filter("age > 100").last == nil)
    }

    @Test func filterWithArgumentsAndChaining() throws {
        let realm = try dogs()
        let all = realm.objects(Dog.self)
        #expect(all.filter("age == %d", 3).map(\.name) == ["Rex", "Max"])
        #expect(all.filter("name == %@ OR name == %@", "Ada", "Bo").count == 2)
        #expect(all.filter("name BEGINSWITH %@", "B").filter("age < %d", 2).map(\.name) == ["Bella", "Bo"])
        #expect(all.filter("name IN %@", ["Rex", "Ada"]).count == 2)
        #expect(throws: AtollError.self) { _ = try all.filter(throwing: "noSuchProperty == 1") }
    }

    @Test func sortingByKeyPathAndByDescriptors() throws {
        let realm = try dogs()
        let all = realm.objects(Dog.self)
        #expect(all.sorted(byKeyPath: "name").map(\.name) == ["Ada", "Bella", "Bo", "Max", "Rex"])
        #expect(all.sorted(byKeyPath: "name", ascending: false).map(\.name) == ["Rex", "Max", "Bo", "Bella", "Ada"])
        let byAgeThenName = all.sorted(by: [SortDescriptor(keyPath: "age", ascending: false), SortDescriptor(keyPath: "name")])
        #expect(byAgeThenName.map(\.name) == ["Ada", "Max", "Rex", "Bella", "Bo"])
        #expect(all.filter("age < 5").sorted(byKeyPath: "name").map(\.name) == ["Bella", "Bo", "Max", "Rex"])
        // Sorting through a link.
        try realm.write {
            realm.object(ofType: Dog.self, forPrimaryKey: 1)?.owner = realm.create(Person.self, value: ["name": "Zoe"])
            realm.object(ofType: Dog.self, forPrimaryKey: 2)?.owner = realm.create(Person.self, value: ["name": "Al"])
        }
        #expect(all.filter("owner != nil").sorted(byKeyPath: "owner.name").map(\.name) == ["Bella", "Rex"])
        // Sorted results stay sorted as objects change.
        let sorted = all.sorted(byKeyPath: "age")
        try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 4)?.age = 0 }
        #expect(sorted.first?.name == "Ada")
    }

    @Test func distinctKeepsTheFirstObjectOfEachValue() throws {
        let realm = try dogs()
        let ages = realm.objects(Dog.self).distinct(by: ["age"])
        #expect(ages.map(\.name) == ["Rex", "Bella", "Ada"])
        #expect(realm.objects(Dog.self).sorted(byKeyPath: "name").distinct(by: ["age"]).map(\.name) == ["Ada", "Bella", "Max"])
    }

    @Test func aggregates() throws {
        let realm = try Realm(configuration: freshConfiguration([Item.self]))
        let day = 86_400.0
        try realm.write {
            for (i, (price, stock)) in [(2.5, 10), (10.0, 0), (4.0, 5), (7.5, 1)].enumerated() {
                realm.create(Item.self, value: ["name": "i\(i)", "price": price, "weight": Float(i) + 0.5, "stock": stock,
                                                "added": Date(timeIntervalSince1970: Double(i) * day), "category": i % 2 == 0 ? "a" : "b"])
            }
        }
        let items = realm.objects(Item.self)
        #expect(items.min(ofProperty: "price") as Double? == 2.5)
        #expect(items.max(ofProperty: "price") as Double? == 10)
        #expect(items.sum(ofProperty: "price") as Double == 24)
        #expect(items.average(ofProperty: "price") as Double? == 6)
        #expect(items.sum(ofProperty: "stock") as Int == 16)
        #expect(items.min(ofProperty: "stock") as Int? == 0)
        #expect(items.max(ofProperty: "weight") as Float? == 3.5)
        #expect(items.sum(ofProperty: "weight") as Float == 8)
        #expect(items.max(ofProperty: "added") as Date? == Date(timeIntervalSince1970: 3 * day))
        #expect(items.min(ofProperty: "added") as Date? == Date(timeIntervalSince1970: 0))

        let a = items.filter("category == 'a'")
        #expect(a.sum(ofProperty: "stock") as Int == 15)
        #expect(a.average(ofProperty: "price") as Double? == 3.25)
        #expect(a.max(ofProperty: "price") as Double? == 4)

        let none = items.filter("stock > 100")
        #expect(none.min(ofProperty: "price") as Double? == nil)
        #expect(none.max(ofProperty: "added") as Date? == nil)
        #expect(none.sum(ofProperty: "price") as Double == 0)
        #expect(none.average(ofProperty: "price") as Double? == nil)
    }

    @Test func indexOfAnObject() throws {
        let realm = try dogs()
        let byName = realm.objects(Dog.self).sorted(byKeyPath: "name")
        let max = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 3))
        #expect(byName.index(of: max) == 3)
        #expect(realm.objects(Dog.self).filter("age == 1").index(of: max) == nil)
        #expect(byName.index(of: Dog()) == nil)
    }

    @Test func frozenResultsDoNotChangeAndThawBackToLiveResults() throws {
        let realm = try dogs()
        let live = realm.objects(Dog.self).filter("age == 1")
        let frozen = live.freeze()
        #expect(frozen.isFrozen && !live.isFrozen)
        try realm.write {
            realm.create(Dog.self, value: ["id": 10, "age": 1])
            realm.object(ofType: Dog.self, forPrimaryKey: 2)?.name = "Bellatrix"
        }
        #expect(live.count == 3)
        #expect(frozen.count == 2)
        #expect(frozen.map(\.name) == ["Bella", "Bo"])
        #expect(frozen.first?.isFrozen == true)
        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen)
        #expect(thawed.count == 3)
        #expect(thawed.first?.name == "Bellatrix")
    }

    @Test func objectForPrimaryKeyOfEachKeyType() throws {
        let realm = try Realm(configuration: freshConfiguration([Item.self, Dog.self, Person.self]))
        let id = ObjectId()
        try realm.write {
            realm.create(Item.self, value: ["id": id, "name": "by id"])
            realm.create(Dog.self, value: ["id": 42])
            realm.create(Person.self, value: ["name": "Ann"])
        }
        #expect(realm.object(ofType: Item.self, forPrimaryKey: id)?.name == "by id")
        #expect(realm.object(ofType: Item.self, forPrimaryKey: ObjectId()) == nil)
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 42)?.id == 42)
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 43) == nil)
        #expect(realm.object(ofType: Person.self, forPrimaryKey: "Ann") != nil)
        #expect(realm.object(ofType: Person.self, forPrimaryKey: "ann") == nil)
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: "not an int") == nil)
    }

    @Test func everyInstanceOfAnObjectSeesCommittedChanges() throws {
        let realm = try Realm(configuration: freshConfiguration())
        let myDog = Dog()
        myDog.id = 1
        myDog.name = "Fido"
        myDog.age = 1
        try realm.write { realm.add(myDog) }
        let viaQuery = try #require(realm.objects(Dog.self).filter("age == 1").first)
        let viaKey = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 1))
        try realm.write { viaQuery.age = 2 }
        #expect(myDog.age == 2)
        #expect(viaKey.age == 2)
        #expect(viaKey.isSameObject(as: myDog))
        #expect(!viaKey.isSameObject(as: Dog()))
    }
}

@Suite struct ListTests {
    @Test func aListKeepsOrderAndAllowsDuplicates() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write {
            let rex = realm.create(Dog.self, value: ["id": 1, "name": "Rex"])
            let bo = realm.create(Dog.self, value: ["id": 2, "name": "Bo"])
            let ann = realm.create(Person.self, value: ["name": "Ann"])
            ann.dogs.append(rex)
            ann.dogs.append(rex)
            ann.dogs.append(bo)
            ann.dogs.append(rex)
        }
        let ann = try #require(realm.objects(Person.self).first)
        #expect(ann.dogs.map(\.name) == ["Rex", "Rex", "Bo", "Rex"])
        #expect(ann.dogs[0].isSameObject(as: ann.dogs[1]))
        #expect(realm.objects(Dog.self).count == 2, "appending the same object again does not copy it")
        #expect(ann.dogs.index(of: ann.dogs[2]) == 2)
        #expect(ann.dogs.first?.owners.count == 3, "one inverse link per link, as Realm's backlinks")
    }

    @Test func listMutations() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 1, "tags": ["a", "b", "c"]]) }
        let dog = try #require(realm.objects(Dog.self).first)
        try realm.write {
            dog.tags.insert("x", at: 1)        // a x b c
            dog.tags.remove(at: 3)             // a x b
            dog.tags.move(from: 0, to: 2)      // x b a
            dog.tags.swapAt(0, 1)              // b x a
            dog.tags[2] = "z"                  // b x z
            dog.tags.append(contentsOf: ["z"]) // b x z z
        }
        #expect(Array(dog.tags) == ["b", "x", "z", "z"])
        try realm.write { dog.tags.removeLast() }
        #expect(Array(dog.tags) == ["b", "x", "z"])
        try realm.write { dog.tags.removeAll() }
        #expect(dog.tags.isEmpty)
        try realm.write { dog.setValue(["q"], forKey: "tags") }
        #expect(Array(dog.tags) == ["q"])
        try realm.write { dog.setValue(nil, forKey: "tags") }
        #expect(dog.tags.isEmpty, "assigning nil to a list empties it, as in Realm")
    }

    @Test func listsOfPrimitivesAggregateAndSort() throws {
        let realm = try Realm(configuration: freshConfiguration([AllTypes.self]))
        try realm.write { realm.create(AllTypes.self, value: ["id": 1, "ints": [5, 1, 4], "optDoubles": [2.0, nil, 1.0]]) }
        let o = try #require(realm.objects(AllTypes.self).first)
        #expect(o.ints.min() == 1)
        #expect(o.ints.max() == 5)
        #expect(o.ints.sum() == 10)
        #expect(o.ints.average() == 10.0 / 3)
        #expect(o.ints.sorted() == [1, 4, 5])
        #expect(o.ints.sorted(ascending: false) == [5, 4, 1])
        #expect(Array(o.optDoubles) == [2.0, nil, 1.0])
    }

    @Test func aListOfObjectsCanBeFilteredAndSorted() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write {
            realm.create(Person.self, value: ["name": "Ann", "dogs": [["id": 1, "name": "c", "age": 3], ["id": 2, "name": "a", "age": 1], ["id": 3, "name": "b", "age": 2]]])
            realm.create(Dog.self, value: ["id": 4, "name": "d", "age": 1])
        }
        let dogs = try #require(realm.objects(Person.self).first).dogs
        #expect(dogs.filter("age < 3").map(\.name) == ["a", "b"], "a filtered list keeps list order")
        #expect(dogs.sorted(byKeyPath: "name").map(\.name) == ["a", "b", "c"])
        #expect(dogs.asResults.sum(ofProperty: "age") as Int == 6)
    }

    @Test func aListOfADeletedObjectIsInvalidated() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Person.self, value: ["name": "Ann", "dogs": [["id": 1]]]) }
        let ann = try #require(realm.objects(Person.self).first)
        let dogs = ann.dogs
        #expect(!dogs.isInvalidated)
        #expect(dogs.realm === realm)
        try realm.write { realm.delete(ann) }
        #expect(dogs.isInvalidated)
    }
}

@Suite struct LinkingObjectsTests {
    @Test func linkingObjectsAreLive() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Rex"]) }
        let rex = try #require(realm.objects(Dog.self).first)
        let owners = rex.owners
        #expect(owners.isEmpty)
        try realm.write {
            realm.create(Person.self, value: ["name": "Ann", "age": 30, "dogs": [rex]])
            realm.create(Person.self, value: ["name": "Bo", "age": 20, "dogs": [rex]])
        }
        #expect(owners.count == 2)
        #expect(Set(owners.map(\.name)) == ["Ann", "Bo"])
        #expect(owners.filter("age > 25").map(\.name) == ["Ann"])
        #expect(owners.sorted(byKeyPath: "age").map(\.name) == ["Bo", "Ann"])
        try realm.write { realm.object(ofType: Person.self, forPrimaryKey: "Ann")?.dogs.removeAll() }
        #expect(owners.map(\.name) == ["Bo"])
        try realm.write { realm.delete(realm.objects(Person.self)) }
        #expect(owners.isEmpty)
    }

    @Test func unmanagedObjectsHaveNoLinkingObjects() {
        let rex = Dog()
        let ann = Person()
        ann.dogs.append(rex)
        #expect(rex.owners.isEmpty)
        #expect(rex.owners.realm == nil)
    }
}
