import AtollStorage
import Foundation

/// The `encryption` suite: what a 64-byte key costs. The compare suite's Atoll workloads W1
/// (bulk insert, full durability), W2 (single-object commits, fewer of them), W3 (primary-key
/// lookups) and W6 (enumerate all objects) run on an unencrypted and on an encrypted file, the
/// two variants interleaved run by run; each `_cost` row is encrypted time / unencrypted time
/// (target <= 1.3x, from the encryption issue). W6_cold enumerates right after opening, so it
/// includes decrypting every page once; the warm W3/W6 read a mirror already decrypted (the
/// design: a page is decrypted once per change, not once per read). The `engine_` rows repeat
/// the insert and a cold full-column scan on the storage API alone, where no object-layer work
/// dilutes the cost of the cipher.
struct EncryptionSuite {
    let options: BenchOptions
    let reporter: Reporter

    static let suite = "encryption"
    static let costTarget = 1.3

    func run() throws {
        let scratch = try ScratchDirectory(path: options.directory)
        var rng = SystemRandomNumberGenerator()
        let key = Data((0..<64).map { _ in UInt8.random(in: 0...255, using: &rng) })
        let plain = AtollWorkloads()
        let encrypted = AtollWorkloads(encryptionKey: key)
        let variants = [(plain, "plain"), (encrypted, "encrypted")]
        func seed(_ v: String) -> String { scratch.file("encryption-seed-\(v).atoll") }
        func work(_ v: String) -> String { scratch.file("encryption-work-\(v).atoll") }

        let count = options.scaled(1_000_000, minimum: 1_000)
        progress("encryption: generating \(Format.grouped(Int64(count))) objects")
        let data = ItemData(count: count)
        reporter.add(Measurement(suite: Self.suite, name: "objects", unit: .objects, atoll: Double(count),
                                 note: "Atoll unencrypted vs encrypted (AES-256-CTR + HMAC-SHA256 per page); value rows, then cost = encrypted / unencrypted time",
                                 isSideBySide: false))

        // W1; its last runs become the seeds of the read workloads.
        if ["W1", "W3", "W6"].contains(where: options.includes) {
            let (w1p, w1e) = try Sampler.interleave(options.plan(.heavy),
                { _ in try plain.timedInsertAll(path: work("plain"), data: data) },
                { _ in try encrypted.timedInsertAll(path: work("encrypted"), data: data) })
            addPair("W1", .rowsPerSecond, plain: Rate.perSecond(count, w1p), encrypted: Rate.perSecond(count, w1e), costOf: (w1p, w1e),
                    note: "insert \(Format.grouped(Int64(count))) objects in one transaction, full durability")
            for (_, v) in variants { try ScratchDirectory.moveDatabase(from: work(v), to: seed(v)) }
        }

        if options.includes("W2") {
            let n = min(count, options.scaled(1_000, minimum: 50))
            let (p, e) = try Sampler.interleave(options.plan(.heavy),
                { _ in try plain.timedSingleObjectCommits(path: work("plain"), data: data, count: n) },
                { _ in try encrypted.timedSingleObjectCommits(path: work("encrypted"), data: data, count: n) })
            addPair("W2", .commitsPerSecond, plain: Rate.perSecond(n, p), encrypted: Rate.perSecond(n, e), costOf: (p, e),
                    note: "\(Format.grouped(Int64(n))) transactions inserting one object each, full durability")
        }

        let plan = options.plan(.light)
        let readers = ["W3", "W6"].contains(where: options.includes) ? try variants.map { try $0.0.openReader(path: seed($0.1)) } : []
        defer { for r in readers { r.close() } }
        if options.includes("W3") {
            let ids = data.randomIds(data.count, seed: 3)
            let (p, e) = try interleavedReads(plan, { try readers[0].lookups(ids) }, { try readers[1].lookups(ids) })
            addPair("W3", .lookupsPerSecond, plain: Rate.perSecond(ids.count, p), encrypted: Rate.perSecond(ids.count, e), costOf: (p, e),
                    note: "\(Format.grouped(Int64(ids.count))) random primary-key lookups reading name and age")
        }
        if options.includes("W6") {
            let (p, e) = try interleavedReads(plan, { try readers[0].enumerateSumOfScores() }, { try readers[1].enumerateSumOfScores() },
                                              same: { abs($0 - $1) <= 1e-9 * max(abs($0), abs($1)) })
            addPair("W6", .milliseconds, plain: Rate.milliseconds(p), encrypted: Rate.milliseconds(e), costOf: (p, e),
                    note: "enumerate all objects summing score")
            // Cold: a fresh open (a new, empty decrypted mirror; the file itself is in the page
            // cache in both cases), then the same enumeration.
            let (cp, ce) = try Sampler.interleave(plan,
                { _ in try Self.timedColdEnumeration(plain, seed("plain")) },
                { _ in try Self.timedColdEnumeration(encrypted, seed("encrypted")) })
            addPair("W6_cold", .milliseconds, plain: Rate.milliseconds(cp), encrypted: Rate.milliseconds(ce), costOf: (cp, ce),
                    note: "open, then enumerate all objects summing score: includes decrypting every page once")
        }

        if options.includes("engine") {
            let storageKey = try EncryptionKey(bytes: key)
            let (ip, ie) = try Sampler.interleave(options.plan(.heavy),
                { _ in try AtollItemStore.timedBulkInsert(path: work("plain"), data: data) },
                { _ in try AtollItemStore.timedBulkInsert(path: work("encrypted"), data: data, encryptionKey: storageKey) })
            addPair("engine_insert", .rowsPerSecond, plain: Rate.perSecond(count, ip), encrypted: Rate.perSecond(count, ie), costOf: (ip, ie),
                    note: "storage API: insert \(Format.grouped(Int64(count))) objects in one transaction, full durability")
            let (sp, se) = try Sampler.interleave(plan,
                { _ in try Self.timedColdScan(path: work("plain"), key: nil) },
                { _ in try Self.timedColdScan(path: work("encrypted"), key: storageKey) })
            addPair("engine_scan_cold", .milliseconds, plain: Rate.milliseconds(sp), encrypted: Rate.milliseconds(se), costOf: (sp, se),
                    note: "storage API: open, then sum(score) over every object: reads (and decrypts) every leaf once")
        }
    }

    /// Opens `path` (no other instance: the decrypted mirror starts empty) and sums a column.
    private static func timedColdScan(path: String, key: EncryptionKey?) throws -> UInt64 {
        let watch = Stopwatch()
        let db = try Database.open(AtollItemStore.configuration(path, encryptionKey: key))
        let r = try db.beginRead()
        defer { r.close() }
        let sum = try AtollItemStore.table(r).aggregate(AtollItemStore.Column.score, .sum)
        let ns = watch.elapsedNanoseconds
        guard case .double = sum else { throw BenchError("sum(score) read back as \(sum)") }
        return ns
    }

    /// Opens a reader on `path` (the only one: no mirror is warm) and enumerates it, timed.
    private static func timedColdEnumeration(_ engine: AtollWorkloads, _ path: String) throws -> UInt64 {
        let watch = Stopwatch()
        let reader = try engine.openReader(path: path)
        defer { reader.close() }
        let sum = try reader.enumerateSumOfScores()
        let ns = watch.elapsedNanoseconds
        if sum.isNaN { progress("sum is NaN") }
        return ns
    }

    /// Interleaved timing of the same read on both variants, checking that they agree.
    private func interleavedReads<R: Equatable>(_ plan: SamplingPlan, _ plainWork: () throws -> R, _ encryptedWork: () throws -> R,
                                                same: (R, R) -> Bool = { $0 == $1 }) throws -> (Double, Double) {
        var rp: R?, re: R?
        let times = try Sampler.interleave(plan,
            { _ in let w = Stopwatch(); let r = try plainWork(); let ns = w.elapsedNanoseconds; rp = r; return ns },
            { _ in let w = Stopwatch(); let r = try encryptedWork(); let ns = w.elapsedNanoseconds; re = r; return ns })
        guard let rp, let re, same(rp, re) else { throw BenchError("encryption: the encrypted file read differently from the unencrypted one") }
        return times
    }

    /// Three rows: the unencrypted figure, the encrypted figure, and the cost (time ratio).
    private func addPair(_ name: String, _ unit: Unit, plain: Double, encrypted: Double, costOf times: (plain: Double, encrypted: Double), note: String) {
        guard options.includes(name) || name.hasPrefix("W6") && options.includes("W6") || name.hasPrefix("engine") && options.includes("engine") else { return }
        reporter.add(Measurement(suite: Self.suite, name: name + "_plain", unit: unit, atoll: plain, isSideBySide: false))
        reporter.add(Measurement(suite: Self.suite, name: name + "_encrypted", unit: unit, atoll: encrypted, isSideBySide: false))
        reporter.add(Measurement(suite: Self.suite, name: name + "_cost", unit: .timeRatio, atoll: times.encrypted / times.plain,
                                 target: .atMost(Self.costTarget, label: Format.number(Self.costTarget) + "x"), note: note, isSideBySide: false))
    }
}

extension Unit {
    /// A ratio of two durations (here: encrypted / unencrypted), lower is better.
    static let timeRatio = Unit(symbol: "x", better: .lower)
}
