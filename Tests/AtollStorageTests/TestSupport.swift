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
