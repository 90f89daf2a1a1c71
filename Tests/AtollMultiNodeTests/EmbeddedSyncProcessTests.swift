import Foundation
import Testing
import AtollTestSupport

/// A relay and three `atoll node` processes syncing a model that uses every newer type (the
/// `Shop` model of Tests/AtollObjectHelper: Decimal128, AnyRealmValue, MutableSet, Map, a
/// PersistableEnum, an embedded address holding an embedded geo and a map of embedded branch
/// addresses), written through the object API in separate processes.
@Suite(.serialized) struct EmbeddedSyncProcessTests {
    @Test func nodeProcessesSyncAModelWithEveryNewTypeAndEmbeddedObjects() async throws {
        try await offPool {
            let names = ["a", "b", "c"]
            let cluster = try Cluster(nodes: names)
            func shop(_ node: String, _ ops: [String]) throws {
                let r = try ChildProcess.run(Executables.objectHelper, ["shop", cluster.database(node)] + ops, in: cluster.directory)
                #expect(r.status == 0 && r.text.contains("done"), "shop on \(node): \(r)")
            }
            func shops(_ node: String) throws -> String {
                let r = try ChildProcess.run(Executables.objectHelper, ["dump-shops", cluster.database(node)], in: cluster.directory)
                #expect(r.status == 0, "\(r)")
                return r.text
            }
            /// Waits until every node shows the same shops and `accept` holds; returns them.
            func converged(_ accept: (String) -> Bool) throws -> String {
                var last: [String] = []
                let ok = try waitUntil(timeout: 90) {
                    last = try names.map(shops)
                    return last.allSatisfy { $0 == last[0] } && accept(last[0])
                }
                #expect(ok, "the nodes did not converge: \(last)")
                return last.first ?? ""
            }
            // The classes are in every file before sync starts.
            for name in names { try shop(name, []) }
            try cluster.startRelay()
            for name in names { try cluster.startNode(name) }

            try shop("a", ["$1:19.99", "?1:7", "+1:fresh", "=1:tea:3", "k1:market", "s1:Main 1", "g1:59.5"])
            var state = try converged { $0.contains("1 revenue=") }
            #expect(state.contains("1 revenue=19.99 extra=7 tags=[fresh] prices={tea:3} kind=market address={Main 1 geo=59.5}"), "\(state)")

            // Concurrent edits on three nodes: different fields of the one embedded address
            // merge per field; the other types merge by their own rules.
            try shop("a", ["s1:Harbour 2", "+1:local"])
            try shop("b", ["g1:60.25", "=1:coffee:4", "?1:open"])
            try shop("c", ["$1:20.5", "k1:online", "a2:Side 9"])
            state = try converged { $0.contains("Harbour 2") && $0.contains("60.25") && $0.contains("coffee") && $0.contains("Side 9") && $0.contains("online") }
            #expect(state.contains("1 revenue=20.5 extra=open tags=[fresh,local] prices={coffee:4,tea:3} kind=online address={Harbour 2 geo=60.25}"), "\(state)")
            #expect(state.contains("2 revenue=0 extra=none tags=[] prices={} kind=kiosk address={Side 9 geo=nil}"), "\(state)")

            // A node killed; while it is down its file replaces an address and another node
            // deletes a shop and removes an address.
            cluster.killNode("b")
            try shop("b", ["a1:New 5", "g1:1.5"])
            try shop("a", ["02", "!3", "+3:gone"])
            try shop("c", ["!2"])
            try cluster.startNode("b")
            state = try converged { $0.contains("New 5") && !$0.contains("Side 9") }
            #expect(state.contains("1 revenue=20.5 extra=open tags=[fresh,local] prices={coffee:4,tea:3} kind=online address={New 5 geo=1.5}"), "\(state)")
            #expect(!state.contains("\n2 ") && !state.hasPrefix("2 "), "\(state)")
            #expect(state.contains("3 revenue=0 extra=none tags=[gone]"), "\(state)")

            // A mixed value that links an object (a typed link) travels by class and primary key;
            // its target deleted, it shows none, and it points again when the target comes back.
            try shop("b", ["@1:3"])
            state = try converged { $0.contains("1 revenue=20.5 extra=->3") }
            try shop("c", ["!3"])
            state = try converged { $0.contains("1 revenue=20.5 extra=none") }
            #expect(!state.contains("\n3 "), "\(state)")
            try shop("a", ["+3:back"])
            state = try converged { $0.contains("1 revenue=20.5 extra=->3") }
            #expect(state.contains("3 revenue=0 extra=none tags=[back]"), "\(state)")

            // A map of embedded objects: a branch put on one node is edited on another, while a
            // third puts another key; the edit lands in the object the key holds.
            try shop("a", ["b1:north:N1"])
            state = try converged { $0.contains("branches={north:N1}") }
            try shop("b", ["B1:north:N2"])
            try shop("c", ["b1:south:S1"])
            state = try converged { $0.contains("branches={north:N2,south:S1}") }
            // Killed, node b replaces the object at north and removes south; meanwhile node c
            // edits the south branch it still has. A later replacement of a key holds only
            // what is written after it, and nothing of the object it replaced.
            cluster.killNode("b")
            try shop("b", ["b1:north:N3", "x1:south"])
            try shop("c", ["B1:south:S2"])
            try cluster.startNode("b")
            state = try converged { $0.contains("north:N3") }
            #expect(state.contains("branches={north:N3") && !state.contains("N2"), "\(state)")
            // The whole files agree too.
            _ = try cluster.waitForConvergence(names, timeout: 60)

            for name in names {
                let node = try #require(cluster.node(name))
                #expect(node.terminate() == 0, "node \(name): \(node.stderr)")
            }
        }
    }
}
