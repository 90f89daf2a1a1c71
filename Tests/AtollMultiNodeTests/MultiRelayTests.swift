import AtollStorage
import AtollTestSupport
import Foundation
import Testing

/// Several `atoll-relay serve --postgres` processes on one PostgreSQL database, with `atoll node`
/// processes spread over them: relays and nodes killed with SIGKILL (a relay also in the middle
/// of an append), nodes moving between relays, PostgreSQL stopped and restarted under load.
/// `ATOLL_MULTIRELAY_ROUNDS` (default 4) sets the write rounds of the long test.
@Suite(.serialized) struct MultiRelayTests {
    static var rounds: Int { ProcessInfo.processInfo.environment["ATOLL_MULTIRELAY_ROUNDS"].flatMap(Int.init) ?? 4 }

    /// The log in PostgreSQL holds each (origin, sequence number) once, every origin's numbers
    /// from 1 without a gap, and positions 1...n without a gap.
    static func checkLog(_ cluster: PostgresTestCluster, _ url: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let database = PostgresTestCluster.databaseName(url)
        let rows = try cluster.psql(database: database, """
            SELECT count(*), count(DISTINCT (realm, origin, origin_seq)), coalesce(max(position), 0) FROM atoll_relay_log
            """)
        let numbers = rows.split(separator: "|").map { Int($0) ?? -1 }
        #expect(numbers.count == 3 && numbers[0] == numbers[1] && numbers[0] == numbers[2], "rows, distinct changesets, head: \(rows)", sourceLocation: sourceLocation)
        let broken = try cluster.psql(database: database, """
            SELECT count(*) FROM (SELECT origin, max(origin_seq) AS last, count(*) AS n FROM atoll_relay_log GROUP BY realm, origin) o WHERE o.last <> o.n
            """)
        #expect(broken == "0", "origins with a gap or a duplicate: \(broken)", sourceLocation: sourceLocation)
    }

    /// Three relays, one PostgreSQL, six nodes spread over the relays; random writes in every
    /// round while a node is killed and comes back on another relay, a relay is killed and
    /// restarted, PostgreSQL is stopped and started again, or a node and a relay die together.
    /// Once quiet, every node's canonical dump is byte-identical and holds every write.
    @Test func sixNodesOnThreeRelaysConvergeThroughKillsAndAPostgresRestart() async throws {
        try await offPool(sixNodesOnThreeRelaysConvergeThroughKillsAndAPostgresRestartBlocking)
    }

    func sixNodesOnThreeRelaysConvergeThroughKillsAndAPostgresRestartBlocking() throws {
        let seed = Environment.seed
        let rounds = max(4, Self.rounds)
        print("MultiRelayTests: ATOLL_MULTINODE_SEED=\(seed) ATOLL_MULTIRELAY_ROUNDS=\(rounds)")
        // A cluster of its own: stopping it must not take PostgreSQL away from other tests.
        let postgres = try PostgresTestCluster.startDedicated()
        defer { postgres.stop(removing: true) }
        let url = try postgres.makeDatabase("atoll_multirelay")
        let names = ["a", "b", "c", "d", "e", "f"]
        let cluster = try Cluster(nodes: names, postgres: url)
        for relay in 0..<3 { try cluster.startRelay(relay) }
        for (i, name) in names.enumerated() { try cluster.startNode(name, relay: i % 3) }
        var script = WriteScript(seed: seed)
        var generator = SeededGenerator(seed: seed ^ 0x3E1A)

        for round in 0..<rounds {
            var imports: [(String, ChildProcess)] = []
            for name in names { imports.append((name, try cluster.startImport(name, script.nextImport(for: name)))) }
            usleep(UInt32.random(in: 0...200_000, using: &generator))
            switch round % 4 {
            case 0:
                // A node dies and comes back on another relay, with writes made while it was down.
                let victim = names[Int.random(in: 0..<names.count, using: &generator)]
                cluster.killNode(victim)
                let whileDown = try cluster.importData(victim, script.nextImport(for: victim))
                #expect(whileDown.status == 0, "\(whileDown)")
                let next = ((cluster.nodeRelays[victim] ?? 0) + Int.random(in: 1...2, using: &generator)) % 3
                try cluster.startNode(victim, relay: next)
            case 1:
                // A relay dies; its nodes retry it while the others go on.
                let relay = Int.random(in: 0..<3, using: &generator)
                cluster.killRelay(relay)
                for name in names where cluster.nodeRelays[name] == relay {
                    let whileDown = try cluster.importData(name, script.nextImport(for: name))
                    #expect(whileDown.status == 0, "\(whileDown)")
                }
                try cluster.startRelay(relay)
            case 2:
                // PostgreSQL stops under load and comes back: relays refuse and reconnect.
                postgres.stop()
                for name in names.prefix(2) {
                    let whileDown = try cluster.importData(name, script.nextImport(for: name))
                    #expect(whileDown.status == 0, "\(whileDown)")
                }
                usleep(1_000_000)
                try postgres.start()
            default:
                // A node and a relay die together; the node comes back on a random relay.
                let victim = names[Int.random(in: 0..<names.count, using: &generator)]
                let relay = Int.random(in: 0..<3, using: &generator)
                cluster.killNode(victim)
                cluster.killRelay(relay)
                try cluster.startRelay(relay)
                try cluster.startNode(victim, relay: Int.random(in: 0..<3, using: &generator))
            }
            for (name, child) in imports {
                #expect(child.wait(timeout: 60) == 0, "import into \(name): \(child.stderr)")
            }
        }

        let dump = try cluster.waitForConvergence(names, timeout: 240) { script.holdsEveryItem($0) }
        #expect(script.missingItems(dump).isEmpty)
        #expect(script.expectedItems.count > rounds * names.count)
        try Self.checkLog(postgres, url)

        for name in names {
            let node = try #require(cluster.node(name))
            #expect(node.terminate(timeout: 60) == 0, "node \(name): \(node.stderr)")
        }
        for relay in 0..<3 {
            let process = try #require(cluster.relays[relay])
            #expect(process.terminate(timeout: 60) == 0, "relay \(relay): \(process.stderr)")
        }
    }

    /// A relay is killed inside an append (before its COMMIT, or after it but before the node's
    /// acknowledgement); the node moves to another relay and its retry is stored once: no gap,
    /// no duplicate, and the other node gets every write.
    @Test(arguments: ["before-commit", "after-commit"])
    func aRelayKilledInTheMiddleOfAnAppendLosesNothingAndStoresTheRetryOnce(pause: String) async throws {
        try await offPool { try aRelayKilledInTheMiddleOfAnAppendBlocking(pause: pause) }
    }

    func aRelayKilledInTheMiddleOfAnAppendBlocking(pause: String) throws {
        let postgres = try PostgresTestCluster.shared()
        let url = try postgres.makeDatabase("atoll_midappend")
        let cluster = try Cluster(nodes: ["a", "b"], postgres: url)
        try cluster.startRelay(0, environment: ["ATOLL_RELAY_TEST_APPEND_PAUSE": pause])
        try cluster.startRelay(1)
        try cluster.startNode("a", relay: 0)
        try cluster.startNode("b", relay: 1)
        let first = try cluster.importData("a", #"{"Item": [{"id": "a-1", "node": "a", "n": 1}, {"id": "a-2", "node": "a", "n": 2}]}"#)
        #expect(first.status == 0, "\(first)")
        let relay0 = try #require(cluster.relays[0])
        #expect(relay0.waitForStderr("atoll-relay test: append paused", timeout: 60), "\(relay0.stderr)")
        cluster.killRelay(0)
        // Before COMMIT nothing was stored; after it, the changeset is there though the node
        // never heard so.
        let stored = try postgres.psql(database: PostgresTestCluster.databaseName(url), "SELECT count(*) FROM atoll_relay_log")
        #expect(stored == (pause == "before-commit" ? "0" : "1"))

        // The node goes to relay 1 (its retry), and writes on.
        cluster.killNode("a")
        try cluster.startNode("a", relay: 1)
        let second = try cluster.importData("a", #"{"Item": [{"id": "a-3", "node": "a", "n": 3}]}"#)
        #expect(second.status == 0, "\(second)")
        let dump = try cluster.waitForConvergence(["a", "b"], timeout: 90) { dump in
            let text = String(decoding: dump, as: UTF8.self)
            return ["a-1", "a-2", "a-3"].allSatisfy { text.contains("\"id\":\"\($0)\"") }
        }
        #expect(!dump.isEmpty)
        try Self.checkLog(postgres, url)
        let rows = try postgres.psql(database: PostgresTestCluster.databaseName(url), "SELECT count(*) FROM atoll_relay_log")
        #expect(rows == "2", "one changeset per import: \(rows)")
    }

    /// `serve` takes exactly one store (and peer expiry only with trimming); a database with a
    /// newer schema is refused with one line;
    /// `migrate` makes the schema current and says so.
    @Test func configurationMistakesAreOneLineAndMigrateReportsTheSchema() async throws {
        try await offPool {
            let postgres = try PostgresTestCluster.shared()
            let url = try postgres.makeDatabase("atoll_cli")
            let cluster = try Cluster(nodes: ["a"])
            let certs = ["--listen", "127.0.0.1:0", "--cert", "\(cluster.certs)/relay.pem", "--key", "\(cluster.certs)/relay-key.pem", "--ca", "\(cluster.certs)/ca.pem"]
            let both = try ChildProcess.run(Executables.relay, ["serve", "--db", cluster.directory.file("r.atoll"), "--postgres", url] + certs, in: cluster.directory)
            #expect(both.status == 64 && both.stderr.contains("exactly one of --db") && both.stderr.split(separator: "\n").count == 1, "\(both)")
            // Peers are forgotten when the log is trimmed: expiry without trimming is a mistake.
            let expiry = try ChildProcess.run(Executables.relay, ["serve", "--db", cluster.directory.file("r.atoll"), "--peer-expiry-seconds", "60"] + certs,
                                              in: cluster.directory)
            #expect(expiry.status == 64 && expiry.stderr.contains("--peer-expiry-seconds goes with --trim-history"), "\(expiry)")
            let zero = try ChildProcess.run(Executables.relay, ["serve", "--db", cluster.directory.file("r.atoll"), "--trim-history", "--peer-expiry-seconds", "0"] + certs,
                                            in: cluster.directory)
            #expect(zero.status == 64 && zero.stderr.contains("--peer-expiry-seconds must be between 1 and"), "\(zero)")
            let password = try ChildProcess.run(Executables.relay, ["serve", "--postgres", url.replacingOccurrences(of: "postgres@", with: "postgres:hunter2@")] + certs,
                                                in: cluster.directory)
            #expect(password.status == 1 && password.stderr.contains("PGPASSWORD") && !password.stderr.contains("hunter2"), "\(password)")

            let migrated = try ChildProcess.run(Executables.relay, ["migrate", "--postgres", url], in: cluster.directory)
            #expect(migrated.status == 0 && migrated.text.contains("schema version 8 (created)"), "\(migrated)")
            let again = try ChildProcess.run(Executables.relay, ["migrate", "--postgres", url], in: cluster.directory)
            #expect(again.status == 0 && again.text.contains("(already current)"), "\(again)")

            try postgres.psql(database: PostgresTestCluster.databaseName(url), "UPDATE atoll_relay_meta SET value = '10' WHERE key = 'schema_version'")
            let newer = try ChildProcess.run(Executables.relay, ["serve", "--postgres", url] + certs, in: cluster.directory)
            #expect(newer.status == 1, "\(newer)")
            #expect(newer.stderr.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").count == 1, "\(newer)")
            #expect(newer.stderr.contains("holds relay schema version 10; this atoll-relay knows up to 8: upgrade atoll-relay"), "\(newer)")

            let down = try ChildProcess.run(Executables.relay, ["serve", "--postgres", "postgresql://postgres@127.0.0.1:1/none"] + certs, in: cluster.directory)
            #expect(down.status == 1 && down.stderr.contains("cannot connect to PostgreSQL at postgresql://postgres@127.0.0.1:1/none"), "\(down)")
        }
    }
}
