// The Atoll data file, byte by byte (docs/FORMAT.md has the full description).
//
// A data file is a sequence of 4096-byte pages. All integers are little-endian.
//
//   page 0      file header: magic, format version, page size, flags, file id, checksum.
//               Written once when the file is created; never rewritten, so a file keeps its
//               format version (1, 2 or 3) for life. Format 2 differs from 1 only in what the
//               checksum of a tree page or blob run covers: it binds the page number and this
//               header's file id (PageChecksum.swift), so a page found at the wrong place or
//               copied from another file fails its check. Format 3 differs from 2 only in the
//               commit protocol: a root record may carry the list of the pages its commit wrote
//               (CommitPageList.swift), which lets a commit become durable with one sync.
//   page 1, 2   the two root slots. A commit writes the slot that does not hold the newest
//               valid record (normally: version V goes to slot 1 + (V % 2)), so the slot of the
//               previous version is never touched by a commit. In format 3 the rest of a slot
//               page after its 128-byte record holds the record's commit page list.
//   page 3...   tree pages (B+tree nodes, cluster nodes) and blob runs, reached only from the
//               roots recorded in a root slot. In an encrypted file (header flag bit 0) these
//               are logical page numbers: PageCipher.swift describes where their ciphertext and
//               metadata live; pages 0-2 stay in the clear at the same offsets.
//
// Commit protocols (WriteTransaction.commit). Both start by writing every new page into a page
// no snapshot can see and no durable version reaches (copy-on-write), then:
//   one sync (format 3, commits of at most CommitPageList.entriesMax pages):
//     2. the new root record, with the list of (page, checksum) of every page the commit wrote
//        and a CRC32C of that list, goes into the *inactive* slot;
//     3. fdatasync: pages, list and record become durable together.
//     Open checks the newest record's list against the pages (CommitPageList.validate): a
//     record whose pages did not all reach the disk, or whose list was torn, is not a version,
//     and the previous record (whose slot and pages the commit never touched) is used.
//   two syncs (formats 1 and 2, and larger commits of format 3):
//     2. fdatasync: the new pages are durable;
//     3. the new root record (no list) goes into the inactive slot;
//     4. fdatasync of the slot: the new version is durable.
// Either way a crash at any instant leaves the last durable commit intact: no log replay, no
// recovery pass beyond checking at most one commit's pages. A torn slot write fails its
// checksum and is ignored.

enum FileFormat {
    static let pageSize = 4096
    static let pageShift = 12
    /// "ATOLLDB" followed by a NUL: identifies the file type.
    static let magic: [UInt8] = Array("ATOLLDB".utf8) + [0]
    /// The format version of files this version of Atoll creates; it reads this one and every
    /// older one. Bumped on every incompatible change of the on-disk format:
    ///   1  the first format;
    ///   2  page and blob checksums bind the page number and the file id (PageChecksum.swift);
    ///   3  one-sync commits: a root record may carry its commit's page list (CommitPageList).
    /// A file keeps the version it was created with (its header is never rewritten); a copy
    /// made by writeCopy or compact is a new file of the current version.
    static let formatVersion: UInt32 = 3
    /// The first format version whose page checksums bind page number and file id.
    static let placeBoundChecksumsVersion: UInt32 = 2
    /// The first format version whose commits may become durable with one sync (a root record
    /// carrying its commit's page list). Older files are committed with two syncs, so that the
    /// versions of Atoll that read them, which do not check page lists, never take a commit
    /// whose pages did not reach the disk.
    static let oneSyncCommitsVersion: UInt32 = 3
    static let headerPage: PageNumber = 0
    static let firstSlotPage: PageNumber = 1
    static let firstDataPage: PageNumber = 3

    /// Largest page number representable: a file holds at most 2^32 pages (16 TiB).
    static let pageNumberMax = UInt32.max - 1

    static func slotPage(forVersion version: UInt64) -> PageNumber {
        firstSlotPage + PageNumber(truncatingIfNeeded: version & 1)
    }
}

/// Index of a page in the data file.
public typealias PageNumber = UInt32

/// Page 0 of the data file.
///
///     0   [8]  magic "ATOLLDB\0"
///     8   u32  format version: 3 (one-sync commits), 2 (page checksums bind page number and
///              file id), or 1
///     12  u32  page size
///     16  u32  flags (bit 0: pages are encrypted)
///     20  u32  reserved, 0
///     24  [16] file id, random at creation; format 2 page checksums start with it
///     40  u64  creation time, nanoseconds since 1970
///     48  u32  encryption scheme (encrypted files: 1, see PageCipher.swift; else 0)
///     52  u32  reserved, 0
///     56  [32] key check (encrypted files: HMAC-SHA256 keyed with the 64-byte key over
///              "atoll key check v1" || file id; else 0)
///     88  [32] reserved, 0
///     120 u32  reserved, 0
///     124 u32  CRC32C of bytes 0..<124
struct FileHeader: Equatable {
    static let byteCount = 128
    var formatVersion: UInt32 = FileFormat.formatVersion
    var pageSize: UInt32 = UInt32(FileFormat.pageSize)
    var flags: UInt32 = 0
    var fileId: [UInt8] = (0..<16).map { _ in UInt8.random(in: 0...255) }
    var creationNanos: UInt64 = 0
    var encryptionScheme: UInt32 = 0
    /// Encrypted files: 32 bytes proving the key (EncryptedLayout.keyCheck).
    var keyCheck: [UInt8] = []

    var isEncrypted: Bool { flags & EncryptedLayout.headerFlag != 0 }

    func write(to p: UnsafeMutableRawPointer) {
        p.initializeMemory(as: UInt8.self, repeating: 0, count: FileFormat.pageSize)
        for (i, b) in FileFormat.magic.enumerated() { p.setU8(i, b) }
        p.setU32(8, formatVersion)
        p.setU32(12, pageSize)
        p.setU32(16, flags)
        for (i, b) in fileId.enumerated() { p.setU8(24 + i, b) }
        p.setU64(40, creationNanos)
        p.setU32(48, encryptionScheme)
        for (i, b) in keyCheck.prefix(EncryptedLayout.keyCheckBytes).enumerated() { p.setU8(56 + i, b) }
        p.setU32(124, CRC32C.checksum(UnsafeRawPointer(p), count: 124))
    }

    /// Reads and validates the header; `fileBytes` is how many bytes the file has.
    static func read(from p: UnsafeRawPointer, fileBytes: Int, path: String) throws -> FileHeader {
        guard fileBytes >= byteCount else {
            throw AtollError(.notAnAtollFile, "'\(path)' is not an Atoll database: it is only \(fileBytes) bytes long")
        }
        for (i, b) in FileFormat.magic.enumerated() where p.u8(i) != b {
            throw AtollError(.notAnAtollFile, "'\(path)' is not an Atoll database (wrong magic number)")
        }
        guard CRC32C.checksum(p, count: 124) == p.u32(124) else {
            throw AtollError.corrupted("the file header of '\(path)' fails its checksum")
        }
        var h = FileHeader()
        h.formatVersion = p.u32(8)
        h.pageSize = p.u32(12)
        h.flags = p.u32(16)
        h.fileId = (0..<16).map { p.u8(24 + $0) }
        h.creationNanos = p.u64(40)
        h.encryptionScheme = p.u32(48)
        h.keyCheck = (0..<EncryptedLayout.keyCheckBytes).map { p.u8(56 + $0) }
        guard h.formatVersion <= FileFormat.formatVersion else {
            throw AtollError(.fileFormatTooNew,
                "'\(path)' uses file format \(h.formatVersion); this version of Atoll reads format \(FileFormat.formatVersion) and older. Upgrade Atoll to open it.")
        }
        guard h.formatVersion >= 1 else { throw AtollError.corrupted("'\(path)' declares format version 0") }
        guard h.pageSize == UInt32(FileFormat.pageSize) else {
            throw AtollError.corrupted("'\(path)' declares page size \(h.pageSize); Atoll uses \(FileFormat.pageSize)")
        }
        guard fileBytes >= FileFormat.pageSize * Int(FileFormat.firstDataPage) else {
            throw AtollError.corrupted("'\(path)' is truncated: \(fileBytes) bytes, shorter than its header pages")
        }
        return h
    }
}

/// The root record of one committed version, stored in root slot 1 + (version % 2).
///
///     0   u64  slot magic "ATOLROOT"
///     8   u64  version
///     16  u32  page count: pages in use, the file's logical end
///     20  u32  free page count (reusable + waiting for readers)
///     24  u32  catalog root page (0: empty)
///     28  u32  free-list root page (0: empty)
///     32  u32  history root page (0: empty)
///     36  u32  commit page list entries (format 3; 0: the commit's pages were synced before
///              this record was written, or the version has no pages of its own)
///     40  u64  next free-list chunk serial
///     48  u64  schema generation: bumped by every schema change
///     56  u64  commit time, nanoseconds since 1970
///     64  u64  history floor: the history holds logs of versions > floor only
///     72  u64  oldest version whose log sync still needs (0: none)
///     80  u64  IV epoch: the highest epoch any writer has reserved (encrypted files; else 0)
///     88  [32] HMAC-SHA256 of "atoll root slot" || bytes 0..<88, followed by bytes 120..<124
///              when the record has a commit page list (encrypted files; else 0)
///     120 u32  CRC32C of the commit page list (bytes 128..<128 + 8 x entries of the slot
///              page, CommitPageList.swift); 0 without a list
///     124 u32  CRC32C of bytes 0..<124
public struct RootRecord: Equatable, Sendable {
    static let byteCount = 128
    static let slotMagic: UInt64 = 0x544F_4F52_4C4F_5441 // "ATOLROOT" little-endian

    public var version: UInt64 = 0
    public var pageCount: UInt32 = FileFormat.firstDataPage
    public var freePageCount: UInt32 = 0
    var catalogRoot: PageNumber = 0
    var freeListRoot: PageNumber = 0
    var historyRoot: PageNumber = 0
    var freeListSerial: UInt64 = 1
    public var schemaGeneration: UInt64 = 0
    public var commitTimeNanos: UInt64 = 0
    public var historyFloor: UInt64 = 0
    public var syncHistoryRetainedFrom: UInt64 = 0
    /// Encrypted files: the highest IV epoch reserved so far (PageCipher.swift).
    var ivEpoch: UInt64 = 0
    /// Entries of the commit page list that follows the record in its slot page (0: none).
    var commitListCount: UInt32 = 0
    /// CRC32C of the commit page list's bytes.
    var commitListChecksum: UInt32 = 0

    /// Bytes of the slot its HMAC covers (encrypted files).
    static let authenticatedBytes = 88
    static let commitListChecksumOffset = 120

    /// Writes the record; with a cipher (encrypted file) it carries an HMAC.
    func write(to p: UnsafeMutableRawPointer, cipher: PageCipher? = nil) {
        p.initializeMemory(as: UInt8.self, repeating: 0, count: Self.byteCount)
        p.setU64(0, Self.slotMagic)
        p.setU64(8, version)
        p.setU32(16, pageCount)
        p.setU32(20, freePageCount)
        p.setU32(24, catalogRoot)
        p.setU32(28, freeListRoot)
        p.setU32(32, historyRoot)
        p.setU32(36, commitListCount)
        p.setU64(40, freeListSerial)
        p.setU64(48, schemaGeneration)
        p.setU64(56, commitTimeNanos)
        p.setU64(64, historyFloor)
        p.setU64(72, syncHistoryRetainedFrom)
        p.setU64(80, ivEpoch)
        p.setU32(120, commitListChecksum)
        if let cipher {
            for (i, b) in cipher.slotMAC(UnsafeRawPointer(p)).enumerated() { p.setU8(88 + i, b) }
        }
        p.setU32(124, CRC32C.checksum(UnsafeRawPointer(p), count: 124))
    }

    /// Reads a slot; nil when it is empty, torn or otherwise invalid (for an encrypted file,
    /// given its cipher: also when its HMAC does not match). A record that passes may still
    /// name a commit whose pages did not all reach the disk: CommitPageList.validate decides.
    static func read(from p: UnsafeRawPointer, cipher: PageCipher? = nil) -> RootRecord? {
        guard p.u64(0) == slotMagic, CRC32C.checksum(p, count: 124) == p.u32(124) else { return nil }
        if let cipher {
            var difference: UInt8 = 0
            for (i, b) in cipher.slotMAC(p).enumerated() { difference |= b ^ p.u8(88 + i) }
            guard difference == 0 else { return nil }
        }
        var r = RootRecord()
        r.version = p.u64(8)
        r.pageCount = p.u32(16)
        r.freePageCount = p.u32(20)
        r.catalogRoot = p.u32(24)
        r.freeListRoot = p.u32(28)
        r.historyRoot = p.u32(32)
        r.commitListCount = p.u32(36)
        r.freeListSerial = p.u64(40)
        r.schemaGeneration = p.u64(48)
        r.commitTimeNanos = p.u64(56)
        r.historyFloor = p.u64(64)
        r.syncHistoryRetainedFrom = p.u64(72)
        r.ivEpoch = p.u64(80)
        r.commitListChecksum = p.u32(120)
        let roots = [r.catalogRoot, r.freeListRoot, r.historyRoot]
        guard r.pageCount >= FileFormat.firstDataPage, r.freePageCount <= r.pageCount,
              roots.allSatisfy({ $0 == 0 || ($0 >= FileFormat.firstDataPage && $0 < r.pageCount) }),
              Int(r.commitListCount) <= CommitPageList.entriesMax
        else { return nil }
        return r
    }

    /// Which record a slot holds: its version and the CRC32C it carries (two records of one
    /// version differ in it, unless they are the same record).
    struct Identity: Equatable, Sendable {
        var version: UInt64
        var checksum: UInt32
    }

    static func identity(at p: UnsafeRawPointer) -> Identity {
        Identity(version: p.u64(8), checksum: p.u32(124))
    }

    /// The newest valid root record of the two slots, given the base of the mapped file,
    /// leaving out `excluded` (a record whose commit was found incomplete at open,
    /// Database+Roots.swift). Both slots hold the same version after a writer reserved an IV
    /// epoch; the higher epoch wins.
    static func newest(in base: UnsafeRawPointer, cipher: PageCipher? = nil, excluding excluded: Identity? = nil) -> RootRecord? {
        newestSlot(in: base, cipher: cipher, excluding: excluded)?.record
    }

    /// A valid record and the slot page it was read from.
    struct Slot {
        var page: PageNumber
        var record: RootRecord
    }

    /// The slot page holding the record `newest` returns, if any.
    static func newestSlotPage(in base: UnsafeRawPointer, cipher: PageCipher?, excluding excluded: Identity? = nil) -> PageNumber? {
        newestSlot(in: base, cipher: cipher, excluding: excluded)?.page
    }

    /// The newest valid record and the slot page it was read from, in one scan (reading the
    /// slot a second time could find it being rewritten).
    static func newestSlot(in base: UnsafeRawPointer, cipher: PageCipher?, excluding excluded: Identity? = nil) -> Slot? {
        newestSlot { page in
            let p = base + Int(page) * FileFormat.pageSize
            if let excluded, identity(at: p) == excluded { return nil }
            return read(from: p, cipher: cipher)
        }
    }

    /// How many times a reader scans the two slots before it concludes that neither is valid.
    static let slotScansMax = 6

    /// The scan of `newestSlot`, over `valid` (the record a slot holds now, nil when it holds
    /// none or one being written).
    ///
    /// Readers scan the slots without the writer lock, so a slot may be read while a writer
    /// writes it and fail its checksum. A commit writes only the slot not holding the newest
    /// record, so the other one stays valid; but an IV epoch reservation
    /// (WriteTransaction+Encryption.swift) rewrites both, one after the other, and a reader
    /// reading them in the same order at the same pace can overlap both writes and find
    /// neither valid (it did: two processes opening a new encrypted file at once, CI of
    /// session 14). So a scan that finds neither valid scans again, alternating the order: read
    /// second-written first, a slot found torn means the other one's write is over. Another
    /// miss needs a further slot write completed in between, every time; callers that can wait
    /// for the writer lock to be free look once more after it (`Database.newestRootWaitingForWriter`).
    static func newestSlot(reading valid: (PageNumber) -> RootRecord?) -> Slot? {
        let first = FileFormat.firstSlotPage, second = FileFormat.firstSlotPage + 1
        for scan in 0..<slotScansMax {
            var a: RootRecord? = nil
            var b: RootRecord? = nil
            if scan % 2 == 0 {
                a = valid(first)
                b = valid(second)
            } else {
                b = valid(second)
                a = valid(first)
            }
            guard let a else {
                if let b { return Slot(page: second, record: b) }
                continue
            }
            guard let b else { return Slot(page: first, record: a) }
            let firstIsNewer: Bool
            if a.version != b.version {
                firstIsNewer = a.version > b.version
            } else if a.ivEpoch != b.ivEpoch {
                firstIsNewer = a.ivEpoch > b.ivEpoch
            } else {
                // Both hold one version (an IV epoch reservation or a seal): call the slot its
                // version usually lives in the newest, so commits keep the usual parity.
                firstIsNewer = FileFormat.slotPage(forVersion: a.version) == first
            }
            return firstIsNewer ? Slot(page: first, record: a) : Slot(page: second, record: b)
        }
        return nil
    }

    /// The slot page the next root record goes to: the one not holding the newest valid
    /// record. Normally that is the slot of version V + 1 (V % 2 parity); after a crash in
    /// the middle of an IV epoch reservation, version V may live in the other slot only, and
    /// after a power failure the other slot may hold an incomplete commit (`excluded`).
    static func inactiveSlotPage(in base: UnsafeRawPointer, cipher: PageCipher?, excluding excluded: Identity? = nil) -> PageNumber {
        guard let page = newestSlotPage(in: base, cipher: cipher, excluding: excluded) else { return FileFormat.firstSlotPage }
        return page == FileFormat.firstSlotPage ? FileFormat.firstSlotPage + 1 : FileFormat.firstSlotPage
    }

    /// The record of `version` if a slot holds it (normally slot 1 + version % 2).
    static func read(version: UInt64, in base: UnsafeRawPointer, cipher: PageCipher?, excluding excluded: Identity? = nil) -> RootRecord? {
        let usual = FileFormat.slotPage(forVersion: version)
        for page in [usual, usual == FileFormat.firstSlotPage ? usual + 1 : FileFormat.firstSlotPage] {
            let p = base + Int(page) * FileFormat.pageSize
            if let excluded, identity(at: p) == excluded { continue }
            if let r = read(from: p, cipher: cipher), r.version == version { return r }
        }
        return nil
    }
}
