import AtollStorage
import AtollSync
import AtollTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

/// Client reset (docs/AUTH.md, "Client reset") with a real `atoll-relay` over mutual TLS: node
/// "team" may write everything in realm "team", node "alice" only `Item`. alice commits an Item
/// and a Shared object in one transaction (through `atoll import`, another process, so nothing
/// refuses it before commit); the relay refuses the upload whole, and alice's client reset mode
/// decides what becomes of it.
@Suite(.serialized) struct ClientResetMultiNodeTests {
    static let rules = """
        {"rules": [
          {"realm": "{sub}", "read": true, "write": true},
          {"realm": "team", "read": true, "write": true, "writeClasses": ["Item"]}
        ]}
        """
    static let refused = #"{"Item": [{"id": "a-1", "node": "alice", "n": 1}], "Shared": [{"key": 2, "value": "forbidden-shared", "by": "alice", "tags": []}]}"#

    func cluster() throws -> Cluster {
        let cluster = try Cluster(nodes: ["team", "alice"], realm: "team")
        cluster.relayArguments = ["--rules", try cluster.directory.write("rules.json", Self.rules)]
        try cluster.startRelay()
        try cluster.startNode("team")
        #expect(try cluster.importData("team", #"{"Item": [{"id": "t-1", "node": "team", "n": 1}], "Shared": [{"key": 1, "value": "v", "by": "team", "tags": ["x"]}]}"#).status == 0)
        return cluster
    }

    func head(_ cluster: Cluster) throws -> UInt64 {
        try #require(cluster.relayRealm()["head"] as? NSNumber).uint64Value
    }

    @Test(arguments: ["discard", "recover"]) func anAtollNodeWhoseUploadIsRefusedResetsAndConverges(mode: String) async throws {
        try await offPool { try anAtollNodeWhoseUploadIsRefusedResetsAndConvergesBlocking(mode) }
    }

    func anAtollNodeWhoseUploadIsRefusedResetsAndConvergesBlocking(_ mode: String) throws {
        let cluster = try cluster()
        let alice = try cluster.startNode("alice", extra: ["--client-reset", mode])
        _ = try cluster.waitForConvergence(["team", "alice"], timeout: 60) { String(decoding: $0, as: UTF8.self).contains("t-1") }
        let head = try head(cluster)

        #expect(try cluster.importData("alice", Self.refused).status == 0)
        let line = alice.waitForLine(timeout: 60) { $0.hasPrefix("client reset:") }
        #expect(line?.hasSuffix(mode == "discard" ? "recovered 0, discarded 2 changed objects" : "recovered 1, discarded 1 changed objects") == true,
                "\(line ?? "no line"); stderr: \(alice.stderr)")
        #expect(alice.stderr.contains("realm 'team' (writable: Item)") || alice.stderr.contains("which 'alice' may not write"), "\(alice.stderr)")
        #expect(alice.isRunning)

        let dump = String(decoding: try cluster.waitForConvergence(["team", "alice"], timeout: 60) { dump in
            let text = String(decoding: dump, as: UTF8.self)
            return text.contains("t-1") && !text.contains("forbidden-shared") && text.contains("a-1") == (mode == "recover")
        }, as: UTF8.self)
        #expect(!dump.contains("forbidden-shared"))
        if mode == "discard" {
            #expect(try self.head(cluster) == head, "the relay stored nothing of the refused changes")
        } else {
            #expect(try self.head(cluster) == head + 1, "the recovered Item was uploaded as a new changeset")
        }
        // alice syncs on under its new identity: team's next change arrives, alice's next Item goes up.
        #expect(try cluster.importData("team", #"{"Item": [{"id": "t-2", "node": "team", "n": 2}]}"#).status == 0)
        #expect(try cluster.importData("alice", #"{"Item": [{"id": "a-2", "node": "alice", "n": 2}]}"#).status == 0)
        _ = try cluster.waitForConvergence(["team", "alice"], timeout: 60) { dump in
            let text = String(decoding: dump, as: UTF8.self)
            return text.contains("t-2") && text.contains("a-2")
        }
        #expect(alice.isRunning)
    }

    @Test func aManualNodeStopsWithTheErrorAndKeepsItsChanges() async throws {
        try await offPool(aManualNodeStopsWithTheErrorAndKeepsItsChangesBlocking)
    }

    func aManualNodeStopsWithTheErrorAndKeepsItsChangesBlocking() throws {
        let cluster = try cluster()
        let alice = try cluster.startNode("alice")
        _ = try cluster.waitForConvergence(["team", "alice"], timeout: 60) { String(decoding: $0, as: UTF8.self).contains("t-1") }
        #expect(try cluster.importData("alice", Self.refused).status == 0)
        #expect(alice.wait(timeout: 30) == 77, "\(alice.stderr)")
        let dump = String(decoding: try cluster.canonicalDump("alice"), as: UTF8.self)
        #expect(dump.contains("a-1") && dump.contains("forbidden-shared"))
    }

    /// A queue-confined realm on alice's file syncing in this process, with live results of
    /// every Item sorted by id.
    final class LiveResults: @unchecked Sendable {
        // Sendable: realm and token are read and written on `queue` only.
        let queue = DispatchQueue(label: "client-reset-live-results")
        var realm: Realm?
        var token: NotificationToken?
        var session: SyncSession?
        let log = ChangeLog()

        /// The changes the live results reported, in order.
        final class ChangeLog: Sendable {
            struct Change: Sendable {
                var deletions: [Int], insertions: [Int], modifications: [Int], ids: [String]
            }

            let changes = Mutex<[Change]>([])
            var all: [Change] { changes.withLock { $0 } }
            var lastIDs: [String]? { changes.withLock { $0.last?.ids } }
        }

        init(path: String, configuration: SyncConfiguration) throws {
            try queue.sync {
                let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: []),
                                      dynamicSchema: nil, queue: queue)
                let results = try realm.dynamicObjects(throwing: "Item").sorted(throwingByKeyPath: "id")
                let log = self.log
                token = results.observe { change in
                    guard case .update(let r, let d, let i, let m) = change else { return }
                    let ids = r.map { ($0["id"] as? String) ?? "?" }
                    log.changes.withLock { $0.append(ChangeLog.Change(deletions: d, insertions: i, modifications: m, ids: ids)) }
                }
                session = try realm.sync(with: configuration)
                self.realm = realm
            }
        }

        func close() async {
            await session?.close()
            queue.sync {
                token?.invalidate()
                token = nil
                realm = nil
            }
        }
    }

    /// What the reset callbacks saw.
    final class Calls: Sendable {
        let before = Mutex<[ClientResetInfo]>([])
        let after = Mutex<[ClientResetInfo]>([])
        let uploaded = Mutex(false)
    }

    @Test func liveResultsOfAResettingRealmGetTheResetAsAnOrdinaryChange() async throws {
        let cluster = try await offPool { try self.cluster() }
        let calls = Calls()
        var configuration = SyncConfiguration(
            relay: RelayAddress(host: "127.0.0.1", port: cluster.relayPort),
            tls: .mutualTLS(certificatePath: "\(cluster.certs)/alice.pem", keyPath: "\(cluster.certs)/alice-key.pem", caPath: "\(cluster.certs)/ca.pem"),
            realmID: "team")
        configuration.reconnect = ReconnectPolicy(delayInitial: .milliseconds(100), delayMax: .seconds(1))
        configuration.clientResetMode = .discardUnsyncedChanges(beforeReset: { info in calls.before.withLock { $0.append(info) } },
                                                               afterReset: { info in calls.after.withLock { $0.append(info) } })
        let alice = try LiveResults(path: cluster.database("alice"), configuration: configuration)
        let session = try #require(alice.session)
        #expect(await eventually(timeout: .seconds(60)) { session.state == .connected }, "state \(session.state), error \(String(describing: session.lastError))")
        try await session.waitForDownload()
        #expect(await eventually(timeout: .seconds(30)) { alice.log.lastIDs == ["t-1"] })

        // The refused commit is made while the session is paused, and someone waits for its
        // upload: after the reset (which discards it) the wait returns.
        session.pause()
        #expect(await eventually(timeout: .seconds(30)) { session.state == .offline })
        #expect(try await offPool { try cluster.importData("alice", Self.refused).status } == 0)
        let upload = Task {
            try await session.waitForUpload()
            calls.uploaded.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(300))
        session.resume()
        #expect(await eventually(timeout: .seconds(60)) { calls.after.withLock { !$0.isEmpty } }, "no reset; error \(String(describing: session.lastError))")
        #expect(await eventually(timeout: .seconds(30)) { calls.uploaded.withLock { $0 } }, "waitForUpload did not return after the reset")
        upload.cancel()
        let info = try #require(calls.after.withLock { $0.first })
        #expect(info.error.kind == .permissionDenied)
        #expect(Set(info.discarded.map(\.className)) == ["Item", "Shared"])
        #expect(calls.before.withLock { $0.first?.unsyncedChanges.count } == 2)
        #expect(info.nodeID != info.previousNodeID)
        // The live results saw a-1 come (the import) and go (the reset), as ordinary changes.
        #expect(await eventually(timeout: .seconds(30)) { alice.log.lastIDs == ["t-1"] })
        let seen = alice.log.all
        let arrived = try #require(seen.firstIndex { $0.ids == ["a-1", "t-1"] })
        let gone = try #require(seen[arrived...].firstIndex { $0.ids == ["t-1"] })
        // a-1 deleted; t-1 kept its row (reported modified, as its properties are written again).
        #expect(seen[gone].deletions == [0] && seen[gone].insertions.isEmpty, "\(seen[gone])")
        #expect(await eventually(timeout: .seconds(30)) { session.state == .connected })
        try await session.waitForDownload()
        await alice.close()
        let dumps = try await offPool { try cluster.waitForConvergence(["team", "alice"], timeout: 60) }
        #expect(!String(decoding: dumps, as: UTF8.self).contains("forbidden-shared"))
    }
}
