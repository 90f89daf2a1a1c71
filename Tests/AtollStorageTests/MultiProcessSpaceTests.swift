import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// Processes that grow and shrink one file under each other.
@Suite(.serialized) struct MultiProcessSpaceTests {
    static let helper = "AtollTestHelper"

    func fileBytes(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    /// A process that once saw the file larger must not write past the end after another
    /// process shrank it (a stale size would make its stores fault with SIGBUS).
    @Test func writerAfterAnotherProcessShrankTheFileGrowsItAgain() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("shrink.atoll")
        let child = try ChildProcess(Self.helper, ["serve", path])
        #expect(child.readLine() == "ready")
        #expect(child.ask("fill 6000 600").hasPrefix("ok "))
        let grown = fileBytes(path)

        // This process empties the table; a few commits later the file has shrunk.
        let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe))
        let w = try db.beginWrite()
        try w.table(named: "Junk")?.clear()
        try w.commit()
        for i in 0..<12 {
            // Commits that do not open the Junk table: tail relocation opens it itself.
            let w = try db.beginWrite()
            try w.setMetadata("tick", [UInt8(i)])
            try w.commit()
        }
        let shrunk = fileBytes(path)
        #expect(shrunk < grown / 2, "the file should have shrunk: \(grown) -> \(shrunk)")

        // The child's view of the file size is stale; its next writes must still land in the file.
        #expect(child.ask("fill 6000 600").hasPrefix("ok "))
        #expect(child.ask("verify") == "ok")
        #expect(child.ask("digest").hasPrefix("digest 6000 "))
        child.send("quit")
        #expect(child.wait() == 0)
        _ = try db.verify()
    }

    func pageCount(_ db: Database) throws -> UInt32 {
        let r = try db.beginRead()
        defer { r.close() }
        return r.rootRecord.pageCount
    }

    func rewriteAll(_ db: Database, round: Int) throws {
        let w = try db.beginWrite()
        let junk = try #require(try w.table(named: "Junk"))
        let text = String(repeating: Character(UnicodeScalar(UInt8(97 + round % 26))), count: 500)
        for k in try junk.objectKeys() { try junk.set(k, 1, .string(text)) }
        try w.commit()
    }

    /// Space reuse across processes: while another process pins an old version, a steady update
    /// workload makes the file grow; once that process crashes (SIGKILL, its reader slot still
    /// set) the next writer releases the slot and the same workload stops growing the file.
    @Test func fileGrowsWhileAnotherProcessPinsAndStopsAfterThatProcessCrashes() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("pinned.atoll")
        let reader = try ChildProcess(Self.helper, ["serve", path])
        #expect(reader.readLine() == "ready")
        #expect(reader.ask("fill 300 500").hasPrefix("ok "))
        let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe))
        for round in 0..<3 { try rewriteAll(db, round: round) }
        let baseline = try pageCount(db)

        let held = reader.ask("hold")
        #expect(held.hasPrefix("held "))
        for round in 3..<28 { try rewriteAll(db, round: round) }
        let grown = try pageCount(db)
        #expect(grown > baseline * 4, "pinned by another process, the file grows: \(baseline) -> \(grown) pages")
        #expect(try db.stats().oldestPinnedVersion == UInt64(held.dropFirst(5)))

        reader.kill9()
        for round in 28..<36 { try rewriteAll(db, round: round) }
        #expect(try db.stats().oldestPinnedVersion == nil, "the crashed process's reader slot is released")
        let settled = try pageCount(db)
        for round in 36..<76 { try rewriteAll(db, round: round) }
        let final = try pageCount(db)
        print("pinned by another process: \(baseline) -> \(grown) pages; after its crash: \(settled) -> \(final)")
        #expect(final <= settled, "after the pinning process died, pages are reused: \(settled) -> \(final)")
        _ = try db.verify()
    }
}
