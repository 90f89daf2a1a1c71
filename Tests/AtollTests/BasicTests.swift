import Atoll
import Foundation
import Testing

@Suite struct BasicTests {
    @Test func unmanagedObjectsBehaveLikePlainObjects() {
        let dog = Dog()
        #expect(dog.name == "")
        dog.name = "Rex"
        dog.age = 3
        dog.tags.append("good")
        #expect(dog.name == "Rex")
        #expect(dog.age == 3)
        #expect(Array(dog.tags) == ["good"])
        #expect(dog.realm == nil)
        #expect(dog.owners.count == 0)
    }

    @Test func addReadUpdateDelete() throws {
        let realm = try Realm(configuration: freshConfiguration())
        let dog = Dog()
        dog.id = 1
        dog.name = "Rex"
        dog.age = 3
        dog.tags.append(contentsOf: ["a", "b"])
        try realm.write { realm.add(dog) }
        #expect(dog.realm === realm)
        #expect(dog.name == "Rex")
        #expect(Array(dog.tags) == ["a", "b"])
        let found = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 1))
        #expect(found.name == "Rex")
        #expect(found.age == 3)
        try realm.write { found.age = 4 }
        #expect(dog.age == 4, "every instance of the same object sees the change")
        #expect(realm.objects(Dog.self).count == 1)
        try realm.write { realm.delete(found) }
        #expect(realm.objects(Dog.self).count == 0)
        #expect(dog.isInvalidated)
    }

    @Test func filterAndSort() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write {
            for i in 0..<20 { realm.create(Dog.self, value: ["id": i, "name": "dog\(i % 5)", "age": i]) }
        }
        let young = realm.objects(Dog.self).filter("age < 5")
        #expect(young.count == 5)
        let sorted = realm.objects(Dog.self).filter("name == 'dog1'").sorted(byKeyPath: "age", ascending: false)
        #expect(sorted.map(\.age) == [16, 11, 6, 1])
        #expect(realm.objects(Dog.self).filter("name BEGINSWITH[c] 'DOG' AND age BETWEEN {3, 4}").count == 2)
        #expect(realm.objects(Dog.self).sum(ofProperty: "age") as Int == 190)
    }

    @Test func relationshipsAndInverse() throws {
        let realm = try Realm(configuration: freshConfiguration())
        let person = Person()
        person.name = "Ann"
        let dog = Dog()
        dog.id = 7
        dog.name = "Fido"
        person.dogs.append(dog)
        try realm.write { realm.add(person) }
        let fido = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 7))
        #expect(fido.owners.count == 1)
        #expect(fido.owners.first?.name == "Ann")
        #expect(realm.objects(Person.self).filter("ANY dogs.name == 'Fido'").count == 1)
        try realm.write { realm.delete(fido) }
        #expect(person.dogs.count == 0)
    }

    @Test func collectionNotificationsReportIndices() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { for i in 0..<5 { realm.create(Dog.self, value: ["id": i, "age": i]) } }
        let results = realm.objects(Dog.self).sorted(byKeyPath: "age")
        var changes: [([Int], [Int], [Int])] = []
        var initial = 0
        let token = results.observe { change in
            switch change {
            case .initial: initial += 1
            case .update(_, let d, let i, let m): changes.append((d, i, m))
            case .error: break
            }
        }
        try realm.write {
            realm.create(Dog.self, value: ["id": 10, "age": 10])
            realm.object(ofType: Dog.self, forPrimaryKey: 2)?.name = "two"
            if let zero = realm.object(ofType: Dog.self, forPrimaryKey: 0) { realm.delete(zero) }
        }
        #expect(initial == 1)
        #expect(changes.count == 1)
        #expect(changes.first?.0 == [0])
        #expect(changes.first?.1 == [4])
        #expect(changes.first?.2 == [1])
        token.invalidate()
    }

    @Test func invalidWriteThrowsAndRollsBack() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        #expect(throws: AtollError.self) {
            try realm.write {
                realm.create(Dog.self, value: ["id": 2])
                realm.create(Dog.self, value: ["id": 1])
            }
        }
        #expect(realm.objects(Dog.self).count == 1)
    }
}
