import AtollStorage
import AtollSync
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
}

/// How far behind a peer is, as the relay core measures it.
struct PeerLag: Codable, Sendable, Equatable {
    var operations: Int
    var seconds: Double
}

/// The sync relay: the sync core's relay state machine (`RelayCore`, driven by `SyncRelay`) with
/// its log in the Atoll file given by `--db`.
struct SyncRelayService: RelayService {
    let relay: SyncRelay
    let path: String
    let logger: Logger
    let trims: Bool

    init(path: String, configuration: RelayConfiguration, logger: Logger) throws {
        // Full durability: a changeset is on stable storage before the relay acknowledges it.
        let database = try Database.open(DatabaseConfiguration(path: path, durability: .full))
        relay = try SyncRelay.open(database: database, configuration: configuration, logger: logger)
        self.path = path
        self.logger = logger
        trims = configuration.trimIntervalMilliseconds < 365 * 24 * 3600 * 1000
    }

    var summary: String { "sync relay \(relay.relayID), log in \(path)\(trims ? ", trimmed once every known peer has it" : ", kept whole")" }

    func serve(_ connection: FrameConnection) async {
        await relay.serve(connection)
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
        return status.realms.map { realm in
            RelayStatus.Realm(
                id: realm.realmID, head: realm.head, trimmedThrough: realm.trimmedThrough, operations: realm.operations,
                peers: realm.peers.map { peer in
                    RelayStatus.RealmPeer(
                        node: peer.nodeID.description, name: status.peerNames[peer.nodeID], connected: peer.isConnected,
                        acknowledged: peer.acknowledged, lagOperations: peer.lagOperations, lagSeconds: (peer.lagSeconds * 1000).rounded() / 1000)
                })
        }
    }

    func shutdown() async {
        await relay.shutdown()
    }
}
