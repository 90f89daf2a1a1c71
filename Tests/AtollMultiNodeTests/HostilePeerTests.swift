import AtollStorage
import Foundation
import NIOCore
import NIOPosix
import Testing
@testable import AtollSync
import AtollTestSupport

/// Hostile peers against a relay process while two healthy `atoll node` processes sync through
/// it: each attack is refused or contained, logged, and the healthy nodes keep syncing during it.
/// (A foreign CA, a bad checksum, a huge declared length and a decompression bomb are in
/// `SecurityTests`.)
@Suite(.serialized, .timeLimit(.minutes(5 * Int(ThreadSanitizer.slowdown)))) struct HostilePeerTests {
    /// A write on node a that node b must receive, while whatever else goes on. (Process waits
    /// block their thread: they run off Swift's cooperative pool, here and below.)
    func expectHealthySync(_ cluster: Cluster, _ id: String) async throws {
        try await offPool {
            let imported = try cluster.importData("a", #"{"Item": [{"id": "\#(id)", "node": "a", "n": 1}]}"#)
            guard imported.status == 0 else { throw AtollError(.ioError, "atoll import failed: \(imported)") }
            _ = try cluster.waitForConvergence(["a", "b"], timeout: 30) { String(decoding: $0, as: UTF8.self).contains("\"id\":\"\(id)\"") }
        }
    }

    /// A relay process and two connected nodes, a and b, with more certificates from the
    /// cluster's CA (`atoll-relay certs` adds to a directory).
    func cluster(relayArguments: [String] = [], certificates names: [String]) async throws -> Cluster {
        try await offPool {
            let cluster = try Cluster(nodes: ["a", "b"])
            cluster.relayArguments = relayArguments
            try cluster.startRelay()
            try cluster.startNode("a")
            try cluster.startNode("b")
            let minted = try ChildProcess.run(Executables.relay, ["certs", "--out", cluster.certs] + names.flatMap { ["--node", $0] }, in: cluster.directory)
            guard minted.status == 0 else { throw AtollError(.ioError, "atoll-relay certs failed: \(minted)") }
            return cluster
        }
    }

    static func hello(realm: String) -> Frame {
        SyncMessage.hello(SyncMessage.Hello(nodeID: .random(), realmID: realm, schemaFingerprint: Array(0..<16),
                                            cursor: DownloadCursor(relayID: .zero, seq: 0), versionVector: VersionVector())).frame
    }

    @Test func noCertificateGarbageAndAFloodOfTinyFramesLeaveTheOthersSyncing() async throws { try await offPool(noCertificateGarbageAndAFloodOfTinyFramesLeaveTheOthersSyncingOnItsOwnThread) }

    /// The test's body, on a thread of its own: it keeps time, so it must not wait for the
    /// cooperative pool that other tests may hold.
    func noCertificateGarbageAndAFloodOfTinyFramesLeaveTheOthersSyncingOnItsOwnThread() async throws {
        let cluster = try await cluster(certificates: ["flood", "garbage"])
        let relay = try #require(cluster.relay)

        // No certificate: refused in the TLS handshake, and logged.
        let anonymous = try FrameClient(host: "127.0.0.1", port: cluster.relayPort,
                                        tls: ClientTLSConfiguration(caPath: "\(cluster.certs)/ca.pem", credentials: .none))
        await #expect { try await anonymous.connect { _ in } } throws: { ($0 as? AtollError)?.kind == .authenticationFailed }
        try await anonymous.shutdown()
        #expect(try await offPool { relay.waitForStderr("the peer presented no certificate", timeout: 10) }, "\(relay.stderr.suffix(2000))")
        try await expectHealthySync(cluster, "after-no-certificate")

        // Random bytes after the handshake: a protocol violation, told to the peer and logged.
        var generator = SystemRandomNumberGenerator()
        let garbage = (0..<(64 << 10)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        // Not starting like a frame (0xA1) or a TLS record (0x16), which get other refusals.
        let refused = try await RawTLSClient.send([0xA1, 0x16].contains(garbage.first) ? [0x00] + garbage : garbage,
                                                  port: cluster.relayPort, certificates: cluster.certs, node: "garbage")
        #expect(refused.goodbye?.contains("not an Atoll sync frame") == true, "\(refused.goodbye ?? "none") \(String(describing: refused.error))")
        #expect(try await offPool { relay.waitForStderr("connection to garbage at 127.0.0.1:", timeout: 10) }, "\(relay.stderr.suffix(2000))")
        try await expectHealthySync(cluster, "after-garbage")

        // A flood of tiny frames from an admitted peer: 20,000 heartbeats and 20,000 mark
        // requests in one burst, while the healthy nodes sync. Every request is answered in turn.
        let requests = 20_000
        let flood = [Self.hello(realm: "flood")] + (0..<requests).flatMap { i in
            [Frame(kind: TransportFrameKind.heartbeat, payload: []), SyncMessage.markRequest(id: UInt64(i)).frame]
        }
        let floodBytes = try RawTLSClient.frames(flood)
        async let flooding = RawTLSClient.send(floodBytes, port: cluster.relayPort, certificates: cluster.certs, node: "flood", timeout: .seconds(120)) { frames in
            frames.count { $0.kind == SyncMessage.Kind.markReply.rawValue } >= requests
        }
        try await expectHealthySync(cluster, "during-flood")
        let answered = try await flooding
        #expect(answered.frames.count { $0.kind == SyncMessage.Kind.markReply.rawValue } == requests)
        #expect(answered.goodbye == nil, "\(answered.goodbye ?? "")")
        try await expectHealthySync(cluster, "after-flood")
        #expect(relay.isRunning)
    }

    @Test func unfinishedFramesAndIdleConnectionsStayWithinTheRelaysLimits() async throws { try await offPool(unfinishedFramesAndIdleConnectionsStayWithinTheRelaysLimitsOnItsOwnThread) }

    /// The test's body, on a thread of its own: it keeps time, so it must not wait for the
    /// cooperative pool that other tests may hold.
    func unfinishedFramesAndIdleConnectionsStayWithinTheRelaysLimitsOnItsOwnThread() async throws {
        let budgetMiB = 8
        let holders = (1...12).map { "holder-\($0)" }
        let cluster = try await cluster(relayArguments: ["--memory-budget-mib", "\(budgetMiB)", "--connections-per-identity-max", "4"],
                                        certificates: ["greedy"] + holders)
        let relay = try #require(cluster.relay)
        try await expectHealthySync(cluster, "before")
        let peakBefore = try #require(peakResidentBytes(relay.pid))

        // Before its hello is accepted a peer may send frames of at most 1 MiB (the handshake's
        // limit): a 2 MiB frame is refused from its header, before anything is buffered.
        let big = try RawTLSClient.frame(kind: SyncMessage.Kind.upload.rawValue, payload: Array(repeating: 7, count: 2 << 20))
        let tooBig = try await RawTLSClient.send(big, port: cluster.relayPort, certificates: cluster.certs, node: "greedy")
        #expect(tooBig.goodbye?.contains("over the limit of") == true, "\(tooBig.goodbye ?? "none")")

        // Twelve peers (one identity each), none saying hello, each holding almost 1 MiB of an
        // unfinished frame; one identity opening five connections. Of the 8 MiB budget, peers
        // before their session may hold a quarter, 2 MiB: most holders are closed at once
        // ("memory budget"), the fifth connection of one identity is refused
        // ("connectionsPerIdentityMax"), the rest go at the hello timeout (10 s). The healthy
        // nodes' sessions keep the other three quarters.
        var generator = SystemRandomNumberGenerator()
        let payload = (0..<(FrameLimits.handshakePayloadBytesMax - 4096)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let whole = try RawTLSClient.frame(kind: SyncMessage.Kind.hello.rawValue, payload: payload)
        let unfinished = Array(whole.prefix(whole.count - 100))
        let port = cluster.relayPort, certs = cluster.certs
        async let attack = withThrowingTaskGroup(of: RawTLSClient.Outcome.self) { group in
            for holder in holders {
                group.addTask { try await RawTLSClient.send(unfinished, port: port, certificates: certs, node: holder, timeout: .seconds(60)) }
            }
            for _ in 0..<5 {
                group.addTask { try await RawTLSClient.send(Array(unfinished.prefix(1000)), port: port, certificates: certs, node: "greedy", timeout: .seconds(60)) }
            }
            var outcomes: [RawTLSClient.Outcome] = []
            for try await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        // Hundreds of idle connections that never start TLS.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var idle: [any Channel] = []
        for _ in 0..<300 {
            idle.append(try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: cluster.relayPort).get())
        }
        // Meanwhile the healthy nodes sync.
        try await expectHealthySync(cluster, "during-attack")

        let outcomes = try await attack
        let goodbyes = outcomes.compactMap(\.goodbye)
        let overBudget = goodbyes.filter { $0.contains("memory budget") }.count
        let overIdentity = goodbyes.filter { $0.contains("connectionsPerIdentityMax") }.count
        let timedOut = goodbyes.filter { $0.contains("no sync handshake") }.count
        #expect(overBudget >= 1 && overBudget <= holders.count, "\(goodbyes)")
        #expect(overIdentity == 1, "\(goodbyes)")
        #expect(overBudget + overIdentity + timedOut == holders.count + 5, "\(goodbyes)")
        for channel in idle {
            // Closed by the relay at its handshake timeout.
            try await channel.closeFuture.get()
        }
        try await group.shutdownGracefully()
        let stderr = relay.stderr
        #expect(stderr.contains("bufferedBytesMax"), "\(stderr.suffix(3000))")
        #expect(stderr.components(separatedBy: "was not authenticated within").count - 1 >= 300)
        let peakAfter = try #require(peakResidentBytes(relay.pid))
        // 12 MiB of unfinished frames were offered and the budget held at most 2 MiB of them: the
        // growth is the budget plus TLS, socket and codec state of the 317 connections (measured:
        // about 170 KiB each in a debug build), not what the peers sent.
        let connectionAllowance = 256 << 10
        let bound = budgetMiB << 20 + 317 * connectionAllowance
        #expect(peakAfter - peakBefore <= bound, "the relay's peak memory grew by \((peakAfter - peakBefore) >> 20) MiB, over \(bound >> 20) MiB")
        print("hostile peers: \(overBudget) closed over the budget, \(overIdentity) over the identity limit, \(timedOut) at the hello timeout; relay peak RSS \(peakBefore >> 20) -> \(peakAfter >> 20) MiB")
        try await expectHealthySync(cluster, "after-attack")
        #expect(relay.isRunning)
    }
}
