import Atoll
import AtollStorage
import Foundation
import Testing
import AtollTestSupport

// Threads: confinement is detected, references and frozen snapshots cross threads, refresh and
// invalidate manage the version a realm reads.

/// Runs `body` on a new thread and waits for it.
func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    Thread { body(); done.signal() }.start()
    done.wait()
}

@Suite struct ConfinementTests {
    @Test func throwingCallsFromAnotherThreadThrowWrongThread() throws {
        let dir = TemporaryDirectory()
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        let handoff = UncheckedBox((realm, realm.objects(Dog.self), dir.file("copy.atoll")))
        let kinds = KindLog()
        onAnotherThread {
            let (realm, dogs, copy) = handoff.value
            kinds.record { try realm.write {} }
            kinds.record { try realm.commitWrite() }
            kinds.record { _ = try dogs.filter(throwing: "age > 1") }
            kinds.record { try realm.writeCopy(toFile: URL(fileURLWithPath: copy)) }
        }
        #expect(kinds.kinds == [.wrongThread, .wrongThread, .wrongThread, .wrongThread])
        #expect(kinds.messages.first?.contains("ThreadSafeReference") == true, "the error says what to do")
        try realm.write { realm.create(Dog.self, value: ["id": 2]) }   // still fine on its own thread
    }

    @Test func misuseThatCannotThrowStopsTheProgramWithAClearMessage() throws {
        let cases: [(String, String)] = [
            ("read-off-thread", "Realm accessed from the wrong thread"),
            ("set-outside-write", "outside a write transaction"),
            ("set-frozen", "the object is frozen"),
            ("read-deleted", "has been deleted or invalidated"),
        ]
        for (command, message) in cases {
            let (status, stderr) = try ObjectHelper.run([command])
            #expect(status.bySignal || status.code != 0, "\(command) must stop the process")
            #expect(stderr.contains(message), "\(command): \(stderr)")
        }
    }
}

@Suite struct ThreadSafeReferenceTests {
    @Test func objectsResultsListsAndLinkingObjectsCrossThreads() throws {
        let config = freshConfiguration()
        let realm = try Realm(configuration: config)
        try realm.write { realm.create(Person.self, value: ["name": "Ann", "dogs": [["id": 1, "name": "Laika", "tags": ["space"]], ["id": 2, "name": "Belka"]]]) }
        let ann = try #require(realm.objects(Person.self).first)
        let laika = ann.dogs[0]
        let refs = UncheckedBox((
            ThreadSafeReference(to: laika),
            ThreadSafeReference(to: realm.objects(Dog.self).filter("name BEGINSWITH 'B'")),
            ThreadSafeReference(to: ann.dogs),
            ThreadSafeReference(to: laika.owners),
            ThreadSafeReference(to: laika.tags)
        ))
        let seen = StringLog()
        onAnotherThread {
            guard let other = try? Realm(configuration: config) else { return }
            let (dog, results, list, owners, tags) = refs.value
            seen.append(other.resolve(dog)?.name ?? "nil")
            seen.append(other.resolve(results)?.map(\.name).joined() ?? "nil")
            seen.append(other.resolve(list)?.map(\.name).joined(separator: ",") ?? "nil")
            seen.append(other.resolve(owners)?.first?.name ?? "nil")
            seen.append(other.resolve(tags)?.first ?? "nil")
            // Resolved objects are live in the new thread's realm.
            if let dogs = other.resolve(results) { try? other.write { dogs.first?.name = "Belka II" } }
        }
        #expect(seen.values == ["Laika", "Belka", "Laika,Belka", "Ann", "space"])
        realm.refresh()
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 2)?.name == "Belka II")
    }

    @Test func aReferenceToADeletedObjectOrAnotherFileResolvesToNil() throws {
        let config = freshConfiguration()
        let realm = try Realm(configuration: config)
        try realm.write { realm.create(Dog.self, value: ["id": 1]) }
        let ref = ThreadSafeReference(to: try #require(realm.objects(Dog.self).first))
        let elsewhere = try Realm(configuration: freshConfiguration())
        try elsewhere.write { elsewhere.create(Dog.self, value: ["id": 1]) }
        #expect(elsewhere.resolve(ref) == nil, "a reference belongs to its file")
        try realm.write { realm.deleteAll() }
        #expect(realm.resolve(ref) == nil)
        #expect(realm.resolve(ThreadSafeReference(to: Dog())) == nil)
    }

    @Test func aLaggingRealmIsRefreshedToTheReferencesVersion() throws {
        let config = freshConfiguration()
        let realm = try Realm(configuration: config)
        let lagging = try Realm(configuration: config)
        #expect(lagging.objects(Dog.self).isEmpty)
        try realm.write { realm.create(Dog.self, value: ["id": 7, "name": "New"]) }
        let ref = ThreadSafeReference(to: try #require(realm.objects(Dog.self).first))
        #expect(lagging.resolve(ref)?.name == "New")
    }
}

@Suite struct FrozenTests {
    @Test func frozenObjectsDoNotChangeAndThaw() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Ice", "owner": ["name": "Ann"], "tags": ["a"]]) }
        let live = try #require(realm.objects(Dog.self).first)
        let frozen = live.freeze()
        #expect(frozen.isFrozen && !live.isFrozen)
        #expect(frozen.freeze() === frozen)
        let tags = live.tags.freeze()
        try realm.write { live.name = "Water"; live.tags.append("b") }
        #expect(frozen.name == "Ice")
        #expect(frozen.owner?.isFrozen == true, "objects reached from a frozen object are frozen")
        #expect(frozen.owner?.name == "Ann")
        #expect(Array(frozen.tags) == ["a"] && Array(tags) == ["a"])
        #expect(tags.isFrozen)
        #expect(throws: AtollError.self) { try frozen.realm?.write {} }
        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen && thawed.name == "Water")
        #expect(Array(tags.thaw() ?? List()) == ["a", "b"])
        try realm.write { realm.delete(live) }
        #expect(frozen.name == "Ice", "a frozen object outlives its deletion")
        #expect(frozen.thaw() == nil)
    }

    @Test func frozenObjectsAndResultsAreSendable() async throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { for i in 0..<3 { realm.create(Dog.self, value: ["id": i, "name": "d\(i)", "owner": ["name": "o\(i)"]]) } }
        let rex = Frozen(try #require(realm.object(ofType: Dog.self, forPrimaryKey: 1)))
        let all = realm.objects(Dog.self).sorted(byKeyPath: "id").freeze()
        let (name, owner, count, names) = await Task.detached {
            (rex.name, rex.owner?.name, all.count, all.map(\.name))
        }.value
        #expect(name == "d1" && owner == "o1")
        #expect(count == 3 && names == ["d0", "d1", "d2"])
        // Many threads read one frozen snapshot at once.
        let total = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { all.reduce(0) { $0 + $1.id + ($1.owner?.name.count ?? 0) } } }
            return await group.reduce(0, +)
        }
        #expect(total == 8 * (0 + 1 + 2 + 3 * 2))
    }
}

@Suite struct VersionTests {
    @Test func aRealmReadsItsVersionUntilRefreshed() throws {
        let config = freshConfiguration()
        let realm = try Realm(configuration: config)
        let dogs = realm.objects(Dog.self)
        onAnotherThread {
            guard let other = try? Realm(configuration: config) else { return }
            _ = try? other.write { other.create(Dog.self, value: ["id": 1]) }
        }
        #expect(dogs.count == 0)
        #expect(realm.refresh())
        #expect(dogs.count == 1)
        // Beginning a write also moves to the newest version.
        onAnotherThread {
            guard let other = try? Realm(configuration: config) else { return }
            _ = try? other.write { other.create(Dog.self, value: ["id": 2]) }
        }
        try realm.write { #expect(dogs.count == 2) }
    }

    @Test func invalidateReleasesTheVersionTheRealmReads() throws {
        let dir = TemporaryDirectory()
        let url = URL(fileURLWithPath: dir.file("pinned.atoll"))
        let config = Realm.Configuration(fileURL: url, objectTypes: [Dog.self, Person.self], syncWrites: false)
        let reader = try Realm(configuration: config)
        let dogs = reader.objects(Dog.self)
        #expect(dogs.isEmpty)
        let pinned = reader.version
        let writer = try Realm(configuration: config)
        for i in 0..<3 { try writer.write { writer.create(Dog.self, value: ["id": i]) } }
        let database = try Database.open(DatabaseConfiguration(path: url.path))
        #expect(try database.stats().oldestPinnedVersion == pinned, "the idle reader pins its old version")
        reader.invalidate()
        #expect(try (database.stats().oldestPinnedVersion ?? .max) > pinned)
        #expect(dogs.count == 3, "the next read opens the newest version")
        #expect(reader.version > pinned)
    }
}

/// Runs Tests/AtollObjectHelper and collects its exit status and stderr.
enum ObjectHelper {
    static var url: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("AtollObjectHelper")
    }

    struct Status {
        /// Whether a signal ended the child.
        let bySignal: Bool
        let code: Int32
    }

    static func run(_ args: [String]) throws -> (Status, String) {
        // No crash backtrace: the child is expected to stop, and the report only costs time.
        let environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { _, new in new }
        let output = try SpawnedProcess.run(url.path, args, environment: environment)
        return (Status(bySignal: output.terminatedBySignal, code: output.status), output.stderrText)
    }
}

final class KindLog: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var kinds: [AtollError.Kind?] = []
    private(set) var messages: [String] = []
    func record(_ body: () throws -> Void) {
        do {
            try body()
            lock.withLock { kinds.append(nil) }
        } catch let e as AtollError {
            lock.withLock { kinds.append(e.kind); messages.append(e.message) }
        } catch {
            lock.withLock { kinds.append(nil) }
        }
    }
}

final class StringLog: @unchecked Sendable {
    private let lock = NSLock()
    private var _values: [String] = []
    var values: [String] { lock.withLock { _values } }
    func append(_ s: String) { lock.withLock { _values.append(s) } }
}
