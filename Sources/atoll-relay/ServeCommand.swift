import ArgumentParser
import AtollRelayAuth
import AtollRelayPostgres
import AtollStorage
import AtollSync
import Dispatch
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the relay: accept nodes over TLS 1.3 until SIGTERM.",
        discussion: """
            Every changeset a node uploads is stored before it is acknowledged, in --db (an Atoll \
            file, created if missing; one relay per file) or in --postgres (PostgreSQL, shared by \
            any number of relays: a node may use any of them), and forwarded to the other \
            connected nodes of its realm, at this relay and the others; nodes that were away catch \
            up from it. With --postgres the relay creates or upgrades its tables first (as \
            'atoll-relay migrate' does); the password comes from PGPASSWORD or \
            --postgres-password-file, never from the command line. \
            Nodes authenticate with certificates issued by --ca (mutual TLS), or, with --tokens, \
            with a bearer token over server-only TLS: a static one from --tokens, or a JSON Web \
            Token verified with --jwt-keys. --rules decides who may read and write which realm \
            (docs/AUTH.md). Refused peers are logged on stderr. \
            Prints one line on stdout when listening. SIGHUP reloads --rules and --jwt-keys. \
            SIGTERM or SIGINT shuts down cleanly (exit 0).
            """
    )

    @Option(name: .long, help: ArgumentHelp("The relay's own Atoll file (the embedded store).", valueName: "PATH"))
    var db: String?

    @Option(name: .long, help: ArgumentHelp("PostgreSQL shared with other relays, instead of --db.", valueName: "postgresql://USER@HOST:PORT/DBNAME"))
    var postgres: String?

    @Option(name: .long, help: ArgumentHelp("A file whose first line is the PostgreSQL password (else PGPASSWORD).", valueName: "PATH"))
    var postgresPasswordFile: String?

    @Option(name: .long, help: ArgumentHelp("Address to accept nodes on; port 0 picks a free port.", valueName: "HOST:PORT"))
    var listen: HostPort

    @Option(name: .long, help: ArgumentHelp("The relay's certificate (PEM).", valueName: "PATH"))
    var cert: String

    @Option(name: .long, help: ArgumentHelp("The relay's private key (PEM).", valueName: "PATH"))
    var key: String

    @Option(name: .long, help: ArgumentHelp("The CA that issues node certificates (mutual TLS).", valueName: "PATH"))
    var ca: String?

    @Option(name: .long, help: ArgumentHelp("Bearer tokens instead of client certificates: lines of 'NAME TOKEN'.", valueName: "PATH"))
    var tokens: String?

    @Option(name: .long, help: ArgumentHelp(
        "JSON Web Tokens as bearer tokens, verified with this JSON Web Key Set (RS256, ES256, EdDSA public keys; HS256 secrets for development).",
        valueName: "JWKS.json"))
    var jwtKeys: String?

    @Option(name: .long, help: ArgumentHelp("The audience (aud) a JSON Web Token must name; required with --jwt-keys.", valueName: "AUD"))
    var jwtAudience: String?

    @Option(name: .long, help: ArgumentHelp("The issuer (iss) a JSON Web Token must name (optional).", valueName: "ISS"))
    var jwtIssuer: String?

    @Option(name: .long, help: ArgumentHelp(
        "Seconds of leeway for a JSON Web Token's exp and nbf against clocks that differ a little; a connection is closed this long after its token's exp.",
        valueName: "SECONDS"))
    var jwtClockSkewSeconds: Double = JWTAuthenticator.clockSkewSecondsDefault

    @Option(name: .long, help: ArgumentHelp(
        "Who may read and write which realm (JSON, docs/AUTH.md). Without it every admitted peer may read and write every realm.",
        valueName: "PATH"))
    var rules: String?

    @Option(name: .long, help: ArgumentHelp(
        "Serve the dashboard (GET /), the status (GET /status, JSON) and metrics (GET /metrics, Prometheus) over plain HTTP on this address; a port alone means 127.0.0.1.",
        valueName: "HOST:PORT"))
    var status: HostPort?

    @Option(name: .long, help: ArgumentHelp(
        "A file whose first line is the bearer token /status and /metrics require; needed when --status is not a loopback address.",
        valueName: "PATH"))
    var statusTokenFile: String?

    @Flag(name: .long, help: ArgumentHelp(
        "Delete log entries once every node known to the relay has acknowledged them. Trimmed entries are folded into a compacted history, which a node that first connects afterwards receives as a snapshot. Off by default: the log keeps everything."))
    var trimHistory = false

    @Option(name: .long, help: ArgumentHelp(
        "With --trim-history: forget a node unseen for this many seconds, so that it no longer holds trimming and the realm's stability point back; if it returns, it resets to the relay's state and makes its unsynced changes again (docs/SYNC.md, \"The stability point\"). Off by default: an absent node is waited for forever.",
        valueName: "SECONDS"))
    var peerExpirySeconds: UInt64?

    @Option(name: .long, help: ArgumentHelp(
        "Connections held at once; more are closed on accept, and logged.", valueName: "N"))
    var connectionsMax = TransportConfiguration.connectionsMaxDefault

    @Option(name: .long, help: ArgumentHelp(
        "Connections one identity (certificate common name or token name) may hold at once; more are refused, and logged.", valueName: "N"))
    var connectionsPerIdentityMax = TransportConfiguration.connectionsPerIdentityMaxDefault

    @Option(name: .long, help: ArgumentHelp(
        "MiB that all connections together may hold in unfinished frames, decompressed frames and outgoing queues; a connection that would take more is closed, and logged.",
        valueName: "MiB"))
    var memoryBudgetMib = TransportConfiguration.bufferedBytesMaxDefault >> 20

    func validate() throws {
        guard (db == nil) != (postgres == nil) else {
            throw ValidationError("give exactly one of --db (the relay's own Atoll file) or --postgres (PostgreSQL shared by several relays)")
        }
        guard postgresPasswordFile == nil || postgres != nil else {
            throw ValidationError("--postgres-password-file goes with --postgres")
        }
        guard (ca == nil) != (tokens == nil && jwtKeys == nil) else {
            throw ValidationError("give exactly one of --ca (mutual TLS) or --tokens and/or --jwt-keys (bearer tokens)")
        }
        guard (jwtKeys == nil) == (jwtAudience == nil), jwtIssuer == nil || jwtKeys != nil else {
            throw ValidationError("--jwt-keys needs --jwt-audience (and --jwt-audience and --jwt-issuer go with --jwt-keys)")
        }
        guard connectionsMax >= 1, connectionsPerIdentityMax >= 1 else {
            throw ValidationError("--connections-max and --connections-per-identity-max must be at least 1")
        }
        guard memoryBudgetMib >= 1, memoryBudgetMib <= 1 << 20 else {
            throw ValidationError("--memory-budget-mib must be between 1 and 1048576")
        }
        if let peerExpirySeconds {
            guard trimHistory else { throw ValidationError("--peer-expiry-seconds goes with --trim-history (peers are forgotten when the log is trimmed)") }
            guard peerExpirySeconds >= 1, peerExpirySeconds <= Self.peerExpirySecondsMax else {
                throw ValidationError("--peer-expiry-seconds must be between 1 and \(Self.peerExpirySecondsMax) (a century)")
            }
        }
        guard statusTokenFile == nil || status != nil else {
            throw ValidationError("--status-token-file goes with --status")
        }
        if let status, !StatusServer.isLoopback(status.host), statusTokenFile == nil {
            throw ValidationError("--status \(status) is not a loopback address: give --status-token-file (the endpoint reveals identities and addresses)")
        }
    }

    /// A century: the largest `--peer-expiry-seconds` (milliseconds of it fit in a UInt64 with room).
    static let peerExpirySecondsMax: UInt64 = 100 * 365 * 24 * 3600

    /// The transport settings the options give.
    var transportConfiguration: TransportConfiguration {
        var configuration = TransportConfiguration()
        configuration.connectionsMax = connectionsMax
        configuration.connectionsPerIdentityMax = connectionsPerIdentityMax
        configuration.bufferedBytesMax = memoryBudgetMib << 20
        // Until a node's hello is accepted, its frames are held to the handshake's size.
        configuration.limitsBeforeSession = .handshake
        return configuration
    }

    func run() async throws {
        // Trapped first, so that a signal during start-up is not lost (SignalService reads it).
        let trapped = await UnixSignalsSequence(trapping: .sigterm, .sigint, .sighup)
        let logger = RelayLogging.logger()
        let admission: ClientAdmission
        var authenticator: JWTAuthenticator?
        if let ca {
            admission = .mutualTLS(caPath: ca)
        } else if let jwtKeys {
            let jwt = try await JWTAuthenticator(keySetPath: jwtKeys, audience: jwtAudience ?? "", issuer: jwtIssuer, clockSkewSeconds: jwtClockSkewSeconds)
            authenticator = jwt
            admission = .verifiedToken(authenticator: jwt, staticTokens: try tokens.map { try TokenFile.load($0) } ?? [:])
        } else {
            admission = .bearerToken(tokens: try TokenFile.load(tokens ?? ""))
        }
        let accessRules = try rules.map { try AccessRules.load(path: $0) }
        let statusToken = try statusTokenFile.map { try Self.readToken($0) }
        let telemetry = RelayTelemetry()
        var location: PostgresLocation?
        var fileLock: RelayFileLock?
        if let postgres {
            var l = try PostgresLocation(url: postgres)
            try l.readPassword(file: postgresPasswordFile)
            location = l
        } else if let db {
            try Self.checkDatabasePath(db)
            fileLock = try RelayFileLock(databasePath: db)
        }
        defer { withExtendedLifetime(fileLock) {} }
        var relayConfiguration = RelayConfiguration()
        if !trimHistory {
            // A century: the core compares against its monotonic clock, so no overflow.
            relayConfiguration.trimIntervalMilliseconds = 100 * 365 * 24 * 3600 * 1000
        }
        relayConfiguration.peerExpiryMilliseconds = peerExpirySeconds.map { $0 * 1000 }
        // Every connection is a socket: the soft limit on open files must leave room for them.
        let openFiles = OpenFileLimit.raise(toAtLeast: connectionsMax + OpenFileLimit.reservedDescriptors)
        if openFiles < connectionsMax + OpenFileLimit.reservedDescriptors {
            logger.warning("the open-file limit is \(openFiles) (hard limit reached), fewer than --connections-max \(connectionsMax) needs; connections past it fail to be accepted. Raise it (ulimit -n) or lower --connections-max")
        }
        let service: any RelayService
        if let location {
            // Short trims: a trim holds the realm's trim lock and the relay's thread meanwhile.
            relayConfiguration.trimEntriesMax = 2000
            service = try PostgresRelayService(location: location, configuration: relayConfiguration, logger: logger,
                                               metrics: telemetry.factory, refusals: telemetry.refusals)
        } else {
            service = try SyncRelayService(path: db ?? "", configuration: relayConfiguration, logger: logger,
                                           metrics: telemetry.factory, refusals: telemetry.refusals)
        }
        // In force before the first connection is accepted.
        await service.setAccessRules(accessRules)
        let tls = ServerTLSConfiguration(certificatePath: cert, keyPath: key, admission: admission)
        let jwt = authenticator
        let (listen, status, transport, rules) = (self.listen, self.status, transportConfiguration, self.rules)
        let mode = ca != nil ? "mutual TLS" : jwtKeys != nil ? "JSON Web Tokens\(tokens != nil ? " and bearer tokens" : "")" : "bearer tokens"
        let limits = "at most \(connectionsMax) connections, \(connectionsPerIdentityMax) per identity, \(memoryBudgetMib) MiB buffered"
        // The relay and the signals are services of one ServiceGroup. On SIGTERM or SIGINT the signal service returns and the group shuts the relay down
        // gracefully (listener, connections, status endpoint, then the relay's log).
        let relay = RelayHostService(
            start: {
                try await RelayHost.start(listen: listen, status: status, statusToken: statusToken, tls: tls, transport: transport,
                                          service: service, telemetry: telemetry, logger: logger)
            },
            started: { host in
                let statusText = host.statusServer.map { "status on http://\(HostPort(host: status?.host ?? "", port: $0.port))/status" } ?? "no status endpoint"
                print("atoll-relay listening on \(HostPort(host: listen.host, port: host.frameServer.port)) (\(mode)), \(statusText)")
                fflush(nil)
                logger.notice("relay started; \(service.summary); \(limits)")
                if let accessRules {
                    logger.notice("permissions from \(rules ?? ""): \(accessRules.rules.count) rule\(accessRules.rules.count == 1 ? "" : "s"); a realm no rule matches is closed")
                } else {
                    logger.warning("no --rules: every admitted peer may read and write every realm")
                }
                if let authenticator = jwt {
                    let kinds = authenticator.algorithmsInForce.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                    logger.notice("JSON Web Tokens for audience '\(authenticator.audience)'\(authenticator.issuer.map { " from issuer '\($0)'" } ?? ""), keys: \(kinds)")
                }
            })
        let signals = SignalService(signals: trapped, logger: logger) {
            await Self.reload(rules: rules, authenticator: jwt, service: service, logger: logger)
        }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [
                .init(service: relay),
                .init(service: signals, successTerminationBehavior: .gracefullyShutdownGroup),
            ],
            logger: logger))
        try await group.run()
        logger.notice("stopped")
    }

    /// SIGHUP: reads --rules and --jwt-keys again. Each that loads is in force from now on (the
    /// next handshake and the next upload of every session ask the new rules); one that does not
    /// load leaves the old one in force, and the log says why.
    private static func reload(rules: String?, authenticator: JWTAuthenticator?, service: any RelayService, logger: Logger) async {
        if let rules {
            do {
                let fresh = try AccessRules.load(path: rules)
                await service.setAccessRules(fresh)
                logger.notice("SIGHUP: reloaded \(rules): \(fresh.rules.count) rule\(fresh.rules.count == 1 ? "" : "s")")
            } catch {
                logger.error("SIGHUP: kept the previous rules: \(error)")
            }
        }
        if let authenticator {
            do {
                try await authenticator.reload()
                logger.notice("SIGHUP: reloaded \(authenticator.keySetPath): \(authenticator.algorithmsInForce.values.reduce(0, +)) keys")
            } catch {
                logger.error("SIGHUP: kept the previous JSON Web Keys: \(error)")
            }
        }
        if rules == nil && authenticator == nil {
            logger.notice("SIGHUP: nothing to reload (no --rules, no --jwt-keys)")
        }
    }

    /// The status endpoint's bearer token: the file's first line, without surrounding spaces.
    static func readToken(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AtollError(FileManager.default.fileExists(atPath: path) ? .fileAccessDenied : .fileNotFound, "--status-token-file '\(path)' cannot be read")
        }
        let token = String(decoding: data, as: UTF8.self).split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        guard token.count >= 16 else {
            throw AtollError(.invalidArgument, "--status-token-file '\(path)': the first line must hold a token of at least 16 characters")
        }
        return token
    }

    /// The relay's file must be creatable: its directory has to exist.
    static func checkDatabasePath(_ path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw AtollError(.invalidArgument, "--db '\(path)' is a directory; give a file path")
        }
        guard directory.isEmpty || (FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) && isDirectory.boolValue) else {
            throw AtollError(.fileNotFound, "--db '\(path)': directory '\(directory)' does not exist")
        }
    }
}

/// `NAME TOKEN` per line; blank lines and lines starting with '#' are ignored.
enum TokenFile {
    static func load(_ path: String) throws -> [String: String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AtollError(FileManager.default.fileExists(atPath: path) ? .fileAccessDenied : .fileNotFound, "--tokens '\(path)' cannot be read")
        }
        var table: [String: String] = [:]
        for (number, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.isEmpty || fields[0].hasPrefix("#") { continue }
            guard fields.count == 2 else {
                throw AtollError(.invalidArgument, "--tokens '\(path)' line \(number + 1): expected 'NAME TOKEN'")
            }
            guard table.updateValue(String(fields[0]), forKey: String(fields[1])) == nil else {
                throw AtollError(.invalidArgument, "--tokens '\(path)' line \(number + 1): the token is already given to another name")
            }
        }
        guard !table.isEmpty else {
            throw AtollError(.invalidArgument, "--tokens '\(path)' holds no tokens")
        }
        return table
    }
}

enum RelayLogging {
    /// Logs to stderr at info level (ATOLL_LOG_LEVEL=debug|notice|warning|... to change it).
    static func logger() -> Logger {
        var logger = Logger(label: "atoll-relay") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = ProcessInfo.processInfo.environment["ATOLL_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        return logger
    }
}
