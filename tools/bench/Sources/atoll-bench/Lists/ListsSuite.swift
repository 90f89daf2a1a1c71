import Atoll
import AtollStorage

/// The `lists` suite (issue 20): one large list of integers on Atoll (`List<Int>` through the
/// object API) and on SQLite (GRDB, a child table with a covering index on (owner, position,
/// value); SQLiteLists),
/// in one run, the engines interleaved run by run. Ratios > 1 mean Atoll is better.
///
/// - L1: append 100k elements (× scale) to one list, one append per element, in one write
///   transaction, full durability.
/// - L2: 100k (× scale) reads at random positions of that list.
/// - L3: 1,000 (× scale) inserts at random positions of a 100k-element (× scale) list, each its
///   own write transaction, full durability.
/// - L4: iterate a 1M-element (× scale) list, summing its elements.
///
/// The lists hold integers. Each read's sum and L3's final list checksum are checked against
/// the other engine's.
struct ListsSuite {
    let options: BenchOptions
    let reporter: Reporter

    static let suite = "lists"

    func run() throws {
        let scratch = try ScratchDirectory(path: options.directory)
        let tuning = SQLiteTuning(cacheMebibytes: options.sqliteCacheMebibytes, mmapMebibytes: options.sqliteMmapMebibytes)
        let atoll = AtollLists()
        let sqlite = SQLiteLists(tuning: tuning)
        let data = ListData(count: options.scaled(100_000, minimum: 1_000),
                            iterateCount: options.scaled(1_000_000, minimum: 1_000),
                            insertCount: options.scaled(1_000, minimum: 10))
        let atollPath = scratch.file("lists.atoll"), sqlitePath = scratch.file("lists.sqlite")
        reporter.add(Measurement(suite: Self.suite, name: "elements", unit: .objects, atoll: Double(data.count),
                                 note: "SQLite: GRDB 7.10.0 DatabaseQueue, WAL, synchronous FULL, \(tuning.description); list as a child table (owner, position, value) with a covering index on all three, positions dense and renumbered on insert",
                                 isSideBySide: false))

        // L1 always runs: its last runs are the files L2 reads.
        progress("lists: L1, \(Format.grouped(Int64(data.count))) appends")
        let (a, s) = try Sampler.interleave(options.plan(.heavy),
            { _ in try atoll.timedAppend(path: atollPath, count: data.count) },
            { _ in try sqlite.timedAppend(path: sqlitePath, count: data.count) })
        if options.includes("L1") {
            add("L1", .rowsPerSecond, atoll: Rate.perSecond(data.count, a), sqlite: Rate.perSecond(data.count, s), target: .ratioAtLeast(2),
                note: "append \(Format.grouped(Int64(data.count))) elements to one list, one call each, in one transaction, full durability")
        }

        if options.includes("L2") {
            progress("lists: L2")
            let positions = ListData.randomPositions(data.count, below: data.count, seed: 2)
            let realm = try Realm(configuration: AtollLists.configuration(atollPath))
            let queue = try sqlite.open(sqlitePath)
            let (ta, ts, check) = try timed(options.plan(.light), { try atoll.sumAt(realm, positions) }, { try sqlite.sumAt(queue, positions) })
            add("L2", .lookupsPerSecond, atoll: Rate.perSecond(positions.count, ta), sqlite: Rate.perSecond(positions.count, ts), target: .ratioAtLeast(2),
                note: check ?? "list[i] at \(Format.grouped(Int64(positions.count))) random positions of a \(Format.grouped(Int64(data.count)))-element list")
        }

        if options.includes("L3") {
            progress("lists: L3, \(data.insertCount) inserts")
            let positions = data.insertPositions(seed: 3)
            var ca = 0, cs = 0
            let (ta, ts) = try Sampler.interleave(options.plan(SamplingPlan(warmups: 0, runs: 1)),
                { _ in try atoll.timedInserts(path: atollPath, data: data, positions: positions, checksum: &ca) },
                { _ in try sqlite.timedInserts(path: sqlitePath, data: data, positions: positions, checksum: &cs) })
            add("L3", .commitsPerSecond, atoll: Rate.perSecond(positions.count, ta), sqlite: Rate.perSecond(positions.count, ts), target: .ratioAtLeast(1),
                note: ca == cs ? "\(data.insertCount) inserts at random positions of a \(Format.grouped(Int64(data.count)))-element list, each its own transaction, full durability"
                    : "RESULTS DIFFER: atoll checksum \(ca), sqlite \(cs)")
        }

        if options.includes("L4") {
            progress("lists: L4, building \(Format.grouped(Int64(data.iterateCount))) elements")
            let elements = ListData.values(data.iterateCount)
            let realm = try AtollLists.build(path: atollPath, elements: elements)
            let queue = try sqlite.build(path: sqlitePath, elements: elements)
            let (ta, ts, check) = try timed(options.plan(.light), { try atoll.sumAll(realm) }, { try sqlite.sumAll(queue) })
            add("L4", .rowsPerSecond, atoll: Rate.perSecond(data.iterateCount, ta), sqlite: Rate.perSecond(data.iterateCount, ts), target: .ratioAtLeast(2),
                note: check ?? "iterate a \(Format.grouped(Int64(data.iterateCount)))-element list of integers, summing them")
        }
    }

    private func add(_ name: String, _ unit: Unit, atoll: Double? = nil, sqlite: Double? = nil, target: Target = .none, note: String? = nil) {
        reporter.add(Measurement(suite: Self.suite, name: name, unit: unit, atoll: atoll, sqlite: sqlite, target: target, note: note))
    }

    /// Interleaved timing of two read workloads; the third value is a note when their results
    /// disagree.
    private func timed(_ plan: SamplingPlan, _ atollWork: () throws -> Int, _ sqliteWork: () throws -> Int) throws -> (Double, Double, String?) {
        var ra = 0, rs = 0
        let (ta, ts) = try Sampler.interleave(plan,
            { _ in let w = Stopwatch(); let r = try atollWork(); let ns = w.elapsedNanoseconds; ra = r; return ns },
            { _ in let w = Stopwatch(); let r = try sqliteWork(); let ns = w.elapsedNanoseconds; rs = r; return ns })
        return (ta, ts, ra == rs ? nil : "RESULTS DIFFER: atoll \(ra), sqlite \(rs)")
    }
}
