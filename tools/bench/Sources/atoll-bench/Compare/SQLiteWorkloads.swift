#if canImport(Glibc)
import Glibc
#endif
import GRDB

// The SQLite side of the compare suite, through GRDB 7.10.0, written as the fastest idiomatic
// GRDB code: a DatabaseQueue in WAL mode with `synchronous = FULL` (Atoll commits with full
// durability), cached prepared statements with unchecked argument binding, statement-backed
// cursors (no row copies), one transaction where Atoll uses one. The schema has the same
// columns as the Atoll model, `id` as the INTEGER PRIMARY KEY (the rowid), and an index on
// `name`.
//
// GRDB's WAL set-up runs after `Configuration.prepareDatabase` and sets `synchronous = NORMAL`,
// so `synchronous = FULL` is set after opening, and checked.
//
// Memory: Atoll reads its file through a map, so the whole file can sit in memory. SQLite's
// default page cache is 2 MiB, which makes a 1M-row load with an index thrash (every page
// evicted goes back through the WAL). SQLiteTuning gives SQLite a page cache large enough for
// the whole database and memory-mapped reads, as a user tuning for speed would.

/// Memory settings of the SQLite connections (command-line options, passed to child probes).
struct SQLiteTuning: Sendable {
    static let defaultCacheMebibytes = 256
    static let defaultMmapMebibytes = 0

    var cacheMebibytes = defaultCacheMebibytes
    var mmapMebibytes = defaultMmapMebibytes

    var arguments: [String] { [String(cacheMebibytes), String(mmapMebibytes)] }

    init(cacheMebibytes: Int = defaultCacheMebibytes, mmapMebibytes: Int = defaultMmapMebibytes) {
        self.cacheMebibytes = cacheMebibytes
        self.mmapMebibytes = mmapMebibytes
    }

    init(arguments: ArraySlice<String>) throws {
        guard arguments.count == 2, let c = Int(arguments.first!), let m = Int(arguments.last!) else {
            throw BenchError("expected <cache MiB> <mmap MiB>")
        }
        self.init(cacheMebibytes: c, mmapMebibytes: m)
    }

    var description: String {
        (cacheMebibytes > 0 ? "cache_size \(cacheMebibytes) MiB" : "default cache_size")
            + (mmapMebibytes > 0 ? ", mmap_size \(mmapMebibytes) MiB" : ", no mmap")
    }
}

struct SQLiteWorkloads: CompareEngine {
    let name = "sqlite"
    let fileExtension = "sqlite"
    let tuning: SQLiteTuning

    static let insertSQL = "INSERT INTO item (id, name, age, score, active) VALUES (?, ?, ?, ?, ?)"

    /// Opens (or creates) `path` in WAL mode with full synchronous commits.
    static func openQueue(_ path: String, tuning: SQLiteTuning) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.label = "atoll-bench"
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            guard try Int.fetchOne(db, sql: "PRAGMA synchronous") == 2 else { throw BenchError("sqlite: synchronous is not FULL") }
            if tuning.cacheMebibytes > 0 { try db.execute(sql: "PRAGMA cache_size = -\(tuning.cacheMebibytes * 1024)") }
            if tuning.mmapMebibytes > 0 { try db.execute(sql: "PRAGMA mmap_size = \(tuning.mmapMebibytes << 20)") }
        }
        return queue
    }

    private func openQueue(_ path: String) throws -> DatabaseQueue { try Self.openQueue(path, tuning: tuning) }

    private func freshQueue(_ path: String) throws -> DatabaseQueue {
        ScratchDirectory.removeDatabase(path)
        let queue = try openQueue(path)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE item (
                    id INTEGER PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    age INTEGER NOT NULL,
                    score REAL NOT NULL,
                    active BOOLEAN NOT NULL
                );
                CREATE INDEX item_on_name ON item(name);
                """)
        }
        return queue
    }

    @inline(__always)
    private static func insert(_ data: ItemData, _ i: Int, _ statement: Statement) throws {
        statement.setUncheckedArguments([data.id(i), data.name(i), data.ages[i], data.scores[i], data.actives[i]])
        try statement.execute()
    }

    func timedInsertAll(path: String, data: ItemData) throws -> UInt64 {
        let queue = try freshQueue(path)
        let watch = Stopwatch()
        try queue.write { db in
            let statement = try db.cachedStatement(sql: Self.insertSQL)
            for i in 0..<data.count { try Self.insert(data, i, statement) }
        }
        return watch.elapsedNanoseconds
    }

    func timedSingleObjectCommits(path: String, data: ItemData, count: Int) throws -> UInt64 {
        let queue = try freshQueue(path)
        let watch = Stopwatch()
        for i in 0..<count {
            try queue.write { db in try Self.insert(data, i, try db.cachedStatement(sql: Self.insertSQL)) }
        }
        return watch.elapsedNanoseconds
    }

    func liveNotificationLatencies(path: String, data: ItemData, count: Int) throws -> [UInt64] {
        let queue = try freshQueue(path)
        return try LiveNotifications.latencies(engine: name, path: path, count: count, extra: tuning.arguments) { i in
            try queue.write { db in try Self.insert(data, i, try db.cachedStatement(sql: Self.insertSQL)) }
        }
    }

    /// W11's observer child: GRDB observes only its own connection's writes, so another
    /// process polls `PRAGMA data_version` (outside a transaction, so each poll sees the latest
    /// commit) and re-runs the query when it changes, until it has seen `count` objects.
    static func pollCommits(path: String, until count: Int, tuning: SQLiteTuning) throws {
        let queue = try openQueue(path, tuning: tuning)
        try queue.inDatabase { db in
            let version = try db.cachedStatement(sql: "PRAGMA data_version")
            let objects = try db.cachedStatement(sql: "SELECT COUNT(*) FROM item")
            var seenVersion = try Int.fetchOne(version) ?? 0
            var seen = try Int.fetchOne(objects) ?? 0
            LiveNotifications.say("ready")
            while seen < count {
                usleep(LiveNotifications.pollMicroseconds)
                let v = try Int.fetchOne(version) ?? 0
                guard v != seenVersion else { continue }
                seenVersion = v
                let n = try Int.fetchOne(objects) ?? 0
                guard n != seen else { continue }
                seen = n
                LiveNotifications.report(objects: n)
            }
        }
    }

    func timedUpdateScores(path: String, ids: [Int64], scores: [Double]) throws -> UInt64 {
        let queue = try openQueue(path)
        let watch = Stopwatch()
        try queue.write { db in
            let statement = try db.cachedStatement(sql: "UPDATE item SET score = ? WHERE id = ?")
            for (id, score) in zip(ids, scores) {
                statement.setUncheckedArguments([score, id])
                try statement.execute()
                guard db.changesCount == 1 else { throw BenchError("sqlite: object \(id) is missing") }
            }
        }
        return watch.elapsedNanoseconds
    }

    func timedDeleteAll(path: String) throws -> UInt64 {
        let queue = try openQueue(path)
        let watch = Stopwatch()
        try queue.write { db in try db.execute(sql: "DELETE FROM item") }
        return watch.elapsedNanoseconds
    }

    func build(path: String, data: ItemData) throws {
        _ = try timedInsertAll(path: path, data: data)
    }

    /// The main file plus any WAL left (GRDB checkpoints and removes the WAL when the last
    /// connection closes).
    func fileBytes(path: String) -> Int {
        ScratchDirectory.fileBytes(path) + ScratchDirectory.fileBytes(path + "-wal")
    }

    func objectCount(path: String) throws -> Int {
        try openQueue(path).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") ?? -1 }
    }

    func openReader(path: String) throws -> any CompareReader { try SQLiteReader(path: path, tuning: tuning) }

    /// Opens `path`, reads the name and age of the object with primary key `id`; returns the
    /// nanoseconds from before the open to after the read. Run in a fresh process.
    static func timedOpenAndRead(path: String, id: Int64, tuning: SQLiteTuning) throws -> UInt64 {
        let watch = Stopwatch()
        let queue = try openQueue(path, tuning: tuning)
        let row = try queue.read { db in try Row.fetchOne(db, sql: "SELECT name, age FROM item WHERE id = ?", arguments: [id]) }
        let ns = watch.elapsedNanoseconds
        guard let row, (row[0] as String?) != nil else { throw BenchError("no object with id \(id) in \(path)") }
        return ns
    }
}

/// The read workloads: each call is one `read` (one read transaction) on a queue opened once.
final class SQLiteReader: CompareReader {
    private var queue: DatabaseQueue?

    init(path: String, tuning: SQLiteTuning) throws {
        queue = try SQLiteWorkloads.openQueue(path, tuning: tuning)
    }

    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        guard let queue else { throw BenchError("sqlite: the reader is closed") }
        return try queue.read(body)
    }

    func lookups(_ ids: [Int64]) throws -> Int {
        try read { db in
            let statement = try db.cachedStatement(sql: "SELECT name, age FROM item WHERE id = ?")
            var check = 0
            for id in ids {
                statement.setUncheckedArguments([id])
                let rows = try Row.fetchCursor(statement)
                if let row = try rows.next() {
                    let name: String = row[0]
                    let age: Int64 = row[1]
                    check &+= name.utf8.count &+ Int(age)
                }
            }
            return check
        }
    }

    func countOlderThan40Active() throws -> Int {
        try read { db in
            try Int.fetchOne(try db.cachedStatement(sql: "SELECT COUNT(*) FROM item WHERE age > 40 AND active = 1")) ?? 0
        }
    }

    func namesSortedByAge(_ names: [String]) throws -> Int {
        try read { db in
            let statement = try db.cachedStatement(sql: "SELECT id FROM item WHERE name = ? ORDER BY age, id")
            var hash = 0
            for name in names {
                statement.setUncheckedArguments([name])
                let ids = try Int64.fetchCursor(statement)
                while let id = try ids.next() { mixIntoHash(&hash, id) }
            }
            return hash
        }
    }

    /// SQL has no type-safe form: the same statement as W4.
    func countOlderThan40ActiveTypeSafe() throws -> Int { try countOlderThan40Active() }

    /// SQL has no type-safe form: the same statement as W5.
    func namesSortedByAgeTypeSafe(_ names: [String]) throws -> Int { try namesSortedByAge(names) }

    func enumerateSumOfScores() throws -> Double {
        try read { db in
            let scores = try Double.fetchCursor(try db.cachedStatement(sql: "SELECT score FROM item"))
            var sum = 0.0
            while let score = try scores.next() { sum += score }
            return sum
        }
    }

    func aggregateSumOfScores() throws -> Double {
        try read { db in try Double.fetchOne(try db.cachedStatement(sql: "SELECT SUM(score) FROM item")) ?? 0 }
    }

    func close() { queue = nil }
}
