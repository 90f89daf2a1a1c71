/// `atoll-bench profile`: one engine's side of chosen compare workloads, with nothing else in
/// the process, for running under a profiler:
///
///     valgrind --tool=callgrind atoll-bench profile --only W6 --scale 0.1 --runs 1
///     perf record -F 2000 atoll-bench profile --only W3 --engine sqlite
///
/// The seed (1M objects × --scale) is built once, untimed, and kept in --dir between runs
/// (`profile-seed.<engine>`), so a profile of a read workload contains only that workload.
/// W1 and W2 build files of their own; W7 and W8 work on a copy of the seed. Prints each run's
/// time and result on stderr; the figures are for orientation, the compare suite is the
/// measurement.
struct ProfileRun {
    let options: BenchOptions

    func run() throws {
        let engine: any CompareEngine = switch options.engine {
        case "atoll": AtollWorkloads()
        case "sqlite": SQLiteWorkloads(tuning: SQLiteTuning(cacheMebibytes: options.sqliteCacheMebibytes, mmapMebibytes: options.sqliteMmapMebibytes))
        default: throw BenchError("--engine takes atoll or sqlite")
        }
        let scratch = try ScratchDirectory(path: options.directory)
        let seed = scratch.file("profile-seed." + engine.fileExtension)
        let work = scratch.file("profile-work." + engine.fileExtension)
        let count = options.scaled(1_000_000, minimum: 1_000)
        let data = ItemData(count: count)
        let runs = options.runs ?? 1
        guard let only = options.only, !only.isEmpty else { throw BenchError("profile needs --only W1,W3,...") }

        let needsSeed = only.contains { ["W3", "W4", "W5", "W6", "W7", "W8"].contains($0) }
        if needsSeed, (try? engine.objectCount(path: seed)) != count {
            progress("profile: building the \(engine.name) seed of \(Format.grouped(Int64(count))) objects")
            try engine.build(path: seed, data: data)
        }
        func report(_ name: String, _ ns: UInt64, _ result: String = "") {
            progress("profile \(engine.name) \(name): \(Format.number(Rate.milliseconds(Double(ns)))) ms \(result)")
        }
        func timed<R>(_ body: () throws -> R) rethrows -> (UInt64, R) {
            let watch = Stopwatch()
            let r = try body()
            return (watch.elapsedNanoseconds, r)
        }

        for _ in 0..<runs {
            if only.contains("W1") { report("W1", try engine.timedInsertAll(path: work, data: data)) }
            if only.contains("W2") {
                let n = min(count, options.scaled(10_000, minimum: 100))
                report("W2", try engine.timedSingleObjectCommits(path: work, data: data, count: n))
            }
            if only.contains(where: { ["W3", "W4", "W5", "W6"].contains($0) }) {
                let reader = try engine.openReader(path: seed)
                defer { reader.close() }
                if only.contains("W3") {
                    let ids = data.randomIds(count, seed: 3)
                    let (ns, r) = try timed { try reader.lookups(ids) }
                    report("W3", ns, "check \(r)")
                }
                if only.contains("W4") {
                    let (ns, r) = try timed { try reader.countOlderThan40Active() }
                    report("W4", ns, "count \(r)")
                }
                if only.contains("W5") {
                    let names = data.randomNames(max(100, min(10_000, count / 100)), seed: 5)
                    let (ns, r) = try timed { try reader.namesSortedByAge(names) }
                    report("W5", ns, "hash \(r)")
                }
                if only.contains("W6") {
                    let (ns, r) = try timed { try reader.enumerateSumOfScores() }
                    report("W6", ns, "sum \(r)")
                }
            }
            if only.contains("W7") {
                let n = min(count, options.scaled(100_000, minimum: 100))
                try ScratchDirectory.copyDatabase(from: seed, to: work)
                report("W7", try engine.timedUpdateScores(path: work, ids: data.distinctRandomIds(n, seed: 11), scores: data.randomScores(n, seed: 12)))
            }
            if only.contains("W8") {
                try ScratchDirectory.copyDatabase(from: seed, to: work)
                report("W8", try engine.timedDeleteAll(path: work))
            }
        }
    }
}
