import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// Each released file format keeps a golden file in Fixtures/format-vN; every later version of
/// Atoll must still open it and read the same contents. `ATOLL_WRITE_GOLDEN=1` regenerates it
/// (only when the format version changes).
@Suite struct GoldenFileTests {
    static func fixture(formatVersion: UInt32) -> String {
        GoldenFixture.path("format-v\(formatVersion)")
    }

    static let fixture = fixture(formatVersion: 1)

    static let spec = TableSpec(name: "Golden", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "name", type: .string, isIndexed: true),
        ColumnSpec(name: "score", type: .double, isNullable: true),
        ColumnSpec(name: "when", type: .timestamp),
        ColumnSpec(name: "blob", type: .binary, isNullable: true),
        ColumnSpec(name: "tags", type: .string, isList: true),
        ColumnSpec(name: "next", type: .link, isNullable: true, linkTarget: "Golden"),
    ], primaryKey: "id")

    static func expected(_ i: Int) -> [StorageValue] {
        [.int(Int64(i)), .string("item \(i)"), i % 3 == 0 ? .null : .double(Double(i) * 1.5),
         .timestamp(Timestamp(seconds: 1_700_000_000 + Int64(i), nanoseconds: Int32(i * 7))),
         i % 50 == 0 ? .binary([UInt8](repeating: UInt8(i % 256), count: 3000)) : .null]
    }

    /// Writes the golden file of the current format version (the same contents for every version).
    @Test func writeGoldenFileWhenAsked() throws {
        let fixture = Self.fixture(formatVersion: FileFormat.formatVersion)
        guard let db = try GoldenFixture.startRegenerating(fixture, when: "ATOLL_WRITE_GOLDEN") else { return }
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(Self.spec))
        for i in 0..<500 {
            let k = try t.create(primaryKey: .int(Int64(i)))
            for (c, v) in Self.expected(i).enumerated().dropFirst() { try t.set(k, c, v) }
            try t.setList(k, 5, (0..<(i % 4)).map { .string("t\($0)") })
        }
        for i in 0..<499 { try t.set(ObjectKey(primaryKey: Int64(i)), 6, .link(ObjectKey(primaryKey: Int64(i + 1)))) }
        try w.commit()
        try GoldenFixture.finishRegenerating(fixture)
        #expect(try db.verify().tables.first?.objects == 500)
    }

    /// The golden contents, read back from `db`: every value of a sample of objects, lists,
    /// links and an index lookup, after `verify` passed.
    static func expectGoldenContents(_ db: Database) throws {
        let report = try db.verify()
        #expect(report.tables.first?.objects == 500)
        let r = try db.beginRead()
        defer { r.close() }
        let t = try #require(try r.table(named: "Golden"))
        #expect(t.spec == Self.spec)
        for i in [0, 1, 3, 50, 250, 499] {
            let k = ObjectKey(primaryKey: Int64(i))
            for (c, v) in Self.expected(i).enumerated() { #expect(try t.value(k, c) == v) }
            #expect(try t.listValues(k, 5) == (0..<(i % 4)).map { .string("t\($0)") })
            #expect(try t.value(k, 6) == (i < 499 ? .link(ObjectKey(primaryKey: Int64(i + 1))) : .null))
        }
        #expect(try t.findAll(indexed: 1, equalTo: .string("item 42")) == [ObjectKey(primaryKey: 42)])
    }

    static func formatVersion(of path: String) throws -> UInt32 {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(FileHeader.byteCount)
        return try bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { throw AtollError.corrupted("empty file") }
            return try FileHeader.read(from: base, fileBytes: 3 * FileFormat.pageSize, path: path).formatVersion
        }
    }

    @Test func formatVersion1GoldenFileStillOpens() throws {
        let dir = TemporaryDirectory()
        let copy = try GoldenFixture.copy(Self.fixture, into: dir)
        #expect(try Self.formatVersion(of: copy) == 1)
        try Self.expectGoldenContents(try Database.open(DatabaseConfiguration(path: copy, readOnly: false)))
    }

    @Test func formatVersion2GoldenFileStillOpens() throws {
        let dir = TemporaryDirectory()
        let copy = try GoldenFixture.copy(Self.fixture(formatVersion: 2), into: dir)
        #expect(try Self.formatVersion(of: copy) == 2)
        try Self.expectGoldenContents(try Database.open(DatabaseConfiguration(path: copy, readOnly: false)))
    }

    @Test func formatVersion3GoldenFileStillOpens() throws {
        let dir = TemporaryDirectory()
        let copy = try GoldenFixture.copy(Self.fixture(formatVersion: 3), into: dir)
        #expect(try Self.formatVersion(of: copy) == 3)
        // Its newest record carries a commit page list, which open checks against the pages.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: copy))
        let listed = bytes.withUnsafeBytes { $0.baseAddress.flatMap { RootRecord.newest(in: $0) }?.commitListCount ?? 0 }
        #expect(listed > 0)
        try Self.expectGoldenContents(try Database.open(DatabaseConfiguration(path: copy, readOnly: false)))
    }

    /// A format-1 file stays format 1 when written in place (its pages keep checksums that do
    /// not bind place, which verify and readers accept); writeCopy and compaction upgrade it.
    @Test func aFormatVersion1FileIsWrittenInPlaceAndUpgradedByACopy() throws {
        let dir = TemporaryDirectory()
        let copy = dir.file("golden.atoll"), upgraded = dir.file("upgraded.atoll")
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: copy)
        do {
            let db = try Database.open(DatabaseConfiguration(path: copy))
            let w = try db.beginWrite()
            let t = try #require(try w.table(named: "Golden"))
            for i in 500..<600 {
                let k = try t.create(primaryKey: .int(Int64(i)))
                try t.set(k, 1, .string("new \(i)"))
            }
            try t.set(ObjectKey(primaryKey: 7), 2, .double(-1))
            try t.erase(ObjectKey(primaryKey: 599))
            try w.commit()
            #expect(try db.verify().tables.first?.objects == 599)
            try db.writeCopy(to: upgraded)
        }
        #expect(try Self.formatVersion(of: copy) == 1)
        #expect(try Self.formatVersion(of: upgraded) == FileFormat.formatVersion)
        for path in [copy, upgraded] {
            let db = try Database.open(DatabaseConfiguration(path: path))
            #expect(try db.verify().tables.first?.objects == 599)
            let r = try db.beginRead()
            defer { r.close() }
            let t = try #require(try r.table(named: "Golden"))
            #expect(try t.value(ObjectKey(primaryKey: 7), 2) == .double(-1))
            #expect(try t.value(ObjectKey(primaryKey: 550), 1) == .string("new 550"))
            #expect(try t.value(ObjectKey(primaryKey: 250), 1) == .string("item 250"))
        }
    }

    @Test func foreignTruncatedAndNewerFilesAreRefused() throws {
        let dir = TemporaryDirectory()
        let foreign = dir.file("foreign.atoll")
        _ = FileManager.default.createFile(atPath: foreign, contents: Data("SQLite format 3\u{0}".utf8 + [UInt8](repeating: 0, count: 20000)))
        #expect(throws: AtollError.self) { _ = try Database.open(DatabaseConfiguration(path: foreign)) }
        do { _ = try Database.open(DatabaseConfiguration(path: foreign)) } catch let e as AtollError { #expect(e.kind == .notAnAtollFile) }

        // A file shorter than a page that holds anything is not overwritten by a writable open.
        let tiny = dir.file("tiny.atoll")
        try Data("a".utf8).write(to: URL(fileURLWithPath: tiny))
        for readOnly in [false, true] {
            do {
                _ = try Database.open(DatabaseConfiguration(path: tiny, readOnly: readOnly))
                Issue.record("a one-byte file opened (readOnly: \(readOnly))")
            } catch let e as AtollError {
                #expect(e.kind == .notAnAtollFile, "\(e)")
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: tiny)) == Data("a".utf8))

        let original = try Data(contentsOf: URL(fileURLWithPath: Self.fixture))
        let truncated = dir.file("truncated.atoll")
        try original.prefix(9000).write(to: URL(fileURLWithPath: truncated))
        do { _ = try Database.open(DatabaseConfiguration(path: truncated)); Issue.record("truncated file opened") }
        catch let e as AtollError { #expect(e.kind == .fileCorrupted) }

        var newer = original
        newer[8] = 99 // format version
        // Keep the header checksum valid so the version check, not the checksum, refuses it.
        let crc = newer.prefix(124).withUnsafeBytes { CRC32C.checksum($0) }
        withUnsafeBytes(of: crc.littleEndian) { for (i, b) in $0.enumerated() { newer[124 + i] = b } }
        let newerPath = dir.file("newer.atoll")
        try newer.write(to: URL(fileURLWithPath: newerPath))
        do { _ = try Database.open(DatabaseConfiguration(path: newerPath)); Issue.record("newer file opened") }
        catch let e as AtollError { #expect(e.kind == .fileFormatTooNew) }

        // A flipped bit in a data page is found by verify.
        var flipped = original
        let catalogPage = try original.withUnsafeBytes { raw -> Int in
            guard let base = raw.baseAddress, let root = RootRecord.newest(in: base) else { throw AtollError.corrupted("fixture") }
            return Int(root.catalogRoot)
        }
        flipped[catalogPage * 4096 + 4000] ^= 0x10
        let flippedPath = dir.file("flipped.atoll")
        try flipped.write(to: URL(fileURLWithPath: flippedPath))
        let db = try Database.open(DatabaseConfiguration(path: flippedPath))
        do { _ = try db.verify(); Issue.record("corruption not detected") }
        catch let e as AtollError { #expect(e.kind == .fileCorrupted) }
    }
}
