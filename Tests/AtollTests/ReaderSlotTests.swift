@testable import Atoll
@testable import AtollStorage
import AtollTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

// Reader slots are a bounded resource shared by every process on a file; no load of frozen
// results, streams or references may turn their exhaustion into a crash, or keep another process
// from reading and writing. A process holds one slot per version it pins, however many frozen
// results, streams and references read that version.

/// The test helper's `serve` mode: one long-lived process that commits on request.
final class ServingHelper {
    private let process: SpawnedProcess
    private let output = Pipe()
    private let input = Pipe()
    private let lines: LineReader

    init(path: String) throws {
        signal(SIGPIPE, SIG_IGN)
        process = try SpawnedProcess(executable: ProcessNotificationTests.helper.path, arguments: ["serve", path],
                                     environment: ProcessInfo.processInfo.environment,
                                     stdin: .descriptor(input.fileHandleForReading.fileDescriptor),
                                     stdout: .descriptor(output.fileHandleForWriting.fileDescriptor), stderr: .inherit)
        // The child's ends: closed here so that the pipes end when the child does.
        try input.fileHandleForReading.close()
        try output.fileHandleForWriting.close()
        lines = LineReader(fileDescriptor: output.fileHandleForReading.fileDescriptor)
        guard lines.readLine(timeout: 30) == "ready" else { throw AtollError(.ioError, "the helper did not start") }
    }

    /// Sends one command and returns the helper's answer line.
    func ask(_ command: String) -> String? {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        return lines.readLine(timeout: 30)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

@Suite(.serialized) struct ReaderSlotTests {
    static func sharedFile(_ dir: TemporaryDirectory) throws -> (path: String, configuration: Realm.Configuration) {
        let path = dir.file("shared.atoll")
        #expect(try ProcessNotificationTests.runHelper(["increment", path, "0"]) == 0)   // creates the tables
        return (path, Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Counter.self]))
    }

    /// The most versions one process may pin (the rest of the table stays for other processes).
    static let share = 1024 - 64

    @Test func thousandsOfFrozenResultsAndStreamsLeaveOtherProcessesReadingAndWriting() async throws {
        let dir = TemporaryDirectory()
        let (path, configuration) = try Self.sharedFile(dir)
        try await offPool {
            let realm = try Realm(configuration: configuration)
            var frozen: [Results<Counter>] = []
            var objects: [Counter] = []
            var streams: [CollectionChanges<Results<Counter>>] = []
            var references: [ThreadSafeReference<Results<Counter>>] = []
            for round in 0..<20 {
                for i in 0..<150 { frozen.append(realm.objects(Counter.self).filter("value >= %d", i - round).freeze()) }
                if let counter = realm.objects(Counter.self).first { objects.append(counter.freeze()) }
                for _ in 0..<25 { streams.append(realm.objects(Counter.self).changes) }
                references.append(ThreadSafeReference(to: realm.objects(Counter.self)))
                // Another process opens the file, reads and commits while all of this is held.
                #expect(try ProcessNotificationTests.runHelper(["increment", path, "1"]) == 0)
                try realm.refreshThrowing()
            }
            #expect(frozen.count == 3000)
            #expect(streams.count == 500)
            // One slot per version: 21 versions (the realm's newest and 20 older ones).
            let slots = realm.database.readerSlots
            #expect(slots.leases == slots.inTable)
            #expect(slots.inTable == 21, "\(slots)")
            // The snapshots still read their own versions.
            #expect(frozen.first?.first?.value == 0)
            #expect(frozen[frozen.count - 150].first?.value == 19)
            #expect(objects.last?.value == 19)
            #expect(realm.objects(Counter.self).first?.value == 20)
            // References resolve in another realm (which reads the newest version).
            let elsewhere = DispatchQueue(label: "resolver")
            let resolved = try elsewhere.sync { [reference = references[5]] in
                try Realm(configuration: configuration, queue: elsewhere).resolve(reference)?.first?.value
            }
            #expect(resolved == 20)
            // Releasing everything gives the slots back.
            frozen.removeAll()
            objects.removeAll()
            streams.removeAll()
            references.removeAll()
            #expect(realm.database.readerSlots == (1, 1))
        }
    }

    /// 10,000 frozen results and 2,000 thread-safe references of one version: one reader slot.
    @Test func tenThousandFrozenResultsOfOneVersionUseOneSlot() throws {
        let realm = try Realm(configuration: freshConfiguration())
        try realm.write { realm.create(Dog.self, value: ["id": 1, "name": "Rex"]) }
        let frozen = (0..<10_000).map { realm.objects(Dog.self).filter("id >= %d", $0 % 3).freeze() }
        let references = (0..<2_000).map { _ in ThreadSafeReference(to: realm.objects(Dog.self)) }
        #expect(realm.database.readerSlots == (1, 1))
        #expect(frozen.filter { $0.count == 1 }.count == 6_667)
        try realm.write { realm.create(Dog.self, value: ["id": 2, "name": "Fido"]) }
        // The snapshots keep the old version: two slots now.
        #expect(realm.database.readerSlots == (2, 2))
        #expect(frozen[0].count == 1 && realm.objects(Dog.self).count == 2)
        withExtendedLifetime((frozen, references)) {}
    }

    @Test func aProcessAtItsShareOfReaderSlotsGetsAnErrorNotACrash() async throws {
        let dir = TemporaryDirectory()
        let (path, configuration) = try Self.sharedFile(dir)
        let writer = try ServingHelper(path: path)
        try await offPool {
            let realm = try Realm(configuration: configuration)
            var frozen: [Realm] = []
            var failure: AtollError?
            // Every refresh reads a new version and every frozen realm keeps one pinned.
            for _ in 0..<1100 {
                #expect(writer.ask("increment 1")?.hasPrefix("ok") == true)
                do {
                    try realm.refreshThrowing()
                } catch let error as AtollError {
                    failure = error
                    break
                }
                frozen.append(realm.freeze())
            }
            let error = try #require(failure, "pinning 1100 versions must hit the limit")
            #expect(error.kind == .tooManyReaders)
            #expect(frozen.count == Self.share)
            #expect(error.message.contains("process \(getpid()) (this process) holds \(Self.share) versions"), "\(error.message)")
            #expect(realm.database.readerSlots == (Self.share, Self.share))
            // At the limit, freezing, streams and references of versions this process pins still work...
            let again = realm.freeze()
            #expect(again.objects(Counter.self).first?.value == frozen.last?.objects(Counter.self).first?.value)
            let reference = ThreadSafeReference(to: realm.objects(Counter.self))
            let iterator = realm.objects(Counter.self).changes.makeAsyncIterator()
            #expect(realm.database.readerSlots == (Self.share, Self.share))
            // ...and other processes still open, read and write the file.
            #expect(try ProcessNotificationTests.runHelper(["increment", path, "3"]) == 0)
            #expect(writer.ask("increment 2")?.hasPrefix("ok") == true)
            // Releasing the frozen realms frees the slots; the realm reads on.
            frozen.removeAll()
            #expect(realm.database.readerSlots == (1, 1))
            #expect(try realm.refreshThrowing())
            #expect(realm.objects(Counter.self).first?.value == Self.share + 1 + 5)
            withExtendedLifetime((again, reference, iterator)) {}
        }
        _ = writer.ask("quit")
    }

    /// (A time limit: the stream is awaited without one, and a stream that never reported would
    /// hold the whole run.)
    @Test(.timeLimit(.minutes(3 * Int(ThreadSanitizer.slowdown))))
    func aChangeStreamEndsWithAnErrorWhenNoVersionCanBePinned() async throws {
        let dir = TemporaryDirectory()
        let (path, configuration) = try Self.sharedFile(dir)
        let writer = try ServingHelper(path: path)
        let queue = DispatchQueue(label: "stream-owner")
        // A queue-confined realm refreshes by itself; its stream freezes each new version.
        let made = try await offPool {
            try queue.sync {
                let realm = try Realm(configuration: configuration, queue: queue)
                return UncheckedBox((realm, realm.objects(Counter.self).changes))
            }
        }
        let (owner, changes) = made.value
        var iterator = changes.makeAsyncIterator()
        guard case .initial? = await iterator.next() else {
            Issue.record("expected .initial")
            return
        }
        // Pin versions from another realm of this process until none is left; the owner's
        // autorefresh then fails and the stream reports it.
        let hog = try await offPool { () -> UncheckedBox<[Realm]> in
            let realm = try Realm(configuration: configuration)
            var pinned: [Realm] = []
            while pinned.count < 2 * Self.share {
                #expect(writer.ask("increment 1")?.hasPrefix("ok") == true)
                do { try realm.refreshThrowing() } catch { break }
                pinned.append(realm.freeze())
            }
            return UncheckedBox(pinned)
        }
        #expect(hog.value.count <= Self.share)
        // One more commit once every slot is taken: the owner may have refreshed to every
        // version before the table filled (it refreshes when it gets to a commit, not at each
        // one), and it only tries again on a new commit.
        #expect(writer.ask("increment 1")?.hasPrefix("ok") == true)
        var error: AtollError?
        while let change = await iterator.next() {
            if case .error(let e) = change {
                error = e as? AtollError
                break
            }
        }
        #expect(error?.kind == .tooManyReaders)
        #expect(error?.message.contains("process \(getpid()) (this process) holds \(Self.share) versions") == true, "\(error?.message ?? "no error")")
        #expect(await iterator.next() == nil, "the stream ends after the error")
        // Another process still reads and writes.
        #expect(try ProcessNotificationTests.runHelper(["increment", path, "1"]) == 0)
        withExtendedLifetime((owner, hog)) {}
        _ = writer.ask("quit")
    }
}
