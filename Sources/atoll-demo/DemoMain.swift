// atoll-demo: Atoll's main job, run locally.
//
// Mints development certificates into a temporary directory, starts a relay and three nodes
// (each with its own Atoll file and a sync session over mutual TLS 1.3 on 127.0.0.1), keeps a
// live query open on node A, and has the nodes write: creates, an update, concurrent edits made
// offline on two nodes (one property, one list), a delete. Every change set the live query
// receives is printed as it arrives. At the end every node holds the same data, byte for byte,
// and everything is shut down and removed.

import AtollSync
import Foundation
import Logging

final class Todo: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var priority = 0
    @Persisted var done = false
    @Persisted var tags: List<String>
}

@main
struct AtollDemo {
    static func main() async {
        do {
            try await run()
        } catch {
            FileHandle.standardError.write(Data("atoll-demo: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run() async throws {
        // Transport and relay logs (refusals, lost connections) on stderr, warnings only.
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("atoll-demo-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let names = ["node-a", "node-b", "node-c"]
        _ = try DevelopmentCertificateDirectory.create(at: dir.appendingPathComponent("certs").path, nodes: names)
        let certs = dir.appendingPathComponent("certs").path
        say("minted a development CA and certificates for the relay and \(names.joined(separator: ", ")) in \(certs)")

        // The relay: its log is an Atoll file too.
        let relayDatabase = try Database.open(DatabaseConfiguration(path: dir.appendingPathComponent("relay.atoll").path))
        let relay = try SyncRelay.open(database: relayDatabase)
        let server = try await relay.listen(host: "127.0.0.1", port: 0, tls: .mutualTLS(
            certificatePath: certs + "/relay.pem", keyPath: certs + "/relay-key.pem", caPath: certs + "/ca.pem"))
        say("relay listening on 127.0.0.1:\(server.port) (mutual TLS 1.3)")

        // Three nodes, each with its own file and session.
        var nodes: [Node] = []
        for name in names {
            nodes.append(try Node(name: name, directory: dir, certs: certs, relayPort: server.port))
        }
        let (a, b, c) = (nodes[0], nodes[1], nodes[2])
        for node in nodes { try await node.waitUntilConnected() }

        // A live query on node A: open tasks, most urgent first.
        let live = try LiveQuery(node: a)
        try await settle(nodes, live)

        step("node-b creates three tasks")
        try b.write { realm in
            realm.create(Todo.self, value: ["id": 1, "title": "Buy milk", "priority": 2])
            realm.create(Todo.self, value: ["id": 2, "title": "Fix the roof", "priority": 5])
            realm.create(Todo.self, value: ["id": 3, "title": "Call the plumber", "priority": 4])
        }
        try await settle(nodes, live)

        step("node-c adds a task and raises the priority of 'Buy milk'")
        try c.write { realm in
            realm.create(Todo.self, value: ["id": 4, "title": "Water the plants", "priority": 1])
            realm.object(ofType: Todo.self, forPrimaryKey: 1)?.priority = 6
        }
        try await settle(nodes, live)

        step("node-a and node-c go offline and both edit task 2 and its tags")
        a.session.pause()
        c.session.pause()
        try await a.waitFor(.offline)
        try await c.waitFor(.offline)
        try a.write { realm in
            let task = realm.object(ofType: Todo.self, forPrimaryKey: 2)
            task?.title = "Fix the roof (call Sam)"
            task?.tags.append("outdoor")
        }
        // Stamps are clock readings in milliseconds: let one pass so node-c's edit is the later one.
        try await Task.sleep(for: .milliseconds(5))
        try c.write { realm in
            let task = realm.object(ofType: Todo.self, forPrimaryKey: 2)
            task?.title = "Fix the roof before the rain"
            task?.tags.append("urgent")
        }
        say("  offline, node-a sees: \(try a.describe(2))")
        say("  offline, node-c sees: \(try c.describe(2))")
        // A changeset is stamped with its commit's time, so node-c's edit is the later one
        // whichever node uploads first; node-a reconnecting first just keeps the output stable.
        a.session.resume()
        try await a.session.waitForUpload()
        c.session.resume()
        try await settle(nodes, live)
        say("  back online, every node sees: \(try b.describe(2))")
        say("  (the title is a last-writer-wins register: node-c wrote last; both list inserts are kept)")
        let nodeNames = Dictionary(uniqueKeysWithValues: nodes.map { ($0.session.nodeID, $0.name) })
        for node in nodes {
            for c in try node.conflicts() where c.primaryKey == .int(2) {
                say("  \(node.name)'s conflict ledger: \(c.kind) of \(c.property ?? "the object"): "
                    + "\(c.losingValue?.description ?? "a delete") by \(nodeNames[c.losingNode] ?? "?") lost to "
                    + "\(c.winningValue?.description ?? "a delete") by \(nodeNames[c.winningNode] ?? "?")")
            }
        }

        step("node-b marks 'Call the plumber' done, node-a deletes 'Water the plants'")
        try b.write { realm in realm.object(ofType: Todo.self, forPrimaryKey: 3)?.done = true }
        try a.write { realm in
            if let t = realm.object(ofType: Todo.self, forPrimaryKey: 4) { realm.delete(t) }
        }
        try await settle(nodes, live)

        let dumps = try nodes.map { try $0.canonicalDump() }
        let identical = dumps.allSatisfy { $0 == dumps[0] }
        step("every node: \(identical ? "identical data" : "DIFFERENT data") (\(dumps[0].count) bytes of canonical JSON each)")
        let status = try await relay.status()
        for realm in status.realms {
            say("relay: realm '\(realm.realmID)' holds \(realm.head) changesets; " + realm.peers.map {
                "\(status.peerNames[$0.nodeID] ?? "?") lags \($0.lagOperations) ops"
            }.joined(separator: ", "))
        }

        live.stop()
        for node in nodes { await node.session.close() }
        await server.shutdown()
        await relay.shutdown()
        say("shut down the nodes and the relay; removed \(dir.path)")
        if !identical {
            FileHandle.standardError.write(Data("atoll-demo: the nodes did not converge\n".utf8))
            exit(1)
        }
    }

    /// Waits until every node has uploaded what it wrote and downloaded what the relay has,
    /// then lets the live query deliver its change set.
    static func settle(_ nodes: [Node], _ live: LiveQuery) async throws {
        for node in nodes { try await node.session.waitForUpload() }
        for node in nodes { try await node.session.waitForDownload() }
        live.flush()
    }

    static func step(_ text: String) { say("\n== " + text) }

    static func say(_ text: String) {
        print(text)
        fflush(nil)
    }
}

/// One node: its file, a configuration for opening it, and its sync session.
final class Node: Sendable {
    let name: String
    let configuration: Realm.Configuration
    let session: SyncSession
    private let observation: SyncObservation

    init(name: String, directory: URL, certs: String, relayPort: Int) throws {
        self.name = name
        configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("\(name).atoll"), objectTypes: [Todo.self])
        let realm = try Realm(configuration: configuration)
        session = try realm.sync(with: SyncConfiguration(
            relay: RelayAddress(host: "127.0.0.1", port: relayPort),
            tls: .mutualTLS(certificatePath: "\(certs)/\(name).pem", keyPath: "\(certs)/\(name)-key.pem", caPath: "\(certs)/ca.pem"),
            realmID: "demo"))
        let name = self.name
        observation = session.observe { event in
            switch event {
            case .state(let s): AtollDemo.say("  [\(name) is \(s)]")
            case .error(let e): AtollDemo.say("  [\(name): \(e.message)]")
            case .progress: break
            }
        }
    }

    /// A write on a realm of this thread (opened and released within the call).
    func write(_ body: (Realm) throws -> Void) throws {
        let realm = try Realm(configuration: configuration)
        try realm.write { try body(realm) }
    }

    /// The conflicts sync recorded in this node's file.
    func conflicts() throws -> [Conflict] {
        try Realm(configuration: configuration).conflicts(className: "Todo")
    }

    func describe(_ id: Int) throws -> String {
        let realm = try Realm(configuration: configuration)
        guard let t = realm.object(ofType: Todo.self, forPrimaryKey: id) else { return "no task \(id)" }
        return "'\(t.title)' tags \(Array(t.tags))"
    }

    func canonicalDump() throws -> [UInt8] {
        let realm = try Realm(configuration: configuration)
        var bytes: [UInt8] = []
        try realm.dumpJSON(canonical: true) { bytes += $0 }
        return bytes
    }

    func waitUntilConnected() async throws { try await waitFor(.connected) }

    func waitFor(_ state: SessionState) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while session.state != state {
            guard ContinuousClock.now < deadline else {
                throw session.connectionError ?? AtollError(.timeout, "\(name) did not become \(state)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// Node A's live query, confined to its own queue, printing each change set it receives.
final class LiveQuery: Sendable {
    private let queue = DispatchQueue(label: "atoll-demo.live")
    private let state: State

    /// The realm, results and token, touched only on `queue`.
    private final class State: @unchecked Sendable {
        // Sendable: every member is read and written on LiveQuery.queue only.
        var realm: Realm?
        var token: NotificationToken?
    }

    init(node: Node) throws {
        let state = State()
        self.state = state
        let queue = self.queue
        try queue.sync {
            let realm = try Realm(configuration: node.configuration, queue: queue)
            let open = realm.objects(Todo.self).filter("done == false").sorted(byKeyPath: "priority", ascending: false)
            state.realm = realm
            state.token = open.observe { change in
                func titles(_ r: Results<Todo>, _ indexes: [Int]) -> String {
                    "[" + indexes.map { "\($0) '\(r[$0].title)'" }.joined(separator: ", ") + "]"
                }
                switch change {
                case .initial(let r):
                    AtollDemo.say("node-a live query 'open tasks by priority': \(r.count) tasks")
                case .update(let r, let deletions, let insertions, let modifications):
                    var parts: [String] = []
                    if !deletions.isEmpty { parts.append("deleted at \(deletions)") }
                    if !insertions.isEmpty { parts.append("inserted \(titles(r, insertions))") }
                    if !modifications.isEmpty { parts.append("modified \(titles(r, modifications))") }
                    AtollDemo.say("  node-a live query: \(parts.joined(separator: "; ")) -> " + r.map { "\($0.title) (\($0.priority))" }.joined(separator: ", "))
                case .error(let e):
                    AtollDemo.say("  node-a live query error: \(e)")
                }
            }
        }
    }

    /// Refreshes the realm on its queue, delivering any pending change set now.
    func flush() {
        queue.sync { _ = state.realm?.refresh() }
    }

    func stop() {
        queue.sync {
            state.token?.invalidate()
            state.token = nil
            state.realm = nil
        }
    }
}
