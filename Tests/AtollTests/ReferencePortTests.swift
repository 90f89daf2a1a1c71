import Atoll
import Foundation
import Testing
import AtollTestSupport

// The remaining examples of the reference documents (../shared/reference), one test each,
// in the order they appear. ReferenceExampleTests and MigrationTests hold the others.

// MARK: models of the examples

/// 002: a Dog with a color, created from a dictionary or an array.
final class TanDog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var color = ""
}

/// 002/003: a Person created from nested arrays: name, age, dogs.
final class Owner: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var dogs: List<TanDog>
}

/// 002: "Jane" with inline dogs and no age.
final class Walker: Object {
    @Persisted var name = ""
    @Persisted var dogs: List<TanDog>
}

/// 002/003: indexed title through `indexedProperties()`.
final class IndexedBook: Object {
    @Persisted var price = 0
    @Persisted var title = ""
    override class func indexedProperties() -> [String] { ["title"] }
}

/// 002/003: `tmpID` ignored, `name` read-only (computed), so not stored.
final class NamedPerson: Object {
    @Persisted var tmpID = 0
    var name: String { "\(firstName) \(lastName)" }
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    override class func ignoredProperties() -> [String] { ["tmpID"] }
}

/// 002: the supported predicate operators, on companies and employees.
final class Company: Object {
    @Persisted var name = ""
    @Persisted var ceo: Employee?
    @Persisted var employees: List<Employee>
}

final class Employee: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var salary = 0.0
    @Persisted var hired = Date(timeIntervalSince1970: 0)
}

/// 002: the Persons of the KVC example.
final class Planetary: Object {
    @Persisted var name = ""
    @Persisted var isFirst = false
    @Persisted var planet = ""
}

/// 003: composition instead of polymorphism: a Duck has an Animal.
final class AnimalPart: Object {
    @Persisted var age = 0
}

final class WaterDuck: Object {
    @Persisted var animal: AnimalPart?
    @Persisted var name = ""
}

/// 003: a person whose address is reached through links.
final class Address: Object {
    @Persisted var country = ""
}

final class Resident2: Object {
    @Persisted var name = ""
    @Persisted var address: Address?
    @Persisted var pets: List<TanDog>
}

/// 004: users and cars, with an inverse link.
final class CarUser: Object {
    @Persisted(primaryKey: true) var accid = ""
    @Persisted var custId = 0
    @Persisted var custName = ""
    @Persisted var avatarBig: String?
    @Persisted var cars: List<Car>
}

final class Car: Object {
    @Persisted var carName = "测试"
    @Persisted var owner: CarUser?
    @Persisted(originProperty: "cars") var owners: LinkingObjects<CarUser>
}

/// 004: students and books, many to many, with `owners` as the inverse.
final class Student: Object {
    @Persisted(primaryKey: true) var idCard = ""
    @Persisted var name = ""
    @Persisted var books: List<Textbook>
}

final class Textbook: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted(originProperty: "books") var owners: LinkingObjects<Student>
}

/// 004: no auto-increment: a unique string key by default.
final class Entry: Object {
    @Persisted(primaryKey: true) var id = UUID().uuidString
    @Persisted var createdAt = Date()
    @Persisted var text = ""
}

/// 004: the limits (57-byte class names, 63-byte property names).
final class ThisClassNameIsLongerThanFiftySevenBytesWhichRealmDoesNotAllow: Object {
    @Persisted var x = 0
}

final class LongPropertyName: Object {
    @Persisted var thisPropertyNameIsLongerThanSixtyThreeBytesWhichIsMoreThanRealmAllows = 0
}

final class Blob: Object {
    @Persisted var bytes = Data()
    @Persisted var text = ""
    @Persisted var n = 0
}

@Suite struct ReferencePortTests {
    // MARK: 002, Realm Swift API notes

    @Test func indexedPropertiesOfABook() throws {
        let realm = try Realm(configuration: freshConfiguration([IndexedBook.self]))
        #expect(IndexedBook().objectSchema["title"]?.isIndexed == true)
        #expect(IndexedBook().objectSchema["price"]?.isIndexed == false)
        try realm.write { for i in 0..<50 { realm.create(IndexedBook.self, value: ["price": i, "title": "t\(i % 10)"]) } }
        #expect(realm.objects(IndexedBook.self).filter("title == 't3'").count == 5)
        #expect(realm.objects(IndexedBook.self).filter("title IN {'t1', 't2'}").count == 10)
    }

    @Test func ignoredAndReadOnlyPropertiesAreNotStored() throws {
        let realm = try Realm(configuration: freshConfiguration([NamedPerson.self]))
        #expect(NamedPerson().objectSchema.properties.filter { !$0.isIgnored }.map(\.name) == ["firstName", "lastName"])
        let p = NamedPerson(value: ["firstName": "Ada", "lastName": "Lovelace"])
        p.tmpID = 9
        try realm.write { realm.add(p) }
        #expect(p.name == "Ada Lovelace")
        #expect(p.tmpID == 9)
        let again = try #require(realm.objects(NamedPerson.self).first)
        #expect(again.tmpID == 0)
        again.tmpID = 3   // an ignored property needs no write transaction
        #expect(again.tmpID == 3)
    }

    @Test func creatingObjectsThreeWays() throws {
        let myDog = TanDog()
        myDog.name = "Rex"
        myDog.age = 10
        let myOtherDog = TanDog(value: ["name": "Pluto", "age": 3])
        let myThirdDog = TanDog(value: ["Fido", 5])
        #expect([myDog.name, myOtherDog.name, myThirdDog.name] == ["Rex", "Pluto", "Fido"])
        #expect([myDog.age, myOtherDog.age, myThirdDog.age] as [Int] == [10, 3, 5])

        // Nested objects: existing dogs, or dogs created inline.
        let aDog = TanDog(value: ["Buster", 5])
        let anotherDog = TanDog(value: ["Buddy", 6])
        let aPerson = Owner(value: ["Jane", 30, [aDog, anotherDog]])
        let anotherPerson = Walker(value: ["Jane", [["Buster", 5], ["Buddy", 6]]])
        #expect(aPerson.dogs.map(\.name) == ["Buster", "Buddy"])
        #expect(anotherPerson.dogs.map(\.age) == [5, 6])
        let realm = try Realm(configuration: freshConfiguration([Owner.self, Walker.self]))
        try realm.write {
            realm.add(aPerson)
            realm.add(anotherPerson)
        }
        #expect(realm.objects(TanDog.self).count == 4)
        #expect(realm.objects(Walker.self).first?.dogs.last?.name == "Buddy")
    }

    @Test func keyValueCodingWithKeyPaths() throws {
        let realm = try Realm(configuration: freshConfiguration([Planetary.self]))
        try realm.write { for n in ["a", "b"] { realm.create(Planetary.self, value: ["name": n]) } }
        let persons = realm.objects(Planetary.self)
        try realm.write {
            persons.first?.setValue(true, forKeyPath: "isFirst")
            // set each person's planet property to "Earth"
            persons.setValue("Earth", forKeyPath: "planet")
        }
        #expect(persons.map(\.isFirst) == [true, false])
        #expect(persons.value(forKeyPath: "planet") as? [String] == ["Earth", "Earth"])
    }

    @Test func queriesWithTheSupportedOperators() throws {
        let realm = try Realm(configuration: freshConfiguration([Company.self, TanDog.self]))
        let day = 86_400.0
        try realm.write {
            realm.create(Company.self, value: ["name": "Big", "ceo": ["name": "Lisa", "age": 45, "salary": 9.5],
                                                "employees": (0..<6).map { ["name": "e\($0)", "age": 18 + $0 * 5, "salary": Double($0),
                                                                            "hired": Date(timeIntervalSince1970: Double($0) * day)] }])
            realm.create(Company.self, value: ["name": "Small", "employees": [["name": "Spike", "age": 30], ["name": "Hachi", "age": 20]]])
            for (name, color) in [("Bella", "tan"), ("Bo", "tan"), ("Max", "tan"), ("Buddy", "black")] {
                realm.create(TanDog.self, value: ["name": name, "color": color])
            }
        }
        let companies = realm.objects(Company.self)
        let employees = realm.objects(Employee.self)
        #expect(employees.filter("age == 45").map(\.name) == ["Lisa"])
        #expect(employees.filter("age >= 38 AND age < 45").map(\.name) == ["e4", "e5"])
        #expect(employees.filter("age BETWEEN {20, 30}").count == 4)
        #expect(employees.filter("salary > 4.5").count == 2)
        #expect(employees.filter("hired > %@", Date(timeIntervalSince1970: 3.5 * day)).count == 2)
        #expect(employees.filter("name != 'Lisa' AND NOT name BEGINSWITH 'e'").count == 2)
        #expect(employees.filter("name CONTAINS[c] 'ISA'").count == 1)
        #expect(employees.filter("name ENDSWITH 'ke'").map(\.name) == ["Spike"])
        #expect(employees.filter("name IN {'Lisa', 'Spike', 'Hachi'}").count == 3)
        #expect(companies.filter("ceo == nil").map(\.name) == ["Small"])
        #expect(companies.filter("ceo.name == %@", "Lisa").count == 1)
        #expect(companies.filter("ANY employees.age < 21").count == 2)
        #expect(companies.filter("employees.@count > 5").map(\.name) == ["Big"])
        #expect(companies.filter("employees.@max.age > 40").map(\.name) == ["Big"])
        #expect(companies.filter("employees.@avg.age == 25").map(\.name) == ["Small"])
        #expect(companies.filter("employees.@sum.salary == 15").map(\.name) == ["Big"])
        #expect(companies.filter("employees.@min.age == 18").map(\.name) == ["Big"])
        #expect(companies.filter("SUBQUERY(employees, $e, $e.age > 25).@count == 1").map(\.name) == ["Small"])
        let tanDogs = realm.objects(TanDog.self).filter("color = 'tan' AND name BEGINSWITH 'B'")
        #expect(tanDogs.count == 2)
        #expect(realm.objects(TanDog.self).filter("color = %@ AND name BEGINSWITH %@", "tan", "B").count == 2)
        #expect(realm.objects(TanDog.self).filter("color = 'tan'").filter("name BEGINSWITH 'B'").count == 2)
        #expect(tanDogs.sorted(byKeyPath: "name").map(\.name) == ["Bella", "Bo"])
        #expect(tanDogs.sorted(byKeyPath: "name", ascending: false).map(\.name) == ["Bo", "Bella"])
    }

    @Test func aDefaultConfigurationPerUser() throws {
        let dir = TemporaryDirectory()
        let saved = Realm.Configuration.defaultConfiguration
        defer { Realm.Configuration.defaultConfiguration = saved }
        func setDefaultRealmForUser(_ username: String) {
            var config = Realm.Configuration(objectTypes: [TanDog.self])
            // The default directory, but the file named after the user.
            config.fileURL = URL(fileURLWithPath: dir.path).appendingPathComponent("\(username).atoll")
            Realm.Configuration.defaultConfiguration = config
        }
        setDefaultRealmForUser("ann")
        do {
            let realm = try Realm()
            try realm.write { realm.create(TanDog.self, value: ["name": "ann's"]) }
        }
        setDefaultRealmForUser("bo")
        #expect(try Realm().objects(TanDog.self).isEmpty)
        setDefaultRealmForUser("ann")
        #expect(try Realm().objects(TanDog.self).first?.name == "ann's")
        #expect(FileManager.default.fileExists(atPath: dir.file("ann.atoll")))
    }

    @Test func classSubsets() throws {
        let config = Realm.Configuration(inMemoryIdentifier: "subset-\(UUID())", objectTypes: [TanDog.self])
        let realm = try Realm(configuration: config)
        try realm.write { realm.create(TanDog.self, value: ["name": "in"]) }
        #expect(realm.schema.map(\.className) == ["TanDog"])
        do {
            try realm.write { realm.create(Employee.self, value: ["name": "out"]) }
            Issue.record("a class outside objectTypes must be refused")
        } catch let e as AtollError {
            #expect(e.message.contains("objectTypes"))
        }
    }

    @Test func objectsAreSharedBetweenThreadsByPrimaryKeyOrQuery() throws {
        let config = freshConfiguration([Student.self])
        let realm = try Realm(configuration: config)
        try realm.write { realm.create(Student.self, value: ["idCard": "20191120", "name": "Li"]) }
        let found = StringLog()
        onAnotherThread {
            guard let other = try? Realm(configuration: config) else { return }
            found.append(other.object(ofType: Student.self, forPrimaryKey: "20191120")?.name ?? "nil")
            found.append(other.objects(Student.self).filter("name == 'Li'").first?.idCard ?? "nil")
        }
        #expect(found.values == ["Li", "20191120"])
    }

    // MARK: 003, Realm Objective-C guide

    @Test func nestedPropertiesAreReadThroughLinks() throws {
        let realm = try Realm(configuration: freshConfiguration([Resident2.self]))
        try realm.write { realm.create(Resident2.self, value: ["name": "Jim", "address": ["country": "SE"]]) }
        let jim = try #require(realm.objects(Resident2.self).first)
        #expect(jim.address?.country == "SE")
        #expect(realm.objects(Resident2.self).filter("address.country == 'SE'").count == 1)
    }

    @Test func aListTakesResultsAndSingleObjects() throws {
        let realm = try Realm(configuration: freshConfiguration([Resident2.self]))
        try realm.write {
            for name in ["Fido", "Fido Jr", "Rex"] { realm.create(TanDog.self, value: ["name": name]) }
            realm.create(Resident2.self, value: ["name": "Jim"])
        }
        let jim = try #require(realm.objects(Resident2.self).first)
        let rex = try #require(realm.objects(TanDog.self).filter("name == 'Rex'").first)
        try realm.write {
            // jim is the owner of rex and of every dog whose name contains "Fido"
            let someDogs = realm.objects(TanDog.self).filter("name contains 'Fido'")
            jim.pets.append(objectsIn: someDogs)
            jim.pets.append(rex)
        }
        #expect(jim.pets.map(\.name) == ["Fido", "Fido Jr", "Rex"])
    }

    @Test func compositionInsteadOfInheritance() throws {
        let duck = WaterDuck(value: ["animal": ["age": 3], "name": "Gustav"])
        #expect(duck.animal?.age == 3)
        let realm = try Realm(configuration: freshConfiguration([WaterDuck.self]))
        try realm.write { realm.add(duck) }
        #expect(realm.objects(AnimalPart.self).first?.age == 3)
        #expect(realm.objects(WaterDuck.self).filter("animal.age == 3").first?.name == "Gustav")
    }

    @Test func genericCodeOverEveryRealmCollection() throws {
        func describe<C: RealmCollection>(_ collection: C) -> String { "\(collection.count) \(collection.objectClassName)" }
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Person.self, value: ["name": "Ann", "dogs": [["id": 1], ["id": 2]]]) }
        let ann = try #require(realm.objects(Person.self).first)
        #expect(describe(realm.objects(Dog.self)) == "2 Dog")
        #expect(describe(ann.dogs) == "2 Dog")
        #expect(describe(ann.dogs[0].owners) == "1 Person")
        #expect(describe(ann.dogs.filter("id > 1")) == "1 Dog")
    }

    // MARK: 004, Realm overview

    @Test func aConfigurationWithEveryField() throws {
        let dir = TemporaryDirectory()
        let currentVersion: UInt64 = 1
        let config = Realm.Configuration(fileURL: URL(fileURLWithPath: dir.file("db.atoll")), readOnly: false, schemaVersion: currentVersion,
                                         migrationBlock: { _, oldSchemaVersion in _ = oldSchemaVersion < currentVersion },
                                         objectTypes: [CarUser.self, Car.self])
        let realm = try Realm(configuration: config)
        #expect(realm.configuration.schemaVersion == 1)
        #expect(Set(realm.schema.map(\.className)) == ["CarUser", "Car"])
    }

    @Test func usersCarsAndTheirInverseLink() throws {
        let realm = try Realm(configuration: freshConfiguration([CarUser.self, Car.self]))
        let car = Car()
        car.carName = "Lamborghini"
        let myOtherCar = Car(value: ["name": "Rolls-Royce"])   // "name" is not a property: ignored
        let myThirdCar = Car(value: ["BMW"])
        #expect(myOtherCar.carName == "测试", "the default value")
        #expect(myThirdCar.carName == "BMW")
        try realm.write {
            let user = realm.create(CarUser.self, value: ["accid": "a1", "custId": 7, "custName": "Wang"])
            user.cars.append(objectsIn: [car, myOtherCar, myThirdCar])
            car.owner = user
        }
        let user = try #require(realm.object(ofType: CarUser.self, forPrimaryKey: "a1"))
        #expect(user.cars.map(\.carName) == ["Lamborghini", "测试", "BMW"])
        #expect(car.owners.first?.custName == "Wang")
        #expect(car.owner?.accid == "a1")
        // Delete one, several, everything.
        try realm.write { realm.delete(myThirdCar) }
        try realm.write { realm.delete(realm.objects(Car.self).filter("carName == '测试'")) }
        #expect(user.cars.map(\.carName) == ["Lamborghini"])
        try realm.write { realm.deleteAll() }
        #expect(realm.isEmpty)
    }

    @Test func addOrUpdateOverwritesWhileCreateOrUpdateMerges() throws {
        let realm = try Realm(configuration: freshConfiguration([CarUser.self, Car.self]))
        try realm.write { realm.create(CarUser.self, value: ["accid": "a1", "custName": "Wang", "avatarBig": "big.png"]) }
        // Incremental: only the given keys change.
        try realm.write { realm.create(CarUser.self, value: ["accid": "a1", "custId": 9], update: .modified) }
        let user = try #require(realm.object(ofType: CarUser.self, forPrimaryKey: "a1"))
        #expect(user.custName == "Wang" && user.custId == 9 && user.avatarBig == "big.png")
        // Not incremental: every value of the object, nil included, replaces the stored one.
        try realm.write { realm.add(CarUser(value: ["accid": "a1", "custName": "Li"]), update: .modified) }
        #expect(user.custName == "Li" && user.custId == 0 && user.avatarBig == nil)
    }

    @Test func studentsAndBooks() throws {
        let config = freshConfiguration([Student.self, Textbook.self])
        let realm = try Realm(configuration: config)
        let student = Student()
        student.idCard = "20191120"
        try realm.write { realm.add(student, update: .modified) }
        let results = realm.objects(Student.self)
        #expect(results.count == 1)
        #expect(results.filter("idCard=%@", "20191120").count == 1)
        #expect(realm.object(ofType: Student.self, forPrimaryKey: "20191120") != nil)

        let student1 = Student()
        student1.idCard = "20191121"
        try realm.write { realm.add(student1, update: .modified) }
        #expect(results.count == 2)
        try realm.write { realm.delete(realm.objects(Student.self).filter("idCard=%@", "20191121")) }
        #expect(results.count == 1, "results update themselves")

        let book = Textbook()
        book.id = 1
        book.name = "语文"
        let book1 = Textbook()
        book1.id = 2
        book1.name = "数学"
        try realm.write {
            realm.add(book, update: .modified)
            realm.add(book1, update: .modified)
            student.books.append(book)
            student.books.append(book1)
        }
        #expect(student.books.map(\.name) == ["语文", "数学"])
        let owner = StringLog()
        onAnotherThread {
            guard let other = try? Realm(configuration: config) else { return }
            owner.append(other.object(ofType: Textbook.self, forPrimaryKey: 1)?.owners.first?.idCard ?? "nil")
        }
        #expect(owner.values == ["20191120"])
    }

    @Test func unmanagedObjectsCrossThreadsFreely() throws {
        let config = freshConfiguration([Student.self, Textbook.self])
        let student = UncheckedBox(Student(value: ["idCard": "x1", "name": "Unmanaged"]))
        onAnotherThread {
            guard let realm = try? Realm(configuration: config) else { return }
            _ = try? realm.write { realm.add(student.value, update: .modified) }
        }
        #expect(try Realm(configuration: config).object(ofType: Student.self, forPrimaryKey: "x1")?.name == "Unmanaged")
    }

    @Test func uniqueStringKeysInsteadOfAutoIncrement() throws {
        let realm = try Realm(configuration: freshConfiguration([Entry.self]))
        try realm.write { for i in 0..<10 { realm.create(Entry.self, value: ["text": "e\(i)"]) } }
        #expect(Set(realm.objects(Entry.self).map(\.id)).count == 10)
        #expect(realm.objects(Entry.self).sorted(byKeyPath: "createdAt").count == 10)
    }

    @Test func limitsOfNamesAndValues() throws {
        for type in [ThisClassNameIsLongerThanFiftySevenBytesWhichRealmDoesNotAllow.self, LongPropertyName.self] as [Object.Type] {
            do {
                _ = try Realm(configuration: freshConfiguration([type]))
                Issue.record("\(type) must be refused")
            } catch let e as AtollError {
                #expect(e.message.contains("57") || e.message.contains("63"), "\(e.message)")
            }
        }
        let realm = try Realm(configuration: freshConfiguration([Blob.self]))
        let limit = 16 * 1024 * 1024
        try realm.write { realm.create(Blob.self, value: ["bytes": Data(count: limit - 64)]) }
        do {
            try realm.write { realm.create(Blob.self, value: ["bytes": Data(count: limit + 1)]) }
            Issue.record("a value over 16 MiB must be refused")
        } catch let e as AtollError {
            #expect(e.kind == .limitExceeded)
        }
        #expect(realm.objects(Blob.self).count == 1)
    }

    @Test func writeCopyMakesACompactedCopy() throws {
        let dir = TemporaryDirectory()
        let realm = try Realm(configuration: .init(fileURL: URL(fileURLWithPath: dir.file("big.atoll")), objectTypes: [Blob.self]))
        try realm.write { for i in 0..<200 { realm.create(Blob.self, value: ["text": String(repeating: "x", count: 2000 + i), "n": i]) } }
        try realm.write { realm.delete(realm.objects(Blob.self).filter("n > 10")) }
        let copy = URL(fileURLWithPath: dir.file("copy.atoll"))
        try realm.writeCopy(toFile: copy)
        let opened = try Realm(configuration: .init(fileURL: copy, objectTypes: [Blob.self]))
        #expect(opened.objects(Blob.self).count == 11)
        let sizes = try [dir.file("big.atoll"), copy.path].map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int ?? 0 }
        #expect(sizes[1] < sizes[0])
    }

    @Test func observersCannotBeRegisteredInsideAWrite() throws {
        let (status, stderr) = try ObjectHelper.run(["observe-in-write"])
        #expect(status.bySignal || status.code != 0)
        #expect(stderr.contains("inside a write transaction"), "\(stderr)")
    }
}
