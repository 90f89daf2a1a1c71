import AtollSync
import Foundation

/// The status endpoint's JSON document (`GET /status`), also what `atoll-relay status` prints.
struct RelayStatus: Codable, Sendable {
    struct Peer: Codable, Sendable {
        var name: String
        var authentication: String
        var address: String
        var connectedSeconds: Double
        /// Operations and seconds behind, once the relay core reports them.
        var lagOperations: Int?
        var lagSeconds: Double?
    }

    var relay = "atoll-relay"
    var listen: String
    var service: String
    var uptimeSeconds: Double
    var peers: [Peer]

    init(listen: String, service: String, startedAt: Date, connections: [ConnectionTable.Entry], lag: [String: PeerLag]) {
        let now = Date()
        self.listen = listen
        self.service = service
        uptimeSeconds = (now.timeIntervalSince(startedAt) * 10).rounded() / 10
        peers = connections.map { entry in
            Peer(
                name: entry.peer.name, authentication: entry.peer.method.rawValue, address: entry.peer.address,
                connectedSeconds: (now.timeIntervalSince(entry.since) * 10).rounded() / 10,
                lagOperations: lag[entry.peer.name]?.operations, lagSeconds: lag[entry.peer.name]?.seconds)
        }
    }

    /// A human-readable table.
    var text: String {
        var lines = ["relay \(listen), up \(uptimeSeconds) s, \(peers.count) connected peer\(peers.count == 1 ? "" : "s")", "service: \(service)"]
        guard !peers.isEmpty else { return lines.joined(separator: "\n") }
        let rows = [["PEER", "AUTH", "ADDRESS", "CONNECTED", "LAG OPS", "LAG S"]] + peers.map {
            [$0.name, $0.authentication, $0.address, "\($0.connectedSeconds) s",
             $0.lagOperations.map(String.init) ?? "-", $0.lagSeconds.map { String($0) } ?? "-"]
        }
        let widths = (0..<6).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            lines.append(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces))
        }
        return lines.joined(separator: "\n")
    }
}
