/// Space and version statistics of a database.
public struct DatabaseStats: Sendable, CustomStringConvertible {
    public var version: UInt64
    public var fileSizeBytes: Int
    /// Bytes of pages in use by the newest version.
    public var usedBytes: Int
    /// Bytes of pages free for reuse (now or once older readers finish).
    public var freeBytes: Int
    /// Versions that are live: every pinned version plus the newest.
    public var liveVersions: Int
    public var oldestPinnedVersion: UInt64?
    public var oldestPinnedAgeSeconds: Double?
    public var objectCounts: [(table: String, objects: Int)]
    public var historyEntries: Int

    public var description: String {
        var s = "version: \(version)\nfile size: \(fileSizeBytes) bytes\nused: \(usedBytes) bytes\nfree: \(freeBytes) bytes\n"
        s += "live versions: \(liveVersions)\n"
        if let v = oldestPinnedVersion, let age = oldestPinnedAgeSeconds {
            s += "oldest pinned version: \(v) (pinned \(String(format: "%.1f", age)) s ago)\n"
        } else {
            s += "oldest pinned version: none\n"
        }
        s += "history entries: \(historyEntries)\n"
        for (t, n) in objectCounts { s += "objects in \(t): \(n)\n" }
        return s
    }
}

extension Database {
    public func stats() throws -> DatabaseStats {
        let pinned = lock.pinnedVersions()
        let r = try beginRead()
        defer { r.close() }
        let root = r.rootRecord
        let fileSizeBytes = try file.refreshSize()
        var counts: [(String, Int)] = []
        for key in r.tableKeys {
            let t = try r.table(key)
            counts.append((t.name, t.count))
        }
        var live = pinned.distinct
        live.insert(root.version)
        let now = UInt64(Clock.realtimeNanoseconds())
        let age = pinned.oldest.map { _ in Double(now &- pinned.oldestPinNanos) / 1e9 }
        return DatabaseStats(
            version: root.version, fileSizeBytes: fileSizeBytes,
            usedBytes: Int(root.pageCount - root.freePageCount) * FileFormat.pageSize,
            freeBytes: Int(root.freePageCount) * FileFormat.pageSize + max(0, fileSizeBytes - store.physicalBytes(pageCount: root.pageCount)),
            liveVersions: live.count, oldestPinnedVersion: pinned.oldest, oldestPinnedAgeSeconds: age,
            objectCounts: counts, historyEntries: try r.loggedVersions().count)
    }

    /// Entries and bytes of every internal tree (sync metadata, the relay's log, the conflict
    /// ledger, ...) in the newest version, by name. Reads every entry, so it costs a scan of
    /// the metadata: for measuring what metadata occupies, not for a hot path.
    public func internalTreeUsage() throws -> [InternalTreeUsage] {
        let r = try beginRead()
        defer { r.close() }
        var usage: [InternalTreeUsage] = []
        for name in try r.internalTreeNames().sorted() {
            var tree = InternalTreeUsage(name: name, entries: 0, bytes: 0)
            try r.forEachInternalEntry(name, from: []) { k, v in
                tree.entries += 1
                tree.bytes += k.count + v.count
                return true
            }
            usage.append(tree)
        }
        return usage
    }
}

/// One internal tree's share of a file (`Database.internalTreeUsage()`).
public struct InternalTreeUsage: Sendable, Equatable {
    /// The tree's name, such as `sync.objects` or `relay.log`.
    public var name: String
    /// Entries in the newest version.
    public var entries: Int
    /// Bytes of the entries' keys and values, without the pages' own overhead.
    public var bytes: Int
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
