import AtollStorage
import Foundation
import Testing
import AtollTestSupport

/// Relays and nodes as real processes of the built `atoll-relay` and `atoll` executables, with
/// development certificates, on 127.0.0.1. By default one relay on its own Atoll file; with
/// `postgres` (a database URL) any number of relays sharing it, each node connected to the relay
/// it was last started with. Every process is killed and the directory removed when the cluster
/// is released, whatever the test did.
final class Cluster: @unchecked Sendable {
    // Sendable: a test drives its cluster from one task at a time; the dictionaries are touched
    // only there.
    let directory = TemporaryDirectory()
    let realm: String
    let schemaPath: String
    /// The relays by number (0 unless a test starts more), with their ports (kept for restarts).
    private(set) var relays: [Int: ChildProcess] = [:]
    private(set) var relayPorts: [Int: Int] = [:]
    private(set) var statusPorts: [Int: Int] = [:]
    /// The relays share this PostgreSQL database instead of each having a file.
    let postgres: String?
    /// The relay each node was last started with.
    private(set) var nodeRelays: [String: Int] = [:]
    private(set) var nodes: [String: ChildProcess] = [:]
    /// Every relay process started (killed ones too), for their logs.
    private(set) var relayLogs: [ChildProcess] = []
    /// Extra `atoll-relay serve` arguments, kept for restarts.
    var relayArguments: [String] = []
    /// How the relay admits nodes (nil: `--ca` with the cluster's CA, mutual TLS).
    var admission: [String]?
    /// Extra environment variables of the relay and node processes.
    var environment: [String: String] = [:]

    static let schema = """
        [{"name": "Item", "primaryKey": "id", "properties": {"id": "string", "node": "string", "n": "int", "note": "string?"}},
         {"name": "Shared", "primaryKey": "key", "properties": {"key": "int", "value": "string", "by": "string", "tags": "string[]"}}]
        """

    var certs: String { directory.file("certs") }
    func database(_ node: String) -> String { directory.file("\(node).atoll") }

    /// Mints certificates for `nodes` with `atoll-relay certs` and creates each node's file with
    /// the schema (`atoll import --schema`).
    init(nodes names: [String], realm: String = "test", postgres: String? = nil) throws {
        self.realm = realm
        self.postgres = postgres
        schemaPath = try directory.write("schema.json", Self.schema)
        let minted = try ChildProcess.run(Executables.relay, ["certs", "--out", directory.file("certs")] + names.flatMap { ["--node", $0] }, in: directory)
        guard minted.status == 0 else { throw AtollError(.ioError, "atoll-relay certs failed: \(minted)") }
        for name in names {
            let created = try atoll(["import", database(name), "--schema", schemaPath])
            guard created.status == 0 else { throw AtollError(.ioError, "atoll import --schema failed: \(created)") }
        }
    }

    deinit {
        for node in nodes.values { node.kill9() }
        for relay in relays.values { relay.kill9() }
    }

    /// Relay 0.
    var relay: ChildProcess? { relays[0] }
    var relayPort: Int { relayPorts[0] ?? 0 }
    var statusPort: Int { statusPorts[0] ?? 0 }

    // MARK: commands

    @discardableResult
    func atoll(_ arguments: [String], timeout: Double = 60) throws -> RunResult {
        try ChildProcess.run(Executables.atoll, arguments, in: directory, timeout: timeout)
    }

    /// `atoll import` of `json` into a node's file (one transaction, in its own process).
    func importData(_ node: String, _ json: String) throws -> RunResult {
        let path = directory.file("data-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try atoll(["import", database(node), "--schema", schemaPath, "--data", path, "--update", "modified"])
    }

    /// Starts an import without waiting for it (to write while other things happen).
    func startImport(_ node: String, _ json: String) throws -> ChildProcess {
        let path = directory.file("data-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return try ChildProcess(Executables.atoll, ["import", database(node), "--schema", schemaPath, "--data", path, "--update", "modified"],
                                name: "import-\(node)", in: directory)
    }

    func canonicalDump(_ node: String) throws -> [UInt8] {
        let result = try atoll(["dump", database(node), "--canonical"])
        guard result.status == 0 else { throw AtollError(.ioError, "atoll dump failed: \(result)") }
        return result.stdout
    }

    // MARK: relay

    /// Starts `atoll-relay serve` number `index` (on the port it had before, after a restart)
    /// with a status endpoint, and waits for its listening line. `environment` adds variables for
    /// this start only.
    func startRelay(_ index: Int = 0, environment extra: [String: String] = [:]) throws {
        precondition(relays[index]?.isRunning != true, "relay \(index) is running")
        let listen = "127.0.0.1:\(relayPorts[index] ?? 0)"
        let store = postgres.map { ["--postgres", $0] } ?? ["--db", directory.file(index == 0 ? "relay.atoll" : "relay-\(index).atoll")]
        let child = try ChildProcess(Executables.relay, ["serve"] + store + [
            "--listen", listen,
            "--cert", "\(certs)/relay.pem", "--key", "\(certs)/relay-key.pem",
        ] + (admission ?? ["--ca", "\(certs)/ca.pem"]) + [
            "--status", "127.0.0.1:\(statusPorts[index] ?? 0)",
        ] + relayArguments, name: "relay-\(index)", in: directory, environment: environment.merging(extra) { $1 })
        relays[index] = child
        relayLogs.append(child)
        guard let line = child.waitForLine(timeout: 30, { $0.hasPrefix("atoll-relay listening on ") }) else {
            throw AtollError(.ioError, "the relay printed no listening line; stderr: \(child.stderr)")
        }
        // "atoll-relay listening on 127.0.0.1:PORT (mutual TLS), status on http://127.0.0.1:PORT/status"
        let ports = line.split(separator: " ").compactMap { word -> Int? in
            guard let colon = word.lastIndex(of: ":") else { return nil }
            return Int(word[word.index(after: colon)...].prefix { $0.isNumber })
        }
        guard ports.count == 2 else { throw AtollError(.ioError, "unexpected listening line '\(line)'") }
        relayPorts[index] = ports[0]
        statusPorts[index] = ports[1]
    }

    func killRelay(_ index: Int = 0) { relays[index]?.kill9() }

    /// The first realm of the relay's status.
    func relayRealm() throws -> [String: Any] {
        (try relayStatus()["realms"] as? [[String: Any]])?.first ?? [:]
    }

    /// `atoll-relay status --json` of relay `index`, decoded.
    func relayStatus(_ index: Int = 0) throws -> [String: Any] {
        let result = try ChildProcess.run(Executables.relay, ["status", "--status", "127.0.0.1:\(statusPorts[index] ?? 0)", "--json"], in: directory)
        guard result.status == 0, let json = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any] else {
            throw AtollError(.ioError, "atoll-relay status failed: \(result)")
        }
        return json
    }

    var allRelayLogs: String { relayLogs.map(\.stderr).joined(separator: "\n") }

    // MARK: nodes

    /// Starts `atoll node` for `name` (certificate `name.pem`, unless `certificate` names another
    /// directory's pair), connected to relay `relay` (the one it had before, else 0), and, unless
    /// told not to, waits until it is connected.
    @discardableResult
    func startNode(_ name: String, certificates: String? = nil, tokenFile: String? = nil, realm: String? = nil, relay: Int? = nil,
                   waitConnected: Bool = true, extra: [String] = []) throws -> ChildProcess {
        precondition(nodes[name]?.isRunning != true, "node \(name) is running")
        let dir = certificates ?? certs
        let relayIndex = relay ?? nodeRelays[name] ?? 0
        nodeRelays[name] = relayIndex
        let child = try ChildProcess(Executables.atoll, [
            "node", database(name), "--relay", "127.0.0.1:\(relayPorts[relayIndex] ?? 0)",
        ] + (tokenFile.map { ["--token-file", $0] } ?? ["--cert", "\(dir)/\(name).pem", "--key", "\(dir)/\(name)-key.pem"]) + [
            "--ca", "\(certs)/ca.pem", "--realm", realm ?? self.realm,
        ] + extra, name: "node-\(name)", in: directory, environment: environment)
        nodes[name] = child
        if waitConnected {
            guard child.waitForLine(timeout: 30, { $0 == "state: connected" }) != nil else {
                throw AtollError(.timeout, "node \(name) did not connect; stdout: \(child.stdout) stderr: \(child.stderr)")
            }
        }
        return child
    }

    func node(_ name: String) -> ChildProcess? { nodes[name] }

    func killNode(_ name: String) { nodes[name]?.kill9() }

    // MARK: convergence

    /// Polls the nodes' canonical dumps until they are byte-identical and `accept` holds for
    /// them (e.g. every expected object is there). Returns the dump, or throws after `timeout`
    /// with what differed.
    func waitForConvergence(_ names: [String], timeout: Double = 90, accept: ([UInt8]) -> Bool = { _ in true }) throws -> [UInt8] {
        let deadline = Date().addingTimeInterval(timeout)
        var last: [String: [UInt8]] = [:]
        while true {
            for name in names { last[name] = try canonicalDump(name) }
            let first = last[names[0]] ?? []
            if names.allSatisfy({ last[$0] == first }), accept(first) { return first }
            guard Date() < deadline else {
                let sizes = names.map { "\($0): \(last[$0]?.count ?? 0) bytes" }.joined(separator: ", ")
                throw AtollError(.timeout, "the nodes did not converge in \(timeout) s (\(sizes)); node logs: "
                    + names.map { "\($0): \(nodes[$0]?.stderr.suffix(1500) ?? "")" }.joined(separator: " | ")
                    + " relay: \(allRelayLogs.suffix(3000))")
            }
            usleep(300_000)
        }
    }
}

/// Random writes for the process tests: each import makes new `Item`s with ids unique to the
/// node and round (all must survive), and updates a few `Shared` objects that every node writes
/// (concurrent conflicts, including list replacements).
struct WriteScript {
    var generator: SeededGenerator
    private(set) var expectedItems: Set<String> = []
    private var counters: [String: Int] = [:]

    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    mutating func nextImport(for node: String) -> String {
        var items: [String] = []
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            let n = counters[node, default: 0]
            counters[node] = n + 1
            let id = "\(node)-\(n)"
            expectedItems.insert(id)
            let note = Bool.random(using: &generator) ? "\"note-\(UInt32.random(in: 0...UInt32.max, using: &generator))\"" : "null"
            items.append("{\"id\": \"\(id)\", \"node\": \"\(node)\", \"n\": \(n), \"note\": \(note)}")
        }
        var shared: [String] = []
        for key in Set((0..<Int.random(in: 0...2, using: &generator)).map { _ in Int.random(in: 0..<5, using: &generator) }) {
            let tags = (0..<Int.random(in: 0...3, using: &generator)).map { "\"\(node)-t\($0)\"" }.joined(separator: ", ")
            shared.append("{\"key\": \(key), \"value\": \"\(node)-\(UInt32.random(in: 0...UInt32.max, using: &generator))\", \"by\": \"\(node)\", \"tags\": [\(tags)]}")
        }
        return "{\"Item\": [\(items.joined(separator: ", "))], \"Shared\": [\(shared.joined(separator: ", "))]}"
    }

    /// Whether a canonical dump holds every expected item id.
    func holdsEveryItem(_ dump: [UInt8]) -> Bool {
        let text = String(decoding: dump, as: UTF8.self)
        return expectedItems.allSatisfy { text.contains("\"id\":\"\($0)\"") }
    }

    func missingItems(_ dump: [UInt8]) -> [String] {
        let text = String(decoding: dump, as: UTF8.self)
        return expectedItems.filter { !text.contains("\"id\":\"\($0)\"") }.sorted()
    }
}


enum Environment {
    /// `ATOLL_MULTINODE_ROUNDS`: write rounds of the process test (default 8; more for a soak).
    static var rounds: Int { ProcessInfo.processInfo.environment["ATOLL_MULTINODE_ROUNDS"].flatMap(Int.init) ?? 8 }
    /// `ATOLL_MULTINODE_SEED`: the seed of the random writes (default: random, printed).
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["ATOLL_MULTINODE_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
    }
}
