// atoll-test-helper: a child process for the multi-process and crash tests. Each command works
// on a database file and reports on stdout, one line per event, flushed at once.
// `ATOLL_TEST_KEY` (128 hex digits), when set, is the file's encryption key.

import AtollStorage
import CAtollShims
import Foundation

@main
struct AtollTestHelper {
    static func say(_ line: String) {
        print(line)
        fflush(nil)
    }

    static let counterSpec = TableSpec(name: "Counter", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "value", type: .int),
    ], primaryKey: "id")

    static let junkSpec = TableSpec(name: "Junk", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "text", type: .string, isIndexed: true),
        ColumnSpec(name: "blob", type: .binary, isNullable: true),
        ColumnSpec(name: "n", type: .int, isIndexed: true),
    ], primaryKey: "id")

    static func encryptionKey() throws -> EncryptionKey? {
        guard let hex = ProcessInfo.processInfo.environment["ATOLL_TEST_KEY"] else { return nil }
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { throw AtollError(.invalidKey, "ATOLL_TEST_KEY has an odd number of hex digits") }
        var bytes: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let b = UInt8(String(decoding: digits[i..<(i + 2)], as: UTF8.self), radix: 16) else {
                throw AtollError(.invalidKey, "ATOLL_TEST_KEY is not hexadecimal")
            }
            bytes.append(b)
        }
        return try EncryptionKey(bytes: bytes)
    }

    /// Opens the database and makes sure the Counter table and its row exist.
    static func open(_ path: String, durability: DatabaseConfiguration.Durability = .full) throws -> Database {
        let db = try Database.open(DatabaseConfiguration(path: path, durability: durability, encryptionKey: try encryptionKey()))
        let w = try db.beginWrite()
        if try w.table(named: "Counter") == nil {
            let t = try w.table(w.createTable(counterSpec))
            try t.create(primaryKey: .int(1))
            _ = try w.createTable(junkSpec)
            try w.commit()
        } else {
            w.rollback()
        }
        return db
    }

    static func counter(_ t: Transaction) throws -> Int64 {
        guard let table = try t.table(named: "Counter"), case .int(let v) = try table.value(ObjectKey(primaryKey: 1), 1) else { return -1 }
        return v
    }

    /// One transaction that increments the counter; with `junk`, also churns rows and blobs.
    static func increment(_ db: Database, junk: Bool, rng: inout SystemRandomNumberGenerator) throws -> Int64 {
        let (w, v) = try prepareIncrement(db, junk: junk, rng: &rng)
        try w.commit()
        return v
    }

    /// The changes of `increment`, not yet committed; returns the transaction and the new value.
    static func prepareIncrement(_ db: Database, junk: Bool, rng: inout SystemRandomNumberGenerator) throws -> (WriteTransaction, Int64) {
        let w = try db.beginWrite()
        guard let counter = try w.table(named: "Counter"), let junkTable = try w.table(named: "Junk") else {
            throw AtollError(.schemaMismatch, "helper tables missing")
        }
        let key = ObjectKey(primaryKey: 1)
        guard case .int(let v) = try counter.value(key, 1) else { throw AtollError(.typeMismatch, "counter") }
        try counter.set(key, 1, .int(v + 1))
        if junk {
            for _ in 0..<Int.random(in: 1...20, using: &rng) {
                let id = Int64.random(in: 0..<400, using: &rng)
                let k = ObjectKey(primaryKey: id)
                if try junkTable.contains(k) {
                    if Bool.random(using: &rng) { try junkTable.erase(k) } else { try junkTable.set(k, 3, .int(v)) }
                } else {
                    let o = try junkTable.create(primaryKey: .int(id))
                    try junkTable.set(o, 1, .string(String(repeating: "x", count: Int.random(in: 0...300, using: &rng))))
                    if Int.random(in: 0..<5, using: &rng) == 0 {
                        try junkTable.set(o, 2, .binary([UInt8](repeating: UInt8(id & 255), count: Int.random(in: 1000...20_000, using: &rng))))
                    }
                }
            }
        }
        return (w, v + 1)
    }

    /// FNV-1a over every Junk row (id, text, blob, n) and the counter of one snapshot: two
    /// digests are equal only if the snapshot's contents are.
    static func digest(_ t: Transaction) throws -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ bytes: some Sequence<UInt8>) { for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 } }
        func mix(_ v: Int64) { withUnsafeBytes(of: v.littleEndian) { mix($0) } }
        mix(try counter(t))
        guard let junk = try t.table(named: "Junk") else { return "0 0" }
        for k in try junk.objectKeys() {
            mix(Int64(bitPattern: k.rawValue))
            if case .string(let s) = try junk.value(k, 1) { mix(s.utf8) }
            if case .binary(let b) = try junk.value(k, 2) { mix(b) } else { mix(-1) }
            if case .int(let n) = try junk.value(k, 3) { mix(n) }
        }
        return "\(junk.count) \(String(h, radix: 16))"
    }

    /// Appends `count` Junk rows with `bytes`-long texts after the largest id, in one commit.
    static func fill(_ db: Database, count: Int, bytes: Int) throws {
        let w = try db.beginWrite()
        guard let junk = try w.table(named: "Junk") else { throw AtollError(.schemaMismatch, "helper tables missing") }
        var next: Int64 = 0
        if let last = try junk.objectKeys().last, case .int(let id) = try junk.primaryKeyValue(last) { next = id + 1 }
        for i in 0..<Int64(count) {
            let k = try junk.create(primaryKey: .int(next + i))
            try junk.set(k, 1, .string(String(repeating: Character(UnicodeScalar(UInt8(97 + (next + i) % 26))), count: bytes)))
            try junk.set(k, 3, .int(next + i))
        }
        try w.commit()
    }

    /// Runs one command per stdin line and answers each with one line:
    ///   fill N BYTES   append N Junk rows           -> "ok FILEBYTES"
    ///   clear          erase every Junk row           -> "ok FILEBYTES"
    ///   increment N    N counter commits              -> "ok COUNTER"
    ///   hold           pin the newest version         -> "held VERSION"
    ///   digest         digest of the held (else newest) snapshot -> "digest ROWS HASH"
    ///   release        unpin                          -> "ok"
    ///   verify         verify the newest version      -> "ok"
    static func serve(_ db: Database) throws {
        var held: ReadTransaction?
        var rng = SystemRandomNumberGenerator()
        say("ready")
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            let n = words.count > 1 ? Int(words[1]) ?? 0 : 0
            func fileBytes() -> Int {
                var st = stat()
                return stat(db.configuration.path ?? "", &st) == 0 ? Int(st.st_size) : -1
            }
            switch words.first ?? "" {
            case "fill":
                try fill(db, count: n, bytes: words.count > 2 ? Int(words[2]) ?? 0 : 0)
                say("ok \(fileBytes())")
            case "clear":
                let w = try db.beginWrite()
                try w.table(named: "Junk")?.clear()
                try w.commit()
                say("ok \(fileBytes())")
            case "increment":
                var v: Int64 = 0
                for _ in 0..<n { v = try increment(db, junk: false, rng: &rng) }
                say("ok \(v)")
            case "hold":
                held?.close()
                let r = try db.beginRead()
                held = r
                say("held \(r.version)")
            case "digest":
                if let held { say("digest \(try digest(held))") } else {
                    let r = try db.beginRead()
                    defer { r.close() }
                    say("digest \(try digest(r))")
                }
            case "release":
                held?.close()
                held = nil
                say("ok")
            case "verify":
                _ = try db.verify()
                say("ok")
            case "quit":
                return
            default:
                say("error unknown command \(line)")
            }
        }
    }

    static func main() {
        let args = CommandLine.arguments
        // Dies with the test process. `serve` does not need the signal, and must not have it: it
        // ends at the end of its input, a pipe only the test holds, and the signal fires when the
        // *thread* that spawned the helper ends (PR_SET_PDEATHSIG is per thread), which for a
        // helper spawned from an async test is a cooperative-pool thread that the pool may retire
        // while the test goes on elsewhere (it did under Thread Sanitizer: a killed helper, then
        // the test's next write to it failed with EPIPE).
        if args.count < 2 || args[1] != "serve" {
            _ = atoll_set_parent_death_signal(SIGKILL)
        }
        guard args.count >= 3 else {
            FileHandle.standardError.write("usage: AtollTestHelper COMMAND DBPATH [ARGS]\n".data(using: .utf8) ?? Data())
            exit(2)
        }
        let path = args[2]
        var rng = SystemRandomNumberGenerator()
        do {
            switch args[1] {
            case "commit-loop":
                // Commits forever; prints each counter value once its commit has returned. With a
                // probe file, publishes where it is (CrashProbe) so the parent can aim its kill.
                let db = try open(path, durability: args.count > 4 && args[4] == "unsafe" ? .unsafe : .full)
                let probe = args.count > 3 ? try CrashProbe(path: args[3]) : nil
                say("ready")
                while true {
                    probe?.set(phase: CrashProbe.building)
                    let (w, v) = try prepareIncrement(db, junk: true, rng: &rng)
                    probe?.set(phase: CrashProbe.committing)
                    let start = atoll_monotonic_nanoseconds()
                    try w.commit()
                    probe?.set(phase: CrashProbe.committed)
                    probe?.recordCommit(nanoseconds: atoll_monotonic_nanoseconds() - start)
                    say("committed \(v)")
                }
            case "increment":
                // N read-modify-write commits of the counter, started by a "go" line; reports every
                // value it wrote, so the parent can check that no two writers wrote the same one.
                let n = Int(args.count > 3 ? args[3] : "100") ?? 100
                let db = try open(path, durability: .unsafe)
                say("ready")
                guard readLine() == "go" else { exit(3) }
                var values: [Int64] = []
                values.reserveCapacity(n)
                for _ in 0..<n { values.append(try increment(db, junk: false, rng: &rng)) }
                say("done " + values.map(String.init).joined(separator: ","))
            case "hold-reader":
                // Holds one snapshot; prints its counter on every stdin line; "refresh" takes a new one.
                let db = try open(path, durability: .unsafe)
                var r = try db.beginRead()
                say("value \(try counter(r))")
                while let line = readLine() {
                    if line == "refresh" { r.close(); r = try db.beginRead() }
                    if line == "quit" { break }
                    say("value \(try counter(r))")
                }
                r.close()
            case "serve":
                try serve(try open(path, durability: args.count > 3 && args[3] == "full" ? .full : .unsafe))
            case "wait-commit":
                // N rounds: "waiting", then sleep until a commit; "woke T" with T the monotonic
                // clock (shared by every process) in nanoseconds when it woke.
                let rounds = Int(args.count > 3 ? args[3] : "1") ?? 1
                let db = try open(path, durability: .unsafe)
                for _ in 0..<rounds {
                    let seen = db.commitSequence
                    say("waiting")
                    let now = db.waitForCommit(after: seen, timeoutMilliseconds: 10_000)
                    let woke = atoll_monotonic_nanoseconds()
                    say(now != seen ? "woke \(woke)" : "timeout")
                }
            #if !ATOLL_OUTSIDE_PACKAGE
            // Uses AtollStorage's `package` API, which tools/tsan's build of this helper (another
            // package, ATOLL_OUTSIDE_PACKAGE) cannot see; no test there asks for this command.
            case "dismiss-conflicts":
                // Removes every entry of the conflict ledger (what `Conflict.dismiss` does for
                // one), in one commit, without touching the file's classes: "ok N".
                let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe, encryptionKey: try encryptionKey()))
                let w = try db.beginWrite()
                var keys: [[UInt8]] = []
                try w.forEachInternalEntry("sync.conflicts", from: []) { k, _ in
                    keys.append(Array(k))
                    return true
                }
                for k in keys { try w.deleteInternal("sync.conflicts", key: k) }
                try w.commit()
                say("ok \(keys.count)")
            #endif
            default:
                FileHandle.standardError.write("unknown command \(args[1])\n".data(using: .utf8) ?? Data())
                exit(2)
            }
        } catch {
            say("error \(error)")
            exit(1)
        }
    }
}

/// A page shared with the parent test through a file: where the commit loop is, and how long
/// its commits take.
///     0  u32  phase (building, committing, committed)
///     4  u32  mean commit time, microseconds
///     8  u64  commits
final class CrashProbe {
    static let building: UInt32 = 1, committing: UInt32 = 2, committed: UInt32 = 3
    let base: UnsafeMutableRawPointer
    private var totalNanoseconds: UInt64 = 0
    private var commits: UInt64 = 0

    init(path: String) throws {
        let fd = Glibc.open(path, O_RDWR | O_CREAT, 0o644)
        guard fd >= 0, ftruncate(fd, 4096) == 0,
              let p = mmap(nil, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED
        else { throw AtollError(.ioError, "cannot map the probe file \(path)") }
        close(fd)
        base = p
    }

    func set(phase: UInt32) { atoll_atomic_store_u32(base.assumingMemoryBound(to: UInt32.self), phase) }

    func recordCommit(nanoseconds: UInt64) {
        commits += 1
        totalNanoseconds += nanoseconds
        atoll_atomic_store_u32((base + 4).assumingMemoryBound(to: UInt32.self), UInt32(clamping: totalNanoseconds / commits / 1000))
        atoll_atomic_store_u64((base + 8).assumingMemoryBound(to: UInt64.self), commits)
    }
}
