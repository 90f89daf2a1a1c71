import Foundation
#if canImport(Glibc)
import Glibc
import AtollTestSupport
#endif

/// A built executable of this package run as a child process: stdout read line by line, stderr
/// collected in a file. Killed (SIGKILL) on release if still running, so a failing test leaves no
/// process behind.
final class RelayProcess {
    let process = Process()
    private let stdoutPipe = Pipe()
    private let stderrPath: String
    private var buffer: [UInt8] = []

    static var productsDirectory: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    init(_ arguments: [String], stderrIn directory: TemporaryDirectory) throws {
        stderrPath = directory.file("stderr-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = Self.productsDirectory.appendingPathComponent("atoll-relay")
        process.arguments = arguments
        process.standardOutput = stdoutPipe
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        try process.run()
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
