import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

@Suite struct InternalTreeTests {
    private func key(_ i: Int) -> [UInt8] {
        var w = ByteWriter(); w.u64BigEndian(UInt64(i)); return w.bytes
    }

    @Test func putGetDeleteAndScanCommitAtomicallyAndSurviveReopen() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("db.atoll")
        do {
            let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe))
            let w = try db.beginWrite()
            for i in 0..<2000 { try w.putInternal("test.a", key: key(i), value: Array(repeating: UInt8(i & 255), count: i % 50)) }
            try w.putInternal("test.b", key: Array("big".utf8), value: Array(repeating: 7, count: 100_000))
            #expect(try w.internalValue("test.a", key: key(10)) == Array(repeating: 10, count: 10))
            #expect(try w.deleteInternal("test.a", key: key(11)))
            #expect(try !w.deleteInternal("test.a", key: key(11)))
            try w.commit()

            // A rolled-back change is not visible.
            let w2 = try db.beginWrite()
            try w2.putInternal("test.a", key: key(5), value: [1, 2, 3])
            w2.rollback()
        }
        let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe))
        let r = try db.beginRead()
        defer { r.close() }
        #expect(try r.internalValue("test.a", key: key(5)) == Array(repeating: 5, count: 5))
        #expect(try r.internalValue("test.a", key: key(11)) == nil)
        #expect(try r.internalValue("test.b", key: Array("big".utf8))?.count == 100_000)
        var seen: [Int] = []
        try r.forEachInternalEntry("test.a", from: key(100)) { k, _ in
            seen.append(Int(UInt64(bigEndian: k.loadUnaligned(as: UInt64.self))))
            return seen.count < 5
        }
        #expect(seen == [100, 101, 102, 103, 104])
        #expect(try r.lastInternalEntry("test.a", prefix: [])?.key == key(1999))
        #expect(try r.internalTreeNames() == ["test.a", "test.b"])
        // What each tree holds: 1,999 keys of 8 bytes, values of i % 50 bytes (key 11 deleted,
        // key 10 holding 10 bytes), and one 3-byte key with 100,000 bytes.
        let valueBytes = (0..<2000).filter { $0 != 11 }.reduce(0) { $0 + $1 % 50 }
        #expect(try db.internalTreeUsage() == [
            InternalTreeUsage(name: "test.a", entries: 1999, bytes: 1999 * 8 + valueBytes),
            InternalTreeUsage(name: "test.b", entries: 1, bytes: 3 + 100_000),
        ])
        // Internal trees write nothing into the transaction log and no table appears.
        #expect(r.tableKeys.isEmpty)
        _ = try r.verify()
    }

    @Test func verifyCompactionAndTailRelocationCoverInternalTrees() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("db.atoll")
        let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe))
        // Enough data that deleting most of it makes free space dominate (tail relocation).
        var w = try db.beginWrite()
        let tk = try w.createTable(TableSpec(name: "Note", columns: [ColumnSpec(name: "id", type: .int), ColumnSpec(name: "text", type: .string)],
                                             primaryKey: "id"))
        let t = try w.table(tk)
        for i in 0..<3000 {
            let k = try t.create(primaryKey: .int(Int64(i)))
            try t.set(k, 1, .string(String(repeating: "d", count: 900)))
        }
        try w.commit()
        w = try db.beginWrite()
        for i in 0..<3000 { try w.putInternal("test.meta", key: key(i), value: Array(repeating: 9, count: 40)) }
        try w.commit()
        let pagesBefore = try db.beginRead().rootRecord.pageCount
        w = try db.beginWrite()
        try w.table(tk).clear()
        try w.commit()
        for i in 0..<3 {
            w = try db.beginWrite()
            if i == 0 { w.setSyncHistoryRetained(from: w.newVersion) }
            try w.table(tk).create(primaryKey: .int(Int64(i)))
            try w.commit()
        }
        #expect(try db.beginRead().rootRecord.pageCount < pagesBefore / 2)
        _ = try db.verify()
        let r = try db.beginRead()
        #expect(try r.internalValue("test.meta", key: key(2999)) == Array(repeating: 9, count: 40))
        #expect(try !r.loggedVersions().isEmpty)
        let retained = try r.loggedVersions()
        r.close()

        // A compacted copy keeps the internal trees and the logs sync still needs.
        let copyPath = dir.file("copy.atoll")
        try db.writeCopy(to: copyPath)
        let copy = try Database.open(DatabaseConfiguration(path: copyPath, durability: .unsafe))
        _ = try copy.verify()
        let c = try copy.beginRead()
        defer { c.close() }
        #expect(try c.internalValue("test.meta", key: key(1234)) == Array(repeating: 9, count: 40))
        #expect(try c.loggedVersions() == retained)
        #expect(c.rootRecord.syncHistoryRetainedFrom == r.rootRecord.syncHistoryRetainedFrom)
    }

    /// Deleting the keys of a deep tree (long keys, low fan-out) in order leaves inner nodes with
    /// a single child; they must merge into a sibling or stay, never be replaced by their child
    /// (which puts leaves at unequal depths).
    @Test func deletingInOrderKeepsLeavesAtOneDepth() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "sparse-\(UUID())"))
        func longKey(_ i: Int) -> [UInt8] { Array(repeating: 0x64, count: 64) + key(i) }
        var w = try db.beginWrite()
        let n = 5000
        for i in 0..<n { try w.putInternal("t", key: longKey(i), value: [1, 2, 3, 4, 5, 6, 7, 8]) }
        try w.commit()
        w = try db.beginWrite()
        for i in 0..<n where i % 1000 != 999 { try w.deleteInternal("t", key: longKey(i)) }
        try w.commit()
        _ = try db.verify()
        let r = try db.beginRead()
        defer { r.close() }
        var count = 0
        try r.forEachInternalEntry("t", from: []) { _, _ in count += 1; return true }
        #expect(count == 5)
    }
}
