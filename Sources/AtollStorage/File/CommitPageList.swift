// CommitPageList: the pages one commit wrote, listed after its root record (format 3), so that
// the commit becomes durable with a single fdatasync.
//
// Layout, in the root slot page after the 128-byte record (docs/FORMAT.md, "Commit page list"):
//
//     128 + 8i  u32  page number n: a tree page, or the first page of a blob run
//     132 + 8i  u32  the checksum the commit stored in bytes 0..<4 of that page
//                    (PageChecksum: of the page, or of the whole blob run)
//
// for i in 0..<k, k = the record's entry count (offset 36, at most `entriesMax`); the record
// carries the CRC32C of these 8k bytes at offset 120, and for an encrypted file its HMAC covers
// that CRC. Blob continuation pages have no entry: the checksum of the run's first page covers
// them. Pages the commit allocated and released again, and pages trimmed off the end, are not
// listed (no version reaches them).
//
// Durability argument. A one-sync commit writes its pages, then the record and its list into
// the inactive slot, then calls fdatasync once. Until that returns, the disk may hold any
// subset of those writes, torn at sector or page granularity, and the file any size it had
// since its last sync. The record may thus reach the disk without its pages, or with a torn
// list. Open therefore accepts a record with a list only if
//     - the file is long enough for the record's page count,
//     - the list's CRC32C matches the record (the list is not torn or stale), and
//     - every listed page holds exactly the content the commit wrote: its stored checksum
//       field equals the listed checksum and its bytes match it (for an encrypted file: the
//       page's metadata entry holds a counter whose ciphertext passes its HMAC, and the
//       decrypted page passes the same two checks).
// A stale page (an older content of that page number) carries another checksum (CRC32C
// differs with probability 1 - 2^-32 per page); a torn page fails its own checksum. Every
// page the record reaches that its commit did not write was written by an earlier commit,
// which was durable before this one began (a writer syncs first when it cannot know that:
// WriteTransaction.swift), and is unchanged since: copy-on-write never writes a page a durable
// version reaches. So a record that passes names a complete version, and one that fails names
// a commit that never completed: the other slot's record, which the commit did not touch and
// whose pages it did not reuse, is then the newest version.
//
// Cost: the check reads at most `pagesMax` pages (4 MiB), once per lock-file lifetime (open,
// Database+Roots.swift). A commit with more entries or pages uses the two-sync protocol and no
// list (entry count 0): its pages are durable before its record is written.

import CAtollShims

struct CommitPageList {
    /// Where the list starts in a root slot page.
    static let offset = RootRecord.byteCount
    static let entryBytes = 8
    /// Entries that fit in a slot page after the record: 496.
    static let entriesMax = (FileFormat.pageSize - RootRecord.byteCount) / entryBytes
    /// Pages a listed commit may cover, blob runs counted in full: bounds what open reads.
    static let pagesMax = 1024

    private(set) var bytes: [UInt8] = []
    private(set) var pagesCovered = 0
    /// Set when the commit wrote more than a list holds: it is committed with two syncs.
    private(set) var overflowed = false

    var count: Int { bytes.count / Self.entryBytes }

    init() { bytes.reserveCapacity(16 * Self.entryBytes) }

    /// Adds page `n`, whose stored checksum is `checksum`, covering `pages` pages (a blob run).
    mutating func append(_ n: PageNumber, checksum: UInt32, pages: Int) {
        guard !overflowed else { return }
        pagesCovered += pages
        guard count < Self.entriesMax, pagesCovered <= Self.pagesMax else {
            overflowed = true
            bytes = []
            return
        }
        withUnsafeBytes(of: (n.littleEndian, checksum.littleEndian)) { bytes.append(contentsOf: $0) }
    }

    /// CRC32C of the list's bytes (the record's field at 120).
    var checksum: UInt32 { bytes.withUnsafeBytes { CRC32C.checksum($0) } }

    /// Writes the list into a slot page (after its record's 128 bytes).
    func write(to slot: UnsafeMutableRawPointer) {
        bytes.withUnsafeBytes { b in
            if let source = b.baseAddress, b.count > 0 { (slot + Self.offset).copyMemory(from: source, byteCount: b.count) }
        }
    }

    /// The list bytes of the record in `slot` (for copying a record to the other slot).
    static func bytes(of record: RootRecord, slot: UnsafeRawPointer) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: slot + offset, count: Int(record.commitListCount) * entryBytes))
    }

    /// Writes a record and its list bytes into a slot page: the page is zeroed first and the
    /// record, which makes the slot valid, is stored last, after a fence, so that a process
    /// killed at any instant leaves either an invalid slot or a complete one.
    static func writeSlot(_ record: RootRecord, list: UnsafeRawBufferPointer, to slot: UnsafeMutableRawPointer, cipher: PageCipher?) {
        slot.initializeMemory(as: UInt8.self, repeating: 0, count: FileFormat.pageSize)
        if let source = list.baseAddress, list.count > 0 { (slot + offset).copyMemory(from: source, byteCount: list.count) }
        atoll_atomic_fence()
        record.write(to: slot, cipher: cipher)
    }

    // MARK: validation

    /// Why the record in `slot` does not name a complete commit, or nil when it does (or has
    /// no list: its pages were synced before it was written). `fileBase` maps `fileBytes`
    /// bytes of the data file.
    static func problem(with record: RootRecord, slot: UnsafeRawPointer, fileBase: UnsafeRawPointer, fileBytes: Int,
                        store: PageStore) throws -> String? {
        let count = Int(record.commitListCount)
        guard count > 0 else { return nil }
        let needed = store.physicalBytes(pageCount: record.pageCount)
        guard needed <= fileBytes else {
            return "the file is \(fileBytes) bytes, shorter than the \(needed) its version \(record.version) needs"
        }
        let list = UnsafeRawBufferPointer(start: slot + offset, count: count * entryBytes)
        guard CRC32C.checksum(list) == record.commitListChecksum else {
            return "the page list of version \(record.version) fails its checksum (torn or stale)"
        }
        for i in 0..<count {
            let n = list.loadUnaligned(fromByteOffset: i * entryBytes, as: UInt32.self).littleEndian
            let expected = list.loadUnaligned(fromByteOffset: i * entryBytes + 4, as: UInt32.self).littleEndian
            guard n >= FileFormat.firstDataPage, n < record.pageCount else {
                return "the page list of version \(record.version) names page \(n), outside its \(record.pageCount) pages"
            }
            let found: UInt32?
            if let cache = store.cache {
                found = try cache.committedChecksum(n, pageCount: record.pageCount, fileBase: fileBase, checksum: store.checksum)
            } else {
                let p = fileBase + (Int(n) << FileFormat.pageShift)
                let stored = p.u32(PageHeader.checksumOffset)
                found = stored == expected && VerifiedPages.runFits(p, number: n, pageCount: record.pageCount)
                    && store.checksum.any(p, number: n) == stored ? stored : nil
            }
            guard let found, found == expected else {
                return "page \(n) does not hold what version \(record.version) wrote (listed checksum \(expected), found \(found.map { String($0) } ?? "a page that fails its own check"))"
            }
        }
        return nil
    }
}
