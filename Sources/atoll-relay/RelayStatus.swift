import AtollSync
import Foundation

/// The status endpoint's JSON document (`GET /status`), also what `atoll-relay status` prints.
struct RelayStatus: Codable, Sendable {
    struct Peer: Codable, Sendable {
        var name: String
        var authentication: String
        var address: String
        /// The identity in full: method and name, then a JWT's claims or a certificate's
        /// alternative names.
        var identity: String?
        var connectedSeconds: Double
        /// Operations and seconds behind, once the relay core reports them.
        var lagOperations: Int?
        var lagSeconds: Double?
    }

    /// One realm the relay serves: its log and every peer that ever completed a handshake.
    struct Realm: Codable, Sendable {
        var id: String
        /// The last log position, the position trimmed through, operations in the log so far.
        var head: UInt64
        var trimmedThrough: UInt64
        var operations: UInt64
        /// The schema fingerprint (hex) the last node admitted to the realm presented.
        var schema: String?
        var peers: [RealmPeer]
        /// The realm's schema history, one class a line: "Dog (primary key id): age int, name
        /// string?" (nil: no node has described its schema yet).
        var schemaHistory: [String]?
    }

    struct RealmPeer: Codable, Sendable {
        /// The node id (32 hex digits) and the name it last connected with.
        var node: String
        var name: String?
        var connected: Bool
        /// The log position the node has acknowledged, and how far behind the head it is.
        var acknowledged: UInt64
        var lagOperations: UInt64
        var lagSeconds: Double
        /// Seconds since the node's last acknowledgement arrived (nil: none since the relay started).
        var lastAcknowledgedSecondsAgo: Double?
    }

    var relay = "atoll-relay"
    var listen: String
    var service: String
    var uptimeSeconds: Double
    var peers: [Peer]
    var realms: [Realm]
    /// The latest refused connections and handshakes, oldest first (absent from older relays).
    var refusals: [PeerRefusal]?

    init(listen: String, service: String, startedAt: Date, connections: [ConnectionTable.Entry], lag: [String: PeerLag], realms: [Realm],
         refusals: [PeerRefusal])
    {
        let now = Date()
        self.refusals = refusals
        self.listen = listen
        self.service = service
        self.realms = realms
        uptimeSeconds = (now.timeIntervalSince(startedAt) * 10).rounded() / 10
        peers = connections.map { entry in
            Peer(
                name: entry.peer.name, authentication: entry.peer.method.rawValue, address: entry.peer.address,
                identity: entry.peer.details,
                connectedSeconds: (now.timeIntervalSince(entry.since) * 10).rounded() / 10,
                lagOperations: lag[entry.peer.name]?.operations, lagSeconds: lag[entry.peer.name]?.seconds)
        }
    }

    /// A human-readable table.
    var text: String {
        var lines = ["relay \(listen), up \(uptimeSeconds) s, \(peers.count) connected peer\(peers.count == 1 ? "" : "s")", "service: \(service)"]
        let rows = [["PEER", "AUTH", "ADDRESS", "CONNECTED", "LAG OPS", "LAG S", "IDENTITY"]] + peers.map {
            [$0.name, $0.authentication, $0.address, "\($0.connectedSeconds) s",
             $0.lagOperations.map(String.init) ?? "-", $0.lagSeconds.map { String($0) } ?? "-", $0.identity ?? "-"]
        }
        if !peers.isEmpty { lines += Self.table(rows) }
        for realm in realms {
            lines.append("realm '\(realm.id)': head \(realm.head), trimmed through \(realm.trimmedThrough), \(realm.operations) operations")
            if let history = realm.schemaHistory {
                lines.append("  schema history:")
                lines += history.map { "    " + $0 }
            }
            let peerRows = [["NODE", "NAME", "CONNECTED", "ACKNOWLEDGED", "LAG OPS", "LAG S"]] + realm.peers.map {
                [String($0.node.prefix(12)), $0.name ?? "-", $0.connected ? "yes" : "no", String($0.acknowledged), String($0.lagOperations), String($0.lagSeconds)]
            }
            lines += Self.table(peerRows).map { "  " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    private static func table(_ rows: [[String]]) -> [String] {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
    }
}
