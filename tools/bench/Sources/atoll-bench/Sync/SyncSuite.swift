import AtollStorage
import AtollSync
import Foundation

/// The `sync` suite (S1–S4 of the compare issue). S1, S3 and S4 run the sync core in-process:
/// files on disk with full durability, frames through the real wire codec (zstd, CRC32C), no
/// network. S2 runs a relay and two sessions over TLS on loopback (`SyncLatencyBench`).
///
/// - S1: a node applies remote changesets of small field updates (10 per transaction) in
///   download-sized batches, one commit per batch: changes per second.
/// - S3: bytes on the wire per small field update after zstd, for transactions of one update
///   each (the costly case: every update carries a changeset header), sent in upload batches
///   on one connection (zstd streams per connection).
/// - S4: a new node catches up a relay's log of 1M operations (× scale) through the node
///   session and relay core: operations per second, from hello to caught up.
/// - S5, S6, S7: metadata under churn, with garbage collection by acknowledgement (`SyncChurnBench`).
struct SyncSuite {
    let options: BenchOptions
    let reporter: Reporter

    static let itemSpec = TableSpec(name: "Item", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "count", type: .int),
        ColumnSpec(name: "score", type: .double),
    ], primaryKey: "id")

    func run() throws {
        let scratch = try ScratchDirectory(path: options.directory + "/sync")
        if options.includes("S1") || options.includes("S3") { try measureApplyAndWire(scratch) }
        if options.includes("S2") { try SyncLatencyBench(options: options, reporter: reporter).run(scratch) }
        if options.includes("S4") { try measureCatchUp(scratch) }
        if options.includes("S5") || options.includes("S6") || options.includes("S7") { try SyncChurnBench(options: options, reporter: reporter).run(scratch) }
    }

    // MARK: set-up helpers

    static func openFile(_ path: String) throws -> Database {
        let db = try Database.open(DatabaseConfiguration(path: path))
        let w = try db.beginWrite()
        if try w.table(named: "Item") == nil { try w.createTable(itemSpec) }
        try w.commit()
        return db
    }

    static func write(_ db: Database, table: String = "Item", _ body: (Table) throws -> Void) throws {
        let w = try db.beginWrite()
        do {
            guard let t = try w.table(named: table) else { throw BenchError("\(table) missing") }
            try body(t)
            try w.commit()
        } catch {
            w.rollback()
            throw error
        }
    }

    static func allOutgoing(_ r: SyncReplica, after: UInt64) throws -> [Changeset] {
        try r.extractLocalChanges()
        var all: [Changeset] = []
        var from = after
        while true {
            let batch = try r.outgoingChangesets(after: from)
            guard let last = batch.last else { return all }
            all += batch
            from = last.seq
        }
    }

    // MARK: S1 and S3

    private func measureApplyAndWire(_ scratch: ScratchDirectory) throws {
        let objects = options.scaled(100_000, minimum: 1000)
        let updates = options.scaled(200_000, minimum: 2000)
        let perTransaction = 10
        let aPath = scratch.file("s1-a.atoll"), bSeed = scratch.file("s1-b-seed.atoll"), bPath = scratch.file("s1-b.atoll")
        for p in [aPath, bSeed, bPath] { ScratchDirectory.removeDatabase(p) }
        writeStandardError("sync: preparing \(objects) objects and \(updates) updates\n")
        var changesets: [Changeset] = []
        var singles: [Changeset] = []
        do {
            let a = try Self.openFile(aPath)
            try Self.write(a) { t in
                for i in 0..<objects {
                    let k = try t.create(primaryKey: .int(Int64(i)))
                    try t.set(k, 1, .string("item \(i)"))
                    try t.set(k, 2, .int(Int64(i % 100)))
                }
            }
            let ra = try SyncReplica.open(a, configuration: ReplicaConfiguration(realmID: "bench"))
            let bootstrap = try Self.allOutgoing(ra, after: 0)
            do {
                let b = try Self.openFile(bSeed)
                let rb = try SyncReplica.open(b, configuration: ReplicaConfiguration(realmID: "bench"))
                for chunk in stride(from: 0, to: bootstrap.count, by: 100) {
                    try rb.apply(Array(bootstrap[chunk..<min(chunk + 100, bootstrap.count)]))
                }
            }
            var rng = SystemRandomNumberGenerator()
            for _ in 0..<(updates / perTransaction) {
                try Self.write(a) { t in
                    for _ in 0..<perTransaction {
                        let k = ObjectKey(primaryKey: Int64.random(in: 0..<Int64(objects), using: &rng))
                        switch Int.random(in: 0..<3, using: &rng) {
                        case 0: try t.set(k, 2, .int(Int64.random(in: 0..<1_000_000, using: &rng)))
                        case 1: try t.set(k, 3, .double(Double.random(in: 0..<1000, using: &rng)))
                        default: try t.set(k, 1, .string("name \(Int.random(in: 0..<1_000_000, using: &rng))"))
                        }
                    }
                }
                if rng.next() % 64 == 0 { try ra.extractLocalChanges() }
            }
            changesets = try Self.allOutgoing(ra, after: bootstrap.last?.seq ?? 0)
            // One update per transaction, for S3: an int property of a random object set to a
            // random value (sequential keys or values would compress to almost nothing).
            for i in 0..<min(updates, 20_000) {
                try Self.write(a) { t in
                    try t.set(ObjectKey(primaryKey: Int64.random(in: 0..<Int64(objects), using: &rng)), 2,
                              .int(Int64.random(in: 0..<1_000_000, using: &rng)))
                }
                if i % 512 == 0 { try ra.extractLocalChanges() }
            }
            singles = try Self.allOutgoing(ra, after: changesets.last?.seq ?? bootstrap.last?.seq ?? 0)
        }

        if options.includes("S1") {
            let plan = options.plan(.heavy)
            let ns = try Sampler.measure(plan) { _ in
                try ScratchDirectory.copyDatabase(from: bSeed, to: bPath)
                let b = try Database.open(DatabaseConfiguration(path: bPath))
                let rb = try SyncReplica.open(b, configuration: ReplicaConfiguration(realmID: "bench"))
                let watch = Stopwatch()
                var i = 0
                while i < changesets.count {
                    let end = min(i + SyncLimits.batchChangesetsMax, changesets.count)
                    try rb.apply(Array(changesets[i..<end]))
                    i = end
                }
                let elapsed = watch.elapsedNanoseconds
                blackHole(rb.versionVector)
                return elapsed
            }
            let rate = Double(changesets.count * perTransaction) / (ns / 1e9)
            reporter.add(Measurement(suite: "sync", name: "S1", unit: Unit(symbol: "changes/s", better: .higher), atoll: rate,
                                     target: .atLeast(100_000, label: "100k/s"),
                                     note: "\(changesets.count * perTransaction) field updates in \(changesets.count) changesets applied in batches of \(SyncLimits.batchChangesetsMax), one durable commit per batch",
                                     isSideBySide: false))
        }
        if options.includes("S3") {
            func wireBytes(_ cs: [Changeset]) throws -> Int {
                let encoder = try FrameEncoder()
                var total = 0
                var i = 0
                while i < cs.count {
                    var end = i, bytes = 0
                    while end < cs.count, end - i < SyncLimits.batchChangesetsMax, bytes < SyncLimits.batchBytesMax {
                        bytes += cs[end].body.count
                        end += 1
                    }
                    var out: [UInt8] = []
                    try encoder.encode(SyncMessage.upload(Array(cs[i..<end])).frame, into: &out)
                    total += out.count
                    i = end
                }
                return total
            }
            /// Each changeset in a frame of its own, as a connected node uploads a lone write.
            func liveWireBytes(_ cs: [Changeset]) throws -> (wire: Int, payload: Int) {
                let encoder = try FrameEncoder()
                var total = 0, payload = 0
                for c in cs {
                    var out: [UInt8] = []
                    let frame = SyncMessage.upload([c]).frame
                    try encoder.encode(frame, into: &out)
                    total += out.count
                    payload += frame.payload.count
                }
                return (total, payload)
            }
            let single = Double(try wireBytes(singles)) / Double(max(1, singles.count))
            let ten = Double(try wireBytes(changesets)) / Double(max(1, changesets.count * perTransaction))
            let (liveWire, livePayload) = try liveWireBytes(singles)
            let live = Double(liveWire) / Double(max(1, singles.count))
            reporter.add(Measurement(suite: "sync", name: "S3", unit: .bytes, atoll: single, target: .atMost(20, label: "20 B"),
                                     note: "one update (int property, random object and value) per transaction, \(singles.count) changesets uploaded in batches of up to \(SyncLimits.batchChangesetsMax) per frame; \(Format.number(ten)) B per update with \(perTransaction) mixed updates per transaction",
                                     isSideBySide: false))
            reporter.add(Measurement(suite: "sync", name: "S3_live", unit: .bytes, atoll: live, target: .report,
                                     note: "the same updates each in a frame of its own (a connected node uploading a lone write), including the 14-byte frame header (docs/WIRE.md); the message before zstd is \(Format.number(Double(livePayload) / Double(max(1, singles.count)))) B; TLS and TCP add their own",
                                     isSideBySide: false))
        }
    }

    // MARK: S4

    private func measureCatchUp(_ scratch: ScratchDirectory) throws {
        let operations = options.scaled(1_000_000, minimum: 10_000)
        let perTransaction = 100
        let aPath = scratch.file("s4-a.atoll"), relayPath = scratch.file("s4-relay.atoll"), cPath = scratch.file("s4-c.atoll")
        for p in [aPath, relayPath, cPath] { ScratchDirectory.removeDatabase(p) }
        writeStandardError("sync: preparing a relay log of \(operations) operations\n")
        let relayDB = try Database.open(DatabaseConfiguration(path: relayPath))
        let relay = try RelayCore(database: relayDB)
        do {
            let a = try Self.openFile(aPath)
            let ra = try SyncReplica.open(a, configuration: ReplicaConfiguration(realmID: "bench"))
            let sa = NodeSession(replica: ra)
            let link = InProcessLink(relay: relay)
            try link.connect(sa, as: 1)
            var made = 0
            var id: Int64 = 0
            while made < operations {
                try Self.write(a) { t in
                    // Each new object: create + 3 properties = 4 operations.
                    for _ in 0..<(perTransaction / 4) {
                        let k = try t.create(primaryKey: .int(id))
                        try t.set(k, 1, .string("object \(id)"))
                        try t.set(k, 2, .int(id % 1000))
                        try t.set(k, 3, .double(Double(id) / 3))
                        id += 1
                    }
                }
                made += perTransaction
                if made % (perTransaction * 500) == 0 || made >= operations {
                    try link.perform(1, sa.localCommitted(now: 0))
                    try link.settle()
                }
            }
            guard sa.progress.isUploadComplete else { throw BenchError("S4 set-up: the relay did not take every changeset") }
        }
        let head = try relay.status().first?.head ?? 0
        let plan = options.plan(.heavy)
        var connection: ConnectionID = 100
        let ns = try Sampler.measure(plan) { _ in
            ScratchDirectory.removeDatabase(cPath)
            let c = try Self.openFile(cPath)
            let rc = try SyncReplica.open(c, configuration: ReplicaConfiguration(realmID: "bench"))
            let sc = NodeSession(replica: rc)
            let link = InProcessLink(relay: relay)
            connection += 1
            let watch = Stopwatch()
            try link.connect(sc, as: connection)
            try link.settle()
            let elapsed = watch.elapsedNanoseconds
            guard sc.progress.downloaded == head else { throw BenchError("S4: the new node stopped at \(sc.progress.downloaded) of \(head)") }
            try link.disconnect(connection)
            return elapsed
        }
        reporter.add(Measurement(suite: "sync", name: "S4", unit: Unit(symbol: "ops/s", better: .higher), atoll: Double(operations) / (ns / 1e9),
                                 target: .atLeast(200_000, label: "200k/s"),
                                 note: "\(operations) operations in \(head) changesets, relay core to node session through the wire codec, in-process",
                                 isSideBySide: false))
    }
}

/// Node sessions and a relay core joined in-process: every frame goes through a real frame
/// encoder and decoder (zstd stream per direction), delivered in order.
final class InProcessLink {
    let relay: RelayCore
    private var sessions: [ConnectionID: (session: NodeSession, up: FrameEncoder, upDecoder: FrameDecoder, down: FrameEncoder, downDecoder: FrameDecoder)] = [:]
    private var toRelay: [(ConnectionID, [UInt8])] = []
    private var toNodes: [(ConnectionID, [UInt8])] = []

    init(relay: RelayCore) { self.relay = relay }

    func connect(_ session: NodeSession, as c: ConnectionID) throws {
        sessions[c] = (session, try FrameEncoder(), try FrameDecoder(), try FrameEncoder(), try FrameDecoder())
        try performRelay(relay.connected(c, now: 0))
        try perform(c, session.start(now: 0))
        try perform(c, session.transportConnected(now: 0))
    }

    func disconnect(_ c: ConnectionID) throws {
        try performRelay(relay.disconnected(c, now: 0))
        sessions[c] = nil
    }

    func perform(_ c: ConnectionID, _ actions: [SessionAction]) throws {
        guard let s = sessions[c] else { return }
        for a in actions {
            if case .send(let f) = a {
                var bytes: [UInt8] = []
                try s.up.encode(f, into: &bytes)
                toRelay.append((c, bytes))
            } else if case .error(let e) = a {
                throw BenchError("sync session error: \(e)")
            }
        }
    }

    func performRelay(_ actions: [RelayAction]) throws {
        for a in actions {
            switch a {
            case .send(let c, let f):
                guard let s = sessions[c] else { continue }
                var bytes: [UInt8] = []
                try s.down.encode(f, into: &bytes)
                toNodes.append((c, bytes))
            case .close(let c):
                throw BenchError("the relay closed connection \(c)")
            }
        }
    }

    /// Runs the relay's timers, then every session's, at `now`, and delivers what follows.
    func tick(now: UInt64) throws {
        try performRelay(relay.tick(now: now))
        for (c, s) in sessions.sorted(by: { $0.key < $1.key }) { try perform(c, s.session.tick(now: now)) }
        try settle()
    }

    /// Delivers until nothing is in flight.
    func settle() throws {
        while !toRelay.isEmpty || !toNodes.isEmpty {
            if !toNodes.isEmpty {
                let (c, bytes) = toNodes.removeFirst()
                guard let s = sessions[c] else { continue }
                for f in try s.downDecoder.decode(bytes) { try perform(c, s.session.receive(f, now: 0)) }
            } else {
                let (c, bytes) = toRelay.removeFirst()
                guard let s = sessions[c] else { continue }
                for f in try s.upDecoder.decode(bytes) { try performRelay(relay.receive(f, from: c, now: 0)) }
            }
        }
    }
}
