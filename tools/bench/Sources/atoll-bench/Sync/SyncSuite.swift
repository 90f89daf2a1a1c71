/// The `sync` suite (S1–S4 of the compare issue): not implemented until sync lands. It prints
/// one clearly marked row per workload so that the suite name already works end to end.
struct SyncSuite {
    let options: BenchOptions
    let reporter: Reporter

    static let workloads: [(name: String, unit: Unit, target: Target, what: String)] = [
        ("S1", Unit(symbol: "changes/s", better: .higher), .atLeast(100_000, label: "100k/s"), "apply remote changesets of small field updates"),
        ("S2", .milliseconds, .atMost(5, label: "5 ms p50"), "write on node A to notification on node B through the relay, TLS on loopback"),
        ("S3", .bytes, .atMost(20, label: "20 B"), "bytes on the wire per small field update, after zstd"),
        ("S4", Unit(symbol: "ops/s", better: .higher), .atLeast(200_000, label: "200k/s"), "new node catching up 1M operations"),
    ]

    func run() {
        for w in Self.workloads where options.includes(w.name) {
            reporter.add(Measurement(suite: "sync", name: w.name, unit: w.unit, target: w.target,
                                     note: "not yet implemented (needs AtollSync): \(w.what)", isSideBySide: true))
        }
    }
}
