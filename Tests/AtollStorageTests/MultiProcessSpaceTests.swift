import Foundation
import Testing
@testable import AtollStorage

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
}
