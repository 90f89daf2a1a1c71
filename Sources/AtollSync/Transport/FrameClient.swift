public import AtollStorage
import Logging
public import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// What a client's connection loop reports (for a session's observable state and error delivery).
public enum ClientEvent: Sendable, Equatable {
    /// Attempt number `attempt` (1 after a success or at start) is connecting.
    case connecting(attempt: Int)
    /// Connected and admitted; the session runs.
    case connected(PeerIdentity)
    /// The connection attempt failed or the connection ended (nil: closed cleanly).
    case disconnected(AtollError?)
    /// Waiting this long before the next attempt.
    case waiting(Duration)
}

/// A TLS client for one server: single connections (`connect`) or a connection kept up across
/// failures with capped exponential backoff and jitter (`run`).
///
/// The client owns its event loop thread, unless it was given an event loop group to share; call
/// `shutdown()` when done with it (after `connect` and `run` have returned) so no thread outlives
/// it. Its connections buffer at most `bufferedBytesMax` bytes together (`memoryBudget`), however
/// much a server sends.
///
/// ```swift
/// let client = try FrameClient(host: "127.0.0.1", port: 7450,
///     tls: .mutualTLS(certificatePath: "node-a.pem", keyPath: "node-a-key.pem", caPath: "ca.pem"))
/// let task = Task {
///     await client.run { connection in
///         try await connection.send(hello)
///         for try await frame in connection.inbound { ... }
///     }
/// }
/// // ...
/// task.cancel(); await task.value
/// try await client.shutdown()
/// ```
public final class FrameClient: Sendable {
    /// The server's host.
    public let host: String
    /// The server's port.
    public let port: Int
    private let tls: ClientTLSContext
    private let configuration: TransportConfiguration
    /// Internal, not private: tests follow its threads through shutdown.
    let group: any EventLoopGroup
    /// Whether `group` is this client's own (shut down by `shutdown()`).
    private let ownsGroup: Bool
    private let isShutDown = Atomic<Bool>(false)
    /// The token a `tokenProvider` gave last, used until the server says it expired (its
    /// goodbye carries `.tokenExpired`, at admission or later; the connection handler clears it).
    private let providedToken = AtollLock<String?>(nil)
    /// What this client's connections buffer (`bufferedBytesMax`).
    public let memoryBudget: MemoryBudget

    /// Loads and checks the TLS files now, so a bad path fails here rather than at connect time.
    public convenience init(host: String, port: Int, tls: ClientTLSConfiguration, configuration: TransportConfiguration = TransportConfiguration()) throws {
        try self.init(host: host, port: port, tls: tls, configuration: configuration, group: nil)
    }

    /// A client whose connections run on `eventLoopGroup`, which the caller owns and shuts down
    /// after the client (many clients can share a few threads).
    public convenience init(host: String, port: Int, tls: ClientTLSConfiguration, configuration: TransportConfiguration = TransportConfiguration(),
                            eventLoopGroup: any EventLoopGroup) throws
    {
        try self.init(host: host, port: port, tls: tls, configuration: configuration, group: eventLoopGroup)
    }

    private init(host: String, port: Int, tls: ClientTLSConfiguration, configuration: TransportConfiguration, group: (any EventLoopGroup)?) throws {
        guard (1...65535).contains(port) else {
            throw AtollError(.invalidArgument, "port \(port) is not between 1 and 65535")
        }
        self.host = host
        self.port = port
        self.tls = try TLSMaterial.makeClientContext(tls)
        self.configuration = configuration
        self.memoryBudget = MemoryBudget(bytesMax: configuration.bufferedBytesMax)
        self.ownsGroup = group == nil
        self.group = group ?? MultiThreadedEventLoopGroup(numberOfThreads: 1)
    }

    /// Connects once, waits until the server has admitted this client, and runs `body` with the
    /// connection; the connection is closed when `body` returns or throws.
    ///
    /// - Throws: `AtollError` with `.connectionFailed` (unreachable, reset), `.authenticationFailed`
    ///   (certificate or token refused, server certificate not trusted), `.timeout`, or whatever
    ///   `body` throws.
    public func connect<Result: Sendable>(_ body: (FrameConnection) async throws -> Result) async throws -> Result {
        guard !isShutDown.load(ordering: .relaxed) else {
            throw AtollError(.closed, "the client has been shut down")
        }
        let pending = try await open(token: try await currentToken())
        let peer: PeerIdentity
        do {
            peer = try await pending.ready.get()
        } catch {
            _ = try? await pending.channel.executeThenClose { _, _ in }
            throw error as? AtollError ?? AtollError(.connectionFailed, "\(error)")
        }
        return try await pending.channel.executeThenClose { inbound, outbound in
            try await body(FrameConnection(peer: peer, limits: configuration.limits, inbound: inbound, outbound: outbound,
                                           channel: pending.channel.channel, account: pending.account))
        }
    }

    /// The token to present: the fixed one, or the provider's (asked when none is held).
    private func currentToken() async throws -> String? {
        switch tls.token {
        case nil:
            return nil
        case .fixed(let value):
            return value
        case .provider(let provider):
            if let held = providedToken.withLock({ $0 }) { return held }
            let fresh: String
            do {
                fresh = try await provider()
            } catch let error as AtollError {
                throw error
            } catch {
                throw AtollError(.authenticationFailed, "the token provider failed: \(error)")
            }
            guard !fresh.isEmpty, fresh.utf8.count <= Goodbye.tokenBytesMax else {
                throw AtollError(.invalidArgument, "the token provider gave a token of \(fresh.utf8.count) bytes; a bearer token must be 1 to \(Goodbye.tokenBytesMax) bytes")
            }
            providedToken.withLock { $0 = fresh }
            return fresh
        }
    }

    private func open(token: String?) async throws -> PendingConnection {
        let tls = self.tls
        let configuration = self.configuration
        let budget = memoryBudget
        let serverName = tls.serverName ?? (IPAddressBytes.parse(host) == nil ? host : nil)
        do {
            return try await ClientBootstrap(group: group)
                .connectTimeout(TimeAmount(configuration.connectTimeout))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try ConnectionPipeline.install(
                            on: channel,
                            tls: NIOSSLClientHandler(context: tls.context, serverHostname: serverName),
                            role: .client(token: token, onTokenExpired: { [self] in providedToken.withLock { $0 = nil } }),
                            configuration: configuration,
                            budget: budget)
                    }
                }
        } catch let error as AtollError {
            throw error
        } catch let error as ChannelError where error == .connectTimeout(TimeAmount(configuration.connectTimeout)) {
            throw AtollError(.timeout, "connecting to \(host):\(port) timed out after \(configuration.connectTimeout)")
        } catch {
            throw AtollError(.connectionFailed, "cannot connect to \(host):\(port): \(Self.describe(error))")
        }
    }

    /// Keeps a connection to the server: connects, runs `session` with each admitted connection,
    /// and after a failure or a closed connection waits (backoff with jitter) and connects again.
    /// Returns when the calling task is cancelled or the client is shut down. `session` errors are
    /// reported as `.disconnected` and followed by a reconnect, like connection errors.
    public func run(
        reconnect policy: ReconnectPolicy = ReconnectPolicy(),
        onEvent: @escaping @Sendable (ClientEvent) -> Void = { _ in },
        session: @escaping @Sendable (FrameConnection) async throws -> Void
    ) async {
        var generator = SystemRandomNumberGenerator()
        var failures = 0
        let clock = ContinuousClock()
        while !Task.isCancelled && !isShutDown.load(ordering: .relaxed) {
            onEvent(.connecting(attempt: failures + 1))
            var connectedAt: ContinuousClock.Instant?
            do {
                try await connect { connection in
                    connectedAt = clock.now
                    onEvent(.connected(connection.peer))
                    try await session(connection)
                }
                onEvent(.disconnected(nil))
            } catch {
                if Task.isCancelled { break }
                let reported = error as? AtollError ?? AtollError(.connectionFailed, "\(error)")
                configuration.logger.info("connection to \(host):\(port) ended: \(reported)")
                onEvent(.disconnected(reported))
            }
            if let connectedAt, clock.now - connectedAt >= policy.stableAfter {
                failures = 0
            }
            failures += 1
            let delay = policy.delay(afterFailures: failures, using: &generator)
            onEvent(.waiting(delay))
            do {
                try await Task.sleep(for: delay)
            } catch {
                break
            }
        }
    }

    /// Shuts the client's event loop thread down (not a shared group's). Call after `connect` and
    /// `run` have returned.
    public func shutdown() async throws {
        guard !isShutDown.exchange(true, ordering: .relaxed) else { return }
        if ownsGroup { try await group.shutdownGracefully() }
    }

    private static func describe(_ error: any Error) -> String {
        if let io = error as? IOError {
            if io.errnoCode == ECONNREFUSED { return "connection refused (is the server running?)" }
            return io.description
        }
        if let multiple = error as? NIOConnectionError {
            if let first = multiple.connectionErrors.first { return describe(first.error) }
            if let dns = multiple.dnsAAAAError ?? multiple.dnsAError { return "cannot resolve host: \(dns)" }
        }
        return "\(error)"
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
