import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// Mapping growth, limits, statistics, active-version bounds, copies and in-memory databases.
@Suite struct MaintenanceTests {
    static let docSpec = TableSpec(name: "Doc", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "text", type: .string, isIndexed: true),
        ColumnSpec(name: "blob", type: .binary, isNullable: true),
    ], primaryKey: "id")

    func insert(_ db: Database, _ range: Range<Int>, blobBytes: Int) throws {
        let w = try db.beginWrite()
        let t = try #require(try w.table(named: "Doc"))
        for i in range {
            let k = try t.create(primaryKey: .int(Int64(i)))
            try t.set(k, 1, .string("text \(i)"))
            if blobBytes > 0 { try t.set(k, 2, .binary([UInt8](repeating: UInt8(i & 255), count: blobBytes))) }
        }
        try w.commit()
    }

    /// With a 1 MiB address-space reservation the file crosses reservations several times,
    /// inside one write transaction and across commits. A snapshot taken before keeps reading
    /// the same values, through pointers into the old mapping too, and verifies. Encrypted:
    /// the decrypted mirror crosses its reservations too.
    @Test(arguments: [false, true])
    func snapshotsStayValidWhileTheFileOutgrowsItsMappings(encrypted: Bool) throws {
        let dir = TemporaryDirectory()
        var config = DatabaseConfiguration(path: dir.file("remap.atoll"), durability: .unsafe, encryptionKey: encrypted ? .random() : nil)
        config.mappingReservationBytesMin = 1 << 20
        let db = try Database.open(config)
        let setup = try db.beginWrite()
        try setup.createTable(Self.docSpec)
        try setup.commit()
        try insert(db, 0..<300, blobBytes: 0)

        let old = try db.beginRead()
        let oldTable = try #require(try old.table(named: "Doc"))
        let h = try #require(try oldTable.locate(ObjectKey(primaryKey: 7)))
        let pointer = try #require(try oldTable.bytes(h, 1)) // in the first mapping
        let before = Array(pointer)
        let baseBefore = old.space.base

        try insert(db, 300..<3300, blobBytes: 3000)   // ~10 MiB in one transaction
        for round in 0..<4 { try insert(db, (3300 + round * 1000)..<(4300 + round * 1000), blobBytes: 2500) }
        let fresh = try db.beginRead()
        #expect(fresh.space.base != baseBefore, "the file should have been remapped")
        #expect(try fresh.table(named: "Doc")?.count == 7300)
        _ = try fresh.verify()
        fresh.close()

        #expect(Array(pointer) == before)
        #expect(oldTable.count == 300)
        for i in [0, 7, 150, 299] { #expect(try oldTable.value(ObjectKey(primaryKey: Int64(i)), 1) == .string("text \(i)")) }
        #expect(try oldTable.findAll(indexed: 1, equalTo: .string("text 3000")).isEmpty)
        _ = try old.verify()
        old.close()
    }

    @Test func valueAndNameLimitsAreEnforcedAtTheLimit() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "limits-\(UUID())"))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(Self.docSpec))
        let k = try t.create(primaryKey: .int(1))
        let limit = 16 << 20
        let big = String(repeating: "x", count: limit)
        try t.set(k, 1, .string(big))
        try t.set(k, 2, .binary([UInt8](repeating: 7, count: limit)))
        func isLimit(_ e: any Error) -> Bool { (e as? AtollError)?.kind == .limitExceeded && "\(e)".contains("16 MiB") }
        #expect { try t.set(k, 1, .string(big + "y")) } throws: { isLimit($0) }
        #expect { try t.set(k, 2, .binary([UInt8](repeating: 7, count: limit + 1))) } throws: { isLimit($0) }
        let list = try w.createTable(TableSpec(name: "L", columns: [ColumnSpec(name: "s", type: .string, isList: true)]))
        #expect { try w.table(list).listInsert(try w.table(list).create(), 0, at: 0, .string(big + "y")) } throws: { isLimit($0) }
        try w.commit()
        let r = try db.beginRead()
        defer { r.close() }
        let stored = try #require(try r.table(named: "Doc"))
        #expect(try stored.value(k, 1) == .string(big))
        #expect(try stored.findAll(indexed: 1, equalTo: .string(big)) == [k], "a 16 MiB indexed string is found through its prefix key")
        _ = try r.verify()

        func rejects(_ spec: TableSpec, _ fragment: String) {
            #expect { try spec.validate() } throws: { ($0 as? AtollError)?.kind == .limitExceeded && "\($0)".contains(fragment) }
        }
        let col = [ColumnSpec(name: "a", type: .int)]
        #expect(throws: Never.self) { try TableSpec(name: String(repeating: "c", count: 57), columns: col).validate() }
        rejects(TableSpec(name: String(repeating: "c", count: 58), columns: col), "the limit is 57")
        rejects(TableSpec(name: String(repeating: "é", count: 29), columns: col), "58 bytes") // 29 × 2 bytes
        #expect(throws: Never.self) { try TableSpec(name: "T", columns: [ColumnSpec(name: String(repeating: "p", count: 63), type: .int)]).validate() }
        rejects(TableSpec(name: "T", columns: [ColumnSpec(name: String(repeating: "p", count: 64), type: .int)]), "the limit is 63")
        rejects(TableSpec(name: "T", columns: [ColumnSpec(name: String(repeating: "ß", count: 32), type: .int)]), "64 bytes")
        let w2 = try db.beginWrite()
        #expect(throws: AtollError.self) { try w2.createTable(TableSpec(name: String(repeating: "c", count: 58), columns: col)) }
        #expect(throws: AtollError.self) { try w2.addColumn(try #require(w2.tableKey(named: "Doc")), ColumnSpec(name: String(repeating: "p", count: 64), type: .int)) }
        w2.rollback()
    }

    @Test func statisticsReportSpaceVersionsAndPins() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("stats.atoll")
        let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe))
        let setup = try db.beginWrite()
        try setup.createTable(Self.docSpec)
        try setup.commit()
        try insert(db, 0..<500, blobBytes: 100)
        let first = try db.beginRead()
        try insert(db, 500..<600, blobBytes: 100)
        let second = try db.beginRead()
        usleep(50_000)
        try insert(db, 600..<700, blobBytes: 100)
        let s = try db.stats()
        let actualSize = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
        #expect(s.version == second.version + 1)
        #expect(s.fileSizeBytes == actualSize)
        #expect(s.usedBytes > 0 && s.usedBytes + s.freeBytes == s.fileSizeBytes)
        #expect(s.liveVersions == 3)
        #expect(s.oldestPinnedVersion == first.version)
        #expect((s.oldestPinnedAgeSeconds ?? 0) >= 0.05)
        #expect(s.objectCounts.map(\.table) == ["Doc"] && s.objectCounts.map(\.objects) == [700])
        #expect(s.historyEntries >= 2, "logs after the oldest pinned version are kept")
        first.close()
        second.close()
        let idle = try db.stats()
        #expect(idle.liveVersions == 1 && idle.oldestPinnedVersion == nil && idle.oldestPinnedAgeSeconds == nil)
    }

    @Test func maximumActiveVersionsGivesAClearError() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "versions-\(UUID())", maximumActiveVersions: 2))
        let setup = try db.beginWrite()
        try setup.createTable(Self.docSpec)
        try setup.commit()
        let pinned = try db.beginRead()
        try insert(db, 0..<10, blobBytes: 0)               // live: pinned + newest = 2
        #expect { _ = try db.beginWrite() } throws: { e in
            (e as? AtollError)?.kind == .tooManyActiveVersions && "\(e)".contains("maximum of 2") && "\(e)".contains("oldest pinned version: \(pinned.version)")
        }
        pinned.close()
        #expect(throws: Never.self) { try self.insert(db, 10..<20, blobBytes: 0) }
    }

    /// `writeCopy` of an old snapshot writes that snapshot, compacted, while newer versions exist.
    @Test func writeCopyOfAnOldSnapshotIsCompactAndComplete() throws {
        let dir = TemporaryDirectory()
        let db = try Database.open(DatabaseConfiguration(path: dir.file("source.atoll"), durability: .unsafe))
        let setup = try db.beginWrite()
        try setup.createTable(Self.docSpec)
        try setup.commit()
        try insert(db, 0..<2000, blobBytes: 1500)
        let snapshot = try db.beginRead()
        let w = try db.beginWrite()
        for i in 100..<2000 { try w.table(named: "Doc")?.erase(ObjectKey(primaryKey: Int64(i))) }
        try w.commit()
        try snapshot.writeCopy(to: dir.file("old.atoll"))
        snapshot.close()
        try db.writeCopy(to: dir.file("new.atoll"))
        #expect(throws: AtollError.self) { try db.writeCopy(to: dir.file("new.atoll")) }

        for (name, rows) in [("old.atoll", 2000), ("new.atoll", 100)] {
            let copy = try Database.open(DatabaseConfiguration(path: dir.file(name), readOnly: true))
            let report = try copy.verify()
            #expect(report.freePages == 0, "\(name): a copy has no free pages")
            let r = try copy.beginRead()
            let t = try #require(try r.table(named: "Doc"))
            #expect(t.count == rows)
            #expect(try t.value(ObjectKey(primaryKey: 99), 2) == .binary([UInt8](repeating: 99, count: 1500)))
            #expect(try t.findAll(indexed: 1, equalTo: .string("text \(rows - 1)")) == [ObjectKey(primaryKey: Int64(rows - 1))])
            r.close()
        }
        let newSize = try FileManager.default.attributesOfItem(atPath: dir.file("new.atoll"))[.size] as? Int ?? 0
        let sourceSize = try db.stats().fileSizeBytes
        #expect(newSize < sourceSize / 4, "compacted copy \(newSize) bytes, source \(sourceSize)")
    }

    /// In-memory databases write no file and are shared by identifier within the process while
    /// any handle is open.
    @Test func inMemoryDatabasesAreSharedByIdentifierAndVanishWhenReleased() throws {
        let id = "shared-\(UUID())"
        do {
            let a = try Database.open(DatabaseConfiguration(inMemoryIdentifier: id))
            let b = try Database.open(DatabaseConfiguration(inMemoryIdentifier: id))
            #expect(a === b)
            #expect(a.configuration.path == nil && a.configuration.durability == .memoryOnly)
            let w = try a.beginWrite()
            try w.setMetadata("x", [42])
            try w.commit()
            let r = try b.beginRead()
            #expect(try r.metadata("x") == [42])
            r.close()
            let other = try Database.open(DatabaseConfiguration(inMemoryIdentifier: id + "-other"))
            let r2 = try other.beginRead()
            #expect(try r2.metadata("x") == nil)
            r2.close()
        }
        let again = try Database.open(DatabaseConfiguration(inMemoryIdentifier: id))
        let r = try again.beginRead()
        defer { r.close() }
        #expect(try r.metadata("x") == nil, "released, the in-memory database is gone")
    }

    /// The reader table is bounded: a process pins at most `slotCount - slotsReservedForOthers`
    /// versions (one slot each); the next version fails with a clear error that says who holds
    /// them, instead of blocking or overwriting a slot, while reads of versions it already pins
    /// still work; releasing a version makes room.
    @Test func readerSlotsAreBoundedWithAClearError() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "slots-\(UUID())"))
        func commit() throws {
            let w = try db.beginWrite()
            try w.setMetadata("x", [UInt8(truncatingIfNeeded: db.latestVersion)])
            try w.commit()
        }
        let share = LockFile.defaultSlotCount - LockFile.slotsReservedForOthers
        var readers: [ReadTransaction] = []
        for _ in 0..<share {
            try commit()
            readers.append(try db.beginRead())
        }
        #expect(db.readerSlots == (share, share))
        try commit()
        #expect { _ = try db.beginRead() } throws: { error in
            let message = "\(error)"
            return (error as? AtollError)?.kind == .tooManyReaders && message.contains("reader slots")
                && message.contains("process \(getpid()) (this process) holds \(share) versions")
        }
        // A version this process pins is shared, not a new slot.
        let again = try db.beginRead(sameVersionAs: readers[10])
        #expect(again.version == readers[10].version)
        again.close()
        readers.removeLast().close()
        #expect(throws: Never.self) { try db.beginRead().close() }
        for r in readers { r.close() }
        #expect(db.readerSlots == (0, 0))
    }

    /// Read transactions of one version share one reader slot, released with the last of them
    /// (closed or deinitialized, in any order).
    @Test func readersOfOneVersionShareOneSlot() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "share-\(UUID())"))
        var readers = try (0..<10_000).map { _ in try db.beginRead() }
        readers += try (0..<5_000).map { try db.beginRead(sameVersionAs: readers[$0]) }
        #expect(db.readerSlots == (1, 1))
        let w = try db.beginWrite()
        try w.setMetadata("x", [1])
        try w.commit()
        var newer: ReadTransaction? = try db.beginRead()
        #expect(db.readerSlots == (2, 2))
        for r in readers.prefix(7_000) { r.close() }
        readers.removeFirst(7_000)
        #expect(db.readerSlots == (2, 2), "8000 transactions still read the old version")
        readers.removeAll()   // deinitialized without close()
        #expect(db.readerSlots == (1, 1))
        newer = nil
        #expect(db.readerSlots == (0, 0))
        withExtendedLifetime(newer) {}
    }
}
