import AtollStorage
import AtollSync
import Foundation
import Prometheus
import Testing
import AtollTestSupport

/// The relay's status address: `GET /metrics` in Prometheus text format counting real traffic,
/// and the bearer token it requires off loopback.
@Suite(.serialized) struct RelayMetricsTests {
    /// Two nodes write through a relay; the counters scraped from /metrics match what happened:
    /// every changeset stored was received once and forwarded once to the other node, both
    /// handshakes were accepted, the per-realm gauges show the head, and a node with another
    /// schema is counted as a handshake refused for `schema_mismatch` and shows in the refusal log.
    @Test func metricsCountRealTraffic() async throws { try await offPool(metricsCountRealTrafficBlocking) }

    func metricsCountRealTrafficBlocking() throws {
        let cluster = try Cluster(nodes: ["a", "b", "c"])
        try cluster.startRelay()
        try cluster.startNode("a")
        try cluster.startNode("b")
        var script = WriteScript(seed: 22)
        for round in 0..<3 {
            for name in ["a", "b"] {
                let result = try cluster.importData(name, script.nextImport(for: name))
                #expect(result.status == 0, "import \(round) into \(name): \(result)")
            }
        }
        _ = try cluster.waitForConvergence(["a", "b"]) { script.holdsEveryItem($0) }

        // Converged on the nodes; the relay's counters settle once both acknowledged.
        let metrics = try waitForMetrics(cluster) { m in
            m.value("atoll_relay_realm_lag_operations_max", ["realm": "test"]) == 0
        }
        let realm = try cluster.relayRealm()
        let head = try #require((realm["head"] as? NSNumber)?.doubleValue)
        // Six imports, one transaction each: six changesets in the log.
        #expect(head == 6)
        #expect(metrics.value("atoll_relay_changesets_received_total") == head)
        // Each changeset goes to the one other node.
        #expect(metrics.value("atoll_relay_changesets_sent_total") == head)
        #expect(metrics.value("atoll_relay_handshakes_accepted_total") == 2)
        #expect(metrics.value("atoll_relay_connections_total") == 2)
        #expect(metrics.value("atoll_relay_connections_open") == 2)
        #expect(metrics.value("atoll_relay_realm_head", ["realm": "test"]) == head)
        #expect(metrics.value("atoll_relay_realm_peers_connected", ["realm": "test"]) == 2)
        #expect((metrics.value("atoll_relay_bytes_received_total") ?? 0) > 0)
        #expect((metrics.value("atoll_relay_bytes_sent_total") ?? 0) > 0)
        // Every upload was stored (one sample each) and forwarded to the other node.
        let appends = try #require(metrics.value("atoll_relay_append_seconds_count"))
        #expect(appends >= 1 && appends <= head)
        #expect(metrics.value("atoll_relay_fanout_seconds_count") == appends)
        #expect(metrics.total("atoll_relay_handshakes_refused_total") == 0)
        #expect(metrics.total("atoll_relay_storage_errors_total") == 0)

        // A node whose schema conflicts with the realm's ('n' of another type) is refused at the
        // handshake (a schema that only adds to the realm's would be accepted: docs/SYNC.md).
        let otherSchema = try cluster.directory.write("other-schema.json", """
            [{"name": "Item", "primaryKey": "id", "properties": {"id": "string", "node": "string", "n": "string"}}]
            """)
        try? FileManager.default.removeItem(atPath: cluster.database("c"))
        let created = try cluster.atoll(["import", cluster.database("c"), "--schema", otherSchema])
        #expect(created.status == 0, "\(created)")
        try cluster.startNode("c", waitConnected: false)
        let refused = try waitForMetrics(cluster) { m in
            (m.value("atoll_relay_handshakes_refused_total", ["reason": "schema_mismatch"]) ?? 0) >= 1
        }
        #expect(refused.value("atoll_relay_handshakes_accepted_total") == 2)
        let status = try cluster.relayStatus()
        let refusals = try #require(status["refusals"] as? [[String: Any]])
        #expect(refusals.contains { $0["reason"] as? String == "schema_mismatch" && $0["stage"] as? String == "handshake" && $0["peer"] as? String == "c" },
                "\(refusals)")

        // A certificate from another CA is refused by the transport, before the sync protocol.
        cluster.killNode("c")
        let stranger = try Cluster(nodes: ["c"])
        try cluster.startNode("c", certificates: stranger.certs, waitConnected: false)
        let transport = try waitForMetrics(cluster) { m in m.total("atoll_relay_connections_refused_total") >= 1 }
        #expect(transport.total("atoll_relay_connections_refused_total") >= 1, "\(transport.text)")
        #expect(transport.value("atoll_relay_connections_total") == 3)
        let later = try #require(try cluster.relayStatus()["refusals"] as? [[String: Any]])
        #expect(later.contains { $0["stage"] as? String == "transport" }, "\(later)")
    }

    /// A node session in this process reports to the metrics backend its configuration names (a
    /// Prometheus registry of the test's own; nothing is bootstrapped globally): the connection,
    /// the changeset it uploads with its acknowledgement latency, and the ones it downloads.
    @Test func aNodeSessionReportsToTheFactoryItIsGiven() async throws {
        let cluster = try Cluster(nodes: ["a", "b"])
        try cluster.startRelay()
        try cluster.startNode("b")
        let registry = PrometheusCollectorRegistry()
        var configuration = SyncConfiguration(
            relay: RelayAddress(host: "127.0.0.1", port: cluster.relayPort),
            tls: .mutualTLS(certificatePath: "\(cluster.certs)/a.pem", keyPath: "\(cluster.certs)/a-key.pem", caPath: "\(cluster.certs)/ca.pem"),
            realmID: cluster.realm)
        configuration.metricsFactory = PrometheusMetricsFactory(registry: registry)
        let session = try SyncSession.start(database: try Database.open(DatabaseConfiguration(path: cluster.database("a"))), configuration: configuration)
        #expect(await eventually(timeout: .seconds(60)) { session.state == .connected }, "state \(session.state), error \(String(describing: session.lastError))")

        let fromB = try cluster.importData("b", #"{"Item": [{"id": "from-b", "node": "b", "n": 1}]}"#)
        #expect(fromB.status == 0, "\(fromB)")
        let fromA = try cluster.importData("a", #"{"Item": [{"id": "from-a", "node": "a", "n": 2}]}"#)
        #expect(fromA.status == 0, "\(fromA)")
        _ = try cluster.waitForConvergence(["a", "b"], timeout: 60) {
            let text = String(decoding: $0, as: UTF8.self)
            return text.contains("from-a") && text.contains("from-b")
        }
        try await session.waitForUpload()
        let realm = ["realm": cluster.realm]
        #expect(await eventually(timeout: .seconds(15)) {
            PrometheusSamples(text: registry.emitToString()).value("atoll_node_changesets_received_total", realm) == 1
        })
        let samples = PrometheusSamples(text: registry.emitToString())
        #expect(samples.value("atoll_node_connections_total", realm) == 1)
        #expect(samples.value("atoll_node_connected", realm) == 1)
        #expect(samples.value("atoll_node_changesets_sent_total", realm) == 1)
        #expect(samples.value("atoll_node_changesets_received_total", realm) == 1)
        #expect(samples.value("atoll_node_upload_seconds_count", realm) == 1)
        #expect((samples.value("atoll_node_bytes_sent_total", realm) ?? 0) > 0)
        #expect((samples.value("atoll_node_bytes_received_total", realm) ?? 0) > 0)
        #expect(samples.total("atoll_node_errors_received_total") == 0)
        await session.close()
        #expect(PrometheusSamples(text: registry.emitToString()).value("atoll_node_connected", realm) == 0)
    }

    /// On loopback the status address needs no token. Bound elsewhere the relay will not start
    /// without --status-token-file; with one, /status and /metrics answer 401 without the token
    /// or with a wrong one, and 200 with it (and `atoll-relay status --token-file` reads it).
    @Test func statusTokenIsRequiredOffLoopback() async throws { try await offPool(statusTokenIsRequiredOffLoopbackBlocking) }

    func statusTokenIsRequiredOffLoopbackBlocking() throws {
        let cluster = try Cluster(nodes: ["a"])
        let common = ["serve", "--listen", "127.0.0.1:0", "--cert", "\(cluster.certs)/relay.pem", "--key", "\(cluster.certs)/relay-key.pem",
                      "--ca", "\(cluster.certs)/ca.pem"]

        // Loopback by default: a port alone binds 127.0.0.1 and answers without a token.
        let loopback = try ChildProcess(Executables.relay, common + ["--db", cluster.directory.file("r1.atoll"), "--status", "0"],
                                        name: "relay-loopback", in: cluster.directory)
        defer { loopback.kill9() }
        let loopbackPort = try statusPort(loopback)
        #expect(try StatusHTTP.get(port: loopbackPort, path: "/status").status == 200)
        #expect(try StatusHTTP.get(port: loopbackPort, path: "/metrics").status == 200)
        _ = loopback.terminate()

        // Any address: refused without a token file.
        let refused = try ChildProcess.run(Executables.relay, common + ["--db", cluster.directory.file("r2.atoll"), "--status", "0.0.0.0:0"],
                                           in: cluster.directory)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--status-token-file"), "\(refused)")

        let token = "s3cret-token-\(UUID().uuidString)"
        let tokenFile = try cluster.directory.write("status-token", token + "\n")
        let guarded = try ChildProcess(Executables.relay, common + [
            "--db", cluster.directory.file("r3.atoll"), "--status", "0.0.0.0:0", "--status-token-file", tokenFile,
        ], name: "relay-guarded", in: cluster.directory)
        defer { guarded.kill9() }
        let port = try statusPort(guarded)
        for path in ["/status", "/metrics"] {
            #expect(try StatusHTTP.get(port: port, path: path).status == 401)
            #expect(try StatusHTTP.get(port: port, path: path, token: "wrong-\(token)").status == 401)
            #expect(try StatusHTTP.get(port: port, path: path, token: token).status == 200)
        }
        let metrics = try StatusHTTP.get(port: port, path: "/metrics", token: token)
        #expect(metrics.body.contains("atoll_relay_connections_open"), "\(metrics.body.prefix(500))")
        // The page holds no data; what it shows comes from the guarded documents.
        #expect(try StatusHTTP.get(port: port, path: "/").status == 200)

        let withoutToken = try ChildProcess.run(Executables.relay, ["status", "--status", "127.0.0.1:\(port)"], in: cluster.directory)
        #expect(withoutToken.status != 0)
        #expect(withoutToken.stderr.contains("--token-file"), "\(withoutToken)")
        let withToken = try ChildProcess.run(Executables.relay, ["status", "--status", "127.0.0.1:\(port)", "--token-file", tokenFile, "--json"],
                                             in: cluster.directory)
        #expect(withToken.status == 0, "\(withToken)")
        #expect(withToken.text.contains("\"listen\""))
    }

    /// The status port from the relay's listening line.
    private func statusPort(_ relay: ChildProcess) throws -> Int {
        guard let line = relay.waitForLine(timeout: 30, { $0.hasPrefix("atoll-relay listening on ") }),
              let url = line.split(separator: " ").last(where: { $0.hasPrefix("http://") }),
              let port = Int(url.split(separator: ":").last?.prefix { $0.isNumber } ?? "")
        else {
            throw AtollError(.ioError, "no listening line with a status address; stderr: \(relay.stderr)")
        }
        return port
    }

    /// Scrapes /metrics until `done` holds (15 s at most), and returns the last scrape.
    private func waitForMetrics(_ cluster: Cluster, _ done: (PrometheusSamples) -> Bool) throws -> PrometheusSamples {
        let deadline = Date().addingTimeInterval(15)
        while true {
            let response = try StatusHTTP.get(port: cluster.statusPort, path: "/metrics")
            #expect(response.status == 200)
            let samples = PrometheusSamples(text: response.body)
            if done(samples) || Date() > deadline { return samples }
            usleep(200_000)
        }
    }
}
