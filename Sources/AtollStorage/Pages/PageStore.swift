// PageStore: where the logical pages of one open data file live.
//
// - Unencrypted file: logical page n is bytes n*4096..<(n+1)*4096 of the file, read and written
//   in place through the map.
// - Encrypted file: the file holds ciphertext in the layout of PageCipher.swift (a metadata
//   page before every 64 data pages), and the process's DecryptedPageCache holds the plaintext
//   that snapshots read and the writer builds; commits seal the writer's pages into the file.
// Either way a PageSpace over pages 0..<pageCount is what transactions see.

final class PageStore: Sendable {
    let file: MappedFile
    /// The decrypted mirror of an encrypted file; nil for an unencrypted one.
    let cache: DecryptedPageCache?

    init(file: MappedFile, cache: DecryptedPageCache?) {
        self.file = file
        self.cache = cache
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
        guard let cache else { return PageSpace(base: fileBase, pageCount: pageCount) }
        let (mirror, states) = try cache.cover(pageCount: pageCount)
        return PageSpace(mirror: mirror, pageCount: pageCount, fileBase: fileBase, states: states, cache: cache)
    }

    /// Truncates the file after pages 0..<pageCount (only pages no snapshot can see).
    func trim(to pageCount: UInt32) throws {
        try file.shrink(to: physicalBytes(pageCount: pageCount))
        cache?.discard(from: pageCount)
    }
}
