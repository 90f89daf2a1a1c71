import AtollStorage
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A TLS server that admits peers (mutual TLS or bearer token) and hands each admitted connection
/// to `handler`, which runs in its own task for as long as it needs the connection.
///
/// The listening socket sets `SO_REUSEADDR`, so a server restarted right after a crash binds the
/// same port at once. Refused peers (bad certificate, no certificate, wrong token, handshake
/// timeout, over `connectionsMax` or `connectionsPerIdentityMax`) are logged and never reach
/// `handler`. All connections share one `MemoryBudget` of `bufferedBytesMax` bytes.
///
/// ```swift
/// let server = try await FrameServer.start(
///     host: "127.0.0.1", port: 7450,
///     tls: .mutualTLS(certificatePath: "relay.pem", keyPath: "relay-key.pem", caPath: "ca.pem")
/// ) { connection in
///     for try? await frame in connection.inbound { ... }
/// }
/// // ...
/// await server.shutdown()
/// ```
public final class FrameServer: Sendable {
    /// The port actually bound (useful with port 0).
    public let port: Int
    /// The address bound.
    public let host: String
    /// Internal, not private: tests follow its threads through shutdown.
    let group: MultiThreadedEventLoopGroup
    private let serverChannel: any Channel
    private let runTask: AtollLock<Task<Void, Never>?>
    private let connections: ConnectionCounter
    /// What every connection of this server buffers, together (`bufferedBytesMax`).
    public let memoryBudget: MemoryBudget
    private let logger: Logger

    private init(host: String, port: Int, group: MultiThreadedEventLoopGroup, serverChannel: any Channel, connections: ConnectionCounter,
                 memoryBudget: MemoryBudget, logger: Logger)
    {
        self.logger = logger
        self.host = host
        self.port = port
        self.group = group
        self.serverChannel = serverChannel
        self.connections = connections
        self.memoryBudget = memoryBudget
        self.runTask = AtollLock(nil)
    }

    /// Binds `host:port` (port 0 picks a free one) and starts accepting.
    ///
    /// - Throws: `AtollError(.fileNotFound / .invalidArgument)` for missing or unusable
    ///   certificate files, `AtollError(.ioError)` if the address cannot be bound (port in use).
    public static func start(
        host: String,
        port: Int,
        tls: ServerTLSConfiguration,
        configuration: TransportConfiguration = TransportConfiguration(),
        threads: Int? = nil,
        handler: @escaping @Sendable (FrameConnection) async -> Void
    ) async throws -> FrameServer {
        let tlsContext = try TLSMaterial.makeServerContext(tls)
        guard (0...65535).contains(port) else {
            throw AtollError(.invalidArgument, "port \(port) is not between 0 and 65535")
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, threads ?? System.coreCount))
        let counter = ConnectionCounter()
        let budget = MemoryBudget(bytesMax: configuration.bufferedBytesMax)
        // Peers that have not opened their session share a quarter of it, so they cannot take it
        // from the sessions that are syncing.
        let beforeSessionBudget = configuration.limitsBeforeSession == nil ? nil
            : MemoryBudget(bytesMax: Int(Double(configuration.bufferedBytesMax) * MemoryBudget.beforeSessionShare))
        let logger = configuration.logger
        let role = ConnectionControlHandler.Role.server(
            tokens: tlsContext.tokens, identities: IdentityCounter(max: configuration.connectionsPerIdentityMax))
        let listener: NIOAsyncChannel<PendingConnection?, Never>
        do {
            listener = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .serverChannelOption(.backlog, value: 256)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .bind(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        switch counter.admit(channel, max: configuration.connectionsMax) {
                        case .admitted:
                            break
                        case .full:
                            let address = ConnectionControlHandler.describe(channel.remoteAddress)
                            logger.warning("refused connection from \(address): \(configuration.connectionsMax) connections already open (connectionsMax)")
                            configuration.onRefusal?(address, AtollError(.limitExceeded, "\(configuration.connectionsMax) connections already open (connectionsMax)"))
                            channel.close(promise: nil)
                            return nil
                        case .closed:
                            channel.close(promise: nil)
                            return nil
                        }
                        channel.closeFuture.whenComplete { _ in counter.release(channel) }
                        let pending = try ConnectionPipeline.install(
                            on: channel, tls: NIOSSLServerHandler(context: tlsContext.context), role: role, configuration: configuration,
                            budget: budget, beforeSessionBudget: beforeSessionBudget)
                        counter.hold(pending)
                        return pending
                    }
                }
        } catch {
            try? await group.shutdownGracefully()
            throw AtollError(.ioError, "cannot listen on \(host):\(port): \(Self.describeBindError(error))")
        }
        let boundPort = listener.channel.localAddress?.port ?? port
        let server = FrameServer(host: host, port: boundPort, group: group, serverChannel: listener.channel, connections: counter,
                                 memoryBudget: budget, logger: logger)
        let task = Task {
            await Self.acceptLoop(listener, connections: counter, limits: configuration.limits, logger: logger, handler: handler)
        }
        server.runTask.withLock { $0 = task }
        logger.info("listening on \(host):\(boundPort)")
        return server
    }

    private static func acceptLoop(
        _ listener: NIOAsyncChannel<PendingConnection?, Never>, connections: ConnectionCounter, limits: FrameLimits, logger: Logger, handler: @escaping @Sendable (FrameConnection) async -> Void
    ) async {
        do {
            try await listener.executeThenClose { inbound in
                try await withThrowingDiscardingTaskGroup { group in
                    // Every connection the listener hands over is served, even during shutdown:
                    // one dropped unserved would deinit its writer unfinished, which NIO stops the
                    // process for. So the loop is never cancelled; it ends when the listener has
                    // closed and handed over what it had accepted.
                    for try await pending in inbound {
                        guard let pending, connections.take(pending) else { continue }
                        group.addTask { await serve(pending, limits: limits, handler: handler) }
                    }
                    // The listener has closed (shutdown): handlers still running are told to stop.
                    group.cancelAll()
                }
            }
        } catch is CancellationError {
        } catch {
            logger.error("the listener failed: \(error)")
        }
    }

    private static func serve(_ pending: PendingConnection, limits: FrameLimits, handler: @Sendable (FrameConnection) async -> Void) async {
        let peer: PeerIdentity
        do {
            peer = try await pending.ready.get()
        } catch {
            // Refused (and logged) by the control handler; make sure the channel is gone.
            _ = try? await pending.channel.executeThenClose { _, _ in }
            return
        }
        _ = try? await pending.channel.executeThenClose { inbound, outbound in
            await handler(FrameConnection(peer: peer, limits: limits, inbound: inbound, outbound: outbound, channel: pending.channel.channel,
                                          account: pending.account))
        }
    }

    /// Connections currently open (admitted or still authenticating).
    public var connectionCount: Int { connections.count }

    /// Stops accepting, closes every connection (handlers see their `inbound` end and their task
    /// cancelled; connections accepted while the listener closed are closed and served too), and shuts the event loop threads down once every connection is closed and
    /// every handler has returned, so nothing is left to run on them. Idempotent.
    public func shutdown() async {
        let task = runTask.withLock { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        guard let task else { return }
        // From here on a connection the listener accepts is closed at once: one accepted while
        // the listener closes would otherwise keep its handler, and so this shutdown, waiting
        // for a peer that waits for the relay.
        connections.close()
        serverChannel.close(promise: nil)
        do {
            try await serverChannel.closeFuture.get()
        } catch {
            // A close future is never failed; the listener is closed either way.
        }
        // Connections still in their TLS handshake or waiting to be handed to a handler are
        // closed now rather than at their handshake timeout.
        for channel in connections.open { channel.close(promise: nil) }
        // The accept loop serves what the listener still held (each sees its channel closed),
        // then ends and cancels the handlers.
        await task.value
        for channel in connections.open {
            do {
                try await channel.closeFuture.get()
            } catch {
                // A close future is never failed; nothing is left open either way.
            }
        }
        // A connection made while the listener closed can be dropped by it instead of handed
        // over; its async channel must still be closed (NIO stops the process when its writer
        // is deinited unfinished). Its channel is closed, and its pipeline was installed before
        // that (in the same event loop turn as its admission), so every such one is held here.
        for pending in connections.takeUnserved() {
            do {
                try await pending.channel.executeThenClose { _, _ in }
            } catch {
                // Already closed; the writer is finished either way.
            }
        }
        do {
            try await group.shutdownGracefully()
        } catch {
            logger.warning("the server's event loops did not shut down cleanly: \(error)")
        }
    }

    private static func describeBindError(_ error: any Error) -> String {
        if let io = error as? IOError {
            if io.errnoCode == EADDRINUSE { return "address already in use (another process is listening on this port)" }
            if io.errnoCode == EACCES { return "permission denied (ports below 1024 need privileges)" }
            if io.errnoCode == EADDRNOTAVAIL { return "address not available on this machine" }
            return io.description
        }
        if let resolution = error as? SocketAddressError {
            return "cannot resolve the host (\(resolution))"
        }
        return "\(error)"
    }
}

/// The open connections of a server, across event loops: counted against `connectionsMax`, and
/// kept so that shutdown can close them all.
final class ConnectionCounter: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        /// Connections made (pipeline installed) and not yet taken by the accept loop.
        var unserved: [ObjectIdentifier: PendingConnection] = [:]
        /// Set by the server's shutdown: nothing is admitted any more.
        var isClosed = false
    }

    enum Admission { case admitted, full, closed }

    private let state = AtollLock(State())

    func admit(_ channel: any Channel, max: Int) -> Admission {
        state.withLock { state in
            guard !state.isClosed else { return .closed }
            guard state.channels.count < max else { return .full }
            state.channels[ObjectIdentifier(channel)] = channel
            return .admitted
        }
    }

    func release(_ channel: any Channel) {
        _ = state.withLock { $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Admits nothing from now on (the channels already admitted stay listed until released).
    func close() { state.withLock { $0.isClosed = true } }

    /// Records a connection the listener is about to hand to the accept loop.
    func hold(_ pending: PendingConnection) {
        state.withLock { $0.unserved[ObjectIdentifier(pending.channel.channel)] = pending }
    }

    /// True if `pending` was still held, and so is now the caller's to serve.
    func take(_ pending: PendingConnection) -> Bool {
        state.withLock { $0.unserved.removeValue(forKey: ObjectIdentifier(pending.channel.channel)) != nil }
    }

    /// The connections the accept loop never took: ones the listener made while it closed, which
    /// it drops instead of handing over. Each must still be closed through its async channel.
    func takeUnserved() -> [PendingConnection] {
        state.withLock { state in
            defer { state.unserved = [:] }
            return Array(state.unserved.values)
        }
    }

    var count: Int { state.withLock { $0.channels.count } }

    var open: [any Channel] { state.withLock { Array($0.channels.values) } }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
