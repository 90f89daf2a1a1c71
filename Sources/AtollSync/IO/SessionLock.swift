import AtollStorage
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One sync session per file, across threads and processes.
///
/// Two sessions on one file would present the same node id to the relay, which keeps only the
/// newest connection of a node: they would push each other off in a loop.
///
/// Across processes, each session holds an exclusive POSIX record lock (`fcntl(F_SETLK)`) on
/// `PATH.sync-lock`; the kernel drops it when the process dies, so a node killed with SIGKILL
/// can restart at once. A POSIX lock, not `flock` or an open-file-description lock, because
/// those belong to the open file description, which a child process shares from `fork` until
/// its `exec` closes the descriptor: a session closed while another thread of the program was
/// spawning a process left its lock held by the half-started child, and the next session on
/// the file was refused. POSIX locks belong to the process and are never inherited.
///
/// Within the process, POSIX locks do not conflict with each other, and closing any descriptor
/// of the file drops them. So sessions of this process are tracked in a process-wide table
/// keyed by the lock file's device and inode, checked before the file is opened, so that a
/// refused second session never opens (and so never closes) a descriptor of a held file.
/// In-memory databases, which only this process sees, are tracked by name in the same way.
final class SessionLock: Sendable {
    private enum Key: Hashable, Sendable {
        case file(device: UInt64, inode: UInt64)
        case memory(String)
    }

    private struct Hold: Sendable {
        let key: Key
        let fd: Int32?
    }

    private let hold: AtollLock<Hold?>
    /// Every lock this process holds, with descriptors of the file that could not be closed
    /// without dropping it (see `lockFile`). Its mutex also serializes taking and releasing.
    private static let held = AtollLock<[Key: [Int32]]>([:])

    init(database: Database) throws {
        if let path = database.configuration.path {
            hold = AtollLock(try Self.held.withLock { held in try Self.lockFile(path: path, held: &held) })
        } else {
            let name = database.displayName
            let taken = Self.held.withLock { held in
                if held[.memory(name)] != nil { return false }
                held[.memory(name)] = []
                return true
            }
            guard taken else {
                throw AtollError(.fileLocked, "a sync session is already running on '\(name)'; one session per database")
            }
            hold = AtollLock(Hold(key: .memory(name), fd: nil))
        }
    }

    private static func refusal(_ path: String) -> AtollError {
        AtollError(.fileLocked, "a sync session is already running on '\(path)' (in this or another process, such as 'atoll node'); one session per file")
    }

    private static func key(_ status: stat) -> Key {
        .file(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// Runs under `held`'s mutex.
    private static func lockFile(path: String, held: inout [Key: [Int32]]) throws -> Hold {
        let lockPath = path + ".sync-lock"
        var existing = stat()
        if stat(lockPath, &existing) == 0, held[key(existing)] != nil { throw refusal(path) }
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw AtollError(.ioError, "cannot open '\(lockPath)': \(String(cString: strerror(errno)))")
        }
        var opened = stat()
        guard fstat(fd, &opened) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw AtollError(.ioError, "cannot stat '\(lockPath)': \(reason)")
        }
        let key = key(opened)
        // A held lock file renamed onto the path between the stat and the open: this descriptor
        // must stay open until that session releases (closing it would drop its lock).
        if held[key] != nil {
            held[key, default: []].append(fd)
            throw refusal(path)
        }
        var request = flock()
        request.l_type = Int16(F_WRLCK)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = 0
        request.l_len = 0
        guard fcntl(fd, F_SETLK, &request) == 0 else {
            let busy = errno == EAGAIN || errno == EACCES
            let reason = String(cString: strerror(errno))
            close(fd)
            throw busy ? refusal(path) : AtollError(.ioError, "cannot lock '\(lockPath)': \(reason)")
        }
        held[key] = []
        return Hold(key: key, fd: fd)
    }

    /// Lets another session start on the file. Idempotent.
    func release() {
        guard let taken = hold.withLock({ h -> Hold? in defer { h = nil }; return h }) else { return }
        Self.held.withLock { held in
            // Closing drops this process's lock on the file.
            for fd in (held.removeValue(forKey: taken.key) ?? []) + (taken.fd.map { [$0] } ?? []) { close(fd) }
        }
    }

    deinit { release() }
}
