// PageChecksum: the CRC32C that every tree page and blob run carries in bytes 0..<4.
//
// Format 2 (files created by this version) binds the checksum to the page's place and file:
//
//     page checksum = CRC32C(file id ‖ u32 LE page number ‖ bytes 4..<4096)
//     blob checksum = CRC32C(file id ‖ u32 LE first page ‖ bytes 4..<16+length of the run)
//
// where the file id is the 16 random bytes at offset 24 of the file header. A page moved to
// another place (two pages swapped, a page written at the wrong offset) or copied from another
// file fails its checksum even though its bytes are intact, and a zeroed page never passes.
// Format 1 computed the same CRC32C over the page bytes alone; files of format 1 keep that
// definition for as long as they exist (their header is never rewritten), and a copy made by
// `writeCopy` or `compact` is a new file of format 2.
//
// CRC32C continues over concatenated input (`CRC32C.checksum(b, continuing: CRC32C(a))` is
// CRC32C(a ‖ b)), so the file id's part is computed once per open file (`seed`).

struct PageChecksum: Sendable {
    /// Format 2: CRC32C of the file id, continued over page number and bytes; nil: format 1.
    let seed: UInt32?

    init(formatVersion: UInt32, fileId: [UInt8]) {
        seed = formatVersion >= FileFormat.placeBoundChecksumsVersion ? CRC32C.checksum(fileId) : nil
    }

    /// Whether checksums bind the page number and the file (format 2 and later).
    var bindsPlace: Bool { seed != nil }

    /// The checksum of tree page `n` at `p`.
    @inline(__always)
    func page(_ p: UnsafeRawPointer, number n: PageNumber) -> UInt32 {
        bytes(p + 4, count: FileFormat.pageSize - 4, number: n)
    }

    /// The checksum of the blob run starting at page `n` at `p`, whose header declares
    /// `length` bytes (checked against the run by the caller: the CRC reads 16+length bytes).
    @inline(__always)
    func blob(_ p: UnsafeRawPointer, number n: PageNumber, length: Int) -> UInt32 {
        bytes(p + 4, count: Blob.headerBytes - 4 + length, number: n)
    }

    /// The checksum of page `n` by its own type byte; a blob's run must lie inside the
    /// mapping (`Blob.runIsPlausible`).
    @inline(__always)
    func any(_ p: UnsafeRawPointer, number n: PageNumber) -> UInt32 {
        p.u8(PageHeader.typeOffset) == PageType.blob.rawValue
            ? blob(p, number: n, length: Int(p.u32(Blob.lengthOffset))) : page(p, number: n)
    }

    private func bytes(_ p: UnsafeRawPointer, count: Int, number n: PageNumber) -> UInt32 {
        guard let seed else { return CRC32C.checksum(p, count: count) }
        var place = n.littleEndian
        let bound = withUnsafeBytes(of: &place) { CRC32C.checksum($0, continuing: seed) }
        return CRC32C.checksum(p, count: count, continuing: bound)
    }
}
