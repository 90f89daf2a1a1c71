#if canImport(Glibc)
import Glibc
#endif

/// The machine's raw durable-write rate: overwrite one 4 KiB page and `fdatasync`, repeatedly,
/// in the scratch directory. No engine commits durably faster than this; a small Atoll commit
/// (format 3) needs one sync of its pages and root slot together, a SQLite WAL commit one sync of
/// its WAL frames.
enum FsyncProbe {
    static func syncsPerSecond(directory: String, count: Int) throws -> Double {
        let path = directory + "/fsync-probe"
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw BenchError("cannot create \(path)") }
        defer { close(fd); unlink(path) }
        var page = [UInt8](repeating: 0xA5, count: 4096)
        guard pwrite(fd, &page, page.count, 0) == page.count, fsync(fd) == 0 else { throw BenchError("cannot write \(path)") }
        let watch = Stopwatch()
        for i in 0..<count {
            page[0] = UInt8(truncatingIfNeeded: i)
            guard pwrite(fd, &page, page.count, 0) == page.count, fdatasync(fd) == 0 else { throw BenchError("cannot sync \(path)") }
        }
        return Rate.perSecond(count, Double(watch.elapsedNanoseconds))
    }
}
