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
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
