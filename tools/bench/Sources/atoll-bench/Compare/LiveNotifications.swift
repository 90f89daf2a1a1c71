#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// W11: a commit in one process to a change callback in another. The parent process writes; an
/// observer child (`atoll-bench _w11-observer <engine> <path> <count> [settings]`) watches every
/// object and, on each callback, prints the number of objects it sees and the CLOCK_MONOTONIC
/// time (one clock for all processes of the machine). The parent makes one commit at a time,
/// each inserting one object, and waits for the callback that sees it before the next, so every
/// latency is one commit's: from just before the write transaction begins (the commit, with its
/// syncs, is part of what an observer waits for) to the callback in the other process.
///
/// Atoll: `Results.observe` on a queue-confined realm; a commit in any process wakes the
/// realm's coordinator thread (a futex on the lock file), which refreshes the realm and calls
/// the block. SQLite: GRDB's `ValueObservation` sees only writes made through the same
/// `DatabaseQueue`/`DatabasePool`, so a second process has to poll. Its closest equivalent is
/// `PRAGMA data_version` (it changes when another connection commits) checked every
/// `pollMicroseconds`, then the observed query re-run; a tighter loop would take a core of the
/// two the writer needs.
enum LiveNotifications {
    static let subcommand = "_w11-observer"
    static let pollMicroseconds: UInt32 = 1_000

    /// Starts the observer child on `path` (which has the schema), then calls `commit(i)` for
    /// `i` in `0..<count`; each must add one object. Returns the latency of each commit in
    /// nanoseconds.
    static func latencies(engine: String, path: String, count: Int, extra: [String] = [],
                          commit: (Int) throws -> Void) throws -> [UInt64] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ChildProcess.executablePath)
        process.arguments = [subcommand, engine, path, String(count)] + extra
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        var lines = LineReader(fileDescriptor: output.fileHandleForReading.fileDescriptor)
        guard let first = lines.next(), first == "ready" else {
            throw BenchError("\(engine) observer did not start")
        }
        var result: [UInt64] = []
        result.reserveCapacity(count)
        for i in 0..<count {
            let start = monotonicNanoseconds()
            try commit(i)
            guard let line = lines.next() else { throw BenchError("\(engine) observer ended after \(i) commits") }
            let parts = line.split(separator: " ")
            guard parts.count == 2, let seen = Int(parts[0]), let at = UInt64(parts[1]), at >= start else {
                throw BenchError("\(engine) observer printed '\(line)'")
            }
            guard seen == i + 1 else { throw BenchError("\(engine) observer saw \(seen) objects after commit \(i + 1)") }
            result.append(at - start)
        }
        return result
    }

    /// The child's side.
    static func runChild(_ arguments: [String]) throws {
        guard arguments.count >= 3, let count = Int(arguments[2]), count > 0 else {
            throw BenchError("usage: atoll-bench \(subcommand) <atoll|sqlite> <path> <count> [<cache MiB> <mmap MiB>]")
        }
        switch arguments[0] {
        case "atoll": try AtollObjects.observeCommits(path: arguments[1], until: count)
        case "sqlite":
            let tuning = arguments.count > 3 ? try SQLiteTuning(arguments: arguments[3...]) : SQLiteTuning()
            try SQLiteWorkloads.pollCommits(path: arguments[1], until: count, tuning: tuning)
        default: throw BenchError("unknown engine '\(arguments[0])'")
        }
    }

    /// The observer's report of one callback (unbuffered: the parent waits for it).
    static func report(objects: Int) {
        say("\(objects) \(monotonicNanoseconds())")
    }

    static func say(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { bytes in _ = write(1, bytes.baseAddress, bytes.count) }
    }
}

/// Lines from a pipe, read with blocking `read(2)`.
struct LineReader {
    let fileDescriptor: Int32
    private var buffer: [UInt8] = []

    init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }

    /// The next line without its newline; nil at the end of the stream.
    mutating func next() -> String? {
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }
}
