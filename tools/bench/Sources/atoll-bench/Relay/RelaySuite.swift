import AtollStorage
import AtollSync
import Foundation

/// The `relay` suite (issue 17): `atoll-relay` on its own Atoll file and on a shared PostgreSQL,
/// side by side in one run. Relays are real `atoll-relay serve` processes (`RelayProcess`) on
/// 127.0.0.1; nodes are real `SyncSession`s in this process on files of their own, every
/// connection mutual TLS 1.3 with development certificates. PostgreSQL is a throwaway cluster
/// (`BenchPostgres`) with its default durability; every PostgreSQL run gets a fresh database,
/// every file-store run a fresh relay file.
///
/// - R1: append throughput, changesets/s: 8 nodes upload changesets made beforehand (one small
///   insert per transaction, extracted before the timer) as fast as the relays acknowledge them,
///   to 8 realms (one each, `R1_*_realms`) and to one hot realm (`R1_*_hot`); the file-store
///   relay, and 1, 2 and 4 relays on one PostgreSQL with the nodes spread over them.
/// - R2: a write on node A (on relay 1) to the live `Results` callback on node B (on relay 2):
///   p50 and p99, as S2 of the `sync` suite measures it (`SyncLatencyBench.measure`). On the
///   file store both nodes use its one relay.
/// - R3: a new node catching up a log of 1M operations (× scale) uploaded through relay 1, from
///   relay 2 (PostgreSQL) or from the one file-store relay: operations per second.
struct RelaySuite {
    let options: BenchOptions
    let reporter: Reporter

    static let uploaders = 8

    /// Where the relays keep the log.
    enum Store {
        case file
        case postgres(relays: Int)

        var name: String {
            switch self {
            case .file: "file"
            case .postgres(let n): "pg\(n)"
            }
        }

        var description: String {
            switch self {
            case .file: "one relay on its Atoll file (--db)"
            case .postgres(1): "one relay on PostgreSQL"
            case .postgres(let n): "\(n) relays on one PostgreSQL"
            }
        }
    }

    /// The relays of one run.
    struct RelayGroup {
        let relays: [RelayProcess]
        let postgresURL: String?

        func stop() { for r in relays { r.stop() } }
    }

    func run() throws {
        _ = try RelayProcess.executable()
        let scratch = try ScratchDirectory(path: options.directory + "/relay")
        let dir = scratch.file("run")
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let certs = dir + "/certs"
        _ = try DevelopmentCertificateDirectory.create(at: certs, nodes: ["node-a", "node-b", "node-c"] + (0..<Self.uploaders).map { "node-\($0)" })
        writeStandardError("relay: starting a throwaway PostgreSQL cluster\n")
        let postgres = try BenchPostgres()
        defer { postgres.stop() }
        let context = Context(dir: dir, certs: certs, postgres: postgres)
        if wants("R1") { try measureAppends(context) }
        if wants("R2") { try measureLatency(context) }
        if wants("R3") { try measureCatchUp(context) }
    }

    /// Whether `--only` selects the group (`R1`) or one of its figures (`R1_pg2_hot`).
    func wants(_ group: String) -> Bool {
        guard let only = options.only else { return true }
        return only.contains { $0 == group || $0.hasPrefix(group + "_") }
    }

    /// Whether `--only` selects the group or its figure on `store` (`R2_pg2`).
    func selects(_ group: String, _ store: Store) -> Bool {
        options.only == nil || options.includes(group) || options.includes("\(group)_\(store.name)")
    }

    struct Context {
        let dir: String
        let certs: String
        let postgres: BenchPostgres
    }

    /// Starts the relays of `store` for one run (PostgreSQL: a fresh database, the relays started
    /// one after the other, the first creating the tables).
    func startRelays(_ store: Store, tag: String, _ c: Context) throws -> RelayGroup {
        switch store {
        case .file:
            let path = "\(c.dir)/\(tag)-relay.atoll"
            ScratchDirectory.removeDatabase(path)
            return RelayGroup(relays: [try RelayProcess(name: "\(tag)-relay", store: ["--db", path], certificates: c.certs, directory: c.dir)],
                              postgresURL: nil)
        case .postgres(let n):
            let url = try c.postgres.makeDatabase(tag)
            var relays: [RelayProcess] = []
            for i in 1...n {
                relays.append(try RelayProcess(name: "\(tag)-relay\(i)", store: ["--postgres", url], certificates: c.certs, directory: c.dir))
            }
            return RelayGroup(relays: relays, postgresURL: url)
        }
    }

    func syncConfiguration(port: Int, node: String, realm: String, _ c: Context) -> SyncConfiguration {
        SyncConfiguration(relay: RelayAddress(host: "127.0.0.1", port: port),
                          tls: .mutualTLS(certificatePath: "\(c.certs)/\(node).pem", keyPath: "\(c.certs)/\(node)-key.pem", caPath: c.certs + "/ca.pem"),
                          realmID: realm)
    }

    /// Rows in the relay log of a PostgreSQL run (a check that every acknowledged changeset is
    /// there once).
    func storedChangesets(_ group: RelayGroup, _ c: Context) throws -> Int? {
        guard let url = group.postgresURL else { return nil }
        let text = try c.postgres.psql(database: BenchPostgres.databaseName(url), "SELECT count(*) FROM atoll_relay_log")
        guard let n = Int(text) else { throw BenchError("relay: count of atoll_relay_log printed '\(text)'") }
        return n
    }

    // MARK: R1

    /// A node file with `changesets` local transactions (one insert of a small object each),
    /// bound to `realm` and extracted into the node's outgoing log, ready to upload.
    static func makeUploader(path: String, realm: String, node: Int, changesets: Int) throws {
        ScratchDirectory.removeDatabase(path)
        let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe))
        let w = try db.beginWrite()
        try w.createTable(SyncSuite.itemSpec)
        try w.commit()
        let replica = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: realm))
        for j in 0..<changesets {
            try SyncSuite.write(db) { t in
                let k = try t.create(primaryKey: .int(Int64(node * 100_000_000 + j)))
                try t.set(k, 1, .string("node \(node) item \(j)"))
                try t.set(k, 2, .int(Int64(j)))
            }
        }
        try replica.extractLocalChanges()
    }

    private func measureAppends(_ c: Context) throws {
        let perNode = options.scaled(1000, minimum: 20)
        let layouts: [(name: String, realm: @Sendable (Int) -> String)] = [
            ("realms", { "realm-\($0)" }),
            ("hot", { _ in "hot" }),
        ]
        writeStandardError("relay: R1 preparing \(Self.uploaders) nodes × \(perNode) changesets for each realm layout\n")
        var seeds: [String: [String]] = [:]
        for layout in layouts {
            seeds[layout.name] = try (0..<Self.uploaders).map { i in
                let path = "\(c.dir)/seed-\(layout.name)-\(i).atoll"
                try Self.makeUploader(path: path, realm: layout.realm(i), node: i, changesets: perNode)
                return path
            }
        }
        let stores: [Store] = [.file, .postgres(relays: 1), .postgres(relays: 2), .postgres(relays: 4)]
        let plan = options.plan(.heavy)
        for layout in layouts {
            for store in stores {
                let name = "R1_\(store.name)_\(layout.name)"
                guard options.only == nil || options.includes("R1") || options.includes(name) else { continue }
                writeStandardError("relay: \(name)\n")
                var total = 0
                var runIndex = 0
                let ns = try Sampler.measure(plan) { _ in
                    runIndex += 1
                    let tag = "r1_\(store.name)_\(layout.name)_\(runIndex)"
                    let (elapsed, uploaded) = try appendRun(store: store, tag: tag, seeds: seeds[layout.name] ?? [], realm: layout.realm, c)
                    total = uploaded
                    return elapsed
                }
                let rate = Double(total) / (ns / 1e9)
                let spread = layout.name == "hot"
                    ? "all \(Self.uploaders) nodes on one realm (each node also downloads and applies the others' changesets, in this process)"
                    : "\(Self.uploaders) realms, one node each"
                reporter.add(Measurement(suite: "relay", name: name, unit: Unit(symbol: "changesets/s", better: .higher), atoll: rate,
                                         target: .report,
                                         note: "\(store.description); \(total) changesets (one small insert each) uploaded by \(Self.uploaders) nodes spread over the relays, \(spread); from the sessions starting to every upload acknowledged (stored and committed)",
                                         isSideBySide: false))
            }
        }
    }

    /// One R1 run: fresh relays and fresh copies of the node files; times the sessions from
    /// their start to the last acknowledgement. Returns the nanoseconds and changesets uploaded.
    private func appendRun(store: Store, tag: String, seeds: [String], realm: (Int) -> String, _ c: Context) throws -> (UInt64, Int) {
        let group = try startRelays(store, tag: tag, c)
        defer { group.stop() }
        var paths: [String] = []
        for (i, seed) in seeds.enumerated() {
            let path = "\(c.dir)/\(tag)-node\(i).atoll"
            try ScratchDirectory.copyDatabase(from: seed, to: path)
            paths.append(path)
        }
        defer { for p in paths { ScratchDirectory.removeDatabase(p) } }

        let watch = Stopwatch()
        var sessions: [SyncSession] = []
        var failure: (any Error)?
        do {
            for (i, path) in paths.enumerated() {
                let db = try Database.open(DatabaseConfiguration(path: path))
                let relay = group.relays[i % group.relays.count]
                sessions.append(try SyncSession.start(database: db, configuration: syncConfiguration(port: relay.port, node: "node-\(i)", realm: realm(i), c)))
            }
            let started = sessions
            try blocking {
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    for s in started { tasks.addTask { try await s.waitForUpload() } }
                    try await tasks.waitForAll()
                }
            }
        } catch {
            failure = error
        }
        let elapsed = watch.elapsedNanoseconds
        let uploaded = sessions.reduce(0) { $0 + Int($1.progress.uploaded) }
        let closing = sessions
        try blocking { for s in closing { await s.close() } }
        if let failure { throw failure }
        let made = sessions.reduce(0) { $0 + Int($1.progress.uploadable) }
        guard uploaded == made else { throw BenchError("\(tag): \(uploaded) of \(made) changesets acknowledged") }
        if let stored = try storedChangesets(group, c), stored != uploaded {
            throw BenchError("\(tag): PostgreSQL holds \(stored) changesets, \(uploaded) were acknowledged")
        }
        return (elapsed, uploaded)
    }

    // MARK: R2

    private func measureLatency(_ c: Context) throws {
        let samples = options.scaled(300, minimum: 50)
        let warmups = 20
        for store in [Store.file, .postgres(relays: 2)] where selects("R2", store) {
            let tag = "r2_\(store.name)"
            let dir = "\(c.dir)/\(tag)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            writeStandardError("relay: R2 \(store.description), two nodes, \(warmups) + \(samples) writes\n")
            let loadBefore = SyncLatencyBench.loadAverage()
            let group = try startRelays(store, tag: tag, c)
            let measured = Result {
                try SyncLatencyBench.measure(directory: dir, certificates: c.certs, portA: group.relays[0].port,
                                             portB: group.relays[group.relays.count - 1].port, realmID: "latency",
                                             warmups: warmups, samples: samples, label: "R2_\(store.name)")
            }
            group.stop()
            let (latencies, commits) = try measured.get()
            try? FileManager.default.removeItem(atPath: dir)
            let route = group.relays.count > 1 ? "node A on relay 1, node B on relay 2 (LISTEN/NOTIFY fan-out through PostgreSQL)" : "both nodes on the one relay"
            let p50 = Sampler.percentile(latencies, 50), p99 = Sampler.percentile(latencies, 99)
            let isPostgres = store.name != "file"
            reporter.add(Measurement(suite: "relay", name: "R2_\(store.name)", unit: .milliseconds, atoll: p50,
                                     target: isPostgres ? .atMost(10, label: "10 ms p50") : .report,
                                     note: "p50 of \(samples) writes, write on node A (commit) to node B's live Results callback; \(store.description), \(route); mutual TLS 1.3 on 127.0.0.1, fdatasync at A and B; A's write transaction alone: p50 \(Format.number(Sampler.percentile(commits, 50))) ms; 1-minute load average before/after: \(loadBefore)/\(SyncLatencyBench.loadAverage())",
                                     isSideBySide: false))
            reporter.add(Measurement(suite: "relay", name: "R2_\(store.name)_p99", unit: .milliseconds, atoll: p99, target: .report,
                                     note: "p99 of the same \(samples) writes (min \(Format.number(latencies.min() ?? 0)) ms, max \(Format.number(latencies.max() ?? 0)) ms)",
                                     isSideBySide: false))
        }
    }

    // MARK: R3

    private func measureCatchUp(_ c: Context) throws {
        let operations = options.scaled(1_000_000, minimum: 10_000)
        let perTransaction = 100
        let seed = "\(c.dir)/seed-catchup.atoll"
        writeStandardError("relay: R3 preparing a node with \(operations) operations\n")
        var objects = 0
        do {
            ScratchDirectory.removeDatabase(seed)
            let db = try Database.open(DatabaseConfiguration(path: seed, durability: .unsafe))
            let w = try db.beginWrite()
            try w.createTable(SyncSuite.itemSpec)
            try w.commit()
            let replica = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "catchup"))
            var made = 0
            while made < operations {
                try SyncSuite.write(db) { t in
                    // Each new object: create + 3 properties = 4 operations (as S4).
                    for _ in 0..<(perTransaction / 4) {
                        let id = Int64(objects)
                        let k = try t.create(primaryKey: .int(id))
                        try t.set(k, 1, .string("object \(id)"))
                        try t.set(k, 2, .int(id % 1000))
                        try t.set(k, 3, .double(Double(id) / 3))
                        objects += 1
                    }
                }
                made += perTransaction
            }
            try replica.extractLocalChanges()
        }
        let plan = options.plan(.heavy)
        for store in [Store.file, .postgres(relays: 2)] where selects("R3", store) {
            let tag = "r3_\(store.name)"
            writeStandardError("relay: R3 \(store.description): uploading the log\n")
            let group = try startRelays(store, tag: tag, c)
            defer { group.stop() }
            let aPath = "\(c.dir)/\(tag)-a.atoll"
            try ScratchDirectory.copyDatabase(from: seed, to: aPath)
            defer { ScratchDirectory.removeDatabase(aPath) }
            let sessionA = try SyncSession.start(database: try Database.open(DatabaseConfiguration(path: aPath)),
                                                 configuration: syncConfiguration(port: group.relays[0].port, node: "node-a", realm: "catchup", c))
            let uploaded = Result { try blocking { try await sessionA.waitForUpload() } }
            let changesets = sessionA.progress.uploaded
            try blocking { await sessionA.close() }
            try uploaded.get()
            if let stored = try storedChangesets(group, c), stored != Int(changesets) {
                throw BenchError("\(tag): PostgreSQL holds \(stored) changesets, \(changesets) were acknowledged")
            }
            writeStandardError("relay: R3 \(store.description): new nodes catching up\n")
            let reader = group.relays[group.relays.count - 1]
            var runIndex = 0
            let ns = try Sampler.measure(plan) { _ in
                runIndex += 1
                let cPath = "\(c.dir)/\(tag)-c\(runIndex).atoll"
                ScratchDirectory.removeDatabase(cPath)
                defer { ScratchDirectory.removeDatabase(cPath) }
                let db = try Database.open(DatabaseConfiguration(path: cPath))
                let w = try db.beginWrite()
                try w.createTable(SyncSuite.itemSpec)
                try w.commit()
                let watch = Stopwatch()
                let session = try SyncSession.start(database: db, configuration: syncConfiguration(port: reader.port, node: "node-c", realm: "catchup", c))
                let caughtUp = Result { try blocking { try await session.waitForDownload() } }
                let elapsed = watch.elapsedNanoseconds
                try blocking { await session.close() }
                try caughtUp.get()
                let r = try db.beginRead()
                defer { r.close() }
                let count = try r.table(named: "Item")?.count ?? 0
                guard count == objects else {
                    throw BenchError("\(tag): the new node holds \(count) of \(objects) objects after catching up")
                }
                return elapsed
            }
            let route = group.relays.count > 1 ? "uploaded through relay 1, read through relay 2" : "uploaded and read through the one relay"
            let isPostgres = store.name != "file"
            reporter.add(Measurement(suite: "relay", name: "R3_\(store.name)", unit: Unit(symbol: "ops/s", better: .higher),
                                     atoll: Double(operations) / (ns / 1e9),
                                     target: isPostgres ? .atLeast(200_000, label: "200k/s") : .report,
                                     note: "a new node catching up \(operations) operations (\(objects) objects × create + 3 properties) in \(changesets) changesets; \(store.description), \(route); from the session starting to waitForDownload returning, mutual TLS 1.3 on 127.0.0.1, the node's file with full durability",
                                     isSideBySide: false))
        }
    }
}
