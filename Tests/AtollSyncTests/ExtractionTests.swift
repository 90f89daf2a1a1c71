import AtollStorage
@testable import AtollSync
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import AtollTestSupport
#endif

@Suite struct ExtractionTests {
    /// Runs the package's test helper in `serve` mode on `path`, sends it `commands` one per line
    /// and returns its answers. The child is killed if it outlives the call.
    func runHelper(_ path: String, _ commands: [String]) throws -> [String] {
        let helper = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("AtollTestHelper")
        let output = try SpawnedProcess.run(helper.path, ["serve", path], input: Data((commands + ["quit"]).map { $0 + "\n" }.joined().utf8))
        return output.stdoutText.split(separator: "\n").map(String.init)
    }

    @Test func commitsOfAnotherProcessBecomeChangesets() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("node.atoll")
        // The helper creates its classes (Counter with one row, Junk) in the file.
        #expect(try runHelper(path, []).first == "ready")
        let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe))
        let clock = ManualClock()
        let replica = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "r", physicalClock: clock.function))
        // The data already there is the first changeset.
        #expect(replica.lastLocalSeq == 1)

        // Another process: one commit of three new rows, then two counter commits.
        let answers = try runHelper(path, ["fill 3 10", "increment 2"])
        #expect(answers.count == 3 && answers[2] == "ok 2")
        #expect(try replica.hasUnextractedCommits)
        #expect(try replica.extractLocalChanges() == 3)
        #expect(try !replica.hasUnextractedCommits)
        let out = try replica.outgoingChangesets(after: 1)
        #expect(out.map(\.seq) == [2, 3, 4])
        #expect(out.map(\.hlc) == out.map(\.hlc).sorted())
        let fill = try ChangesetContent.decode(out[0].body, origin: replica.nodeID)
        #expect(fill.classes == ["Junk"])
        #expect(fill.instructions.filter { if case .create = $0 { true } else { false } }.count == 3)
        let inc = try ChangesetContent.decode(out[2].body, origin: replica.nodeID)
        #expect(inc.classes == ["Counter"] && inc.properties == ["value"])
        #expect(inc.instructions == [.set(ObjectAddress(classIndex: 0, primaryKey: .int(1)), property: 0, value: .value(.int(2)))])

        // A second node with the same schema receives all of it.
        let path2 = dir.file("other.atoll")
        #expect(try runHelper(path2, []).first == "ready")
        let db2 = try Database.open(DatabaseConfiguration(path: path2, durability: .unsafe))
        try db2.write { w in try w.table(named: "Counter").unwrapped("Counter").erase(ObjectKey(primaryKey: 1)) }
        let replica2 = try SyncReplica.open(db2, configuration: ReplicaConfiguration(realmID: "r", physicalClock: clock.function))
        try replica2.apply(try replica.outgoingChangesets(after: 0))
        #expect(try canonicalDump(db2) == canonicalDump(db))
        try replica.checkInvariants()
        try replica2.checkInvariants()
    }

    @Test func syncStartsOnlyOnClassesWithPrimaryKeys() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "nopk-\(UUID())"))
        try db.write { w in
            try w.createTable(TableSpec(name: "Log", columns: [ColumnSpec(name: "line", type: .string)]))
            try w.createTable(TestSchema.person)
        }
        #expect {
            try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "r"))
        } throws: { e in
            (e as? AtollError)?.kind == .schemaMismatch && (e as? AtollError)?.message.contains("'Log'") == true
        }
        // Leaving it out works; linking to an unsynced class does not.
        _ = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "r", classes: ["Person"]))
        let db2 = try TestSchema.database()
        #expect(throws: AtollError.self) { try SyncReplica.open(db2, configuration: ReplicaConfiguration(realmID: "r", classes: ["Item"])) }
    }

    @Test func aFileStaysBoundToItsRealmAndSchema() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("a.atoll")
        let db = try TestSchema.database(path: path)
        let first = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "one"))
        let again = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "one"))
        #expect(first.nodeID == again.nodeID)
        #expect(throws: AtollError.self) { try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "two")) }
        // A schema change seen in the history while syncing stops extraction with a clear error.
        try db.write { w in _ = try w.addColumn(try w.items().key, ColumnSpec(name: "extra", type: .int)) }
        #expect { try first.extractLocalChanges() } throws: { e in
            (e as? AtollError)?.kind == .schemaMismatch && (e as? AtollError)?.message.contains("stop sync and start it again") == true
        }
        // Opening sync again takes the added property (docs/SYNC.md, "Schema changes"); the
        // replica of the old schema is then refused.
        let upgraded = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "one"))
        #expect(upgraded.nodeID == first.nodeID && upgraded.schemaFingerprint != first.schemaFingerprint)
        try db.write { w in try w.items().create(primaryKey: .int(1)) }
        #expect { try first.extractLocalChanges() } throws: { e in (e as? AtollError)?.kind == .schemaMismatch }
        #expect(try upgraded.extractLocalChanges() == 1)
    }

    @Test func compactionKeepsUnsyncedLocalChanges() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("a.atoll")
        do {
            let db = try TestSchema.database(path: path)
            _ = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "r"))
            try db.write { w in try w.items().set(try w.items().create(primaryKey: .int(9)), TestSchema.Item.title, .string("unsynced")) }
        }
        _ = try Database.compact(path: path)
        let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe))
        let replica = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "r"))
        #expect(try replica.extractLocalChanges() == 1)
        let content = try ChangesetContent.decode(try replica.outgoingChangesets(after: 0).last.unwrapped("changeset").body, origin: replica.nodeID)
        #expect(content.instructions.contains(.set(ObjectAddress(classIndex: 0, primaryKey: .int(9)), property: 0, value: .value(.string("unsynced")))))
    }

    @Test func largeTransactionsAreSplitIntoConsecutiveChangesets() throws {
        let a = try TestNode(), b = try TestNode()
        let big = String(repeating: "x", count: 1 << 20)
        try a.db.write { w in
            for i in 0..<20 { try w.items().set(try w.items().create(primaryKey: .int(Int64(i))), TestSchema.Item.title, .string(big + "\(i)")) }
        }
        let out = try a.outgoing(after: 0)
        #expect(out.count == 3)
        #expect(out.dropLast().allSatisfy { $0.flags & Changeset.continuesFlag != 0 })
        #expect(out.last?.flags == 0)
        #expect(out.allSatisfy { $0.body.count <= SyncLimits.changesetBodyBytesMax })
        try b.replica.apply(out)
        #expect(try a.dump() == b.dump())
    }
}
