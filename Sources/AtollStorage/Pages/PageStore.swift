// PageStore: where the logical pages of one open data file live.
//
// - Unencrypted file: logical page n is bytes n*4096..<(n+1)*4096 of the file, read and written
//   in place through the map.
// - Encrypted file: the file holds ciphertext in the layout of PageCipher.swift (a metadata
//   page before every 64 data pages), and the process's DecryptedPageCache holds the plaintext
//   that snapshots read and the writer builds; commits seal the writer's pages into the file.
// Either way a PageSpace over pages 0..<pageCount is what transactions see. Pages are checked
// before they are read: an unencrypted file's against their checksums, once per content
// (VerifiedPages), an encrypted file's against their HMACs, once per change (DecryptedPageCache).

final class PageStore: Sendable {
    let file: MappedFile
    /// How this file's pages are checksummed (by its format version and file id).
    let checksum: PageChecksum
    /// The decrypted mirror of an encrypted file; nil for an unencrypted one.
    let cache: DecryptedPageCache?
    /// What this process has checked of an unencrypted file; nil for an encrypted one.
    let verifier: VerifiedPages?

    init(file: MappedFile, checksum: PageChecksum, cache: DecryptedPageCache?, reservationBytesMin: Int = MappedFile.minimumReservationBytes) throws {
        self.file = file
        self.checksum = checksum
        self.cache = cache
        if cache == nil {
            verifier = try VerifiedPages(checksum: checksum, name: "atoll", reservationBytesMin: reservationBytesMin)
        } else {
            verifier = nil
        }
    }

    /// Bytes of the data file that hold logical pages 0..<pageCount.
    func physicalBytes(pageCount: UInt32) -> Int {
        guard cache != nil else { return Int(pageCount) << FileFormat.pageShift }
        return EncryptedLayout.physicalPageCount(pageCount) << FileFormat.pageShift
    }

    /// The pages of an existing version: the file must already hold them.
    func space(pageCount: UInt32) throws -> PageSpace {
        try space(pageCount: pageCount, fileBase: file.mapping(covering: physicalBytes(pageCount: pageCount)))
    }

    /// The writer's pages after growing the file, if needed, to hold `pageCount` pages.
    func grow(pageCount: UInt32) throws -> PageSpace {
        try space(pageCount: pageCount, fileBase: file.grow(toAtLeast: physicalBytes(pageCount: pageCount)))
    }

    private func space(pageCount: UInt32, fileBase: UnsafeMutableRawPointer) throws -> PageSpace {
        guard let cache else {
            guard let verifier else { return PageSpace(base: fileBase, pageCount: pageCount) }
            return PageSpace(base: fileBase, pageCount: pageCount, verified: try verifier.cover(pageCount: pageCount), verifier: verifier)
        }
        let (mirror, states) = try cache.cover(pageCount: pageCount)
        return PageSpace(mirror: mirror, pageCount: pageCount, fileBase: fileBase, states: states, cache: cache)
    }

    /// Truncates the file after pages 0..<pageCount (only pages no snapshot can see).
    func trim(to pageCount: UInt32) throws {
        try file.shrink(to: physicalBytes(pageCount: pageCount))
        cache?.discard(from: pageCount)
        verifier?.discard(from: pageCount)
    }
}
