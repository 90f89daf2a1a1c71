import AtollStorage
import AtollSync
import Foundation
import Logging
import Synchronization

/// The serving shell of `atoll-relay serve`: the TLS frame server, the optional HTTP status
/// endpoint, the table of open connections, and an orderly shutdown. Protocol logic is the
/// `RelayService`'s.
final class RelayHost: Sendable {
    let frameServer: FrameServer
    let statusServer: StatusServer?
    let service: any RelayService
    let connections: ConnectionTable
    let startedAt: Date

    private init(frameServer: FrameServer, statusServer: StatusServer?, service: any RelayService, connections: ConnectionTable, startedAt: Date) {
        self.frameServer = frameServer
        self.statusServer = statusServer
        self.service = service
        self.connections = connections
        self.startedAt = startedAt
    }

    static func start(
        listen: HostPort, status: HostPort?, statusToken: String?, tls: ServerTLSConfiguration, transport: TransportConfiguration,
        service: any RelayService, telemetry: RelayTelemetry, logger: Logger
    ) async throws -> RelayHost {
        let connections = ConnectionTable()
        var configuration = transport
        configuration.logger = logger
        configuration.onRefusal = { address, error in telemetry.transportRefused(address: address, error: error) }
        let frameServer = try await FrameServer.start(host: listen.host, port: listen.port, tls: tls, configuration: configuration) { connection in
            let id = connections.add(connection.peer)
            logger.info("admitted \(connection.peer)")
            await service.serve(connection)
            connections.remove(id)
            logger.info("disconnected \(connection.peer)")
        }
        let startedAt = Date()
        var statusServer: StatusServer?
        if let status {
            do {
                let listenAddress = HostPort(host: listen.host, port: frameServer.port)
                let source = StatusSource(
                    status: {
                        await RelayStatus(
                            listen: listenAddress.description, service: service.summary, startedAt: startedAt,
                            connections: connections.snapshot(), lag: service.lagByPeer(), realms: service.realms(),
                            refusals: telemetry.refusals.snapshot)
                    },
                    metrics: {
                        // Reading the realms sets the per-realm gauges (head, lag) to now.
                        _ = await service.realms()
                        return telemetry.prometheusText()
                    })
                statusServer = try await StatusServer.start(host: status.host, port: status.port, token: statusToken, source: source)
            } catch {
                await frameServer.shutdown()
                throw error
            }
        }
        return RelayHost(frameServer: frameServer, statusServer: statusServer, service: service, connections: connections, startedAt: startedAt)
    }

    /// Stops accepting, closes every connection, stops the status endpoint and the service.
    func shutdown() async {
        await statusServer?.shutdown()
        await frameServer.shutdown()
        await service.shutdown()
    }
}

/// Open connections, for the status endpoint.
final class ConnectionTable: Sendable {
    struct Entry: Sendable {
        var peer: PeerIdentity
        var since: Date
    }

    private let state = AtollLock<(next: Int, entries: [Int: Entry])>((0, [:]))

    func add(_ peer: PeerIdentity) -> Int {
        state.withLock { state in
            state.next += 1
            state.entries[state.next] = Entry(peer: peer, since: Date())
            return state.next
        }
    }

    func remove(_ id: Int) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    func snapshot() -> [Entry] {
        state.withLock { $0.entries.sorted { $0.key < $1.key }.map(\.value) }
    }
}
