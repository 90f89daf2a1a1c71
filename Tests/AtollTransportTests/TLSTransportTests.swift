import AtollStorage
import Foundation
import NIOCore
import Testing
@testable import AtollSync
import AtollTestSupport

/// The transport over real TLS on 127.0.0.1 with ephemeral ports. Serialized: several tests count
/// threads and connections.
@Suite(.serialized, .timeLimit(.minutes(5 * Int(ThreadSanitizer.slowdown)))) struct TLSTransportTests {
    @Test func mutualTLSCarriesFramesBothWaysAndNamesThePeers() async throws {
        let pki = try TestPKI()
        let logs = LogCapture()
        let seenPeers = Locked<[PeerIdentity]>([])
        let server = try await FrameServer.start(host: "127.0.0.1", port: 0, tls: pki.server, configuration: transportConfiguration(logs)) { connection in
            seenPeers.withLock { $0.append(connection.peer) }
            await echo(connection)
        }
        let client = try FrameClient(host: "127.0.0.1", port: server.port, tls: pki.client("node-a"), configuration: transportConfiguration(logs))
        let frames = (0..<200).map { Frame(kind: UInt8($0 % 200), payload: Array("message \($0)".utf8)) }
        + [Frame(kind: 3, payload: [UInt8](repeating: 9, count: 3 << 20)), Frame(kind: 4, payload: [])]
        let (echoed, serverName) = try await client.connect { connection in
            try await connection.send(contentsOf: Array(frames.prefix(100)))
            for frame in frames.dropFirst(100) { try await connection.send(frame) }
            var echoed: [Frame] = []
            for try await frame in connection.inbound {
                echoed.append(frame)
                if echoed.count == frames.count { break }
            }
            return (echoed, connection.peer.name)
        }
        #expect(echoed == frames)
        #expect(serverName == "atoll-relay")
        #expect(seenPeers.withLock { $0.map(\.name) } == ["node-a"])
        #expect(seenPeers.withLock { $0.first?.method } == .certificate)
        try await client.shutdown()
        await server.shutdown()
    }

    @Test func sendRefusesOversizedAndReservedFramesAndTheConnectionStaysUp() async throws {
        let pki = try TestPKI()
        var configuration = transportConfiguration(LogCapture())
        configuration.limits = try FrameLimits(payloadBytesMax: 1024)
        let server = try await FrameServer.start(host: "127.0.0.1", port: 0, tls: pki.server, configuration: configuration, handler: echo)
        // By name: the relay's certificate is valid for localhost as well as 127.0.0.1.
        let client = try FrameClient(host: "localhost", port: server.port, tls: pki.client("node-a"), configuration: configuration)
        let reply = try await client.connect { connection in
            await #expect(throws: AtollError(.limitExceeded, "frame payload of 1025 bytes exceeds payloadBytesMax (1024); split the message")) {
                try await connection.send(Frame(kind: 1, payload: Array(repeating: 0, count: 1025)))
            }
            do {
                try await connection.send(contentsOf: [Frame(kind: 1, payload: [1]), Frame(kind: 0xF0, payload: [])])
                Issue.record("a reserved kind was sent")
            } catch let error as AtollError {
                #expect(error.kind == .invalidArgument)
            }
            try await connection.send(Frame(kind: 2, payload: Array(repeating: 7, count: 1024)))
            var iterator = connection.inbound.makeAsyncIterator()
            return try await iterator.next()
        }
        #expect(reply == Frame(kind: 2, payload: Array(repeating: 7, count: 1024)))
        try await client.shutdown()
        await server.shutdown()
    }

    @Test func aNodeWithACertificateFromAnotherCAIsRefusedAndTheRefusalLogged() async throws {
        let pki = try TestPKI()
        let stranger = try TestPKI(nodes: ["intruder"])
        let logs = LogCapture()
        let admitted = Counter()
        let server = try await FrameServer.start(host: "127.0.0.1", port: 0, tls: pki.server, configuration: transportConfiguration(logs)) { _ in
            admitted.increment()
        }
        // The intruder trusts the real CA for the server but presents a certificate from its own.
        let tls = ClientTLSConfiguration(caPath: pki.ca, credentials: .certificate(
            certificatePath: stranger.directory.file("intruder.pem"), keyPath: stranger.directory.file("intruder-key.pem")))
        let client = try FrameClient(host: "127.0.0.1", port: server.port, tls: tls, configuration: transportConfiguration(LogCapture()))
        do {
            try await client.connect { _ in }
            Issue.record("connect succeeded")
        } catch let error as AtollError {
            #expect(error.kind == .authenticationFailed, "\(error)")
            #expect(error.message.contains("the peer refused this side's certificate"), "\(error)")
        }
        #expect(await logs.waitFor("refused connection from 127.0.0.1"))
        #expect(logs.contains("the peer's certificate was not accepted (not issued by the trusted CA"), "\(logs.all)")
        #expect(admitted.value == 0)
        try await client.shutdown()
        await server.shutdown()
    }

    @Test func aClientWithoutACertificateIsRefused() async throws {
        let pki = try TestPKI()
        let logs = LogCapture()
        let server = try await FrameServer.start(host: "127.0.0.1", port: 0, tls: pki.server, configuration: transportConfiguration(logs)) { _ in
            Issue.record("a client without a certificate was admitted")
        }
        let client = try FrameClient(host: "127.0.0.1", port: server.port,
                                     tls: ClientTLSConfiguration(caPath: pki.ca, credentials: .none), configuration: transportConfiguration(LogCapture()))
        do {
            try await client.connect { _ in }
            Issue.record("connect succeeded")
        } catch let error as AtollError {
            #expect(error.kind == .authenticationFailed, "\(error)")
            #expect(error.message.contains("requires a certificate"), "\(error)")
        }
        #expect(await logs.waitFor("refused connection from 127.0.0.1"))
        #expect(logs.contains("the peer presented no certificate"), "\(logs.all)")
        try await client.shutdown()
        await server.shutdown()
    }

    @Test func aServerCertificateFromAnotherCAIsRefusedByTheClient() async throws {
        let pki = try TestPKI()
        let impostor = try TestPKI()
        let server = try await FrameServer.start(host: "127.0.0.1", port: 0, tls: impostor.server, configuration: transportConfiguration(LogCapture())) { _ in
            Issue.record("the client accepted an impostor server")
        }
        let client = try FrameClient(host: "127.0.0.1", port: server.port, tls: pki.client("node-a"), configuration: transportConfiguration(LogCapture()))
        do {
            try await client.connect { _ in }
            Issue.record("connect succeeded")
        } catch let error as AtollError {
            #expect(error.kind == .authenticationFailed, "\(error)")
            #expect(error.message.contains("not issued by the configured CA"), "\(error)")
        }
        try await client.shutdown()
        await server.shutdown()
    }

    @Test func tokenModeAdmitsTheRightTokenAndRefusesAWrongOne() async throws {
        let pki = try TestPKI()
        let logs = LogCapture()
        let tls = ServerTLSConfiguration(
            certificatePath: pki.directory.file("relay.pem"), keyPath: pki.directory.file("relay-key.pem"),
            admission: .bearerToken(tokens: ["s3cret-token-for-a": "node-a"]))
        let peers = Locked<[PeerIdentity]>([])
        let server = try await FrameServer.start(host: "127.0.0.1", port: 0, tls: tls, configuration: transportConfiguration(logs)) { connection in
            peers.withLock { $0.append(connection.peer) }
            await echo(connection)
        }
        let good = try FrameClient(host: "127.0.0.1", port: server.port,
                                   tls: ClientTLSConfiguration(caPath: pki.ca, credentials: .token("s3cret-token-for-a")), configuration: transportConfiguration(logs))
        let reply = try await good.connect { connection in
            try await connection.send(Frame(kind: 1, payload: [1, 2, 3]))
            var iterator = connection.inbound.makeAsyncIterator()
            return try await iterator.next()
        }
        #expect(reply == Frame(kind: 1, payload: [1, 2, 3]))
        #expect(peers.withLock { $0 } .map(\.name) == ["node-a"])
        #expect(peers.withLock { $0 }.first?.method == .token)

        let bad = try FrameClient(host: "127.0.0.1", port: server.port,
                                  tls: ClientTLSConfiguration(caPath: pki.ca, credentials: .token("guess")), configuration: transportConfiguration(LogCapture()))
        do {
            try await bad.connect { _ in }
            Issue.record("a wrong token was admitted")
        } catch let error as AtollError {
            #expect(error.kind == .authenticationFailed)
            #expect(error.message.contains("bearer token was not accepted"), "\(error)")
        }
        #expect(await logs.waitFor("refused connection from 127.0.0.1"))
        #expect(logs.contains("bearer token was not accepted"))
        #expect(peers.withLock { $0.count } == 1)
        try await good.shutdown()
        try await bad.shutdown()
        await server.shutdown()
    }

    @Test func theClientReconnectsAfterTheServerRestartsOnTheSamePort() async throws {
        let pki = try TestPKI()
        let logs = LogCapture()
        let first = try await FrameServer.start(host: "127.0.0.1", port: 0, tls: pki.server, configuration: transportConfiguration(logs), handler: echo)
        let port = first.port
        let client = try FrameClient(host: "127.0.0.1", port: port, tls: pki.client("node-a"), configuration: transportConfiguration(logs))
        let events = Locked<[ClientEvent]>([])
        let echoes = Counter()
        let policy = ReconnectPolicy(delayInitial: .milliseconds(20), delayMax: .milliseconds(200))
        let task = Task {
            await client.run(reconnect: policy, onEvent: { event in events.withLock { $0.append(event) } }) { connection in
                try await connection.send(Frame(kind: 1, payload: [42]))
                for try await _ in connection.inbound { echoes.increment() }
            }
        }
        let connectedCount = { events.withLock { $0.filter { if case .connected = $0 { true } else { false } }.count } }
        #expect(await eventually { connectedCount() == 1 && echoes.value == 1 })

        await first.shutdown()
        #expect(await eventually { events.withLock { $0.contains { if case .waiting = $0 { true } else { false } } } })
        // Restarted at once on the same port (SO_REUSEADDR), as after a crash.
        let second = try await FrameServer.start(host: "127.0.0.1", port: port, tls: pki.server, configuration: transportConfiguration(logs), handler: echo)
        #expect(await eventually { connectedCount() == 2 && echoes.value == 2 })

        task.cancel()
        await task.value
        try await client.shutdown()
        await second.shutdown()
    }

    @Test func backoffGrowsToItsCapWithJitter() {
        var generator = SeededGenerator(seed: 7)
        let policy = ReconnectPolicy(delayInitial: .milliseconds(100), delayMax: .seconds(2), multiplier: 2, jitter: 0.5)
        let delays = (1...10).map { policy.delay(afterFailures: $0, using: &generator) }
        let caps: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600)]
            + Array(repeating: .seconds(2), count: 5)
        for (delay, cap) in zip(delays, caps) {
            #expect(delay <= cap && delay >= cap / 2, "\(delay) against \(cap)")
        }
        #expect(Set(delays.suffix(5)).count > 1, "jitter spreads the capped delays")
        let noJitter = ReconnectPolicy(delayInitial: .milliseconds(100), delayMax: .seconds(2), jitter: 0)
        #expect(noJitter.delay(afterFailures: 3, using: &generator) == .milliseconds(400))
    }

    @Test func keepaliveDetectsADeadPeer() async throws {
        let pki = try TestPKI()
        let logs = LogCapture()
        let keepalive = KeepalivePolicy(interval: .milliseconds(200), timeout: .seconds(1))
        let server = try await FrameServer.start(host: "127.0.0.1", port: 0, tls: pki.server, configuration: transportConfiguration(logs, keepalive: keepalive), handler: echo)
        let proxy = try await FreezableProxy.start(to: server.port)
        let client = try FrameClient(host: "127.0.0.1", port: proxy.port, tls: pki.client("node-a"), configuration: transportConfiguration(logs, keepalive: keepalive))
        let clock = ContinuousClock()
        let outcome: Result<Void, AtollError> = try await client.connect { connection in
            // Idle but alive: heartbeats keep the connection up well past the timeout.
            try await Task.sleep(for: .milliseconds(1600))
            #expect(connection.isOpen)
            proxy.freeze()
            let frozenAt = clock.now
            do {
                for try await _ in connection.inbound {}
                return .success(())
            } catch let error as AtollError {
                let detectedAfter = clock.now - frozenAt
                #expect(detectedAfter < .seconds(4), "dead peer detected after \(detectedAfter)")
                return .failure(error)
            }
        }
        guard case .failure(let error) = outcome else {
            Issue.record("the connection ended without an error")
            return
        }
        #expect(error.kind == .timeout, "\(error)")
        #expect(error.message.contains("keepalive"))
        try await client.shutdown()
        await proxy.shutdown()
        await server.shutdown()
    }

    @Test func aSlowConsumerUnderAHeavyStreamIsNotTakenForDead() async throws {
        let pki = try TestPKI()
        let logs = LogCapture()
        // Scaled: under Thread Sanitizer a heartbeat can be late by more than a second.
        let keepalive = KeepalivePolicy(interval: ThreadSanitizer.scaled(.milliseconds(200)), timeout: ThreadSanitizer.scaled(.seconds(1)))
        var rng = SeededGenerator(seed: 11)
        let chunk = randomBytes(64 << 10, &rng)  // incompressible: the stream really fills the buffers
        let frameCount = 384                     // 24 MiB, far more than the socket buffers hold
        let server = try await FrameServer.start(host: "127.0.0.1", port: 0, tls: pki.server, configuration: transportConfiguration(logs, keepalive: keepalive)) { connection in
            do {
                for i in 0..<frameCount { try await connection.send(Frame(kind: UInt8(i % 200), payload: chunk)) }
                var iterator = connection.inbound.makeAsyncIterator()
                _ = try await iterator.next()  // the client's "done"
            } catch {
                Issue.record("server side failed: \(error) \(logs.all)")
            }
        }
        let client = try FrameClient(host: "127.0.0.1", port: server.port, tls: pki.client("node-a"), configuration: transportConfiguration(logs, keepalive: keepalive))
        let received = try await client.connect { connection in
            // Stall well past the keepalive timeout while the server is blocked writing.
            try await Task.sleep(for: ThreadSanitizer.scaled(.milliseconds(2500)))
            var count = 0
            for try await frame in connection.inbound {
                #expect(frame.payload == chunk)
                count += 1
                if count == frameCount { break }
            }
            try await connection.send(Frame(kind: 1, payload: []))
            return count
        }
        #expect(received == frameCount)
        #expect(!logs.contains("keepalive timeout"), "\(logs.all)")
        try await client.shutdown()
        await server.shutdown()
    }

    @Test func shutdownClosesConnectionsAndStopsEveryThread() async throws {
        let pki = try TestPKI()
        let logs = LogCapture()
        let server = try await FrameServer.start(host: "127.0.0.1", port: 0, tls: pki.server, configuration: transportConfiguration(logs), threads: 2, handler: echo)
        let client = try FrameClient(host: "127.0.0.1", port: server.port, tls: pki.client("node-b"), configuration: transportConfiguration(logs))
        // This server's and this client's own threads: other suites running in parallel start and
        // stop event loops of their own, so a count of every NIO thread of the process proves nothing.
        let threads = try await eventLoopThreads(server.group) + eventLoopThreads(client.group)
        #expect(threads.count == 3)
        #expect(threads.allSatisfy(isRunning))
        let ended: Result<Void, AtollError> = try await client.connect { connection in
            try await connection.send(Frame(kind: 1, payload: [1]))
            var iterator = connection.inbound.makeAsyncIterator()
            _ = try await iterator.next()
            #expect(server.connectionCount == 1)
            await server.shutdown()
            do {
                while try await iterator.next() != nil {}
                return .success(())
            } catch let error as AtollError {
                return .failure(error)
            }
        }
        // The server closed with TLS close_notify: a clean end of stream for the client.
        #expect(try ended.get() == ())
        try await client.shutdown()
        #expect(await eventually { !threads.contains(where: isRunning) }, "event loop threads left running: \(threads.filter(isRunning))")
    }

    @Test func aClientThatNeverSendsItsTokenIsDroppedAtTheHandshakeTimeout() async throws {
        let pki = try TestPKI()
        let logs = LogCapture()
        let tls = ServerTLSConfiguration(
            certificatePath: pki.directory.file("relay.pem"), keyPath: pki.directory.file("relay-key.pem"),
            admission: .bearerToken(tokens: ["t": "a"]))
        var serverConfiguration = transportConfiguration(logs)
        serverConfiguration.handshakeTimeout = .milliseconds(300)
        let server = try await FrameServer.start(host: "127.0.0.1", port: 0, tls: tls, configuration: serverConfiguration) { _ in
            Issue.record("admitted without a token")
        }
        // No token on the client: it waits for `accepted`, which never comes.
        let client = try FrameClient(host: "127.0.0.1", port: server.port, tls: ClientTLSConfiguration(caPath: pki.ca, credentials: .none), configuration: transportConfiguration(LogCapture()))
        do {
            try await client.connect { _ in }
            Issue.record("connect succeeded")
        } catch let error as AtollError {
            #expect(error.kind == .timeout, "\(error)")
            #expect(error.message.contains("the peer closed the connection"), "\(error)")
        }
        #expect(await logs.waitFor("was not authenticated within"))
        try await client.shutdown()
        await server.shutdown()
    }

    @Test func missingCertificateFilesAndABusyPortAreClearErrors() async throws {
        let pki = try TestPKI()
        do {
            _ = try FrameClient(host: "127.0.0.1", port: 1, tls: .mutualTLS(certificatePath: "/nonexistent/a.pem", keyPath: "/nonexistent/a-key.pem", caPath: pki.ca))
            Issue.record("a missing certificate was accepted")
        } catch let error as AtollError {
            #expect(error.kind == .fileNotFound)
            #expect(error.message.contains("/nonexistent/a.pem"))
        }
        let first = try await FrameServer.start(host: "127.0.0.1", port: 0, tls: pki.server, handler: echo)
        do {
            _ = try await FrameServer.start(host: "127.0.0.1", port: first.port, tls: pki.server, handler: echo)
            Issue.record("a second server bound a busy port")
        } catch let error as AtollError {
            #expect(error.message.contains("address already in use"), "\(error)")
        }
        let client = try FrameClient(host: "127.0.0.1", port: 1, tls: pki.client("node-a"))
        do {
            try await client.connect { _ in }
        } catch let error as AtollError {
            #expect(error.kind == .connectionFailed)
            #expect(error.message.contains("connection refused"), "\(error)")
        }
        try await client.shutdown()
        await first.shutdown()
    }
}

/// Threads of any NIO event loop group in this process.
/// The kernel thread ids of a group's event loops, each read on its own loop.
func eventLoopThreads(_ group: any EventLoopGroup) async throws -> [String] {
    var threads: [String] = []
    for loop in group.makeIterator() {
        // "/proc/thread-self" links to "<pid>/task/<tid>".
        threads.append(try await loop.submit { try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self") }.get())
    }
    return threads
}

/// Whether the thread "<pid>/task/<tid>" still exists (a thread id is not reused while the
/// process has many free ones, and this is checked within seconds).
@Sendable func isRunning(_ thread: String) -> Bool {
    FileManager.default.fileExists(atPath: "/proc/\(thread)")
}
