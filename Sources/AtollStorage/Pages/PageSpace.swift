import CAtollShims

// Every tree and blob page starts with the same 16-byte header:
//
//     0   u32  checksum (PageChecksum.swift): format 2, CRC32C of file id ‖ u32 LE page number
//              ‖ bytes 4..<4096; for a blob run, of file id ‖ u32 LE first page ‖ bytes
//              4..<16+length across the whole run. Format 1: the same without file id and page
//              number. Written at commit; checked the first time a process reads the page's
//              content (VerifiedPages.swift) and by verify.
//     4   u8   page type (PageType)
//     5   u8   flags (type-specific)
//     6   u16  entry count (type-specific)
//     8   u32  type-specific
//     12  u32  type-specific
//
// Pages are reached only from roots; nothing on disk lists which pages are in use except the
// trees themselves and the free list (whose union is every page below the page count).

enum PageType: UInt8 {
    case btreeLeaf = 1
    case btreeInner = 2
    case clusterLeaf = 3
    case clusterInner = 4
    case blob = 5

    var name: String {
        switch self {
        case .btreeLeaf: "B+tree leaf"
        case .btreeInner: "B+tree inner node"
        case .clusterLeaf: "cluster leaf"
        case .clusterInner: "cluster inner node"
        case .blob: "blob"
        }
    }
}

enum PageHeader {
    static let byteCount = 16
    static let checksumOffset = 0
    static let typeOffset = 4
    static let flagsOffset = 5
    static let countOffset = 6
}

/// Bounds-checked, checked access to the pages of one snapshot. Every page number that comes
/// from the file passes through `page(_:)` before it becomes a pointer, so a corrupted reference
/// gives a `.fileCorrupted` error instead of a read outside the map, and a page whose content
/// fails its checksum is an error instead of data.
///
/// Unencrypted files: `base` is the file's map and pages are read in place (zero-copy).
/// `page(_:)` compares the page's stored checksum with the process's record of what it has
/// checked (VerifiedPages: one load and one compare) and checks the page on the slow path.
/// Encrypted files: `base` is the process's decrypted mirror (DecryptedPageCache) and `page(_:)`
/// first checks, with two loads and a compare, that the mirror holds the page's current
/// plaintext, authenticating and decrypting it on the slow path. The references below are not
/// retained: the Database that owns the file and the caches outlives every transaction (which
/// holds it).
struct PageSpace {
    /// Plaintext pages: the file's map, or the decrypted mirror of an encrypted file.
    let base: UnsafeMutableRawPointer
    /// Pages 0..<pageCount exist in this snapshot.
    let pageCount: UInt32
    /// The file's map (equal to `base` for an unencrypted file).
    let fileBase: UnsafeMutableRawPointer
    /// Unencrypted files: per page, the checksum this process last checked (VerifiedPages).
    let verified: UnsafeMutablePointer<UInt64>?
    unowned(unsafe) let verifier: VerifiedPages?
    /// Encrypted files: per page, the counter of the ciphertext the mirror holds (nil: unencrypted).
    let states: UnsafeMutablePointer<UInt64>?
    unowned(unsafe) let cache: DecryptedPageCache?

    /// Pages read in place and checked once per content (`verifier`), or, without one, not
    /// checked on read (tests that build pages by hand).
    init(base: UnsafeMutableRawPointer, pageCount: UInt32, verified: UnsafeMutablePointer<UInt64>? = nil, verifier: VerifiedPages? = nil) {
        self.base = base
        self.pageCount = pageCount
        fileBase = base
        self.verified = verifier == nil ? nil : verified
        self.verifier = verifier
        states = nil
        cache = nil
    }

    init(mirror: UnsafeMutableRawPointer, pageCount: UInt32, fileBase: UnsafeMutableRawPointer,
         states: UnsafeMutablePointer<UInt64>, cache: DecryptedPageCache) {
        base = mirror
        self.pageCount = pageCount
        self.fileBase = fileBase
        verified = nil
        verifier = nil
        self.states = states
        self.cache = cache
    }

    /// The same pages with another page count (the writer's space as it grows or shrinks).
    func with(pageCount: UInt32) -> PageSpace {
        guard let states, let cache else { return PageSpace(base: base, pageCount: pageCount, verified: verified, verifier: verifier) }
        return PageSpace(mirror: base, pageCount: pageCount, fileBase: fileBase, states: states, cache: cache)
    }

    var isEncrypted: Bool { states != nil }

    @inline(__always)
    func page(_ n: PageNumber) throws -> UnsafeRawPointer {
        guard n >= FileFormat.firstDataPage, n < pageCount else {
            throw AtollError.corrupted("reference to page \(n), outside pages \(FileFormat.firstDataPage)..<\(pageCount)")
        }
        let p = UnsafeRawPointer(base + (Int(n) << FileFormat.pageShift))
        if let verified {
            let state = atoll_load_relaxed_u64(verified + Int(n))
            if _slowPath(state != VerifiedPages.state(verified: p.u32(PageHeader.checksumOffset))), state != VerifiedPages.writerOwned {
                try check(n, observed: state)
            }
        } else if let states, _slowPath(!Self.isCurrent(n, states: states, fileBase: fileBase)) {
            try load(n)
        }
        return p
    }

    /// Whether the mirror holds page `n`'s current plaintext (or the writer's own page).
    @inline(__always)
    private static func isCurrent(_ n: PageNumber, states: UnsafeMutablePointer<UInt64>, fileBase: UnsafeMutableRawPointer) -> Bool {
        let state = atoll_load_acquire_u64(states + Int(n))
        let onDisk = UnsafeRawPointer(fileBase).u64(EncryptedLayout.entryOffset(n))
        return state == onDisk ? state != 0 : state == DecryptedPageCache.writerOwned
    }

    @inline(never)
    private func check(_ n: PageNumber, observed: UInt64) throws {
        guard let verifier, let verified else { return }
        try verifier.check(n, observed: observed, space: self, states: verified)
    }

    @inline(never)
    private func load(_ n: PageNumber) throws {
        guard let cache else { return }
        try cache.load(n, space: self)
    }

    /// Makes pages first+1..<first+count current too (a blob run read as one buffer).
    private func loadRun(_ first: PageNumber, count: Int) throws {
        guard count > 1 else { return }
        for i in 1..<count { _ = try page(first + PageNumber(i)) }
    }

    @inline(__always)
    func page(_ n: PageNumber, type: PageType) throws -> UnsafeRawPointer {
        let p = try page(n)
        guard p.u8(PageHeader.typeOffset) == type.rawValue else {
            throw AtollError.corrupted("page \(n) should be a \(type.name) but has type \(p.u8(PageHeader.typeOffset))")
        }
        return p
    }

    /// A writable pointer; only for pages the current write transaction allocated.
    @inline(__always)
    func writablePage(_ n: PageNumber) -> UnsafeMutableRawPointer {
        base + (Int(n) << FileFormat.pageShift)
    }

    /// The bytes of a blob run starting at `first`, checked against the declared length.
    func blob(_ first: PageNumber, length: Int) throws -> UnsafeRawBufferPointer {
        let p = try page(first, type: .blob)
        let pages = Int(p.u32(Blob.pageCountOffset))
        guard Int(p.u32(Blob.lengthOffset)) == length, Blob.pagesNeeded(forLength: length) == pages,
              Int(first) + pages <= Int(pageCount)
        else { throw AtollError.corrupted("blob at page \(first) does not match its reference (\(length) bytes)") }
        if isEncrypted { try loadRun(first, count: pages) }
        return UnsafeRawBufferPointer(start: p + Blob.headerBytes, count: length)
    }
}

enum Blob {
    static let headerBytes = PageHeader.byteCount
    /// Header fields: u32 pages in the run, u32 length of the value.
    static let pageCountOffset = 8
    static let lengthOffset = 12
    /// Largest value stored in one blob: 16 MiB, the documented limit for strings and binary
    /// values, plus room for list encodings of that size.
    static let lengthMax = 64 << 20

    static func pagesNeeded(forLength length: Int) -> Int {
        (headerBytes + length + FileFormat.pageSize - 1) / FileFormat.pageSize
    }

    /// Writes the blob header; the data must already be at p + headerBytes.
    static func finish(_ p: UnsafeMutableRawPointer, length: Int) {
        p.setU8(PageHeader.typeOffset, PageType.blob.rawValue)
        p.setU8(PageHeader.flagsOffset, 0)
        p.setU16(PageHeader.countOffset, 0)
        p.setU32(pageCountOffset, UInt32(pagesNeeded(forLength: length)))
        p.setU32(lengthOffset, UInt32(length))
    }
}
