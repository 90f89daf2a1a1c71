@_spi(AtollTesting) import Atoll
@testable import AtollStorage
import Foundation
import Testing
import AtollTestSupport

// Notifications: realm, collection (Results, List, LinkingObjects) and object observers, exact
// change indices, tokens, delivery across threads, the async sequence form, skipping tokens.

/// Collection changes as plain values, for comparisons.
struct Change: Equatable, CustomStringConvertible {
    var deletions: [Int] = []
    var insertions: [Int] = []
    var modifications: [Int] = []
    var description: String { "d\(deletions) i\(insertions) m\(modifications)" }
}

/// Records what a collection observer receives.
final class ChangeLog<C>: @unchecked Sendable {
    private let lock = NSLock()
    private var _initial = 0
    private var _updates: [Change] = []
    private var _counts: [Int] = []
    private var _errors = 0

    var initial: Int { lock.withLock { _initial } }
    var updates: [Change] { lock.withLock { _updates } }
    var counts: [Int] { lock.withLock { _counts } }

    func record(_ change: RealmCollectionChange<C>, count: (C) -> Int) {
        lock.withLock {
            switch change {
            case .initial(let c): _initial += 1; _counts.append(count(c))
            case .update(let c, let d, let i, let m): _updates.append(Change(deletions: d, insertions: i, modifications: m)); _counts.append(count(c))
            case .error: _errors += 1
            }
        }
    }

    /// Waits (up to 10 s) until `condition` holds.
    func wait(until condition: (ChangeLog) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if condition(self) { return true }
            usleep(2_000)
        }
        return condition(self)
    }
}

@Suite struct RealmNotificationTests {
    @Test func realmObserversAreCalledAfterEveryCommitUntilInvalidated() throws {
        let config = freshConfiguration()
        let realm = try Realm(configuration: config)
        var calls: [Realm.Notification] = []
        let token = realm.observe { notification, r in
            #expect(r === realm)
            calls.append(notification)
        }
        try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        try realm.write { realm.create(Dog.self, value: ["id": 2]) }
        #expect(calls == [.didChange, .didChange])

        // A commit of another realm instance arrives when this realm refreshes.
        let other = try Realm(configuration: config)
        try other.write { other.create(Dog.self, value: ["id": 3]) }
        #expect(calls.count == 2)
        #expect(realm.refresh())
        #expect(calls.count == 3)
        #expect(!realm.refresh(), "nothing new")

        token.invalidate()
        try realm.write { realm.create(Dog.self, value: ["id": 4]) }
        #expect(calls.count == 3)
    }
}

@Suite(.timeLimit(.minutes(5 * Int(ThreadSanitizer.slowdown)))) struct CollectionNotificationTests {
    func realmWithDogs(_ ages: [Int]) throws -> Realm {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { for (i, age) in ages.enumerated() { realm.create(Dog.self, value: ["id": i, "name": "d\(i)", "age": age]) } }
        return realm
    }

    @Test func initialThenUpdatesWithExactIndicesForFilteredResults() throws {
        let realm = try realmWithDogs([1, 5, 2, 6, 3])
        let log = ChangeLog<Results<Dog>>()
        let young = realm.objects(Dog.self).filter("age < 4")     // ids 0, 2, 4
        let token = young.observe { log.record($0, count: \.count) }
        #expect(log.initial == 1)
        #expect(log.counts == [3])

        try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 2)?.name = "renamed" }
        try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 1)?.name = "not in the results" }
        try realm.write {
            realm.object(ofType: Dog.self, forPrimaryKey: 0)?.age = 10        // leaves: deletion at 0
            realm.object(ofType: Dog.self, forPrimaryKey: 3)?.age = 0         // enters
            realm.create(Dog.self, value: ["id": 9, "age": 1])               // enters at the end
        }
        try realm.write { realm.delete(realm.objects(Dog.self).filter("id == 4")) }
        #expect(log.updates == [
            Change(modifications: [1]),
            Change(deletions: [0], insertions: [1, 3]),
            Change(deletions: [2]),
        ])
        #expect(young.map(\.id) == [2, 3, 9])
        token.invalidate()
    }

    @Test func indicesOfSortedResultsFollowTheSortOrder() throws {
        let realm = try realmWithDogs([10, 20, 30, 40])
        let log = ChangeLog<Results<Dog>>()
        let sorted = realm.objects(Dog.self).sorted(byKeyPath: "age")
        let token = sorted.observe { log.record($0, count: \.count) }
        try realm.write { realm.create(Dog.self, value: ["id": 5, "age": 25]) }             // [10 20 25 30 40]
        try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 3)?.age = 5 }      // 40 moves to the front
        try realm.write { realm.object(ofType: Dog.self, forPrimaryKey: 0)?.age = 11 }     // stays in place
        #expect(log.updates == [
            Change(insertions: [2]),
            Change(deletions: [4], insertions: [0]),
            Change(modifications: [1]),
        ])
        #expect(sorted.map(\.age) == [5, 11, 20, 25, 30])
        token.invalidate()
    }

    @Test func keyPathsLimitWhichChangesCountAsModifications() throws {
        let realm = try realmWithDogs([1, 2])
        let log = ChangeLog<Results<Dog>>()
        let token = realm.objects(Dog.self).observe(keyPaths: ["name"]) { log.record($0, count: \.count) }
        try realm.write { realm.objects(Dog.self).first?.age = 7 }
        try realm.write { realm.objects(Dog.self).last?.name = "x" }
        #expect(log.updates == [Change(modifications: [1])])
        token.invalidate()
    }

    @Test func aChangeOfALinkedObjectIsAModification() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write {
            let ann = realm.create(Person.self, value: ["name": "Ann"])
            realm.create(Dog.self, value: ["id": 1, "owner": ann])
            realm.create(Dog.self, value: ["id": 2])
        }
        let log = ChangeLog<Results<Dog>>()
        let token = realm.objects(Dog.self).observe { log.record($0, count: \.count) }
        try realm.write { realm.objects(Person.self).first?.age = 40 }
        #expect(log.updates == [Change(modifications: [0])])
        token.invalidate()
    }

    @Test func listNotificationsReportPositionsInTheList() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Person.self, value: ["name": "Ann", "dogs": [["id": 1], ["id": 2], ["id": 3]]]) }
        let ann = try #require(realm.objects(Person.self).first)
        let log = ChangeLog<List<Dog>>()
        let token = ann.dogs.observe { log.record($0, count: \.count) }
        let rex = try realm.write { realm.create(Dog.self, value: ["id": 4]) }
        try realm.write { ann.dogs.insert(rex, at: 1) }                    // 1 4 2 3
        try realm.write { ann.dogs.append(rex) }                           // 1 4 2 3 4: a duplicate
        try realm.write { ann.dogs.remove(at: 0) }                         // 4 2 3 4
        try realm.write { ann.dogs[1].name = "two" }                       // a listed object changed
        try realm.write { rex.age = 3 }                                    // listed twice: two modifications
        try realm.write { ann.dogs.move(from: 2, to: 0) }                  // 3 4 2 4
        try realm.write { realm.delete(rex) }                              // 3 2
        #expect(log.updates == [
            Change(insertions: [1]),
            Change(insertions: [4]),
            Change(deletions: [0]),
            Change(modifications: [1]),
            Change(modifications: [0, 3]),
            Change(deletions: [2], insertions: [0]),
            Change(deletions: [1, 3]),
        ])
        #expect(ann.dogs.map(\.id) == [3, 2])
        token.invalidate()
    }

    @Test func listsOfPrimitivesAreObservedToo() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 1, "tags": ["a", "b", "c"]]) }
        let dog = try #require(realm.objects(Dog.self).first)
        let log = ChangeLog<List<String>>()
        let token = dog.tags.observe { log.record($0, count: \.count) }
        try realm.write { dog.tags[1] = "B" }
        try realm.write { dog.tags.append("a") }
        try realm.write { dog.tags.remove(at: 0) }
        try realm.write { dog.name = "unrelated" }
        try realm.write { dog.tags.removeAll() }
        #expect(log.updates == [
            Change(modifications: [1]),
            Change(insertions: [3]),
            Change(deletions: [0]),
            Change(deletions: [0, 1, 2]),
        ])
        token.invalidate()
    }

    @Test func linkingObjectsAreObserved() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        let rex = try #require(realm.objects(Dog.self).first)
        let log = ChangeLog<LinkingObjects<Person>>()
        let token = rex.owners.observe { log.record($0, count: \.count) }
        try realm.write { realm.create(Person.self, value: ["name": "Ann", "dogs": [rex]]) }
        try realm.write { realm.create(Person.self, value: ["name": "Bo", "dogs": [rex]]) }
        try realm.write { realm.object(ofType: Person.self, forPrimaryKey: "Ann")?.age = 3 }
        try realm.write { realm.delete(realm.object(ofType: Person.self, forPrimaryKey: "Ann")!) }
        #expect(log.updates == [Change(insertions: [0]), Change(insertions: [1]), Change(modifications: [0]), Change(deletions: [0])])
        #expect(log.counts == [0, 1, 2, 2, 1])
        token.invalidate()
    }

    @Test func invalidatedTokensStopDelivery() throws {
        let realm = try realmWithDogs([1])
        let log = ChangeLog<Results<Dog>>()
        let token = realm.objects(Dog.self).observe { log.record($0, count: \.count) }
        try realm.write { realm.create(Dog.self, value: ["id": 10]) }
        token.invalidate()
        token.invalidate()
        try realm.write { realm.create(Dog.self, value: ["id": 11]) }
        #expect(log.updates.count == 1)
    }

    @Test func aTokenCanBeInvalidatedFromAnotherThread() throws {
        let realm = try realmWithDogs([1])
        let log = ChangeLog<Results<Dog>>()
        let token = realm.objects(Dog.self).observe { log.record($0, count: \.count) }
        let done = DispatchSemaphore(value: 0)
        Thread { token.invalidate(); done.signal() }.start()
        done.wait()
        try realm.write { realm.create(Dog.self, value: ["id": 10]) }
        #expect(log.updates.isEmpty)
    }

    @Test func writeWithoutNotifyingSkipsTheGivenTokens() throws {
        let realm = try realmWithDogs([1])
        let skipped = ChangeLog<Results<Dog>>()
        let other = ChangeLog<Results<Dog>>()
        let t1 = realm.objects(Dog.self).observe { skipped.record($0, count: \.count) }
        let t2 = realm.objects(Dog.self).observe { other.record($0, count: \.count) }
        try realm.write(withoutNotifying: [t1]) { realm.create(Dog.self, value: ["id": 10]) }
        try realm.write { realm.create(Dog.self, value: ["id": 11]) }
        #expect(other.updates == [Change(insertions: [1]), Change(insertions: [2])])
        #expect(skipped.updates == [Change(insertions: [2])], "the skipped change is not reported later either")
        t1.invalidate()
        t2.invalidate()
    }

    @Test func aCommitToAnotherTableCostsALiveResultsNothing() throws {
        let realm = try realmWithDogs([1, 2, 3])
        let log = ChangeLog<Results<Dog>>()
        let token = realm.objects(Dog.self).filter("age > 1").observe { log.record($0, count: \.count) }
        let before = realm._queryEvaluationCount
        for i in 0..<20 { try realm.write { realm.create(Book.self, value: ["title": "b\(i)"]) } }
        #expect(realm._queryEvaluationCount == before, "the Dog query was not run again")
        try realm.write { realm.create(Dog.self, value: ["id": 9, "age": 9]) }
        #expect(realm._queryEvaluationCount == before + 1)
        #expect(log.updates == [Change(insertions: [2])])
        token.invalidate()
    }

    /// Sync commits its bookkeeping (internal trees, no transaction log) between user commits;
    /// such a commit changes nothing an observer sees, so it must not read as "everything may
    /// have changed".
    @Test func aCommitOfInternalDataOnlyReportsNoChange() throws {
        let config = freshConfiguration()
        let realm = try Realm(configuration: config)
        try realm.write { for i in 0..<3 { realm.create(Dog.self, value: ["id": i]) } }
        let log = ChangeLog<Results<Dog>>()
        let token = realm.objects(Dog.self).sorted(byKeyPath: "id").observe { log.record($0, count: \.count) }
        let database = try Database.open(DatabaseConfiguration(inMemoryIdentifier: config.inMemoryIdentifier ?? ""))
        let w = try database.beginWrite()
        try w.putInternal("test.bookkeeping", key: [1], value: [2])
        _ = try w.commit()
        let other = try Realm(configuration: config)
        try other.write { other.create(Dog.self, value: ["id": 4]) }
        let w2 = try database.beginWrite()
        try w2.putInternal("test.bookkeeping", key: [1], value: [3])
        _ = try w2.commit()
        realm.refresh()
        #expect(log.updates == [Change(insertions: [3])])
        token.invalidate()
    }

    @Test func changesFromAnotherThreadArriveOnAQueueConfinedRealm() throws {
        let config = freshConfiguration()
        let queue = DispatchQueue(label: "observer")
        let log = ChangeLog<Results<Dog>>()
        final class Holder: @unchecked Sendable { var realm: Realm?; var token: NotificationToken? }
        let holder = Holder()
        queue.sync {
            guard let realm = try? Realm(configuration: config, queue: queue) else { return }
            holder.realm = realm
            holder.token = realm.objects(Dog.self).sorted(byKeyPath: "id").observe { log.record($0, count: \.count) }
        }
        #expect(holder.realm != nil)
        let writer = try Realm(configuration: config)
        try writer.write { writer.create(Dog.self, value: ["id": 2]) }
        try writer.write { writer.create(Dog.self, value: ["id": 1]) }
        #expect(log.wait { $0.counts.last == 2 }, "autorefresh delivered the other thread's commits: \(log.counts)")
        // Two commits arrive one by one or together, depending on when the queue refreshes.
        #expect(log.updates == [Change(insertions: [0]), Change(insertions: [0])] || log.updates == [Change(insertions: [0, 1])], "\(log.updates)")
        queue.sync { holder.token?.invalidate(); holder.realm = nil }
    }

    @Test func autorefreshCanBeTurnedOff() throws {
        let config = freshConfiguration()
        let queue = DispatchQueue(label: "manual")
        let log = ChangeLog<Results<Dog>>()
        final class Holder: @unchecked Sendable { var realm: Realm?; var token: NotificationToken? }
        let holder = Holder()
        queue.sync {
            guard let realm = try? Realm(configuration: config, queue: queue) else { return }
            realm.autorefresh = false
            holder.realm = realm
            holder.token = realm.objects(Dog.self).observe { log.record($0, count: \.count) }
        }
        let writer = try Realm(configuration: config)
        try writer.write { writer.create(Dog.self, value: ["id": 1]) }
        usleep(100_000)
        #expect(log.updates.isEmpty)
        queue.sync { _ = holder.realm?.refresh() }
        #expect(log.updates == [Change(insertions: [0])])
        queue.sync { holder.token?.invalidate(); holder.realm = nil }
    }

    @Test func observeOnAQueueDeliversThere() throws {
        let config = freshConfiguration()
        let realm = try Realm(configuration: config)
        let queue = DispatchQueue(label: "delivery")
        let log = ChangeLog<Results<Dog>>()
        final class Flag: @unchecked Sendable { var onQueue = true }
        let flag = Flag()
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let token = realm.objects(Dog.self).observe(on: queue) { change in
            if DispatchQueue.getSpecific(key: key) != true { flag.onQueue = false }
            log.record(change, count: \.count)
        }
        #expect(log.wait { $0.initial == 1 })
        try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        #expect(log.wait { $0.updates.count == 1 })
        #expect(log.updates == [Change(insertions: [0])])
        #expect(flag.onQueue)
        token.invalidate()
        queue.sync {}
        try realm.write { realm.create(Dog.self, value: ["id": 2]) }
        usleep(50_000)
        #expect(log.updates.count == 1)
    }

    @Test func changesAsAnAsyncSequence() async throws {
        let config = freshConfiguration()
        let queue = DispatchQueue(label: "async-source")
        final class Holder: @unchecked Sendable { var realm: Realm?; var stream: CollectionChanges<Results<Dog>>? }
        let holder = Holder()
        queue.sync {
            holder.realm = try? Realm(configuration: config, queue: queue)
            holder.stream = holder.realm?.objects(Dog.self).changes
        }
        let stream = try #require(holder.stream)
        let writer = try Realm(configuration: config)
        var seen: [String] = []
        for await change in stream {
            switch change {
            case .initial(let dogs):
                #expect(dogs.isFrozen)
                seen.append("initial \(dogs.count)")
                try writer.write { writer.create(Dog.self, value: ["id": 1]) }
            case .update(let dogs, _, let insertions, _):
                seen.append("update \(dogs.count) \(insertions)")
            case .error(let e):
                Issue.record("\(e)")
            }
            if seen.count == 2 { break }
        }
        #expect(seen == ["initial 0", "update 1 [0]"])
        queue.sync { holder.realm = nil }
    }

    /// Another realm of the file that opens with more classes adds their tables; that changes no
    /// existing object, so a commit after it still reports exactly the objects it changed
    /// (it reported every object as modified when any table was added).
    @Test func newTablesFromAnotherRealmLeaveModificationsExact() throws {
        let config = freshConfiguration([Dog.self, Person.self])
        let realm = try Realm(configuration: config)
        try realm.write {
            realm.create(Dog.self, value: ["id": 1, "name": "Rex"])
            realm.create(Dog.self, value: ["id": 2, "name": "Fido"])
        }
        let dogs = realm.objects(Dog.self).sorted(byKeyPath: "id")
        let log = ChangeLog<Results<Dog>>()
        let token = dogs.observe(keyPaths: ["name"]) { log.record($0, count: \.count) }
        var wider = config
        wider.objectTypes = [Dog.self, Person.self, Book.self]
        let widerConfig = wider
        let done = DispatchSemaphore(value: 0)
        Thread {
            defer { done.signal() }
            do {
                let other = try Realm(configuration: widerConfig)
                try other.write { other.object(ofType: Dog.self, forPrimaryKey: 1)?.name = "Max" }
            } catch {
                Issue.record("\(error)")
            }
        }.start()
        done.wait()
        realm.refresh()
        #expect(log.updates == [Change(modifications: [0])])
        token.invalidate()
    }
}

@Suite struct ObjectNotificationTests {
    @Test func propertyChangesOfLocalCommitsCarryNewValues() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Rex", "age": 2, "tags": ["a"]]) }
        let rex = try #require(realm.objects(Dog.self).first)
        var changes: [[String]] = []
        var deleted = 0
        let token = rex.observe { (change: ObjectChange<Dog>) in
            switch change {
            case .change(let dog, let properties):
                #expect(dog.isSameObject(as: rex))
                changes.append(properties.map { "\($0.name): \($0.oldValue.map { "\($0)" } ?? "nil") -> \($0.newValue.map { "\($0)" } ?? "nil")" })
            case .deleted: deleted += 1
            case .error(let e): Issue.record("\(e)")
            }
        }
        try realm.write { rex.name = "Rexy"; rex.age = 3 }
        try realm.write { rex.owner = realm.create(Person.self, value: ["name": "Ann"]) }
        try realm.write { realm.create(Dog.self, value: ["id": 2]) }          // another object: no call
        try realm.write { realm.delete(rex) }
        try realm.write { realm.create(Dog.self, value: ["id": 3]) }
        #expect(changes.count == 2)
        // Changes made on the observing thread carry no old value, as in RealmSwift (another
        // thread's do: RealmConformanceTests' testModifyObservedObjectRemotely).
        #expect(changes.first == ["name: nil -> Rexy", "age: nil -> 3"])
        #expect(changes.last?.first?.hasPrefix("owner: nil -> Person") == true)
        #expect(deleted == 1)
        token.invalidate()
    }

    @Test func keyPathsLimitTheObservedProperties() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        let rex = try #require(realm.objects(Dog.self).first)
        var names: [[String]] = []
        let token = rex.observe(keyPaths: ["age", "tags"]) { (change: ObjectChange<Dog>) in
            if case .change(_, let p) = change { names.append(p.map(\.name)) }
        }
        try realm.write { rex.name = "ignored" }
        try realm.write { rex.age = 1; rex.name = "also ignored" }
        try realm.write { rex.tags.append("t") }
        #expect(names == [["age"], ["tags"]])
        token.invalidate()
    }

    @Test func keyPathsThroughLinksReportTheLinkProperty() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 1, "owner": ["name": "Ann", "age": 30]]) }
        let rex = try #require(realm.objects(Dog.self).first)
        var names: [[String]] = []
        let token = rex.observe(keyPaths: ["owner.age"]) { (change: ObjectChange<Dog>) in
            if case .change(_, let p) = change { names.append(p.map(\.name)) }
        }
        try realm.write { rex.owner?.birthdate = Date() }      // not on the path
        try realm.write { rex.owner?.age = 31 }
        try realm.write { rex.owner = nil }
        #expect(names == [["owner"], ["owner"]])
        token.invalidate()
    }

    @Test func objectChangesFromAnotherThreadArriveOnRefresh() throws {
        let config = freshConfiguration()
        let realm = try Realm(configuration: config)
        try realm.write { realm.create(Dog.self, value: ["id": 1, "age": 1]) }
        let rex = try #require(realm.objects(Dog.self).first)
        var ages: [Int] = []
        let token = rex.observe { (change: ObjectChange<Dog>) in
            if case .change(_, let p) = change { ages += p.compactMap { $0.newValue as? Int } }
        }
        let done = DispatchSemaphore(value: 0)
        Thread {
            if let other = try? Realm(configuration: config) {
                try? other.write { other.objects(Dog.self).first?.age = 5 }
                try? other.write { other.objects(Dog.self).first?.age = 6 }
            }
            done.signal()
        }.start()
        done.wait()
        #expect(rex.age == 1, "the realm reads its version until refreshed")
        realm.refresh()
        #expect(rex.age == 6)
        #expect(ages == [6], "changes between two refreshes arrive at once, as in Realm")
        token.invalidate()
    }
}
