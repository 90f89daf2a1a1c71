#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// CommittedLeafCache: the decoded leaves of this process's last commit to a file, so that the
// next write transaction does not decode them from their pages again.
//
// A small commit changes one leaf, most often the one the commit before it changed too (the
// rightmost leaf of a table that objects are appended to). Decoding that page into a
// MutableLeaf for copy-on-write was about a quarter of a one-object commit's instructions
// (tools/bench/README.md). So at the end of a commit that returned, the leaves its cluster
// trees encoded (the rightmost one of each table, or all when there are few: `entriesMax`) stay
// here, each with a copy of the page it was encoded into (`image`). A later write transaction
// about to decode page P of table T takes the entry of (T, P) instead, when P holds exactly the
// bytes of the image after the checksum field and the table's leaf layout is the same:
// - those bytes were encoded from the leaf, and `ClusterLeafPage.encode(_:into:settling:)` left
//   the leaf as a decode of them makes one (statistics exact, null ints at the block's base),
//   so the leaf is what decoding P would return;
// - anything that happened in between (another process's commits, P freed and reused, a schema
//   change, a compaction) either leaves P as it was, and the leaf is still right, or changes
//   P's bytes or the layout, and the entry is not used. No version number or process-wide
//   assumption is trusted: only the bytes.
// An entry is taken at most once (the transaction that takes it changes the leaf), and a
// transaction that rolls back or fails publishes nothing, so a leaf is never shared.
//
// Concurrency: the entries are reached only through `Database.committedLeaves` (an AtollLock);
// a leaf taken out is used by the one write transaction that took it, and published leaves are
// no longer used by the transaction that committed them.

/// One committed leaf and the page image it was encoded into.
struct CommittedLeaf: @unchecked Sendable {
    // @unchecked Sendable: `leaf` is a non-Sendable class, but it moves between threads only
    // through the AtollLock of `Database.committedLeaves` (published by a committed write
    // transaction that no longer touches it, taken by one later write transaction), so at any
    // time one transaction at most uses it.
    let table: TableKey
    let page: PageNumber
    let layout: LeafLayout
    let leaf: MutableLeaf
    /// The page's bytes as committed (the checksum field included but not compared).
    let image: [UInt8]
}

/// The leaves of the last commit of this process to a file (see the file comment).
struct CommittedLeafCache: Sendable {
    /// The most leaves one commit leaves here.
    static let entriesMax = 4

    private var entries: [CommittedLeaf] = []

    /// The leaf of page `page` of `table`, removed from the cache, when `bytes` (the page as
    /// the caller's transaction sees it) is still the committed image and `layout` matches.
    mutating func take(table: TableKey, page: PageNumber, layout: LeafLayout, bytes: UnsafeRawPointer) -> CommittedLeaf? {
        guard let i = entries.firstIndex(where: { $0.page == page && $0.table == table }) else { return nil }
        let entry = entries.remove(at: i)
        guard entry.layout == layout else { return nil }
        let skip = PageHeader.checksumOffset + 4
        let same = entry.image.withUnsafeBytes { image in
            // An image shorter than a page (never made by `replace`) is simply not the page.
            guard image.count == FileFormat.pageSize, let base = image.baseAddress else { return false }
            return memcmp(base + skip, bytes + skip, FileFormat.pageSize - skip) == 0
        }
        return same ? entry : nil
    }

    /// Replaces every entry with those of the commit that just returned.
    mutating func replace(with committed: [CommittedLeaf]) {
        entries = committed
    }

    /// Forgets every entry.
    mutating func removeAll() {
        entries.removeAll()
    }

    var count: Int { entries.count }
}
