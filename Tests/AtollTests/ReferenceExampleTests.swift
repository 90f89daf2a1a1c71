import Atoll
import Foundation
import Testing

// Behaviour tests ported from the Realm documents in ../shared/reference (RealmSwift API notes
// in Chinese, a Swedish tutorial, the Objective-C guide and the Realm overview).

final class Book2: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var price = 0.0
    override class func className() -> String { "Book" }
}

final class Resident: Object {
    @Persisted var name = ""
    @Persisted var isFirst = false
    @Persisted var planet = ""
}

final class City: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var city = ""
    @Persisted var population: Int?
}

// The Swedish tutorial's models: User, Passport, Todo.
final class User: Object {
    @Persisted(primaryKey: true) var userId = ""
    @Persisted(indexed: true) var name = ""
    @Persisted var age: Int?
    @Persisted var passport: Passport?
    @Persisted var todos: List<Todo>
    var displayName: String { name.uppercased() }   // computed: not stored
}

final class Passport: Object {
    @Persisted(primaryKey: true) var number = ""
    @Persisted var expires = Date(timeIntervalSince1970: 0)
    @Persisted(originProperty: "passport") var holders: LinkingObjects<User>
}

final class Todo: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var done = false
    @Persisted(originProperty: "todos") var users: LinkingObjects<User>
}

@Suite struct ReferenceExampleTests {
    @Test func dogExampleAddQueryUpdate() throws {
        let realm = try Realm(configuration: freshConfiguration())
        let myDog = Dog()
        myDog.id = 1
        myDog.name = "Rex"
        myDog.age = 1
        try realm.write { realm.add(myDog) }
        let myPuppy = try #require(realm.objects(Dog.self).filter("age == 1").first)
        try realm.write { myPuppy.age = 2 }
        #expect(myDog.age == 2)
    }

    @Test func upsertByPrimaryKeyAndPartialUpdate() throws {
        let realm = try Realm(configuration: freshConfiguration([Book2.self]))
        try realm.write { realm.create(Book2.self, value: ["id": 1, "title": "Cheese recipes", "price": 10.0]) }
        let cheeseBook = Book2()
        cheeseBook.title = "Cheese recipes, 2nd edition"
        cheeseBook.price = 9000
        cheeseBook.id = 1
        try realm.write { realm.add(cheeseBook, update: .modified) }
        #expect(realm.objects(Book2.self).count == 1)
        #expect(realm.object(ofType: Book2.self, forPrimaryKey: 1)?.title == "Cheese recipes, 2nd edition")
        try realm.write { realm.create(Book2.self, value: ["id": 1, "price": 42.0], update: .modified) }
        let book = try #require(realm.object(ofType: Book2.self, forPrimaryKey: 1))
        #expect(book.price == 42)
        #expect(book.title == "Cheese recipes, 2nd edition", "a partial update leaves other properties unchanged")
        // Without an update policy, an existing primary key is an error and nothing is written.
        #expect(throws: AtollError.self) { try realm.write { realm.create(Book2.self, value: ["id": 1]) } }
    }

    @Test func keyValueCodingBulkSet() throws {
        let realm = try Realm(configuration: freshConfiguration([Resident.self]))
        try realm.write { for n in ["a", "b", "c"] { realm.create(Resident.self, value: ["name": n]) } }
        let persons = realm.objects(Resident.self)
        try realm.write {
            persons.first?.setValue(true, forKey: "isFirst")
            persons.setValue("Earth", forKey: "planet")
        }
        #expect(persons.filter("isFirst == true").count == 1)
        #expect(persons.value(forKey: "planet").compactMap { $0 as? String } == ["Earth", "Earth", "Earth"])
        #expect(persons.first?.value(forKey: "name") as? String == "a")
    }

    @Test func deletingObjectsListsResultsAndEverything() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write {
            let p = realm.create(Person.self, value: ["name": "Ann", "dogs": [["id": 1], ["id": 2], ["id": 3]]])
            realm.create(Dog.self, value: ["id": 4, "age": 9])
            realm.create(Book.self, value: ["title": "B"])
            _ = p
        }
        let ann = try #require(realm.object(ofType: Person.self, forPrimaryKey: "Ann"))
        try realm.write { realm.delete(ann.dogs) }
        #expect(realm.objects(Dog.self).count == 1)
        try realm.write { realm.delete(realm.objects(Dog.self).filter("age > 5")) }
        #expect(realm.objects(Dog.self).isEmpty)
        try realm.write { realm.deleteAll() }
        #expect(realm.isEmpty)
    }

    @Test func chainedFiltersSortingAndAggregates() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write {
            for (i, n) in ["Bella", "Bo", "Max", "Buddy", "Ben"].enumerated() {
                realm.create(Dog.self, value: ["id": i, "name": n, "age": i * 2, "tags": i % 2 == 0 ? ["tan"] : ["black"]])
            }
            realm.create(Person.self, value: ["name": "P", "dogs": [["id": 10], ["id": 11], ["id": 12], ["id": 13], ["id": 14], ["id": 15]]])
            realm.create(Person.self, value: ["name": "Q", "dogs": [["id": 20]]])
        }
        let tanDogs = realm.objects(Dog.self).filter("ANY tags == 'tan'").filter("name BEGINSWITH 'B'")
        #expect(tanDogs.sorted(byKeyPath: "name").map(\.name) == ["Bella", "Ben"])
        #expect(tanDogs.sorted(byKeyPath: "name", ascending: false).map(\.name) == ["Ben", "Bella"])
        #expect(realm.objects(Person.self).filter("dogs.@count > 5").map(\.name) == ["P"])
        #expect(realm.objects(Person.self).filter("dogs.@count > %d", 0).count == 2)
        #expect(realm.objects(Dog.self).max(ofProperty: "age") as Int? == 8)
        #expect(realm.objects(Dog.self).average(ofProperty: "age") as Double? != nil)
    }

    @Test func resultsAutoUpdate() throws {
        let realm = try Realm(configuration: freshConfiguration())
        let puppies = realm.objects(Dog.self).filter("age < 2")
        #expect(puppies.count == 0)
        try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Fido", "age": 1]) }
        #expect(puppies.count == 1)
        // Limiting: read only the first objects.
        try realm.write { for i in 2..<20 { realm.create(Dog.self, value: ["id": i, "age": 1]) } }
        var names: [Int] = []
        for i in 0..<5 { names.append(puppies[i].id) }
        #expect(names.count == 5)
    }

    @Test func jsonFromJSONSerialization() throws {
        let realm = try Realm(configuration: freshConfiguration([City.self]))
        let data = Data(#"{"id": 7, "city": "Uppsala", "population": 230000, "unknownKey": true}"#.utf8)
        let json = try JSONSerialization.jsonObject(with: data)
        try realm.write { realm.create(City.self, value: json, update: .modified) }
        let city = try #require(realm.object(ofType: City.self, forPrimaryKey: 7))
        #expect(city.city == "Uppsala")
        #expect(city.population == 230000)
        let null = try JSONSerialization.jsonObject(with: Data(#"{"id": 8, "city": null}"#.utf8))
        do {
            try realm.write { realm.create(City.self, value: null) }
            Issue.record("null for a required property must fail")
        } catch let e as AtollError {
            #expect(e.message.contains("city"))
        }
        #expect(realm.object(ofType: City.self, forPrimaryKey: 8) == nil)
    }

    @Test func writesOnAnotherThreadAreSeenAfterRefresh() async throws {
        let config = freshConfiguration()
        let realm = try Realm(configuration: config)
        let all = realm.objects(Person.self)
        #expect(all.count == 0)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            defer { done.signal() }
            guard let background = try? Realm(configuration: config) else { return }
            for idx1 in 0..<10 {
                background.beginWrite()
                for idx2 in 0..<10 {
                    background.create(Person.self, value: ["name": "\(idx1)-\(idx2)", "birthdate": Date(timeIntervalSince1970: Double(idx2))])
                }
                try? background.commitWrite()
            }
        }
        done.wait()
        #expect(all.count == 0, "a realm reads its version until refreshed")
        realm.refresh()
        #expect(all.count == 100)
    }

    @Test func realmAndCollectionNotifications() throws {
        let realm = try Realm(configuration: freshConfiguration())
        var realmNotifications = 0
        let t1 = realm.observe { notification, _ in if notification == .didChange { realmNotifications += 1 } }
        var counts: [Int] = []
        let t2 = realm.objects(Person.self).filter("age > 5").observe { change in
            switch change {
            case .initial(let r): counts.append(r.count)
            case .update(let r, _, _, _): counts.append(r.count)
            case .error: break
            }
        }
        try realm.write { realm.create(Person.self, value: ["name": "old", "age": 40]) }
        try realm.write { realm.create(Person.self, value: ["name": "young", "age": 3]) }
        try realm.write(withoutNotifying: [t2]) { realm.create(Person.self, value: ["name": "quiet", "age": 50]) }
        #expect(realmNotifications == 3)
        #expect(counts == [0, 1])
        t1.invalidate()
        t2.invalidate()
    }

    @Test func objectNotificationsCarryTheChangedProperties() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 2, "name": "Rex"]) }
        let rex = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 2))
        var seen: [String] = []
        var deleted = false
        let token = rex.observe(keyPaths: ["name"]) { (change: ObjectChange<Dog>) in
            switch change {
            case .change(_, let properties): seen += properties.map { "\($0.name):\($0.oldValue as? String ?? "nil")->\($0.newValue as? String ?? "nil")" }
            case .deleted: deleted = true
            case .error: break
            }
        }
        try realm.write { rex.age = 5 }                // not a watched key path
        try realm.write { rex.name = "Rexy" }
        try realm.write { realm.delete(rex) }
        // Changes made on the observing thread carry no old value, as in RealmSwift.
        #expect(seen == ["name:nil->Rexy"])
        #expect(deleted)
        token.invalidate()
    }

    @Test func swedishTutorialUsersPassportsTodos() throws {
        let realm = try Realm(configuration: freshConfiguration([User.self, Passport.self, Todo.self]))
        let user = User()
        user.userId = "u1"
        user.name = "Astrid"
        user.age = nil
        user.passport = Passport(value: ["number": "SE123", "expires": Date(timeIntervalSince1970: 2_000_000_000)])
        user.todos.append(objectsIn: [Todo(value: ["id": 1, "title": "Fika"]), Todo(value: ["id": 2, "title": "Skriv kod", "done": true])])
        try realm.write { realm.add(user) }
        #expect(user.displayName == "ASTRID")
        #expect(user.objectSchema["displayName"] == nil, "computed properties are not persisted")
        let passport = try #require(realm.object(ofType: Passport.self, forPrimaryKey: "SE123"))
        #expect(passport.holders.first?.name == "Astrid")
        let fika = try #require(realm.object(ofType: Todo.self, forPrimaryKey: 1))
        #expect(fika.users.count == 1)
        #expect(realm.objects(User.self).filter("age == nil").count == 1)
        #expect(realm.objects(User.self).filter("ANY todos.done == true AND passport.number == 'SE123'").count == 1)
        #expect(realm.objects(Todo.self).filter("ANY users.name == %@", "Astrid").count == 2)
        try realm.write { user.age = 31 }
        #expect(realm.objects(User.self).filter("age > 30").first?.userId == "u1")
    }

    @Test func inMemoryRealmsAreSharedByIdentifierAndVanish() throws {
        let id = "shared-\(UUID())"
        let config = Realm.Configuration(inMemoryIdentifier: id, objectTypes: [Dog.self, Person.self])
        do {
            let a = try Realm(configuration: config)
            try a.write { a.create(Dog.self, value: ["id": 1]) }
            let b = try Realm(configuration: config)
            #expect(b.objects(Dog.self).count == 1)
        }
        let c = try Realm(configuration: config)
        #expect(c.objects(Dog.self).count == 0, "data of an in-memory realm goes when its last instance closes")
    }

    @Test func threadSafeReferencesCrossThreads() throws {
        let config = freshConfiguration()
        let realm = try Realm(configuration: config)
        try realm.write { realm.create(Dog.self, value: ["id": 5, "name": "Laika"]) }
        let dog = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 5))
        let ref = ThreadSafeReference(to: dog)
        let resultsRef = ThreadSafeReference(to: realm.objects(Dog.self).filter("name == 'Laika'"))
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            defer { done.signal() }
            guard let other = try? Realm(configuration: config) else { return }
            box.set(other.resolve(ref)?.name, other.resolve(resultsRef)?.count)
        }
        done.wait()
        #expect(box.name == "Laika")
        #expect(box.count == 1)
    }

    @Test func frozenObjectsAreReadableFromAnyThread() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Ice"]) }
        let frozen = realm.objects(Dog.self).freeze()
        try realm.write { realm.create(Dog.self, value: ["id": 2]) }
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            box.set(frozen.first?.name, frozen.count)
            done.signal()
        }
        done.wait()
        #expect(box.name == "Ice")
        #expect(box.count == 1)
    }

    @Test func wrongThreadUseThrows() throws {
        let realm = try Realm(configuration: freshConfiguration())
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        let handoff = UncheckedBox(realm)
        Thread {
            do { try handoff.value.write {} } catch let e as AtollError { box.set(e.kind.rawValue, 0) } catch {}
            done.signal()
        }.start()
        done.wait()
        #expect(box.name == "wrongThread")
    }
}

final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var name: String?
    private(set) var count: Int?
    func set(_ n: String?, _ c: Int?) { lock.lock(); name = n; count = c; lock.unlock() }
}
