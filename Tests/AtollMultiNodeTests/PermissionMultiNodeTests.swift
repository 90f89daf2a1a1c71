import AtollStorage
import Dispatch
import Foundation
import Testing
@testable import AtollSync
import AtollTestSupport

/// The relay's permission rules with real `atoll node` processes over mutual TLS: a certificate's
/// common name is the identity (`{sub}`), and a refused write stops only the node that made it.
@Suite(.serialized) struct PermissionMultiNodeTests {
    /// "catalog" (a node whose certificate is named catalog) writes the realm of its own name;
    /// everyone else may only read it.
    static let rules = """
        {"rules": [
          {"realm": "{sub}", "read": true, "write": true},
          {"realm": "user/{sub}", "read": true, "write": true},
          {"realm": "catalog", "read": true, "write": false}
        ]}
        """

    @Test func aReadOnlyRealmReachesItsReadersAndAWriteThereStopsOnlyTheWritersNode() async throws {
        try await offPool(aReadOnlyRealmReachesItsReadersAndAWriteThereStopsOnlyTheWritersNodeBlocking)
    }

    func aReadOnlyRealmReachesItsReadersAndAWriteThereStopsOnlyTheWritersNodeBlocking() throws {
        let cluster = try Cluster(nodes: ["catalog", "alice", "bob"], realm: "catalog")
        cluster.relayArguments = ["--rules", try cluster.directory.write("rules.json", Self.rules)]
        try cluster.startRelay()
        try cluster.startNode("catalog")
        #expect(try cluster.importData("catalog", #"{"Item": [{"id": "c-1", "node": "catalog", "n": 1}]}"#).status == 0)
        try cluster.startNode("alice")
        try cluster.startNode("bob")
        _ = try cluster.waitForConvergence(["catalog", "alice", "bob"], timeout: 60) { String(decoding: $0, as: UTF8.self).contains("c-1") }
        let head = try #require(cluster.relayRealm()["head"] as? NSNumber).uint64Value

        // alice changes her copy (another process, so nothing refuses it before commit): the
        // relay refuses the upload whole, and her node stops with the reason.
        #expect(try cluster.importData("alice", #"{"Item": [{"id": "alice-1", "node": "alice", "n": 1}]}"#).status == 0)
        let alice = try #require(cluster.node("alice"))
        #expect(alice.wait(timeout: 30) == 77, "\(alice.stderr)")
        #expect(alice.stderr.contains("changeset 1 was refused: realm 'catalog' is read-only for 'alice'"), "\(alice.stderr)")
        #expect(cluster.allRelayLogs.contains("refused alice (certificate, 127.0.0.1:"), "\(cluster.allRelayLogs)")

        // Nothing of it was stored; the others go on syncing.
        #expect(try #require(cluster.relayRealm()["head"] as? NSNumber).uint64Value == head)
        #expect(try cluster.importData("catalog", #"{"Item": [{"id": "c-2", "node": "catalog", "n": 2}]}"#).status == 0)
        let dump = try cluster.waitForConvergence(["catalog", "bob"], timeout: 60) { String(decoding: $0, as: UTF8.self).contains("c-2") }
        #expect(!String(decoding: dump, as: UTF8.self).contains("alice-1"))
        #expect(cluster.node("bob")?.isRunning == true)
        #expect(cluster.node("catalog")?.isRunning == true)
    }

    @Test func threeUsersOnTwoNodesEachWithPersonalRealmsAndASharedReadOnlyCatalog() async throws {
        try await offPool(threeUsersOnTwoNodesEachWithPersonalRealmsAndASharedReadOnlyCatalogBlocking)
    }

    /// The multi-user demo: JSON Web Token identities (ann, ben, cat and a publisher), each user
    /// with two nodes on the realm of their own name and one node reading the catalog, which
    /// only the publisher writes.
    func threeUsersOnTwoNodesEachWithPersonalRealmsAndASharedReadOnlyCatalogBlocking() throws {
        let users = ["ann", "ben", "cat"]
        let personal = users.flatMap { ["\($0)-1", "\($0)-2"] }
        let readers = users.map { "\($0)-catalog" }
        let cluster = try Cluster(nodes: personal + readers + ["publisher", "intruder"], realm: "catalog")
        let issuer = try TestTokenIssuer()
        let keys = try cluster.directory.write("jwks.json", try issuer.keySetJSON(kinds: [.es256, .eddsa]))
        cluster.admission = ["--jwt-keys", keys, "--jwt-audience", "atoll-test", "--jwt-issuer", "test-issuer"]
        cluster.relayArguments = ["--rules", try cluster.directory.write("rules.json", """
            {"rules": [
              {"realm": "{claims.publishes}", "read": true, "write": true},
              {"realm": "user/{sub}", "read": true, "write": true},
              {"realm": "catalog", "read": true}
            ]}
            """)]
        try cluster.startRelay()
        var tokenFiles: [String: String] = [:]
        for user in users {
            tokenFiles[user] = try cluster.directory.write("\(user).jwt", try issuer.token(.es256, claims: TestTokenIssuer.claims(user)))
        }
        let publisherToken = try cluster.directory.write("publisher.jwt",
            try issuer.token(.eddsa, claims: TestTokenIssuer.claims("publisher", extra: ["publishes": "catalog"])))

        try cluster.startNode("publisher", tokenFile: publisherToken)
        #expect(try cluster.importData("publisher", #"{"Item": [{"id": "book-1", "node": "publisher", "n": 1}]}"#).status == 0)
        for user in users {
            try cluster.startNode("\(user)-1", tokenFile: tokenFiles[user], realm: "user/\(user)")
            try cluster.startNode("\(user)-2", tokenFile: tokenFiles[user], realm: "user/\(user)")
            try cluster.startNode("\(user)-catalog", tokenFile: tokenFiles[user])
            #expect(try cluster.importData("\(user)-1", "{\"Item\": [{\"id\": \"\(user)-note\", \"node\": \"\(user)-1\", \"n\": 1}]}").status == 0)
        }
        // Each user's two nodes converge on that user's data, and only on it.
        for user in users {
            let dump = String(decoding: try cluster.waitForConvergence(["\(user)-1", "\(user)-2"], timeout: 60) {
                String(decoding: $0, as: UTF8.self).contains("\(user)-note")
            }, as: UTF8.self)
            for other in users where other != user { #expect(!dump.contains("\(other)-note")) }
            #expect(!dump.contains("book-1"))
        }
        // Every reader has the catalog.
        _ = try cluster.waitForConvergence(["publisher"] + readers, timeout: 60) { String(decoding: $0, as: UTF8.self).contains("book-1") }

        // ann's token does not open ben's realm: the node stops with the reason.
        let intruder = try cluster.startNode("intruder", tokenFile: tokenFiles["ann"], realm: "user/ben", waitConnected: false)
        #expect(intruder.wait(timeout: 30) == 77, "\(intruder.stderr)")
        #expect(intruder.stderr.contains("'ann' may not sync realm 'user/ben'"), "\(intruder.stderr)")

        // cat writes into her copy of the catalog: refused, stored nowhere; the others go on.
        let head = try #require(try cluster.relayStatus()["realms"] as? [[String: Any]]).first { $0["id"] as? String == "catalog" }?["head"] as? NSNumber
        #expect(try cluster.importData("cat-catalog", #"{"Item": [{"id": "forged-book", "node": "cat", "n": 9}]}"#).status == 0)
        #expect(try #require(cluster.node("cat-catalog")).wait(timeout: 30) == 77)
        let after = try #require(try cluster.relayStatus()["realms"] as? [[String: Any]]).first { $0["id"] as? String == "catalog" }?["head"] as? NSNumber
        #expect(after == head)
        #expect(try cluster.importData("publisher", #"{"Item": [{"id": "book-2", "node": "publisher", "n": 2}]}"#).status == 0)
        let catalog = try cluster.waitForConvergence(["publisher", "ann-catalog", "ben-catalog"], timeout: 60) {
            String(decoding: $0, as: UTF8.self).contains("book-2")
        }
        #expect(!String(decoding: catalog, as: UTF8.self).contains("forged-book"))
        // The relay's status names each session's identity.
        let peers = try #require(try cluster.relayStatus()["peers"] as? [[String: Any]])
        #expect(peers.contains { ($0["identity"] as? String)?.hasPrefix("jwt publisher; claims") == true && ($0["identity"] as? String)?.contains("publishes=catalog") == true })
    }

    /// A queue-confined realm on a node's file, syncing in this process.
    final class QueueRealm: @unchecked Sendable {
        // Sendable: realm and session are touched on `queue` only (and the session after close).
        let queue = DispatchQueue(label: "permission-realm")
        var realm: Realm?
        var session: SyncSession?

        init(path: String, configuration: SyncConfiguration) throws {
            try queue.sync {
                let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: []),
                                      dynamicSchema: nil, queue: queue)
                session = try realm.sync(with: configuration)
                self.realm = realm
            }
        }

        /// Writes one Item; the error that refused it, or nil.
        func write(_ id: String) -> AtollError? {
            queue.sync {
                guard let realm else { return AtollError(.closed, "no realm") }
                do {
                    try realm.write { _ = try realm.dynamicCreate("Item", value: ["id": id, "node": "local", "n": 1]) }
                    return nil
                } catch let error as AtollError {
                    return error
                } catch {
                    return AtollError(.ioError, "\(error)")
                }
            }
        }

        func count() throws -> Int { try queue.sync { try realm?.dynamicObjects(throwing: "Item").count ?? -1 } }

        func close() async {
            await session?.close()
            queue.sync { realm = nil }
        }
    }

    @Test func aWriteTransactionOnARealmReadOnlyForTheNodeFailsBeforeCommit() async throws {
        let cluster = try Cluster(nodes: ["catalog", "bob"], realm: "catalog")
        cluster.relayArguments = ["--rules", try cluster.directory.write("rules.json", Self.rules)]
        try cluster.startRelay()
        _ = try await offPool { try cluster.startNode("catalog") }
        #expect(try cluster.importData("catalog", #"{"Item": [{"id": "c-1", "node": "catalog", "n": 1}]}"#).status == 0)
        var configuration = SyncConfiguration(
            relay: RelayAddress(host: "127.0.0.1", port: cluster.relayPort),
            tls: .mutualTLS(certificatePath: "\(cluster.certs)/bob.pem", keyPath: "\(cluster.certs)/bob-key.pem", caPath: "\(cluster.certs)/ca.pem"),
            realmID: "catalog")
        configuration.reconnect = ReconnectPolicy(delayInitial: .milliseconds(100), delayMax: .seconds(1))
        let bob = try QueueRealm(path: cluster.database("bob"), configuration: configuration)
        let session = try #require(bob.session)
        #expect(await eventually(timeout: .seconds(60)) { session.state == .connected }, "state \(session.state), error \(String(describing: session.lastError))")
        try await session.waitForDownload()
        #expect(try bob.count() == 1)
        #expect(session.permission == RealmPermission(read: true, write: false))

        let refused = bob.write("bob-1")
        #expect(refused?.kind == .permissionDenied, "\(String(describing: refused))")
        #expect(refused?.message.contains("realm 'catalog' is read-only for this node") == true, "\(String(describing: refused))")
        #expect(try bob.count() == 1)
        // The session goes on: the catalog's next change still arrives.
        #expect(try cluster.importData("catalog", #"{"Item": [{"id": "c-2", "node": "catalog", "n": 2}]}"#).status == 0)
        #expect(await eventually(timeout: .seconds(60)) { (try? bob.count()) == 2 })
        #expect(session.state == .connected)
        await bob.close()
    }
}
