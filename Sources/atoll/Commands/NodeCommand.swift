import ArgumentParser
import Atoll
import AtollSync
import AtollSyncLifecycle
import Dispatch
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals
import AtollStorage
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `atoll node DBPATH --relay HOST:PORT --cert PATH --key PATH --ca PATH [--realm ID]`
struct NodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "node",
        abstract: "Sync a database with a relay until interrupted.",
        discussion: """
        Ships every commit made to the database, by any process (an 'atoll import', an app), also \
        those made while no node ran, and applies what the other nodes of the realm wrote. The \
        database must exist with its schema (create it with 'atoll import --schema'); every class \
        syncs and needs a primary key, and every node of a realm needs the same schema.

        Prints one line when started ('node ID of realm R syncing PATH with HOST:PORT'), then \
        'state: S' on every state change (connecting, connected, disconnected, offline) and \
        'progress: uploaded A/B, downloaded C/D' as changesets move (at most twice a second), each \
        line flushed. Connection problems are printed on stderr and retried with backoff. SIGTERM \
        or SIGINT closes the connection cleanly and exits with status 0; an error that retrying \
        cannot fix (another realm's file, a schema the relay refuses) exits with its status.
        """
    )

    @Argument(help: "The database file.")
    var dbpath: String

    @OptionGroup var encryption: KeyFileOption

    @Option(help: ArgumentHelp("The relay's address.", valueName: "HOST:PORT"))
    var relay: String

    @Option(help: ArgumentHelp("This node's certificate (PEM), issued by the relay's CA.", valueName: "PATH"))
    var cert: String?

    @Option(help: ArgumentHelp("This node's private key (PEM).", valueName: "PATH"))
    var key: String?

    @Option(help: ArgumentHelp(
        "A file holding a bearer token (a static token or a JSON Web Token), instead of --cert and --key (the relay must run with --tokens or --jwt-keys). Read again when the relay says the token expired: replace the file's content to hand the node a fresh token.",
        valueName: "PATH"))
    var tokenFile: String?

    @Option(help: ArgumentHelp("The CA that issued the relay's certificate (PEM).", valueName: "PATH"))
    var ca: String

    @Option(help: ArgumentHelp("The realm to sync; a database stays bound to the realm it first synced with.", valueName: "ID"))
    var realm: String = "default"

    @Option(help: ArgumentHelp(
        "What to do when the relay will never accept this node's unsynced changes (a permission it lacks, a copied file, a relay restored from a backup): manual (stop with the error, exit status 77 for a permission), discard (take the relay's state), recover (take the relay's state and make the changes still allowed again), recover-or-discard.",
        valueName: "MODE"))
    var clientReset: String = "manual"

    /// The client reset mode `--client-reset` names; each reset prints one line.
    func clientResetMode(_ out: @escaping @Sendable (String) -> Void) throws -> ClientResetMode {
        let report: ClientResetCallback = { info in
            out("client reset: node \(info.nodeID) (was \(info.previousNodeID)) holds the relay's state; recovered \(info.recovered.count), discarded \(info.discarded.count) changed objects")
        }
        switch clientReset {
        case "manual": return .manual()
        case "discard": return .discardUnsyncedChanges(afterReset: report)
        case "recover": return .recoverUnsyncedChanges(afterReset: report)
        case "recover-or-discard": return .recoverOrDiscardUnsyncedChanges(afterReset: report)
        default: throw ValidationError("--client-reset is manual, discard, recover or recover-or-discard, not '\(clientReset)'")
        }
    }

    func validate() throws {
        guard ["manual", "discard", "recover", "recover-or-discard"].contains(clientReset) else {
            throw ValidationError("--client-reset is manual, discard, recover or recover-or-discard, not '\(clientReset)'")
        }
        if tokenFile == nil {
            guard cert != nil, key != nil else { throw ValidationError("give --cert and --key (mutual TLS), or --token-file") }
        } else {
            guard cert == nil, key == nil else { throw ValidationError("give either --cert and --key, or --token-file, not both") }
        }
    }

    func run() async throws {
        try DatabaseAccess.requireExisting(dbpath)
        let encryptionKey = try encryption.key()
        let address = try RelayAddress(relay)
        let credentials: ClientCredentials
        if let tokenFile {
            // Checked now, so a missing or empty file stops the node at start with one line.
            _ = try Self.readToken(tokenFile)
            credentials = .tokenProvider { try Self.readToken(tokenFile) }
        } else {
            credentials = .certificate(certificatePath: cert ?? "", keyPath: key ?? "")
        }
        var configuration = SyncConfiguration(relay: address, tls: ClientTLSConfiguration(caPath: ca, credentials: credentials), realmID: realm)
        configuration.transport.logger = NodeLogging.logger()
        configuration.clientResetMode = try clientResetMode { line in Output.writeAll(1, Array((line + "\n").utf8)) }
        let database = try Database.open(DatabaseConfiguration(path: dbpath, durability: .full, createIfMissing: false, encryptionKey: encryptionKey))

        // Signals are trapped before the session starts so a SIGTERM during start-up is not lost.
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let session = try SyncSession.start(database: database, configuration: configuration)
        let out = NodeOutput()
        out.line("node \(session.nodeID) of realm '\(realm)' syncing \(dbpath) with \(address)")
        let observation = session.observe(queue: out.queue) { event in
            switch event {
            case .state(let state):
                out.line("state: \(state)")
            case .progress(let p):
                out.progress("progress: uploaded \(p.uploaded)/\(p.uploadable), downloaded \(p.downloaded)/\(p.downloadable)")
            case .error(let error):
                out.error("atoll node: \(error.message)")
            }
        }
        // The session and the signals are services of one ServiceGroup: SIGTERM or SIGINT shuts
        // the session down gracefully (AtollNodeService closes it); an error that stops the
        // session for good ends the group with that error (AtollNodeService throws it).
        let stop = SignalService(signals: signals) { signal in
            out.line("received \(signal == .sigterm ? "SIGTERM" : "SIGINT"), closing")
        }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [
                .init(service: AtollNodeService(session: session)),
                .init(service: stop, successTerminationBehavior: .gracefullyShutdownGroup),
            ],
            logger: NodeLogging.logger()))
        do {
            try await group.run()
        } catch {
            observation.invalidate()
            out.flush()
            throw error
        }
        observation.invalidate()
        out.flush()
        out.line("stopped")
        out.flush()
    }
}

extension NodeCommand {
    /// The token in `path`, without surrounding white space.
    static func readToken(_ path: String) throws -> String {
        let bytes = try DatabaseAccess.readFile(path, what: "token file")
        let token = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw CLIFailure(.badInput, "the token file '\(path)' is empty") }
        return token
    }
}

/// Lines on stdout, written and flushed one at a time from one queue; progress lines at most
/// every half second (the latest wins).
private final class NodeOutput: Sendable {
    let queue = DispatchQueue(label: "atoll.node.output")
    private let pendingProgress = AtollLock<(text: String?, scheduled: Bool, last: UInt64)>((nil, false, 0))

    func line(_ text: String) {
        Output.writeAll(1, Array((text + "\n").utf8))
    }

    func error(_ text: String) {
        Output.writeAll(2, Array((text.replacingOccurrences(of: "\n", with: " ") + "\n").utf8))
    }

    /// Called on `queue`.
    func progress(_ text: String) {
        let now = DispatchTime.now().uptimeNanoseconds / 1_000_000
        let action = pendingProgress.withLock { p -> (print: String?, schedule: UInt64?) in
            if now >= p.last + 500, !p.scheduled {
                p.last = now
                p.text = nil
                return (text, nil)
            }
            p.text = text
            guard !p.scheduled else { return (nil, nil) }
            p.scheduled = true
            return (nil, p.last + 500 - min(now, p.last + 500))
        }
        if let t = action.print { line(t) }
        if let delay = action.schedule {
            queue.asyncAfter(deadline: .now() + .milliseconds(Int(delay))) { [self] in
                let text = pendingProgress.withLock { p -> String? in
                    p.scheduled = false
                    p.last = DispatchTime.now().uptimeNanoseconds / 1_000_000
                    defer { p.text = nil }
                    return p.text
                }
                if let text { line(text) }
            }
        }
    }

    /// Waits until every line queued so far is written.
    func flush() {
        queue.sync {}
        if let text = pendingProgress.withLock({ p -> String? in defer { p.text = nil }; return p.text }) { line(text) }
    }
}

enum NodeLogging {
    /// The transport's log on stderr at notice level (ATOLL_LOG_LEVEL=info|debug|... to change it).
    static func logger() -> Logger {
        var logger = Logger(label: "atoll-node") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = ProcessInfo.processInfo.environment["ATOLL_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .notice
        return logger
    }
}
