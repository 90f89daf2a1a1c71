import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// The one-sync commit (format 3, docs/FORMAT.md "Commit and recovery"): a commit's root record
/// carries the list of the pages it wrote, and open takes it only if every page holds what the
/// list says. Each test builds the images a power failure during the commit of version 3 can
/// leave (from the file as it was at version 2 and as it is at version 3) and opens them.
@Suite struct OneSyncCommitTests {
    static let spec = TableSpec(name: "Row", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "text", type: .string, isIndexed: true),
        ColumnSpec(name: "blob", type: .binary, isNullable: true),
    ], primaryKey: "id")

    /// Enough rows that the commit of version 3 lists more than 64 pages (its list spans more
    /// than one 512-byte sector of the slot page).
    static let rows = 7_000

    /// The file at version 2 and at version 3 (every 10th text changed, one row added, and with
    /// `blob`, a 1 MiB value that grows the file).
    struct Images {
        var before: [UInt8]
        var after: [UInt8]
        var key: EncryptionKey?
    }

    static func makeImages(encrypted: Bool = false, blob: Bool = false) throws -> Images {
        let dir = TemporaryDirectory()
        let key = encrypted ? try EncryptionKey(bytes: (0..<64).map { UInt8($0 * 7 & 255) }) : nil
        let path = dir.file("db.atoll")
        let db = try Database.open(DatabaseConfiguration(path: path, encryptionKey: key))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(spec))
        for i in 0..<rows { try t.set(try t.create(primaryKey: .int(Int64(i))), 1, .string("v2 row \(i)")) }
        #expect(try w.commit() == 2)
        let before = try bytes(path)
        let w3 = try db.beginWrite()
        let t3 = try #require(try w3.table(named: "Row"))
        for i in stride(from: 0, to: rows, by: 10) { try t3.set(ObjectKey(primaryKey: Int64(i)), 1, .string("v3 row \(i)")) }
        try t3.set(try t3.create(primaryKey: .int(Int64(rows))), 1, .string("v3 new"))
        if blob { try t3.set(ObjectKey(primaryKey: 1), 2, .binary([UInt8](repeating: 0x5A, count: 1 << 20))) }
        #expect(try w3.commit() == 3)
        return Images(before: before, after: try bytes(path), key: key)
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// The slot page holding the record of `version` in `image`.
    static func slotPage(of version: UInt64, in image: [UInt8], key: EncryptionKey?) throws -> Int {
        let cipher = try key.map { k in PageCipher(key: k, fileId: try header(image).fileId) }
        for page in 1...2 {
            let r = image.withUnsafeBytes { RootRecord.read(from: $0.baseAddress.unsafelyUnwrapped + page * FileFormat.pageSize, cipher: cipher) }
            if r?.version == version { return page }
        }
        throw AtollError(.invalidArgument, "no slot holds version \(version)")
    }

    static func header(_ image: [UInt8]) throws -> FileHeader {
        try image.withUnsafeBytes { try FileHeader.read(from: $0.baseAddress.unsafelyUnwrapped, fileBytes: $0.count, path: "image") }
    }

    /// The (page, checksum) entries of the record in slot page `slot`.
    static func listedPages(_ image: [UInt8], slot: Int) -> [(page: PageNumber, checksum: UInt32)] {
        let at = slot * FileFormat.pageSize
        let count = image.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at + 36, as: UInt32.self) }
        return (0..<Int(count)).map { i in
            image.withUnsafeBytes { raw in
                (raw.loadUnaligned(fromByteOffset: at + 128 + 8 * i, as: UInt32.self), raw.loadUnaligned(fromByteOffset: at + 132 + 8 * i, as: UInt32.self))
            }
        }
    }

    /// Copies physical page `page` of `source` into `image`.
    static func copyPage(_ page: Int, from source: [UInt8], into image: inout [UInt8]) {
        let range = page * FileFormat.pageSize..<(page + 1) * FileFormat.pageSize
        image.replaceSubrange(range, with: source[range])
    }

    /// Opens `image` as a file of its own (no lock file: as after a power failure), checks it
    /// with `verify`, and returns its version and what it holds.
    static func open(_ image: [UInt8], key: EncryptionKey?, in dir: TemporaryDirectory, name: String = "image.atoll") throws -> (version: UInt64, count: Int, text0: StorageValue, database: Database) {
        let path = dir.file(name)
        try Data(image).write(to: URL(fileURLWithPath: path))
        let db = try Database.open(DatabaseConfiguration(path: path, encryptionKey: key))
        _ = try db.verify()
        let r = try db.beginRead()
        defer { r.close() }
        let t = try #require(try r.table(named: "Row"))
        return (r.version, t.count, try t.value(ObjectKey(primaryKey: 0), 1), db)
    }

    /// An image that opens at version 2 must hold version 2 exactly, and take a new commit.
    static func expectVersion2AndWritable(_ image: [UInt8], key: EncryptionKey?, _ what: String) throws {
        let dir = TemporaryDirectory()
        let seen = try open(image, key: key, in: dir)
        #expect(seen.version == 2 && seen.count == rows && seen.text0 == .string("v2 row 0"), "\(what): \(seen.version), \(seen.count) rows")
        let w = try seen.database.beginWrite()
        try #require(try w.table(named: "Row")).set(ObjectKey(primaryKey: 0), 1, .string("after"))
        #expect(try w.commit() == 3, "\(what)")
        _ = try seen.database.verify()
        let r = try seen.database.beginRead()
        #expect(try r.table(named: "Row")?.value(ObjectKey(primaryKey: 0), 1) == .string("after"))
        r.close()
    }

    @Test(arguments: [false, true])
    func aCompleteCommitOpensAtItsVersion(encrypted: Bool) throws {
        let images = try Self.makeImages(encrypted: encrypted)
        let dir = TemporaryDirectory()
        let seen = try Self.open(images.after, key: images.key, in: dir)
        #expect(seen.version == 3 && seen.count == Self.rows + 1 && seen.text0 == .string("v3 row 0"))
        let slot = try Self.slotPage(of: 3, in: images.after, key: images.key)
        #expect(Self.listedPages(images.after, slot: slot).count > 64, "the commit lists its pages (and they span several sectors)")
    }

    /// Newest commit half persisted: its record reached the disk, but one of its pages (for an
    /// encrypted file: a page's ciphertext or its metadata entry) did not. Every listed page is
    /// tried in turn.
    @Test(arguments: [false, true])
    func aRecordWhosePagesDidNotAllReachTheDiskIsNotAVersion(encrypted: Bool) throws {
        let images = try Self.makeImages(encrypted: encrypted)
        let slot = try Self.slotPage(of: 3, in: images.after, key: images.key)
        let listed = Self.listedPages(images.after, slot: slot)
        var pages: Set<Int> = []
        for entry in listed {
            pages.insert(encrypted ? EncryptedLayout.physicalPage(entry.page) : Int(entry.page))
            if encrypted { pages.insert(EncryptedLayout.entryOffset(entry.page) / FileFormat.pageSize) }
        }
        // Only the record: none of the pages.
        var recordOnly = images.before
        Self.copyPage(slot, from: images.after, into: &recordOnly)
        try Self.expectVersion2AndWritable(recordOnly, key: images.key, "record without its pages")
        for page in pages.sorted().prefix(encrypted ? 12 : 40) where page * FileFormat.pageSize < images.before.count {
            var image = images.after
            Self.copyPage(page, from: images.before, into: &image)
            try Self.expectVersion2AndWritable(image, key: images.key, "page \(page) missing")
        }
    }

    /// A bit flipped in a page the newest commit wrote cannot be told from a commit a power
    /// failure interrupted (a torn page fails its checksum the same way): open leaves the
    /// commit out, takes the previous version, and verify reports the commit left out. Pages of
    /// older commits are not listed, so damage to them is reported as damage (PageIntegrityTests).
    @Test func aDamagedPageOfTheNewestCommitIsLeftOutAndReported() throws {
        let images = try Self.makeImages()
        let slot = try Self.slotPage(of: 3, in: images.after, key: nil)
        let page = Int(try #require(Self.listedPages(images.after, slot: slot).last).page)
        var image = images.after
        image[page * FileFormat.pageSize + 2000] ^= 0x08
        try Self.expectVersion2AndWritable(image, key: nil, "a flipped bit in page \(page)")
        let dir = TemporaryDirectory()
        let seen = try Self.open(image, key: nil, in: dir)
        let report = try seen.database.verify()
        #expect(report.version == 2 && report.incompleteCommitLeftOut == 3)
        #expect(report.description.contains("version 3 was left out"))
        #expect(try Self.open(images.after, key: nil, in: TemporaryDirectory()).database.verify().incompleteCommitLeftOut == nil)
    }

    /// A torn slot write: the record's sector reached the disk, the rest of its list did not
    /// (the slot page still holds the list of version 1, which that slot held before).
    /// The same damage in a file whose commit returned: the commit's pages were on stable
    /// storage, so the damage is damage. Open keeps version 2, reading the damaged page and
    /// `verify` throw `.fileCorrupted`, and nothing is answered from version 1 (no table). The
    /// proof is either the lock file, which records the commit's return and keeps that record
    /// when the next open initializes it afresh, or, for a copy of the data file alone, the seal
    /// the writer wrote when it closed the database (a copy of the record without its list).
    @Test(arguments: [(false, false), (false, true), (true, false), (true, true)])
    func aDamagedPageOfANewestCommitThatReturnedIsReportedAsDamage(encrypted: Bool, copiedAlone: Bool) throws {
        let dir = TemporaryDirectory()
        let path = dir.file("db.atoll")
        let key = encrypted ? try EncryptionKey(bytes: (0..<64).map { UInt8($0 * 5 & 255) }) : nil
        do {
            let db = try Database.open(DatabaseConfiguration(path: path, encryptionKey: key))
            let w = try db.beginWrite()
            let t = try w.table(w.createTable(Self.spec))
            for i in 0..<Self.rows { try t.set(try t.create(primaryKey: .int(Int64(i))), 1, .string("row \(i)")) }
            #expect(try w.commit() == 2)
        }
        var image = try Self.bytes(path)
        let slot = FileFormat.slotPage(forVersion: 2)
        let listed = Self.listedPages(image, slot: Int(slot))
        #expect(listed.count > 64)
        // Closing sealed the commit: the other slot holds version 2 too.
        let other = slot == FileFormat.firstSlotPage ? slot + 1 : FileFormat.firstSlotPage
        #expect(try Self.slotPage(of: 2, in: image, key: key) == Int(slot))
        let cipher = try key.map { k in PageCipher(key: k, fileId: try Self.header(image).fileId) }
        let sealed = image.withUnsafeBytes { RootRecord.read(from: $0.baseAddress.unsafelyUnwrapped + Int(other) * FileFormat.pageSize, cipher: cipher) }
        #expect(sealed?.version == 2 && sealed?.commitListCount == 0, "closing the database seals its newest commit")
        // A page of the commit, in the middle of the list (a table leaf or an index page).
        let damaged = Int(listed[listed.count / 2].page)
        let physical = encrypted ? EncryptedLayout.physicalPage(PageNumber(damaged)) : damaged
        image[physical * FileFormat.pageSize + 1500] ^= 0x10
        let opened = copiedAlone ? dir.file("copy.atoll") : path
        try Data(image).write(to: URL(fileURLWithPath: opened))

        let db = try Database.open(DatabaseConfiguration(path: opened, encryptionKey: key))
        #expect(db.lock.rejectedRecord == nil)
        var failed: AtollError.Kind?
        do { _ = try db.verify() } catch let e as AtollError { failed = e.kind }
        #expect(failed == .fileCorrupted, "verify must report the damaged page \(damaged)")
        let r = try db.beginRead()
        defer { r.close() }
        #expect(r.version == 2, "open left out a commit that returned")
        let t = try #require(try r.table(named: "Row"))
        var read = 0, corrupted = 0
        for i in 0..<Self.rows {
            do {
                let v = try t.value(ObjectKey(primaryKey: Int64(i)), 1)
                #expect(v == .string("row \(i)"))
                read += 1
            } catch let e as AtollError where e.kind == .fileCorrupted {
                corrupted += 1
            }
        }
        #expect(read + corrupted == Self.rows)
    }

    /// After a seal, commits go on as usual (the next one overwrites the sealed copy) and the
    /// file reopens at the newest version.
    @Test func aSealedFileTakesCommitsAndReopens() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("db.atoll")
        for round in 0..<3 {
            let db = try Database.open(DatabaseConfiguration(path: path))
            let w = try db.beginWrite()
            let t = try w.table(try w.tableKey(named: "Row") ?? w.createTable(Self.spec))
            try t.set(try t.create(primaryKey: .int(Int64(round))), 1, .string("round \(round)"))
            #expect(try w.commit() == UInt64(round + 2))
            _ = try db.verify()
        }
        let image = try Self.bytes(path)
        #expect(try Self.slotPage(of: 4, in: image, key: nil) > 0)
        let db = try Database.open(DatabaseConfiguration(path: path))
        let r = try db.beginRead()
        defer { r.close() }
        #expect(r.version == 4)
        #expect(try r.table(named: "Row")?.count == 3)
    }

    @Test func aTornPageListIsNotAVersion() throws {
        let images = try Self.makeImages()
        let slot = try Self.slotPage(of: 3, in: images.after, key: nil)
        var image = images.after
        let sector = slot * FileFormat.pageSize + 512
        image.replaceSubrange(sector..<(slot + 1) * FileFormat.pageSize, with: images.before[sector..<(slot + 1) * FileFormat.pageSize])
        try Self.expectVersion2AndWritable(image, key: nil, "torn list")
        var flipped = images.after
        flipped[slot * FileFormat.pageSize + 128 + 8 * 3 + 1] ^= 0x40
        try Self.expectVersion2AndWritable(flipped, key: nil, "a bit of the list flipped")
    }

    /// A list whose own CRC matches but which names another checksum than the page holds (the
    /// per-page comparison, not only the list's CRC, decides).
    @Test func aListedChecksumThatDiffersFromThePageIsNotAVersion() throws {
        let images = try Self.makeImages()
        let slot = try Self.slotPage(of: 3, in: images.after, key: nil)
        var image = images.after
        let at = slot * FileFormat.pageSize
        image[at + 128 + 4] ^= 0x01
        let count = Int(Self.listedPages(image, slot: slot).count)
        let listCRC = image[(at + 128)..<(at + 128 + 8 * count)].withUnsafeBytes { CRC32C.checksum($0) }
        withUnsafeBytes(of: listCRC.littleEndian) { for (i, b) in $0.enumerated() { image[at + 120 + i] = b } }
        let recordCRC = image[at..<(at + 124)].withUnsafeBytes { CRC32C.checksum($0) }
        withUnsafeBytes(of: recordCRC.littleEndian) { for (i, b) in $0.enumerated() { image[at + 124 + i] = b } }
        #expect(image.withUnsafeBytes { RootRecord.read(from: $0.baseAddress.unsafelyUnwrapped + at) } != nil, "the record itself is valid")
        try Self.expectVersion2AndWritable(image, key: nil, "listed checksum differs")
    }

    /// The file kept the length it had before the commit grew it.
    @Test func aCommitWhoseGrowthWasLostIsNotAVersion() throws {
        let images = try Self.makeImages(blob: true)
        #expect(images.after.count > images.before.count, "the 1 MiB value grew the file")
        var image = Array(images.after.prefix(images.before.count))
        try Self.expectVersion2AndWritable(image, key: nil, "growth lost")
        image = images.after
        let dir = TemporaryDirectory()
        #expect(try Self.open(image, key: nil, in: dir).version == 3)
    }

    /// Both slots hold the same version (as after an IV epoch reservation, or a slot copied over
    /// the other): the file opens at that version and the next commit goes to one of them.
    /// When that version is incomplete, neither slot holds a complete commit: refused.
    @Test func bothSlotsHoldingOneVersion() throws {
        let images = try Self.makeImages()
        let slot = try Self.slotPage(of: 3, in: images.after, key: nil)
        var image = images.after
        let other = slot == 1 ? 2 : 1
        image.replaceSubrange(other * FileFormat.pageSize..<(other + 1) * FileFormat.pageSize,
                              with: images.after[slot * FileFormat.pageSize..<(slot + 1) * FileFormat.pageSize])
        let dir = TemporaryDirectory()
        do {
            let seen = try Self.open(image, key: nil, in: dir)
            #expect(seen.version == 3)
            let w = try seen.database.beginWrite()
            try #require(try w.table(named: "Row")).set(ObjectKey(primaryKey: 0), 1, .string("v4"))
            #expect(try w.commit() == 4)
        }
        let reopened = try Self.open(try Self.bytes(dir.file("image.atoll")), key: nil, in: TemporaryDirectory())
        #expect(reopened.version == 4 && reopened.text0 == .string("v4"))

        let missing = Int(try #require(Self.listedPages(images.after, slot: slot).first).page)
        Self.copyPage(missing, from: images.before, into: &image)
        let bothDir = TemporaryDirectory()
        let path = bothDir.file("both.atoll")
        try Data(image).write(to: URL(fileURLWithPath: path))
        #expect { _ = try Database.open(DatabaseConfiguration(path: path)) } throws: {
            ($0 as? AtollError)?.kind == .fileCorrupted && "\($0)".contains("complete commit")
        }
    }

    /// The record found incomplete is left out by every later open while any process has the
    /// database open (they do not check it again), until a commit overwrites it.
    @Test func theIncompleteRecordIsLeftOutUntilACommitReplacesIt() throws {
        let images = try Self.makeImages()
        let slot = try Self.slotPage(of: 3, in: images.after, key: nil)
        var image = images.before
        Self.copyPage(slot, from: images.after, into: &image)
        let dir = TemporaryDirectory()
        let first = try Self.open(image, key: nil, in: dir)
        #expect(first.version == 2)
        #expect(first.database.lock.rejectedRecord?.version == 3)
        let readOnly = try Database.open(DatabaseConfiguration(path: dir.file("image.atoll"), readOnly: true))
        #expect(readOnly.latestVersion == 2)
        let r = try readOnly.beginRead()
        #expect(r.version == 2)
        #expect(try r.table(named: "Row")?.count == Self.rows)
        r.close()
        let w = try first.database.beginWrite()
        try #require(try w.table(named: "Row")).set(ObjectKey(primaryKey: 0), 1, .string("replaced"))
        #expect(try w.commit() == 3)
        #expect(first.database.lock.rejectedRecord == nil)
        let r3 = try readOnly.beginRead()
        #expect(r3.version == 3)
        #expect(try r3.table(named: "Row")?.value(ObjectKey(primaryKey: 0), 1) == .string("replaced"))
        r3.close()
    }

    /// Files of formats 1 and 2 keep the two-sync commit (their readers do not check lists);
    /// format 3 syncs once per small commit and twice for a commit too large to list.
    @Test func syncsPerCommit() throws {
        let dir = TemporaryDirectory()
        let disk = SimulatedDisk(directory: dir.path, watchedName: "db.atoll")
        defer { disk.stop() }
        let db = try Database.open(DatabaseConfiguration(path: dir.file("db.atoll")))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(Self.spec))
        for i in 0..<200 { try t.set(try t.create(primaryKey: .int(Int64(i))), 1, .string("row \(i)")) }
        try w.commit()
        let before = disk.eventCounts
        for i in 0..<20 {
            let w = try db.beginWrite()
            try #require(try w.table(named: "Row")).set(ObjectKey(primaryKey: Int64(i)), 1, .string("changed \(i)"))
            try w.commit()
        }
        let after = disk.eventCounts
        #expect(after["fdatasyncs", default: 0] - before["fdatasyncs", default: 0] == 20)
        #expect(after["range syncs", default: 0] == before["range syncs", default: 0])
        #expect(db.lock.durableVersion == db.latestVersion)

        // A commit of more than CommitPageList.pagesMax pages: two syncs, no list.
        let big = try db.beginWrite()
        try #require(try big.table(named: "Row")).set(ObjectKey(primaryKey: 7), 2, .binary([UInt8](repeating: 1, count: 5 << 20)))
        try big.commit()
        let last = disk.eventCounts
        #expect(last["fdatasyncs", default: 0] - after["fdatasyncs", default: 0] == 1)
        #expect(last["range syncs", default: 0] - after["range syncs", default: 0] == 1)
        let r = try db.beginRead()
        #expect(r.rootRecord.commitListCount == 0)
        r.close()
        _ = try db.verify()
    }

    @Test func aFormat2FileIsCommittedWithTwoSyncs() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("db.atoll")
        try FileManager.default.copyItem(atPath: GoldenFileTests.fixture(formatVersion: 2), toPath: path)
        let disk = SimulatedDisk(directory: dir.path, watchedName: "db.atoll")
        defer { disk.stop() }
        let db = try Database.open(DatabaseConfiguration(path: path))
        let w = try db.beginWrite()
        try #require(try w.table(named: "Golden")).set(ObjectKey(primaryKey: 3), 1, .string("changed"))
        let before = disk.eventCounts
        try w.commit()
        let after = disk.eventCounts
        #expect(after["range syncs", default: 0] - before["range syncs", default: 0] == 1)
        let r = try db.beginRead()
        #expect(r.rootRecord.commitListCount == 0)
        r.close()
        _ = try db.verify()
    }

    /// A writer that cannot know the newest version is on stable storage (its committer was
    /// killed between record and sync, or did not sync) syncs before it reuses any page.
    @Test func aWriterSyncsFirstWhenTheNewestVersionIsNotKnownDurable() throws {
        let dir = TemporaryDirectory()
        let disk = SimulatedDisk(directory: dir.path, watchedName: "db.atoll")
        defer { disk.stop() }
        let db = try Database.open(DatabaseConfiguration(path: dir.file("db.atoll")))
        let w = try db.beginWrite()
        try w.createTable(Self.spec)
        try w.commit()
        db.lock.setDurable(version: 0)
        let before = disk.eventCounts["fdatasyncs", default: 0]
        let w2 = try db.beginWrite()
        #expect(disk.eventCounts["fdatasyncs", default: 0] == before + 1, "synced before the transaction began")
        #expect(db.lock.durableVersion == db.latestVersion)
        try #require(try w2.table(named: "Row")).create(primaryKey: .int(1))
        try w2.commit()
        #expect(disk.eventCounts["fdatasyncs", default: 0] == before + 2)
    }

    /// The commits that keep two syncs, under simulated power loss (SimulatedDisk): a commit too
    /// large for a page list (format 3: a 5 MiB value) and every commit to a format-2 file,
    /// followed by a small commit (one sync in format 3). Every image a power failure at any
    /// durability point can leave opens at a version at least as new as the last returned one,
    /// passes verify, and holds exactly that version's contents.
    @Test(arguments: [UInt32(3), UInt32(2)])
    func twoSyncCommitsSurvivePowerLoss(formatVersion: UInt32) throws {
        let dir = TemporaryDirectory()
        let path = dir.file("db.atoll")
        try FileManager.default.copyItem(atPath: GoldenFileTests.fixture(formatVersion: formatVersion), toPath: path)
        let disk = SimulatedDisk(directory: dir.path, watchedName: "db.atoll")
        defer { disk.stop() }
        let db = try Database.open(DatabaseConfiguration(path: path))
        let v0 = db.latestVersion
        let large = [UInt8]((0..<(5 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 >> 7) })
        // What each version holds: object 1's blob and object 2's name.
        let expected: [UInt64: (blob: StorageValue, name: StorageValue)] = [
            v0: (.null, .string("item 2")), v0 + 1: (.binary(large), .string("item 2")), v0 + 2: (.binary(large), .string("renamed")),
        ]
        disk.setVersionReturned(v0)
        disk.setRecording(true)
        let w1 = try db.beginWrite()
        try #require(try w1.table(named: "Golden")).set(ObjectKey(primaryKey: 1), 4, .binary(large))
        #expect(try w1.commit() == v0 + 1)
        #expect(disk.eventCounts["range syncs", default: 0] == 1, "the large commit synced its pages, then its slot")
        disk.setVersionReturned(v0 + 1)
        disk.crashPoint("after version \(v0 + 1) returned")
        let w2 = try db.beginWrite()
        try #require(try w2.table(named: "Golden")).set(ObjectKey(primaryKey: 2), 1, .string("renamed"))
        #expect(try w2.commit() == v0 + 2)
        #expect(disk.eventCounts["range syncs", default: 0] == (formatVersion == 2 ? 2 : 1))
        disk.setVersionReturned(v0 + 2)
        disk.crashPoint("after version \(v0 + 2) returned")

        var rng = SeededGenerator(seed: UInt64(formatVersion))
        let images = TemporaryDirectory()
        var seen: Set<UInt64> = []
        let points = disk.takeCrashPoints()
        #expect(points.count >= 4)
        for (i, point) in points.enumerated() {
            for j in 0..<6 {
                let (bytes, drawn) = point.image(using: &rng)
                let bytesOfImage = try #require(bytes, "\(point.label): the file's name is durable")
                let imagePath = images.file("image-\(i)-\(j).atoll")
                try Data(bytesOfImage).write(to: URL(fileURLWithPath: imagePath))
                let image = try Database.open(DatabaseConfiguration(path: imagePath, durability: .unsafe))
                _ = try image.verify()
                let r = try image.beginRead()
                let t = try #require(try r.table(named: "Golden"))
                let want = try #require(expected[r.version], "\(point.label), \(drawn): version \(r.version)")
                #expect(r.version >= point.versionReturned ?? 0, "\(point.label), \(drawn)")
                #expect(try t.value(ObjectKey(primaryKey: 1), 4) == want.blob, "\(point.label), \(drawn)")
                #expect(try t.value(ObjectKey(primaryKey: 2), 1) == want.name, "\(point.label), \(drawn)")
                seen.insert(r.version)
                r.close()
            }
        }
        #expect(seen == Set(expected.keys), "images of every version were drawn")
    }
}
