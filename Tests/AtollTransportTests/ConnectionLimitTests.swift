import AtollStorage
import Foundation
import NIOCore
import Testing
@testable import AtollSync
import AtollTestSupport

/// The transport's limits, each tested at the limit: the memory budget, the frame size before the
/// session opens, connections per identity, and a client's budget against a server that sends
/// more than it reads.
@Suite(.serialized, .timeLimit(.minutes(5 * Int(ThreadSanitizer.slowdown)))) struct ConnectionLimitTests {
    @Test func theBudgetTakesExactlyItsMaximumAndAccountsGiveEverythingBack() throws {
        let budget = MemoryBudget(bytesMax: 1000)
        let a = BufferAccount(budget: budget), b = BufferAccount(budget: budget)
        try a.reserve(600, for: "test")
        try b.reserve(400, for: "test")
        #expect(budget.bytesUsed == 1000)
        #expect(throws: AtollError.self) { try b.reserve(1, for: "one byte") }
        do {
            try a.reserve(1, for: "one more byte")
        } catch {
            #expect(error.kind == .limitExceeded)
            #expect(error.message.contains("1000 of 1000 bytes are held by all connections (bufferedBytesMax), and 1 more are needed for one more byte"), "\(error)")
        }
        a.release(100)
        try b.reserve(100, for: "test")
        // Releasing more than held gives back only what is held.
        b.release(10_000)
        #expect(budget.bytesUsed == 500)
        a.close()
        #expect(budget.bytesUsed == 0)
        // After close nothing is charged or given back twice.
        try a.reserve(10, for: "late")
        a.release(10)
        #expect(budget.bytesUsed == 0)
        #expect(budget.bytesUsedPeak == 1000)
    }

    @Test func connectionsBeforeTheirSessionShareAQuarterOfTheBudget() throws {
        let budget = MemoryBudget(bytesMax: 4000)
        let share = MemoryBudget(bytesMax: 1000)
        let early = BufferAccount(budget: budget, beforeSession: share)
        try early.reserve(1000, for: "a handshake")
        #expect(throws: AtollError.self) { try early.reserve(1, for: "more") }
        #expect(budget.bytesUsed == 1000, "a refused charge leaves nothing behind")
        early.sessionOpened()
        #expect(share.bytesUsed == 0)
        try early.reserve(3000, for: "data")
        #expect(budget.bytesUsed == 4000)
        early.close()
        #expect(budget.bytesUsed == 0 && share.bytesUsed == 0)
    }

    @Test func beforeTheSessionFramesAreHeldToTheHandshakeLimitThenToTheFullOne() throws {
        let before = try FrameLimits(payloadBytesMax: 1000)
        let harness = try ConnectionHandlerTests.Harness(role: .server(tokens: nil), limitsBeforeSession: before)
        #expect(try harness.peerReceives() == [Frame(kind: TransportFrameKind.accepted, payload: [])])
        var rng = SeededGenerator(seed: 3)
        // At the limit: accepted.
        let atLimit = Frame(kind: 1, payload: randomBytes(1000, &rng))
        try harness.peerSends([atLimit])
        #expect(try harness.delivered() == [atLimit])
        // After the session opens, larger frames pass.
        harness.channel.pipeline.syncOperations.triggerUserOutboundEvent(SessionOpened(), promise: nil)
        let large = Frame(kind: 1, payload: randomBytes(100_000, &rng))
        try harness.peerSends([large])
        #expect(try harness.delivered() == [large])

        // One byte over, before the session: refused from the header alone.
        let other = try ConnectionHandlerTests.Harness(role: .server(tokens: nil), limitsBeforeSession: before)
        _ = try other.peerReceives()
        let over = try other.peerEncoder.encode([Frame(kind: 1, payload: randomBytes(1001, &rng))])
        #expect(throws: AtollError.self) { try other.peerSendsRaw(Array(over.prefix(FrameHeader.bytes))) }
        let goodbye = Goodbye.error(from: try other.peerReceives().first?.payload ?? [])
        #expect(goodbye.kind == .protocolViolation)
        #expect(goodbye.message.contains("over the limit of"), "\(goodbye)")
        #expect(!other.channel.isActive)
    }

    @Test func aConnectionThatWouldExceedTheBudgetIsClosedWithAClearGoodbye() throws {
        let budget = MemoryBudget(bytesMax: 64 << 10)
        let harness = try ConnectionHandlerTests.Harness(role: .server(tokens: nil), budget: budget)
        _ = try harness.peerReceives()
        var rng = SeededGenerator(seed: 4)
        let frame = try harness.peerEncoder.encode([Frame(kind: 1, payload: randomBytes(200_000, &rng))])
        // Up to the budget, an unfinished frame is buffered...
        try harness.peerSendsRaw(Array(frame.prefix(64 << 10)))
        #expect(budget.bytesUsed == 64 << 10)
        #expect(harness.channel.isActive)
        // ...one byte more and the connection goes.
        #expect(throws: AtollError.self) { try harness.peerSendsRaw([frame[64 << 10]]) }
        let goodbye = Goodbye.error(from: try harness.peerReceives().first?.payload ?? [])
        #expect(goodbye.kind == .limitExceeded)
        #expect(goodbye.message.contains("bufferedBytesMax"), "\(goodbye)")
        #expect(!harness.channel.isActive)
        #expect(budget.bytesUsed == 0)
        #expect(harness.logs.contains("closed: limitExceeded: the memory budget for buffered bytes is exhausted"), "\(harness.logs.all)")
    }

    @Test func decompressedFramesCountUntilTheApplicationHasConsumedThem() throws {
        let budget = MemoryBudget(bytesMax: 1 << 20)
        let harness = try ConnectionHandlerTests.Harness(role: .server(tokens: nil), budget: budget)
        _ = try harness.peerReceives()
        // Compressible: little on the wire, 300 KiB each once decompressed.
        let frame = Frame(kind: 1, payload: Array(repeating: 1, count: 300 << 10))
        try harness.peerSends([frame, frame, frame])
        #expect(budget.bytesUsed == 900 << 10)
        // A fourth would take the budget past its maximum: the decompression is refused.
        #expect(throws: AtollError.self) { try harness.peerSends([frame]) }
        #expect(!harness.channel.isActive)
        harness.channel.embeddedEventLoop.run()
        #expect(budget.bytesUsed == 0, "closing gives everything back")
    }

    @Test func oneIdentityMayHoldOnlyItsShareOfConnections() async throws {
        let pki = try TestPKI()
        let logs = LogCapture()
        var configuration = transportConfiguration(logs)
        configuration.connectionsPerIdentityMax = 2
        let server = try await FrameServer.start(host: "127.0.0.1", port: 0, tls: pki.server, configuration: configuration, handler: echo)
        let clientA = try FrameClient(host: "127.0.0.1", port: server.port, tls: pki.client("node-a"), configuration: transportConfiguration(LogCapture()))
        let clientB = try FrameClient(host: "127.0.0.1", port: server.port, tls: pki.client("node-b"), configuration: transportConfiguration(LogCapture()))
        func roundTrip(_ connection: FrameConnection) async throws {
            try await connection.send(Frame(kind: 1, payload: [1]))
            var iterator = connection.inbound.makeAsyncIterator()
            #expect(try await iterator.next() == Frame(kind: 1, payload: [1]))
        }
        try await clientA.connect { first in
            try await roundTrip(first)
            try await clientA.connect { second in
                try await roundTrip(second)
                // At the limit: the third connection of node-a is refused, with the reason.
                do {
                    try await clientA.connect { _ in }
                    Issue.record("a third connection of node-a was admitted")
                } catch let error as AtollError {
                    #expect(error.kind == .limitExceeded, "\(error)")
                    #expect(error.message.contains("'node-a' already has 2 connections open"), "\(error)")
                    #expect(error.message.contains("connectionsPerIdentityMax"), "\(error)")
                }
                // Another identity is not affected.
                try await clientB.connect { other in try await roundTrip(other) }
            }
            // One closed: node-a may connect again.
            #expect(await eventually { server.connectionCount == 1 })
            try await clientA.connect { again in try await roundTrip(again) }
        }
        #expect(await logs.waitFor("refused connection from 127.0.0.1"))
        #expect(logs.contains("connectionsPerIdentityMax"), "\(logs.all)")
        try await clientA.shutdown()
        try await clientB.shutdown()
        await server.shutdown()
    }

    @Test func aClientStopsAServerThatSendsMoreThanItsBudget() async throws {
        let pki = try TestPKI()
        let chunk = Array(repeating: UInt8(5), count: 300 << 10)
        let server = try await FrameServer.start(host: "127.0.0.1", port: 0, tls: pki.server, configuration: transportConfiguration(LogCapture())) { connection in
            // A hostile relay: frame after frame, whatever the node reads.
            do {
                for _ in 0..<20 { try await connection.send(Frame(kind: 6, payload: chunk)) }
                for try await _ in connection.inbound {}
            } catch {
                // The node closed the connection, as it should.
            }
        }
        var configuration = transportConfiguration(LogCapture())
        configuration.bufferedBytesMax = 1 << 20
        let client = try FrameClient(host: "127.0.0.1", port: server.port, tls: pki.client("node-a"), configuration: configuration)
        let outcome: Result<Int, AtollError> = try await client.connect { connection in
            // Not reading for a while: the frames pile up until the budget says no.
            try await Task.sleep(for: .milliseconds(500))
            var received = 0
            do {
                for try await _ in connection.inbound { received += 1 }
                return .success(received)
            } catch let error as AtollError {
                return .failure(error)
            }
        }
        guard case .failure(let error) = outcome else {
            Issue.record("the client accepted everything: \(outcome)")
            return
        }
        #expect(error.kind == .limitExceeded, "\(error)")
        #expect(error.message.contains("bufferedBytesMax"), "\(error)")
        #expect(client.memoryBudget.bytesUsedPeak <= 1 << 20)
        #expect(client.memoryBudget.bytesUsed == 0)
        try await client.shutdown()
        await server.shutdown()
    }

    @Test func anOutgoingQueueRefusesFramesPastTheBudgetOrItsLength() throws {
        let budget = MemoryBudget(bytesMax: 1000 + OutgoingQueue.entryOverheadBytes)
        let (stream, continuation) = AsyncStream<OutgoingFrame>.makeStream()
        let queue = OutgoingQueue(continuation: continuation, account: BufferAccount(budget: budget))
        let full = Frame(kind: 1, payload: Array(repeating: 0, count: 1000))
        try queue.send(full)
        #expect(throws: AtollError.self) { try queue.send(Frame(kind: 1, payload: [])) }
        queue.sent(full)
        #expect(budget.bytesUsed == 0)
        queue.close(nil)
        _ = stream

        // A peer that reads nothing: at most framesQueuedMax frames wait for it.
        let (other, otherContinuation) = AsyncStream<OutgoingFrame>.makeStream()
        let unread = OutgoingQueue(continuation: otherContinuation, account: BufferAccount(budget: MemoryBudget(bytesMax: 1 << 30)))
        for i in 0..<OutgoingQueue.framesQueuedMax { try unread.send(SyncMessage.markReply(id: UInt64(i), head: 1).frame) }
        do {
            try unread.send(SyncMessage.markReply(id: 0, head: 1).frame)
            Issue.record("a frame past framesQueuedMax was queued")
        } catch {
            #expect(error.message.contains("the peer does not read what it is sent: 1024 frames are queued for it"), "\(error)")
        }
        unread.close(nil)
        _ = other
    }
}

/// A server shut down while connections pour in: every connection the listener accepted is served
/// or closed, none is dropped unserved (NIO stops the process when a channel's writer is deinited
/// unfinished, which a relay did on SIGTERM during a reconnect burst).
@Suite(.serialized, .timeLimit(.minutes(5 * Int(ThreadSanitizer.slowdown)))) struct ShutdownDuringBurstTests {
    @Test func aServerShutDownDuringAConnectionBurstClosesEveryConnectionAndStops() async throws {
        let pki = try TestPKI()
        for round in 0..<20 {
            let server = try await FrameServer.start(host: "127.0.0.1", port: 0, tls: pki.server, configuration: transportConfiguration(LogCapture())) { connection in
                do {
                    for try await _ in connection.inbound {}
                } catch {
                    // Closed by the shutdown.
                }
            }
            let port = server.port
            // Plain TCP connections, each accepted (and handed to the accept loop) before its TLS
            // handshake, opened from a thread of their own while the server shuts down.
            async let burst = offPool { () -> Int in
                var opened: [RawTCPConnection] = []
                for _ in 0..<64 {
                    // Refused once the listener has closed: the burst ends there.
                    guard let connection = try? RawTCPConnection(port: port) else { break }
                    opened.append(connection)
                }
                return opened.count
            }
            try await Task.sleep(for: .milliseconds(round % 5))
            await server.shutdown()
            #expect(server.connectionCount == 0, "round \(round)")
            _ = try await burst
        }
    }
}
