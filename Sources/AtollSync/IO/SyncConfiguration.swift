import AtollStorage
public import CoreMetrics

/// Where a relay listens: a host name or IP address and a port.
public struct RelayAddress: Sendable, Hashable, CustomStringConvertible {
    /// Host name or IP address.
    public var host: String
    /// TCP port.
    public var port: Int

    /// An address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`, with an IPv6 address in brackets (`[::1]:7450`).
    ///
    /// - Throws: `AtollError(.invalidArgument)` naming the text.
    public init(_ text: String) throws {
        (host, port) = try Self.split(text, ports: 1...65535)
    }

    /// Splits `HOST:PORT` (IPv6 hosts in brackets) with a port in `ports`; the relay's listen
    /// address also accepts port 0 (any free port).
    package static func split(_ text: String, ports: ClosedRange<Int>) throws -> (host: String, port: Int) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw AtollError(.invalidArgument, "'\(text)' is not HOST:PORT")
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                throw AtollError(.invalidArgument, "'\(text)' is not HOST:PORT")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), ports.contains(port) else {
            throw AtollError(.invalidArgument, "'\(text)' is not HOST:PORT with a port from \(ports.lowerBound) to \(ports.upperBound)")
        }
        return (String(host), port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// How a node syncs: which relay, how it authenticates, which realm.
///
/// ```swift
/// let configuration = SyncConfiguration(
///     relay: RelayAddress(host: "127.0.0.1", port: 7450),
///     tls: .mutualTLS(certificatePath: "certs/node-a.pem", keyPath: "certs/node-a-key.pem", caPath: "certs/ca.pem"),
///     realmID: "shop")
/// let session = try realm.sync(with: configuration)
/// ```
public struct SyncConfiguration: Sendable {
    /// The relay to connect to.
    public var relay: RelayAddress
    /// The CA the relay's certificate must come from, and this node's certificate or token.
    public var tls: ClientTLSConfiguration
    /// The realm (the data set shared by a group of nodes). A file is bound to its realm when
    /// sync first starts on it.
    public var realmID: String
    /// The classes that sync (nil: every class of the file). Each needs a primary key.
    public var classes: [String]?
    /// A remote clock reading further ahead than this is not believed (docs/SYNC.md, "Clock").
    public var maxForwardDriftMilliseconds: UInt64 = HybridLogicalClock.maxForwardDriftMillisecondsDefault
    /// Frame limits, keepalive, timeouts and the logger of the connection.
    public var transport = TransportConfiguration()
    /// Backoff between connection attempts.
    public var reconnect = ReconnectPolicy()
    /// Resend and re-ask delays of the protocol.
    public var timings = SessionTimings()
    /// How often the session's timer runs (resends, commits no wake-up announced).
    public var tickInterval: Duration = .milliseconds(500)
    /// Where the session reports its metrics (`atoll_node_*`, docs/OPERATIONS.md); nil: the
    /// backend bootstrapped in `MetricsSystem` (none: they go nowhere).
    public var metricsFactory: (any MetricsFactory)? = nil
    /// How many conflicts the file's conflict ledger keeps, and for how long (docs/SYNC.md,
    /// "Conflicts"): 1,000 entries and 30 days by default.
    public var conflictRetention = ConflictRetention()
    /// What the session does when the relay will never accept the node's unsynced changes
    /// (docs/AUTH.md, "Client reset"): `.manual()` by default (the session stops with the error).
    public var clientResetMode: ClientResetMode = .manual()

    /// A configuration syncing `classes` (nil: every class) of the realm `realmID`.
    public init(relay: RelayAddress, tls: ClientTLSConfiguration, realmID: String, classes: [String]? = nil) {
        self.relay = relay
        self.tls = tls
        self.realmID = realmID
        self.classes = classes
    }

    var replicaConfiguration: ReplicaConfiguration {
        var c = ReplicaConfiguration(realmID: realmID, classes: classes, maxForwardDriftMilliseconds: maxForwardDriftMilliseconds)
        c.conflictRetention = conflictRetention
        return c
    }
}
