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
/// newest connection of a node: they would push each other off in a loop. Each session holds an
/// exclusive `flock` on `PATH.sync-lock`; `flock` locks belong to an open file description, so a
/// second session in the same process conflicts too, and the kernel drops the lock when the
/// process dies (a node killed with SIGKILL can restart at once). In-memory databases, which
/// only this process sees, are tracked in a process-wide set instead.
final class SessionLock: Sendable {
    private enum Hold: Sendable {
        case file(Int32)
        case memory(String)
    }

    private let hold: AtollLock<Hold?>
    private static let memoryHolders = AtollLock<Set<String>>([])

    init(database: Database) throws {
        if let path = database.configuration.path {
            let lockPath = path + ".sync-lock"
            let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw AtollError(.ioError, "cannot open '\(lockPath)': \(String(cString: strerror(errno)))")
            }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                let busy = errno == EWOULDBLOCK
                let reason = String(cString: strerror(errno))
                close(fd)
                throw AtollError(.fileLocked, busy
                    ? "a sync session is already running on '\(path)' (in this or another process, such as 'atoll node'); one session per file"
                    : "cannot lock '\(lockPath)': \(reason)")
            }
            hold = AtollLock(.file(fd))
        } else {
            let name = database.displayName
            let taken = Self.memoryHolders.withLock { $0.insert(name).inserted }
            guard taken else {
                throw AtollError(.fileLocked, "a sync session is already running on '\(name)'; one session per database")
            }
            hold = AtollLock(.memory(name))
        }
    }

    /// Lets another session start on the file. Idempotent.
    func release() {
        let held = hold.withLock { h -> Hold? in
            defer { h = nil }
            return h
        }
        switch held {
        case .file(let fd): close(fd)
        case .memory(let name): _ = Self.memoryHolders.withLock { $0.remove(name) }
        case nil: break
        }
    }

    deinit { release() }
}
