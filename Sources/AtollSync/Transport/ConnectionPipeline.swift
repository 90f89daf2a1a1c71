import AtollStorage
import NIOCore
import NIOSSL

/// What a freshly accepted or connected channel becomes: its async frame interface plus the future
/// that says whether (and as whom) the peer was admitted.
struct PendingConnection: Sendable {
    let channel: NIOAsyncChannel<Frame, Frame>
    let ready: EventLoopFuture<PeerIdentity>
}

enum ConnectionPipeline {

    /// Installs, on the channel's event loop: TLS, keepalive, the frame codec, the transport's
    /// control handler, and the async channel the application uses. Handlers only move frames;
    /// what frames mean is the protocol's business.
    static func install(
        on channel: any Channel, tls: NIOSSLHandler, role: ConnectionControlHandler.Role, configuration: TransportConfiguration
    ) throws -> PendingConnection {
        let ready = channel.eventLoop.makePromise(of: PeerIdentity.self)
        let operations = channel.pipeline.syncOperations
        try operations.addHandler(tls)
        try operations.addHandler(KeepaliveHandler(policy: configuration.keepalive))
        try operations.addHandler(FrameCodecHandler(limits: configuration.limits, compressionLevel: configuration.compressionLevel))
        try operations.addHandler(ConnectionControlHandler(
            role: role, handshakeTimeout: configuration.handshakeTimeout, logger: configuration.logger, ready: ready))
        let asyncChannel = try NIOAsyncChannel<Frame, Frame>(
            wrappingChannelSynchronously: channel,
            configuration: .init(backPressureStrategy: .init(lowWatermark: 16, highWatermark: 64))
        )
        return PendingConnection(channel: asyncChannel, ready: ready.futureResult)
    }
}
