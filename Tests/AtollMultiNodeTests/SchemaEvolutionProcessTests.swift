import Foundation
import Testing
import AtollTestSupport

/// Nodes on different schema versions of one realm, as real processes: a relay, node A on the
/// multi-node schema (version 0) and node B on version 1 of it (a new property 'Item.color' and
/// a new class 'Tag', made by a migration block in Tests/AtollObjectHelper).
@Suite(.serialized) struct SchemaEvolutionProcessTests {
    static let schemaV1 = """
        [{"name": "Item", "primaryKey": "id", "properties": {"id": "string", "node": "string", "n": "int", "note": "string?", "color": "string?"}},
         {"name": "Shared", "primaryKey": "key", "properties": {"key": "int", "value": "string", "by": "string", "tags": "string[]"}},
         {"name": "Tag", "primaryKey": "name", "properties": {"name": "string", "weight": "int"}}]
        """

    /// Both nodes write, each what its schema has; A keeps B's values of what it lacks, and its
    /// own writes of shared objects leave B's new property alone. A then upgrades offline with a
    /// migration block and reconnects: both converge to the same data, where A holds the colors
    /// and tags B wrote before it upgraded, and the migration's writes reached B.
    @Test func nodesOnTwoSchemaVersionsSyncAndConvergeOnceTheOlderUpgrades() async throws {
        try await offPool {
            let cluster = try Cluster(nodes: ["a", "b"])
            let v1 = try cluster.directory.write("schema-v1.json", Self.schemaV1)
            let upgradeB = try ChildProcess.run(Executables.objectHelper, ["upgrade-synced-schema", cluster.database("b")], in: cluster.directory)
            #expect(upgradeB.status == 0 && upgradeB.text.contains("upgraded"), "\(upgradeB)")
            try cluster.startRelay()
            try cluster.startNode("a")
            try cluster.startNode("b")

            func write(_ node: String, schema: String, _ json: String) throws {
                let path = try cluster.directory.write("data-\(UUID().uuidString).json", json)
                let result = try cluster.atoll(["import", cluster.database(node), "--schema", schema, "--data", path, "--update", "modified"])
                #expect(result.status == 0, "import into \(node): \(result)")
            }
            func items(_ node: String) throws -> [String: [String: Any]] { try objects(node, "Item", key: "id") }
            func objects(_ node: String, _ cls: String, key: String) throws -> [String: [String: Any]] {
                let json = try JSONSerialization.jsonObject(with: Data(try cluster.canonicalDump(node))) as? [String: Any] ?? [:]
                var byKey: [String: [String: Any]] = [:]
                for o in json[cls] as? [[String: Any]] ?? [] { byKey["\(o[key] ?? "")"] = o }
                return byKey
            }

            try write("a", schema: cluster.schemaPath, #"{"Item": [{"id": "a-1", "node": "a", "n": 1}]}"#)
            try write("b", schema: v1, #"{"Item": [{"id": "b-1", "node": "b", "n": 2, "color": "red"}], "Tag": [{"name": "t1", "weight": 5}]}"#)
            #expect(try waitUntil(timeout: 60) { try items("b")["a-1"] != nil && items("a")["b-1"] != nil })
            // B colors A's item; A (which has no color) then writes B's item.
            try write("b", schema: v1, #"{"Item": [{"id": "a-1", "node": "a", "n": 1, "color": "blue"}]}"#)
            try write("a", schema: cluster.schemaPath, #"{"Item": [{"id": "b-1", "node": "b", "n": 20}]}"#)
            #expect(try waitUntil(timeout: 60) { (try items("b")["b-1"]?["n"] as? Int) == 20 })
            let atB = try items("b")
            #expect(atB["b-1"]?["color"] as? String == "red", "an older node's write must not erase the newer property: \(atB)")
            #expect(atB["a-1"]?["color"] as? String == "blue", "\(atB)")
            let atA = try items("a")
            #expect(atA["b-1"]?["color"] == nil && atA["b-1"]?["n"] as? Int == 20, "A shows only what its schema has: \(atA)")
            #expect(String(decoding: try cluster.canonicalDump("a"), as: UTF8.self).contains("\"Tag\"") == false)

            // The relay's schema history is the union of both.
            let realm = try cluster.relayRealm()
            let history = (realm["schemaHistory"] as? [String] ?? []).joined(separator: "\n")
            #expect(history.contains("color string?") && history.contains("Tag (primary key name)"), "\(realm)")

            // A goes offline (after B's color of a-1 reached it), upgrades with a migration block, and comes back.
            #expect(try waitUntil(timeout: 30) { try cluster.relayRealm()["peers"].map { peers in
                (peers as? [[String: Any]] ?? []).allSatisfy { ($0["lagOperations"] as? Int) == 0 }
            } ?? false })
            let nodeA = try #require(cluster.node("a"))
            #expect(nodeA.terminate() == 0, "\(nodeA.stderr)")
            let upgradeA = try ChildProcess.run(Executables.objectHelper, ["upgrade-synced-schema", cluster.database("a")], in: cluster.directory)
            #expect(upgradeA.status == 0 && upgradeA.text.contains("upgraded 2 items"), "\(upgradeA)")
            try cluster.startNode("a")

            let dump = try cluster.waitForConvergence(["a", "b"], timeout: 90) { bytes in
                let text = String(decoding: bytes, as: UTF8.self)
                return text.contains("\"migrated\"") && text.contains("\"from-migration\"")
            }
            let text = String(decoding: dump, as: UTF8.self)
            let converged = try items("a")
            #expect(converged["b-1"]?["color"] as? String == "red", "A sees B's earlier value of the new property: \(text)")
            #expect(converged["a-1"]?["color"] as? String == "blue", "\(text)")
            #expect(converged["a-1"]?["note"] as? String == "migrated" && converged["b-1"]?["note"] as? String == "migrated", "\(text)")
            let tags = try objects("a", "Tag", key: "name")
            #expect(tags["t1"]?["weight"] as? Int == 5 && tags["from-migration"] != nil, "\(text)")

            for name in ["a", "b"] {
                let node = try #require(cluster.node(name))
                #expect(node.terminate() == 0, "node \(name): \(node.stderr)")
            }
        }
    }
}
