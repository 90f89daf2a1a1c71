import AtollStorage
import Foundation
#if canImport(Glibc)
import Glibc
import AtollTestSupport
#endif

/// A built executable of this package run as a child process: stdout read line by line, stderr
/// collected in a file. Killed (SIGKILL) on release if still running, so a failing test leaves no
/// process behind.
final class RelayProcess: @unchecked Sendable {
    // Sendable: a test uses its relay process from one task at a time (the stdout buffer is the
    // only mutable state); the process may be signalled and waited on from any thread.
    let process: SpawnedProcess
    private let stdoutPipe = Pipe()
    private let stderrPath: String
    private var buffer: [UInt8] = []

    static var productsDirectory: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    init(_ arguments: [String], stderrIn directory: TemporaryDirectory) throws {
        stderrPath = directory.file("stderr-\(UUID().uuidString).log")
        process = try SpawnedProcess(
            executable: Self.productsDirectory.appendingPathComponent("atoll-relay").path, arguments: arguments,
            environment: ProcessInfo.processInfo.environment,
            stdout: .descriptor(stdoutPipe.fileHandleForWriting.fileDescriptor), stderr: .file(stderrPath))
        try stdoutPipe.fileHandleForWriting.close()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Runs to completion and returns (exit status, stdout, stderr).
    static func run(_ arguments: [String], in directory: TemporaryDirectory, timeout: Double = 30) throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try RelayProcess(arguments, stderrIn: directory)
        var lines: [String] = []
        while let line = child.readLine(timeout: timeout) { lines.append(line) }
        let status = child.wait()
        return (status, lines.joined(separator: "\n"), child.stderr)
    }

    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// The next stdout line, or nil at end of output or after `timeout` seconds.
    func readLine(timeout: Double = 30) -> String? {
        let fd = stdoutPipe.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, Int32(min(remaining, 1) * 1000)) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    func wait() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Waits up to `timeout` seconds for the process to exit; nil if it is still running.
    func wait(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        return process.isRunning ? nil : process.terminationStatus
    }
}

/// A plain TCP connection to 127.0.0.1 that sends nothing (for a peer stuck before TLS).
final class RawTCPConnection {
    private var fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, result == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    /// Reads until the peer closes; false if it has not within `timeout` seconds.
    func waitForEndOfStream(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) > 0 else { continue }
            if read(fd, &chunk, chunk.count) <= 0 { return true }
        }
        return false
    }

    func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
    }

    deinit { close() }
}

extension RelayProcess {
    /// `atoll-relay serve` on 127.0.0.1 with `pki`'s relay certificate and CA, started and waited
    /// for (its "listening" line); returns the process and the port it listens on.
    static func serve(database: String, pki: TestPKI, port: Int = 0, extra: [String] = []) throws -> (process: RelayProcess, port: Int) {
        let arguments = ["serve", "--db", database, "--listen", "127.0.0.1:\(port)",
                         "--cert", pki.directory.file("relay.pem"), "--key", pki.directory.file("relay-key.pem"), "--ca", pki.ca] + extra
        let process = try RelayProcess(arguments, stderrIn: pki.directory)
        guard let line = process.readLine(timeout: 30) else {
            throw AtollError(.ioError, "the relay printed no listening line; stderr: \(process.stderr)")
        }
        let prefix = "atoll-relay listening on 127.0.0.1:"
        guard line.hasPrefix(prefix), let bound = Int(line.dropFirst(prefix.count).prefix { $0.isNumber }) else {
            throw AtollError(.ioError, "unexpected first line '\(line)'")
        }
        return (process, bound)
    }

    /// The process's resident memory now and at its peak (VmRSS, VmHWM from /proc), in bytes.
    var residentBytes: (now: Int, peak: Int)? {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8) else { return nil }
        func field(_ name: String) -> Int? {
            for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
                return line.split(separator: " ").compactMap { Int($0) }.first.map { $0 * 1024 }
            }
            return nil
        }
        guard let now = field("VmRSS"), let peak = field("VmHWM") else { return nil }
        return (now, peak)
    }
}

/// Raises this process's soft limit on open files to at least `count` (up to the hard limit) and
/// returns the soft limit in force.
@discardableResult
func raiseOpenFileLimit(to count: Int) -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
    if limit.rlim_cur < rlim_t(count) {
        limit.rlim_cur = min(limit.rlim_max, rlim_t(count))
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    return Int(limit.rlim_cur)
}
