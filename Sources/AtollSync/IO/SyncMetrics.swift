import AtollStorage
import CoreMetrics
import Foundation
import Synchronization

// The metrics a relay and a node session report through swift-metrics (docs/OPERATIONS.md lists
// every one). The library never bootstraps `MetricsSystem`: a relay is given a factory
// (`SyncRelay.open(..., metrics:)`, the relay executable passes its Prometheus registry's), a node
// uses `SyncConfiguration.metricsFactory`, and both default to `MetricsSystem.factory`, whatever
// backend the application bootstrapped (a no-op one if it bootstrapped none).
//
// Names follow Prometheus conventions: `_total` for counters, `_seconds` for timers, base units.
// Every name keeps one set of dimension names, as a Prometheus registry requires.

/// The relay's instruments. Counting costs an atomic add per call; refusals and storage errors
/// look their counter up by reason (rare events).
struct RelayMetrics: Sendable {
    let factory: any MetricsFactory
    /// Connections admitted by the transport and served (open now, and since start).
    let connectionsOpen: Meter
    let connections: Counter
    /// Handshakes (`hello`) the relay accepted with a `welcome`.
    let handshakesAccepted: Counter
    let changesetsReceived: Counter
    let changesetsSent: Counter
    /// Sync message payload bytes (before the frame's compression), both directions.
    let bytesReceived: Counter
    let bytesSent: Counter
    /// From an upload's arrival to its changesets being stored (durably) and acknowledged.
    let appendLatency: CoreMetrics.Timer
    /// From an upload's arrival to its changesets being queued for each other connected node
    /// of the realm (one sample per receiving node).
    let fanOutLatency: CoreMetrics.Timer
    /// Snapshot streams begun (a node that lacks trimmed history) and chunks sent.
    let snapshotStreams: Counter
    let snapshotChunks: Counter

    init(factory: any MetricsFactory) {
        self.factory = factory
        connectionsOpen = Meter(label: "atoll_relay_connections_open", factory: factory)
        connections = Counter(label: "atoll_relay_connections_total", factory: factory)
        handshakesAccepted = Counter(label: "atoll_relay_handshakes_accepted_total", factory: factory)
        changesetsReceived = Counter(label: "atoll_relay_changesets_received_total", factory: factory)
        changesetsSent = Counter(label: "atoll_relay_changesets_sent_total", factory: factory)
        bytesReceived = Counter(label: "atoll_relay_bytes_received_total", factory: factory)
        bytesSent = Counter(label: "atoll_relay_bytes_sent_total", factory: factory)
        appendLatency = CoreMetrics.Timer(label: "atoll_relay_append_seconds", factory: factory)
        fanOutLatency = CoreMetrics.Timer(label: "atoll_relay_fanout_seconds", factory: factory)
        snapshotStreams = Counter(label: "atoll_relay_snapshot_streams_total", factory: factory)
        snapshotChunks = Counter(label: "atoll_relay_snapshot_chunks_total", factory: factory)
    }

    /// A handshake refused with `code` (the `error` message the relay sent instead of `welcome`).
    func handshakeRefused(_ code: SyncErrorCode) {
        Counter(label: "atoll_relay_handshakes_refused_total", dimensions: [("reason", code.metricName)], factory: factory).increment()
    }

    /// An `error` message sent to a node whose session had begun.
    func sessionError(_ code: SyncErrorCode) {
        Counter(label: "atoll_relay_session_errors_total", dimensions: [("reason", code.metricName)], factory: factory).increment()
    }

    /// A connection the transport refused (TLS, token, connection limits) before the sync
    /// protocol saw it.
    func connectionRefused(_ kind: AtollError.Kind) {
        Counter(label: "atoll_relay_connections_refused_total", dimensions: [("reason", kind.rawValue)], factory: factory).increment()
    }

    /// A storage failure: `append` (an upload could not be stored), `maintenance` (acknowledgements
    /// or trimming), `status` (reading the realms for the status endpoint).
    func storageError(_ operation: String) {
        Counter(label: "atoll_relay_storage_errors_total", dimensions: [("operation", operation)], factory: factory).increment()
    }

    /// The per-realm gauges, set whenever the relay's status is read (the status endpoint reads
    /// it on every scrape of /metrics).
    func record(_ realms: [RelayRealmStatus]) {
        for realm in realms {
            let dimensions = [("realm", realm.realmID)]
            let connected = realm.peers.filter(\.isConnected)
            Gauge(label: "atoll_relay_realm_head", dimensions: dimensions, factory: factory).record(Double(realm.head))
            Gauge(label: "atoll_relay_realm_trimmed_through", dimensions: dimensions, factory: factory).record(Double(realm.trimmedThrough))
            Gauge(label: "atoll_relay_realm_operations", dimensions: dimensions, factory: factory).record(Double(realm.operations))
            Gauge(label: "atoll_relay_realm_peers_connected", dimensions: dimensions, factory: factory).record(Double(connected.count))
            Gauge(label: "atoll_relay_realm_lag_operations_max", dimensions: dimensions, factory: factory)
                .record(Double(connected.map(\.lagOperations).max() ?? 0))
            Gauge(label: "atoll_relay_realm_lag_seconds_max", dimensions: dimensions, factory: factory)
                .record(connected.map(\.lagSeconds).max() ?? 0)
        }
    }
}

/// A node session's instruments, each with the realm as a dimension (a process may sync several).
struct NodeMetrics: Sendable {
    let connections: Counter
    let connected: Meter
    let changesetsSent: Counter
    let changesetsReceived: Counter
    let bytesSent: Counter
    let bytesReceived: Counter
    /// From sending an upload to the relay's acknowledgement of it (stored durably at the relay).
    let uploadLatency: CoreMetrics.Timer
    private let factory: any MetricsFactory
    private let realm: String

    init(factory: any MetricsFactory, realmID: String) {
        self.factory = factory
        realm = realmID
        let d = [("realm", realmID)]
        connections = Counter(label: "atoll_node_connections_total", dimensions: d, factory: factory)
        connected = Meter(label: "atoll_node_connected", dimensions: d, factory: factory)
        changesetsSent = Counter(label: "atoll_node_changesets_sent_total", dimensions: d, factory: factory)
        changesetsReceived = Counter(label: "atoll_node_changesets_received_total", dimensions: d, factory: factory)
        bytesSent = Counter(label: "atoll_node_bytes_sent_total", dimensions: d, factory: factory)
        bytesReceived = Counter(label: "atoll_node_bytes_received_total", dimensions: d, factory: factory)
        uploadLatency = CoreMetrics.Timer(label: "atoll_node_upload_seconds", dimensions: d, factory: factory)
    }

    /// An `error` message from the relay (a refused handshake or the end of a session).
    func errorReceived(_ code: SyncErrorCode) {
        Counter(label: "atoll_node_errors_received_total", dimensions: [("realm", realm), ("reason", code.metricName)], factory: factory).increment()
    }
}

extension SyncErrorCode {
    /// The reason as a metric dimension and in the refusal log.
    public var metricName: String {
        switch self {
        case .malformed: "malformed"
        case .protocolVersion: "protocol_version"
        case .schemaMismatch: "schema_mismatch"
        case .invalidRealm: "invalid_realm"
        case .historyTrimmed: "history_trimmed"
        case .originConflict: "origin_conflict"
        case .clockAhead: "clock_ahead"
        case .unavailable: "unavailable"
        case .unexpectedMessage: "unexpected_message"
        case .permissionDenied: "permission_denied"
        case .belowStabilityPoint: "below_stability_point"
        }
    }
}

/// Counting changesets without decoding a frame twice: `upload` and `download` payloads carry
/// the batch's changeset count after a short header (`ChangesetBatch`'s layout).
enum FrameCensus {
    /// The changesets an `upload` or `download` frame carries; 0 for other kinds or a payload too
    /// short to say (the protocol core rejects those).
    static func changesetCount(_ frame: Frame) -> Int {
        let isDownload = frame.kind == SyncMessage.Kind.download.rawValue
        guard isDownload || frame.kind == SyncMessage.Kind.upload.rawValue else { return 0 }
        return frame.payload.withUnsafeBytes { buffer -> Int in
            var r = ByteReader(buffer, context: "changeset count", source: .peer)
            do {
                if isDownload { for _ in 0..<3 { _ = try r.varint() } }
                let origins = try r.varint()
                guard origins <= UInt64(r.remaining / 16) else { return 0 }
                _ = try r.bytes(Int(origins) * 16)
                return Int(clamping: try r.varint())
            } catch {
                return 0
            }
        }
    }
}

/// A connection or handshake the relay refused, for the status endpoint's refusal log.
public struct PeerRefusal: Codable, Sendable, Equatable {
    /// When (seconds since 1970).
    public var time: Double
    /// `transport` (TLS, token, connection limits) or `handshake` (the sync `hello`), or `session`
    /// (a fatal error after the session began).
    public var stage: String
    /// The peer's name when known (certificate common name or token name).
    public var peer: String?
    /// The peer's address (`HOST:PORT`).
    public var address: String
    /// A short machine-readable reason: an `AtollError.Kind` (transport) or a
    /// `SyncErrorCode.metricName` (handshake, session).
    public var reason: String
    /// What the peer was told, or what the log says.
    public var message: String

    /// A refusal at `time` (now unless given).
    public init(time: Date = Date(), stage: String, peer: String?, address: String, reason: String, message: String) {
        self.time = time.timeIntervalSince1970
        self.stage = stage
        self.peer = peer
        self.address = address
        self.reason = reason
        self.message = message
    }
}

/// The latest refusals, newest last, at most `entriesMax` of them (older ones are dropped; the
/// counters keep the totals).
public final class RefusalLog: Sendable {
    /// The most refusals kept.
    public let entriesMax: Int
    private let entries = AtollLock<[PeerRefusal]>([])

    /// An empty log keeping the latest `entriesMax` refusals (at least 1).
    public init(entriesMax: Int = 100) {
        self.entriesMax = max(1, entriesMax)
    }

    /// Appends `refusal`, dropping the oldest past `entriesMax`: O(`entriesMax`) at worst; safe from any
    /// thread.
    public func record(_ refusal: PeerRefusal) {
        entries.withLock { entries in
            entries.append(refusal)
            if entries.count > entriesMax { entries.removeFirst(entries.count - entriesMax) }
        }
    }

    /// The refusals kept, oldest first.
    public var snapshot: [PeerRefusal] { entries.withLock { $0 } }
}
