import Foundation
import Testing
@testable import AtollStorage

/// An increment that makes a leaf's integer column wider can make the leaf outgrow its page;
/// `addInteger` then splits it, as `set` does. (It did not: the commit failed with "internal
/// error: cluster leaf of 198 rows does not fit a page", and sync merges increments.)
@Suite struct IncrementSplitTests {
    @Test func anIncrementThatOutgrowsItsLeafSplitsIt() throws {
        let spec = TableSpec(name: "Item", columns: [
            ColumnSpec(name: "id", type: .int),
            ColumnSpec(name: "title", type: .string),
            ColumnSpec(name: "count", type: .int),
        ], primaryKey: "id")
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "increment-split-\(UUID().uuidString)"))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(spec))
        for i in 0..<1200 {
            let k = try t.create(primaryKey: .int(Int64(i)))
            try t.set(k, 1, .string(String(format: "item-%04d", i)))
        }
        _ = try w.commit()
        let w2 = try db.beginWrite()
        try w2.table(named: "Item")?.addInteger(ObjectKey(primaryKey: 10), 2, 5)
        _ = try w2.commit()
        let r = try db.beginRead()
        defer { r.close() }
        #expect(try r.table(named: "Item")?.value(ObjectKey(primaryKey: 10), 2) == .int(5))
        #expect(try r.table(named: "Item")?.value(ObjectKey(primaryKey: 11), 1) == .string("item-0011"))
        _ = try db.verify()
    }
}
