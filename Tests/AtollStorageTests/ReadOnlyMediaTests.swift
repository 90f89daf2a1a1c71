#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// Read-only opens: they join the lock file, create it only while open, and on read-only media
/// (a read-only bind mount: EROFS even for root) read the newest version without one, pinned on
/// the data file so that a writer elsewhere never reuses the pages they read.
@Suite struct ReadOnlyMediaTests {
    static var canMount: Bool { ReadOnlyMount.isSupported }

    /// Writes `rows` objects (value = id * 10 + round) in one commit per round.
    static func populate(_ path: String, rows: Int = 300, rounds: Int = 1, key: EncryptionKey? = nil) throws {
        let db = try Database.open(DatabaseConfiguration(path: path, encryptionKey: key))
        for round in 0..<rounds {
            let w = try db.beginWrite()
            let t = try w.table(named: "Dog") ?? w.table(w.createTable(dogSpec))
            for i in 0..<rows {
                let k = try t.find(primaryKey: .int(Int64(i))) ?? t.create(primaryKey: .int(Int64(i)))
                try t.set(k, 1, .string("dog \(i) round \(round) " + String(repeating: "x", count: 40)))
                try t.set(k, 2, .int(Int64(i * 10 + round)))
            }
            try w.commit()
        }
    }

    /// Every dog's age, by id.
    static func ages(_ r: Transaction) throws -> [Int64: Int64] {
        guard let t = try r.table(named: "Dog") else { return [:] }
        var ages: [Int64: Int64] = [:]
        for k in try t.objectKeys() {
            guard case .int(let age) = try t.value(k, 2) else { throw AtollError(.typeMismatch, "age of \(k)") }
            ages[k.intPrimaryKey] = age
        }
        return ages
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    @Test func readOnlyOpenLeavesNoLockFileBehind() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("pets.atoll")
        try Self.populate(path)
        unlink(DatabaseConfiguration.lockPath(for: path))
        do {
            let db = try Database.open(DatabaseConfiguration(path: path, readOnly: true, createIfMissing: false))
            #expect(!db.isUncoordinated)
            #expect(Self.exists(DatabaseConfiguration.lockPath(for: path)), "coordinated while open")
            let r = try db.beginRead()
            #expect(try Self.ages(r).count == 300)
            r.close()
            _ = try db.verify()
        }
        #expect(!Self.exists(DatabaseConfiguration.lockPath(for: path)), "the lock file the read-only open created is gone")
    }

    /// A read-only open that created the lock file coordinates with a writer that joins it (it
    /// sees the writer's commits), and leaves the file to the writer when it closes first.
    @Test func readOnlyOpenSharesTheLockFileItCreatedWithAWriter() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("pets.atoll")
        try Self.populate(path)
        unlink(DatabaseConfiguration.lockPath(for: path))
        var reader: Database? = try Database.open(DatabaseConfiguration(path: path, readOnly: true, createIfMissing: false))
        let writer = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe))
        let w = try writer.beginWrite()
        try #require(try w.table(named: "Dog")).set(ObjectKey(primaryKey: 7), 2, .int(-7))
        let v = try w.commit()
        #expect(try #require(reader).latestVersion == v)
        let r = try #require(reader).beginRead()
        #expect(try Self.ages(r)[7] == -7)
        r.close()
        reader = nil
        #expect(Self.exists(DatabaseConfiguration.lockPath(for: path)), "the writer still uses the lock file")
        _ = try writer.verify()
    }

    @Test(.enabled(if: canMount)) func readOnlyMediaAreReadWithoutALockFile() throws {
        let media = try #require(ReadOnlyMount.make())
        let name = "media-\(UUID().uuidString).atoll"
        try Self.populate(media.writable.file(name), rounds: 3)
        unlink(DatabaseConfiguration.lockPath(for: media.writable.file(name)))
        let db = try Database.open(DatabaseConfiguration(path: media.file(name), readOnly: true, createIfMissing: false))
        #expect(db.isUncoordinated)
        #expect(db.latestVersion == 4)
        let r = try db.beginRead()
        let ages = try Self.ages(r)
        r.close()
        #expect(ages.count == 300 && ages[7] == 72)
        _ = try db.verify()
        _ = try db.stats()
        #expect(throws: AtollError.self) { _ = try db.beginWrite() }
        #expect(!Self.exists(DatabaseConfiguration.lockPath(for: media.writable.file(name))))
    }

    /// A stale lock file on read-only media cannot be joined (it cannot be opened for writing):
    /// the open reads without it.
    @Test(.enabled(if: canMount)) func staleLockFileOnReadOnlyMediaIsNotNeeded() throws {
        let media = try #require(ReadOnlyMount.make())
        let name = "stale-\(UUID().uuidString).atoll"
        try Self.populate(media.writable.file(name))
        #expect(Self.exists(DatabaseConfiguration.lockPath(for: media.writable.file(name))))
        let key = EncryptionKey.random()
        let encrypted = "encrypted-\(UUID().uuidString).atoll"
        try Self.populate(media.writable.file(encrypted), key: key)
        for (file, k) in [(name, nil), (encrypted, key)] as [(String, EncryptionKey?)] {
            let db = try Database.open(DatabaseConfiguration(path: media.file(file), readOnly: true, createIfMissing: false, encryptionKey: k))
            #expect(db.isUncoordinated)
            let r = try db.beginRead()
            #expect(try Self.ages(r).count == 300)
            r.close()
            _ = try db.verify()
        }
    }

    /// The unsafe case the design guards against: a writer (here through the writable view of
    /// the same directory, as another user allowed to write it would) commits while a reader
    /// without a lock file reads an old version. The reader's pin on the data file keeps every
    /// page of its version from reuse, so it keeps reading exactly what it read; once it closes,
    /// the writer reuses pages again.
    @Test(.enabled(if: canMount)) func writerNeverReusesPagesOfAReaderWithoutLockFile() throws {
        let media = try #require(ReadOnlyMount.make())
        let name = "shared-\(UUID().uuidString).atoll"
        let writablePath = media.writable.file(name)
        try Self.populate(writablePath, rows: 2000)
        unlink(DatabaseConfiguration.lockPath(for: writablePath))

        let writer = try Database.open(DatabaseConfiguration(path: writablePath, durability: .unsafe))
        func rewriteAll(_ round: Int) throws {
            let w = try writer.beginWrite()
            let t = try #require(try w.table(named: "Dog"))
            for i in 0..<2000 { try t.set(ObjectKey(primaryKey: Int64(i)), 2, .int(Int64(-round))) }
            try w.commit()
        }
        let pinnedGrowth: Int
        do {
            let reader = try Database.open(DatabaseConfiguration(path: media.file(name), readOnly: true, createIfMissing: false))
            let snapshot = try reader.beginRead()
            defer { snapshot.close() }
            let before = try Self.ages(snapshot)
            #expect(reader.isUncoordinated && before.count == 2000)
            for round in 1...6 { try rewriteAll(round) }
            #expect(try Self.ages(snapshot) == before, "the uncoordinated reader's pages were reused")
            _ = try snapshot.verify()
            pinnedGrowth = try writer.stats().fileSizeBytes
        }
        // The reader is closed (its pin went with its file descriptor).
        for round in 7...12 { try rewriteAll(round) }
        let settled = try writer.stats().fileSizeBytes
        for round in 13...30 { try rewriteAll(round) }
        #expect(try writer.stats().fileSizeBytes <= max(settled, pinnedGrowth), "pages are reused once the reader is gone")
        _ = try writer.verify()
    }
}
