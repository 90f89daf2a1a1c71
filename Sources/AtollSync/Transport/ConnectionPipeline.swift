import AtollStorage
import NIOCore
import NIOSSL

/// What a freshly accepted or connected channel becomes: its async frame interface, the future
/// that says whether (and as whom) the peer was admitted, and its share of the memory budget.
struct PendingConnection: Sendable {
    let channel: NIOAsyncChannel<Frame, Frame>
    let ready: EventLoopFuture<PeerIdentity>
    let account: BufferAccount
}

enum ConnectionPipeline {
    /// Frames the async channel buffers for the application before it stops reading from the
    /// socket (backpressure). Their bytes are charged to the memory budget as well.
    static let inboundFramesBuffered = (low: 16, high: 64)

    /// Installs, on the channel's event loop: TLS, keepalive, the frame codec, the transport's
    /// control handler, and the async channel the application uses. Handlers only move frames;
    /// what frames mean is the protocol's business. Everything the connection buffers is charged
    /// to `budget`, and given back when the channel closes.
    static func install(
        on channel: any Channel, tls: NIOSSLHandler, role: ConnectionControlHandler.Role, configuration: TransportConfiguration,
        budget: MemoryBudget, beforeSessionBudget: MemoryBudget? = nil
    ) throws -> PendingConnection {
        let ready = channel.eventLoop.makePromise(of: PeerIdentity.self)
        let account = BufferAccount(budget: budget, beforeSession: beforeSessionBudget)
        channel.closeFuture.whenComplete { _ in account.close() }
        let operations = channel.pipeline.syncOperations
        try operations.addHandler(tls)
        try operations.addHandler(KeepaliveHandler(policy: configuration.keepalive))
        try operations.addHandler(FrameCodecHandler(
            limits: configuration.limits, limitsBeforeSession: configuration.limitsBeforeSession,
            compressionLevel: configuration.compressionLevel, account: account))
        try operations.addHandler(ConnectionControlHandler(
            role: role, handshakeTimeout: configuration.handshakeTimeout, logger: configuration.logger, ready: ready, account: account,
            onRefusal: configuration.onRefusal))
        let asyncChannel = try NIOAsyncChannel<Frame, Frame>(
            wrappingChannelSynchronously: channel,
            configuration: .init(backPressureStrategy: .init(
                lowWatermark: inboundFramesBuffered.low, highWatermark: inboundFramesBuffered.high))
        )
        return PendingConnection(channel: asyncChannel, ready: ready.futureResult, account: account)
    }
}
