import Atoll
import Foundation
import Testing
import AtollTestSupport

// Notifications on actors and coalescing change streams.

/// Receives notifications on its own isolation.
actor Watcher {
    private(set) var log: [String] = []

    func note(_ change: RealmCollectionChange<Results<Dog>>) {
        switch change {
        case .initial(let dogs): log.append("initial \(dogs.count)")
        case .update(let dogs, let d, let i, let m): log.append("update \(dogs.count) d\(d) i\(i) m\(m)")
        case .error(let e): log.append("error \(e)")
        }
    }

    func note(_ change: ObjectChange<Dog>) {
        switch change {
        case .change(let dog, let properties): log.append("change \(dog.name) \(properties.map(\.name))")
        case .deleted: log.append("deleted")
        case .error(let e): log.append("error \(e)")
        }
    }

    func note(_ change: RealmCollectionChange<List<String>>) {
        switch change {
        case .initial(let tags): log.append("initial \(Array(tags))")
        case .update(let tags, _, let i, _): log.append("update \(Array(tags)) i\(i)")
        case .error(let e): log.append("error \(e)")
        }
    }
}

extension DogStore {
    func watchDogs(on watcher: Watcher) async -> NotificationToken {
        await realm.objects(Dog.self).sorted(byKeyPath: "id").observe(on: watcher) { watcher, change in watcher.note(change) }
    }

    func watchDog(_ id: Int, on watcher: Watcher) async -> NotificationToken? {
        guard let dog = realm.object(ofType: Dog.self, forPrimaryKey: id) else { return nil }
        return await dog.observe(on: watcher) { (watcher, change: ObjectChange<Dog>) in watcher.note(change) }
    }

    func watchTags(of id: Int, on watcher: Watcher) async -> NotificationToken? {
        guard let dog = realm.object(ofType: Dog.self, forPrimaryKey: id) else { return nil }
        return await dog.tags.observe(on: watcher) { watcher, change in watcher.note(change) }
    }

    func dogChanges() -> CollectionChanges<Results<Dog>> {
        realm.objects(Dog.self).sorted(byKeyPath: "id").changes
    }

    func update(_ id: Int, _ body: @Sendable (Dog) -> Void) async throws {
        try await realm.asyncWrite {
            if let dog = realm.object(ofType: Dog.self, forPrimaryKey: id) { body(dog) }
        }
    }

    func delete(_ id: Int) async throws {
        try await realm.asyncWrite {
            if let dog = realm.object(ofType: Dog.self, forPrimaryKey: id) { realm.delete(dog) }
        }
    }
}

/// Describes a change as a line, for comparisons.
func describe(_ change: RealmCollectionChange<Results<Dog>>) -> String {
    switch change {
    case .initial(let dogs): "initial \(dogs.map(\.id)) frozen=\(dogs.isFrozen)"
    case .update(let dogs, let d, let i, let m): "update \(dogs.map(\.id)) d\(d) i\(i) m\(m) frozen=\(dogs.isFrozen)"
    case .error(let e): "error \(e)"
    }
}

@Suite(.timeLimit(.minutes(5 * Int(ThreadSanitizer.slowdown)))) struct ActorObservationTests {
    @Test func resultsObservedOnAnotherActorReceiveEveryCommit() async throws {
        let store = DogStore()
        try await store.open(freshConfiguration())
        let watcher = Watcher()
        let token = await store.watchDogs(on: watcher)
        defer { token.invalidate() }
        try await store.add(id: 1, name: "Rex")
        #expect(await eventuallyAsync { await watcher.log.last == "update 1 d[] i[0] m[]" })
        try await store.add(id: 2, name: "Fido")
        #expect(await eventuallyAsync { await watcher.log.last == "update 2 d[] i[1] m[]" })
        #expect(await watcher.log.first == "initial 0")
        let count = await watcher.log.count
        token.invalidate()
        try await store.add(id: 3, name: "Late")
        try await Task.sleep(for: .milliseconds(100))
        #expect(await watcher.log.count == count, "nothing after invalidate()")
    }

    @Test func objectsAndListsObservedOnAnotherActor() async throws {
        let store = DogStore()
        try await store.open(freshConfiguration())
        try await store.add(id: 1, name: "Rex")
        let watcher = Watcher()
        let objectToken = try #require(await store.watchDog(1, on: watcher))
        let listToken = try #require(await store.watchTags(of: 1, on: watcher))
        defer {
            objectToken.invalidate()
            listToken.invalidate()
        }
        // Each step waits until the watcher's realm (which refreshes by itself) has seen it.
        try await store.update(1) { $0.tags.append("good") }
        #expect(await eventuallyAsync { await watcher.log.contains("update [\"good\"] i[0]") })
        try await store.update(1) { $0.name = "Max" }
        #expect(await eventuallyAsync { await watcher.log.contains("change Max [\"name\"]") })
        try await store.delete(1)
        #expect(await eventuallyAsync { await watcher.log.contains("deleted") })
        #expect(await watcher.log.contains("initial []"))
    }

    @Test func aSlowConsumerOfChangesGetsTheNewestStateInOneUpdate() async throws {
        let store = DogStore()
        try await store.open(freshConfiguration())
        try await store.add(id: 1, name: "a")
        let changes = await store.dogChanges()
        var iterator = changes.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(describe(first) == "initial [1] frozen=true")
        // Five commits while the consumer is busy: one update, from the state it last saw.
        for id in 2...6 { try await store.add(id: id, name: "d\(id)") }
        try await store.update(1) { $0.age = 9 }
        try await store.delete(3)
        let second = try #require(await iterator.next())
        #expect(describe(second) == "update [1, 2, 4, 5, 6] d[] i[1, 2, 3, 4] m[0] frozen=true")
        // Nothing pending now: the next element waits for the next commit.
        let waiting = Task { [iterator] in
            var iterator = iterator
            return await iterator.next().map(describe)
        }
        try await Task.sleep(for: .milliseconds(50))
        try await store.delete(1)
        #expect(await waiting.value == "update [2, 4, 5, 6] d[0] i[] m[] frozen=true")
    }

    @Test func cancellingTheConsumingTaskEndsTheStream() async throws {
        let store = DogStore()
        try await store.open(freshConfiguration())
        let changes = await store.dogChanges()
        let consumer = Task {
            var seen = 0
            for await _ in changes { seen += 1 }
            return seen
        }
        try await store.add(id: 1, name: "a")
        try await Task.sleep(for: .milliseconds(50))
        consumer.cancel()
        let seen = await consumer.value
        #expect(seen >= 1, "the loop ended after \(seen) element(s)")
        // The stream is over; commits after it change nothing for it and cost it nothing.
        try await store.add(id: 2, name: "b")
    }

    @Test func manyStreamsOnManyActorsEachSeeTheLastCommit() async throws {
        let dir = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: dir.file("dogs.atoll")), objectTypes: [Dog.self, Person.self, Book.self])
        let writers = (0..<4).map { _ in DogStore() }
        let readers = (0..<4).map { _ in DogStore() }
        for s in writers + readers { try await s.open(configuration) }
        let total = 4 * 25
        try await withThrowingTaskGroup(of: Int.self) { group in
            // 100 consumers, 25 per reader actor, each reading until it has seen every dog.
            for reader in readers {
                for _ in 0..<25 {
                    let changes = await reader.dogChanges()
                    group.addTask {
                        var count = 0
                        for await change in changes {
                            switch change {
                            case .initial(let dogs), .update(let dogs, _, _, _): count = dogs.count
                            case .error(let e): throw e
                            }
                            if count == total { break }
                        }
                        return count
                    }
                }
            }
            for (w, writer) in writers.enumerated() {
                group.addTask {
                    for j in 0..<25 {
                        try await writer.add(id: w * 100 + j, name: "x")
                        if j % 5 == 0 { await Task.yield() }
                    }
                    return total
                }
            }
            for try await count in group { #expect(count == total) }
        }
    }
}

/// Polls an async `condition` every 10 ms until it holds or `timeout` (ten times longer under Thread Sanitizer) passes.
func eventuallyAsync(timeout: Duration = .seconds(60), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + ThreadSanitizer.scaled(timeout)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
