import AtollStorage
import Foundation
import Testing
import AtollTestSupport

/// `atoll node` as a process: errors, realm binding, refusals, and the relay's history trimming.
@Suite(.serialized) struct NodeCommandTests {
    @Test func badArgumentsAndUnusableFilesFailWithOneLine() async throws { try await offPool(badArgumentsAndUnusableFilesFailWithOneLineBlocking) }

    /// The test's body: it waits for processes, so it runs off Swift's cooperative pool.
    func badArgumentsAndUnusableFilesFailWithOneLineBlocking() throws {
        let cluster = try Cluster(nodes: ["a"])
        let certs = cluster.certs
        let tls = ["--cert", "\(certs)/a.pem", "--key", "\(certs)/a-key.pem", "--ca", "\(certs)/ca.pem"]
        let cases: [(arguments: [String], status: Int32, message: String)] = [
            (["node", cluster.directory.file("missing.atoll"), "--relay", "127.0.0.1:7450"] + tls, 66, "no database at"),
            (["node", cluster.database("a"), "--relay", "localhost"] + tls, 65, "'localhost' is not HOST:PORT"),
            (["node", cluster.database("a"), "--relay", "127.0.0.1:7450", "--cert", "\(certs)/nope.pem", "--key", "\(certs)/a-key.pem", "--ca", "\(certs)/ca.pem"], 66, "nope.pem"),
            (["node", cluster.database("a"), "--relay", "127.0.0.1:7450", "--ca", "\(certs)/ca.pem"], 64, "give --cert and --key"),
        ]
        for (arguments, status, message) in cases {
            let result = try cluster.atoll(arguments)
            #expect(result.status == status, "\(arguments): \(result)")
            #expect(result.stderr.hasPrefix("atoll: ") && result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
    }

    @Test func aFileStaysBoundToItsRealmAndARefusedSchemaStopsTheNode() async throws { try await offPool(aFileStaysBoundToItsRealmAndARefusedSchemaStopsTheNodeBlocking) }

    /// The test's body: it waits for processes, so it runs off Swift's cooperative pool.
    func aFileStaysBoundToItsRealmAndARefusedSchemaStopsTheNodeBlocking() throws {
        let cluster = try Cluster(nodes: ["a", "b"])
        try cluster.startRelay()
        try cluster.startNode("a")
        #expect(cluster.node("a")?.terminate() == 0)
        let other = try cluster.atoll(["node", cluster.database("a"), "--relay", "127.0.0.1:\(cluster.relayPort)", "--realm", "elsewhere",
                                       "--cert", "\(cluster.certs)/a.pem", "--key", "\(cluster.certs)/a-key.pem", "--ca", "\(cluster.certs)/ca.pem"])
        #expect(other.status == 65, "\(other)")
        #expect(other.stderr.contains("belongs to realm 'test'"), "\(other.stderr)")

        // b's file has a conflicting schema ('Item.n' of another type): the relay refuses it and
        // the node ends by itself.
        let schema = try cluster.directory.write("other.json", #"[{"name": "Item", "primaryKey": "id", "properties": {"id": "string", "n": "string"}}]"#)
        try FileManager.default.removeItem(atPath: cluster.database("b"))
        try? FileManager.default.removeItem(atPath: cluster.database("b") + ".lock")
        #expect(try cluster.atoll(["import", cluster.database("b"), "--schema", schema]).status == 0)
        let b = try cluster.startNode("b", waitConnected: false)
        #expect(b.wait(timeout: 30) == 65, "\(b.stdout) \(b.stderr)")
        #expect(b.stderr.contains("property 'Item.n' is string in the node's schema but int in the realm's"), "\(b.stderr)")
        #expect(b.lines.contains("state: offline"))
    }

    /// With --trim-history the relay deletes log entries only once every known peer has them:
    /// a node that is down holds the trimming point back, and catches up when it returns. A node
    /// the relay has never seen joins after trimming from the compacted history (a snapshot).
    @Test func trimmingWaitsForEveryKnownPeer() async throws { try await offPool(trimmingWaitsForEveryKnownPeerBlocking) }

    /// The test's body: it waits for processes, so it runs off Swift's cooperative pool.
    func trimmingWaitsForEveryKnownPeerBlocking() throws {
        let cluster = try Cluster(nodes: ["a", "b", "late"])
        cluster.relayArguments = ["--trim-history"]
        try cluster.startRelay()
        try cluster.startNode("a")
        try cluster.startNode("b")
        _ = try cluster.importData("a", #"{"Item": [{"id": "first", "node": "a", "n": 1}]}"#)
        _ = try cluster.waitForConvergence(["a", "b"], timeout: 30) { String(decoding: $0, as: UTF8.self).contains("first") }
        #expect(try waitUntil(timeout: 15) { (try cluster.relayRealm()["trimmedThrough"] as? Int ?? 0) >= 1 }, "\((try? cluster.relayStatus()) ?? [:])")
        let floor = try cluster.relayRealm()["head"] as? Int ?? 0

        #expect(cluster.node("b")?.terminate() == 0)
        for i in 0..<5 {
            #expect(try cluster.importData("a", #"{"Item": [{"id": "while-b-away-\#(i)", "node": "a", "n": \#(i)}]}"#).status == 0)
        }
        // Two trim intervals pass: nothing b lacks is trimmed.
        usleep(11_000_000)
        let realm = try cluster.relayRealm()
        #expect(realm["trimmedThrough"] as? Int == floor, "\(realm)")
        #expect((realm["head"] as? Int ?? 0) > floor)

        try cluster.startNode("b")
        _ = try cluster.waitForConvergence(["a", "b"], timeout: 30) { String(decoding: $0, as: UTF8.self).contains("while-b-away-4") }
        #expect(try waitUntil(timeout: 15) {
            let r = try cluster.relayRealm()
            return (r["trimmedThrough"] as? Int) == (r["head"] as? Int)
        }, "\((try? cluster.relayStatus()) ?? [:])")

        // A node the relay has never seen joins after trimming: it gets the compacted history as
        // a snapshot, then the log, and converges with the others.
        try cluster.startNode("late")
        _ = try cluster.importData("a", #"{"Item": [{"id": "after-late-joined", "node": "a", "n": 9}]}"#)
        let converged = try cluster.waitForConvergence(["a", "b", "late"], timeout: 60) {
            String(decoding: $0, as: UTF8.self).contains("after-late-joined")
        }
        let text = String(decoding: converged, as: UTF8.self)
        #expect(text.contains("first") && text.contains("while-b-away-4"), "\(text.prefix(2000))")
    }
}
