import AtollStorage
@testable import AtollSync
import Foundation
import Testing

/// Remote changesets reach an indexed set through the same storage writes as local changes:
/// after merging concurrent inserts, removals and an object's deletion, the index on the
/// receiving node equals its data (`verify` compares them entry by entry) and lookups find
/// exactly the objects whose sets hold each element.
@Suite struct CollectionIndexSyncTests {
    typealias B = TestSchema.Bag

    @Test func applyingRemoteChangesKeepsAnIndexedSetExact() throws {
        let clock = ManualClock()
        let a = try TestNode(clock: clock, collections: true), b = try TestNode(clock: clock, collections: true)
        try b.db.write { w in try w.setIndexed(try w.bags().key, B.labels, true) }
        try a.db.write { w in
            for id in 1...40 {
                let k = try w.bags().create(primaryKey: .int(Int64(id)))
                for j in 0..<(id % 6) { try w.bags().setInsert(k, B.labels, .string("l\((id + j) % 9)")) }
            }
        }
        let base = try a.outgoing(after: 0)
        try b.replica.apply(base)
        clock.advance(10)
        try a.db.write { w in
            for id in stride(from: 1, through: 40, by: 3) {
                let k = ObjectKey(primaryKey: Int64(id))
                try w.bags().setRemove(k, B.labels, .string("l\(id % 9)"))
                try w.bags().setInsert(k, B.labels, .string("new"))
            }
            try w.bags().erase(ObjectKey(primaryKey: 5))
            try w.bags().setClear(ObjectKey(primaryKey: 7), B.labels)
        }
        try b.db.write { w in
            for id in stride(from: 2, through: 40, by: 4) { try w.bags().setInsert(ObjectKey(primaryKey: Int64(id)), B.labels, .string("fromB")) }
        }
        try b.replica.apply(try a.outgoing(after: base.last?.seq ?? 0))
        _ = try b.db.verify()
        try b.db.read { r in
            let bags = try r.bags()
            #expect(bags.hasIndex(B.labels))
            var holders: [String: Set<ObjectKey>] = [:]
            for k in try bags.objectKeys() {
                for case .string(let s) in try bags.listValues(k, B.labels) { holders[s, default: []].insert(k) }
            }
            #expect(holders["new"]?.isEmpty == false && holders["fromB"]?.isEmpty == false)
            for label in ["l0", "l1", "l4", "l8", "new", "fromB", "none"] {
                #expect(Set(try bags.findAll(setIndexed: B.labels, containing: .string(label))) == holders[label] ?? [], "\(label)")
                #expect(try bags.countAll(setIndexed: B.labels, containing: .string(label)) == (holders[label] ?? []).count, "\(label) counted")
            }
        }
    }
}
