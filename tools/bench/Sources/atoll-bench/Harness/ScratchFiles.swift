#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The directory where a suite creates its database files, and file chores done outside timed
/// intervals (removing, copying, sizing).
struct ScratchDirectory {
    let path: String

    init(path: String) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    /// Deletes a database file and its companions (Atoll's lock file, SQLite's WAL and shared
    /// memory), if present.
    static func removeDatabase(_ path: String) {
        for suffix in ["", ".lock", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    /// Copies a closed database file and syncs the copy, so that a timed run starting on the
    /// copy does not pay for writing back the copy's dirty pages at its first fsync.
    static func copyDatabase(from source: String, to destination: String) throws {
        removeDatabase(destination)
        let input = open(source, O_RDONLY)
        guard input >= 0 else { throw BenchError("cannot open \(source): \(String(cString: strerror(errno)))") }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard output >= 0 else { throw BenchError("cannot create \(destination): \(String(cString: strerror(errno)))") }
        defer { close(output) }
        let bufferSize = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 4096)
        defer { buffer.deallocate() }
        while true {
            let n = read(input, buffer, bufferSize)
            guard n >= 0 else { throw BenchError("cannot read \(source): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            var written = 0
            while written < n {
                let w = write(output, buffer + written, n - written)
                guard w > 0 else { throw BenchError("cannot write \(destination): \(String(cString: strerror(errno)))") }
                written += w
            }
        }
        guard fsync(output) == 0 else { throw BenchError("cannot sync \(destination)") }
    }

    /// Renames a closed database file (its lock and shared-memory files are deleted: they are
    /// recreated on open; a SQLite WAL moves along).
    static func moveDatabase(from source: String, to destination: String) throws {
        removeDatabase(destination)
        for suffix in [".lock", "-shm"] { unlink(source + suffix) }
        guard rename(source, destination) == 0 else { throw BenchError("cannot rename \(source) to \(destination)") }
        if fileBytes(source + "-wal") > 0, rename(source + "-wal", destination + "-wal") != 0 {
            throw BenchError("cannot rename \(source)-wal")
        }
        removeDatabase(source)
    }

    /// Size in bytes of a file, 0 when it does not exist.
    static func fileBytes(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }
}

/// An error of the benchmark itself (bad arguments, a failed file chore, a wrong result).
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
