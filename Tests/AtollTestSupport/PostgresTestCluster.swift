import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL cluster for tests, made with the server binaries of Debian's
/// `postgresql` package: `initdb` into a temporary directory (owned by the `postgres` user when
/// the tests run as root, which initdb refuses), `pg_ctl start` on a free port of 127.0.0.1 with
/// its socket in that directory, trust authentication. One cluster serves the whole test process
/// (starting one costs seconds); each test takes a database of its own (`makeDatabase`). It is
/// stopped (`pg_ctl stop -m fast`) and removed when the process exits, and clusters left by a
/// test process that was killed are removed by the next one.
///
/// When the binaries are missing, `shared()` throws a message saying how to install them: the
/// PostgreSQL tests fail, they are never skipped silently.
///
/// ```swift
/// let url = try PostgresTestCluster.shared().makeDatabase()   // postgresql://postgres@127.0.0.1:PORT/atoll_test_7
/// ```
public final class PostgresTestCluster: Sendable {
    public let directory: String
    public let port: Int
    public let binaries: String
    private let databases = Atomic<Int>(0)

    private static let state = TestLock<Result<PostgresTestCluster, PostgresTestClusterError>?>(nil)

    /// The process's cluster, started on first use.
    public static func shared() throws -> PostgresTestCluster {
        try state.withLock { state in
            if let state { return try state.get() }
            let result = Result { () throws(PostgresTestClusterError) -> PostgresTestCluster in try PostgresTestCluster() }
            state = result
            if case .success = result { atexit { PostgresTestCluster.stopShared() } }
            return try result.get()
        }
    }

    /// A cluster of the caller's own (a test that stops and restarts PostgreSQL must not take the
    /// shared one away from the others): stop it with `stop(removing: true)`.
    public static func startDedicated() throws -> PostgresTestCluster {
        try PostgresTestCluster()
    }

    private static func stopShared() {
        guard case .success(let cluster)? = state.withLock({ $0 }) else { return }
        cluster.stop(removing: true)
    }

    /// The directory of `initdb`, `pg_ctl` and `psql` (the newest installed version).
    public static func findBinaries() throws(PostgresTestClusterError) -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        for version in versions.reversed() {
            let bin = "\(root)/\(version)/bin"
            if FileManager.default.isExecutableFile(atPath: "\(bin)/initdb"), FileManager.default.isExecutableFile(atPath: "\(bin)/pg_ctl") {
                return bin
            }
        }
        throw PostgresTestClusterError(
            "the PostgreSQL server binaries (initdb, pg_ctl in /usr/lib/postgresql/VERSION/bin) are missing; the relay's PostgreSQL tests need them: install them with 'apt-get install -y postgresql' (tools/setup does it)")
    }

    private init() throws(PostgresTestClusterError) {
        binaries = try Self.findBinaries()
        Self.removeAbandonedClusters(binaries: binaries)
        directory = "/tmp/atoll-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try "\(getpid())\n".write(toFile: "\(directory)/owner.pid", atomically: true, encoding: .utf8)
        } catch {
            throw PostgresTestClusterError("cannot create \(directory): \(error)")
        }
        if geteuid() == 0 { try Self.run("/bin/chown", ["-R", "postgres:postgres", directory]) }
        try Self.asServerUser("\(binaries)/initdb", ["-D", "\(directory)/data", "-A", "trust", "-U", "postgres",
                                           "-E", "UTF8", "--locale=C", "--no-sync"])
        port = try Self.freePort()
        try start()
    }

    /// Server settings: loopback and a socket in the cluster's directory; fsync off (the tests
    /// kill relays and nodes, never the machine; a clean stop still writes everything).
    private func options(port: Int) -> String {
        "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c full_page_writes=off -c log_min_messages=warning"
    }

    /// A new, empty database; returns its URL.
    public func makeDatabase(_ prefix: String = "atoll_test") throws -> String {
        let name = "\(prefix)_\(databases.add(1, ordering: .relaxed).newValue)"
        try psql(database: "postgres", "CREATE DATABASE \(name)")
        return url(name)
    }

    public func url(_ database: String) -> String { "postgresql://postgres@127.0.0.1:\(port)/\(database)" }

    /// Runs `sql` with psql and returns its output (unaligned, tuples only: one row a line,
    /// columns separated by '|').
    @discardableResult
    public func psql(database: String, _ sql: String) throws -> String {
        try Self.run("\(binaries)/psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql])
    }

    /// The database name of a URL this cluster made.
    public static func databaseName(_ url: String) -> String { String(url.split(separator: "/").last ?? "") }

    /// Stops the server (`pg_ctl stop -m fast`); `start()` brings it back on the same port.
    public func stop(removing: Bool = false) {
        do {
            try Self.asServerUser("\(binaries)/pg_ctl", ["-D", "\(directory)/data", "-m", "fast", "-w", "-t", "60", "stop"])
        } catch {
            FileHandle.standardError.write(Data("PostgresTestCluster: \(error)\n".utf8))
        }
        if removing {
            do {
                try FileManager.default.removeItem(atPath: directory)
            } catch {
                FileHandle.standardError.write(Data("PostgresTestCluster: cannot remove \(directory): \(error)\n".utf8))
            }
        }
    }

    public func start() throws(PostgresTestClusterError) {
        do {
            try Self.asServerUser("\(binaries)/pg_ctl", ["-D", "\(directory)/data", "-l", "\(directory)/server.log",
                                               "-w", "-t", "120", "-o", options(port: port), "start"])
        } catch {
            // The server's own reason is in its log, not in pg_ctl's output.
            let log = (try? String(contentsOfFile: "\(directory)/server.log", encoding: .utf8)) ?? "(no server.log)"
            let tail = log.split(separator: "\n").suffix(8).joined(separator: "\n")
            throw PostgresTestClusterError("\(error.description)\nserver.log ends with:\n\(tail)")
        }
    }

    /// Clusters of test processes that no longer run: stopped at once and removed.
    private static func removeAbandonedClusters(binaries: String) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []
        for entry in entries where entry.hasPrefix("atoll-pg-") {
            let dir = "/tmp/\(entry)"
            guard let text = try? String(contentsOfFile: "\(dir)/owner.pid", encoding: .utf8),
                  let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            if FileManager.default.fileExists(atPath: "\(dir)/data/postmaster.pid") {
                _ = try? asServerUser("\(binaries)/pg_ctl", ["-D", "\(dir)/data", "-m", "immediate", "-w", "stop"])
            }
            _ = try? FileManager.default.removeItem(atPath: dir)
        }
    }

    /// A port of 127.0.0.1 that is free now and outside the kernel's ephemeral range
    /// (`ip_local_port_range`). Outside it, no outgoing connection can take the port while the
    /// server is stopped: a relay that keeps reconnecting to a stopped server on an ephemeral port
    /// can be given that very port as its local one (TCP connects to itself), and the restart then
    /// fails with "could not bind".
    private static func freePort() throws(PostgresTestClusterError) -> Int {
        let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))?
            .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) } ?? []
        let ephemeralLow = range.first ?? 32768
        let candidates = ephemeralLow > 12000 ? 10000..<(ephemeralLow - 1) : 1024..<10000
        for _ in 0..<200 {
            let port = Int.random(in: candidates)
            if try isFree(port) { return port }
        }
        throw PostgresTestClusterError("no free port of 127.0.0.1 in \(candidates.lowerBound)..<\(candidates.upperBound) after 200 tries")
    }

    /// Whether `port` of 127.0.0.1 can be bound now (bound and released at once).
    private static func isFree(_ port: Int) throws(PostgresTestClusterError) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw PostgresTestClusterError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return bound == 0
    }

    /// Runs a server binary as the `postgres` user when this process is root (initdb and the
    /// server refuse root), else as this user.
    @discardableResult
    static func asServerUser(_ executable: String, _ arguments: [String]) throws(PostgresTestClusterError) -> String {
        guard geteuid() == 0 else { return try run(executable, arguments) }
        return try run("/usr/sbin/runuser", ["-u", "postgres", "--", executable] + arguments)
    }

    /// Runs a program to its end; throws with its output when it fails.
    ///
    /// posix_spawn and waitpid, not Foundation's `Process`: its `waitUntilExit` spins a run loop
    /// and was seen never to return on the cooperative pool (the child left a zombie). The output
    /// goes to a temporary file, not a pipe, so a daemon the program starts (`pg_ctl start`)
    /// can never hold the read open.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws(PostgresTestClusterError) -> String {
        let outputPath = "/tmp/atoll-pg-run-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).out"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // In /tmp (env -C): the postgres user may not enter the test's working directory.
        let argv: [UnsafeMutablePointer<CChar>?] = (["/usr/bin/env", "-C", "/tmp", executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw PostgresTestClusterError("cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw PostgresTestClusterError("waitpid for \(executable): \(String(cString: strerror(errno)))") }
        }
        let text = ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        let exited = status & 0x7F == 0
        let code = (status >> 8) & 0xFF
        guard exited, code == 0 else {
            let how = exited ? "status \(code)" : "signal \(status & 0x7F)"
            throw PostgresTestClusterError("\((executable as NSString).lastPathComponent) \(arguments.joined(separator: " ")) failed (\(how)): \(text)")
        }
        return text
    }
}

public struct PostgresTestClusterError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
