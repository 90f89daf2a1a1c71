// A server process that embeds a sync relay and a node in its own ServiceGroup, beside a service
// of its own (a writer), as docs/SYNC.md shows; ServiceLifecycleTests sends it SIGTERM.
//
//   AtollServiceHost DIR PORT [--no-writes]
//
// DIR holds certs/ (ca.pem, relay.pem, relay-key.pem, host.pem, host-key.pem); the relay's log is
// DIR/relay.atoll and the node's file DIR/host.atoll (realm "services"). PORT 0 picks a free port.
// Prints "relay listening on PORT" and "ready" (from a service, so SIGTERM is handled by then), then, on SIGTERM, "writer: stopped after N notes
// (last L)" when the writer has stopped and "group: finished" once every service has; exit 0.

import AtollSync
import AtollSyncLifecycle
import Foundation
import Logging
import ServiceLifecycle

final class Note: Object {
    @Persisted(primaryKey: true) var id = ""
    @Persisted var serial = 0
}

/// Prints "ready" (the group's signal handling is in place once a service runs), then commits
/// one note every 5 ms (with `writes`) until the group shuts down gracefully; every commit is
/// durable in the node's file (full durability) when it returns.
struct NoteWriter: Service {
    let configuration: Realm.Configuration
    let first: Int
    let writes: Bool

    func run() async throws {
        print("ready")
        fflush(nil)
        guard writes else {
            do {
                try await gracefulShutdown()
            } catch {
                // Cancelled instead: the group is ending either way.
            }
            return
        }
        var serial = first
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                realm.add(Note(value: ["id": "note-\(serial)", "serial": serial]))
            }
            serial += 1
            do {
                try await Task.sleep(for: .milliseconds(5))
            } catch {
                break
            }
        }
        print("writer: stopped after \(serial - first) notes (last \(serial - 1))")
        fflush(nil)
    }
}

@main
struct ServiceHost {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count >= 3, let port = Int(arguments[2]) else {
            FileHandle.standardError.write(Data("usage: AtollServiceHost DIR PORT [--no-writes]\n".utf8))
            exit(64)
        }
        do {
            try await run(directory: arguments[1], port: port, writes: !arguments.contains("--no-writes"))
        } catch {
            FileHandle.standardError.write(Data("AtollServiceHost: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(directory: String, port: Int, writes: Bool) async throws {
        var logger = Logger(label: "service-host") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .notice
        let certs = directory + "/certs"

        let relay = try SyncRelay.open(database: try Database.open(DatabaseConfiguration(path: directory + "/relay.atoll", durability: .full)),
                                       logger: logger)
        let relayService = try await AtollRelayService.listen(relay: relay, host: "127.0.0.1", port: port, tls: .mutualTLS(
            certificatePath: certs + "/relay.pem", keyPath: certs + "/relay-key.pem", caPath: certs + "/ca.pem"))
        print("relay listening on \(relayService.port)")

        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: directory + "/host.atoll"), objectTypes: [Note.self])
        let (first, session) = try startNode(configuration, certs: certs, port: relayService.port)

        // Shut down in reverse: the writer first, then the node (its last commits stay in the
        // file for the next session), then the relay.
        let services: [any Service] = [relayService, AtollNodeService(session: session),
                                       NoteWriter(configuration: configuration, first: first, writes: writes)]
        let group = ServiceGroup(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await group.run()
        print("group: finished")
        fflush(nil)
    }

    /// The node's session, and how many notes its file holds; the realm stays on this thread.
    static func startNode(_ configuration: Realm.Configuration, certs: String, port: Int) throws -> (Int, SyncSession) {
        let realm = try Realm(configuration: configuration)
        let session = try realm.sync(with: SyncConfiguration(
            relay: RelayAddress(host: "127.0.0.1", port: port),
            tls: .mutualTLS(certificatePath: certs + "/host.pem", keyPath: certs + "/host-key.pem", caPath: certs + "/ca.pem"),
            realmID: "services"))
        return (realm.objects(Note.self).count, session)
    }
}
