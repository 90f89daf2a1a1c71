import AtollStorage
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization
@testable import AtollSync
import AtollTestSupport


/// Certificates for one test: a CA, the relay pair and node pairs, minted the way
/// `atoll-relay certs` mints them.
struct TestPKI {
    let directory = TemporaryDirectory()

    init(nodes: [String] = ["node-a", "node-b"]) throws {
        _ = try DevelopmentCertificateDirectory.create(at: directory.path, nodes: nodes)
    }

    var ca: String { directory.file("ca.pem") }

    var server: ServerTLSConfiguration {
        .mutualTLS(certificatePath: directory.file("relay.pem"), keyPath: directory.file("relay-key.pem"), caPath: ca)
    }

    func client(_ node: String) -> ClientTLSConfiguration {
        .mutualTLS(certificatePath: directory.file("\(node).pem"), keyPath: directory.file("\(node)-key.pem"), caPath: ca)
    }
}

/// Log messages kept in memory so tests can check what was logged.
final class LogCapture: Sendable {
    let messages = AtollLock<[String]>([])

    var logger: Logger {
        Logger(label: "test") { _ in CapturingLogHandler(capture: self) }
    }

    var all: [String] { messages.withLock { $0 } }

    func contains(_ text: String) -> Bool { all.contains { $0.contains(text) } }

    /// Waits up to `timeout` for a message containing `text` (logging can trail the event).
    func waitFor(_ text: String, timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return contains(text)
    }
}

struct CapturingLogHandler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        capture.messages.withLock { $0.append("\(event.level): \(event.message)") }
    }
}

func transportConfiguration(_ logs: LogCapture, keepalive: KeepalivePolicy = KeepalivePolicy()) -> TransportConfiguration {
    var configuration = TransportConfiguration()
    configuration.logger = logs.logger
    configuration.keepalive = keepalive
    configuration.handshakeTimeout = .seconds(5)
    configuration.connectTimeout = .seconds(5)
    return configuration
}

/// Echoes every frame back to its sender.
@Sendable func echo(_ connection: FrameConnection) async {
    do {
        for try await frame in connection.inbound { try await connection.send(frame) }
    } catch {}
}


/// A TCP relay between a client and a server that can be frozen: while frozen it forwards nothing
/// and closes nothing, like a network path that silently went dead.
final class FreezableProxy: Sendable {
    let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel
    private let flag: FrozenFlag

    private init(port: Int, group: MultiThreadedEventLoopGroup, listener: any Channel, flag: FrozenFlag) {
        self.port = port
        self.group = group
        self.listener = listener
        self.flag = flag
    }

    static func start(to targetPort: Int) async throws -> FreezableProxy {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let flag = FrozenFlag()
        let listener = try await ServerBootstrap(group: group)
            .childChannelInitializer { inbound in
                // The accepted channel starts reading only after this future completes.
                ClientBootstrap(group: inbound.eventLoop)
                    .connect(host: "127.0.0.1", port: targetPort)
                    .flatMapThrowing { outbound in
                        let (a, b) = GlueHandler.pair(flag)
                        try inbound.pipeline.syncOperations.addHandler(a)
                        try outbound.pipeline.syncOperations.addHandler(b)
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return FreezableProxy(port: listener.localAddress?.port ?? 0, group: group, listener: listener, flag: flag)
    }

    func freeze() { flag.frozen.store(true, ordering: .relaxed) }

    func shutdown() async {
        try? await listener.close()
        try? await group.shutdownGracefully()
    }
}

final class FrozenFlag: Sendable {
    let frozen = Atomic<Bool>(false)
    var isFrozen: Bool { frozen.load(ordering: .relaxed) }
}

/// Forwards bytes to its partner (on the same event loop) unless the proxy is frozen.
final class GlueHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private var partner: GlueHandler?
    private var context: ChannelHandlerContext?
    private let flag: FrozenFlag

    init(_ flag: FrozenFlag) { self.flag = flag }

    static func pair(_ flag: FrozenFlag) -> (GlueHandler, GlueHandler) {
        let a = GlueHandler(flag)
        let b = GlueHandler(flag)
        a.partner = b
        b.partner = a
        return (a, b)
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !flag.isFrozen else { return }
        partner?.context?.writeAndFlush(data, promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !flag.isFrozen { partner?.context?.close(promise: nil) }
        context.fireChannelInactive()
    }
}

/// A value shared with escaping closures, as a class with a lock inside.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: AtollLock<Value>
    init(_ value: Value) { mutex = AtollLock(value) }
    func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
    var value: Value { mutex.withLock { $0 } }
}

final class Counter: Sendable {
    private let atomic = Atomic<Int>(0)
    func increment() { atomic.add(1, ordering: .relaxed) }
    var value: Int { atomic.load(ordering: .relaxed) }
}
