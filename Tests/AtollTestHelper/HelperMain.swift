// atoll-test-helper: a child process for the multi-process and crash tests. Each command works
// on a database file and reports on stdout, one line per event, flushed at once.

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

    /// Opens the database and makes sure the Counter table and its row exist.
    static func open(_ path: String, durability: DatabaseConfiguration.Durability = .full) throws -> Database {
        let db = try Database.open(DatabaseConfiguration(path: path, durability: durability))
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
        try w.commit()
        return v + 1
    }

    static func main() {
        _ = atoll_set_parent_death_signal(SIGKILL)
        let args = CommandLine.arguments
        guard args.count >= 3 else {
            FileHandle.standardError.write("usage: AtollTestHelper COMMAND DBPATH [ARGS]\n".data(using: .utf8) ?? Data())
            exit(2)
        }
        let path = args[2]
        var rng = SystemRandomNumberGenerator()
        do {
            switch args[1] {
            case "commit-loop":
                // Commits forever; prints each counter value once its commit has returned.
                let db = try open(path)
                say("ready")
                while true { say("committed \(try increment(db, junk: true, rng: &rng))") }
            case "increment":
                let n = Int(args.count > 3 ? args[3] : "100") ?? 100
                let db = try open(path, durability: .unsafe)
                say("ready")
                for _ in 0..<n { _ = try increment(db, junk: false, rng: &rng) }
                say("done")
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
            case "wait-commit":
                let db = try open(path, durability: .unsafe)
                let seen = db.commitSequence
                say("ready")
                let start = atoll_monotonic_nanoseconds()
                let now = db.waitForCommit(after: seen, timeoutMilliseconds: 10_000)
                let elapsed = (atoll_monotonic_nanoseconds() - start) / 1000
                say(now != seen ? "woke \(elapsed)" : "timeout")
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
