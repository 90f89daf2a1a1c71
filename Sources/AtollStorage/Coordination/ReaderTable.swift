// ReaderTable: the reader slots in the lock file, through which readers pin versions.
//
// Pin protocol (LMDB's): a reader stores the published version v in its slot, issues a full
// fence, and re-reads the published version. If it is still v, the pin is safe: any writer that
// may reuse a page visible in v either saw this slot, or started its transaction while v was the
// newest version (and then reuses only pages freed at versions <= v, which v cannot see). If the
// published version moved, the reader retries with the new one.
//
// A writer releases slots whose owning process is dead (no liveness lock), so a crashed process
// cannot pin old pages forever.

#if canImport(Glibc)
import Glibc
#endif
import CAtollShims

struct PinnedVersions {
    /// Oldest pinned version, or nil when nothing is pinned.
    var oldest: UInt64?
    /// Pin time of the oldest pinned version, nanoseconds since 1970.
    var oldestPinNanos: UInt64
    /// Distinct pinned versions.
    var distinct: Set<UInt64>
    /// Slots released because their process had died.
    var releasedDeadSlots: Int
}

extension LockFile {
    private func pidPointer(_ slot: Int) -> UnsafeMutablePointer<UInt32> {
        self.slot(slot).assumingMemoryBound(to: UInt32.self)
    }

    private func versionPointer(_ slot: Int) -> UnsafeMutablePointer<UInt64> {
        (self.slot(slot) + 8).assumingMemoryBound(to: UInt64.self)
    }

    private var slotHighWaterPointer: UnsafeMutablePointer<UInt32> {
        (base + 32).assumingMemoryBound(to: UInt32.self)
    }

    /// Slots a process leaves to the others: it claims at most `slotCount - slotsReservedForOthers`,
    /// so one process pinning many versions cannot keep the others from reading.
    static let slotsReservedForOthers = 64

    /// Claims a free reader slot for this process, which holds `held` slots of this table
    /// already. Throws `.tooManyReaders`, saying which processes hold how many versions, when
    /// the table is full or this process reached its share.
    func claimSlot(heldByThisProcess held: Int) throws -> Int {
        let share = slotCount - Self.slotsReservedForOthers
        if held >= share {
            throw AtollError(.tooManyReaders, "this process pins \(held) versions of '\(path)', the most one process may (\(share) of \(slotCount) reader slots; the rest stay free for other processes): \(slotHolderSummary()); release frozen objects and results, change streams, ThreadSafeReferences or Realm instances that keep old versions")
        }
        for attempt in 0..<2 {
            for i in 0..<slotCount where atoll_atomic_load_u32(pidPointer(i)) == 0 {
                if atoll_atomic_cas_u32(pidPointer(i), 0, pid) != 0 {
                    atoll_atomic_store_u64(versionPointer(i), 0)
                    while true {
                        let hw = atoll_atomic_load_u32(slotHighWaterPointer)
                        if hw > UInt32(i) || atoll_atomic_cas_u32(slotHighWaterPointer, hw, UInt32(i + 1)) != 0 { break }
                    }
                    return i
                }
            }
            if attempt == 0 { _ = releaseDeadSlots() }
        }
        throw AtollError(.tooManyReaders, "all \(slotCount) reader slots of '\(path)' are in use: \(slotHolderSummary()); close unused Realm instances, frozen objects and results, change streams or read transactions")
    }

    /// Who holds the reader slots, most first: "process 12 (this process) holds 960 versions,
    /// process 40 holds 3 versions". A process holds one slot per version it pins.
    func slotHolderSummary() -> String {
        var held: [UInt32: Int] = [:]
        let hw = min(Int(atoll_atomic_load_u32(slotHighWaterPointer)), slotCount)
        for i in 0..<hw {
            let owner = atoll_atomic_load_u32(pidPointer(i))
            if owner != 0 { held[owner, default: 0] += 1 }
        }
        let me = pid
        let parts = held.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { owner, count in
            "process \(owner)\(owner == me ? " (this process)" : "") holds \(count) version\(count == 1 ? "" : "s")"
        }
        return parts.isEmpty ? "no process holds a slot" : parts.joined(separator: ", ")
    }

    /// Slots process `owner` holds now (for tests and diagnostics).
    func slotsHeld(by owner: UInt32) -> Int {
        let hw = min(Int(atoll_atomic_load_u32(slotHighWaterPointer)), slotCount)
        return (0..<hw).reduce(0) { $0 + (atoll_atomic_load_u32(pidPointer($1)) == owner ? 1 : 0) }
    }

    func releaseSlot(_ i: Int) {
        atoll_atomic_store_u64(versionPointer(i), 0)
        atoll_atomic_store_u32(pidPointer(i), 0)
    }

    /// Pins the newest published version in `slot` and returns it.
    func pinPublished(slot i: Int) -> UInt64 {
        let p = self.slot(i)
        while true {
            let v = publishedVersion
            atoll_atomic_store_u64(versionPointer(i), v)
            p.setU64(16, UInt64(Clock.realtimeNanoseconds()))
            p.setU64(24, UInt64(bitPattern: atoll_thread_id()))
            atoll_atomic_fence()
            if publishedVersion == v { return v }
        }
    }

    /// Pins a specific version that the caller already holds pinned elsewhere (so it is safe).
    func pin(slot i: Int, version: UInt64) {
        atoll_atomic_store_u64(versionPointer(i), version)
        slot(i).setU64(16, UInt64(Clock.realtimeNanoseconds()))
        atoll_atomic_fence()
    }

    func unpin(slot i: Int) {
        atoll_atomic_store_u64(versionPointer(i), 0)
    }

    /// Scans the reader table. Slots of dead processes are released on the way.
    func pinnedVersions() -> PinnedVersions {
        var result = PinnedVersions(oldest: nil, oldestPinNanos: 0, distinct: [], releasedDeadSlots: 0)
        var liveness: [UInt32: Bool] = [:]
        let hw = min(Int(atoll_atomic_load_u32(slotHighWaterPointer)), slotCount)
        for i in 0..<hw {
            let owner = atoll_atomic_load_u32(pidPointer(i))
            if owner == 0 { continue }
            let alive: Bool
            if let known = liveness[owner] { alive = known } else {
                alive = isProcessAlive(owner)
                liveness[owner] = alive
            }
            if !alive {
                atoll_atomic_store_u64(versionPointer(i), 0)
                if atoll_atomic_cas_u32(pidPointer(i), owner, 0) != 0 { result.releasedDeadSlots += 1 }
                continue
            }
            let v = atoll_atomic_load_u64(versionPointer(i))
            if v == 0 { continue }
            result.distinct.insert(v)
            if result.oldest.map({ v < $0 }) ?? true {
                result.oldest = v
                result.oldestPinNanos = slot(i).u64(16)
            }
        }
        return result
    }

    /// Releases slots of dead processes; returns how many.
    func releaseDeadSlots() -> Int { pinnedVersions().releasedDeadSlots }
}

enum Clock {
    static func realtimeNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    static func monotonicNanoseconds() -> UInt64 { atoll_monotonic_nanoseconds() }
}
