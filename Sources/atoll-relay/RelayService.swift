import AtollStorage
import AtollSync

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
    /// Flushes and closes whatever the service holds, after the last connection has ended.
    func shutdown() async
}

/// How far behind a peer is, as the relay core measures it.
struct PeerLag: Codable, Sendable, Equatable {
    var operations: Int
    var seconds: Double
}

/// What `serve` runs until the sync core's relay state machine lands (issue 6, sync-core): peers
/// are admitted (so TLS, certificates, tokens and the status endpoint can be checked end to end)
/// and then told plainly that this relay cannot relay changesets yet. Nothing is pretended.
struct CorelessRelayService: RelayService {
    let summary = "no sync core in this build: peers are authenticated, then told the relay cannot sync yet"

    func serve(_ connection: FrameConnection) async {
        await connection.close(error: AtollError(.connectionFailed,
            "this atoll-relay build has no sync core yet; it authenticated you but cannot relay changesets"))
    }

    func lagByPeer() async -> [String: PeerLag] { [:] }

    func shutdown() async {}
}
