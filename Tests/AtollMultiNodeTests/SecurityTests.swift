import AtollStorage
import Foundation
import Testing
@testable import AtollSync
import AtollTestSupport

/// Peers the relay must refuse, and frames it must reject, without losing anything.
@Suite(.serialized, .timeLimit(.minutes(5 * Int(ThreadSanitizer.slowdown)))) struct SecurityTests {
    @Test func aNodeWithACertificateFromAnotherCAIsRefusedAndTheRelayLogsIt() async throws { try await offPool(aNodeWithACertificateFromAnotherCAIsRefusedAndTheRelayLogsItBlocking) }

    /// The test's body: it waits for processes, so it runs off Swift's cooperative pool.
    func aNodeWithACertificateFromAnotherCAIsRefusedAndTheRelayLogsItBlocking() throws {
        let cluster = try Cluster(nodes: ["a", "b", "mallory"])
        try cluster.startRelay()
        try cluster.startNode("a")
        try cluster.startNode("b")
        // mallory's certificate comes from a CA of its own.
        let foreign = cluster.directory.file("foreign")
        let minted = try ChildProcess.run(Executables.relay, ["certs", "--out", foreign, "--node", "mallory"], in: cluster.directory)
        try #require(minted.status == 0, "\(minted)")
        _ = try cluster.importData("mallory", #"{"Item": [{"id": "mallory-1", "node": "mallory", "n": 1}]}"#)
        let mallory = try cluster.startNode("mallory", certificates: foreign, waitConnected: false)

        #expect(mallory.waitForStderr("atoll node: ", timeout: 20), "\(mallory.stderr)")
        #expect(try #require(cluster.relay).waitForStderr("refused connection from 127.0.0.1:", timeout: 20))
        #expect(cluster.relay?.stderr.contains("not issued by the trusted CA") == true, "\(cluster.relay?.stderr ?? "")")
        #expect(!mallory.lines.contains("state: connected"))

        // The refused node got nothing in and put nothing in.
        _ = try cluster.importData("a", #"{"Item": [{"id": "a-1", "node": "a", "n": 1}]}"#)
        let dump = try cluster.waitForConvergence(["a", "b"], timeout: 30) { String(decoding: $0, as: UTF8.self).contains("a-1") }
        #expect(!String(decoding: dump, as: UTF8.self).contains("mallory-1"))
        #expect(!String(decoding: try cluster.canonicalDump("mallory"), as: UTF8.self).contains("a-1"))
        #expect(mallory.terminate() == 0, "\(mallory.stderr)")
    }

    @Test func aCorruptedFrameIsRejectedAndNothingIsLost() async throws { try await offPool(aCorruptedFrameIsRejectedAndNothingIsLostOnItsOwnThread) }

    /// The test's body, on a thread of its own: it keeps time, so it must not wait for the
    /// cooperative pool that other tests may hold.
    func aCorruptedFrameIsRejectedAndNothingIsLostOnItsOwnThread() async throws {
        // Process waits block their thread: they run off Swift's cooperative pool.
        let cluster = try await offPool {
            let cluster = try Cluster(nodes: ["a", "b", "c"])
            try cluster.startRelay()
            try cluster.startNode("a")
            try cluster.startNode("b")
            _ = try cluster.importData("a", #"{"Item": [{"id": "before", "node": "a", "n": 1}]}"#)
            _ = try cluster.waitForConvergence(["a", "b"], timeout: 30) { String(decoding: $0, as: UTF8.self).contains("before") }
            return cluster
        }

        // A frame whose checksum does not match, from a peer with a valid certificate.
        var bytes = try RawTLSClient.frame(kind: 1, payload: Array("not a hello, and damaged".utf8))
        bytes[bytes.count - 1] ^= 0x5A
        let outcome = try await RawTLSClient.send(bytes, port: cluster.relayPort, certificates: cluster.certs, node: "c")
        #expect(outcome.goodbye?.contains("checksum") == true, "goodbye: \(outcome.goodbye ?? "none"), error: \(String(describing: outcome.error))")
        let relay = try #require(cluster.relay)
        #expect(try await offPool { relay.waitForStderr("checksum", timeout: 10) }, "\(relay.stderr)")

        // The relay and the other nodes go on; nothing stored was lost.
        #expect(relay.isRunning)
        let dump = try await offPool {
            _ = try cluster.importData("b", #"{"Item": [{"id": "after", "node": "b", "n": 2}]}"#)
            return try cluster.waitForConvergence(["a", "b"], timeout: 30) { String(decoding: $0, as: UTF8.self).contains("after") }
        }
        #expect(String(decoding: dump, as: UTF8.self).contains("\"id\":\"before\""))
    }

    @Test func aDecompressionBombIsRefusedWithinItsCap() async throws { try await offPool(aDecompressionBombIsRefusedWithinItsCapOnItsOwnThread) }

    /// The test's body, on a thread of its own: it keeps time, so it must not wait for the
    /// cooperative pool that other tests may hold.
    func aDecompressionBombIsRefusedWithinItsCapOnItsOwnThread() async throws {
        let cluster = try await offPool {
            let cluster = try Cluster(nodes: ["a", "c"])
            try cluster.startRelay()
            try cluster.startNode("a")
            return cluster
        }
        let relay = try #require(cluster.relay)
        let peakBefore = try #require(peakResidentBytes(relay.pid))

        // 32 MiB of zeros compress to a few KiB; the frame declares 1 KiB.
        let compressed = try RawTLSClient.frame(kind: 4, payload: [UInt8](repeating: 0, count: 32 << 20))
        #expect(compressed.count < 64 << 10)
        let bomb = RawTLSClient.declaringPayload(compressed, as: 1024)
        let outcome = try await RawTLSClient.send(bomb, port: cluster.relayPort, certificates: cluster.certs, node: "c")
        #expect(outcome.goodbye != nil, "error: \(String(describing: outcome.error))")
        #expect(outcome.goodbye?.contains("1024") == true, "\(outcome.goodbye ?? "")")
        let peakAfter = try #require(peakResidentBytes(relay.pid))
        #expect(peakAfter - peakBefore < 16 << 20, "the relay's peak memory grew by \(peakAfter - peakBefore) bytes")

        // A frame declaring more than the cap is refused from its header, before any allocation.
        let huge = RawTLSClient.declaringPayload(try RawTLSClient.frame(kind: 4, payload: [1, 2, 3]), as: UInt32(Int32.max))
        let refused = try await RawTLSClient.send(huge, port: cluster.relayPort, certificates: cluster.certs, node: "c")
        #expect(refused.goodbye?.contains("payloadBytesMax") == true || refused.goodbye?.contains("exceeds") == true, "\(refused.goodbye ?? "none")")

        #expect(relay.isRunning)
        try await offPool {
            _ = try cluster.importData("a", #"{"Item": [{"id": "still-fine", "node": "a", "n": 1}]}"#)
            try cluster.startNode("c")
            _ = try cluster.waitForConvergence(["a", "c"], timeout: 30) { String(decoding: $0, as: UTF8.self).contains("still-fine") }
        }
    }
}
