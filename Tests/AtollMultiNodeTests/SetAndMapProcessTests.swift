import Foundation
import Testing
import AtollTestSupport

/// A relay and three `atoll node` processes syncing a model with sets and maps (the `Basket`
/// model of Tests/AtollObjectHelper, written through the object API in separate processes).
@Suite(.serialized) struct SetAndMapProcessTests {
    @Test func nodeProcessesSyncAModelWithSetsAndMaps() async throws {
        try await offPool {
            let names = ["a", "b", "c"]
            let cluster = try Cluster(nodes: names)
            func basket(_ node: String, _ ops: [String]) throws {
                let r = try ChildProcess.run(Executables.objectHelper, ["basket", cluster.database(node)] + ops, in: cluster.directory)
                #expect(r.status == 0 && r.text.contains("done"), "basket on \(node): \(r)")
            }
            func baskets(_ node: String) throws -> String {
                let r = try ChildProcess.run(Executables.objectHelper, ["dump-baskets", cluster.database(node)], in: cluster.directory)
                #expect(r.status == 0, "\(r)")
                return r.text
            }
            /// Waits until every node shows the same baskets and `accept` holds; returns them.
            func converged(_ accept: (String) -> Bool) throws -> String {
                var last: [String] = []
                let ok = try waitUntil(timeout: 90) {
                    last = try names.map(baskets)
                    return last.allSatisfy { $0 == last[0] } && accept(last[0])
                }
                #expect(ok, "the nodes did not converge: \(last)")
                return last.first ?? ""
            }
            // The class is in every file before sync starts (an empty class joins the synced schema).
            for name in names { try basket(name, []) }
            let items = try cluster.importData("a", #"{"Item": [{"id": "i1", "node": "a", "n": 1}, {"id": "i2", "node": "a", "n": 2}]}"#)
            #expect(items.status == 0, "\(items)")
            try cluster.startRelay()
            for name in names { try cluster.startNode(name) }

            try basket("a", ["+1:x", "+1:y", "=1:k:1", "=1:j:two", "&1:i1", "@1:lead:i1"])
            var state = try converged { $0.contains("1 labels=[x,y]") }
            #expect(state.contains("1 labels=[x,y] scores={j:two,k:1} items=[i1] picks={lead:i1}"), "\(state)")

            // Edits on three nodes at once: a removal, adds, a key removed, a key written, a
            // second link.
            try basket("a", ["-1:x", "x1:j"])
            try basket("b", ["+1:z", "&1:i2", "@1:second:i2"])
            try basket("c", ["=1:k:3", "+2:solo"])
            state = try converged { $0.contains("z") && $0.contains("solo") && !$0.contains("x,") && !$0.contains("j:") && $0.contains("k:3") }
            #expect(state.contains("1 labels=[y,z] scores={k:3} items=[i1,i2] picks={lead:i1,second:i2}"), "\(state)")
            #expect(state.contains("2 labels=[solo]"), "\(state)")

            // A node killed mid-stream; its file gets edits while it is down.
            cluster.killNode("b")
            try basket("b", ["+1:while-down", "@1:lead:i2"])
            try basket("a", ["!2"])
            try cluster.startNode("b")
            state = try converged { $0.contains("while-down") && !$0.contains("solo") }
            #expect(state.contains("1 labels=[while-down,y,z] scores={k:3} items=[i1,i2] picks={lead:i2,second:i2}"), "\(state)")
            // The whole files agree too.
            _ = try cluster.waitForConvergence(names, timeout: 60)

            for name in names {
                let node = try #require(cluster.node(name))
                #expect(node.terminate() == 0, "node \(name): \(node.stderr)")
            }
        }
    }
}
