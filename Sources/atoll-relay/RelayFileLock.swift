import AtollStorage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One relay per log file. The relay keeps what it has stored in memory as well (realm heads,
/// origins, peers), so a second relay process writing the same file would hand out log positions
/// twice. An exclusive `flock` on `PATH.relay-lock`, held for the process's life, refuses it; the
/// kernel drops the lock when the process dies, so a relay killed with SIGKILL restarts at once.
final class RelayFileLock {
    private let fd: Int32

    init(databasePath: String) throws {
        let path = databasePath + ".relay-lock"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw AtollError(.ioError, "cannot open '\(path)': \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            close(fd)
            throw AtollError(.fileLocked, busy ? "another atoll-relay is serving '\(databasePath)'" : "cannot lock '\(path)': \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }
}
