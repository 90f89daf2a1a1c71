import AtollRelayPostgres
import AtollStorage
import AtollSync
import CoreMetrics
import Foundation
import Logging

/// The seam between the serving shell (listener, TLS, signals, status endpoint) and the relay's
/// protocol logic. The shell admits peers and hands each connection to `serve`; everything about
/// changesets, persistence, forwarding, catch-up and lag lives behind this protocol.
protocol RelayService: Sendable {
    /// A short description for the startup line and the status endpoint.
    var summary: String { get }
    /// Runs one admitted connection until it ends (returning closes it).
    func serve(_ connection: FrameConnection) async
    /// Per-peer lag for the status endpoint, by peer name (empty when not known).
    func lagByPeer() async -> [String: PeerLag]
    /// Every realm the relay serves, for the status endpoint.
    func realms() async -> [RelayStatus.Realm]
    /// Flushes and closes whatever the service holds, after the last connection has ended.
    func shutdown() async
    /// Puts permission rules in force (nil: everything allowed).
    func setAccessRules(_ rules: AccessRules?) async
}

/// How far behind a peer is, as the relay core measures it.
struct PeerLag: Codable, Sendable, Equatable {
    var operations: Int
    var seconds: Double
}

/// The sync relay: the sync core's relay state machine (`RelayCore`, driven by `SyncRelay`) with
/// its log in the Atoll file given by `--db`.
struct SyncRelayService: SyncRelayBackedService {
    let relay: SyncRelay
    let path: String
    let logger: Logger
    let trims: Bool

    init(path: String, configuration: RelayConfiguration, logger: Logger, metrics: any MetricsFactory, refusals: RefusalLog) throws {
        // Full durability: a changeset is on stable storage before the relay acknowledges it.
        let database = try Database.open(DatabaseConfiguration(path: path, durability: .full))
        relay = try SyncRelay.open(database: database, configuration: configuration, logger: logger, metrics: metrics, refusals: refusals)
        self.path = path
        self.logger = logger
        trims = configuration.trimIntervalMilliseconds < 365 * 24 * 3600 * 1000
    }

    var summary: String { "sync relay \(relay.relayID), log in \(path)\(trims ? ", trimmed once every known peer has it" : ", kept whole")" }

    func shutdown() async {
        await relay.shutdown()
    }
}

/// The sync relay with its log in PostgreSQL (`--postgres`), shared with other relays: other
/// relays' notifications reach this one through a dedicated LISTEN connection.
struct PostgresRelayService: SyncRelayBackedService {
    let relay: SyncRelay
    let listener: PostgresHeadListener
    let location: PostgresLocation
    let logger: Logger
    let trims: Bool

    init(location: PostgresLocation, configuration: RelayConfiguration, logger: Logger, metrics: any MetricsFactory, refusals: RefusalLog) throws {
        // PostgresNIO's own messages only from warnings up (it explains every connection at debug).
        var databaseLogger = logger
        databaseLogger.logLevel = max(logger.logLevel, .warning)
        let store = try PostgresRelayStore(location: location, newRelayID: configuration.newRelayID, logger: databaseLogger)
        if let pause = ProcessInfo.processInfo.environment["ATOLL_RELAY_TEST_APPEND_PAUSE"] {
            guard let mode = PostgresRelayStore.AppendPause(rawValue: pause) else {
                throw AtollError(.invalidArgument, "ATOLL_RELAY_TEST_APPEND_PAUSE must be before-commit or after-commit")
            }
            store.appendPause = mode
        }
        let relay = SyncRelay.open(store: store, configuration: configuration, logger: logger, metrics: metrics, refusals: refusals)
        self.relay = relay
        listener = PostgresHeadListener.start(location: location, logger: databaseLogger,
                                              onHint: { realm, head in await relay.headHint(realm, head: head) },
                                              onConnected: { await relay.refresh() })
        self.location = location
        self.logger = logger
        trims = configuration.trimIntervalMilliseconds < 365 * 24 * 3600 * 1000
    }

    var summary: String {
        "sync relay \(relay.relayID), log in \(location) (shared with other relays)\(trims ? ", trimmed once every known peer has it" : ", kept whole")"
    }

    func shutdown() async {
        await listener.stop()
        await relay.shutdown()
    }
}

/// A `RelayService` that drives a `SyncRelay`: serving, status and lag are the same whatever
/// the store.
protocol SyncRelayBackedService: RelayService {
    var relay: SyncRelay { get }
    var logger: Logger { get }
}

extension SyncRelayBackedService {
    func serve(_ connection: FrameConnection) async {
        await relay.serve(connection)
    }

    func setAccessRules(_ rules: AccessRules?) async {
        await relay.setAccessRules(rules)
    }

    private func status() async -> SyncRelayStatus? {
        do {
            return try await relay.status()
        } catch {
            logger.error("cannot read the relay's status: \(error)")
            return nil
        }
    }

    func lagByPeer() async -> [String: PeerLag] {
        guard let status = await status() else { return [:] }
        var lag: [String: PeerLag] = [:]
        for realm in status.realms {
            for peer in realm.peers where peer.isConnected {
                guard let name = status.peerNames[peer.nodeID] else { continue }
                let entry = PeerLag(operations: Int(clamping: peer.lagOperations), seconds: peer.lagSeconds)
                // A name connected to two realms reports the larger lag.
                if let existing = lag[name], existing.operations >= entry.operations { continue }
                lag[name] = entry
            }
        }
        return lag
    }

    func realms() async -> [RelayStatus.Realm] {
        guard let status = await status() else { return [] }
        let now = Date()
        return status.realms.map { realm in
            RelayStatus.Realm(
                id: realm.realmID, head: realm.head, trimmedThrough: realm.trimmedThrough, operations: realm.operations,
                schema: status.schemaFingerprints[realm.realmID],
                peers: realm.peers.map { peer in
                    RelayStatus.RealmPeer(
                        node: peer.nodeID.description, name: status.peerNames[peer.nodeID], connected: peer.isConnected,
                        acknowledged: peer.acknowledged, lagOperations: peer.lagOperations, lagSeconds: (peer.lagSeconds * 1000).rounded() / 1000,
                        lastAcknowledgedSecondsAgo: status.lastAcknowledged[peer.nodeID].map { (now.timeIntervalSince($0) * 10).rounded() / 10 })
                },
                schemaHistory: realm.schema.map { history in
                    history.classes.map { c in
                        "\(c.name) (\(c.isEmbedded ? "embedded" : "primary key \(c.primaryKey)")): "
                            + c.properties.map { "\($0.name) \($0.typeDescription)" }.joined(separator: ", ")
                    }
                })
        }
    }
}
