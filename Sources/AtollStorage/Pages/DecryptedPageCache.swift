// DecryptedPageCache: the plaintext of an encrypted file's pages, one per process and file.
//
// Ciphertext cannot be read in place, so an encrypted file's snapshots read their pages from a
// mirror instead of the file's map; everything else (PageSpace pointers, copy-on-write, the
// allocator) works exactly as for an unencrypted file.
//
// Layout and invariants
// - `mirror` is an anonymous memory file (memfd) holding logical page n at byte n * 4096, mapped
//   like the data file (MappedFile): a large reservation that growth does not move, and a remap
//   retires the old mapping, which keeps showing the same memory. Growth is sparse: memory is
//   used only by pages this process has read or written.
// - `states` (another memfd) holds one u64 per page: the counter of the on-disk ciphertext whose
//   plaintext the mirror holds (0: nothing), or `writerOwned` for pages this process's write
//   transaction allocated (plaintext under construction, not on disk yet).
// - A page is current when its state equals the counter in its metadata entry on disk. Counters
//   are unique in a file over its whole life (PageCipher.swift), so equal counters mean equal
//   contents, even after the file shrank and grew again. Pages a snapshot can see never change
//   on disk (copy-on-write), so a page stays current while any snapshot that can see it lives;
//   when another process reuses a page, its counter changes and the next snapshot that reaches
//   it decrypts it again: each page is decrypted once per change, not once per read.
// - Decryption runs under one of 64 striped locks and publishes the state with an atomic store
//   after the plaintext is in place; the fast path (PageSpace.page) loads the state first. So
//   two threads never fill one mirror page at once and no reader sees a half-decrypted page.
//   Only the writer stores into a page it owns, and no snapshot can see such a page.
// - A page whose ciphertext matches neither HMAC of its entry is never decrypted: the read fails
//   with `.fileCorrupted`.

#if canImport(Glibc)
import Glibc
#endif
import CAtollShims
import Synchronization

final class DecryptedPageCache: Sendable {
    /// State of a page allocated by this process's write transaction.
    static let writerOwned = UInt64.max

    let cipher: PageCipher
    private let mirror: MappedFile
    private let states: MappedFile
    private let stripes: [Stripe]
    private let session = AtollLock(CounterSession())

    private final class Stripe: Sendable {
        let lock = AtollLock(())
    }

    init(cipher: PageCipher, name: String, reservationBytesMin: Int = MappedFile.minimumReservationBytes) throws {
        self.cipher = cipher
        mirror = try MappedFile(anonymousNamed: name + "-pages", sparse: true, reservationBytesMin: reservationBytesMin)
        states = try MappedFile(anonymousNamed: name + "-states", sparse: true, reservationBytesMin: reservationBytesMin)
        stripes = (0..<64).map { _ in Stripe() }
    }

    /// Mappings of the mirror and of the page states covering logical pages 0..<pageCount.
    func cover(pageCount: UInt32) throws -> (pages: UnsafeMutableRawPointer, states: UnsafeMutablePointer<UInt64>) {
        let pages = try mirror.grow(toAtLeast: Int(pageCount) << FileFormat.pageShift)
        let states = try self.states.grow(toAtLeast: Int(pageCount) * 8)
        return (pages, states.assumingMemoryBound(to: UInt64.self))
    }

    // MARK: reading

    /// The slow path of `PageSpace.page`: authenticates page `n` on disk and decrypts it into
    /// the mirror, unless another thread has just done so.
    func load(_ n: PageNumber, space: PageSpace) throws {
        guard let states = space.states else { return }
        try stripes[Int(n) & 63].lock.withLock { _ in
            let entry = UnsafeRawPointer(space.fileBase + EncryptedLayout.entryOffset(n))
            let current = entry.u64(0)
            let state = atoll_load_acquire_u64(states + Int(n))
            if state == Self.writerOwned || (state == current && state != 0) { return }
            guard current != 0 else {
                throw AtollError.corrupted("page \(n) is referenced but was never written")
            }
            let ciphertext = UnsafeRawPointer(space.fileBase + (EncryptedLayout.physicalPage(n) << FileFormat.pageShift))
            let counter = try matchingCounter(n, entry: entry, ciphertext: ciphertext, acceptPrevious: true)
            try cipher.open(page: n, counter: counter, ciphertext: ciphertext, into: space.base + (Int(n) << FileFormat.pageShift))
            atoll_store_release_u64(states + Int(n), current)
        }
    }

    /// Checks page `n`'s ciphertext on disk against its current HMAC (verify). Pages this
    /// process's writer owns are not on disk yet and are skipped.
    func authenticate(_ n: PageNumber, space: PageSpace) throws {
        guard let states = space.states, atoll_load_acquire_u64(states + Int(n)) != Self.writerOwned else { return }
        let entry = UnsafeRawPointer(space.fileBase + EncryptedLayout.entryOffset(n))
        guard entry.u64(0) != 0 else { throw AtollError.corrupted("page \(n) is in use but was never written") }
        let ciphertext = UnsafeRawPointer(space.fileBase + (EncryptedLayout.physicalPage(n) << FileFormat.pageShift))
        _ = try matchingCounter(n, entry: entry, ciphertext: ciphertext, acceptPrevious: false)
    }

    /// The checksum of page `n` as committed (CommitPageList.problem): its ciphertext must pass
    /// the HMAC of its *current* counter (a commit's pages are sealed with a new counter each),
    /// and the plaintext, decrypted into scratch memory (the mirror and the page states are
    /// left alone), must pass its own checksum, which is returned. For a blob, the whole run is
    /// authenticated and decrypted. Nil when the page is not what the commit wrote.
    func committedChecksum(_ n: PageNumber, pageCount: UInt32, fileBase: UnsafeRawPointer, checksum: PageChecksum) throws -> UInt32? {
        var scratch = UnsafeMutableRawPointer.allocate(byteCount: FileFormat.pageSize, alignment: 64)
        defer { scratch.deallocate() }
        func decrypt(_ page: PageNumber, into p: UnsafeMutableRawPointer) throws -> Bool {
            let entry = fileBase + EncryptedLayout.entryOffset(page)
            let counter = entry.u64(0)
            let ciphertext = fileBase + (EncryptedLayout.physicalPage(page) << FileFormat.pageShift)
            guard counter != 0, cipher.mac(page: page, counter: counter, ciphertext: ciphertext) == PageMAC(at: entry + 8) else { return false }
            try cipher.open(page: page, counter: counter, ciphertext: ciphertext, into: p)
            return true
        }
        guard try decrypt(n, into: scratch) else { return nil }
        guard VerifiedPages.runFits(scratch, number: n, pageCount: pageCount) else { return nil }
        if scratch.u8(PageHeader.typeOffset) == PageType.blob.rawValue {
            let pages = Int(scratch.u32(Blob.pageCountOffset))
            if pages > 1 {
                let run = UnsafeMutableRawPointer.allocate(byteCount: pages << FileFormat.pageShift, alignment: 64)
                run.copyMemory(from: scratch, byteCount: FileFormat.pageSize)
                scratch.deallocate()
                scratch = run
                for i in 1..<pages {
                    guard try decrypt(n + PageNumber(i), into: run + (i << FileFormat.pageShift)) else { return nil }
                }
            }
        }
        let stored = scratch.u32(PageHeader.checksumOffset)
        return checksum.any(scratch, number: n) == stored ? stored : nil
    }

    private func matchingCounter(_ n: PageNumber, entry: UnsafeRawPointer, ciphertext: UnsafeRawPointer, acceptPrevious: Bool) throws -> UInt64 {
        let current = entry.u64(0)
        if cipher.mac(page: n, counter: current, ciphertext: ciphertext) == PageMAC(at: entry + 8) { return current }
        let previous = entry.u64(32)
        if acceptPrevious, previous != 0, cipher.mac(page: n, counter: previous, ciphertext: ciphertext) == PageMAC(at: entry + 40) {
            return previous
        }
        throw AtollError.corrupted("page \(n) fails its HMAC-SHA256 check: the file was damaged or modified outside Atoll")
    }

    // MARK: writing

    /// Page `n` now belongs to the write transaction, which builds its plaintext in the mirror.
    @inline(__always)
    static func claim(_ n: PageNumber, states: UnsafeMutablePointer<UInt64>) {
        atoll_store_release_u64(states + Int(n), writerOwned)
    }

    /// The mirror's copy of page `n` no longer matches anything on disk (a page the writer
    /// released or a transaction that did not commit).
    @inline(__always)
    static func forget(_ n: PageNumber, states: UnsafeMutablePointer<UInt64>) {
        atoll_store_release_u64(states + Int(n), 0)
    }

    /// Encrypts the pages a commit wrote into the file. For each page, in this order: the
    /// metadata entry (the current counter and HMAC move to the previous pair), then the
    /// ciphertext; the caller syncs both before it writes the root slot.
    func seal(_ pages: [PageNumber], space: PageSpace, firstCounter: UInt64) throws {
        guard let states = space.states else { return }
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: FileFormat.pageSize, alignment: 64)
        defer { scratch.deallocate() }
        var counter = firstCounter
        for n in pages {
            let plaintext = UnsafeRawPointer(space.base + (Int(n) << FileFormat.pageShift))
            let mac = try cipher.seal(page: n, counter: counter, plaintext: plaintext, into: scratch)
            let entry = space.fileBase + EncryptedLayout.entryOffset(n)
            if entry.u64(0) != 0 { (entry + 32).copyMemory(from: entry, byteCount: 32) }
            entry.setU64(0, counter)
            mac.store(at: entry + 8)
            (space.fileBase + (EncryptedLayout.physicalPage(n) << FileFormat.pageShift)).copyMemory(from: scratch, byteCount: FileFormat.pageSize)
            atoll_store_release_u64(states + Int(n), counter)
            counter += 1
        }
    }

    /// Releases the memory of pages from `pageCount` on (the file was trimmed). Their states
    /// read as 0 afterwards.
    func discard(from pageCount: UInt32) {
        mirror.discard(from: Int(pageCount) << FileFormat.pageShift)
        states.discard(from: Int(pageCount) * 8)
    }

    // MARK: counters

    /// `count` consecutive unused counters, or nil when this process must first reserve a new
    /// epoch (it has none yet, or has used up the current one).
    func reserveCounters(_ count: Int) -> UInt64? {
        session.withLock { s in
            guard s.epoch != 0, UInt64(count) <= CounterSession.sequenceMax - s.nextSequence else { return nil }
            let first = s.epoch << 32 | s.nextSequence
            s.nextSequence += UInt64(count)
            return first
        }
    }

    /// This process's current IV epoch (0: none reserved yet).
    var epoch: UInt64 { session.withLock { $0.epoch } }

    /// Starts counting in a newly reserved (durable) epoch.
    func begin(epoch: UInt64) {
        session.withLock { $0 = CounterSession(epoch: epoch, nextSequence: 1) }
    }
}

/// This process's current epoch and the next unused sequence number in it.
private struct CounterSession {
    static let sequenceMax: UInt64 = 1 << 32
    var epoch: UInt64 = 0
    var nextSequence: UInt64 = 1
}
