// ReaderPins: one reader slot per pinned version per process.
//
// The reader table (ReaderTable.swift) has a fixed number of slots shared by every process on
// the file. If every read transaction took a slot of its own, a process holding many frozen
// results, change streams or thread-safe references (each a read transaction) would fill the
// table: its next freeze would fail, and other processes could not read at all. Instead the
// read transactions of this process on one version share one slot, held by a `ReaderLease`:
//
// - A lease owns one claimed slot that pins its version, and counts the open read transactions
//   on it. Each transaction takes one use when it starts and gives it back exactly once (its
//   `close()`, or its `deinit` when never closed); the last use releases the slot. Counts and
//   the version → lease map change only together, under one lock.
// - A new transaction on a version this process pins shares the lease instead of claiming a
//   slot.
// - Sharing needs no fence: the shared version is already pinned by a slot whose pin was
//   published safely (ReaderTable's pin protocol), and stays pinned while the lease lives.
// - `slotsHeld` counts leases (slots held); a process claims at most
//   `slotCount - slotsReservedForOthers` slots (LockFile.claimSlot), so the slots it cannot take
//   keep other processes able to open, read and write the file.

import Synchronization

/// One pinned version of this process: its reader slot, what a transaction needs to read it,
/// and how many open transactions use it.
final class ReaderLease: @unchecked Sendable {
    // Sendable: `slot`, `root` and `space` are constants (`space`, not Sendable for its raw
    // pointers, describes the version's pages, immutable while the lease pins them; transactions
    // on any thread copy it and only read through it). `users` is read and written only under
    // the lock of the ReaderPins that made the lease.
    let slot: Int
    let root: RootRecord
    let space: PageSpace
    fileprivate var users = 1

    fileprivate init(slot: Int, root: RootRecord, space: PageSpace) {
        self.slot = slot
        self.root = root
        self.space = space
    }

    var version: UInt64 { root.version }
}

final class ReaderPins: Sendable {
    private let lock: LockFile
    private let leases = AtollLock<[UInt64: ReaderLease]>([:])

    init(lock: LockFile) { self.lock = lock }

    /// Reader slots this process holds on the file through this database.
    var slotsHeld: Int { leases.withLock { $0.count } }

    /// One more use of `version`'s lease if this process pins it already, else nil.
    func share(_ version: UInt64) -> ReaderLease? {
        leases.withLock { map in
            guard let lease = map[version] else { return nil }
            lease.users += 1
            return lease
        }
    }

    /// The lease (one use) for `slot`, which the caller claimed and pinned at `root.version`.
    /// When another thread of this process pinned the same version meanwhile, a use of its
    /// lease is returned and the caller's slot is released here.
    func add(slot: Int, root: RootRecord, space: PageSpace) -> ReaderLease {
        let (lease, redundant) = leases.withLock { map -> (ReaderLease, Bool) in
            if let existing = map[root.version] {
                existing.users += 1
                return (existing, true)
            }
            let lease = ReaderLease(slot: slot, root: root, space: space)
            map[root.version] = lease
            return (lease, false)
        }
        if redundant { lock.releaseSlot(slot) }
        return lease
    }

    /// Gives back one use of `lease`; the last releases its slot.
    func release(_ lease: ReaderLease) {
        let last = leases.withLock { map -> Bool in
            lease.users -= 1
            precondition(lease.users >= 0, "Atoll: a reader lease was released more often than it was used")
            guard lease.users == 0 else { return false }
            if map[lease.version] === lease { map[lease.version] = nil }
            return true
        }
        if last { lock.releaseSlot(lease.slot) }
    }
}
