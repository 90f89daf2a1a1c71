import Atoll
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import AtollTestSupport
#endif

/// Matches the table the test helper process writes (Tests/AtollTestHelper).
final class Counter: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value = 0
}

@Suite(.serialized) struct ProcessNotificationTests {
    static var helper: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("AtollTestHelper")
    }

    static func runHelper(_ args: [String]) throws -> Int32 {
        // `increment` waits for a "go" line before it writes.
        try SpawnedProcess.run(helper.path, args, input: Data("go\n".utf8)).status
    }

    @Test func liveResultsAndObjectsUpdateForCommitsOfAnotherProcess() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("shared.atoll")
        #expect(try Self.runHelper(["increment", path, "0"]) == 0) // creates the tables
        let queue = DispatchQueue(label: "observer")
        final class Log: @unchecked Sendable {
            let lock = NSLock()
            var values: [Int] = []
            var modifications = 0
            var objectChanges: [String] = []
            var tokens: [NotificationToken] = []
            var realm: Realm?
        }
        let log = Log()
        let ready = DispatchSemaphore(value: 0)
        queue.async {
            defer { ready.signal() }
            guard let realm = try? Realm(configuration: .init(fileURL: URL(fileURLWithPath: path), objectTypes: [Counter.self]), queue: queue),
                  let counter = realm.objects(Counter.self).first else { return }
            log.realm = realm
            log.tokens.append(realm.objects(Counter.self).observe { change in
                log.lock.lock(); defer { log.lock.unlock() }
                if case .update(let r, _, _, let m) = change {
                    log.modifications += m.count
                    log.values.append(r.first?.value ?? -1)
                }
            })
            log.tokens.append(counter.observe { (change: ObjectChange<Counter>) in
                log.lock.lock(); defer { log.lock.unlock() }
                if case .change(_, let props) = change { log.objectChanges += props.map { "\($0.name)=\($0.newValue as? Int ?? -1)" } }
            })
        }
        ready.wait()
        #expect(log.realm != nil)
        #expect(try Self.runHelper(["increment", path, "3"]) == 0)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            // Both observers are called for the same refresh, one after the other: wait for both.
            log.lock.lock(); let last = log.values.last; let lastChange = log.objectChanges.last; log.lock.unlock()
            if last == 3 && lastChange == "value=3" { break }
            usleep(10_000)
        }
        log.lock.lock()
        #expect(log.values.last == 3, "the live results saw the other process's commits: \(log.values)")
        #expect(log.modifications >= 1)
        #expect(log.objectChanges.last == "value=3")
        log.lock.unlock()
        let done = DispatchSemaphore(value: 0)
        queue.async { log.tokens.forEach { $0.invalidate() }; log.realm = nil; done.signal() }
        done.wait()
    }
}

/// Matches the model of Tests/AtollObjectHelper, which writes it from another process.
final class Note: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
    @Persisted var rank = 0
}

@Suite(.serialized) struct ObjectProcessNotificationTests {
    @Test func exactIndicesForCommitsOfAnotherProcessWritingThroughTheObjectAPI() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("notes.atoll")
        let config = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Note.self])
        let queue = DispatchQueue(label: "notes-observer")
        let log = ChangeLog<Results<Note>>()
        final class Holder: @unchecked Sendable { var realm: Realm?; var token: NotificationToken? }
        let holder = Holder()
        queue.sync {
            guard let realm = try? Realm(configuration: config, queue: queue) else { return }
            holder.realm = realm
            holder.token = realm.objects(Note.self).sorted(byKeyPath: "rank").observe { log.record($0, count: \.count) }
        }
        #expect(holder.realm != nil)
        // One helper run (one process, one commit) at a time, each waited for.
        let steps: [(ops: [String], expected: Change)] = [
            (["+1:10"], Change(insertions: [0])),
            (["+2:30"], Change(insertions: [1])),
            (["+3:20"], Change(insertions: [1])),          // ranks 10 20 30
            (["~2:renamed"], Change(modifications: [2])),
            (["-1"], Change(deletions: [0])),               // ranks 20 30
        ]
        for (n, step) in steps.enumerated() {
            let (status, _) = try ObjectHelper.run(["write-notes", path] + step.ops)
            #expect(status.code == 0)
            #expect(log.wait { $0.updates.count == n + 1 }, "step \(n) arrived")
            #expect(log.updates.last == step.expected, "step \(n): \(log.updates)")
        }
        queue.sync { holder.token?.invalidate(); holder.realm = nil }
    }
}
