import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import Synchronization
@testable import AtollStorage
import AtollTestSupport

/// Damaged pages are errors, never data: every page in use (tree pages, blob runs, index,
/// backlinks, history, the free list's own pages) that is flipped, zeroed, overwritten with
/// random bytes, torn, swapped with another page or cut off by truncation is reported by
/// `verify` and makes a plain read through the storage API throw `.fileCorrupted` (format 2:
/// checksums bind page number and file id, and a process checks each page content the first
/// time it reads it).
@Suite struct PageIntegrityTests {
    static let rows = 700

    /// A file with every kind of page in use: catalog, cluster inner nodes and leaves, external
    /// values (blob runs), list values, a search index, backlinks, transaction logs in the
    /// history (one of them a multi-page blob), and a free list.
    static func populate(_ path: String) throws {
        let db = try Database.open(configuration(path))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(GoldenFileTests.spec))
        for i in 0..<rows {
            let k = try t.create(primaryKey: .int(Int64(i)))
            for (c, v) in GoldenFileTests.expected(i).enumerated().dropFirst() { try t.set(k, c, v) }
            try t.set(k, 4, i % 90 == 0 ? .binary((0..<9000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }) : GoldenFileTests.expected(i)[4])
            try t.setList(k, 5, (0..<(i % 4)).map { .string("t\($0)") })
        }
        for i in 0..<(rows - 1) { try t.set(ObjectKey(primaryKey: Int64(i)), 6, .link(ObjectKey(primaryKey: Int64(i + 1)))) }
        try w.commit()
        // Frees pages (a free list with entries) and logs a second version.
        let w2 = try db.beginWrite()
        let t2 = try #require(try w2.table(named: "Golden"))
        for i in stride(from: 1, to: rows, by: 9) { try t2.erase(ObjectKey(primaryKey: Int64(i))) }
        try w2.commit()
        // A last small commit: the newest record lists only its few pages. Damage to those is
        // indistinguishable from a commit a power failure interrupted (see expectDetected).
        let w3 = try db.beginWrite()
        try w3.setMetadata("populated", [1])
        try w3.commit()
    }

    static func configuration(_ path: String) -> DatabaseConfiguration {
        var c = DatabaseConfiguration(path: path)
        c.historyRetainedVersions = 10
        return c
    }

    /// Reads every value of every object, every entry of every B+tree (catalog, indexes,
    /// backlinks, history, free list) and every blob they reference; returns how many values.
    static func readEverything(_ db: Database) throws -> Int {
        let r = try db.beginRead()
        defer { r.close() }
        var n = 0
        func readTree(_ root: PageNumber) throws {
            var cursor = BTreeCursor(root: root, space: r.space)
            var more = try cursor.first()
            while more {
                n += try cursor.key().count + cursor.value().count
                more = try cursor.next()
            }
        }
        try readTree(r.root.catalogRoot)
        for key in r.tableKeys {
            let t = try r.table(key)
            try t.forEachLeaf { leaf in
                for row in 0..<leaf.count {
                    let h = RowHandle(leaf: leaf, row: row, key: ObjectKey(leaf.key(row)))
                    for c in t.spec.columns.indices {
                        if t.spec.columns[c].isList { n += try t.list(h, c).values.count } else { _ = try t.value(h, c); n += 1 }
                    }
                }
                return true
            }
            for root in t.roots.indexRoots where root != 0 { try readTree(root) }
            try readTree(t.roots.backlinkRoot)
        }
        try readTree(r.root.historyRoot)
        try readTree(r.root.freeListRoot)
        return n
    }

    /// The bytes of each page in use that mean something: a whole tree page, or the part of a
    /// blob run's page up to the end of its value (the rest of a run's last page is slack).
    static func usedRanges(_ path: String) throws -> [Int: Range<Int>] {
        let db = try Database.open(configuration(path))
        let r = try db.beginRead()
        defer { r.close() }
        let space = r.space
        final class Ranges { var byPage: [Int: Range<Int>] = [:] }
        let ranges = Ranges()
        _ = try r.verify { first, count in
            let p = UnsafeRawPointer(space.base + Int(first) * FileFormat.pageSize)
            guard p.u8(PageHeader.typeOffset) == PageType.blob.rawValue else {
                ranges.byPage[Int(first)] = 0..<FileFormat.pageSize
                return
            }
            let end = Blob.headerBytes + Int(p.u32(Blob.lengthOffset))
            for i in 0..<count { ranges.byPage[Int(first) + i] = 0..<min(FileFormat.pageSize, end - i * FileFormat.pageSize) }
        }
        return ranges.byPage
    }

    static func kind(_ body: () throws -> Void) -> AtollError.Kind? {
        do { try body(); return nil } catch let e as AtollError { return e.kind } catch { return .ioError }
    }

    /// Writes `bytes` as a new file and expects a fresh process-level reader and `verify` to
    /// report it as corrupted; or, when the damage hit a page the newest commit wrote (listed
    /// in its record, format 3), which open cannot tell from a commit a power failure
    /// interrupted, expects open to leave that commit out, read the previous version without
    /// error, and verify to report the commit left out. Returns whether it was left out.
    @discardableResult
    static func expectDetected(_ bytes: Data, _ what: String, in dir: TemporaryDirectory, case number: Int) throws -> Bool {
        let path = dir.file("damaged-\(number).atoll")
        try bytes.write(to: URL(fileURLWithPath: path))
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + ".lock")
        }
        let newest = bytes.withUnsafeBytes { $0.baseAddress.flatMap { RootRecord.newest(in: $0) } }
        if let db = try? Database.open(configuration(path)), let leftOut = db.lock.rejectedRecord {
            #expect(newest?.version == leftOut.version && (newest?.commitListCount ?? 0) > 0 && db.latestVersion < leftOut.version,
                    "\(what): open left out version \(leftOut.version), not the newest record with a page list")
            // The previous version reads and verifies, unless the damage hit one of its pages too
            // (two pages swapped): then that is reported.
            switch kind({ _ = try readEverything(db) }) {
            case nil: #expect(try db.verify().incompleteCommitLeftOut == leftOut.version, "\(what)")
            case let read:
                #expect(read == .fileCorrupted, "\(what): \(String(describing: read))")
                #expect(kind { _ = try db.verify() } == .fileCorrupted, "verify missed \(what)")
            }
            return true
        }
        // A fresh Database each time: nothing of the file has been checked by this process.
        let read = kind { _ = try readEverything(try Database.open(configuration(path))) }
        #expect(read == .fileCorrupted, "a read returned data from \(what) (\(String(describing: read)))")
        let verified = kind { _ = try Database.open(configuration(path)).verify() }
        #expect(verified == .fileCorrupted, "verify missed \(what) (\(String(describing: verified)))")
        return false
    }

    @Test func everyPageInUseFlippedZeroedRandomizedOrTornIsReportedAndNeverRead() throws {
        let dir = TemporaryDirectory()
        let source = dir.file("source.atoll")
        try Self.populate(source)
        let ranges = try Self.usedRanges(source)
        let pristine = try Data(contentsOf: URL(fileURLWithPath: source))
        #expect(try Self.readEverything(try Database.open(Self.configuration(source))) > Self.rows * 6)
        #expect(ranges.count > 20, "the file should have many pages in use, has \(ranges.count)")
        var rng = SeededGenerator(seed: 20261127)
        var cases = 0
        for (page, range) in ranges.sorted(by: { $0.key < $1.key }) {
            let at = page * FileFormat.pageSize
            let covered = (at + range.lowerBound)..<(at + range.upperBound)
            var damages: [(String, Data)] = []
            var flipped = pristine
            flipped[Int.random(in: covered, using: &rng)] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            damages.append(("a flipped bit in page \(page)", flipped))
            var zeroed = pristine
            zeroed.replaceSubrange(covered, with: [UInt8](repeating: 0, count: covered.count))
            damages.append(("zeroed page \(page)", zeroed))
            var random = pristine
            random.replaceSubrange(covered, with: (0..<covered.count).map { _ in UInt8.random(in: 0...255, using: &rng) })
            damages.append(("random bytes in page \(page)", random))
            var torn = pristine
            let half = covered.lowerBound + covered.count / 2
            torn.replaceSubrange(half..<covered.upperBound, with: [UInt8](repeating: 0, count: covered.upperBound - half))
            damages.append(("page \(page) torn after \(half - at) bytes", torn))
            for (what, bytes) in damages where bytes[covered] != pristine[covered] {
                cases += 1
                try Self.expectDetected(bytes, what, in: dir, case: cases)
            }
        }
        #expect(cases >= ranges.count * 3)
    }

    @Test func everyPageInUseSwappedWithAnotherIsReportedAndNeverRead() throws {
        let dir = TemporaryDirectory()
        let source = dir.file("source.atoll")
        try Self.populate(source)
        let pages = try Self.usedRanges(source).keys.sorted()
        let pristine = try Data(contentsOf: URL(fileURLWithPath: source))
        var rng = SeededGenerator(seed: 7)
        var cases = 0
        for a in pages {
            guard let b = pages.filter({ $0 != a }).randomElement(using: &rng) else { continue }
            let pa = a * FileFormat.pageSize, pb = b * FileFormat.pageSize
            guard pristine[pa..<(pa + FileFormat.pageSize)] != pristine[pb..<(pb + FileFormat.pageSize)] else { continue }
            var swapped = pristine
            swapped.replaceSubrange(pa..<(pa + FileFormat.pageSize), with: pristine[pb..<(pb + FileFormat.pageSize)])
            swapped.replaceSubrange(pb..<(pb + FileFormat.pageSize), with: pristine[pa..<(pa + FileFormat.pageSize)])
            cases += 1
            try Self.expectDetected(swapped, "pages \(a) and \(b) swapped", in: dir, case: cases)
        }
        #expect(cases >= pages.count - 2)
    }

    /// Two leaves of one table swapped: every byte of each is intact and of the right type, so
    /// only a checksum that binds the page number tells that they are at each other's place.
    @Test func twoLeavesOfOneTableSwappedAreCaughtByVerifyAndByALookup() throws {
        let dir = TemporaryDirectory()
        let source = dir.file("source.atoll")
        try Self.populate(source)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let leaves = (Int(FileFormat.firstDataPage)..<(bytes.count / FileFormat.pageSize)).filter {
            bytes[$0 * FileFormat.pageSize + PageHeader.typeOffset] == PageType.clusterLeaf.rawValue
        }
        let used = try Self.usedRanges(source)
        let swapped = leaves.filter { used[$0] != nil }.prefix(2)
        try #require(swapped.count == 2)
        let a = swapped[swapped.startIndex] * FileFormat.pageSize, b = swapped[swapped.startIndex + 1] * FileFormat.pageSize
        let first = bytes[a..<(a + FileFormat.pageSize)], second = bytes[b..<(b + FileFormat.pageSize)]
        bytes.replaceSubrange(a..<(a + FileFormat.pageSize), with: second)
        bytes.replaceSubrange(b..<(b + FileFormat.pageSize), with: first)
        let path = dir.file("swapped.atoll")
        try bytes.write(to: URL(fileURLWithPath: path))

        let db = try Database.open(Self.configuration(path))
        #expect(Self.kind { _ = try db.verify() } == .fileCorrupted)
        let r = try db.beginRead()
        defer { r.close() }
        let t = try #require(try r.table(named: "Golden"))
        var failures = 0
        for i in stride(from: 0, to: Self.rows, by: 9) {
            let k = ObjectKey(primaryKey: Int64(i))
            switch Self.kind({
                let name = try t.value(k, 1)
                #expect(name == .string("item \(i)"), "a lookup returned another object's value")
            }) {
            case nil: break
            case .fileCorrupted: failures += 1
            case let other: Issue.record("lookup of \(i) failed with \(String(describing: other))")
            }
        }
        #expect(failures > 0, "no lookup reached the swapped leaves")
    }

    @Test func aTruncatedFileIsRefusedAtOpenAndByVerify() throws {
        let dir = TemporaryDirectory()
        let source = dir.file("source.atoll")
        try Self.populate(source)
        let pristine = try Data(contentsOf: URL(fileURLWithPath: source))
        let last = try Self.usedRanges(source).keys.max() ?? 0
        for (i, length) in [last * FileFormat.pageSize, last * FileFormat.pageSize + 100, 5 * FileFormat.pageSize].enumerated() {
            let path = dir.file("truncated-\(i).atoll")
            try pristine.prefix(length).write(to: URL(fileURLWithPath: path))
            #expect(Self.kind { _ = try Self.readEverything(try Database.open(Self.configuration(path))) } == .fileCorrupted)
            #expect(Self.kind { _ = try Database.open(Self.configuration(path)).verify() } == .fileCorrupted)
        }
        // Cut short while open: verify reports it instead of faulting on the missing pages.
        let path = dir.file("open.atoll")
        try pristine.write(to: URL(fileURLWithPath: path))
        let db = try Database.open(Self.configuration(path))
        _ = try db.verify()
        #expect(truncate(path, off_t(last * FileFormat.pageSize)) == 0)
        #expect(Self.kind { _ = try db.verify() } == .fileCorrupted)
    }

    /// Pages are reused: after this process checked page n, another process may write new
    /// content there. A stale "checked" state must not let that content through: the state
    /// records the checksum that was checked, and new content carries another one.
    @Test func aPageRewrittenAfterThisProcessCheckedItIsCheckedAgain() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("db.atoll")
        try Self.populate(path)
        let db = try Database.open(Self.configuration(path))
        let expected = try Self.readEverything(db)
        let pristine = try Data(contentsOf: URL(fileURLWithPath: path))
        let leaves = try Self.usedRanges(path).keys.sorted().filter {
            pristine[$0 * FileFormat.pageSize + PageHeader.typeOffset] == PageType.clusterLeaf.rawValue
        }
        try #require(leaves.count >= 2)
        let target = leaves[0], other = leaves[1]
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        func page(_ n: Int) throws -> Data {
            try handle.seek(toOffset: UInt64(n * FileFormat.pageSize))
            return try #require(try handle.read(upToCount: FileFormat.pageSize))
        }
        func write(_ data: Data, at n: Int) throws {
            try handle.seek(toOffset: UInt64(n * FileFormat.pageSize))
            try handle.write(contentsOf: data)
        }
        let original = try page(target)
        // Valid content of another page (its checksum is right, for its own place) written
        // over a page this process has checked.
        try write(try page(other), at: target)
        #expect(Self.kind { _ = try Self.readEverything(db) } == .fileCorrupted)
        #expect(Self.kind { _ = try Self.readEverything(db) } == .fileCorrupted, "a failed check must not be remembered as a pass")
        // Damage that keeps the original's stored checksum field, after this process checked
        // it: reads trust what they checked, verify recomputes every checksum.
        var damaged = original
        damaged[2000] ^= 0x40
        try write(damaged, at: target)
        #expect(Self.kind { _ = try db.verify() } == .fileCorrupted)
        try write(original, at: target)
        #expect(try Self.readEverything(db) == expected)
        _ = try db.verify()
    }

    /// Commit records the checksums it computed, so this process never checks its own pages
    /// again; pages of a transaction that did not commit are unknown again.
    @Test func commitRecordsItsPagesAndRollbackForgetsThem() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("db.atoll")
        try Self.populate(path)
        let db = try Database.open(Self.configuration(path))
        #expect(try #require(db.store.verifier).checksum.bindsPlace)
        func state(_ n: Int) throws -> UInt64 {
            let r = try db.beginRead()
            defer { r.close() }
            return try #require(r.space.verified)[n]
        }
        func claimedPages(_ w: WriteTransaction) throws -> [Int] {
            try (Int(FileFormat.firstDataPage)..<Int(w.space.pageCount)).filter { try state($0) == VerifiedPages.writerOwned }
        }
        func addObjects(_ w: WriteTransaction, from: Int) throws {
            let t = try #require(try w.table(named: "Golden"))
            for i in from..<(from + 300) {
                let k = try t.create(primaryKey: .int(Int64(i)))
                try t.set(k, 1, .string("added \(i)"))
            }
        }

        let rolledBack = try db.beginWrite()
        try addObjects(rolledBack, from: 10_000)
        let abandoned = try claimedPages(rolledBack)
        #expect(!abandoned.isEmpty)
        rolledBack.rollback()
        for n in abandoned { #expect(try state(n) == 0, "page \(n) of a rolled-back transaction") }

        let committed = try db.beginWrite()
        try addObjects(committed, from: 20_000)
        let written = try claimedPages(committed)
        try committed.commit()
        let r = try db.beginRead()
        defer { r.close() }
        var recorded = 0
        for n in written where n < Int(r.root.pageCount) {
            let stored = UnsafeRawPointer(r.space.base + n * FileFormat.pageSize).u32(PageHeader.checksumOffset)
            let s = try state(n)
            // Pages inside blob runs have no checksum of their own and go back to unknown.
            #expect(s == VerifiedPages.state(verified: stored) || s == 0, "page \(n): state \(s), stored checksum \(stored)")
            if s != 0 { recorded += 1 }
        }
        #expect(recorded > 0)
        #expect(try Self.readEverything(db) > 0)
        _ = try db.verify()
    }

    @Test func threadsReadingAFreshFileTogetherAllSeeEveryValue() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("db.atoll")
        try Self.populate(path)
        let db = try Database.open(Self.configuration(path))
        let counts = AtollLock<[Int]>([])
        let failures = AtollLock<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let n = try Self.readEverything(db)
                counts.withLock { $0.append(n) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let seen = counts.withLock { $0 }
        #expect(seen.count == 4 && Set(seen).count == 1)
    }

    /// Format 1 checksums do not bind place, but a process still checks them on first read.
    @Test func aFormatVersion1FileIsCheckedOnReadToo() throws {
        let dir = TemporaryDirectory()
        let pristine = dir.file("pristine.atoll"), path = dir.file("golden.atoll")
        try FileManager.default.copyItem(atPath: GoldenFileTests.fixture, toPath: pristine)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: pristine))
        let leaf = try #require(try Self.usedRanges(pristine).keys.sorted().first {
            bytes[$0 * FileFormat.pageSize + PageHeader.typeOffset] == PageType.clusterLeaf.rawValue
        })
        bytes[leaf * FileFormat.pageSize + 3000] ^= 0x08
        try bytes.write(to: URL(fileURLWithPath: path))
        let db = try Database.open(DatabaseConfiguration(path: path))
        #expect(try #require(db.store.verifier).checksum.bindsPlace == false)
        #expect(Self.kind { _ = try Self.readEverything(db) } == .fileCorrupted)
    }

    /// Encrypted files authenticate every page with an HMAC over its page number, counter and
    /// ciphertext under keys derived from the file id: a page moved to another place fails it.
    @Test func twoPagesOfAnEncryptedFileSwappedAreCaughtByVerifyAndReads() throws {
        let dir = TemporaryDirectory()
        let plain = dir.file("plain.atoll"), encrypted = dir.file("encrypted.atoll")
        try Self.populate(plain)
        let key = EncryptionKey.random()
        try Database.open(Self.configuration(plain)).writeCopy(to: encrypted, encryptionKey: key)
        var config = Self.configuration(encrypted)
        config.encryptionKey = key
        _ = try Database.open(config).verify()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: encrypted))
        // Logical pages 3 and 4 swapped together with their metadata entries: each ciphertext
        // still matches its HMAC, but for the other page number.
        let a = EncryptedLayout.physicalPage(3) * FileFormat.pageSize, b = EncryptedLayout.physicalPage(4) * FileFormat.pageSize
        let ea = EncryptedLayout.entryOffset(3), eb = EncryptedLayout.entryOffset(4), entry = EncryptedLayout.entryBytes
        let (pageA, pageB) = (bytes[a..<(a + FileFormat.pageSize)], bytes[b..<(b + FileFormat.pageSize)])
        let (entryA, entryB) = (bytes[ea..<(ea + entry)], bytes[eb..<(eb + entry)])
        bytes.replaceSubrange(a..<(a + FileFormat.pageSize), with: pageB)
        bytes.replaceSubrange(b..<(b + FileFormat.pageSize), with: pageA)
        bytes.replaceSubrange(ea..<(ea + entry), with: entryB)
        bytes.replaceSubrange(eb..<(eb + entry), with: entryA)
        let swapped = dir.file("swapped.atoll")
        try bytes.write(to: URL(fileURLWithPath: swapped))
        config.path = swapped
        #expect(Self.kind { _ = try Self.readEverything(try Database.open(config)) } == .fileCorrupted)
        #expect(Self.kind { _ = try Database.open(config).verify() } == .fileCorrupted)
    }
}
