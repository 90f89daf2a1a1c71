import Atoll
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
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
        let p = Process()
        p.executableURL = helper
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        // `increment` waits for a "go" line before it writes.
        let input = Pipe()
        p.standardInput = input
        try p.run()
        input.fileHandleForWriting.write(Data("go\n".utf8))
        try input.fileHandleForWriting.close()
        p.waitUntilExit()
        return p.terminationStatus
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
            log.lock.lock(); let last = log.values.last; log.lock.unlock()
            if last == 3 { break }
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
