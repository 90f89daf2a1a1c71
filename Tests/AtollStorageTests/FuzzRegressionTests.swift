import Foundation
import Testing
@testable import AtollStorage
#if canImport(Glibc)
import Glibc
#endif

/// Inputs found by the libFuzzer targets (tools/fuzz): each one crashed, hung or misbehaved
/// before its fix, and must now end in an AtollError.
@Suite struct FuzzRegressionTests {
    /// One readable page followed by an inaccessible one, so a read past the page traps at once
    /// instead of silently reading whatever follows it in the map.
    final class GuardedPage {
        let base: UnsafeMutableRawPointer
        let size = FileFormat.pageSize

        init() throws {
            guard let p = mmap(nil, 2 * size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), p != MAP_FAILED else {
                throw AtollError(.ioError, "mmap failed")
            }
            base = p
            #expect(mprotect(p + size, size, PROT_NONE) == 0)
        }

        deinit { munmap(base, 2 * size) }
    }

    /// fuzz-file: a B+tree node whose cell count (u16 at 6) claims more cells than a page can
    /// hold made `cellOffset` read its slot from beyond the page (SIGBUS past the end of the
    /// file's map). The count is now checked against what fits before a slot is read.
    @Test func aBTreeNodeClaimingMoreCellsThanFitIsRefusedWithoutReadingPastItsPage() throws {
        let page = try GuardedPage()
        BTreeNode.initialize(page.base, leaf: true)
        page.base.setU16(6, 0xFFFF)
        let p = UnsafeRawPointer(page.base)
        for i in [0, 2039, 2040, 0xFFFE] {
            #expect(throws: AtollError.self) { try BTreeNode.cellOffset(p, i) }
            #expect(throws: AtollError.self) { try BTreeNode.key(p, i) }
        }
        let key: [UInt8] = [1, 2, 3]
        #expect(throws: AtollError.self) { try key.withUnsafeBytes { try BTreeNode.lowerBound(p, $0) } }
        #expect(throws: AtollError.self) { try key.withUnsafeBytes { try BTreeNode.childIndex(p, $0) } }
        do {
            _ = try BTreeNode.cellOffset(p, 5)
        } catch let error as AtollError {
            #expect(error.kind == .fileCorrupted)
        }
    }

    /// The same input as a file: the catalog's root node claims 0xFFFF cells (its checksum
    /// repaired, as the fuzzer does), and the file ends right after that page.
    @Test func aDatabaseWhoseCatalogNodeClaimsTooManyCellsFailsToOpenAsCorrupted() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("atoll-fuzz-regression-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("catalog.atoll").path
        var catalogRoot = 0
        do {
            // Full durability: the commit returns after its sync and closing seals it, so open
            // trusts it and reads the damaged node (a commit never known durable, after its lock
            // file is gone, would be left out as possibly interrupted: docs/FORMAT.md).
            let db = try Database.open(DatabaseConfiguration(path: path))
            let w = try db.beginWrite()
            _ = try w.createTable(TableSpec(name: "Item", columns: [ColumnSpec(name: "id", type: .int)], primaryKey: "id"))
            _ = try w.commit()
            let r = try db.beginRead()
            catalogRoot = Int(r.rootRecord.catalogRoot)
            r.close()
        }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let size = FileFormat.pageSize
        let pageCount = bytes.withUnsafeBytes { b in
            max(Int(b.baseAddress!.u32(size + 16)), Int(b.baseAddress!.u32(2 * size + 16)))
        }
        bytes.removeLast(bytes.count - pageCount * size)
        bytes.withUnsafeMutableBytes { b in
            let header = UnsafeRawPointer(b.baseAddress!)
            let checksum = PageChecksum(formatVersion: header.u32(8), fileId: Array(UnsafeRawBufferPointer(start: header + 24, count: 16)))
            let p = b.baseAddress! + catalogRoot * size
            p.setU16(6, 0xFFFF)
            p.setU32(0, checksum.page(UnsafeRawPointer(p), number: PageNumber(catalogRoot)))
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        unlink(path + ".lock")
        #expect {
            let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe, readOnly: true, createIfMissing: false))
            _ = try db.beginRead()
        } throws: { error in
            (error as? AtollError)?.kind == .fileCorrupted
        }
    }

    /// A cluster tree's inner node whose row counts claim more rows than a file can hold (each
    /// near 2^63, checksum repaired): reads counted positions with them, and the write side added
    /// to them (`+ 1` on an append, `Int64(...)` after a descent, the sum of two merged leaves),
    /// where such a count trapped (SIGILL). Every path that reads an inner node validates its
    /// total against `ClusterInner.rowsMax` first, so each of these ends in `.fileCorrupted`
    /// (since the fix for table-object-count-*, at the latest when the table is opened).
    @Test func anInnerNodeClaimingMoreRowsThanAFileHoldsIsReportedByReadsAndWrites() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("atoll-fuzz-regression-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("rows.atoll").path
        var clusterRoot = 0
        do {
            let db = try Database.open(DatabaseConfiguration(path: path))
            let w = try db.beginWrite()
            let key = try w.createTable(TableSpec(name: "Item", columns: [ColumnSpec(name: "id", type: .int), ColumnSpec(name: "n", type: .int)], primaryKey: "id"))
            let table = try w.table(key)
            for id in 0..<3_000 { _ = try table.create(primaryKey: .int(Int64(id))) }
            _ = try w.commit()
            let r = try db.beginRead()
            clusterRoot = Int(try r.table(key).roots.clusterRoot)
            r.close()
        }
        let size = FileFormat.pageSize
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes.withUnsafeMutableBytes { b in
            let header = UnsafeRawPointer(b.baseAddress!)
            let checksum = PageChecksum(formatVersion: header.u32(8), fileId: Array(UnsafeRawBufferPointer(start: header + 24, count: 16)))
            let p = b.baseAddress! + clusterRoot * size
            #expect(UnsafeRawPointer(p).u8(PageHeader.typeOffset) == PageType.clusterInner.rawValue)
            for i in 0..<ClusterInner.count(UnsafeRawPointer(p)) { ClusterInner.setRows(p, i, (1 << 63) + UInt64(i)) }
            p.setU32(0, checksum.page(UnsafeRawPointer(p), number: PageNumber(clusterRoot)))
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        func expectCorrupted(_ what: String, _ body: () throws -> Void) {
            do {
                try body()
                Issue.record("\(what): no error")
            } catch let error as AtollError {
                #expect(error.kind == .fileCorrupted, "\(what): \(error)")
            } catch {
                Issue.record("\(what): \(error)")
            }
        }
        let db = try Database.open(DatabaseConfiguration(path: path))
        let writes: [(String, (Table) throws -> Void)] = [
            ("an append", { _ = try $0.create(primaryKey: .int(5_000)) }),
            ("an insert", { _ = try $0.create(primaryKey: .int(-1)) }),
            ("a change", { try $0.set(try #require(try $0.find(primaryKey: .int(7))), 1, .int(-2)) }),
            ("a delete", { try $0.erase(try #require(try $0.find(primaryKey: .int(8)))) }),
        ]
        for (what, write) in writes {
            let w = try db.beginWrite()
            expectCorrupted(what) { try write(try #require(try w.table(named: "Item"))) }
            w.rollback()
        }
        let r = try db.beginRead()
        defer { r.close() }
        // Opening the table compares its recorded count with the root's total, so a damaged root
        // is reported there, before any read; the reads' own checks stay for deeper nodes.
        expectCorrupted("opening the table") { _ = try r.table(named: "Item") }
        expectCorrupted("verify") { _ = try db.verify() }
    }

    /// fuzz-file (table-object-count-*): a catalog record claimed about 2^52 objects for a table.
    /// `objectKeys()` reserved that many keys (an allocation sized by the file), and `count`
    /// answered it. A count beyond what the file's pages can hold is refused by the record's
    /// decoder; any other count must equal the cluster tree's own total when a table is opened,
    /// so a damaged count is never answered as the number of objects.
    @Test func aTableWhoseRecordedCountDisagreesWithItsTreeIsCorrupted() throws {
        var record = TableRoots(clusterRoot: 0, objectCount: 1 << 52, nextKey: 0, backlinkRoot: 0, indexRoots: [])
        #expect(throws: AtollError.self) { try record.encode().withUnsafeBytes { try TableRoots.decode($0, pageCount: 100) } }
        record.objectCount = 100 * UInt64(FileFormat.pageSize) / 8
        #expect(try record.encode().withUnsafeBytes { try TableRoots.decode($0, pageCount: 100) } == record)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("atoll-fuzz-regression-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = try Database.open(DatabaseConfiguration(path: directory.appendingPathComponent("count.atoll").path))
        let w = try db.beginWrite()
        let key = try w.createTable(TableSpec(name: "Item", columns: [ColumnSpec(name: "id", type: .int)], primaryKey: "id"))
        let table = try w.table(key)
        for id in 0..<3 { _ = try table.create(primaryKey: .int(Int64(id))) }
        // A plausible lie: one object more than the tree holds, written as the record.
        table.roots.objectCount += 1
        table.isChanged = true
        _ = try w.commit()
        for open in [{ try db.beginRead().table(key) }, { try db.beginWrite().table(key) }] as [() throws -> Table] {
            #expect { _ = try open() } throws: { ($0 as? AtollError)?.kind == .fileCorrupted }
        }
        #expect { _ = try db.verify() } throws: { ($0 as? AtollError)?.kind == .fileCorrupted }
    }

    /// Files fuzz-file saved as crashes, in Fixtures/fuzz/regressions/file/, replayed the way the
    /// target runs them: checksums repaired unless the input's CRC32C is a multiple of 8, written
    /// out, opened read-only and read completely. btree-node-cell-counts-*: eight B+tree nodes of
    /// a mutated file claim 8619 to 46401 cells; before the cell-count check, reading them ended
    /// in SIGBUS. cluster-inner-row-counts-*: a cluster tree's inner node claims so many rows
    /// that the position of a key overflowed an Int (a runtime trap, SIGILL) before the sum was
    /// bounded. table-object-count-*: a table's record claims about 2^52 objects, and reading
    /// every key reserved room for them all (an allocation sized by the file). Now every step
    /// ends in a value or an AtollError that says the file is bad.
    @Test(arguments: try FileManager.default.contentsOfDirectory(atPath: regressionFiles).sorted())
    func aDamagedFileTheFuzzerSavedIsReadWithoutCrashing(_ name: String) throws {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.regressionFiles + "/" + name)))
        if CRC32C.checksum(bytes) % 8 != 0 { Self.repairChecksums(&bytes) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("atoll-fuzz-regression-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("damaged.atoll").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        var failures: [AtollError.Kind] = []
        func step<T>(_ body: () throws -> T) throws -> T? {
            do {
                return try body()
            } catch let error as AtollError {
                // What a damaged file may report; a missing row only where a damaged tree lists a
                // key that a lookup by key then misses, a usage error for an aggregate of a type
                // that has none, an overflowing sum.
                let allowed: Set<AtollError.Kind> = [.fileCorrupted, .notAnAtollFile, .fileFormatTooNew, .fileEncrypted, .objectNotFound, .typeMismatch, .limitExceeded]
                #expect(allowed.contains(error.kind), "\(name): \(error)")
                failures.append(error.kind)
                return nil
            }
        }
        let configuration = DatabaseConfiguration(path: path, durability: .unsafe, readOnly: true, createIfMissing: false)
        guard let database = try step({ try Database.open(configuration) }) else { return }
        if let read = try step({ try database.beginRead() }) {
            defer { read.close() }
            for tableKey in read.tableKeys {
                guard let spec = read.spec(of: tableKey), let table = try step({ try read.table(tableKey) }),
                      let keys = try step({ try table.objectKeys() }) else { continue }
                for (position, key) in keys.prefix(2000).enumerated() {
                    _ = try step {
                        _ = try table.contains(key)
                        _ = try table.position(of: key)
                        _ = try table.objectKey(at: position)
                        if spec.primaryKeyIndex != nil { _ = try table.find(primaryKey: try table.primaryKeyValue(key)) }
                        _ = try table.backlinkCount(to: key)
                        for (c, column) in spec.columns.enumerated() {
                            if column.isList {
                                _ = try table.listValues(key, c)
                            } else {
                                let value = try table.value(key, c)
                                if table.hasIndex(c) { _ = try table.findAll(indexed: c, equalTo: value) }
                            }
                        }
                    }
                }
                for (c, column) in spec.columns.enumerated() where !column.isList {
                    for kind in [ColumnAggregate.sum, .min, .max, .average, .count] { _ = try step { try table.aggregate(c, kind) } }
                }
            }
            _ = try step { try read.metadata("atoll.schemaVersion") }
            for version in try step({ try read.loggedVersions() })?.prefix(1000) ?? [] {
                _ = try step { if let log = try read.log(of: version) { _ = try TransactionLogReader.decodeAll(log) } }
            }
            for tree in try step({ try read.internalTreeNames() }) ?? [] {
                var entries = 0
                _ = try step {
                    try read.forEachInternalEntry(tree, from: []) { _, _ in
                        entries += 1
                        return entries < 10_000
                    }
                }
            }
        }
        _ = try step { try database.verify() }
        _ = try step { try database.stats() }
        // Every one of these files is damaged: at least verify says so.
        #expect(failures.contains(.fileCorrupted), "\(name): read without any corruption reported")
    }

    static let regressionFiles = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fixtures/fuzz/regressions/file").standardizedFileURL.path

    /// fuzz-file's checksum repair (tools/fuzz/AtollFuzz/Sources/fuzz-file): the header and root
    /// slots, then every tree page and every plausible blob run, by the format the header names.
    static func repairChecksums(_ file: inout [UInt8]) {
        let size = FileFormat.pageSize
        let pages = file.count / size
        guard pages > 0 else { return }
        file.withUnsafeMutableBytes { bytes in
            let base = bytes.baseAddress!
            let header = UnsafeRawPointer(base)
            let checksum = PageChecksum(formatVersion: header.u32(8), fileId: Array(UnsafeRawBufferPointer(start: header + 24, count: 16)))
            for page in 0..<min(pages, 3) {
                (base + page * size).setU32(124, CRC32C.checksum(UnsafeRawPointer(base + page * size), count: 124))
            }
            var page = 3
            while page < pages {
                let p = base + page * size
                var run = 1
                var crc = checksum.page(UnsafeRawPointer(p), number: PageNumber(page))
                if p.load(fromByteOffset: 4, as: UInt8.self) == PageType.blob.rawValue {
                    let count = Int(UnsafeRawPointer(p).u32(8))
                    let length = Int(UnsafeRawPointer(p).u32(12))
                    if count >= 1, page + count <= pages, 16 + length <= count * size {
                        run = count
                        crc = checksum.blob(UnsafeRawPointer(p), number: PageNumber(page), length: length)
                    }
                }
                p.setU32(0, crc)
                page += run
            }
        }
    }
}
