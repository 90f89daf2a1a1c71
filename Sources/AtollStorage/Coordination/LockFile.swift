// LockFile: the state processes share about one data file, in `name.atoll.lock`.
//
// The lock file is mapped MAP_SHARED by every process that has the database open. It holds no
// durable data: when no process has the database open it may be deleted or reinitialized.
//
// Layout (little-endian):
//     0    u64  magic "ATOLLLCK"
//     8    u32  layout version
//     12   u32  reader slot count (N)
//     16   u64  published version: the newest committed version (atomic)
//     24   u32  commit sequence: incremented after every commit; the futex word waiters sleep on
//     28   u32  writer pid, while a write transaction is open (diagnostics only)
//     32   u32  slot high-water mark: slots at or above it have never been claimed
//     36   u32  reserved
//     40   u64  "ROOTSOK!" once a process checked the data file's newest commit since this
//               lock file was initialized (Database+Roots.swift); 0 before
//     48   u64  version of the root record found incomplete by that check (0: none)
//     56   u32  CRC32C field of that record (with the version: which record to leave out)
//     60   u32  reserved
//     64   u64  durable version: the newest version known to be on stable storage (a commit
//               with full durability sets it after its sync; 0: unknown)
//     72   u64  version of the newest root record whose commit returned: written after the
//               commit's sync returned, so its pages were on stable storage (0: none known)
//     80   u32  CRC32C field of that record (with the version: which record)
//     84   u32  reserved
//     88   ...  reserved up to 4096
//
// Offsets 72..<88 are the one thing kept when the lock file is initialized afresh (see init):
// they let the first opener of a later session tell a damaged newest commit from one a power
// failure interrupted (Database+Roots.swift). Losing them (a power failure before the lock
// file's page reached the disk, a deleted lock file) only loses that distinction.
//     4096 N reader slots of 32 bytes each:
//              0  u32 pid owning the slot (0: free), claimed by compare-and-swap
//              4  u32 reserved
//              8  u64 pinned version (0: claimed but not pinned yet)
//              16 u64 pin time, nanoseconds since 1970 (for "oldest pinned version's age")
//              24 u64 thread id of the pinning thread (diagnostics)
//
// Byte-range locks (open-file-description locks, released by the kernel when the process dies)
// on offsets far beyond the mapped bytes; they coordinate without touching file contents:
//     initLockOffset      exclusive while a process attaches (serializes initialization)
//     usageLockOffset     shared while a process has the file open; exclusive = sole user
//     writerLockOffset    exclusive while a process holds the write transaction
//     livenessOffset+pid  shared while process `pid` has the file open. A reader slot whose
//                         pid holds no liveness lock belongs to a dead process and is released.
//
// Invariants
// - A process initializes the lock file only while it holds the usage lock exclusively, i.e.
//   when no other process has the database open. Every attached process holds it shared.
// - A process attaches only to the file the path names once it holds the initialization lock
//   (it compares the inode it opened with the path's, and opens again if they differ). So the
//   lock file may be *removed*: a read-only open that had to create it removes it when it
//   closes, if it can then take the initialization lock and the usage lock exclusively (no
//   other process attached or attaching), so that reading a database leaves no file behind.
// - A read-only open that can neither open the lock file for writing nor create it (read-only
//   media, a directory or lock file this user may not write) does without it: see
//   Database.swift, "Reading without a lock file".
// - A reader publishes its pinned version with the protocol in ReaderTable.pin, which guarantees
//   that a writer computing the oldest pinned version never misses a reader that could still
//   read pages the writer is about to reuse.

#if canImport(Glibc)
import Glibc
#endif
import CAtollShims

final class LockFile: @unchecked Sendable {
    // Sendable: every field is immutable after init; the shared memory it points at is accessed
    // only through atomic operations (CAtollShims) or while holding the writer lock.
    static let magic: UInt64 = 0x4B43_4C4C_4F54_5441 // "ATOLLLCK" little-endian
    static let layoutVersion: UInt32 = 1
    static let headerBytes = 4096
    static let slotBytes = 32
    static let defaultSlotCount = 1024

    static let initLockOffset: Int64 = 1 << 40
    static let usageLockOffset: Int64 = (1 << 40) + 1
    static let writerLockOffset: Int64 = (1 << 40) + 2
    static let livenessOffset: Int64 = 1 << 41

    let fd: Int32
    let path: String
    let base: UnsafeMutableRawPointer
    let mappedBytes: Int
    let slotCount: Int
    let pid: UInt32

    /// Whether this process created the lock file for a read-only open, and removes it on close
    /// when no other process uses it.
    private let removesFileWhenUnused: Bool

    /// Opens or creates the lock file at `path` and attaches to it. When `path` is nil the lock
    /// state lives in an anonymous memory file (in-memory databases, one process).
    /// `requireExclusive`: fail with .fileLocked unless no other process has the database open.
    convenience init(path: String?, requireExclusive: Bool = false) throws {
        if let path {
            guard let (fd, _) = try Self.openForAttaching(path, mayBeUnavailable: false) else {
                throw AtollError(.ioError, "opening the lock file '\(path)' failed")
            }
            try self.init(initializationLocked: fd, path: path, requireExclusive: requireExclusive, removesFileWhenUnused: false)
        } else {
            let fd = atoll_memfd_create("atoll-lock")
            guard fd >= 0 else { throw AtollError.posix("creating the lock state", path: "memory", errno: -fd) }
            let rc = atoll_ofd_lock(fd, 1, 1, Self.initLockOffset, 1)
            guard rc == 0 else {
                close(fd)
                throw AtollError.posix("locking", path: "memory", errno: rc)
            }
            try self.init(initializationLocked: fd, path: nil, requireExclusive: requireExclusive, removesFileWhenUnused: false)
        }
    }

    /// Attaches a read-only open to the lock file at `path`: joins it when it exists, creates it
    /// when it can (and removes it again on close if no other process uses it by then). Nil when
    /// it can be neither opened for writing nor created (read-only file system, no permission).
    static func attachForReading(path: String) throws -> LockFile? {
        guard let (fd, created) = try openForAttaching(path, mayBeUnavailable: true) else { return nil }
        return try LockFile(initializationLocked: fd, path: path, requireExclusive: false, removesFileWhenUnused: created)
    }

    /// Opens (or creates) the lock file and takes its initialization lock, making sure the path
    /// still names the file opened (a read-only open may have removed it meanwhile). Returns
    /// nil, when `mayBeUnavailable`, if the file can be neither opened for writing nor created.
    private static func openForAttaching(_ path: String, mayBeUnavailable: Bool) throws -> (fd: Int32, created: Bool)? {
        for _ in 0..<1000 {
            var created = false
            var fd = open(path, O_RDWR | O_CLOEXEC)
            if fd < 0 && errno == ENOENT {
                fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                if fd < 0 && errno == EEXIST { continue }
                created = fd >= 0
            }
            guard fd >= 0 else {
                let e = errno
                if mayBeUnavailable && (e == EROFS || e == EACCES || e == EPERM) { return nil }
                throw AtollError.posix("opening the lock file", path: path, errno: e)
            }
            // Serialize attaching processes.
            let rc = atoll_ofd_lock(fd, 1, 1, Self.initLockOffset, 1)
            guard rc == 0 else {
                close(fd)
                throw AtollError.posix("locking", path: path, errno: rc)
            }
            var opened = stat(), named = stat()
            if fstat(fd, &opened) == 0, stat(path, &named) == 0, opened.st_ino == named.st_ino, opened.st_dev == named.st_dev {
                return (fd, created)
            }
            close(fd) // removed or replaced since it was opened: open the path again
        }
        throw AtollError(.ioError, "the lock file '\(path)' was removed and recreated 1000 times while this process tried to open it")
    }

    /// Attaches through `fd`, whose initialization lock the caller took (released on return).
    private init(initializationLocked fd: Int32, path: String?, requireExclusive: Bool, removesFileWhenUnused: Bool) throws {
        let displayPath = path ?? "memory"
        self.fd = fd
        self.path = displayPath
        self.removesFileWhenUnused = removesFileWhenUnused
        self.pid = UInt32(truncatingIfNeeded: getpid())
        slotCount = Self.defaultSlotCount
        mappedBytes = Self.headerBytes + slotCount * Self.slotBytes

        func fail(_ error: AtollError) -> AtollError { close(fd); return error }

        var rc: Int32
        defer { _ = atoll_ofd_unlock(fd, Self.initLockOffset, 1) }

        var sole = atoll_ofd_lock(fd, 1, 0, Self.usageLockOffset, 1) == 0
        if requireExclusive && !sole {
            sole = Self.afterSpawnWindows { atoll_ofd_lock(fd, 1, 0, Self.usageLockOffset, 1) == 0 }
        }
        if requireExclusive && !sole {
            throw fail(AtollError(.fileLocked, "'\(displayPath)' is open in another process; close it there first"))
        }
        // The record of the newest commit known to have returned survives reinitialization.
        var kept = [UInt8](repeating: 0, count: Self.keptRange.upperBound)
        var keptValid = false
        if sole {
            // No other process has the database open: (re)initialize the shared state.
            let n = kept.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            if n == kept.count {
                keptValid = kept.withUnsafeBytes { b in
                    b.baseAddress!.u64(0) == Self.magic && b.baseAddress!.u32(8) == Self.layoutVersion
                }
            }
            guard ftruncate(fd, 0) == 0, ftruncate(fd, off_t(mappedBytes)) == 0 else {
                throw fail(AtollError.posix("initializing the lock file", path: displayPath, errno: errno))
            }
        } else {
            rc = atoll_ofd_lock(fd, 0, 1, Self.usageLockOffset, 1)
            guard rc == 0 else { throw fail(AtollError.posix("locking", path: displayPath, errno: rc)) }
            var st = stat()
            guard fstat(fd, &st) == 0, Int(st.st_size) >= mappedBytes else {
                throw fail(AtollError(.fileCorrupted, "the lock file '\(displayPath)' is in use but has the wrong size; close every process using the database and retry"))
            }
        }
        guard let p = mmap(nil, mappedBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            throw fail(AtollError.posix("mapping the lock file", path: displayPath, errno: errno))
        }
        base = p
        if sole {
            p.setU64(0, Self.magic)
            p.setU32(8, Self.layoutVersion)
            p.setU32(12, UInt32(slotCount))
            if keptValid {
                kept.withUnsafeBytes { b in
                    (p + Self.keptRange.lowerBound).copyMemory(from: b.baseAddress! + Self.keptRange.lowerBound, byteCount: Self.keptRange.count)
                }
            }
            if !requireExclusive {
                // Keep the usage lock, but shared, so others may attach.
                rc = atoll_ofd_lock(fd, 0, 0, Self.usageLockOffset, 1)
                guard rc == 0 else {
                    munmap(p, mappedBytes)
                    throw fail(AtollError.posix("locking", path: displayPath, errno: rc))
                }
            }
        } else if p.u64(0) != Self.magic || p.u32(8) != Self.layoutVersion || Int(p.u32(12)) != slotCount {
            munmap(p, mappedBytes)
            throw fail(AtollError(.fileCorrupted, "the lock file '\(displayPath)' has an unknown layout; it may belong to another version of Atoll still running"))
        }
        // Shared, not exclusive: a second attachment in this process (a read-only open beside a
        // read-write one, a copy being written) takes it too, and so does a descriptor a forked
        // child inherited for a moment before its exec. Any holder means "alive".
        rc = atoll_ofd_lock(fd, 0, 0, Self.livenessOffset + Int64(pid), 1)
        guard rc == 0 else {
            munmap(p, mappedBytes)
            throw fail(AtollError.posix("locking", path: displayPath, errno: rc))
        }
    }

    deinit {
        munmap(base, mappedBytes)
        if removesFileWhenUnused,
           atoll_ofd_lock(fd, 1, 1, Self.initLockOffset, 1) == 0,
           atoll_ofd_lock(fd, 1, 0, Self.usageLockOffset, 1) == 0 {
            // No process is attached, and one attaching now waits for the initialization lock,
            // then finds the path no longer names this file. A failed unlink only leaves the
            // file behind, as a writer would.
            unlink(path)
        }
        close(fd) // releases every OFD lock this process holds on the file
    }

    // MARK: published version and commit notification

    private var publishedVersionPointer: UnsafeMutablePointer<UInt64> {
        (base + 16).assumingMemoryBound(to: UInt64.self)
    }

    private var commitSequencePointer: UnsafeMutablePointer<UInt32> {
        (base + 24).assumingMemoryBound(to: UInt32.self)
    }

    var publishedVersion: UInt64 { atoll_atomic_load_u64(publishedVersionPointer) }

    /// Publishes a new version only if it is newer than the published one.
    func publish(version: UInt64) {
        while true {
            let current = atoll_atomic_load_u64(publishedVersionPointer)
            if current >= version { return }
            if atoll_atomic_cas_u64(publishedVersionPointer, current, version) != 0 { return }
        }
    }

    /// Sets the published version (the writer, or an opener that found it ahead of the file).
    func setPublished(version: UInt64) {
        atoll_atomic_store_u64(publishedVersionPointer, version)
    }

    var commitSequence: UInt32 { atoll_atomic_load_u32(commitSequencePointer) }

    // MARK: the data file's newest commit (Database+Roots.swift)

    static let rootsCheckedMarker: UInt64 = 0x214B_4F53_544F_4F52 // "ROOTSOK!" little-endian

    private func u64Pointer(_ offset: Int) -> UnsafeMutablePointer<UInt64> {
        (base + offset).assumingMemoryBound(to: UInt64.self)
    }

    /// Whether a process has checked the data file's newest commit since this lock file was
    /// initialized (by a process that found no other process using the database).
    var rootsChecked: Bool { atoll_atomic_load_u64(u64Pointer(40)) == Self.rootsCheckedMarker }

    /// Records the outcome of the check (under the writer lock): the record to leave out, if the
    /// newest commit was incomplete.
    func setRootsChecked(rejecting rejected: RootRecord.Identity?) {
        setRejectedRecord(rejected)
        atoll_atomic_store_u64(u64Pointer(40), Self.rootsCheckedMarker)
    }

    /// The root record that open found incomplete and every reader and writer leaves out until
    /// a commit overwrites it (nil: none).
    var rejectedRecord: RootRecord.Identity? {
        let version = atoll_atomic_load_u64(u64Pointer(48))
        guard version != 0 else { return nil }
        return RootRecord.Identity(version: version, checksum: atoll_atomic_load_u32((base + 56).assumingMemoryBound(to: UInt32.self)))
    }

    /// Sets or clears the rejected record (under the writer lock).
    func setRejectedRecord(_ rejected: RootRecord.Identity?) {
        atoll_atomic_store_u32((base + 56).assumingMemoryBound(to: UInt32.self), rejected?.checksum ?? 0)
        atoll_atomic_store_u64(u64Pointer(48), rejected?.version ?? 0)
    }

    /// The newest version known to be on stable storage (0: unknown). A writer that finds the
    /// newest version is not known durable (its committer was killed before its sync returned,
    /// or committed without syncing) syncs before it reuses any page (WriteTransaction.swift).
    var durableVersion: UInt64 { atoll_atomic_load_u64(u64Pointer(64)) }

    func setDurable(version: UInt64) { atoll_atomic_store_u64(u64Pointer(64), version) }

    /// The bytes kept when the lock file is initialized afresh.
    static let keptRange = 72..<88

    /// The newest root record whose commit returned to its writer after its sync, kept across
    /// sessions (nil: none known). Its pages were on stable storage when it was recorded, so a
    /// page of it that fails its check is damage, never an interrupted commit.
    var returnedRecord: RootRecord.Identity? {
        let version = atoll_atomic_load_u64(u64Pointer(72))
        guard version != 0 else { return nil }
        return RootRecord.Identity(version: version, checksum: atoll_atomic_load_u32((base + 80).assumingMemoryBound(to: UInt32.self)))
    }

    /// Records the commit that just returned after its sync (under the writer lock); nil forgets it.
    func setReturnedRecord(_ record: RootRecord.Identity?) {
        atoll_atomic_store_u64(u64Pointer(72), 0)
        atoll_atomic_store_u32((base + 80).assumingMemoryBound(to: UInt32.self), record?.checksum ?? 0)
        atoll_atomic_store_u64(u64Pointer(72), record?.version ?? 0)
    }

    /// Wakes every process and thread waiting for a commit.
    func notifyCommit() {
        _ = atoll_atomic_fetch_add_u32(commitSequencePointer, 1)
        _ = atoll_futex_wake(commitSequencePointer, Int32.max)
    }

    /// Sleeps until the commit sequence differs from `seen` or the timeout passes.
    /// Returns the sequence observed on waking.
    func waitForCommit(after seen: UInt32, timeoutNanoseconds: Int64) -> UInt32 {
        if commitSequence == seen {
            _ = atoll_futex_wait(commitSequencePointer, seen, timeoutNanoseconds)
        }
        return commitSequence
    }

    func setWriterPid(_ pid: UInt32) { atoll_atomic_store_u32((base + 28).assumingMemoryBound(to: UInt32.self), pid) }

    // MARK: cross-process writer lock

    /// Blocks until this process holds the writer lock.
    func lockWriter() throws {
        let rc = atoll_ofd_lock(fd, 1, 1, Self.writerLockOffset, 1)
        guard rc == 0 else { throw AtollError.posix("taking the write lock on", path: path, errno: rc) }
    }

    /// Takes the writer lock if it is free. Returns false when another process holds it.
    func tryLockWriter() throws -> Bool {
        let rc = atoll_ofd_lock(fd, 1, 0, Self.writerLockOffset, 1)
        if rc == 0 { return true }
        if rc == EAGAIN || rc == EACCES { return false }
        throw AtollError.posix("taking the write lock on", path: path, errno: rc)
    }

    func unlockWriter() { _ = atoll_ofd_unlock(fd, Self.writerLockOffset, 1) }

    /// Waits until no process holds the writer lock (taking and releasing it), polling for at
    /// most `timeoutMilliseconds`. False on timeout or error.
    func waitForWriterToFinish(timeoutMilliseconds: Int) -> Bool {
        for _ in 0...max(0, timeoutMilliseconds) {
            switch Result(catching: { try tryLockWriter() }) {
            case .success(true):
                unlockWriter()
                return true
            case .success(false): usleep(1000)
            case .failure: return false
            }
        }
        return false
    }

    /// Whether process `pid` still has the database open (holds its liveness lock).
    func isProcessAlive(_ other: UInt32) -> Bool {
        if other == pid { return true }
        let r = atoll_ofd_is_locked(fd, Self.livenessOffset + Int64(other), 1)
        return r != 0 // on error, assume alive: keeping pages longer is always safe
    }

    /// Takes the usage lock exclusively (no other process may attach until released).
    /// Returns false when another process has the database open.
    func upgradeToExclusiveUsage() -> Bool {
        Self.afterSpawnWindows { atoll_ofd_lock(fd, 1, 0, Self.usageLockOffset, 1) == 0 }
    }

    func downgradeUsage() {
        _ = atoll_ofd_lock(fd, 0, 1, Self.usageLockOffset, 1)
    }

    /// True when no other process has the database open.
    func isSoleUser() -> Bool {
        Self.afterSpawnWindows { atoll_ofd_is_locked(fd, Self.usageLockOffset, 1) == 0 }
    }

    /// Whether `attempt` (a test that no other open file description holds the usage lock)
    /// succeeds now or within 5 s.
    ///
    /// A usage lock can outlive the open that took it: when this process (or another) closes a
    /// database while a thread is spawning a child, the child holds a copy of the lock file's
    /// descriptor between fork and exec (until O_CLOEXEC closes it), and the lock belongs to the
    /// open file description the copy keeps alive. Under load that window lasts milliseconds.
    /// A database really open elsewhere keeps its lock for the whole wait, so the answer is
    /// only delayed, never changed, for it.
    static func afterSpawnWindows(_ attempt: () -> Bool) -> Bool {
        if attempt() { return true }
        for _ in 0..<500 {
            usleep(10_000)
            if attempt() { return true }
        }
        return false
    }

    func slot(_ index: Int) -> UnsafeMutableRawPointer {
        base + Self.headerBytes + index * Self.slotBytes
    }
}
