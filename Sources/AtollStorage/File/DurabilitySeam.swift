// DurabilitySeam: the points at which a data file's contents and name become durable, observable
// by tests that simulate a machine losing power.
//
// Atoll writes pages through a shared memory map; the kernel may write any dirty page back at any
// time and in any order, and a power failure keeps exactly what reached the disk. What the engine
// controls is *when it waits*: fdatasync (every dirty page and the file size), msync of a range
// (those bytes), and fsync of a directory (names created or renamed in it). Between two of these
// points any subset of the bytes written since may be durable, torn at sector (512-byte) or page
// (4 KiB) granularity, and the file may have any size it had since the last full sync.
//
// The seam reports exactly those points, plus the size changes between them, for data files
// (never the lock file, which holds no durable state):
//     opened          a data file was opened (or created, empty and not yet durably named)
//     willSync        a sync is about to start: a crash here loses whatever it would have made durable
//     didSync         the sync returned: the range (nil: the whole file and its size) is durable
//     didResize       the file was grown or truncated (durable at the next full sync)
//     didRename       a file was renamed (durable at the next sync of its directory)
//     didSyncDirectory names in the directory are durable
//     closed          the file's descriptor is about to be closed (its unsynced writes stay pending)
// Tests/AtollStorageTests/PowerLoss builds "durable images" from these events and derives crash
// images from them (docs/FORMAT.md, "Power loss").
//
// Cost in production: observers register per directory; a file looks its observer up once, when
// it opens (one atomic load when none is registered), and every event site is a nil check next
// to a system call that costs microseconds to milliseconds.

#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Receives the durability points of the data files in one directory (tests only).
package protocol DurabilityObserver: AnyObject, Sendable {
    func opened(path: String, fd: Int32, created: Bool)
    func willSync(path: String, fd: Int32, range: Range<Int>?)
    func didSync(path: String, fd: Int32, range: Range<Int>?)
    func didResize(path: String, fd: Int32, toBytes: Int)
    func didRename(from: String, to: String)
    func didSyncDirectory(path: String)
    func closed(path: String, fd: Int32)
}

package enum DurabilitySeam {
    private struct Registration {
        let directory: String
        let observer: any DurabilityObserver
    }

    private static let anyRegistered = Atomic<Bool>(false)
    private static let registrations = AtollLock<[Registration]>([])

    /// Reports the durability points of every data file opened from now on whose path lies in
    /// `directory` (an absolute path) to `observer`, until `unregister`.
    package static func register(_ observer: any DurabilityObserver, directory: String) {
        registrations.withLock { list in
            list.append(Registration(directory: directory.hasSuffix("/") ? directory : directory + "/", observer: observer))
            anyRegistered.store(true, ordering: .releasing)
        }
    }

    package static func unregister(_ observer: any DurabilityObserver) {
        registrations.withLock { list in
            list.removeAll { $0.observer === observer }
            anyRegistered.store(!list.isEmpty, ordering: .releasing)
        }
    }

    /// The observer of the file at `path`, if a test registered one for its directory.
    static func observer(for path: String) -> (any DurabilityObserver)? {
        guard anyRegistered.load(ordering: .acquiring) else { return nil }
        let absolute = Database.canonicalPath(path)
        return registrations.withLock { list in list.last { absolute.hasPrefix($0.directory) }?.observer }
    }
}

enum DirectorySync {
    /// The directory holding `path`.
    static func directory(of path: String) -> String {
        let absolute = Database.canonicalPath(path)
        guard let slash = absolute.lastIndex(of: "/") else { return "." }
        return slash == absolute.startIndex ? "/" : String(absolute[..<slash])
    }

    /// Makes the names in the directory holding `path` durable (a file created or renamed there
    /// survives a power failure only once its directory is synced: POSIX, and in practice on
    /// filesystems without ordered metadata). Filesystems that cannot sync a directory (EINVAL)
    /// have nothing to sync.
    static func syncDirectory(containing path: String) throws {
        let directory = directory(of: path)
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw AtollError.posix("opening the directory", path: directory, errno: errno) }
        defer { close(fd) }
        var rc = fsync(fd)
        while rc != 0 && errno == EINTR { rc = fsync(fd) }
        if rc != 0 && errno != EINVAL { throw AtollError.posix("syncing the directory", path: directory, errno: errno) }
        DurabilitySeam.observer(for: path)?.didSyncDirectory(path: directory)
    }
}
