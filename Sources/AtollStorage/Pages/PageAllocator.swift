// PageAllocator: where a write transaction gets pages, and where freed pages go.
//
// Free space is tracked in the free list, a B+tree in the data file:
//     key   = u64 big-endian version V, u64 big-endian serial
//     value = up to chunkCapacity u32 page numbers (0 = empty slot)
// An entry (V, _) lists pages that the commit of version V stopped using. Such a page is still
// visible to readers of versions < V, so it may be reused only when every pinned version is >= V.
// Entries with V = 0 hold pages that are free for everyone.
//
// During a transaction:
// - `allocate` takes the lowest page of the in-memory pool. When the pool is empty it loads the
//   next reusable entry (V <= oldest pinned version) into the pool, remembering the entry's key
//   so the commit deletes it; when none is left it extends the file.
// - `free` of a page this transaction allocated returns it to the pool at once (no reader has
//   ever seen it); `free` of an older page appends it to `freedPending`, to be recorded under
//   the new version.
// At commit, `saveFreeList` deletes consumed entries, then *reserves* entries large enough for
// the pending pages and for what is left in the pool (inserting them allocates and frees pages,
// so it loops until nothing changes), and finally fills the reserved values in place, which
// changes no page layout. This is LMDB's scheme.
//
// Allocation prefers low page numbers, so free pages collect at the end of the file, where a
// commit can truncate them when free space dominates.

struct PageBitmap {
    private var words: [UInt64] = []

    mutating func insert(_ n: PageNumber) {
        let w = Int(n >> 6)
        if w >= words.count { words.append(contentsOf: repeatElement(0, count: w - words.count + 1 + words.count / 2)) }
        words[w] |= 1 << UInt64(n & 63)
    }

    mutating func remove(_ n: PageNumber) {
        let w = Int(n >> 6)
        if w < words.count { words[w] &= ~(1 << UInt64(n & 63)) }
    }

    @inline(__always)
    func contains(_ n: PageNumber) -> Bool {
        let w = Int(n >> 6)
        return w < words.count && words[w] & (1 << UInt64(n & 63)) != 0
    }

    func forEach(_ body: (PageNumber) throws -> Void) rethrows {
        for (wi, word) in words.enumerated() where word != 0 {
            var bits = word
            while bits != 0 {
                let b = bits.trailingZeroBitCount
                try body(PageNumber(wi * 64 + b))
                bits &= bits - 1
            }
        }
    }
}

final class PageAllocator {
    static let chunkCapacity = 240

    // The mutable state below belongs to the one write transaction that owns the allocator and
    // is used from its thread, one access at a time (no access is held across a call that can
    // reach the allocator again: closures and trees get values, never `inout` state), so the
    // per-access dynamic exclusivity checks are skipped: they were ~10% of a one-object
    // commit's instructions.
    let store: PageStore
    @exclusivity(unchecked) private(set) var space: PageSpace
    /// Working copy of the root record's space fields.
    @exclusivity(unchecked) var pageCount: UInt32
    @exclusivity(unchecked) var freePageCount: UInt32
    @exclusivity(unchecked) var freeListRoot: PageNumber
    @exclusivity(unchecked) var freeListSerial: UInt64
    /// Free-list entries with a version <= this may be reused.
    let reusableVersionMax: UInt64

    @exclusivity(unchecked) private var pool: [PageNumber] = []          // sorted descending: popLast() is the lowest page
    @exclusivity(unchecked) private(set) var freedPending: [PageNumber] = []
    @exclusivity(unchecked) private(set) var fresh = PageBitmap()        // pages allocated by this transaction
    @exclusivity(unchecked) private(set) var blobContinuation = PageBitmap()
    @exclusivity(unchecked) private var consumedKeys: [[UInt8]] = []
    @exclusivity(unchecked) private var consumedPageCount = 0
    @exclusivity(unchecked) private var lastConsumedKey: [UInt8] = []
    @exclusivity(unchecked) private var reusableExhausted = false
    /// Pages written by this transaction (for the "bytes written by a commit" statistic).
    @exclusivity(unchecked) private(set) var pagesAllocatedCount = 0

    init(store: PageStore, root: RootRecord, reusableVersionMax: UInt64) throws {
        self.store = store
        space = try store.space(pageCount: root.pageCount)
        pageCount = root.pageCount
        freePageCount = root.freePageCount
        freeListRoot = root.freeListRoot
        freeListSerial = root.freeListSerial
        self.reusableVersionMax = reusableVersionMax
    }

    @inline(__always) func isFresh(_ n: PageNumber) -> Bool { fresh.contains(n) }

    /// A new page, owned by this transaction and writable in place. Its contents are undefined.
    func allocate() throws -> PageNumber {
        // An entry may name no page (one reserved for pages that the free list's own update
        // then took back): load the next rather than grow the file.
        while pool.isEmpty && !reusableExhausted { try loadReusable() }
        if let n = pool.popLast() {
            markFresh(n)
            return n
        }
        return try extend(by: 1)
    }

    /// `count` contiguous pages (a blob run).
    func allocateRun(_ count: Int) throws -> PageNumber {
        if count == 1 { return try allocate() }
        // Look for a run in the pool (sorted), loading reusable entries while they last.
        while true {
            if let start = findRun(count) {
                let first = pool[start + count - 1]
                pool.removeSubrange(start..<(start + count))
                for i in 0..<count { markFresh(first + PageNumber(i)) }
                for i in 1..<count { blobContinuation.insert(first + PageNumber(i)) }
                return first
            }
            if reusableExhausted || pool.count > 4 * PageAllocator.chunkCapacity { break }
            let before = pool.count
            try loadReusable()
            if pool.count == before { break }
        }
        let first = try extend(by: count)
        for i in 1..<count { blobContinuation.insert(first + PageNumber(i)) }
        return first
    }

    /// Index j such that pool[j..<j+count] are consecutive pages (descending).
    private func findRun(_ count: Int) -> Int? {
        guard pool.count >= count else { return nil }
        var runStart = 0
        for i in 1..<pool.count {
            if pool[i] + 1 != pool[i - 1] { runStart = i }
            if i - runStart + 1 >= count { return runStart }
        }
        return nil
    }

    private func markFresh(_ n: PageNumber) {
        fresh.insert(n)
        pagesAllocatedCount += 1
        if let verified = space.verified {
            VerifiedPages.claim(n, states: verified)
        } else if let states = space.states {
            DecryptedPageCache.claim(n, states: states)
        }
    }

    private func extend(by count: Int) throws -> PageNumber {
        let first = pageCount
        guard UInt64(first) + UInt64(count) <= UInt64(FileFormat.pageNumberMax) else {
            throw AtollError(.limitExceeded, "the database file would exceed \(FileFormat.pageNumberMax) pages (16 TiB)")
        }
        pageCount += UInt32(count)
        space = try store.grow(pageCount: pageCount)
        for i in 0..<count { markFresh(first + PageNumber(i)) }
        return first
    }

    /// Releases `count` pages starting at `first` (a page or a blob run).
    func free(_ first: PageNumber, count: Int = 1) {
        for i in 0..<count {
            let n = first + PageNumber(i)
            blobContinuation.remove(n)
            if fresh.contains(n) {
                fresh.remove(n)
                pagesAllocatedCount -= 1
                if let verified = space.verified {
                    VerifiedPages.forget(n, states: verified)
                } else if let states = space.states {
                    DecryptedPageCache.forget(n, states: states)
                }
                insertIntoPool(n)
            } else {
                freedPending.append(n)
            }
        }
    }

    private func insertIntoPool(_ n: PageNumber) {
        var lo = 0, hi = pool.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if pool[mid] > n { lo = mid + 1 } else { hi = mid }
        }
        pool.insert(n, at: lo)
    }

    /// Copy-on-write: returns a page this transaction owns holding the contents of `n`.
    /// The caller must store the returned number wherever `n` was referenced.
    func touch(_ n: PageNumber) throws -> PageNumber {
        if fresh.contains(n) { return n }
        let source = try space.page(n)
        let copy = try allocate()
        space.writablePage(copy).copyMemory(from: source, byteCount: FileFormat.pageSize)
        free(n)
        return copy
    }

    /// Writes `bytes` into a new blob run and returns its first page.
    func writeBlob(_ bytes: UnsafeRawBufferPointer) throws -> PageNumber {
        guard bytes.count <= Blob.lengthMax else {
            throw AtollError(.limitExceeded, "a value of \(bytes.count) bytes exceeds the \(Blob.lengthMax) byte limit")
        }
        let pages = Blob.pagesNeeded(forLength: bytes.count)
        let first = try allocateRun(pages)
        let p = space.writablePage(first)
        if let src = bytes.baseAddress, bytes.count > 0 { (p + Blob.headerBytes).copyMemory(from: src, byteCount: bytes.count) }
        Blob.finish(p, length: bytes.count)
        return first
    }

    func freeBlob(_ first: PageNumber, length: Int) {
        free(first, count: Blob.pagesNeeded(forLength: length))
    }

    // MARK: free list

    private static func freeListKey(version: UInt64, serial: UInt64) -> [UInt8] {
        var w = ByteWriter(capacity: 16)
        w.u64BigEndian(version)
        w.u64BigEndian(serial)
        return w.bytes
    }

    /// Loads the next reusable free-list entry into the pool.
    private func loadReusable() throws {
        guard !reusableExhausted, freeListRoot != 0 else { reusableExhausted = true; return }
        var cursor = BTreeCursor(root: freeListRoot, space: space)
        let found = try lastConsumedKey.isEmpty ? cursor.first() : lastConsumedKey.withUnsafeBytes { try cursor.seek(after: $0) }
        guard found else { reusableExhausted = true; return }
        let key = try cursor.key()
        guard key.count == 16 else { throw AtollError.corrupted("free-list key of \(key.count) bytes") }
        let version = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
        guard version <= reusableVersionMax else { reusableExhausted = true; return }
        let keyBytes = Array(key)
        let value = try cursor.value()
        guard value.count % 4 == 0 else { throw AtollError.corrupted("free-list value of \(value.count) bytes") }
        // Appended, then sorted once (the pool is most often empty here); empty slots (most of
        // an entry's) are skipped two at a time.
        let before = pool.count
        let slots = value.count / 4
        if before == 0 { pool.reserveCapacity(min(slots, PageAllocator.chunkCapacity)) }
        var i = 0
        while i < slots {
            if i + 1 < slots, value.loadUnaligned(fromByteOffset: 4 * i, as: UInt64.self) == 0 { i += 2; continue }
            let n = value.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self).littleEndian
            i += 1
            if n == 0 { continue }
            guard n >= FileFormat.firstDataPage, n < pageCount else {
                throw AtollError.corrupted("free list names page \(n), outside the file")
            }
            pool.append(n)
        }
        if pool.count > before {
            consumedPageCount += pool.count - before
            pool.sort(by: >)
        }
        consumedKeys.append(keyBytes)
        lastConsumedKey = keyBytes
    }

    /// Pages free now (in the pool) below `limit`, after loading every reusable entry.
    func reusablePages(below limit: PageNumber) throws -> Int {
        try loadAllReusable()
        return pool.reduce(0) { $0 + ($1 < limit ? 1 : 0) }
    }

    /// Moves page `n` to a lower page when it lies at or above `limit`; returns its number.
    func relocate(_ n: PageNumber, below limit: PageNumber) throws -> PageNumber {
        guard n >= limit else { return n }
        let source = try space.page(n)
        let copy = try allocate()
        guard copy < n else {
            // No lower page is free: keep it where it is.
            free(copy)
            return n
        }
        space.writablePage(copy).copyMemory(from: source, byteCount: FileFormat.pageSize)
        free(n)
        return copy
    }

    /// Moves a blob run to lower pages when any of it lies at or above `limit`.
    func relocateBlob(_ first: PageNumber, length: Int, below limit: PageNumber) throws -> PageNumber {
        let pages = Blob.pagesNeeded(forLength: length)
        guard Int(first) + pages > Int(limit) else { return first }
        let bytes = try space.blob(first, length: length)
        let copy = try writeBlob(bytes)
        guard copy < first else { freeBlob(copy, length: length); return first }
        freeBlob(first, length: length)
        return copy
    }

    /// Consumes every reusable entry (used before shrinking the file).
    private func loadAllReusable() throws {
        while !reusableExhausted { try loadReusable() }
    }

    /// Writes the free list for the commit of `version`. Call after every other tree is final.
    /// Returns the number of pages trimmed from the end of the file.
    func saveFreeList(version: UInt64, shrink: Bool) throws -> Int {
        var trimmed = 0
        if shrink {
            try loadAllReusable()
            while trimmed < pool.count, pool[trimmed] == pageCount - 1 {
                pageCount -= 1
                trimmed += 1
            }
            pool.removeFirst(trimmed)
        }
        // From here on the free list is being rewritten: no more entries are loaded from it, so
        // allocations come from the pool or the end of the file.
        reusableExhausted = true
        var root = freeListRoot
        defer { freeListRoot = root }
        // Deleting consumed entries may itself allocate (copy-on-write) and free pages.
        let consumed = consumedKeys
        consumedKeys = []
        for key in consumed {
            _ = try key.withUnsafeBytes { try BTree.delete(root: &root, key: $0, allocator: self) }
        }
        var pendingKeys: [[UInt8]] = []
        var poolKeys: [[UInt8]] = []
        let zeros = [UInt8](repeating: 0, count: 4 * PageAllocator.chunkCapacity)
        var changed = true
        var rounds = 0
        while changed {
            changed = false
            rounds += 1
            guard rounds < 10_000 else { throw AtollError(.ioError, "free list did not converge") }
            while pendingKeys.count * PageAllocator.chunkCapacity < freedPending.count {
                let key = Self.freeListKey(version: version, serial: freeListSerial)
                freeListSerial += 1
                try key.withUnsafeBytes { k in try zeros.withUnsafeBytes { v in try BTree.put(root: &root, key: k, value: v, allocator: self) } }
                pendingKeys.append(key)
                changed = true
            }
            while poolKeys.count * PageAllocator.chunkCapacity < pool.count {
                let key = Self.freeListKey(version: 0, serial: freeListSerial)
                freeListSerial += 1
                try key.withUnsafeBytes { k in try zeros.withUnsafeBytes { v in try BTree.put(root: &root, key: k, value: v, allocator: self) } }
                poolKeys.append(key)
                changed = true
            }
        }
        try fill(root: root, keys: pendingKeys, with: freedPending)
        try fill(root: root, keys: poolKeys, with: pool)
        let free = Int(freePageCount) - consumedPageCount + pool.count + freedPending.count
        freePageCount = UInt32(clamping: max(0, free))
        space = space.with(pageCount: pageCount)
        return trimmed
    }

    private func fill(root: PageNumber, keys: [[UInt8]], with pages: [PageNumber]) throws {
        var index = 0
        for key in keys {
            try key.withUnsafeBytes { k in
                try BTree.withWritableInlineValue(root: root, key: k, allocator: self) { value in
                    guard let base = value.baseAddress else { return }
                    let slots = value.count / 4
                    let taken = max(0, min(slots, pages.count - index))
                    pages.withUnsafeBufferPointer { p in
                        for slot in 0..<taken { base.setU32(4 * slot, p[index + slot]) }
                    }
                    if taken < slots { (base + 4 * taken).initializeMemory(as: UInt8.self, repeating: 0, count: 4 * (slots - taken)) }
                    index += slots
                }
            }
        }
    }

    /// Encrypts every page this transaction wrote into the file (encrypted files only), after
    /// `checksumFreshPages`. `counters` reserves that many unused IV counters.
    func sealFreshPages(counters: (Int) throws -> UInt64) throws {
        guard let cache = store.cache else { return }
        var pages: [PageNumber] = []
        fresh.forEach { n in if n < pageCount { pages.append(n) } }
        guard !pages.isEmpty else { return }
        try cache.seal(pages, space: space, firstCounter: try counters(pages.count))
    }

    /// This transaction's pages match nothing on disk: called when the transaction ends without
    /// its pages being committed (rollback, failed commit). For an unencrypted file their
    /// content is unknown to readers again (checked if ever read); for an encrypted one the
    /// mirror's copies are dropped.
    func forgetFreshPages() {
        if let verified = space.verified {
            fresh.forEach { VerifiedPages.forget($0, states: verified) }
        } else if let states = space.states {
            fresh.forEach { DecryptedPageCache.forget($0, states: states) }
        }
    }

    /// Computes and stores the checksum of every page this transaction wrote (PageChecksum:
    /// bound to the page number and file in format 2), and records it as checked for this
    /// process's readers (VerifiedPages). Pages inside blob runs and pages trimmed off the end
    /// have no checksum of their own: their state returns to "unknown". With `listing`, returns
    /// the commit page list of the pages checksummed (CommitPageList.swift).
    @discardableResult
    func checksumFreshPages(listing: Bool = false) -> CommitPageList {
        let checksum = store.checksum
        let verified = space.verified
        var list = CommitPageList()
        fresh.forEach { n in
            guard !blobContinuation.contains(n), n < pageCount else {
                if let verified { VerifiedPages.forget(n, states: verified) }
                return
            }
            let p = space.writablePage(n)
            let isBlob = p.u8(PageHeader.typeOffset) == PageType.blob.rawValue
            let c = isBlob
                ? checksum.blob(UnsafeRawPointer(p), number: n, length: Int(p.u32(Blob.lengthOffset)))
                : checksum.page(UnsafeRawPointer(p), number: n)
            p.setU32(PageHeader.checksumOffset, c)
            if let verified { VerifiedPages.record(n, checksum: c, states: verified) }
            if listing { list.append(n, checksum: c, pages: isBlob ? Int(p.u32(Blob.pageCountOffset)) : 1) }
        }
        return list
    }
}
