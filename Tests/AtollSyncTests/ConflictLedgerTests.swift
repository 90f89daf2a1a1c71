import AtollStorage
@testable import AtollSync
import AtollTestSupport
import Foundation
import Testing

/// The conflict ledger: every node records the same losses of concurrent writes, whatever the
/// order the changesets arrive in, and nothing for writes made after seeing each other.
@Suite struct ConflictLedgerTests {
    let title = TestSchema.Item.title, tags = TestSchema.Item.tags

    /// What must agree across nodes (the id, the deciding commit and the time recorded are local).
    func ledger(_ node: TestNode) throws -> [String] {
        try Conflict.all(in: node.db).map { c in
            "\(c.kind) \(c.className)[\(c.primaryKey)].\(c.property ?? "-")\(c.listElement.map { "[\($0)]" } ?? ""): "
                + "\(c.winningValue.map(\.description) ?? "(delete)")@\(c.winningStamp) over "
                + "\(c.losingValue.map(\.description) ?? "(delete)")@\(c.losingStamp)"
        }
    }

    /// Sends every changeset `from` made after `seq` to each of `to`.
    @discardableResult
    func send(_ from: TestNode, after seq: UInt64, to: TestNode...) throws -> [Changeset] {
        let changesets = try from.outgoing(after: seq)
        for t in to { try t.replica.apply(changesets) }
        return changesets
    }

    func setTitle(_ node: TestNode, _ id: Int64, _ text: String) throws {
        try node.db.write { w in try w.items().set(ObjectKey(primaryKey: id), title, .string(text)) }
    }

    func titleOf(_ node: TestNode, _ id: Int64) throws -> StorageValue? {
        try node.db.read { r in
            let t = try r.items()
            return try t.find(primaryKey: .int(id)).map { try t.value($0, title) }
        }
    }

    /// Two nodes with item 1, known to both.
    func twoNodes(clock: ManualClock = ManualClock(), configure: (inout ReplicaConfiguration) -> Void = { _ in }) throws -> (TestNode, TestNode) {
        let a = try TestNode(clock: clock, configure: configure), b = try TestNode(clock: clock, configure: configure)
        try a.db.write { w in
            let k = try w.items().create(primaryKey: .int(1))
            try w.items().set(k, title, .string("start"))
        }
        try send(a, after: 0, to: b)
        return (a, b)
    }

    @Test func twoNodesEditingOnePropertyOfflineRecordTheSameEntryWithTheLosingValue() throws {
        let clock = ManualClock()
        let (a, b) = try twoNodes(clock: clock)
        // Each commit is extracted (stamped) before the clock moves on: the manual clock reads
        // 2023, before the commits' real times, so it is what stamps them.
        try setTitle(a, 1, "from a")
        let fromA = try a.outgoing(after: 1)
        clock.advance(10)
        try setTitle(b, 1, "from b")
        let fromB = try b.outgoing(after: 0)
        try a.replica.apply(fromB)
        try b.replica.apply(fromA)
        #expect(try titleOf(a, 1) == .string("from b"))

        let entries = try Conflict.all(in: a.db)
        #expect(entries.count == 1)
        let c = try #require(entries.first)
        #expect(c.kind == .concurrentWrite)
        #expect(c.className == "Item" && c.primaryKey == .int(1) && c.property == "title")
        #expect(c.winningValue == .value(.string("from b")) && c.losingValue == .value(.string("from a")))
        #expect(c.winningNode == b.id && c.losingNode == a.id)
        #expect(c.winningStamp.hlc == fromB[0].hlc && c.losingStamp.hlc == fromA[0].hlc)
        #expect(try ledger(a) == ledger(b))
    }

    @Test func aWriteMadeAfterSeeingAnotherIsNoConflict() throws {
        let clock = ManualClock()
        let (a, b) = try twoNodes(clock: clock)
        try setTitle(a, 1, "first")
        try send(a, after: 1, to: b)
        clock.advance(10)
        try setTitle(b, 1, "second, after seeing the first")
        try send(b, after: 0, to: a)
        #expect(try titleOf(a, 1) == .string("second, after seeing the first"))
        #expect(try Conflict.all(in: a.db).isEmpty)
        #expect(try Conflict.all(in: b.db).isEmpty)
    }

    @Test func anUpdateStampedBeforeAConcurrentDeleteIsRecordedAsVoidedOnBothNodes() throws {
        let clock = ManualClock()
        let (a, b) = try twoNodes(clock: clock)
        try setTitle(b, 1, "edited offline")
        let fromB = try b.outgoing(after: 0)
        clock.advance(10)
        try a.db.write { w in try w.items().erase(ObjectKey(primaryKey: 1)) }
        let fromA = try a.outgoing(after: 1)
        try a.replica.apply(fromB)
        try b.replica.apply(fromA)
        #expect(try titleOf(a, 1) == nil && titleOf(b, 1) == nil)
        let entries = try Conflict.all(in: b.db)
        #expect(entries.count == 1)
        #expect(entries.first?.kind == .writeVoidedByDelete)
        #expect(entries.first?.losingValue == .value(.string("edited offline")) && entries.first?.winningValue == nil)
        #expect(entries.first?.winningNode == a.id)
        #expect(try ledger(a) == ledger(b))
    }

    @Test func aDeleteOverriddenByALaterConcurrentUpdateIsRecordedOnBothNodes() throws {
        let clock = ManualClock()
        let (a, b) = try twoNodes(clock: clock)
        try a.db.write { w in try w.items().erase(ObjectKey(primaryKey: 1)) }
        let fromA = try a.outgoing(after: 1)
        clock.advance(10)
        try setTitle(b, 1, "edited after the delete, not seeing it")
        let fromB = try b.outgoing(after: 0)
        try a.replica.apply(fromB)
        try b.replica.apply(fromA)
        #expect(try titleOf(a, 1) == .string("edited after the delete, not seeing it"))
        let entries = try Conflict.all(in: a.db)
        #expect(entries.count == 1)
        #expect(entries.first?.kind == .deleteOverridden)
        #expect(entries.first?.losingValue == nil && entries.first?.losingNode == a.id)
        #expect(entries.first?.winningValue == .value(.string("edited after the delete, not seeing it")))
        #expect(try ledger(a) == ledger(b))
    }

    @Test func concurrentWritesOfOneListElementAreRecordedOnBothNodes() throws {
        let clock = ManualClock()
        let (a, b) = try twoNodes(clock: clock)
        try a.db.write { w in try w.items().listInsert(ObjectKey(primaryKey: 1), tags, at: 0, .string("x")) }
        try send(a, after: 1, to: b)
        try a.db.write { w in try w.items().listSet(ObjectKey(primaryKey: 1), tags, at: 0, .string("a's")) }
        let fromA = try a.outgoing(after: 2)
        clock.advance(10)
        try b.db.write { w in try w.items().listSet(ObjectKey(primaryKey: 1), tags, at: 0, .string("b's")) }
        let fromB = try b.outgoing(after: 0)
        try a.replica.apply(fromB)
        try b.replica.apply(fromA)
        #expect(try a.dump() == b.dump())
        let entries = try Conflict.all(in: a.db)
        #expect(entries.count == 1)
        #expect(entries.first?.kind == .listElementWrite && entries.first?.listElement != nil)
        #expect(entries.first?.losingValue == .value(.string("a's")) && entries.first?.winningValue == .value(.string("b's")))
        #expect(try ledger(a) == ledger(b))
    }

    @Test func threeConcurrentWritersLeaveTheSameLedgerOnEveryNodeInAnyOrder() throws {
        let clock = ManualClock()
        let a = try TestNode(clock: clock), b = try TestNode(clock: clock), c = try TestNode(clock: clock)
        try a.db.write { w in _ = try w.items().create(primaryKey: .int(1)) }
        let created = try a.outgoing(after: 0)
        try b.replica.apply(created)
        try c.replica.apply(created)
        try setTitle(a, 1, "a")
        let fromA = try a.outgoing(after: 1)
        clock.advance(10)
        try setTitle(b, 1, "b")
        let fromB = try b.outgoing(after: 0)
        clock.advance(10)
        try setTitle(c, 1, "c")
        let fromC = try c.outgoing(after: 0)
        try a.replica.apply(fromB)
        try a.replica.apply(fromC)
        try b.replica.apply(fromC)
        try b.replica.apply(fromA)
        try c.replica.apply(fromA)
        try c.replica.apply(fromB)
        // A fourth node gets everything in yet another order.
        let d = try TestNode(clock: clock)
        try d.replica.apply(created)
        try d.replica.apply(fromC)
        try d.replica.apply(fromA)
        try d.replica.apply(fromB)
        #expect(try titleOf(a, 1) == .string("c"))
        let reference = try ledger(a)
        #expect(reference.count == 2)
        #expect(try Conflict.all(in: a.db).allSatisfy { $0.winningValue == .value(.string("c")) })
        #expect(try ledger(b) == reference)
        #expect(try ledger(c) == reference)
        #expect(try ledger(d) == reference)
    }

    @Test func keepingTheLosingValueWritesItAgainAndItReachesEveryNode() throws {
        let clock = ManualClock()
        let (a, b) = try twoNodes(clock: clock)
        try setTitle(a, 1, "mine")
        let fromA = try a.outgoing(after: 1)
        clock.advance(10)
        try setTitle(b, 1, "theirs")
        let fromB = try b.outgoing(after: 0)
        try a.replica.apply(fromB)
        try b.replica.apply(fromA)
        #expect(try titleOf(a, 1) == .string("theirs"))

        let conflict = try #require(try Conflict.all(in: a.db).first)
        try conflict.keepLosingValue(in: a.db)
        #expect(try titleOf(a, 1) == .string("mine"))
        #expect(try Conflict.all(in: a.db).isEmpty)
        try send(a, after: 2, to: b)
        #expect(try titleOf(b, 1) == .string("mine"))
        #expect(try a.dump() == b.dump())
        // Kept after seeing "theirs": that is no new conflict.
        #expect(try ledger(b).count == 1)
        #expect(throws: AtollError.self) { try conflict.keepLosingValue(in: a.db) }
    }

    @Test func dismissRemovesAnEntryAndChangesNoData() throws {
        let clock = ManualClock()
        let (a, b) = try twoNodes(clock: clock)
        try setTitle(a, 1, "mine")
        let fromA = try a.outgoing(after: 1)
        clock.advance(10)
        try setTitle(b, 1, "theirs")
        _ = try b.outgoing(after: 0)
        try b.replica.apply(fromA)
        let before = try b.dump()
        let conflict = try #require(try Conflict.all(in: b.db).first)
        try conflict.dismiss(in: b.db)
        #expect(try Conflict.all(in: b.db).isEmpty)
        #expect(try b.dump() == before)
        #expect(throws: AtollError.self) { try conflict.dismiss(in: b.db) }
    }

    @Test func theLedgerKeepsAtMostCountMaxEntriesAndNoneOlderThanTheAgeLimit() throws {
        let clock = ManualClock()
        let retention = ConflictRetention(countMax: 3, ageMillisecondsMax: 60_000)
        let a = try TestNode(clock: clock) { $0.conflictRetention = retention }
        let b = try TestNode(clock: clock) { $0.conflictRetention = retention }
        try a.db.write { w in for i in 1...10 { _ = try w.items().create(primaryKey: .int(Int64(i))) } }
        try send(a, after: 0, to: b)
        try a.db.write { w in for i in 1...10 { try w.items().set(ObjectKey(primaryKey: Int64(i)), title, .string("a")) } }
        _ = try a.outgoing(after: 1)
        clock.advance(10)
        try b.db.write { w in for i in 1...10 { try w.items().set(ObjectKey(primaryKey: Int64(i)), title, .string("b")) } }
        try a.replica.apply(try b.outgoing(after: 0))
        // Ten conflicts were decided; three are kept.
        #expect(try Conflict.all(in: a.db).count == 3)

        // Past the age limit, the next commit that records a conflict removes the old ones.
        clock.advance(120_000)
        try a.db.write { w in try w.items().set(ObjectKey(primaryKey: 1), title, .string("a again")) }
        _ = try a.outgoing(after: 2)
        clock.advance(10)
        try b.db.write { w in try w.items().set(ObjectKey(primaryKey: 1), title, .string("b again")) }
        try a.replica.apply(try b.outgoing(after: 1))
        let left = try Conflict.all(in: a.db)
        #expect(left.count == 1)
        #expect(left.first?.losingValue == .value(.string("a again")))
    }

    /// Random concurrent edits of a few properties and list elements on three nodes with skewed
    /// clocks, delivered in random causal orders: every node ends with the same ledger.
    @Test(arguments: 1...40)
    func randomConcurrentEditsLeaveTheSameLedgerOnEveryNode(seed: Int) throws {
        var rng = SeededGenerator(seed: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15)
        let base = ManualClock()
        let nodes = try (0..<3).map { _ in try TestNode(clock: ManualClock(base.now + UInt64.random(in: 0...5_000, using: &rng))) }
        try nodes[0].db.write { w in
            for i in 1...3 {
                let k = try w.items().create(primaryKey: .int(Int64(i)))
                try w.items().listInsert(k, tags, at: 0, .string("t"))
            }
        }
        var log: [(changeset: Changeset, deps: VersionVector)] = []
        var published = [UInt64](repeating: 0, count: nodes.count)
        func publish(_ i: Int) throws {
            let deps = nodes[i].replica.versionVector
            for cs in try nodes[i].outgoing(after: published[i]) {
                log.append((cs, deps))
                published[i] = cs.seq
            }
        }
        func deliverable(to node: TestNode) -> [Changeset] {
            let vv = node.replica.versionVector
            return log.filter { p in
                p.changeset.seq == vv[p.changeset.origin] + 1 && p.changeset.origin != node.id
                    && p.deps.entries.allSatisfy { $0.key == p.changeset.origin || vv[$0.key] >= $0.value }
            }.map(\.changeset)
        }
        try publish(0)
        for n in nodes.dropFirst() { try n.replica.apply(log.map(\.changeset)) }
        for step in 0..<60 {
            let i = Int.random(in: 0..<nodes.count, using: &rng)
            for n in nodes { n.clock.advance(UInt64.random(in: 0...3, using: &rng)) }
            if Bool.random(using: &rng) {
                let item = Int64.random(in: 1...3, using: &rng)
                try nodes[i].db.write { w in
                    if Int.random(in: 0..<4, using: &rng) == 0 {
                        try w.items().listSet(ObjectKey(primaryKey: item), tags, at: 0, .string("s\(step)"))
                    } else {
                        try w.items().set(ObjectKey(primaryKey: item), title, .string("n\(i) step \(step)"))
                    }
                }
                try publish(i)
            } else {
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    guard let next = rng.pick(deliverable(to: nodes[i])) else { break }
                    try nodes[i].replica.apply([next])
                }
            }
        }
        // Everything everywhere.
        for n in nodes {
            while let next = deliverable(to: n).first { try n.replica.apply([next]) }
        }
        #expect(try nodes[0].dump() == nodes[1].dump() && nodes[1].dump() == nodes[2].dump())
        let reference = try ledger(nodes[0]), second = try ledger(nodes[1]), third = try ledger(nodes[2])
        #expect(second == reference, "\(reference.joined(separator: "\n"))\n--\n\(second.joined(separator: "\n"))")
        #expect(third == reference)
    }

    /// Runs the `atoll` executable (built next to the test bundle) and returns its stdout.
    func atoll(_ args: String...) throws -> (status: Int32, stdout: String) {
        let atoll = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("atoll")
        let output = try SpawnedProcess.run(atoll.path, args)
        return (output.status, output.stdoutText)
    }

    @Test func theCommandLineListsTheLedgerFilteredByAPredicate() throws {
        let directory = NSTemporaryDirectory() + "atoll-conflicts-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = ManualClock()
        let a = try TestNode(clock: clock, path: directory + "/a.atoll"), b = try TestNode(clock: clock)
        try a.db.write { w in _ = try w.items().create(primaryKey: .int(7)) }
        try b.replica.apply(try a.outgoing(after: 0))
        try setTitle(a, 7, "from a")
        _ = try a.outgoing(after: 1)
        clock.advance(10)
        try setTitle(b, 7, "from b")
        try a.replica.apply(try b.outgoing(after: 0))

        let hit = try atoll("conflicts", directory + "/a.atoll", "className == 'Item' AND property == 'title' AND losingValue == 'from a'", "--json")
        #expect(hit.status == 0)
        #expect(hit.stdout.contains("\"winningValue\": \"from b\"") && hit.stdout.contains("\"primaryKey\": \"7\""))
        #expect(hit.stdout.contains("\"kind\": \"concurrent write\""))
        let miss = try atoll("conflicts", directory + "/a.atoll", "property == 'count'")
        #expect(miss.status == 0 && miss.stdout.contains("(0 conflicts)"))
    }

    @Test func aRealmListsKeepsAndDismissesTheConflictsOfItsFile() throws {
        let directory = NSTemporaryDirectory() + "atoll-conflicts-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = ManualClock()
        let a = try TestNode(clock: clock, path: directory + "/a.atoll"), b = try TestNode(clock: clock)
        try a.db.write { w in for id in [7, 8] as [Int64] { _ = try w.items().create(primaryKey: .int(id)) } }
        try b.replica.apply(try a.outgoing(after: 0))
        try setTitle(a, 7, "mine")
        try setTitle(a, 8, "mine too")
        _ = try a.outgoing(after: 1)
        clock.advance(10)
        try setTitle(b, 7, "theirs")
        try setTitle(b, 8, "theirs too")
        try a.replica.apply(try b.outgoing(after: 0))

        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: directory + "/a.atoll"), objectTypes: []),
                              dynamicSchema: nil)
        let found = try realm.conflicts(className: "Item")
        #expect(found.count == 2)
        #expect(try realm.conflicts(className: "Person").isEmpty)
        let seven = try #require(found.first { $0.primaryKey == .int(7) })
        let eight = try #require(found.first { $0.primaryKey == .int(8) })
        try realm.keepLosingValue(seven)
        #expect(try titleOf(a, 7) == .string("mine"))
        try realm.dismiss(eight)
        #expect(try titleOf(a, 8) == .string("theirs too"))
        #expect(try realm.conflicts().isEmpty)
        // Keeping and dismissing run their own write transaction: refused inside one.
        try realm.write {
            #expect { try realm.dismiss(eight) } throws: { ($0 as? AtollError)?.kind == .invalidTransaction }
        }
    }

    @Test func theDefaultsAreDocumented() {
        let r = ConflictRetention()
        #expect(r.countMax == 1_000)
        #expect(r.ageMillisecondsMax == 30 * 24 * 3_600_000)
    }
}
