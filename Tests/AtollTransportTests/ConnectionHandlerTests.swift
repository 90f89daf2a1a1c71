import AtollStorage
import Logging
import NIOCore
import NIOEmbedded
import NIOTLS
import Testing
@testable import AtollSync
import AtollTestSupport

/// The connection handlers without sockets or TLS: bytes in, bytes out, on an EmbeddedChannel.
@Suite struct ConnectionHandlerTests {
    struct Harness {
        let channel: EmbeddedChannel
        let ready: EventLoopFuture<PeerIdentity>
        let peerEncoder: FrameEncoder
        let peerDecoder: FrameDecoder
        let logs: LogCapture

        let account: BufferAccount

        init(role: ConnectionControlHandler.Role, limits: FrameLimits = .default, limitsBeforeSession: FrameLimits? = nil,
             budget: MemoryBudget = MemoryBudget(bytesMax: TransportConfiguration.bufferedBytesMaxDefault), beforeSessionBudget: MemoryBudget? = nil) throws
        {
            logs = LogCapture()
            channel = EmbeddedChannel()
            let promise = channel.eventLoop.makePromise(of: PeerIdentity.self)
            ready = promise.futureResult
            account = BufferAccount(budget: budget, beforeSession: beforeSessionBudget)
            let account = self.account
            channel.closeFuture.whenComplete { _ in account.close() }
            try channel.pipeline.syncOperations.addHandler(FrameCodecHandler(
                limits: limits, limitsBeforeSession: limitsBeforeSession, compressionLevel: nil, account: account))
            try channel.pipeline.syncOperations.addHandler(ConnectionControlHandler(
                role: role, handshakeTimeout: .seconds(10), logger: logs.logger, ready: promise, account: account))
            peerEncoder = try FrameEncoder()
            peerDecoder = try FrameDecoder()
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
            channel.pipeline.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: nil))
        }

        /// Sends frames as the peer would, as bytes.
        func peerSends(_ frames: [Frame]) throws {
            try channel.writeInbound(ByteBuffer(bytes: try peerEncoder.encode(frames)))
        }

        func peerSendsRaw(_ bytes: [UInt8]) throws {
            try channel.writeInbound(ByteBuffer(bytes: bytes))
        }

        /// Everything this end wrote, decoded as the peer would.
        func peerReceives() throws -> [Frame] {
            var frames: [Frame] = []
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
                frames += try peerDecoder.decode(Array(buffer.readableBytesView))
            }
            return frames
        }

        func delivered() throws -> [Frame] {
            var frames: [Frame] = []
            while let frame = try channel.readInbound(as: Frame.self) { frames.append(frame) }
            return frames
        }
    }

    @Test func aServerAdmitsAValidTokenThenPassesProtocolFramesAndConsumesHeartbeats() throws {
        let harness = try Harness(role: .server(tokens: TokenAdmission(table: try TokenVerifier(["secret": "node-a"]), authenticator: nil)))
        try harness.peerSends([Frame(kind: TransportFrameKind.token, payload: Array("secret".utf8))])
        #expect(try harness.peerReceives() == [Frame(kind: TransportFrameKind.accepted, payload: [])])
        #expect(try harness.ready.wait().name == "node-a")

        try harness.peerSends([Frame(kind: 1, payload: [1, 2]), Frame(kind: TransportFrameKind.heartbeat, payload: []), Frame(kind: 2, payload: [3])])
        #expect(try harness.delivered() == [Frame(kind: 1, payload: [1, 2]), Frame(kind: 2, payload: [3])])
        #expect(try harness.peerReceives().isEmpty)
        #expect(harness.channel.isActive)

        // A reserved transport kind is a violation (raised to the application, told to the peer).
        #expect(throws: AtollError.self) { try harness.peerSends([Frame(kind: 0xF1, payload: [])]) }
        #expect(Goodbye.error(from: try harness.peerReceives().first?.payload ?? []).kind == .protocolViolation)
        #expect(!harness.channel.isActive)
    }

    @Test func aLargeFrameBeforeAdmissionIsRefusedFromItsHeader() throws {
        let harness = try Harness(role: .server(tokens: TokenAdmission(table: try TokenVerifier(["secret": "node-a"]), authenticator: nil)))
        var rng = SeededGenerator(seed: 9)
        let big = try harness.peerEncoder.encode([Frame(kind: TransportFrameKind.token, payload: randomBytes(100_000, &rng))])
        try harness.peerSendsRaw(Array(big.prefix(FrameHeader.bytes)))
        let goodbye = Goodbye.error(from: try harness.peerReceives().first?.payload ?? [])
        #expect(goodbye.kind == .protocolViolation)
        #expect(goodbye.message.contains("over the limit of \(FrameLimits.admission.frameBytesMax) (frameBytesMax)"), "\(goodbye)")
        #expect(!harness.channel.isActive)
        #expect(throws: AtollError.self) { try harness.ready.wait() }
    }

    @Test func fullSizeFramesFollowingTheTokenInTheSameReadAreAccepted() throws {
        let harness = try Harness(role: .server(tokens: TokenAdmission(table: try TokenVerifier(["secret": "node-a"]), authenticator: nil)))
        var rng = SeededGenerator(seed: 10)
        let large = Frame(kind: 1, payload: randomBytes(200_000, &rng))
        try harness.peerSends([Frame(kind: TransportFrameKind.token, payload: Array("secret".utf8)), large])
        #expect(try harness.ready.wait().name == "node-a")
        #expect(try harness.delivered() == [large])
    }

    @Test func aProtocolFrameBeforeTheTokenIsAViolationToldToThePeer() throws {
        let harness = try Harness(role: .server(tokens: TokenAdmission(table: try TokenVerifier(["secret": "node-a"]), authenticator: nil)))
        try harness.peerSends([Frame(kind: 1, payload: [1])])
        let sent = try harness.peerReceives()
        #expect(sent.count == 1)
        let error = Goodbye.error(from: sent.first?.payload ?? [])
        #expect(error.kind == .protocolViolation)
        #expect(error.message.contains("before the connection was authenticated"))
        #expect(try harness.delivered().isEmpty)
        #expect(!harness.channel.isActive)
        #expect(throws: AtollError.self) { try harness.ready.wait() }
        #expect(harness.logs.contains("refused connection from 127.0.0.1:9"))
    }

    @Test func garbageBytesCloseTheConnectionWithAClearGoodbye() throws {
        let harness = try Harness(role: .server(tokens: nil))
        #expect(try harness.peerReceives() == [Frame(kind: TransportFrameKind.accepted, payload: [])])
        #expect(try harness.ready.wait().method == .certificate)
        try harness.peerSends([Frame(kind: 5, payload: [5])])
        // A frame with a damaged checksum follows a good one.
        var bad = try harness.peerEncoder.encode([Frame(kind: 6, payload: Array(repeating: 6, count: 50))])
        bad[bad.count - 1] ^= 0xFF
        do {
            try harness.peerSendsRaw(bad)
        } catch let error as AtollError {
            // EmbeddedChannel rethrows the error the pipeline raised.
            #expect(error.kind == .protocolViolation)
        }
        #expect(try harness.delivered() == [Frame(kind: 5, payload: [5])])
        let goodbye = try harness.peerReceives()
        #expect(goodbye.count == 1)
        let message = Goodbye.error(from: goodbye.first?.payload ?? []).message
        #expect(message.contains("checksum mismatch"))
        #expect(!harness.channel.isActive)
    }

    @Test func aGoodbyeFromThePeerBecomesItsError() throws {
        let harness = try Harness(role: .client(token: nil))
        try harness.peerSends([Frame(kind: TransportFrameKind.accepted, payload: [])])
        #expect(try harness.ready.wait().method == .certificate)
        do {
            try harness.peerSends([Goodbye.frame(for: AtollError(.schemaMismatch, "realm 'x' has another schema"))])
            Issue.record("no error raised")
        } catch let error as AtollError {
            #expect(error.kind == .schemaMismatch)
            #expect(error.message == "the peer closed the connection: realm 'x' has another schema")
        }
        #expect(!harness.channel.isActive)
    }

    @Test func goodbyeMessagesAreCappedWithoutSplittingCharacters() {
        let long = String(repeating: "é", count: 2000)
        let frame = Goodbye.frame(for: AtollError(.invalidArgument, long))
        let error = Goodbye.error(from: frame.payload)
        #expect(error.kind == .invalidArgument)
        #expect(error.message.hasSuffix("é"))
        #expect(frame.payload.count < Goodbye.messageBytesMax + 40)
        #expect(Goodbye.error(from: [200]).kind == .protocolViolation)
    }
}
