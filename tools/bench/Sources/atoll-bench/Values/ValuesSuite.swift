import AtollStorage

/// The `values` suite (issue 14): sets, maps and Decimal128 on Atoll and on SQLite (GRDB), in one
/// run, the engines interleaved run by run. Ratios > 1 mean Atoll is better.
///
/// - V1: insert 100k objects (× scale), each with a 10-element set of strings and a 10-entry
///   map of integers and a Decimal128, in one transaction, full durability.
/// - V2: `ANY tags == x` (count), for 50 tags.
/// - V3: `attributes['k'] > v` (count; about 2% of the objects match), for 50 probes.
/// - V4: `price BETWEEN {low, high}` on the indexed Decimal128 (count; about 1% match), for 50
///   ranges.
///
/// SQLite keeps the set and the map in child tables with the index each query needs, and the
/// Decimal128 as fixed-width text with an index (SQLiteValues). Each read's total is checked
/// against the other engine's.
struct ValuesSuite {
    let options: BenchOptions
    let reporter: Reporter

    static let suite = "values"
    static let probeCount = 50

    func run() throws {
        let scratch = try ScratchDirectory(path: options.directory)
        let tuning = SQLiteTuning(cacheMebibytes: options.sqliteCacheMebibytes, mmapMebibytes: options.sqliteMmapMebibytes)
        let atoll = AtollValues()
        let sqlite = SQLiteValues(tuning: tuning)
        let atollPath = scratch.file("values.atoll"), sqlitePath = scratch.file("values.sqlite")

        let count = options.scaled(100_000, minimum: 1_000)
        progress("values: generating \(Format.grouped(Int64(count))) objects")
        let data = ValueData(count: count)
        let atollPrices = try AtollValues.prices(data)
        let sqlitePrices = SQLiteValues.prices(data)
        reporter.add(Measurement(suite: Self.suite, name: "objects", unit: .objects, atoll: Double(count),
                                 note: "SQLite: GRDB 7.10.0 DatabaseQueue, WAL, synchronous FULL, \(tuning.description); set and map as child tables with an index, Decimal128 as fixed-width text with an index",
                                 isSideBySide: false))

        // V1 always runs: its last runs are the files the reads use.
        let (a, s) = try Sampler.interleave(options.plan(.heavy),
            { _ in try atoll.timedInsertAll(path: atollPath, data: data, prices: atollPrices) },
            { _ in try sqlite.timedInsertAll(path: sqlitePath, data: data, prices: sqlitePrices) })
        if options.includes("V1") {
            add("V1", .rowsPerSecond, atoll: Rate.perSecond(count, a), sqlite: Rate.perSecond(count, s), target: .ratioAtLeast(1),
                note: "insert \(Format.grouped(Int64(count))) objects, each with a 10-element set and a 10-entry map, in one transaction, full durability")
        }

        let ar = try atoll.openReader(path: atollPath)
        let sr = try sqlite.openReader(path: sqlitePath)
        let plan = options.plan(.light)
        if options.includes("V2") {
            let tags = data.probeTags(Self.probeCount, seed: 2)
            let (ta, ts, check) = try timed(plan, { ar.countWithTag(tags) }, { try sr.countWithTag(tags) })
            add("V2", .queriesPerSecond, atoll: Rate.perSecond(tags.count, ta), sqlite: Rate.perSecond(tags.count, ts), target: .ratioAtLeast(1),
                note: check ?? "ANY tags == x, counted; \(tags.count) tags, about \(Format.grouped(Int64(count * ValueData.tagsPerObject / ValueData.tagPoolCount))) hits each")
        }
        if options.includes("V3") {
            let probes = data.probeAttributes(Self.probeCount, seed: 3)
            let (ta, ts, check) = try timed(plan, { ar.countAttributeAbove(probes) }, { try sr.countAttributeAbove(probes) })
            add("V3", .queriesPerSecond, atoll: Rate.perSecond(probes.count, ta), sqlite: Rate.perSecond(probes.count, ts), target: .ratioAtLeast(1),
                note: check ?? "attributes['k'] > v, counted; \(probes.count) probes, about 2% of the objects each")
        }
        if options.includes("V4") {
            let ranges = data.probePriceRanges(Self.probeCount, seed: 4)
            let atollRanges = try ranges.map { (low: try Decimal128(string: ValueData.priceText(cents: $0.low)),
                                                high: try Decimal128(string: ValueData.priceText(cents: $0.high))) }
            let sqliteRanges = ranges.map { (low: ValueData.sortablePriceText(cents: $0.low), high: ValueData.sortablePriceText(cents: $0.high)) }
            let (ta, ts, check) = try timed(plan, { ar.countPriceBetween(atollRanges) }, { try sr.countPriceBetween(sqliteRanges) })
            add("V4", .queriesPerSecond, atoll: Rate.perSecond(ranges.count, ta), sqlite: Rate.perSecond(ranges.count, ts), target: .ratioAtLeast(1),
                note: check ?? "price BETWEEN {low, high} on an indexed Decimal128, counted; \(ranges.count) ranges, about 1% of the objects each")
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
