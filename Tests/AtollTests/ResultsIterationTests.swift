import Atoll
import Foundation
import Testing

/// Iterating `Results` reuses an object the caller has released; these check that reuse is
/// never visible, and that iteration survives writes made inside the loop.
@Suite struct ResultsIterationTests {
    private func realmWithDogs(_ n: Int) throws -> Realm {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write {
            for i in 0..<n { realm.create(Dog.self, value: ["id": i, "name": "dog\(i)", "age": i % 7]) }
        }
        return realm
    }

    @Test func objectsKeptByTheCallerKeepTheirIdentityAndValues() throws {
        let realm = try realmWithDogs(600)
        var kept: [Dog] = []
        for dog in realm.objects(Dog.self) { kept.append(dog) }
        #expect(kept.map(\.id) == Array(0..<600))
        #expect(Set(kept.map(ObjectIdentifier.init)).count == 600, "every kept object is a distinct instance")
        #expect(kept.map(\.name) == (0..<600).map { "dog\($0)" })
    }

    @Test func objectsReleasedByTheCallerStillReadTheirOwnRow() throws {
        let realm = try realmWithDogs(600)
        var ids: [Int] = [], names: [String] = []
        for dog in realm.objects(Dog.self) {
            ids.append(dog.id)
            names.append(dog.name)
        }
        #expect(ids == Array(0..<600))
        #expect(names == (0..<600).map { "dog\($0)" })
        var filtered: [Int] = []
        for dog in realm.objects(Dog.self).filter("age == 3") { filtered.append(dog.id) }
        #expect(filtered == (0..<600).filter { $0 % 7 == 3 })
    }

    @Test func anObjectWithAWeakOrUnownedReferenceIsNotReused() throws {
        let realm = try realmWithDogs(10)
        weak var firstWeak: Dog?
        var unownedSecond: [Unmanaged<Dog>] = []
        var seen: [Int] = []
        var iterator = realm.objects(Dog.self).makeIterator()
        if let first = iterator.next() {
            firstWeak = first
            seen.append(first.id)
        }
        // The first object is referenced weakly only: it must not become the second.
        if let second = iterator.next() {
            seen.append(second.id)
            unownedSecond.append(Unmanaged.passRetained(second))
        }
        #expect(firstWeak == nil || firstWeak?.id == 0)
        while let dog = iterator.next() { seen.append(dog.id) }
        #expect(seen == Array(0..<10))
        #expect(unownedSecond[0].takeRetainedValue().id == 1, "a retained object keeps its row")
    }

    @Test func writingInsideTheLoopContinuesAfterTheLastObject() throws {
        let realm = try realmWithDogs(2_000)
        var visited: [Int] = []
        try realm.write {
            for dog in realm.objects(Dog.self) {
                visited.append(dog.id)
                dog.age = 100
                if dog.id == 500 {
                    // Deletes objects not visited yet and adds one at the end.
                    for id in 501..<600 { if let d = realm.object(ofType: Dog.self, forPrimaryKey: id) { realm.delete(d) } }
                    realm.create(Dog.self, value: ["id": 5_000, "name": "late", "age": 1])
                }
            }
        }
        #expect(visited == Array(0...500) + Array(600..<2_000) + [5_000])
        #expect(realm.objects(Dog.self).filter("age == 100").count == visited.count)
    }
}
