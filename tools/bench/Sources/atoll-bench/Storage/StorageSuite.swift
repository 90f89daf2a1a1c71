import AtollStorage

/// The `storage` suite: the engine on its own, through the public AtollStorage API, on a table
/// of 1M `Item` objects (× --scale). Every figure is a median after a warm-up.
///
/// Figure names keep "1M" at any scale so that CI can track them; the `objects` line says how
/// many objects the big table really holds.
struct StorageSuite {
    let options: BenchOptions
    let reporter: Reporter

    static let suite = "storage"
    /// Objects in the small file that shows whether opening is flat.
    static let smallCount = 10_000

    func run() throws {
        let scratch = try ScratchDirectory(path: options.directory)
        let bigPath = scratch.file("storage-big.atoll")
        let smallPath = scratch.file("storage-small.atoll")
        let count = options.scaled(1_000_000, minimum: 1_000)
        progress("storage: generating \(Format.grouped(Int64(count))) objects")
        let data = ItemData(count: count)
        add("objects", .objects, Double(count))

        // Insert rate; the last run leaves the big file.
        if options.includes("insert") {
            let ns = try Sampler.measure(options.plan(.heavy)) { _ in try AtollItemStore.timedBulkInsert(path: bigPath, data: data) }
            add("insert_rate_1M", .rowsPerSecond, Rate.perSecond(count, ns))
        } else {
            try AtollItemStore.build(path: bigPath, data: data)
        }
        if options.includes("file") { try fileFigures(path: bigPath, count: count) }
        let small = ItemData(count: min(Self.smallCount, count))
        try AtollItemStore.build(path: smallPath, data: small)

        if options.includes("open") {
            let plan = options.plan(SamplingPlan(warmups: 2, runs: 9))
            let id = Int64(count / 2)
            let smallMs = try OpenProbe.medianMilliseconds(engine: "atoll-storage", path: smallPath, id: Int64(small.count / 2), plan: plan)
            add("open_ms_10k", .milliseconds, smallMs, target: .atMost(5, label: "5 ms"))
            let bigMs = try OpenProbe.medianMilliseconds(engine: "atoll-storage", path: bigPath, id: id, plan: plan)
            add("open_ms_1M", .milliseconds, bigMs, target: .atMost(5, label: "5 ms"),
                note: "cold open in a fresh process (file in the page cache): open, begin read, find, read 2 fields; 10k figure \(Format.number(smallMs)) ms")
        }
        if options.includes("scan") { try scanFigures(path: bigPath, data: data) }
        if options.includes("lookup") { try lookupFigures(path: bigPath, data: data) }
        if options.includes("index") { try indexFigures(path: bigPath, data: data) }
        // Commits last: they change the files the reads above measured.
        if options.includes("commit") {
            try commitFigures(path: bigPath, data: data, suffix: "1M")
            try commitFigures(path: smallPath, data: small, suffix: "10k")
        }
    }

    private func add(_ name: String, _ unit: Unit, _ value: Double, target: Target = .none, note: String? = nil) {
        reporter.add(Measurement(suite: Self.suite, name: name, unit: unit, atoll: value, target: target, note: note))
    }

    private func fileFigures(path: String, count: Int) throws {
        let fileBytes = ScratchDirectory.fileBytes(path)
        let db = try Database.open(AtollItemStore.configuration(path))
        let stats = try db.stats()
        add("file_bytes_1M", .bytes, Double(fileBytes),
            note: "\(Format.number(Double(fileBytes) / Double(count))) bytes/object; used \(Format.grouped(Int64(stats.usedBytes))), free \(Format.grouped(Int64(stats.freeBytes))), lock file \(Format.grouped(Int64(ScratchDirectory.fileBytes(path + ".lock"))))")
        add("used_bytes_1M", .bytes, Double(stats.usedBytes))
    }

    /// One-object commits with full durability on an existing file: an update of one field, and
    /// an insert. Bytes = (pages the commit wrote + the root slot page) × 4096.
    private func commitFigures(path: String, data: ItemData, suffix: String) throws {
        let db = try Database.open(AtollItemStore.configuration(path))
        let plan = options.plan(SamplingPlan(warmups: 2, runs: 9))
        let ids = data.randomIds(plan.warmups + plan.runs, seed: 7)
        let scores = data.randomScores(ids.count, seed: 8)
        var updateBytes: [Double] = [], updateNs: [UInt64] = []
        var insertBytes: [Double] = [], insertNs: [UInt64] = []
        for run in 0..<ids.count {
            let watch = Stopwatch()
            let w = try db.beginWrite()
            let t = try AtollItemStore.table(w)
            guard let key = try t.find(primaryKey: .int(ids[run])) else { throw BenchError("object \(ids[run]) is missing") }
            try t.set(key, AtollItemStore.Column.score, .double(scores[run]))
            try w.commit()
            let ns = watch.elapsedNanoseconds
            if run >= plan.warmups { updateBytes.append(Double((w.lastCommitPagesWritten + 1) * 4096)); updateNs.append(ns) }
        }
        for run in 0..<ids.count {
            let watch = Stopwatch()
            let w = try db.beginWrite()
            let t = try AtollItemStore.table(w)
            let i = run % data.count
            let key = try t.create(primaryKey: .int(Int64(data.count + run)))
            try t.set(key, AtollItemStore.Column.name, .string(data.name(i)))
            try t.set(key, AtollItemStore.Column.age, .int(data.ages[i]))
            try t.set(key, AtollItemStore.Column.score, .double(data.scores[i]))
            try t.set(key, AtollItemStore.Column.active, .bool(data.actives[i]))
            try w.commit()
            let ns = watch.elapsedNanoseconds
            if run >= plan.warmups { insertBytes.append(Double((w.lastCommitPagesWritten + 1) * 4096)); insertNs.append(ns) }
        }
        let target: Target = .atMost(32 * 1024, label: "32 KiB")
        add("commit_bytes_1obj_\(suffix)", .bytes, Sampler.median(updateBytes), target: target,
            note: suffix == "1M" ? "update of one double; max of \(updateBytes.count) commits \(Format.grouped(Int64(updateBytes.max() ?? 0))) bytes" : nil)
        add("commit_bytes_insert_1obj_\(suffix)", .bytes, Sampler.median(insertBytes), target: target)
        add("commit_ms_1obj_\(suffix)", .milliseconds, Rate.milliseconds(Sampler.median(updateNs)),
            note: suffix == "1M" ? "whole one-field update transaction with full durability (two fdatasync)" : nil)
        add("commit_ms_insert_1obj_\(suffix)", .milliseconds, Rate.milliseconds(Sampler.median(insertNs)))
    }

    /// Full column scans through `aggregate`, checked against the generated data.
    private func scanFigures(path: String, data: ItemData) throws {
        let db = try Database.open(AtollItemStore.configuration(path))
        let r = try db.beginRead()
        defer { r.close() }
        let t = try AtollItemStore.table(r)
        var sum = StorageValue.null
        let ns = try Sampler.measure(options.plan(.light)) { _ in
            let watch = Stopwatch()
            sum = try t.aggregate(AtollItemStore.Column.score, .sum)
            return watch.elapsedNanoseconds
        }
        let expected = data.scores.reduce(0, +)
        var note: String?
        if case .double(let s) = sum, abs(s - expected) <= 1e-9 * abs(expected) {} else {
            note = "WRONG RESULT: sum(score) = \(sum), expected \(expected)"
        }
        add("scan_rate", .rowsPerSecond, Rate.perSecond(data.count, ns), note: note)

        var ageSum = StorageValue.null
        let intNs = try Sampler.measure(options.plan(.light)) { _ in
            let watch = Stopwatch()
            ageSum = try t.aggregate(AtollItemStore.Column.age, .sum)
            return watch.elapsedNanoseconds
        }
        let expectedAges = data.ages.reduce(0, +)
        add("scan_rate_int", .rowsPerSecond, Rate.perSecond(data.count, intNs),
            note: ageSum == .int(expectedAges) ? nil : "WRONG RESULT: sum(age) = \(ageSum), expected \(expectedAges)")
    }

    /// Random primary-key lookups reading name and age, in one read transaction.
    private func lookupFigures(path: String, data: ItemData) throws {
        let db = try Database.open(AtollItemStore.configuration(path))
        let r = try db.beginRead()
        defer { r.close() }
        let t = try AtollItemStore.table(r)
        let ids = data.randomIds(data.count, seed: 3)
        var expected = 0
        for id in ids { expected &+= Int(data.ages[Int(id)]) &+ data.name(Int(id)).utf8.count }
        var check = 0
        let ns = try Sampler.measure(options.plan(.light)) { _ in
            var acc = 0
            let watch = Stopwatch()
            for id in ids {
                guard let key = try t.find(primaryKey: .int(id)) else { continue }
                if case .string(let name) = try t.value(key, AtollItemStore.Column.name) { acc &+= name.utf8.count }
                if case .int(let age) = try t.value(key, AtollItemStore.Column.age) { acc &+= Int(age) }
            }
            let elapsed = watch.elapsedNanoseconds
            check = acc
            return elapsed
        }
        add("pk_lookup_rate", .lookupsPerSecond, Rate.perSecond(ids.count, ns),
            note: check == expected ? nil : "WRONG RESULT: checksum \(check), expected \(expected)")
    }

    /// Index lookups on `name` (about count / 10,000 hits each) returning the object keys.
    private func indexFigures(path: String, data: ItemData) throws {
        let db = try Database.open(AtollItemStore.configuration(path))
        let r = try db.beginRead()
        defer { r.close() }
        let t = try AtollItemStore.table(r)
        let names = data.randomNames(max(200, min(10_000, data.count / 100)), seed: 5)
        var hitsPerName = [String: Int]()
        for i in 0..<data.count { hitsPerName[data.name(i), default: 0] += 1 }
        let expected = names.reduce(0) { $0 + (hitsPerName[$1] ?? 0) }
        var hits = 0
        let ns = try Sampler.measure(options.plan(.light)) { _ in
            var total = 0
            let watch = Stopwatch()
            for name in names { total += try t.findAll(indexed: AtollItemStore.Column.name, equalTo: .string(name)).count }
            let elapsed = watch.elapsedNanoseconds
            hits = total
            return elapsed
        }
        let note = hits == expected
            ? "findAll(name == x): \(Format.number(Double(hits) / Double(names.count))) hits per query, \(Format.number(Rate.microseconds(ns / Double(names.count)))) us per query"
            : "WRONG RESULT: \(hits) hits, expected \(expected)"
        add("index_lookup", .queriesPerSecond, Rate.perSecond(names.count, ns), note: note)
    }
}
