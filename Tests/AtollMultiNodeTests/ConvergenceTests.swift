import AtollStorage
import Foundation
import Testing
import AtollTestSupport

/// A relay and three `atoll node` processes with mutual TLS; writes through `atoll import` in
/// separate processes; nodes and the relay killed with SIGKILL mid-stream and restarted.
@Suite(.serialized) struct ConvergenceTests {
    /// Writes in every node's file while nodes and the relay are killed and restarted; once quiet,
    /// every node holds byte-identical data with every write that any import committed.
    @Test func threeNodesConvergeThroughKillsOfNodesAndRelay() async throws { try await offPool(threeNodesConvergeThroughKillsOfNodesAndRelayBlocking) }

    /// The test's body: it waits for processes, so it runs off Swift's cooperative pool.
    func threeNodesConvergeThroughKillsOfNodesAndRelayBlocking() throws {
        let seed = Environment.seed
        let rounds = max(6, Environment.rounds)
        print("ConvergenceTests: ATOLL_MULTINODE_SEED=\(seed) ATOLL_MULTINODE_ROUNDS=\(rounds)")
        let names = ["a", "b", "c"]
        let cluster = try Cluster(nodes: names)
        try cluster.startRelay()
        for name in names { try cluster.startNode(name) }
        var script = WriteScript(seed: seed)
        var generator = SeededGenerator(seed: seed ^ 0x5EED)

        for round in 0..<rounds {
            // The round's imports run at once, one process per node, while sync is in flight.
            var imports: [(String, ChildProcess)] = []
            for name in names {
                imports.append((name, try cluster.startImport(name, script.nextImport(for: name))))
            }
            // Kills land while those imports commit and the nodes ship them.
            let phase = round % 6
            if phase == 1 {
                let victim = names[Int.random(in: 0..<names.count, using: &generator)]
                usleep(UInt32.random(in: 0...200_000, using: &generator))
                cluster.killNode(victim)
                // Writes go on into the file of the dead node (shipped once it is back).
                let whileDown = try cluster.importData(victim, script.nextImport(for: victim))
                #expect(whileDown.status == 0, "\(whileDown)")
                try cluster.startNode(victim)
            } else if phase == 3 {
                usleep(UInt32.random(in: 0...200_000, using: &generator))
                cluster.killRelay()
                for name in names {
                    let whileRelayDown = try cluster.importData(name, script.nextImport(for: name))
                    #expect(whileRelayDown.status == 0, "\(whileRelayDown)")
                }
                try cluster.startRelay()
            }
            for (name, child) in imports {
                #expect(child.wait(timeout: 60) == 0, "import into \(name): \(child.stderr)")
            }
        }

        let dump = try cluster.waitForConvergence(names) { script.holdsEveryItem($0) }
        #expect(script.missingItems(dump).isEmpty)
        #expect(script.expectedItems.count > rounds * names.count)

        // The relay reports every peer caught up.
        let status = try cluster.relayStatus()
        let realms = status["realms"] as? [[String: Any]] ?? []
        let peers = realms.first?["peers"] as? [[String: Any]] ?? []
        #expect(peers.count == names.count, "\(status)")
        #expect(try waitUntil(timeout: 20) {
            let peers = (try cluster.relayStatus()["realms"] as? [[String: Any]])?.first?["peers"] as? [[String: Any]] ?? []
            return peers.count == names.count && peers.allSatisfy { ($0["lagOperations"] as? Int) == 0 }
        })

        for name in names {
            let node = try #require(cluster.node(name))
            #expect(node.terminate() == 0, "node \(name): \(node.stderr)")
            #expect(node.lines.last == "stopped", "\(node.stdout)")
        }
        let relay = try #require(cluster.relay)
        #expect(relay.terminate() == 0, "\(relay.stderr)")
        #expect(relay.stderr.contains("stopped"))
    }

    /// A node's process is down while its file gets writes; then the relay is down while
    /// another node's file gets writes. Everything arrives everywhere once they are back, and a
    /// node that only joins at the end catches up from the relay's log.
    @Test func writesMadeWhileTheNodeOrTheRelayIsDownAreShippedWhenBack() async throws { try await offPool(writesMadeWhileTheNodeOrTheRelayIsDownAreShippedWhenBackBlocking) }

    /// The test's body: it waits for processes, so it runs off Swift's cooperative pool.
    func writesMadeWhileTheNodeOrTheRelayIsDownAreShippedWhenBackBlocking() throws {
        let cluster = try Cluster(nodes: ["a", "b", "c"])
        try cluster.startRelay()
        try cluster.startNode("a")
        try cluster.startNode("b")

        #expect(cluster.node("a")?.terminate() == 0)
        let offline = try cluster.importData("a", #"{"Item": [{"id": "a-offline", "node": "a", "n": 1}]}"#)
        #expect(offline.status == 0, "\(offline)")
        cluster.killRelay()
        let relayDown = try cluster.importData("b", #"{"Item": [{"id": "b-relay-down", "node": "b", "n": 2}]}"#)
        #expect(relayDown.status == 0, "\(relayDown)")
        try cluster.startRelay()
        try cluster.startNode("a")
        try cluster.startNode("c")

        let dump = try cluster.waitForConvergence(["a", "b", "c"], timeout: 60) {
            let text = String(decoding: $0, as: UTF8.self)
            return text.contains("a-offline") && text.contains("b-relay-down")
        }
        #expect(String(decoding: dump, as: UTF8.self).contains("\"id\":\"a-offline\""))
    }
}

/// Polls `condition` every 200 ms until it holds or `timeout` seconds pass.
func waitUntil(timeout: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        usleep(200_000)
    }
    return try condition()
}

/// A bulk transfer through the relay: one large import on A, applied on B.
@Suite(.serialized) struct BulkTransferTests {
    @Test func aLargeTransactionArrivesWholeAndItsThroughputIsMeasured() async throws { try await offPool(aLargeTransactionArrivesWholeAndItsThroughputIsMeasuredBlocking) }

    /// The test's body: it waits for processes, so it runs off Swift's cooperative pool.
    func aLargeTransactionArrivesWholeAndItsThroughputIsMeasuredBlocking() throws {
        let count = ProcessInfo.processInfo.environment["ATOLL_MULTINODE_BULK"].flatMap(Int.init) ?? 20_000
        let cluster = try Cluster(nodes: ["a", "b"])
        try cluster.startRelay()
        try cluster.startNode("a")
        try cluster.startNode("b")
        let items = (0..<count).map { #"{"id": "bulk-\#($0)", "node": "a", "n": \#($0), "note": "a note of some length for item \#($0)"}"# }
        let imported = try cluster.importData("a", #"{"Item": ["# + items.joined(separator: ", ") + "]}")
        #expect(imported.status == 0, "\(imported)")
        let committed = Date()
        let b = try #require(cluster.node("b"))
        // B reports its download complete once it has applied the batch(es); its process, like the
        // relay's, runs several times slower under Thread Sanitizer.
        let done = b.waitForLine(timeout: 120 * ThreadSanitizer.slowdown) { $0.hasPrefix("progress: ") && $0.hasSuffix("downloaded 1/1") }
        let elapsed = Date().timeIntervalSince(committed)
        #expect(done != nil, "\(b.stdout)")
        let dump = String(decoding: try cluster.canonicalDump("b"), as: UTF8.self)
        #expect(dump.contains("\"id\":\"bulk-\(count - 1)\""))
        let bytes = try FileManager.default.attributesOfItem(atPath: cluster.database("b"))[.size] as? Int ?? 0
        print("BulkTransferTests: \(count) objects in one transaction from A's commit to applied on B in \(String(format: "%.2f", elapsed)) s (\(Int(Double(count) / max(elapsed, 0.001))) objects/s; B's file \(bytes / 1024) KiB)")
    }
}
