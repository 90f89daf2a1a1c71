import Atoll
import Foundation
import GRDB
import Synchronization

/// The `concurrency` suite (issue 16): Swift concurrency on one file, Atoll against SQLite through
/// GRDB's `DatabasePool` in the same run, the engines alternating run by run.
///
/// - C1: 8 actors each make 10k (× scale) small commits to one file, one object per commit,
///   full durability: Atoll through an actor-isolated realm per actor and `asyncWrite`, SQLite
///   through `DatabasePool.write` (async) from each actor. Commits per second over all actors,
///   from the first commit to the last (the realms and the pool are open before the timer).
/// - C2: a commit on one actor to the `AsyncSequence` consumer on another actor, p50 and p99
///   over 500 (× scale) commits, one at a time (each waits for the consumer to see it): Atoll's
///   consumer iterates `Results.changes` of a realm isolated to its actor, SQLite's iterates
///   `ValueObservation.values(in:)` on the same pool. From before the write to the consumer's
///   element.
struct ConcurrencySuite {
    static let suite = "concurrency"
    let options: BenchOptions
    let reporter: Reporter

    func run() throws {
        let scratch = try ScratchDirectory(path: options.directory + "/concurrency")
        if options.includes("C1") { try writers(scratch) }
        if options.includes("C2") { try latency(scratch) }
    }

    private static func loadAverage() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "?" }
        return text.split(separator: " ").first.map(String.init) ?? "?"
    }

    // MARK: C1

    private func writers(_ scratch: ScratchDirectory) throws {
        let actors = 8
        let perActor = options.scaled(10_000, minimum: 50)
        let plan = options.plan(SamplingPlan(warmups: 1, runs: 2))
        let loadBefore = Self.loadAverage()
        writeStandardError("concurrency: C1, \(actors) actors x \(perActor) commits per engine and run\n")
        let (atoll, sqlite) = try Sampler.interleave(plan, { run in
            let path = scratch.file("c1-\(run).atoll")
            ScratchDirectory.removeDatabase(path)
            let configuration = AtollObjects.configuration(path)
            return try blocking { try await AtollWriters.run(configuration: configuration, actors: actors, perActor: perActor) }
        }, { run in
            let path = scratch.file("c1-\(run).sqlite")
            ScratchDirectory.removeDatabase(path)
            let pool = try SQLitePool.open(path)
            return try blocking { try await SQLiteWriters.run(pool: pool, actors: actors, perActor: perActor) }
        })
        let total = actors * perActor
        reporter.add(Measurement(suite: Self.suite, name: "C1", unit: .commitsPerSecond,
                                 atoll: Rate.perSecond(total, atoll), sqlite: Rate.perSecond(total, sqlite), target: .report,
                                 note: "\(actors) actors x \(Format.grouped(Int64(perActor))) commits of one object each to one file, full durability (Atoll asyncWrite on an actor-isolated realm per actor; SQLite DatabasePool.write async, WAL, synchronous=FULL); 1-minute load average before/after: \(loadBefore)/\(Self.loadAverage())"))
    }

    // MARK: C2

    private func latency(_ scratch: ScratchDirectory) throws {
        let samples = options.scaled(500, minimum: 50)
        let plan = options.plan(SamplingPlan(warmups: 1, runs: 2))
        let loadBefore = Self.loadAverage()
        writeStandardError("concurrency: C2, \(samples) commits per engine and run\n")
        var a: [Double] = [], s: [Double] = []
        for round in 0..<(plan.warmups + plan.runs) {
            let atollFirst = round.isMultiple(of: 2)
            for engine in atollFirst ? ["atoll", "sqlite"] : ["sqlite", "atoll"] {
                let latencies: [UInt64]
                if engine == "atoll" {
                    let path = scratch.file("c2-\(round).atoll")
                    ScratchDirectory.removeDatabase(path)
                    let configuration = AtollObjects.configuration(path)
                    latencies = try blocking { try await AtollLatency.run(configuration: configuration, count: samples) }
                } else {
                    let path = scratch.file("c2-\(round).sqlite")
                    ScratchDirectory.removeDatabase(path)
                    let pool = try SQLitePool.open(path)
                    latencies = try blocking { try await SQLiteLatency.run(pool: pool, count: samples) }
                }
                guard round >= plan.warmups else { continue }
                if engine == "atoll" { a += latencies.map { Double($0) } } else { s += latencies.map { Double($0) } }
            }
        }
        let loadAfter = Self.loadAverage()
        for (name, p) in [("C2_p50", 50.0), ("C2_p99", 99.0)] {
            reporter.add(Measurement(suite: Self.suite, name: name, unit: .microseconds,
                                     atoll: Rate.microseconds(Sampler.percentile(a, p)), sqlite: Rate.microseconds(Sampler.percentile(s, p)),
                                     target: .report,
                                     note: name == "C2_p50"
                                        ? "\(samples) commits (one object each, full durability) on one actor to the AsyncSequence consumer on another, one at a time, from before the write to the element (Atoll: Results.changes of a realm isolated to the consumer's actor; SQLite: ValueObservation.values(in:) on the writer's DatabasePool); 1-minute load average before/after: \(loadBefore)/\(loadAfter)"
                                        : nil))
        }
    }
}

/// The item C1 and C2 commit: small, like W2's.
private func itemValues(_ i: Int) -> (id: Int, name: String, age: Int, score: Double, active: Bool) {
    (i, "item-\(i % 997)", i % 90, Double(i % 1000) / 10, i % 3 == 0)
}

// MARK: Atoll

/// One writer of C1: an actor with a realm isolated to it.
private actor AtollWriter {
    private var realm: Realm?

    func open(_ configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    func write(first: Int, count: Int) async throws {
        guard let realm else { throw BenchError("atoll: the writer's realm is not open") }
        for i in first..<(first + count) {
            let v = itemValues(i)
            try await realm.asyncWrite {
                let item = Item()
                item.id = v.id
                item.name = v.name
                item.age = v.age
                item.score = v.score
                item.active = v.active
                realm.add(item)
            }
        }
    }

    /// The object count at the newest version (this realm may not have refreshed to the other
    /// actors' last commits yet).
    func count() async -> Int {
        guard let realm else { return -1 }
        _ = await realm.asyncRefresh()
        return realm.objects(Item.self).count
    }
}

private enum AtollWriters {
    static func run(configuration: Realm.Configuration, actors: Int, perActor: Int) async throws -> UInt64 {
        let writers = (0..<actors).map { _ in AtollWriter() }
        for w in writers { try await w.open(configuration) }
        let start = monotonicNanoseconds()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (n, w) in writers.enumerated() {
                group.addTask { try await w.write(first: n * perActor, count: perActor) }
            }
            try await group.waitForAll()
        }
        let ns = monotonicNanoseconds() - start
        let count = await writers[0].count()
        guard count == actors * perActor else { throw BenchError("atoll: C1 wrote \(count) objects, expected \(actors * perActor)") }
        return ns
    }
}

/// C2's consumer: iterates `Results.changes` of a realm isolated to it and reports, for each
/// element, the object count and when it arrived.
private actor AtollConsumer {
    private var realm: Realm?

    func open(_ configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    func consume(until count: Int, report: AsyncStream<(count: Int, at: UInt64)>.Continuation) async throws {
        guard let realm else { throw BenchError("atoll: the consumer's realm is not open") }
        for await change in realm.objects(Item.self).changes {
            let at = monotonicNanoseconds()
            switch change {
            case .initial(let results), .update(let results, _, _, _):
                let n = results.count
                report.yield((n, at))
                if n >= count {
                    report.finish()
                    return
                }
            case .error(let error):
                report.finish()
                throw error
            }
        }
        report.finish()
    }
}

private enum AtollLatency {
    static func run(configuration: Realm.Configuration, count: Int) async throws -> [UInt64] {
        let writer = AtollWriter()
        try await writer.open(configuration)
        let consumer = AtollConsumer()
        try await consumer.open(configuration)
        let (reports, continuation) = AsyncStream<(count: Int, at: UInt64)>.makeStream()
        async let consumed: Void = consumer.consume(until: count, report: continuation)
        var iterator = reports.makeAsyncIterator()
        // The initial element: the consumer is observing.
        guard let initial = await iterator.next(), initial.count == 0 else { throw BenchError("atoll: C2's consumer did not start") }
        var latencies: [UInt64] = []
        latencies.reserveCapacity(count)
        for i in 0..<count {
            let before = monotonicNanoseconds()
            try await writer.write(first: i, count: 1)
            var arrival: UInt64?
            while let r = await iterator.next() {
                if r.count >= i + 1 {
                    arrival = r.at
                    break
                }
            }
            guard let arrival else { throw BenchError("atoll: C2's consumer ended after \(i) commits") }
            latencies.append(arrival - before)
        }
        try await consumed
        return latencies
    }
}

// MARK: SQLite

private enum SQLitePool {
    static let insertSQL = "INSERT INTO item (id, name, age, score, active) VALUES (?, ?, ?, ?, ?)"

    /// A pool on a fresh file in WAL mode with full synchronous commits on its writer.
    static func open(_ path: String) throws -> DatabasePool {
        var configuration = GRDB.Configuration()
        configuration.label = "atoll-bench-concurrency"
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            guard try Int.fetchOne(db, sql: "PRAGMA synchronous") == 2 else { throw BenchError("sqlite: synchronous is not FULL") }
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
        return pool
    }

    /// One commit of one item through the pool's async write.
    static func insert(_ pool: DatabasePool, _ i: Int) async throws {
        let v = itemValues(i)
        try await pool.write { db in
            let statement = try db.cachedStatement(sql: insertSQL)
            statement.setUncheckedArguments([v.id, v.name, v.age, v.score, v.active])
            try statement.execute()
        }
    }

    static func count(_ pool: DatabasePool) async throws -> Int {
        try await pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") ?? -1 }
    }
}

/// One writer of C1 on the SQLite side: an actor sharing the pool.
private actor SQLiteWriter {
    let pool: DatabasePool
    init(pool: DatabasePool) { self.pool = pool }

    func write(first: Int, count: Int) async throws {
        for i in first..<(first + count) { try await SQLitePool.insert(pool, i) }
    }
}

private enum SQLiteWriters {
    static func run(pool: DatabasePool, actors: Int, perActor: Int) async throws -> UInt64 {
        let writers = (0..<actors).map { _ in SQLiteWriter(pool: pool) }
        let start = monotonicNanoseconds()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (n, w) in writers.enumerated() {
                group.addTask { try await w.write(first: n * perActor, count: perActor) }
            }
            try await group.waitForAll()
        }
        let ns = monotonicNanoseconds() - start
        let count = try await SQLitePool.count(pool)
        guard count == actors * perActor else { throw BenchError("sqlite: C1 wrote \(count) rows, expected \(actors * perActor)") }
        return ns
    }
}

/// C2's consumer on the SQLite side: iterates a `ValueObservation` of the row count.
private actor SQLiteConsumer {
    func consume(_ pool: DatabasePool, until count: Int, report: AsyncStream<(count: Int, at: UInt64)>.Continuation) async throws {
        let observation = ValueObservation.tracking { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") ?? 0 }
        do {
            for try await n in observation.values(in: pool) {
                report.yield((n, monotonicNanoseconds()))
                if n >= count { break }
            }
        } catch {
            report.finish()
            throw error
        }
        report.finish()
    }
}

private enum SQLiteLatency {
    static func run(pool: DatabasePool, count: Int) async throws -> [UInt64] {
        let writer = SQLiteWriter(pool: pool)
        let consumer = SQLiteConsumer()
        let (reports, continuation) = AsyncStream<(count: Int, at: UInt64)>.makeStream()
        async let consumed: Void = consumer.consume(pool, until: count, report: continuation)
        var iterator = reports.makeAsyncIterator()
        guard let initial = await iterator.next(), initial.count == 0 else { throw BenchError("sqlite: C2's consumer did not start") }
        var latencies: [UInt64] = []
        latencies.reserveCapacity(count)
        for i in 0..<count {
            let before = monotonicNanoseconds()
            try await writer.write(first: i, count: 1)
            var arrival: UInt64?
            while let r = await iterator.next() {
                if r.count >= i + 1 {
                    arrival = r.at
                    break
                }
            }
            guard let arrival else { throw BenchError("sqlite: C2's consumer ended after \(i) commits") }
            latencies.append(arrival - before)
        }
        try await consumed
        return latencies
    }
}
