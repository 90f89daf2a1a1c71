#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A throwaway PostgreSQL cluster for the `relay` suite, started the way the tests'
/// `PostgresTestCluster` (Tests/AtollTestSupport) starts theirs: the server binaries of Debian's
/// `postgresql` package, `initdb` into a directory of its own under /tmp (as the `postgres` user
/// when the benchmark runs as root, which initdb refuses), `pg_ctl start` on a free port of
/// 127.0.0.1 with its socket in that directory, trust authentication; `stop()` stops it and
/// removes the directory.
///
/// A bench-local copy, not the test helper itself: `AtollTestSupport` is a target of the Atoll
/// package but not one of its products, so this separate package cannot depend on it (making it
/// a product would publish a test helper as a library of Atoll).
///
/// One difference on purpose: the tests run their cluster with `fsync=off` (they kill processes,
/// never the machine); a benchmark of appends must pay for durability as the file store does,
/// so this cluster keeps PostgreSQL's defaults (`fsync=on`, `synchronous_commit=on`).
final class BenchPostgres {
    let directory: String
    let port: Int
    let binaries: String
    private var databases = 0
    private var stopped = false

    init() throws {
        let bin = try Self.findBinaries()
        let dir = "/tmp/atoll-bench-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            throw BenchError("cannot create \(dir): \(error)")
        }
        let freePort: Int
        do {
            if geteuid() == 0 { try Self.run("/bin/chown", ["-R", "postgres:postgres", dir]) }
            try Self.asServerUser("\(bin)/initdb", ["-D", "\(dir)/data", "-A", "trust", "-U", "postgres",
                                                  "-E", "UTF8", "--locale=C", "--no-sync"])
            freePort = try Self.freePort()
            try Self.asServerUser("\(bin)/pg_ctl", ["-D", "\(dir)/data", "-l", "\(dir)/server.log",
                                                  "-w", "-t", "120", "-o", Self.options(port: freePort, directory: dir), "start"])
        } catch {
            try? FileManager.default.removeItem(atPath: dir)
            throw error
        }
        binaries = bin
        directory = dir
        port = freePort
    }

    deinit { stop() }

    /// Loopback and a socket in the cluster's directory; PostgreSQL's default durability.
    private static func options(port: Int, directory: String) -> String {
        "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c max_connections=300 -c log_min_messages=warning"
    }

    /// The directory of `initdb`, `pg_ctl` and `psql` (the newest installed version).
    static func findBinaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        for version in versions.reversed() {
            let bin = "\(root)/\(version)/bin"
            if FileManager.default.isExecutableFile(atPath: "\(bin)/initdb"), FileManager.default.isExecutableFile(atPath: "\(bin)/pg_ctl") {
                return bin
            }
        }
        throw BenchError("the relay suite runs PostgreSQL, whose server binaries (initdb, pg_ctl in /usr/lib/postgresql/VERSION/bin) are missing: run 'bash tools/setup --bench' (or apt-get install -y postgresql)")
    }

    /// A new, empty database; returns its URL.
    func makeDatabase(_ prefix: String) throws -> String {
        databases += 1
        let name = "\(prefix)_\(databases)"
        try psql(database: "postgres", "CREATE DATABASE \(name)")
        return "postgresql://postgres@127.0.0.1:\(port)/\(name)"
    }

    /// Runs `sql` with psql; its output (unaligned, tuples only).
    @discardableResult
    func psql(database: String, _ sql: String) throws -> String {
        try Self.run("\(binaries)/psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql])
    }

    /// The database name at the end of a URL `makeDatabase` returned.
    static func databaseName(_ url: String) -> String { String(url.split(separator: "/").last ?? "") }

    /// Stops the server (`pg_ctl stop -m fast`) and removes its directory; idempotent.
    func stop() {
        guard !stopped else { return }
        stopped = true
        do {
            try Self.asServerUser("\(binaries)/pg_ctl", ["-D", "\(directory)/data", "-m", "fast", "-w", "-t", "60", "stop"])
        } catch {
            writeStandardError("relay: stopping PostgreSQL: \(error)\n")
        }
        do {
            try FileManager.default.removeItem(atPath: directory)
        } catch {
            writeStandardError("relay: cannot remove \(directory): \(error)\n")
        }
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw BenchError("bind: \(String(cString: strerror(errno)))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw BenchError("getsockname: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs a server binary as the `postgres` user when this process is root, else as this user.
    @discardableResult
    static func asServerUser(_ executable: String, _ arguments: [String]) throws -> String {
        guard geteuid() == 0 else { return try run(executable, arguments) }
        return try run("/usr/sbin/runuser", ["-u", "postgres", "--", executable] + arguments)
    }

    /// Runs a program to its end (in /tmp, which the postgres user may enter); throws with its
    /// output when it fails. The output goes to a file, not a pipe, so a daemon the program
    /// starts (`pg_ctl start`) never holds a pipe open.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let outputPath = "/tmp/atoll-bench-pg-run-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).out"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = (["/usr/bin/env", "-C", "/tmp", executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchError("cannot run \(executable): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw BenchError("waitpid for \(executable): \(String(cString: strerror(errno)))") }
        }
        let text = ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        let exited = status & 0x7F == 0
        let code = (status >> 8) & 0xFF
        guard exited, code == 0 else {
            let how = exited ? "status \(code)" : "signal \(status & 0x7F)"
            throw BenchError("\((executable as NSString).lastPathComponent) \(arguments.joined(separator: " ")) failed (\(how)): \(text)")
        }
        return text
    }
}
