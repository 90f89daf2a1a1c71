import AtollStorage
@testable import AtollSync
import Foundation
import Testing
import AtollTestSupport

/// A node killed (SIGKILL) while it adopts a migrated schema: the migration (Tests/AtollObjectHelper
/// `upgrade-synced-schema`, which writes every Item) is committed, and the node's start turns its
/// writes into changesets and records the new schema in one commit (SyncReplica.adoptChangedSchema).
/// Each round starts that from the same migrated file (the relay down, so that no round uploads
/// anything) and kills the node at a random moment of its start; the file is then either not adopted (the old schema's fingerprint, the migration's commit
/// not extracted) or adopted (the new fingerprint, extracted), never a mix, and a node started on
/// it afterwards adopts the schema, connects, and converges with a node on the old schema.
@Suite(.serialized) struct SchemaAdoptionCrashTests {
    struct SyncedState: Equatable {
        let fingerprint: [UInt8]
        let extractedThrough: UInt64
        let outgoing: Int
    }

    static func syncedState(_ path: String) throws -> SyncedState {
        let db = try Database.open(DatabaseConfiguration(path: path))
        let r = try db.beginRead()
        defer { r.close() }
        let state = try #require(try SyncReplica.loadState(r))
        var outgoing = 0
        try r.forEachInternalEntry(SyncTrees.outgoing, from: []) { _, _ in outgoing += 1; return true }
        return SyncedState(fingerprint: state.fingerprint, extractedThrough: state.extractedThrough, outgoing: outgoing)
    }

    /// A node's canonical dump as JSON, without a class and a property of every other class.
    static func dump(_ cluster: Cluster, _ node: String, withoutClass: String? = nil, property: String? = nil) throws -> [String: Any] {
        var json = try JSONSerialization.jsonObject(with: Data(try cluster.canonicalDump(node))) as? [String: Any] ?? [:]
        if let withoutClass { json[withoutClass] = nil }
        if let property {
            for (name, objects) in json {
                json[name] = (objects as? [[String: Any]] ?? []).map { o in o.filter { $0.key != property } }
            }
        }
        return json
    }

    static func copyFiles(of path: String, to target: String) throws {
        let fm = FileManager.default
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let targetName = (target as NSString).lastPathComponent
        for f in try fm.contentsOfDirectory(atPath: directory) where f.hasPrefix(name) {
            let to = directory + "/" + targetName + f.dropFirst(name.count)
            if fm.fileExists(atPath: to) { try fm.removeItem(atPath: to) }
            try fm.copyItem(atPath: directory + "/" + f, toPath: to)
        }
    }

    @Test func aNodeKilledWhileAdoptingAMigratedSchemaIsAtTheOldOrTheNewAndConverges() async throws {
        try await offPool {
            let cluster = try Cluster(nodes: ["a", "b"])
            try cluster.startRelay()
            try cluster.startNode("a")
            try cluster.startNode("b")
            // Enough Items that the migration's writes make the adoption commit take a while.
            let count = 3_000
            let items = (0..<count).map { #"{"id": "a-\#($0)", "node": "a", "n": \#($0)}"# }.joined(separator: ",")
            let data = try cluster.directory.write("items.json", #"{"Item": [\#(items)]}"#)
            let imported = try cluster.atoll(["import", cluster.database("a"), "--schema", cluster.schemaPath, "--data", data])
            #expect(imported.status == 0, "\(imported)")
            _ = try cluster.waitForConvergence(["a", "b"], timeout: 120) { cluster.holdsItems(count, $0) }
            let nodeA = try #require(cluster.node("a"))
            #expect(nodeA.terminate() == 0, "\(nodeA.stderr)")

            let upgrade = try ChildProcess.run(Executables.objectHelper, ["upgrade-synced-schema", cluster.database("a")], in: cluster.directory)
            #expect(upgrade.status == 0 && upgrade.text.contains("upgraded \(count) items"), "\(upgrade)")
            let migrated = try Self.syncedState(cluster.database("a"))
            let status = try cluster.atoll(["schema", cluster.database("a"), "--sync"])
            #expect(status.status == 0 && status.text.contains("schema version: 1\n") && status.text.contains("sync: realm 'test', node ")
                    && status.text.contains("synced schema: changed since the node last synced; adopted when sync next starts"), "\(status)")
            let saved = cluster.directory.file("a-migrated.atoll")
            try Self.copyFiles(of: cluster.database("a"), to: saved)

            // The relay stays down during the rounds: a round's node must not upload what the next
            // round, restarted from the saved file, makes again.
            cluster.killRelay()
            // How long the node takes to adopt, undisturbed (the file is restored afterwards).
            let started = Date()
            try cluster.startNode("a", waitConnected: false)
            #expect(try waitUntil(timeout: 120) { try Self.syncedState(cluster.database("a")).fingerprint != migrated.fingerprint })
            let adoptSeconds = Date().timeIntervalSince(started)
            cluster.killNode("a")
            let adopted = try Self.syncedState(cluster.database("a"))
            #expect(adopted.extractedThrough > migrated.extractedThrough)

            var generator = SeededGenerator(seed: 19)
            var outcomes = (old: 0, new: 0)
            for _ in 0..<8 {
                try Self.copyFiles(of: saved, to: cluster.database("a"))
                try cluster.startNode("a", waitConnected: false)
                usleep(UInt32(Double.random(in: 0...(adoptSeconds * 1.3), using: &generator) * 1_000_000))
                cluster.killNode("a")
                let s = try Self.syncedState(cluster.database("a"))
                if s.fingerprint == migrated.fingerprint {
                    #expect(s == migrated, "not adopted, so nothing of the adoption may be there")
                    outcomes.old += 1
                } else {
                    #expect(s.fingerprint == adopted.fingerprint && s.extractedThrough > migrated.extractedThrough,
                            "adopted: the new schema and the migration's changesets together (\(s) vs \(migrated))")
                    outcomes.new += 1
                }
            }
            print("schema adoption crash: \(outcomes.old) kills left the file not adopted, \(outcomes.new) adopted (adoption took \(String(format: "%.2f", adoptSeconds)) s from the node's start)")

            // The last round's file starts sync again: the node adopts (if the kill came before),
            // connects and uploads the migration's writes, which reach b. b stays on the old
            // schema, so the two dumps never become equal (a has 'Item.color' and the class 'Tag'):
            // a's dump without them must equal b's, and every Item at b holds the migration's note.
            try cluster.startRelay()
            try cluster.startNode("a")
            let statusA = try cluster.atoll(["schema", cluster.database("a"), "--sync"])
            #expect(statusA.text.contains("synced schema: adopted\n"), "\(statusA)")
            var last: (a: [String: Any], b: [String: Any]) = ([:], [:])
            let converged = try waitUntil(timeout: 120) {
                last = (try Self.dump(cluster, "a", withoutClass: "Tag", property: "color"), try Self.dump(cluster, "b"))
                let notes = (last.b["Item"] as? [[String: Any]] ?? []).filter { $0["note"] as? String == "migrated" }
                return NSDictionary(dictionary: last.a).isEqual(to: last.b) && notes.count == count
            }
            #expect(converged, "a (without what b's schema lacks) and b did not converge: a \((last.a["Item"] as? [Any])?.count ?? 0) items, b \((last.b["Item"] as? [Any])?.count ?? 0) items, b's migrated notes: \((last.b["Item"] as? [[String: Any]] ?? []).filter { $0["note"] as? String == "migrated" }.count)")
            #expect(statusA.text.contains("realm's schema history (from relay ") && statusA.text.contains("  Tag (primary key name): name string, weight int\n")
                    && statusA.text.contains("this node's schema has all of it\n"), "\(statusA)")

            // b, still on the old schema, connects again: it records the realm's grown history
            // and says what it lacks.
            let nodeB = try #require(cluster.node("b"))
            #expect(nodeB.terminate() == 0, "\(nodeB.stderr)")
            try cluster.startNode("b")
            let statusB = try cluster.atoll(["schema", cluster.database("b"), "--sync"])
            #expect(statusB.text.contains("this node's schema lacks: Item.color, Tag\n"), "\(statusB)")
            for name in ["a", "b"] {
                let node = try #require(cluster.node(name))
                #expect(node.terminate() == 0, "node \(name): \(node.stderr)")
            }
        }
    }
}

extension Cluster {
    /// Whether `dump` holds at least `count` Items.
    func holdsItems(_ count: Int, _ dump: [UInt8]) -> Bool {
        do {
            let json = try JSONSerialization.jsonObject(with: Data(dump)) as? [String: Any]
            return (json?["Item"] as? [Any])?.count ?? 0 >= count
        } catch {
            return false
        }
    }
}
