import AtollStorage
@testable import AtollSync
import Foundation
import Testing

/// A mixed value that links an object (a typed link, `AnyRealmValue.object`) travels as the
/// target's class and primary key (changeset body format 5), in a property, a list, a set and a
/// map of mixed values, and merges like any link: the later write wins, a link to a deleted
/// target shows nil and points again when the target is re-created (docs/SYNC.md, "Typed links").
@Suite struct TypedLinkSyncTests {
    static let holder = TableSpec(name: "Holder", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "value", type: .mixed, isNullable: true),
        ColumnSpec(name: "items", type: .mixed, isNullable: true, isList: true),
        ColumnSpec(name: "dict", type: .mixed, isNullable: true, isMap: true),
        ColumnSpec(name: "bag", type: .mixed, isNullable: true, isSet: true),
    ], primaryKey: "id")
    /// A class without a primary key: sync cannot address its objects.
    static let note = TableSpec(name: "Note", columns: [ColumnSpec(name: "text", type: .string)])
    enum H { static let value = 1, items = 2, dict = 3, bag = 4 }
    static let one = ObjectKey(primaryKey: 1)

    /// A node whose file has Person, Holder and Note; Note does not sync.
    final class Node {
        let db: Database
        let replica: SyncReplica
        init(clock: ManualClock) throws {
            db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "typed-link-\(UUID().uuidString)"))
            try db.write { w in
                try w.createTable(TestSchema.person)
                try w.createTable(TypedLinkSyncTests.holder)
                try w.createTable(TypedLinkSyncTests.note)
            }
            replica = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "typed", classes: ["Person", "Holder"], physicalClock: clock.function))
        }

        func outgoing(after seq: UInt64) throws -> [Changeset] { try AnyRealmValueSyncTests.outgoing(replica, after: seq) }
        func dump() throws -> String { try canonicalDump(db) }

        /// The holder's value, items, dict and bag as the dump shows them.
        func shown() throws -> String {
            try dump().split(separator: "\n").first { $0.hasPrefix("  1:") }.map(String.init) ?? "no holder"
        }
    }

    static func person(_ w: WriteTransaction, _ name: String) throws -> (TableKey, ObjectKey) {
        let people = try w.people()
        if let k = try people.find(primaryKey: .string(name)) { return (people.key, k) }
        return (people.key, try people.create(primaryKey: .string(name)))
    }

    static func holders(_ w: WriteTransaction) throws -> Table { try w.table(named: "Holder").unwrapped("Holder") }

    @Test func aTypedLinkTravelsByClassAndPrimaryKeyInAPropertyAListASetAndAMap() throws {
        let clock = ManualClock()
        let a = try Node(clock: clock), b = try Node(clock: clock)
        try a.db.write { w in
            let (people, ann) = try Self.person(w, "ann")
            let (_, bob) = try Self.person(w, "bob")
            let h = try Self.holders(w)
            let k = try h.create(primaryKey: .int(1))
            try h.set(k, H.value, .typedLink(people, ann))
            for (i, v) in [StorageValue.typedLink(people, ann), .int(1), .typedLink(people, bob)].enumerated() { try h.listInsert(k, H.items, at: i, v) }
            try h.mapSet(k, H.dict, key: "lead", .typedLink(people, bob))
            try h.mapSet(k, H.dict, key: "n", .int(2))
            try h.setInsert(k, H.bag, .typedLink(people, ann))
        }
        let sent = try a.outgoing(after: 0)
        #expect(sent.first?.body.first == ChangesetContent.typedLinksFormatVersion, "a transaction with a typed link is format 5")
        try b.replica.apply(sent)
        try b.replica.checkInvariants()
        #expect(try a.dump() == b.dump())
        #expect(try b.shown() == "  1: value=->Person:\"ann\" items=[->Person:\"ann\",1,->Person:\"bob\"] dict={lead:->Person:\"bob\",n:2} bag=<->Person:\"ann\">")
        // The link names b's own object.
        try b.db.read { r in
            let people = try r.people()
            let h = try r.table(named: "Holder").unwrapped("Holder")
            #expect(try h.value(Self.one, H.value) == .typedLink(people.key, try #require(try people.find(primaryKey: .string("ann")))))
        }
        // Changes back from b take the same way.
        clock.advance(5)
        try b.db.write { w in
            let (people, bob) = try Self.person(w, "bob")
            try Self.holders(w).set(Self.one, H.value, .typedLink(people, bob))
            try Self.holders(w).listRemove(Self.one, H.items, at: 0)
        }
        try a.replica.apply(try b.outgoing(after: 0))
        #expect(try a.dump() == b.dump())
        #expect(try a.shown().hasPrefix("  1: value=->Person:\"bob\" items=[1,->Person:\"bob\"]"))
    }

    @Test func concurrentWritesOfATypedLinkConvergeInEveryOrderAndTheLossIsInTheLedger() throws {
        let clock = ManualClock()
        let a = try Node(clock: clock), b = try Node(clock: clock), c = try Node(clock: clock)
        try a.db.write { w in
            for name in ["ann", "bob", "cid"] { _ = try Self.person(w, name) }
            _ = try Self.holders(w).create(primaryKey: .int(1))
        }
        let base = try a.outgoing(after: 0)
        try b.replica.apply(base)
        try c.replica.apply(base)
        clock.advance(10)
        try a.db.write { w in
            let (people, ann) = try Self.person(w, "ann")
            try Self.holders(w).set(Self.one, H.value, .typedLink(people, ann))
            try Self.holders(w).mapSet(Self.one, H.dict, key: "k", .typedLink(people, ann))
        }
        let fromA = try a.outgoing(after: base.last?.seq ?? 0)
        clock.advance(5)
        try b.db.write { w in
            let (people, bob) = try Self.person(w, "bob")
            try Self.holders(w).set(Self.one, H.value, .typedLink(people, bob))
            try Self.holders(w).mapSet(Self.one, H.dict, key: "k", .typedLink(people, bob))
        }
        let fromB = try b.outgoing(after: 0)
        try c.db.write { w in
            let (people, cid) = try Self.person(w, "cid")
            try Self.holders(w).listInsert(Self.one, H.items, at: 0, .typedLink(people, cid))
        }
        let fromC = try c.outgoing(after: 0)

        var dumps = Set<String>()
        var last: Node?
        for order in SetAndMapSyncTests.orders([fromA, fromB, fromC]) {
            let n = try Node(clock: clock)
            try n.replica.apply(base)
            for block in order { try n.replica.apply(block) }
            for block in order.reversed() { try n.replica.apply(block) }
            try n.replica.checkInvariants()
            dumps.insert(try n.dump())
            last = n
        }
        #expect(dumps.count == 1, "\(dumps)")
        let n = try #require(last)
        // b's writes are later: they win, with their class and key.
        #expect(try n.shown() == "  1: value=->Person:\"bob\" items=[->Person:\"cid\"] dict={k:->Person:\"bob\"} bag=<>")
        let conflicts = try Conflict.all(in: n.db)
        #expect(conflicts.contains { $0.kind == .concurrentWrite && $0.property == "value" && $0.losingValue == .typedLink(className: "Person", primaryKey: .string("ann")) })
        #expect(conflicts.contains { $0.kind == .mapEntryWrite && $0.mapKey == "k" && $0.losingValue == .typedLink(className: "Person", primaryKey: .string("ann")) })
        // Keeping the losing typed link writes it again, on the node's own object.
        let entry = try #require(conflicts.first { $0.kind == .concurrentWrite && $0.property == "value" })
        try entry.keepLosingValue(in: n.db)
        #expect(try n.shown().hasPrefix("  1: value=->Person:\"ann\""))
    }

    @Test func aLinkToADeletedTargetShowsNilAndPointsAgainWhenTheTargetIsRecreated() throws {
        let clock = ManualClock()
        let a = try Node(clock: clock), b = try Node(clock: clock)
        try a.db.write { w in
            let (people, ann) = try Self.person(w, "ann")
            let h = try Self.holders(w)
            let k = try h.create(primaryKey: .int(1))
            try h.set(k, H.value, .typedLink(people, ann))
            try h.listInsert(k, H.items, at: 0, .int(0))
            try h.listInsert(k, H.items, at: 1, .typedLink(people, ann))
            try h.mapSet(k, H.dict, key: "k", .typedLink(people, ann))
            try h.setInsert(k, H.bag, .typedLink(people, ann))
        }
        var seqA = UInt64(0), seqB = UInt64(0)
        func exchange() throws {
            let fromA = try a.outgoing(after: seqA), fromB = try b.outgoing(after: seqB)
            seqA = fromA.last?.seq ?? seqA
            seqB = fromB.last?.seq ?? seqB
            try b.replica.apply(fromA)
            try a.replica.apply(fromB)
            try a.replica.checkInvariants()
            try b.replica.checkInvariants()
        }
        try exchange()
        let linked = "  1: value=->Person:\"ann\" items=[0,->Person:\"ann\"] dict={k:->Person:\"ann\"} bag=<->Person:\"ann\">"
        #expect(try b.shown() == linked)

        // Deleted on a (a local delete: the engine nulls the links) and applied on b (a remote
        // delete): nil in the property and the map, gone from the list and the set, on both.
        clock.advance(10)
        try a.db.write { w in try w.people().erase(try #require(try w.people().find(primaryKey: .string("ann")))) }
        try exchange()
        let unlinked = "  1: value=null items=[0] dict={k:null} bag=<>"
        #expect(try a.shown() == unlinked)
        #expect(try b.shown() == unlinked)
        #expect(try a.dump() == b.dump())

        // Re-created on b (applied on a as a remote create): every link points again.
        clock.advance(10)
        try b.db.write { w in _ = try Self.person(w, "ann") }
        try exchange()
        #expect(try a.shown() == linked)
        #expect(try b.shown() == linked)

        // Deleted and re-created locally on a, in two commits: the same.
        clock.advance(10)
        try a.db.write { w in try w.people().erase(try #require(try w.people().find(primaryKey: .string("ann")))) }
        #expect(try a.shown() == unlinked)
        _ = try a.outgoing(after: seqA)
        try a.db.write { w in _ = try Self.person(w, "ann") }
        try exchange()
        #expect(try a.shown() == linked)
        #expect(try b.shown() == linked)
        #expect(try a.dump() == b.dump())

        // A newer write of the property ends the memory: re-creating the target no longer links it.
        clock.advance(10)
        try a.db.write { w in try w.people().erase(try #require(try w.people().find(primaryKey: .string("ann")))) }
        try exchange()
        try b.db.write { w in try Self.holders(w).set(Self.one, H.value, .string("plain")) }
        try exchange()
        try a.db.write { w in _ = try Self.person(w, "ann") }
        try exchange()
        #expect(try b.shown() == "  1: value=\"plain\" items=[0,->Person:\"ann\"] dict={k:->Person:\"ann\"} bag=<->Person:\"ann\">")
        #expect(try a.dump() == b.dump())
    }

    @Test func aTypedLinkArrivingBeforeItsTargetShowsNilUntilTheTargetComes() throws {
        let clock = ManualClock()
        let a = try Node(clock: clock), b = try Node(clock: clock)
        // The link names a person b has never seen (its create comes from a third node).
        let third = NodeID(high: 77, low: 1)
        let content = ChangesetContent(classes: ["Holder"], properties: ["value", "items"], instructions: [
            .create(ObjectAddress(classIndex: 0, primaryKey: .int(1))),
            .set(ObjectAddress(classIndex: 0, primaryKey: .int(1)), property: 0, value: .typedLink(className: "Person", primaryKey: .string("zed"))),
            .listInsert(ObjectAddress(classIndex: 0, primaryKey: .int(1)), property: 1, after: nil, lamport: 1,
                        value: .typedLink(className: "Person", primaryKey: .string("zed"))),
        ])
        try b.replica.apply([Changeset(origin: third, seq: 1, hlc: clock.now << 16, body: content.encode(origin: third))])
        #expect(try b.shown() == "  1: value=null items=[] dict={} bag=<>")
        clock.advance(5)
        try a.db.write { w in _ = try Self.person(w, "zed") }
        try b.replica.apply(try a.outgoing(after: 0))
        try b.replica.checkInvariants()
        #expect(try b.shown() == "  1: value=->Person:\"zed\" items=[->Person:\"zed\"] dict={} bag=<>")
    }

    @Test func aTypedLinkToAClassThatDoesNotSyncIsRefusedNamingTheProperty() throws {
        let clock = ManualClock()
        let a = try Node(clock: clock)
        try a.db.write { w in
            let notes = try w.table(named: "Note").unwrapped("Note")
            let n = try notes.create()
            let h = try Self.holders(w)
            let k = try h.create(primaryKey: .int(1))
            try h.set(k, H.value, .typedLink(notes.key, n))
        }
        #expect {
            try a.replica.extractLocalChanges()
        } throws: { error in
            guard let e = error as? AtollError else { return false }
            return e.kind == .typeMismatch && e.message.contains("'Holder.value'") && e.message.contains("'Note' has no primary key")
        }
    }

    @Test func aNestedCollectionInAMixedValueIsStillRefusedNamingTheProperty() throws {
        let clock = ManualClock()
        let a = try Node(clock: clock)
        try a.db.write { w in
            let h = try Self.holders(w)
            let k = try h.create(primaryKey: .int(1))
            try h.set(k, H.value, .mixedList([.int(1)]))
        }
        #expect {
            try a.replica.extractLocalChanges()
        } throws: { error in
            guard let e = error as? AtollError else { return false }
            return e.kind == .typeMismatch && e.message.contains("'Holder.value'") && e.message.contains("nested list or dictionary")
        }
    }

    @Test func existingTypedLinksBecomeChangesetsWhenSyncStartsAndARelaySnapshotCarriesThem() throws {
        let clock = ManualClock()
        // Data written before sync starts: the bootstrap carries it.
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "typed-link-boot-\(UUID().uuidString)"))
        try db.write { w in
            try w.createTable(TestSchema.person)
            try w.createTable(Self.holder)
            try w.createTable(Self.note)
            let (people, ann) = try Self.person(w, "ann")
            let h = try Self.holders(w)
            let k = try h.create(primaryKey: .int(1))
            try h.set(k, H.value, .typedLink(people, ann))
            try h.listInsert(k, H.items, at: 0, .typedLink(people, ann))
            try h.mapSet(k, H.dict, key: "k", .typedLink(people, ann))
        }
        let replica = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "typed", classes: ["Person", "Holder"], physicalClock: clock.function))
        let boot = try AnyRealmValueSyncTests.outgoing(replica, after: 0)
        #expect(boot.contains { $0.body.first == ChangesetContent.typedLinksFormatVersion })
        let b = try Node(clock: clock)
        try b.replica.apply(boot)
        #expect(try canonicalDump(db) == b.dump())

        // The relay folds them into its compacted history; a new node gets it as a snapshot.
        let relayDB = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "relay-base-\(UUID())"))
        try relayDB.write { w in
            for cs in boot { try RelayBase.fold(cs, realm: 1, into: w) }
        }
        let relay = NodeID(high: 1, low: 2)
        var bodies: [[UInt8]] = []
        try relayDB.read { r in
            var after: [UInt8]?
            repeat {
                let (body, last) = try RelayBase.chunk(realm: 1, after: after, relay: relay, bytesMax: 1 << 20, in: r)
                bodies.append(body)
                after = last
            } while after != nil
        }
        let n = try Node(clock: clock)
        for (i, body) in bodies.enumerated() {
            try n.replica.applySnapshot(body, index: UInt64(i), relay: relay,
                                        completion: i == bodies.count - 1 ? (VersionVector(), DownloadCursor(relayID: relay, seq: 0)) : nil)
        }
        try n.replica.checkInvariants()
        #expect(try n.dump() == b.dump())
        #expect(try n.shown() == "  1: value=->Person:\"ann\" items=[->Person:\"ann\"] dict={k:->Person:\"ann\"} bag=<>")
    }

    /// The changeset fuzzer's seed corpus (byte 0 picks a body, a snapshot or a batch, as in
    /// tools/fuzz/AtollFuzz/Sources/fuzz-changeset) still decodes, or is refused as malformed.
    @Test func theChangesetFuzzCorpusStillDecodesOrIsRefusedCleanly() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fixtures/fuzz/changeset").standardizedFileURL
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(!names.isEmpty)
        let origin = NodeID(high: 0x0102_0304_0506_0708, low: 0x090A_0B0C_0D0E_0F10)
        func body(_ bytes: [UInt8], from node: NodeID, snapshot: Bool) throws {
            if snapshot {
                try bytes.withUnsafeBytes { buffer in
                    var d = try ChangesetBodyDecoder(buffer, origin: node, snapshot: true)
                    while try d.next() != nil {}
                }
            } else {
                let content = try ChangesetContent.decode(bytes, origin: node)
                #expect(try ChangesetContent.decode(content.encode(origin: node), origin: node) == content)
            }
        }
        for name in names {
            let input = Array(try Data(contentsOf: directory.appendingPathComponent(name)))
            guard let mode = input.first else { continue }
            let rest = Array(input.dropFirst())
            do {
                if mode & 2 != 0 {
                    for c in try ChangesetBatch.decode(rest) { try body(c.body, from: c.origin, snapshot: mode & 1 != 0) }
                } else {
                    try body(rest, from: origin, snapshot: mode & 1 != 0)
                }
            } catch let e as AtollError {
                #expect(e.kind == .protocolViolation, "\(name): \(e)")
            }
        }
    }

    @Test func format5CarriesTypedLinksAndIsRefusedWhereItDoesNotBelong() throws {
        let origin = NodeID(high: 3, low: 4)
        let h = ObjectAddress(classIndex: 0, primaryKey: .int(7))
        let content = ChangesetContent(classes: ["Holder", "Person"], properties: ["value", "dict"], instructions: [
            .set(h, property: 0, value: .typedLink(className: "Person", primaryKey: .string("ann"))),
            .mapSet(h, property: 1, key: "k", value: .typedLink(className: "Holder", primaryKey: .int(-3))),
        ])
        let body = content.encode(origin: origin)
        #expect(body.first == 5)
        #expect(try ChangesetContent.decode(body, origin: origin) == content)
        // A typed link in a body that says format 4 (or 3) is malformed.
        for format: UInt8 in [3, 4] {
            var mislabelled = body
            mislabelled[0] = format
            #expect { try ChangesetContent.decode(mislabelled, origin: origin) } throws: { e in
                (e as? AtollError)?.kind == .protocolViolation && "\(e)".contains("before 5")
            }
        }
        // A typed link naming a class the body does not have, or keyed by a link, is malformed.
        let lone = ChangesetContent(classes: ["Holder"], properties: ["value"], instructions: [
            .set(h, property: 0, value: .typedLink(className: "Holder", primaryKey: .int(1))),
        ]).encode(origin: origin)
        var badClass = lone
        guard let at = badClass.lastIndex(of: ChangesetContent.typedLinkTag) else { Issue.record("no typed link tag"); return }
        badClass[at + 1] = 9
        #expect { try ChangesetContent.decode(badClass, origin: origin) } throws: { ($0 as? AtollError)?.kind == .protocolViolation }
        var badKey = lone
        badKey.replaceSubrange((at + 2)..., with: [StorageValue.Tag.double.rawValue] + [UInt8](repeating: 0, count: 8))
        #expect { try ChangesetContent.decode(badKey, origin: origin) } throws: { e in
            (e as? AtollError)?.kind == .protocolViolation && "\(e)".contains("primary key cannot be a double")
        }
        // The fuzzer's seed of format 5 (tools/fuzz/AtollFuzz/Sources/fuzz-changeset) is this body.
        let fuzzAddress = ObjectAddress(classIndex: 0, primaryKey: .string("a"))
        let seed = ChangesetContent(classes: ["Holder", "Person"], properties: ["value", "items"], instructions: [
            .set(fuzzAddress, property: 0, value: .typedLink(className: "Person", primaryKey: .string("ann"))),
            .listInsert(fuzzAddress, property: 1, after: nil, lamport: 1, value: .typedLink(className: "Holder", primaryKey: .int(3))),
        ])
        let seedFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fixtures/fuzz/changeset/body-typed-link").standardizedFileURL
        #expect(Array(try Data(contentsOf: seedFile)) == [0] + seed.encode(origin: origin))
        // A table-local typed link (storage's form) never travels.
        let local = ChangesetContent(classes: ["Holder"], properties: ["value"], instructions: [
            .set(h, property: 0, value: .value(.typedLink(TableKey(1), ObjectKey(2)))),
        ])
        #expect { try ChangesetContent.decode(local.encode(origin: origin), origin: origin) } throws: { ($0 as? AtollError)?.kind == .protocolViolation }
        // A typed link into a property that is not mixed is refused when applied.
        let clock = ManualClock()
        let n = try Node(clock: clock)
        let intoLink = ChangesetContent(classes: ["Person"], properties: ["age"], instructions: [
            .set(ObjectAddress(classIndex: 0, primaryKey: .string("ann")), property: 0, value: .typedLink(className: "Person", primaryKey: .string("ann"))),
        ])
        #expect { try n.replica.apply([Changeset(origin: origin, seq: 1, hlc: clock.now << 16, body: intoLink.encode(origin: origin))]) } throws: { e in
            (e as? AtollError)?.kind == .protocolViolation && "\(e)".contains("not a mixed property")
        }
    }
}
