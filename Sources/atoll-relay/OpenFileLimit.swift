#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open files, which must leave room for `--connections-max` sockets.
enum OpenFileLimit {
    /// Descriptors the relay needs besides its connections: its file, lock files, the listeners,
    /// the status endpoint's connections, standard streams.
    static let reservedDescriptors = 64

    /// Raises the soft limit to `needed` when it is lower (up to the hard limit), and returns the
    /// soft limit in force afterwards.
    static func raise(toAtLeast needed: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < rlim_t(needed) {
            var raised = limit
            raised.rlim_cur = min(limit.rlim_max, rlim_t(needed))
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
