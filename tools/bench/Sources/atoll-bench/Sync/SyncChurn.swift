import AtollStorage
import AtollSync
import Foundation

/// S5, S6 and S7 (issue 21, garbage collection by acknowledgement): does sync metadata stay bounded
/// under churn? Three nodes and a relay core in-process (`InProcessLink`: real frames, zstd,
/// CRC32C; no network), each file with `durability: .unsafe` because sizes, not commit rates,
/// are measured here.
///
/// - S5: create-then-delete cycles. Nodes take turns: one creates a batch of new objects (new
///   primary keys, never reused) in one transaction, every node receives it, then it deletes
///   them in a second transaction.
/// - S6: list insert-then-remove cycles. Each node owns one object; in its turn it appends a
///   batch of elements to that object's list in one transaction, every node receives it, then
///   it removes them in a second.
/// - S7: the same list used as a queue. Each list starts with a batch of elements; in its turn
///   a node appends a batch at the end, every node receives it, then it removes the batch at
///   the front (the oldest). A removed element is then followed by the elements appended after
///   it, so it is never a leaf of the list's tree while the queue lives.
///
/// After each turn the clock moves 100 ms and the relay's timers run (trim and stability point
/// every tick), then the sessions' timers. Forty times during the run (every fourth sample is
/// printed) the files are measured:
/// used pages (`DatabaseStats.usedBytes`), file size, and the bytes of the sync metadata
/// (`Database.internalTreeUsage()`: the `sync.` trees of a node, every tree of the relay). The
/// curve goes to standard error. The figures compare the peak of used pages over the second
/// half of the run with the peak over the first half, for the worst node and for the relay:
/// growth with the number of cycles reads about 2x, a bounded sawtooth (a node's transaction
/// logs kept until extracted and dropped in steps, pages freed and reused) about 1x, with 20
/// samples a half to catch its peaks. Flat is ≤ 1.1x.
struct SyncChurnBench {
    let options: BenchOptions
    let reporter: Reporter

    static let spec = TableSpec(name: "Churn", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "tags", type: .string, isList: true),
    ], primaryKey: "id")

    /// Cycles per transaction, and S7's standing queue.
    static let batch = 100

    enum Kind: String {
        case objects = "S5"
        case lists = "S6"
        case queue = "S7"

        var what: String {
            switch self {
            case .objects: "create-then-delete cycles of new objects"
            case .lists: "list insert-then-remove cycles"
            case .queue: "queue cycles (append at the end, remove at the front)"
            }
        }
    }

    /// One measurement of every file.
    struct Sample {
        var cycles: Int
        var nodes: [FileFigures]
        var relay: FileFigures
    }

    struct FileFigures {
        var used: Int
        var file: Int
        var metadata: Int
        var metadataEntries: Int

        init(_ db: Database, metadataPrefix: String) throws {
            let stats = try db.stats()
            used = stats.usedBytes
            file = stats.fileSizeBytes
            let trees = try db.internalTreeUsage().filter { $0.name.hasPrefix(metadataPrefix) }
            metadata = trees.reduce(0) { $0 + $1.bytes }
            metadataEntries = trees.reduce(0) { $0 + $1.entries }
        }

        var text: String {
            "used \(Format.number(Double(used) / 1024)) KiB, file \(Format.number(Double(file) / 1024)) KiB, metadata \(Format.number(Double(metadata) / 1024)) KiB in \(metadataEntries) entries"
        }
    }

    func run(_ scratch: ScratchDirectory) throws {
        if options.includes("S5") { try churn(.objects, scratch) }
        if options.includes("S6") { try churn(.lists, scratch) }
        if options.includes("S7") { try churn(.queue, scratch) }
    }

    private func churn(_ kind: Kind, _ scratch: ScratchDirectory) throws {
        let cycles = options.scaled(1_000_000, minimum: 30_000)
        let batch = Self.batch
        let turns = (cycles + batch - 1) / batch
        let prefix = kind.rawValue.lowercased()
        let relayPath = scratch.file("\(prefix)-relay.atoll")
        let nodePaths = (0..<3).map { scratch.file("\(prefix)-node\($0).atoll") }
        for p in [relayPath] + nodePaths { ScratchDirectory.removeDatabase(p) }
        writeStandardError("sync: \(kind.rawValue), \(cycles) \(kind.what) across 3 nodes, \(batch) per transaction\n")

        let relayDB = try Database.open(DatabaseConfiguration(path: relayPath, durability: .unsafe))
        let relay = try RelayCore(database: relayDB, configuration: RelayConfiguration(trimIntervalMilliseconds: 0))
        let link = InProcessLink(relay: relay)
        var nodes: [(db: Database, session: NodeSession)] = []
        for (i, path) in nodePaths.enumerated() {
            let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe))
            let w = try db.beginWrite()
            try w.createTable(Self.spec)
            try w.commit()
            let session = NodeSession(replica: try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "churn")))
            try link.connect(session, as: ConnectionID(i + 1))
            nodes.append((db, session))
        }
        try link.settle()

        var now: UInt64 = 0
        // Each node's own list holder (S6, S7; S7's holding a batch), made before the clock starts.
        let holder = { (node: Int) in Int64(node) - 3 }
        if kind != .objects {
            for (i, node) in nodes.enumerated() {
                try write(node.db) { t in
                    let k = try t.create(primaryKey: .int(holder(i)))
                    try t.set(k, 1, .string("holder \(i)"))
                    if kind == .queue { for j in 0..<batch { try t.listAppend(k, 2, .string("first \(j)")) } }
                }
                try link.perform(ConnectionID(i + 1), node.session.localCommitted(now: now))
            }
            try link.settle()
        }

        var samples: [Sample] = []
        var nextID: Int64 = 0
        let watch = Stopwatch()
        for turn in 0..<turns {
            let n = turn % nodes.count
            let node = nodes[n], connection = ConnectionID(n + 1)
            switch kind {
            case .objects:
                let first = nextID
                nextID += Int64(batch)
                try write(node.db) { t in
                    for id in first..<nextID {
                        let k = try t.create(primaryKey: .int(id))
                        try t.set(k, 1, .string("object \(id)"))
                    }
                }
                try link.perform(connection, node.session.localCommitted(now: now))
                try link.settle()
                try write(node.db) { t in
                    for id in first..<nextID { try t.erase(ObjectKey(primaryKey: id)) }
                }
            case .lists, .queue:
                let k = ObjectKey(primaryKey: holder(n))
                try write(node.db) { t in
                    for j in 0..<batch { try t.listAppend(k, 2, .string("element \(turn).\(j)")) }
                }
                try link.perform(connection, node.session.localCommitted(now: now))
                try link.settle()
                try write(node.db) { t in
                    for j in (0..<batch).reversed() { try t.listRemove(k, 2, at: kind == .queue ? 0 : j) }
                }
            }
            try link.perform(connection, node.session.localCommitted(now: now))
            try link.settle()
            now += 100
            try link.tick(now: now)

            let done = (turn + 1) * batch
            let sampleCount = 40
            if (turn + 1) * sampleCount / turns != turn * sampleCount / turns || turn == turns - 1 {
                let sample = Sample(cycles: done, nodes: try nodes.map { try FileFigures($0.db, metadataPrefix: "sync.") },
                                    relay: try FileFigures(relayDB, metadataPrefix: ""))
                samples.append(sample)
                guard samples.count % 4 == 0 || turn == turns - 1 else { continue }
                writeStandardError("sync: \(kind.rawValue) after \(done) cycles (\(Format.number(Double(watch.elapsedNanoseconds) / 1e9)) s)\n")
                for (i, f) in sample.nodes.enumerated() { writeStandardError("  node \(i): \(f.text)\n") }
                writeStandardError("  relay: \(sample.relay.text)\n")
            }
        }
        try checkConverged(nodes.map(\.db), kind)
        guard samples.count >= 3 else { throw BenchError("\(kind.rawValue): too few samples") }

        let half = samples.count / 2
        let first = samples[..<half], second = samples[half...]
        func peak(_ s: ArraySlice<Sample>, _ f: (Sample) -> Int) -> Int { s.map(f).max() ?? 0 }
        let nodeGrowth = (0..<nodes.count).map { i in
            Double(peak(second) { $0.nodes[i].used }) / Double(max(1, peak(first) { $0.nodes[i].used }))
        }.max() ?? 0
        let relayGrowth = Double(peak(second) { $0.relay.used }) / Double(max(1, peak(first) { $0.relay.used }))
        let last = samples[samples.count - 1]
        let flat = Target.atMost(1.1, label: "1.1x (flat)")
        reporter.add(Measurement(suite: "sync", name: "\(kind.rawValue)_nodes", unit: Unit(symbol: "x", better: .lower), atoll: nodeGrowth, target: flat,
                                 note: "\(cycles) \(kind.what), 3 nodes: the worst node's peak of used pages over the second half of the run over its peak over the first (largest peak \(Format.number(Double(peak(second[...]) { $0.nodes.map(\.used).max() ?? 0 }) / 1024)) KiB); sync metadata at the end at most \(Format.number(Double(last.nodes.map(\.metadata).max() ?? 0) / 1024)) KiB",
                                 isSideBySide: false))
        reporter.add(Measurement(suite: "sync", name: "\(kind.rawValue)_relay", unit: Unit(symbol: "x", better: .lower), atoll: relayGrowth, target: flat,
                                 note: "the relay's used pages, the same way (peaks \(Format.number(Double(peak(first) { $0.relay.used }) / 1024)) and \(Format.number(Double(peak(second) { $0.relay.used }) / 1024)) KiB); at the end every tree holds \(Format.number(Double(last.relay.metadata) / 1024)) KiB in \(last.relay.metadataEntries) entries",
                                 isSideBySide: false))
    }

    private func write(_ db: Database, _ body: (Table) throws -> Void) throws {
        try SyncSuite.write(db, table: "Churn", body)
    }

    /// Every node ends with what the workload leaves: no objects (S5), three empty lists (S6) or
    /// three lists of one batch (S7).
    private func checkConverged(_ dbs: [Database], _ kind: Kind) throws {
        for (i, db) in dbs.enumerated() {
            let r = try db.beginRead()
            defer { r.close() }
            guard let t = try r.table(named: "Churn") else { throw BenchError("node \(i): Churn missing") }
            switch kind {
            case .objects:
                guard t.count == 0 else { throw BenchError("S5: node \(i) holds \(t.count) objects after every delete") }
            case .lists, .queue:
                guard t.count == 3 else { throw BenchError("\(kind.rawValue): node \(i) holds \(t.count) holders") }
                for key in try t.objectKeys() where try t.listValues(key, 2).count != (kind == .queue ? Self.batch : 0) {
                    throw BenchError("\(kind.rawValue): node \(i) holds \(try t.listValues(key, 2).count) list elements at the end")
                }
            }
        }
    }
}
