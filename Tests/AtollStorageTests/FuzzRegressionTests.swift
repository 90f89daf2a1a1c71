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
            let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe))
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
}
