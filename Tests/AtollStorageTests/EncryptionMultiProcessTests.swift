import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// Encrypted files shared by real processes (the test helper gets the key through
/// `ATOLL_TEST_KEY`): crash safety under SIGKILL, concurrent writers whose page reuse each
/// process's decrypted cache must notice, and a reader process following another's commits.
@Suite(.serialized) struct EncryptionMultiProcessTests {
    static let helper = MultiProcessTests.helper

    static func hex(_ key: EncryptionKey) -> String {
        key.bytes.map { String(format: "%02x", $0) }.joined()
    }

    func counter(_ db: Database) throws -> Int64 {
        try MultiProcessTests().counter(db)
    }

    /// `ATOLL_CRASH_KILLS_ENCRYPTED` sets the number of kills (default 20).
    @Test func committedDataOfAnEncryptedFileSurvivesSigkill() throws {
        let kills = ProcessInfo.processInfo.environment["ATOLL_CRASH_KILLS_ENCRYPTED"].flatMap(Int.init) ?? 20
        let key = EncryptionKey.random()
        let dir = TemporaryDirectory()
        let path = dir.file("crash.atoll")
        try MultiProcessTests.killCommitLoops(kills, dir: dir, path: path, environment: ["ATOLL_TEST_KEY": Self.hex(key)],
                                              commitsPerKillMin: 0.5) {
            try Database.open(DatabaseConfiguration(path: path, encryptionKey: key))
        }
        // Every writer process reserved an IV epoch of its own (a child killed before its first
        // commit may not have), and no crash lost one.
        let db = try Database.open(DatabaseConfiguration(path: path, encryptionKey: key))
        let epoch = try db.newestRoot().ivEpoch
        #expect(epoch >= 1 && epoch <= UInt64(kills), "IV epoch \(epoch) after \(kills) writer processes")
    }

    @Test func twoWriterProcessesShareAnEncryptedFile() throws {
        let key = EncryptionKey.random()
        let dir = TemporaryDirectory()
        let path = dir.file("writers.atoll")
        let n = 150
        let env = ["ATOLL_TEST_KEY": Self.hex(key)]
        let children = try (0..<2).map { _ in try ChildProcess(Self.helper, ["increment", path, "\(n)"], environment: env) }
        for c in children { #expect(c.readLine() == "ready") }
        for c in children { c.send("go") }
        var written: [Int64] = []
        for c in children {
            let line = c.readLine(timeout: 300) ?? "nothing"
            #expect(line.hasPrefix("done "), "child: \(line)")
            written += line.dropFirst(5).split(separator: ",").compactMap { Int64($0) }
            #expect(c.wait() == 0)
        }
        // Each process saw the other's commits through its own decrypted cache: no update lost.
        #expect(Set(written) == Set(1...Int64(2 * n)))
        let db = try Database.open(DatabaseConfiguration(path: path, encryptionKey: key))
        #expect(try counter(db) == Int64(2 * n))
        _ = try db.verify()
    }

    /// Two processes open a new encrypted file at once: one creates it and, at its first
    /// commit, reserves an IV epoch by rewriting both root slots while the other is still
    /// opening. The other must never take that rewrite for a damaged file (it did, about once in
    /// 30 rounds, before RootRecord.newestSlot scanned again). `ATOLL_OPEN_RACE_ROUNDS` sets
    /// the rounds (default 100).
    @Test func twoProcessesOpeningANewEncryptedFileAtOnceBothSucceed() throws {
        let rounds = ProcessInfo.processInfo.environment["ATOLL_OPEN_RACE_ROUNDS"].flatMap(Int.init) ?? 100
        let key = EncryptionKey.random()
        let dir = TemporaryDirectory()
        let env = ["ATOLL_TEST_KEY": Self.hex(key)]
        for round in 0..<rounds {
            let path = dir.file("race-\(round).atoll")
            let children = try (0..<2).map { _ in try ChildProcess(Self.helper, ["increment", path, "2"], environment: env) }
            for c in children { c.send("go") }
            var written: [Int64] = []
            for c in children {
                let ready = c.readLine() ?? "nothing"
                let done = c.readLine() ?? "nothing"
                try #require(ready == "ready" && done.hasPrefix("done "), "round \(round): \(ready) / \(done)")
                written += done.dropFirst(5).split(separator: ",").compactMap { Int64($0) }
                #expect(c.wait() == 0)
            }
            #expect(Set(written) == [1, 2, 3, 4], "round \(round)")
        }
    }

    @Test func aReaderProcessSeesCommitsOfAnotherProcess() throws {
        let key = EncryptionKey.random()
        let dir = TemporaryDirectory()
        let path = dir.file("reader.atoll")
        let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe, encryptionKey: key))
        let reader = try ChildProcess(Self.helper, ["hold-reader", path], environment: ["ATOLL_TEST_KEY": Self.hex(key)])
        #expect(reader.readLine() == "value 0")
        // Each round rewrites (and, once the reader has let go of them, reuses) pages the reader
        // has decrypted before: it must decrypt them again, never serve its stale copy.
        for round in 1...30 {
            let w = try db.beginWrite()
            let counter = try #require(try w.table(named: "Counter"))
            try counter.set(ObjectKey(primaryKey: 1), 1, .int(Int64(round)))
            try w.commit()
            reader.send("refresh")
            #expect(reader.readLine() == "value \(round)")
        }
        reader.send("quit")
        #expect(reader.wait() == 0)
        // And a process without the key is refused.
        let intruder = try ChildProcess(Self.helper, ["hold-reader", path])
        let line = intruder.readLine() ?? ""
        #expect(line.hasPrefix("error fileEncrypted"), "got \(line)")
        _ = intruder.wait()
    }
}
