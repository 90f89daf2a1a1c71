import AtollTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started from a built executable of this package, with line-based stdout.
final class ChildProcess {
    let process: SpawnedProcess
    private let stdoutPipe = Pipe()
    private let stdinPipe = Pipe()
    private lazy var lines = LineReader(fileDescriptor: stdoutPipe.fileHandleForReading.fileDescriptor)

    /// The directory holding the package's built executables (next to the test bundle).
    static var productsDirectory: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// `environment`: variables added to this process's environment for the child.
    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        // Writing to a child that died must fail the test, not kill the test process.
        signal(SIGPIPE, SIG_IGN)
        process = try SpawnedProcess(
            executable: Self.productsDirectory.appendingPathComponent(executable).path, arguments: arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new },
            stdin: .descriptor(stdinPipe.fileHandleForReading.fileDescriptor),
            stdout: .descriptor(stdoutPipe.fileHandleForWriting.fileDescriptor), stderr: .inherit)
        // The child's ends: this process keeps only its own, so end of output is seen.
        try stdinPipe.fileHandleForReading.close()
        try stdoutPipe.fileHandleForWriting.close()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    }

    /// The next line of output, or nil at end of output or after `timeout` seconds.
    func readLine(timeout: Double = 30) -> String? { lines.readLine(timeout: timeout) }

    /// Every line still buffered or readable without waiting long (after the child died).
    func drainLines() -> [String] {
        var lines: [String] = []
        while let l = readLine(timeout: 0.2) { lines.append(l) }
        return lines
    }

    /// Writes one line to the child's stdin (ignored when the child has exited).
    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        let fd = stdinPipe.fileHandleForWriting.fileDescriptor
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            offset += n
        }
    }

    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func wait() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }
}

extension ChildProcess {
    /// Sends one command to a `serve` helper and returns its answer ("no answer" on timeout or
    /// when the child died).
    func ask(_ command: String, timeout: Double = 60) -> String {
        send(command)
        return readLine(timeout: timeout) ?? "no answer (\(process.isRunning ? "timeout" : "exited"))"
    }
}
