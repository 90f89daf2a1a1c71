import AtollTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The read-only commands (`query`, `dump`, `schema`, `stats`, `verify`, `log`) on a database they
/// cannot write beside: on read-only media (a read-only bind mount, EROFS even for root), in a
/// folder the user may not write (EACCES, run as `nobody`), and in a writable folder, where they
/// leave no lock file behind.
@Suite struct ReadOnlyMediaTests {
    static var canMount: Bool { ReadOnlyMount.isSupported }
    static var canSwitchUser: Bool { getuid() == 0 && access("/usr/sbin/runuser", X_OK) == 0 }

    /// A sandbox with `pets.atoll` imported from the fixtures, without its lock file.
    func imported() throws -> CLISandbox {
        let sandbox = CLISandbox()
        try sandbox.write("schema.json", Fixtures.schema)
        try sandbox.write("data.json", Fixtures.data)
        let r = try sandbox.atoll("import", "pets.atoll", "--schema", "schema.json", "--data", "data.json")
        #expect(r.status == 0, "\(r)")
        unlink(sandbox.file("pets.atoll.lock"))
        return sandbox
    }

    static let readCommands: [[String]] = [
        ["query", "Dog", "age > 1", "--sort", "id"], ["dump", "--canonical"], ["schema"], ["verify"], ["log"],
    ]

    /// Runs every read command on `path` through `run`; returns their outputs.
    func readEverything(_ path: String, _ run: ([String]) throws -> CLIResult) throws -> [String] {
        var outputs: [String] = []
        for command in Self.readCommands {
            let r = try run([command[0], path] + command.dropFirst())
            #expect(r.status == 0, "atoll \(command.joined(separator: " ")): \(r)")
            // `log` notes on stderr that this file stores no history.
            if command[0] != "log" { #expect(r.stderr == "", "atoll \(command[0])") }
            outputs.append(r.stdout)
        }
        let stats = try run(["stats", path])
        #expect(stats.status == 0, "atoll stats: \(stats)")
        return outputs
    }

    @Test func readCommandsLeaveNoLockFileBehind() throws {
        let s = try imported()
        _ = try readEverything("pets.atoll") { try s.run($0) }
        #expect(!s.exists("pets.atoll.lock"))
    }

    @Test(.enabled(if: canMount)) func readCommandsWorkOnReadOnlyMedia() throws {
        let media = try #require(ReadOnlyMount.make())
        let s = try imported()
        let name = "pets-\(UUID().uuidString).atoll"
        try FileManager.default.copyItem(atPath: s.file("pets.atoll"), toPath: media.writable.file(name))
        let expected = try readEverything("pets.atoll") { try s.run($0) }
        let found = try readEverything(media.file(name)) { try s.run($0) }
        #expect(found == expected)
        // A write fails with a clear error, and nothing else.
        let r = try s.atoll("delete", media.file(name), "Dog", "age > 1")
        #expect(r.status == 77, "\(r)")
        #expect(r.errorLines.count == 1 && r.stderr.contains("Read-only file system"), "\(r)")
    }

    /// Tests run as root, which permission bits do not stop: the commands run as `nobody`.
    @Test(.enabled(if: canSwitchUser)) func readCommandsWorkInAFolderTheUserCannotWrite() throws {
        let s = try imported()
        let folder = s.file("shelf")
        #expect(mkdir(folder, 0o755) == 0)
        #expect(rename(s.file("pets.atoll"), folder + "/pets.atoll") == 0)
        #expect(chmod(folder + "/pets.atoll", 0o644) == 0 && chmod(folder, 0o555) == 0)
        let expected = try readEverything(folder + "/pets.atoll") { try s.run($0) }
        #expect(!s.exists("shelf/pets.atoll.lock"))
        let found = try readEverything(folder + "/pets.atoll") { try s.run(["-u", "nobody", "--", CLISandbox.executable.path] + $0, executable: URL(fileURLWithPath: "/usr/sbin/runuser")) }
        #expect(found == expected)
        let r = try s.atoll(asUser: "nobody", "delete", folder + "/pets.atoll", "Dog", "age > 1")
        #expect(r.status == 77 && r.errorLines.count == 1, "\(r)")
        chmod(folder, 0o755)
    }
}
