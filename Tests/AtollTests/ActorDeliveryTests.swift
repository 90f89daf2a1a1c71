import Atoll
import AtollTestSupport
import Foundation
@testable import AtollStorage
import Synchronization
import Testing

// Work that reaches an actor-isolated realm later (autorefresh and notifications, async write
// blocks and completions) must not wait for Swift's cooperative pool, whose few threads (one per
// core) blocking code can hold for a long time; and the async ways to open and refresh a realm.

/// Holds every thread of Swift's cooperative pool with blocking tasks until released.
final class PoolBlocker: Sendable {
    let width = ProcessInfo.processInfo.activeProcessorCount
    private let started = AtollLock(0)
    private let gate = DispatchSemaphore(value: 0)

    /// Starts one blocking task per pool thread and waits (blocking: call it off the pool) until
    /// all of them run. Returns false when they did not all start within `timeout` seconds.
    func hold(timeout: Double) -> Bool {
        for _ in 0..<width {
            Task.detached { [self] in
                started.withLock { $0 += 1 }
                block()
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while started.withLock({ $0 }) < width {
            if Date() > deadline { return false }
            usleep(1_000)
        }
        return true
    }

    private func block() { gate.wait() }

    func release() {
        for _ in 0..<width { gate.signal() }
    }
}

/// A flag set by a task.
final class Flag: Sendable {
    private let value = AtollLock(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}

@Suite(.serialized) struct ActorDeliveryTests {
    /// With every pool thread blocked, a commit made elsewhere still reaches an observer on an
    /// actor, and blocks queued with beginAsyncWrite / writeAsync still run on their actor.
    @Test func actorsReceiveNotificationsAndAsyncWriteBlocksWhileThePoolIsBlocked() async throws {
        let configuration = freshConfiguration()
        // The test runs on a thread of its own (offPool), as do the actors it calls.
        try await offPool {
            let store = DogStore()
            try await store.open(configuration)
            let watcher = Watcher()
            let token = await store.watchDogs(on: watcher)
            defer { token.invalidate() }
            #expect(await eventuallyAsync { await watcher.log.first == "initial 0" })

            // Hold the pool. In a full test run other suites may hold it already, so that the
            // blocking tasks cannot all start: the deliveries must arrive all the same.
            let pool = PoolBlocker()
            let held = pool.hold(timeout: 30)
            defer { pool.release() }
            // Whether the pool is really held: a task started now must not run.
            let probe = Flag()
            Task.detached { probe.set() }

            // A commit from a plain thread, not an actor or the pool.
            let writer = Thread {
                do {
                    let realm = try Realm(configuration: configuration)
                    try realm.write { realm.create(Dog.self, value: ["id": 100, "name": "Rex"]) }
                } catch {
                    Issue.record("the commit failed: \(error)")
                }
            }
            writer.start()
            // These awaits, and the actors they call, run on this test's own thread.
            #expect(await eventuallyAsync(timeout: .seconds(20)) { await watcher.log.last == "update 1 d[] i[0] m[]" },
                    "the notification waited for the pool")
            let blocks = try await store.queueAsyncWrites()
            #expect(blocks.blocks == ["block 1", "block 3", "nested"])
            #expect(blocks.completions.sorted() == ["complete 1 nil", "complete 3 nil"])
            #expect(blocks.idle, "the blocks waited for the pool")
            if held {
                #expect(!probe.isSet, "a pool task ran while every pool thread should be blocked")
            }
        }
    }
}

/// Opens its realm with the async APIs and refreshes it by hand.
actor Opener {
    private var realm: Realm?

    /// Opens the realm isolated to this actor (`asyncOpen` or `open`), writes one dog, and
    /// stops the realm from refreshing itself. Returns the number of dogs.
    func open(_ configuration: Realm.Configuration, id: Int, usingAsyncOpen: Bool) async throws -> Int {
        let realm = usingAsyncOpen ? try await Realm.asyncOpen(configuration: configuration)
                                   : try await Realm.open(configuration: configuration)
        self.realm = realm
        realm.autorefresh = false
        try await realm.asyncWrite { realm.create(Dog.self, value: ["id": id, "name": "opened"]) }
        return realm.objects(Dog.self).count
    }

    func count() -> Int { realm?.objects(Dog.self).count ?? -1 }

    /// `asyncRefresh()`: whether the version changed, and the dogs then.
    func refresh() async -> (changed: Bool, count: Int) {
        guard let realm else { return (false, -1) }
        let changed = await realm.asyncRefresh()
        return (changed, realm.objects(Dog.self).count)
    }
}

/// Polls `condition` on the main actor every 10 ms until it holds or 30 s pass.
@MainActor
func eventuallyOnMain(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Writes one dog through a realm of a thread of its own (not an actor, not the pool).
func writeOnAThread(_ configuration: Realm.Configuration, id: Int) async throws {
    try await offPool {
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.create(Dog.self, value: ["id": id, "name": "thread"]) }
    }
}

@Suite struct AsyncOpenAndRefreshTests {
    @Test(arguments: [true, false])
    func asyncOpenCreatesAFileOffThePoolAndAsyncRefreshReadsOtherCommits(usingAsyncOpen: Bool) async throws {
        let dir = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: dir.file("opened.atoll")), objectTypes: [Dog.self, Person.self, Book.self])
        let first = Opener()
        #expect(try await first.open(configuration, id: 1, usingAsyncOpen: usingAsyncOpen) == 1)
        // A second actor opens the file this process has open already.
        let second = Opener()
        #expect(try await second.open(configuration, id: 2, usingAsyncOpen: usingAsyncOpen) == 2)
        // Without autorefresh, the first sees the second's commit and a thread's only when asked.
        try await writeOnAThread(configuration, id: 3)
        #expect(await first.count() == 1)
        let refreshed = await first.refresh()
        #expect(refreshed.changed && refreshed.count == 3, "\(refreshed)")
        let again = await first.refresh()
        #expect(!again.changed && again.count == 3, "\(again)")
    }

    @Test func asyncOpenOfACancelledTaskThrowsCancellationError() async throws {
        let dir = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: dir.file("cancelled.atoll")), objectTypes: [Dog.self, Person.self, Book.self])
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Opener().open(configuration, id: 1, usingAsyncOpen: true)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    /// A realm of the main actor refreshes itself when another thread commits, and calls its
    /// observers on the main actor.
    @MainActor
    @Test func aMainActorRealmRefreshesItselfAndNotifiesOnTheMainActor() async throws {
        let configuration = freshConfiguration()
        let realm = try await Realm(configuration: configuration, actor: MainActor.shared)
        final class Log {
            var changes: [String] = []
        }
        let log = Log()
        let token = realm.objects(Dog.self).sorted(byKeyPath: "id").observe { change in
            MainActor.assumeIsolated { log.changes.append(describe(change)) }
        }
        defer { token.invalidate() }
        #expect(await eventuallyOnMain { log.changes.first == "initial [] frozen=false" }, "\(log.changes)")
        try await writeOnAThread(configuration, id: 7)
        #expect(await eventuallyOnMain { log.changes.last == "update [7] d[] i[0] m[] frozen=false" }, "\(log.changes)")
        #expect(realm.objects(Dog.self).first?.name == "thread")
        try await writeOnAThread(configuration, id: 8)
        #expect(await eventuallyOnMain { realm.objects(Dog.self).count == 2 })
        #expect(log.changes.last == "update [7, 8] d[] i[1] m[] frozen=false", "\(log.changes)")
    }
}
