import Foundation
@testable import AtollStorage
import AtollTestSupport


let dogSpec = TableSpec(name: "Dog", columns: [
    ColumnSpec(name: "id", type: .int),
    ColumnSpec(name: "name", type: .string, isIndexed: true),
    ColumnSpec(name: "age", type: .int, isNullable: true),
    ColumnSpec(name: "score", type: .double),
    ColumnSpec(name: "active", type: .bool),
], primaryKey: "id")

/// Recomputes the stored checksum of tree page `page` in the bytes of a whole unencrypted file,
/// so a test can damage a page's structure without its checksum catching it first.
func resealChecksum(_ bytes: inout Data, page: Int) throws {
    let header = try bytes.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { throw AtollError.corrupted("empty file") }
        return try FileHeader.read(from: base, fileBytes: raw.count, path: "test")
    }
    let checksum = PageChecksum(formatVersion: header.formatVersion, fileId: header.fileId)
    let at = page * FileFormat.pageSize
    let c = bytes.withUnsafeBytes { raw in
        checksum.page(raw.baseAddress.unsafelyUnwrapped + at, number: PageNumber(page))
    }
    withUnsafeBytes(of: c.littleEndian) { for (i, b) in $0.enumerated() { bytes[at + i] = b } }
}

/// The golden files under Fixtures/ (`Fixtures/NAME/golden.atoll`): each is written by a test
/// only when the environment variable that regenerates it is "1", and every reading test opens
/// a copy, never the fixture itself (opening may write to a file).
enum GoldenFixture {
    /// The path of Fixtures/`directory`/golden.atoll.
    static func path(_ directory: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fixtures/\(directory)/golden.atoll").standardizedFileURL.path
    }

    /// When `variable` is "1": removes the fixture at `path` and opens a new database there for
    /// the caller to fill; nil otherwise. `finishRegenerating` ends it.
    static func startRegenerating(_ path: String, when variable: String) throws -> Database? {
        guard ProcessInfo.processInfo.environment[variable] == "1" else { return nil }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        return try Database.open(DatabaseConfiguration(path: path))
    }

    /// Removes the lock file that writing the fixture left beside it (it is not committed).
    static func finishRegenerating(_ path: String) throws {
        if FileManager.default.fileExists(atPath: path + ".lock") { try FileManager.default.removeItem(atPath: path + ".lock") }
    }

    /// A copy of the fixture at `path` in `directory`, for a test to open.
    static func copy(_ path: String, into directory: TemporaryDirectory) throws -> String {
        let copy = directory.file("golden.atoll")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        return copy
    }
}
