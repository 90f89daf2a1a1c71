import Atoll
import AtollStorage
@testable import AtollSync
import AtollTestSupport
import Foundation
import Testing

/// The model class of TestSchema.person, for `object.conflicts`.
final class Person: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var age = 0
}

/// `realm.conflicts` and `object.conflicts`: the conflict ledger as a live collection with the
/// query language, sorting, freezing and collection notifications.
@Suite struct ConflictResultsTests {
    let title = TestSchema.Item.title, count = TestSchema.Item.count

    /// A directory removed when the test ends, and node `a` whose file a realm opens, with
    /// items `ids` known to a second node `b`.
    final class Setup {
        let directory: String
        let clock = ManualClock()
        let a: TestNode, b: TestNode
        private(set) var sentByA: UInt64 = 1
        private(set) var sentByB: UInt64 = 0

        init(ids: [Int64], retention: ConflictRetention = ConflictRetention()) throws {
            directory = NSTemporaryDirectory() + "atoll-conflict-results-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            a = try TestNode(clock: clock, path: directory + "/a.atoll") { $0.conflictRetention = retention }
            b = try TestNode(clock: clock) { $0.conflictRetention = retention }
            try a.db.write { w in
                for id in ids { _ = try w.items().create(primaryKey: .int(id)) }
                _ = try w.people().create(primaryKey: .string("ann"))
            }
            try b.replica.apply(try a.outgoing(after: 0))
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        func realm() throws -> Realm {
            try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: directory + "/a.atoll"), objectTypes: []),
                      dynamicSchema: nil)
        }

        /// Sends what `b` committed since the last send to `a`.
        func sendB() throws {
            let fromB = try b.outgoing(after: sentByB)
            sentByB = fromB.last?.seq ?? sentByB
            try a.replica.apply(fromB)
        }

        /// Stamps what `a` committed since the last call (its changesets go nowhere).
        func stampA() throws {
            sentByA = try a.outgoing(after: sentByA).last?.seq ?? sentByA
        }

        /// `a` and then `b` (later by the clock) write `column` of the items concurrently; `a`
        /// merges `b`'s writes: one conflict per item, `a`'s value losing.
        func conflict(_ ids: [Int64], column: Int, a aValue: StorageValue, b bValue: StorageValue) throws {
            try a.db.write { w in for id in ids { try w.items().set(ObjectKey(primaryKey: id), column, aValue) } }
            try stampA()
            clock.advance(10)
            try b.db.write { w in for id in ids { try w.items().set(ObjectKey(primaryKey: id), column, bValue) } }
            try sendB()
            clock.advance(10)
        }
    }

    @Test func theLedgerIsFilteredSortedAndCountedWithTheQueryLanguage() throws {
        let s = try Setup(ids: [7, 8])
        try s.conflict([7, 8], column: title, a: .string("mine"), b: .string("theirs"))
        try s.conflict([8], column: count, a: .int(1), b: .int(2))
        let realm = try s.realm()

        let all = realm.conflicts
        #expect(all.count == 3)
        #expect(all.map(\.losingValue) == [.value(.string("mine")), .value(.string("mine")), .value(.int(1))])
        let titles = all.filter("className == 'Item' AND property == 'title'")
        #expect(titles.count == 2 && titles.allSatisfy { $0.property == "title" })
        let eight = try all.filter(throwing: "primaryKey == %@", "8")
        #expect(eight.count == 2 && eight.allSatisfy { $0.primaryKey == .int(8) })
        #expect(all.filter("losingValue == 'mine' AND winningValue BEGINSWITH 'the'").count == 2)
        #expect(all.filter("decidedInVersion > 0 AND kind == 'concurrent write'").count == 3)
        // Sorting, chained filters and the language's clauses.
        let byKeyDescending = titles.sorted(byKeyPath: "primaryKey", ascending: false)
        #expect(byKeyDescending.map(\.primaryKey) == [.int(8), .int(7)])
        #expect(all.filter("property == 'title'").filter("primaryKey == '7'").map(\.primaryKey) == [.int(7)])
        #expect(all.filter("TRUEPREDICATE SORT(property DESC) LIMIT(1)").first?.property == "title")
        #expect(realm.conflicts.filter("className == 'Person'").isEmpty)
        // The same entries as the snapshot API.
        #expect(try Array(all) == realm.conflicts(className: nil))
    }

    @Test func aPredicateTheLanguageRefusesIsAnInvalidQueryError() throws {
        let s = try Setup(ids: [1])
        let realm = try s.realm()
        for predicate in ["noSuchProperty == 1", "decidedInVersion == 'seven'", "className ==", "className == $0"] {
            #expect { _ = try realm.conflicts.filter(throwing: predicate) } throws: { ($0 as? AtollError)?.kind == .invalidQuery }
        }
    }

    @Test func aMergeThatRecordsAConflictADismissAndKeepMineAreNotifications() throws {
        let s = try Setup(ids: [1, 2])
        let realm = try s.realm()
        let titles = realm.conflicts.filter("property == 'title'")
        var changes: [String] = []
        let token = titles.observe { change in
            switch change {
            case .initial(let c): changes.append("initial \(c.count)")
            case .update(let c, let d, let i, let m): changes.append("update \(c.count) -\(d) +\(i) ~\(m)")
            case .error(let e): changes.append("error \(e)")
            }
        }
        defer { token.invalidate() }
        #expect(changes == ["initial 0"])

        // A merge on node a records a conflict for item 1: an insertion.
        try s.conflict([1], column: title, a: .string("mine"), b: .string("theirs"))
        realm.refresh()
        #expect(changes.last == "update 1 -[] +[0] ~[]")
        #expect(titles.first?.winningValue == .value(.string("theirs")))

        // A conflict of another property is not in the filtered collection: no notification.
        try s.conflict([1], column: count, a: .int(1), b: .int(2))
        realm.refresh()
        #expect(changes.count == 2)

        // Item 2 too, after item 1 in the order of the losing stamps.
        try s.conflict([2], column: title, a: .string("mine 2"), b: .string("theirs 2"))
        realm.refresh()
        #expect(changes.last == "update 2 -[] +[1] ~[]")

        // The winner of an entry is what the property holds now: a later write of node b (which
        // had not seen a's) changes the entry: a modification.
        s.clock.advance(10)
        try s.b.db.write { w in try w.items().set(ObjectKey(primaryKey: 1), title, .string("theirs, again")) }
        try s.sendB()
        realm.refresh()
        #expect(changes.last == "update 2 -[] +[] ~[0]")
        #expect(titles.first?.winningValue == .value(.string("theirs, again")))

        // Dismissing and keeping remove entries: deletions.
        let frozen = titles.freeze()
        try realm.dismiss(titles[1])
        realm.refresh()
        #expect(changes.last == "update 1 -[1] +[] ~[]")
        try realm.keepLosingValue(titles[0])
        realm.refresh()
        #expect(changes.last == "update 0 -[0] +[] ~[]")
        #expect(titles.isEmpty)
        // A frozen collection keeps the version it was frozen at.
        #expect(frozen.isFrozen && frozen.count == 2)
        #expect(!changes.contains { $0.hasPrefix("error") })
    }

    @Test func aDismissCommittedByAnotherProcessIsANotification() throws {
        let s = try Setup(ids: [1, 2])
        try s.conflict([1, 2], column: title, a: .string("mine"), b: .string("theirs"))
        let realm = try s.realm()
        let all = realm.conflicts
        var updates: [String] = []
        let token = all.observe { change in
            if case .update(let c, let d, let i, let m) = change { updates.append("\(c.count) -\(d) +\(i) ~\(m)") }
        }
        defer { token.invalidate() }
        #expect(all.count == 2)
        // The test helper, another process, removes every entry of the file's ledger.
        let helper = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("AtollTestHelper")
        let output = try SpawnedProcess.run(helper.path, ["dismiss-conflicts", s.directory + "/a.atoll"])
        #expect(output.status == 0 && output.stdoutText == "ok 2\n", "\(output.stdoutText)")
        #expect(all.count == 2, "the realm reads its version until it refreshes")
        realm.refresh()
        #expect(updates == ["0 -[0, 1] +[] ~[]"])
        #expect(all.isEmpty)
    }

    @Test func observingOnAQueueDeliversThereAfterEveryCommit() throws {
        let s = try Setup(ids: [1])
        let realm = try s.realm()
        let queue = DispatchQueue(label: "conflicts")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        final class Log: @unchecked Sendable {
            // Written on the delivery queue, read by the test under the lock.
            private let lock = NSLock()
            private var entries: [String] = []
            func add(_ e: String) { lock.lock(); entries.append(e); lock.unlock() }
            var all: [String] { lock.lock(); defer { lock.unlock() }; return entries }
            func wait(for count: Int) -> Bool {
                for _ in 0..<1_000 where all.count < count { usleep(10_000) }
                return all.count >= count
            }
        }
        let log = Log()
        let token = realm.conflicts.filter("property == 'title'").observe(on: queue) { change in
            let here = DispatchQueue.getSpecific(key: key) == true ? "" : " (off the queue)"
            switch change {
            case .initial(let c): log.add("initial \(c.count)" + here)
            case .update(let c, let d, let i, let m): log.add("update \(c.count) -\(d) +\(i) ~\(m)" + here)
            case .error(let e): log.add("error \(e)")
            }
        }
        #expect(log.wait(for: 1))
        // A merge committed by the replica (not through a realm): the queue's realm refreshes.
        try s.conflict([1], column: title, a: .string("mine"), b: .string("theirs"))
        #expect(log.wait(for: 2))
        #expect(log.all == ["initial 0", "update 1 -[] +[0] ~[]"])
        token.invalidate()
        queue.sync {}
        realm.refresh()
        try realm.dismiss(try #require(realm.conflicts.first))
        usleep(50_000)
        queue.sync {}
        #expect(log.all.count == 2)
    }

    @Test func retentionPruningShowsAsDeletions() throws {
        let s = try Setup(ids: [1, 2, 3], retention: ConflictRetention(countMax: 2))
        try s.conflict([1, 2], column: title, a: .string("a"), b: .string("b"))
        let realm = try s.realm()
        let all = realm.conflicts
        #expect(all.map(\.primaryKey) == [.int(1), .int(2)])
        var updates: [(deletions: [Int], insertions: [Int])] = []
        let token = all.observe { change in
            if case .update(_, let d, let i, _) = change { updates.append((d, i)) }
        }
        defer { token.invalidate() }
        // A third conflict: the oldest entry goes.
        try s.conflict([3], column: title, a: .string("a"), b: .string("b"))
        realm.refresh()
        #expect(updates.count == 1)
        #expect(updates.first?.deletions == [0] && updates.first?.insertions == [1])
        #expect(all.map(\.primaryKey) == [.int(2), .int(3)])
    }

    @Test func anObjectsConflictsAreLiveAndItsOwn() throws {
        let s = try Setup(ids: [1])
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: s.directory + "/a.atoll"),
                                                                 objectTypes: [Person.self]))
        let ann = try #require(realm.object(ofType: Person.self, forPrimaryKey: "ann"))
        #expect(ann.conflicts.isEmpty)
        var counts: [Int] = []
        let token = ann.conflicts.observe { change in
            switch change {
            case .initial(let c), .update(let c, _, _, _): counts.append(c.count)
            case .error: counts.append(-1)
            }
        }
        defer { token.invalidate() }
        let age = 1
        // An item's conflict is not ann's.
        try s.conflict([1], column: title, a: .string("mine"), b: .string("theirs"))
        try s.a.db.write { w in try w.people().set(try #require(try w.people().find(primaryKey: .string("ann"))), age, .int(30)) }
        try s.stampA()
        s.clock.advance(10)
        try s.b.db.write { w in try w.people().set(try #require(try w.people().find(primaryKey: .string("ann"))), age, .int(40)) }
        try s.sendB()
        realm.refresh()
        #expect(counts == [0, 1])
        let c = try #require(ann.conflicts.first)
        #expect(c.className == "Person" && c.primaryKey == .string("ann") && c.property == "age")
        #expect(c.losingValue == .value(.int(30)) && c.winningValue == .value(.int(40)))
        #expect(ann.age == 40)
        #expect(realm.conflicts.count == 2)
        #expect(Person().conflicts.isEmpty)
    }
}
