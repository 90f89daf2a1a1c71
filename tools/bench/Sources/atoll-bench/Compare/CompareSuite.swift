/// The `compare` suite: workloads W1–W11 of the compare issue on Atoll and on SQLite (GRDB),
/// in one run on one machine, the two engines interleaved run by run. Ratios > 1 mean Atoll is
/// better. Each engine's results are checked against the other's; a disagreement is reported
/// as a note on the workload rather than stopping the run.
///
/// Files: W1's last run leaves each engine's "seed" (1M objects × --scale), which the read
/// workloads use as is and W7/W8 copy (untimed, synced) before every run.
struct CompareSuite {
    let options: BenchOptions
    let reporter: Reporter

    static let suite = "compare"

    private let atoll: any CompareEngine = AtollWorkloads()
    private let sqlite: any CompareEngine
    private let sqliteTuning: SQLiteTuning

    init(options: BenchOptions, reporter: Reporter) {
        self.options = options
        self.reporter = reporter
        sqliteTuning = SQLiteTuning(cacheMebibytes: options.sqliteCacheMebibytes, mmapMebibytes: options.sqliteMmapMebibytes)
        sqlite = SQLiteWorkloads(tuning: sqliteTuning)
    }

    func run() throws {
        let scratch = try ScratchDirectory(path: options.directory)
        func seed(_ e: any CompareEngine) -> String { scratch.file("compare-seed." + e.fileExtension) }
        func work(_ e: any CompareEngine) -> String { scratch.file("compare-work." + e.fileExtension) }
        func small(_ e: any CompareEngine) -> String { scratch.file("compare-10k." + e.fileExtension) }

        let count = options.scaled(1_000_000, minimum: 1_000)
        progress("compare: generating \(Format.grouped(Int64(count))) objects")
        let data = ItemData(count: count)
        reporter.add(Measurement(suite: Self.suite, name: "objects", unit: .objects, atoll: Double(count),
                                 note: "SQLite: GRDB 7.10.0 DatabaseQueue, WAL, synchronous FULL, \(sqliteTuning.description)",
                                 isSideBySide: false))

        // W1 and W10; the last W1 run becomes the seed.
        if options.includes("W1") || options.includes("W10") {
            let (a, s) = try Sampler.interleave(options.plan(.heavy),
                { _ in try atoll.timedInsertAll(path: work(atoll), data: data) },
                { _ in try sqlite.timedInsertAll(path: work(sqlite), data: data) })
            if options.includes("W1") {
                add("W1", .rowsPerSecond, atoll: Rate.perSecond(count, a), sqlite: Rate.perSecond(count, s), target: .ratioAtLeast(2),
                    note: "insert \(Format.grouped(Int64(count))) objects in one transaction, full durability")
            }
            let atollBytes = atoll.fileBytes(path: work(atoll)), sqliteBytes = sqlite.fileBytes(path: work(sqlite))
            if options.includes("W10") {
                add("W10", .bytes, atoll: Double(atollBytes), sqlite: Double(sqliteBytes), target: .ratioAtLeast(1.25),
                    note: "file size after W1 (Atoll data file; SQLite main file + WAL after close); target <= 0.8 x SQLite")
            }
            for e in [atoll, sqlite] { try ScratchDirectory.moveDatabase(from: work(e), to: seed(e)) }
        } else {
            for e in [atoll, sqlite] { try e.build(path: seed(e), data: data) }
        }

        if options.includes("W2") { try singleObjectCommits(data: data, work: work) }

        if ["W3", "W4", "W5", "W6"].contains(where: options.includes) {
            try reads(data: data, atollSeed: seed(atoll), sqliteSeed: seed(sqlite))
        }
        if ["W3", "W6"].contains(where: options.includes) {
            try coldReads(data: data, atollSeed: seed(atoll), sqliteSeed: seed(sqlite))
        }

        if options.includes("W7") {
            let n = min(count, options.scaled(100_000, minimum: 100))
            let ids = data.distinctRandomIds(n, seed: 11)
            let scores = data.randomScores(n, seed: 12)
            let (a, s) = try Sampler.interleave(options.plan(.heavy),
                { _ in try ScratchDirectory.copyDatabase(from: seed(atoll), to: work(atoll))
                       return try atoll.timedUpdateScores(path: work(atoll), ids: ids, scores: scores) },
                { _ in try ScratchDirectory.copyDatabase(from: seed(sqlite), to: work(sqlite))
                       return try sqlite.timedUpdateScores(path: work(sqlite), ids: ids, scores: scores) })
            add("W7", .rowsPerSecond, atoll: Rate.perSecond(n, a), sqlite: Rate.perSecond(n, s), target: .ratioAtLeast(2),
                note: "update score of \(Format.grouped(Int64(n))) random objects (by primary key) in one transaction")
        }

        if options.includes("W8") {
            let (a, s) = try Sampler.interleave(options.plan(.heavy),
                { _ in try ScratchDirectory.copyDatabase(from: seed(atoll), to: work(atoll))
                       return try atoll.timedDeleteAll(path: work(atoll)) },
                { _ in try ScratchDirectory.copyDatabase(from: seed(sqlite), to: work(sqlite))
                       return try sqlite.timedDeleteAll(path: work(sqlite)) })
            let left = (try atoll.objectCount(path: work(atoll)), try sqlite.objectCount(path: work(sqlite)))
            add("W8", .milliseconds, atoll: Rate.milliseconds(a), sqlite: Rate.milliseconds(s), target: .ratioAtLeast(2),
                note: left == (0, 0) ? "delete all objects in one transaction"
                    : "WRONG RESULT: objects left after delete: atoll \(left.0), sqlite \(left.1)")
        }

        if options.includes("W9") {
            let smallData = ItemData(count: min(10_000, count))
            for e in [atoll, sqlite] { try e.build(path: small(e), data: smallData) }
            let plan = options.plan(SamplingPlan(warmups: 2, runs: 9))
            let (a10, s10) = try Sampler.interleave(plan,
                { _ in try OpenProbe.probe(engine: atoll.name, path: small(atoll), id: Int64(smallData.count / 2)) },
                { _ in try OpenProbe.probe(engine: sqlite.name, path: small(sqlite), id: Int64(smallData.count / 2), extra: sqliteTuning.arguments) })
            let (a, s) = try Sampler.interleave(plan,
                { _ in try OpenProbe.probe(engine: atoll.name, path: seed(atoll), id: Int64(count / 2)) },
                { _ in try OpenProbe.probe(engine: sqlite.name, path: seed(sqlite), id: Int64(count / 2), extra: sqliteTuning.arguments) })
            add("W9_10k", .milliseconds, atoll: Rate.milliseconds(a10), sqlite: Rate.milliseconds(s10), target: .atMost(5, label: "5 ms"))
            add("W9", .milliseconds, atoll: Rate.milliseconds(a), sqlite: Rate.milliseconds(s), target: .atMost(5, label: "5 ms"),
                note: "open a \(Format.grouped(Int64(count)))-object file in a fresh process and read one object (page cache warm); flat: 10k = \(Format.number(Rate.milliseconds(a10))) ms")
        }

        if options.includes("W11") { try liveNotifications(data: data, work: work) }
    }

    private func add(_ name: String, _ unit: Unit, atoll: Double? = nil, sqlite: Double? = nil, target: Target = .none, note: String? = nil) {
        reporter.add(Measurement(suite: Self.suite, name: name, unit: unit, atoll: atoll, sqlite: sqlite, target: target, note: note))
    }

    /// W2, with the machine's raw fsync rate as the limit.
    private func singleObjectCommits(data: ItemData, work: (any CompareEngine) -> String) throws {
        let n = min(data.count, options.scaled(10_000, minimum: 100))
        let fsyncRate = try FsyncProbe.syncsPerSecond(directory: options.directory, count: max(200, n / 10))
        reporter.add(Measurement(suite: Self.suite, name: "fsync_rate", unit: .syncsPerSecond, atoll: fsyncRate,
                                 note: "machine limit for W2: pwrite 4 KiB + fdatasync; an Atoll commit syncs twice, a SQLite WAL commit once",
                                 isSideBySide: false))
        let (a, s) = try Sampler.interleave(options.plan(.heavy),
            { _ in try atoll.timedSingleObjectCommits(path: work(atoll), data: data, count: n) },
            { _ in try sqlite.timedSingleObjectCommits(path: work(sqlite), data: data, count: n) })
        add("W2", .commitsPerSecond, atoll: Rate.perSecond(n, a), sqlite: Rate.perSecond(n, s), target: .ratioAtLeast(1),
            note: "\(Format.grouped(Int64(n))) transactions inserting one object each, full durability")
    }

    /// W11: commit in this process to a change callback in another; the engines alternate
    /// rounds, and the percentiles are over every commit of every measured round.
    private func liveNotifications(data: ItemData, work: (any CompareEngine) -> String) throws {
        let n = min(data.count, options.scaled(300, minimum: 50))
        let plan = options.plan(SamplingPlan(warmups: 1, runs: 2))
        var a: [Double] = [], s: [Double] = []
        for round in 0..<(plan.warmups + plan.runs) {
            let order = round.isMultiple(of: 2) ? [atoll, sqlite] : [sqlite, atoll]
            for e in order {
                let ns = try e.liveNotificationLatencies(path: work(e), data: data, count: n).map { Double($0) }
                guard round >= plan.warmups else { continue }
                if e.name == atoll.name { a += ns } else { s += ns }
            }
        }
        for (name, p) in [("W11_p50", 50.0), ("W11_p99", 99.0)] {
            add(name, .microseconds, atoll: Rate.microseconds(Sampler.percentile(a, p)), sqlite: Rate.microseconds(Sampler.percentile(s, p)), target: .report,
                note: name == "W11_p50"
                    ? "\(Format.grouped(Int64(n))) commits (one object each, full durability) in one process to the change callback in another; from before the write to the callback. SQLite: the other process polls PRAGMA data_version every \(LiveNotifications.pollMicroseconds) us (GRDB's ValueObservation does not see other processes' writes)"
                    : nil)
        }
    }

    /// W3–W6 on the seeds, each engine with one reader open for all of them.
    private func reads(data: ItemData, atollSeed: String, sqliteSeed: String) throws {
        let a = try atoll.openReader(path: atollSeed)
        let s = try sqlite.openReader(path: sqliteSeed)
        defer { a.close(); s.close() }
        let plan = options.plan(.light)

        if options.includes("W3") {
            let ids = data.randomIds(data.count, seed: 3)
            let (ta, ts, check) = try timed(plan, { try a.lookups(ids) }, { try s.lookups(ids) })
            add("W3", .lookupsPerSecond, atoll: Rate.perSecond(ids.count, ta), sqlite: Rate.perSecond(ids.count, ts), target: .ratioAtLeast(3),
                note: check ?? "\(Format.grouped(Int64(ids.count))) random primary-key lookups reading name and age")
        }
        if options.includes("W4") {
            let (ta, ts, check) = try timed(plan, { try a.countOlderThan40Active() }, { try s.countOlderThan40Active() })
            add("W4", .milliseconds, atoll: Rate.milliseconds(ta), sqlite: Rate.milliseconds(ts), target: .ratioAtLeast(5),
                note: check ?? "count where age > 40 AND active, no index")
        }
        if options.includes("W5") {
            let names = data.randomNames(max(100, min(10_000, data.count / 100)), seed: 5)
            let (ta, ts, check) = try timed(plan, { try a.namesSortedByAge(names) }, { try s.namesSortedByAge(names) })
            add("W5", .queriesPerSecond, atoll: Rate.perSecond(names.count, ta), sqlite: Rate.perSecond(names.count, ts), target: .ratioAtLeast(2),
                note: check ?? "name == x through the index, sorted by age, about \(Format.number(Double(data.count) / Double(ItemData.namePoolCount))) hits per query")
        }
        // The type-safe forms of W4 and W5 (`where { }`, `sorted(by: \.age)`), against the same
        // SQL: their ratios must match the string forms' within noise.
        if options.includes("W4") {
            let (ta, ts, check) = try timed(plan, { try a.countOlderThan40ActiveTypeSafe() }, { try s.countOlderThan40ActiveTypeSafe() })
            add("W4_typed", .milliseconds, atoll: Rate.milliseconds(ta), sqlite: Rate.milliseconds(ts), target: .ratioAtLeast(5),
                note: check ?? "W4 as where { $0.age > 40 && $0.active == true }")
        }
        if options.includes("W5") {
            let names = data.randomNames(max(100, min(10_000, data.count / 100)), seed: 5)
            let (ta, ts, check) = try timed(plan, { try a.namesSortedByAgeTypeSafe(names) }, { try s.namesSortedByAgeTypeSafe(names) })
            add("W5_typed", .queriesPerSecond, atoll: Rate.perSecond(names.count, ta), sqlite: Rate.perSecond(names.count, ts), target: .ratioAtLeast(2),
                note: check ?? "W5 as where { $0.name == name }.sorted(by: \\.age)")
        }
        if options.includes("W6") {
            let (ta, ts, check) = try timed(plan, { try a.enumerateSumOfScores() }, { try s.enumerateSumOfScores() }, same: Self.closeEnough)
            add("W6", .milliseconds, atoll: Rate.milliseconds(ta), sqlite: Rate.milliseconds(ts), target: .ratioAtLeast(3),
                note: check ?? "enumerate all objects summing score")
            let (ba, bs, bcheck) = try timed(plan, { try a.aggregateSumOfScores() }, { try s.aggregateSumOfScores() }, same: Self.closeEnough)
            add("W6_aggregate", .milliseconds, atoll: Rate.milliseconds(ba), sqlite: Rate.milliseconds(bs),
                note: bcheck ?? "sum(score) by each engine's own aggregate (Table.aggregate vs SELECT SUM)")
        }
    }

    /// W3 and W6 on a reader opened inside the timed part, after every other reader of the seed
    /// is closed: the first reads of a process (Atoll checks each page's checksum the first
    /// time the process reads it; SQLite starts with an empty page cache). The files stay in
    /// the OS page cache in both cases.
    private func coldReads(data: ItemData, atollSeed: String, sqliteSeed: String) throws {
        let plan = options.plan(.light)
        func cold<R>(_ engine: any CompareEngine, _ path: String, _ work: (any CompareReader) throws -> R) throws -> (UInt64, R) {
            let watch = Stopwatch()
            let reader = try engine.openReader(path: path)
            defer { reader.close() }
            let result = try work(reader)
            return (watch.elapsedNanoseconds, result)
        }
        if options.includes("W3") {
            let ids = data.randomIds(data.count, seed: 3)
            var ra = 0, rs = 0
            let (ta, ts) = try Sampler.interleave(plan,
                { _ in let (ns, r) = try cold(atoll, atollSeed) { try $0.lookups(ids) }; ra = r; return ns },
                { _ in let (ns, r) = try cold(sqlite, sqliteSeed) { try $0.lookups(ids) }; rs = r; return ns })
            add("W3_cold", .lookupsPerSecond, atoll: Rate.perSecond(ids.count, ta), sqlite: Rate.perSecond(ids.count, ts),
                note: ra == rs ? "open, then \(Format.grouped(Int64(ids.count))) random primary-key lookups reading name and age (first reads of the process)"
                    : "RESULTS DIFFER: atoll \(ra), sqlite \(rs)")
        }
        if options.includes("W6") {
            var ra = 0.0, rs = 0.0
            let (ta, ts) = try Sampler.interleave(plan,
                { _ in let (ns, r) = try cold(atoll, atollSeed) { try $0.enumerateSumOfScores() }; ra = r; return ns },
                { _ in let (ns, r) = try cold(sqlite, sqliteSeed) { try $0.enumerateSumOfScores() }; rs = r; return ns })
            add("W6_cold", .milliseconds, atoll: Rate.milliseconds(ta), sqlite: Rate.milliseconds(ts),
                note: Self.closeEnough(ra, rs) ? "open, then enumerate all objects summing score (first reads of the process)"
                    : "RESULTS DIFFER: atoll \(ra), sqlite \(rs)")
        }
    }

    private static func closeEnough(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(abs(a), abs(b)) }

    /// Interleaved timing of two read workloads; the third value is a note when their results
    /// disagree.
    private func timed<R: Equatable>(_ plan: SamplingPlan, _ atollWork: () throws -> R, _ sqliteWork: () throws -> R,
                                     same: (R, R) -> Bool = { $0 == $1 }) throws -> (Double, Double, String?)
    {
        var ra: R?, rs: R?
        let (ta, ts) = try Sampler.interleave(plan,
            { _ in let w = Stopwatch(); let r = try atollWork(); let ns = w.elapsedNanoseconds; ra = r; return ns },
            { _ in let w = Stopwatch(); let r = try sqliteWork(); let ns = w.elapsedNanoseconds; rs = r; return ns })
        guard let ra, let rs else { return (ta, ts, "no result") }
        return (ta, ts, same(ra, rs) ? nil : "RESULTS DIFFER: atoll \(ra), sqlite \(rs)")
    }
}
