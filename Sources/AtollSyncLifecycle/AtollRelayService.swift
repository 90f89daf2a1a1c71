public import AtollSync
public import ServiceLifecycle

/// A sync relay and its TLS server as a swift-service-lifecycle `Service`: add it to the
/// `ServiceGroup` of a server process beside its other services, and the group's graceful
/// shutdown (SIGTERM, for example) stops the relay cleanly with them.
///
/// The server is listening once ``listen(relay:host:port:tls:configuration:)`` returns, so
/// ``port`` is known before the group runs. ``run()`` serves until the group shuts down
/// gracefully (or its task is cancelled), then stops accepting, closes every connection (nodes
/// see the end of the stream and reconnect later), writes the peers' acknowledgements and stops
/// the relay. Every changeset was stored before the relay acknowledged it, so nothing a node
/// was told is stored can be lost by the shutdown.
///
/// ```swift
/// let relay = try SyncRelay.open(database: try Database.open(DatabaseConfiguration(path: "relay.atoll", durability: .full)))
/// let relayService = try await AtollRelayService.listen(relay: relay, host: "0.0.0.0", port: 7450,
///     tls: .mutualTLS(certificatePath: "relay.pem", keyPath: "relay-key.pem", caPath: "ca.pem"))
/// let group = ServiceGroup(services: [relayService, httpServer],
///                          gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
/// try await group.run()
/// ```
///
/// A group shuts its services down in the reverse of their order: put the relay before the
/// services that use it.
public struct AtollRelayService: Service {
    /// The relay this service runs.
    public let relay: SyncRelay
    /// The TLS server whose connections the relay serves.
    public let server: FrameServer

    /// A service for a relay and the server already listening for it (from `relay.listen(...)`).
    /// The service owns both from now on: ``run()`` shuts both down when it ends.
    public init(relay: SyncRelay, server: FrameServer) {
        self.relay = relay
        self.server = server
    }

    /// Starts a TLS server for `relay` on `host`:`port` (port 0 picks a free port, ``port``
    /// tells which) and returns the service that runs them.
    ///
    /// - Throws: `AtollError` when the address cannot be bound or the TLS files cannot be read.
    public static func listen(relay: SyncRelay, host: String, port: Int, tls: ServerTLSConfiguration,
                              configuration: TransportConfiguration = TransportConfiguration()) async throws -> AtollRelayService
    {
        AtollRelayService(relay: relay, server: try await relay.listen(host: host, port: port, tls: tls, configuration: configuration))
    }

    /// The port the server listens on.
    public var port: Int { server.port }

    /// Serves until graceful shutdown or cancellation, then shuts the server and the relay down
    /// (each waits for what it started: connections, their handlers, the relay's thread).
    public func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            // Cancelled rather than asked to shut down gracefully: the same orderly stop, which
            // takes no longer than closing the connections.
        }
        await server.shutdown()
        await relay.shutdown()
    }
}
