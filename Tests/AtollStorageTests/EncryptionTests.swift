import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// Encryption at rest (docs/FORMAT.md, "Encryption"): round trips, key checks, tamper
/// detection on every page, copies that encrypt, decrypt and re-key, snapshots under page
/// reuse. (Shrinking and compaction: SpaceReuseTests; remapping: MaintenanceTests; processes:
/// EncryptionMultiProcessTests.)
@Suite struct EncryptionTests {
    static let noteSpec = TableSpec(name: "Note", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "title", type: .string, isIndexed: true),
        ColumnSpec(name: "body", type: .binary, isNullable: true),
        ColumnSpec(name: "n", type: .int, isIndexed: true),
    ], primaryKey: "id")

    static let marker = "plaintext-marker-7f3a"

    /// One row as read back: id, title, body, n.
    struct Row: Equatable { var id: Int64; var title: String; var body: [UInt8]?; var n: Int64 }

    static func expectedRow(_ i: Int) -> Row {
        Row(id: Int64(i), title: "\(marker) note \(i)", body: i % 20 == 0 ? [UInt8](repeating: UInt8(i & 255), count: 10_000) : nil,
            n: Int64(i % 17))
    }

    static func populate(_ db: Database, count: Int) throws {
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(noteSpec))
        for i in 0..<count {
            let r = expectedRow(i)
            let k = try t.create(primaryKey: .int(r.id))
            try t.set(k, 1, .string(r.title))
            if let body = r.body { try t.set(k, 2, .binary(body)) }
            try t.set(k, 3, .int(r.n))
        }
        try w.commit()
    }

    /// Reads every row and value, and looks every indexed value up, so that every page of the
    /// catalog, the cluster tree, the blobs and the indexes is read.
    static func readEverything(_ db: Database) throws -> [Row] {
        let r = try db.beginRead()
        defer { r.close() }
        guard let t = try r.table(named: "Note") else { return [] }
        var rows: [Row] = []
        for k in try t.objectKeys() {
            guard case .int(let id) = try t.value(k, 0), case .string(let title) = try t.value(k, 1), case .int(let n) = try t.value(k, 3) else {
                throw AtollError(.typeMismatch, "unexpected value types")
            }
            var body: [UInt8]?
            if case .binary(let b) = try t.value(k, 2) { body = b }
            guard try t.findAll(indexed: 1, equalTo: .string(title)).contains(k), try t.findAll(indexed: 3, equalTo: .int(n)).contains(k) else {
                throw AtollError(.fileCorrupted, "an index lost object \(id)")
            }
            rows.append(Row(id: id, title: title, body: body, n: n))
        }
        return rows
    }

    static func configuration(_ path: String, _ key: EncryptionKey?, durability: DatabaseConfiguration.Durability = .unsafe) -> DatabaseConfiguration {
        DatabaseConfiguration(path: path, durability: durability, encryptionKey: key)
    }

    static func kind(of body: () throws -> Void) -> AtollError.Kind? {
        error(of: body)?.kind
    }

    static func error(of body: () throws -> Void) -> AtollError? {
        do { try body() } catch let e as AtollError { return e } catch { return AtollError(.ioError, "not an AtollError: \(error)") }
        return nil
    }

    static func contains(_ path: String, _ text: String) throws -> Bool {
        try Data(contentsOf: URL(fileURLWithPath: path)).range(of: Data(text.utf8)) != nil
    }

    @Test func roundTripThroughCloseAndReopenAndNoPlaintextOnDisk() throws {
        let dir = TemporaryDirectory()
        let key = EncryptionKey.random()
        let path = dir.file("secret.atoll"), plain = dir.file("plain.atoll")
        do {
            try Self.populate(try Database.open(Self.configuration(path, key, durability: .full)), count: 300)
            try Self.populate(try Database.open(Self.configuration(plain, nil)), count: 300)
        }
        #expect(!Database.isOpen(path: path))
        #expect(try Self.contains(plain, Self.marker), "control: an unencrypted file holds the text")
        #expect(try !Self.contains(path, Self.marker), "an encrypted file must not hold any plaintext")

        let db = try Database.open(Self.configuration(path, key))
        #expect(try Self.readEverything(db) == (0..<300).map(Self.expectedRow))
        let report = try db.verify()
        #expect(report.tables.first?.objects == 300)
        // A second round of changes on the reopened file, read back through the same cache.
        let w = try db.beginWrite()
        let t = try #require(try w.table(named: "Note"))
        try t.set(ObjectKey(primaryKey: 7), 1, .string("changed"))
        try t.erase(ObjectKey(primaryKey: 8))
        try w.commit()
        var expected = (0..<300).map(Self.expectedRow)
        expected[7].title = "changed"
        expected.remove(at: 8)
        #expect(try Self.readEverything(db) == expected)
        _ = try db.verify()
    }

    @Test func wrongKeyNoKeyAndKeyOnAnUnencryptedFileAreRefused() throws {
        let dir = TemporaryDirectory()
        let key = EncryptionKey.random()
        let path = dir.file("secret.atoll"), plain = dir.file("plain.atoll")
        do {
            try Self.populate(try Database.open(Self.configuration(path, key)), count: 10)
            try Self.populate(try Database.open(Self.configuration(plain, nil)), count: 10)
        }
        #expect(Self.kind { _ = try Database.open(Self.configuration(path, EncryptionKey.random())) } == .invalidKey)
        #expect(Self.kind { _ = try Database.open(Self.configuration(path, nil)) } == .fileEncrypted)
        #expect(Self.kind { _ = try Database.open(Self.configuration(plain, key)) } == .invalidKey)
        // A key that differs in its authentication half only is wrong too.
        var bytes = key.bytes
        bytes[63] ^= 1
        #expect(Self.kind { _ = try Database.open(Self.configuration(path, try EncryptionKey(bytes: bytes))) } == .invalidKey)
        // A file open in this process with its key cannot be opened again with another one.
        let db = try Database.open(Self.configuration(path, key))
        #expect(Self.kind { _ = try Database.open(Self.configuration(path, EncryptionKey.random())) } == .invalidKey)
        #expect(Self.kind { _ = try Database.open(Self.configuration(path, nil)) } == .fileEncrypted)
        #expect(try Self.readEverything(db).count == 10)
    }

    @Test func keysOfTheWrongLengthAndInMemoryEncryptionAreRefused() throws {
        #expect(Self.kind { _ = try EncryptionKey(bytes: [UInt8](repeating: 1, count: 32)) } == .invalidKey)
        #expect(EncryptionKey.random().description.contains("redacted"))
        var memory = DatabaseConfiguration(inMemoryIdentifier: "encrypted-\(UUID().uuidString)")
        memory.encryptionKey = EncryptionKey.random()
        #expect(Self.kind { _ = try Database.open(memory) } == .invalidArgument)
    }

    /// Every page of a small compact file (no free pages): a flipped bit in its ciphertext or in
    /// its metadata entry is found by verify and by a fresh reader, and never returns garbage.
    @Test func aFlippedBitInAnyPageIsDetectedByVerifyAndOnRead() throws {
        let dir = TemporaryDirectory()
        let key = EncryptionKey.random()
        let source = dir.file("source.atoll"), compact = dir.file("compact.atoll")
        do {
            let db = try Database.open(Self.configuration(source, nil))
            try Self.populate(db, count: 300)
            try db.writeCopy(to: compact, encryptionKey: key)
        }
        let pageCount: UInt32 = try {
            let db = try Database.open(Self.configuration(compact, key))
            let report = try db.verify()
            #expect(report.freePages == 0)
            return UInt32(report.pageCount)
        }()
        let pristine = try Data(contentsOf: URL(fileURLWithPath: compact))
        let physicalPages = pristine.count / FileFormat.pageSize
        #expect(physicalPages == EncryptedLayout.physicalPageCount(pageCount))
        let expected = (0..<300).map(Self.expectedRow)
        let flipped = dir.file("flipped.atoll")
        var rng = SystemRandomNumberGenerator()
        var checked = 0

        func expectDetected(_ bytes: Data, _ what: String) throws {
            try? FileManager.default.removeItem(atPath: flipped)
            try? FileManager.default.removeItem(atPath: flipped + ".lock")
            try bytes.write(to: URL(fileURLWithPath: flipped))
            let verifyError = Self.error { _ = try Database.open(Self.configuration(flipped, key)).verify() }
            #expect(verifyError?.kind == .fileCorrupted, "verify missed \(what): \(String(describing: verifyError))")
            let readError = Self.error { _ = try Self.readEverything(try Database.open(Self.configuration(flipped, key))) }
            #expect(readError?.kind == .fileCorrupted, "a reader missed \(what): \(String(describing: readError))")
            checked += 1
        }

        for p in Int(FileFormat.firstDataPage)..<physicalPages {
            var bytes = pristine
            let k = p - Int(FileFormat.firstDataPage)
            if k % (EncryptedLayout.pagesPerGroup + 1) == 0 {
                // A metadata page: damage the current counter or HMAC of one entry in use.
                let group = k / (EncryptedLayout.pagesPerGroup + 1)
                let firstPage = Int(FileFormat.firstDataPage) + group * EncryptedLayout.pagesPerGroup
                let used = min(EncryptedLayout.pagesPerGroup, Int(pageCount) - firstPage)
                for entry in [0, used - 1, Int.random(in: 0..<used, using: &rng)] {
                    var damaged = pristine
                    damaged[p * FileFormat.pageSize + entry * EncryptedLayout.entryBytes + Int.random(in: 0..<32, using: &rng)] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
                    try expectDetected(damaged, "a flipped bit in the entry of page \(firstPage + entry)")
                }
                // The previous pair of an entry is unused here: damaging it changes nothing.
                bytes[p * FileFormat.pageSize + 40] ^= 0x80
                try? FileManager.default.removeItem(atPath: flipped)
                try? FileManager.default.removeItem(atPath: flipped + ".lock")
                try bytes.write(to: URL(fileURLWithPath: flipped))
                let db = try Database.open(Self.configuration(flipped, key))
                #expect(try Self.readEverything(db) == expected)
                continue
            }
            bytes[p * FileFormat.pageSize + Int.random(in: 0..<FileFormat.pageSize, using: &rng)] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            try expectDetected(bytes, "a flipped bit in physical page \(p)")
        }
        #expect(checked >= Int(pageCount) - Int(FileFormat.firstDataPage))

        // The header: a flipped bit fails its checksum at open.
        var header = pristine
        header[60] ^= 4
        try? FileManager.default.removeItem(atPath: flipped)
        try header.write(to: URL(fileURLWithPath: flipped))
        #expect(Self.kind { _ = try Database.open(Self.configuration(flipped, key)) } == .fileCorrupted)
    }

    @Test func writeCopyEncryptsDecryptsAndRekeys() throws {
        let dir = TemporaryDirectory()
        let k1 = EncryptionKey.random(), k2 = EncryptionKey.random()
        let plain = dir.file("plain.atoll"), encrypted = dir.file("k1.atoll"), rekeyed = dir.file("k2.atoll"), decrypted = dir.file("clear.atoll")
        let same = dir.file("same.atoll")
        let expected = (0..<200).map(Self.expectedRow)
        do {
            let db = try Database.open(Self.configuration(plain, nil))
            try Self.populate(db, count: 200)
            try db.writeCopy(to: encrypted, encryptionKey: k1)
        }
        do {
            let db = try Database.open(Self.configuration(encrypted, k1))
            #expect(try Self.readEverything(db) == expected)
            try db.writeCopy(to: rekeyed, encryptionKey: k2)
            try db.writeCopy(to: same)
        }
        #expect(Self.kind { _ = try Database.open(Self.configuration(rekeyed, k1)) } == .invalidKey)
        #expect(try !Self.contains(encrypted, Self.marker) && !Self.contains(rekeyed, Self.marker))
        do {
            let db = try Database.open(Self.configuration(rekeyed, k2))
            #expect(try Self.readEverything(db) == expected)
            _ = try db.verify()
            try db.writeCopy(to: decrypted, encryptionKey: nil)
        }
        // writeCopy(to:) keeps the source's key.
        #expect(try Self.readEverything(try Database.open(Self.configuration(same, k1))) == expected)
        #expect(try Self.contains(decrypted, Self.marker))
        let db = try Database.open(Self.configuration(decrypted, nil))
        #expect(try Self.readEverything(db) == expected)
        _ = try db.verify()
    }

    /// A crash in the middle of an IV epoch reservation leaves the newest version in the slot
    /// a commit would normally write next, and the other slot torn: the file opens, reads and
    /// verifies, and later commits write the torn slot, never the only valid one.
    @Test func aCrashBetweenTheTwoSlotWritesOfAnEpochReservationLosesNothing() throws {
        let dir = TemporaryDirectory()
        let key = EncryptionKey.random()
        let path = dir.file("epoch.atoll")
        try Self.populate(try Database.open(Self.configuration(path, key)), count: 40)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // The slot holding the newest version (by parity) is torn after a copy of it went to the other.
        let version: UInt64 = try bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, let root = RootRecord.newest(in: base) else { throw AtollError.corrupted("no root") }
            return root.version
        }
        let usual = Int(FileFormat.slotPage(forVersion: version)) * FileFormat.pageSize
        let other = Int(FileFormat.slotPage(forVersion: version + 1)) * FileFormat.pageSize
        #expect(bytes.withUnsafeBytes { raw in raw.baseAddress.flatMap { RootRecord.read(from: $0 + usual)?.version } } == version)
        bytes.replaceSubrange(other..<(other + FileFormat.pageSize), with: bytes[usual..<(usual + FileFormat.pageSize)])
        bytes.replaceSubrange(usual..<(usual + 64), with: [UInt8](repeating: 0, count: 64))
        try bytes.write(to: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: path + ".lock")
        for round in 0..<3 {
            let db = try Database.open(Self.configuration(path, key))
            #expect(try Self.readEverything(db).count == 40 + round)
            _ = try db.verify()
            let w = try db.beginWrite()
            let t = try #require(try w.table(named: "Note"))
            let k = try t.create(primaryKey: .int(Int64(1000 + round)))
            try t.set(k, 1, .string("round \(round)"))
            try w.commit()
        }
        let db = try Database.open(Self.configuration(path, key))
        #expect(try Self.readEverything(db).count == 43)
        _ = try db.verify()
    }

    @Test func snapshotsKeepTheirPagesWhileTheWriterReusesOthers() throws {
        let dir = TemporaryDirectory()
        let key = EncryptionKey.random()
        let db = try Database.open(Self.configuration(dir.file("mvcc.atoll"), key))
        try Self.populate(db, count: 50)
        let old = try db.beginRead()
        for round in 0..<30 {
            let w = try db.beginWrite()
            let t = try #require(try w.table(named: "Note"))
            for i in 0..<50 { try t.set(ObjectKey(primaryKey: Int64(i)), 1, .string("round \(round) note \(i)")) }
            try w.commit()
        }
        let t = try #require(try old.table(named: "Note"))
        for i in 0..<50 { #expect(try t.value(ObjectKey(primaryKey: Int64(i)), 1) == .string(Self.expectedRow(i).title)) }
        old.close()
        let r = try db.beginRead()
        let latest = try #require(try r.table(named: "Note"))
        for i in 0..<50 { #expect(try latest.value(ObjectKey(primaryKey: Int64(i)), 1) == .string("round 29 note \(i)")) }
        r.close()
        // A rolled-back transaction leaves nothing behind in the decrypted pages.
        let w = try db.beginWrite()
        try #require(try w.table(named: "Note")).set(ObjectKey(primaryKey: 1), 1, .string("never committed"))
        w.rollback()
        let r2 = try db.beginRead()
        #expect(try #require(try r2.table(named: "Note")).value(ObjectKey(primaryKey: 1), 1) == .string("round 29 note 1"))
        r2.close()
        _ = try db.verify()
    }
}
