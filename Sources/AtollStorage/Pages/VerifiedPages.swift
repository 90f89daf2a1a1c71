// VerifiedPages: which page contents of an unencrypted file this process has checked.
//
// Every page is checked against its checksum (PageChecksum.swift) the first time the process
// reads that page's current content, and never returned when the check fails: a damaged page
// is an error, not data. Checking on every read would cost a CRC of 4 KiB per page visit;
// checking once per page *number* would be wrong, because pages are reused: after a commit
// frees page n, any process may write new content there, and a remembered "n is fine" would
// let that new content through unchecked. So the state is per page *content*:
//
// Layout and invariants
// - `states` (an anonymous memory file, sparse: memory only for pages this process reads) holds
//   one u64 per page of the file, page n at byte 8n:
//       0                          nothing checked yet (or the content was given up)
//       verifiedFlag | c           the page was checked and its stored checksum field was c
//       writerOwned                the page belongs to this process's write transaction, which
//                                  is building it; it has no checksum until commit
// - A read (PageSpace.page) loads the state and the page's stored checksum field and checks the
//   page only when the state is not `verifiedFlag | stored` (one load and one compare per page
//   visit). A checksum binds the page's bytes, number and file, so a different content at page
//   n (rewritten by another process, or damaged) carries a different stored checksum with
//   overwhelming probability and is checked again; content that matches its state was checked
//   once already. The flag keeps a zeroed page (stored checksum 0) from matching an empty state.
// - A check that fails stores nothing: the page fails again on every read.
// - Commit records `verifiedFlag | c` for every page it checksummed (the commit computed c
//   itself), so the writer's own pages are never checked again by this process; a page the
//   writer released or a transaction that did not commit returns its pages to 0.
// - Threads share the states: the slow path replaces the state it observed with a
//   compare-and-swap, so it never overwrites a writer's claim made in the meantime; the fast
//   path loads relaxed (no data is published through a state: the page bytes were in the map
//   before the snapshot that reads them existed).
// - The mapping reserves address space like MappedFile and does not move when it grows, so
//   PageSpace values keep a raw pointer to it.
//
// What this does not catch: a page damaged *after* this process checked it and before it is
// read again (the stored checksum field unchanged). `verify` recomputes every checksum.
// Encrypted files do not use this: each page's HMAC is checked before it is decrypted
// (DecryptedPageCache), which binds page number, counter and the file's keys.

import CAtollShims

final class VerifiedPages: Sendable {
    /// State of a page allocated by this process's write transaction.
    static let writerOwned = UInt64.max
    /// Set in every state that records a checked checksum.
    static let verifiedFlag: UInt64 = 1 << 32

    let checksum: PageChecksum
    private let states: MappedFile

    init(checksum: PageChecksum, name: String, reservationBytesMin: Int = MappedFile.minimumReservationBytes) throws {
        self.checksum = checksum
        states = try MappedFile(anonymousNamed: name + "-verified", sparse: true, reservationBytesMin: reservationBytesMin)
    }

    /// The state a page whose stored checksum field is `stored` has once checked.
    @inline(__always)
    static func state(verified stored: UInt32) -> UInt64 { verifiedFlag | UInt64(stored) }

    /// The states of pages 0..<pageCount.
    func cover(pageCount: UInt32) throws -> UnsafeMutablePointer<UInt64> {
        try states.grow(toAtLeast: Int(pageCount) * 8).assumingMemoryBound(to: UInt64.self)
    }

    /// Releases the states of pages from `pageCount` on (the file was trimmed); they read as 0.
    func discard(from pageCount: UInt32) {
        states.discard(from: Int(pageCount) * 8)
    }

    // MARK: reading

    /// The slow path of `PageSpace.page`: checks page `n` (for a blob, its whole run) against
    /// its stored checksum and records it; `observed` is the state the caller loaded.
    func check(_ n: PageNumber, observed: UInt64, space: PageSpace, states: UnsafeMutablePointer<UInt64>) throws {
        if observed == Self.writerOwned { return }
        let p = UnsafeRawPointer(space.base + (Int(n) << FileFormat.pageShift))
        try Self.checkRun(p, number: n, pageCount: space.pageCount)
        let stored = p.u32(PageHeader.checksumOffset)
        let computed = checksum.any(p, number: n)
        guard stored == computed else {
            throw AtollError.corrupted(Self.failure(n, stored: stored, computed: computed, bindsPlace: checksum.bindsPlace))
        }
        _ = atoll_atomic_cas_u64(states + Int(n), observed, Self.state(verified: stored))
    }

    /// A blob header must describe a run that fits the snapshot before its CRC reads the run.
    static func checkRun(_ p: UnsafeRawPointer, number n: PageNumber, pageCount: UInt32) throws {
        guard !runFits(p, number: n, pageCount: pageCount) else { return }
        let pages = Int(p.u32(Blob.pageCountOffset)), length = Int(p.u32(Blob.lengthOffset))
        throw AtollError.corrupted("page \(n) is marked as a blob of \(length) bytes in \(pages) pages, which does not fit the file: the file was damaged or modified outside Atoll; run `atoll verify` on it and restore a backup")
    }

    /// Whether page `n` at `p` is not a blob, or a blob whose run fits pages 0..<pageCount.
    static func runFits(_ p: UnsafeRawPointer, number n: PageNumber, pageCount: UInt32) -> Bool {
        guard p.u8(PageHeader.typeOffset) == PageType.blob.rawValue else { return true }
        let pages = Int(p.u32(Blob.pageCountOffset)), length = Int(p.u32(Blob.lengthOffset))
        return length <= Blob.lengthMax && Blob.pagesNeeded(forLength: length) == pages && Int(n) + pages <= Int(pageCount)
    }

    /// The message of a failed page check (also used by verify).
    static func failure(_ n: PageNumber, stored: UInt32, computed: UInt32, bindsPlace: Bool) -> String {
        let cause = bindsPlace
            ? "its bytes were damaged, or it belongs at another place or to another file"
            : "its bytes were damaged"
        return "page \(n) fails its checksum (stored \(stored), computed \(computed)): \(cause). Atoll returns no data from it; run `atoll verify` on the file and restore a backup, or copy what still reads"
    }

    // MARK: writing

    /// Page `n` now belongs to the write transaction, which builds it in place.
    @inline(__always)
    static func claim(_ n: PageNumber, states: UnsafeMutablePointer<UInt64>) {
        atoll_store_release_u64(states + Int(n), writerOwned)
    }

    /// Page `n`'s content is unknown again (released by the writer, or not committed).
    @inline(__always)
    static func forget(_ n: PageNumber, states: UnsafeMutablePointer<UInt64>) {
        atoll_store_release_u64(states + Int(n), 0)
    }

    /// The commit wrote checksum `c` into page `n` itself: no need to check it on read.
    @inline(__always)
    static func record(_ n: PageNumber, checksum c: UInt32, states: UnsafeMutablePointer<UInt64>) {
        atoll_store_release_u64(states + Int(n), state(verified: c))
    }
}
