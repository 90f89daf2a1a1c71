import Atoll
import Foundation
import Testing
import AtollTestSupport

// Many tasks writing and observing through several actor-isolated realms on one file, with
// cancellation at the awaits. CI runs it under Thread Sanitizer (tools/tsan/run).

@Suite(.timeLimit(.minutes(5 * Int(ThreadSanitizer.slowdown)))) struct ConcurrencyStressTests {
    @Test func hundredsOfTasksWriteAndObserveThroughSeveralActorsWithCancellation() async throws {
        let dir = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: dir.file("stress.atoll")), objectTypes: [Dog.self, Person.self, Book.self])
        let stores = (0..<4).map { _ in DogStore() }
        for store in stores { try await store.open(configuration) }
        let taskCount = ProcessInfo.processInfo.environment["ATOLL_CONCURRENCY_TASKS"].flatMap(Int.init) ?? 240

        // 40 streams on the four actors, each remembering the newest count it saw.
        let seen = (0..<40).map { _ in TaskCounter() }
        var consumers: [Task<Void, Never>] = []
        for (i, counter) in seen.enumerated() {
            let changes = await stores[i % stores.count].dogChanges()
            consumers.append(Task {
                for await change in changes {
                    if case .initial(let dogs) = change { counter.set(dogs.count) }
                    if case .update(let dogs, _, _, _) = change { counter.set(dogs.count) }
                }
            })
        }

        // 240 writers by default (ATOLL_CONCURRENCY_TASKS); every third is cancelled at once, so it stops at whichever await it reached.
        var writers: [Task<Bool, Never>] = []
        for i in 0..<taskCount {
            let store = stores[i % stores.count]
            let task = Task {
                do {
                    await Task.yield()
                    try await store.add(id: i, name: "task \(i)")
                    return true
                } catch is CancellationError {
                    return false
                } catch {
                    Issue.record("task \(i): \(error)")
                    return false
                }
            }
            if i % 3 == 0 { task.cancel() }
            writers.append(task)
        }
        var written = 0
        for w in writers {
            if await w.value { written += 1 }
        }
        #expect(written >= taskCount * 2 / 3, "only cancelled tasks may fail to write")

        let stored = try Realm(configuration: configuration).objects(Dog.self).count
        #expect(stored == written, "a cancelled write leaves nothing behind, a finished one is committed")
        #expect(await eventually { seen.allSatisfy { $0.value == written } }, "\(seen.map(\.value))")
        for c in consumers { c.cancel() }
        for c in consumers { await c.value }
    }
}
