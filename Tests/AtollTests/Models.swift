import Atoll
import Foundation

final class Dog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var name = ""
    @Persisted var age = 0
    @Persisted var owner: Person?
    @Persisted var tags: List<String>
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
}

final class Person: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var age: Int?
    @Persisted var birthdate = Date(timeIntervalSince1970: 0)
    @Persisted var dogs: List<Dog>
    @Persisted var picture: Data?
}

final class Book: Object {
    @Persisted var title = ""
    @Persisted var price = 0.0
    @Persisted var author: Person?
    var computedTitle: String { title.uppercased() }
    var notPersisted = "ignored"
}

/// A configuration of a fresh in-memory realm for one test.
func freshConfiguration(_ types: [Object.Type] = [Dog.self, Person.self, Book.self], function: String = #function) -> Realm.Configuration {
    Realm.Configuration(inMemoryIdentifier: "\(function)-\(UUID().uuidString)", objectTypes: types)
}
