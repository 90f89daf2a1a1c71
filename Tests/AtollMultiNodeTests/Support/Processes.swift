import AtollStorage
import AtollTestSupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
import AtollTestSupport
#endif


/// The built executables of this package sit next to the test bundle.
enum Executables {
    static var directory: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    static var atoll: URL { directory.appendingPathComponent("atoll") }
    static var relay: URL { directory.appendingPathComponent("atoll-relay") }
    /// Tests/AtollObjectHelper: object-API work on a file (a migration with a migration block).
    static var objectHelper: URL { directory.appendingPathComponent("AtollObjectHelper") }
}

/// What one finished run of an executable printed.
struct RunResult: CustomStringConvertible {
    let status: Int32
    let stdout: [UInt8]
    let stderr: String

    var text: String { String(decoding: stdout, as: UTF8.self) }
    var description: String { "status \(status), stdout: \(text.prefix(2000)), stderr: \(stderr.prefix(2000))" }
}

/// A child process whose stdout and stderr go to files (so a chatty child never blocks on a
/// full pipe), killed with SIGKILL when released if still running: a failing test leaves no
/// process behind.
final class ChildProcess: @unchecked Sendable {
    // Sendable: the process is only started in init and then signalled and waited on, which
    // SpawnedProcess supports from any thread; the log paths are constants.
    let process: SpawnedProcess
    let name: String
    let stdoutPath: String
    let stderrPath: String

    init(_ executable: URL, _ arguments: [String], name: String, in directory: TemporaryDirectory, environment extra: [String: String] = [:]) throws {
        self.name = name
        let tag = "\(name)-\(UUID().uuidString.prefix(8))"
        stdoutPath = directory.file("\(tag).out")
        stderrPath = directory.file("\(tag).err")
        var environment = ProcessInfo.processInfo.environment
        // Crash backtraces of a killed child would only slow the test down.
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment.merge(extra) { $1 }
        process = try SpawnedProcess(executable: executable.path, arguments: arguments, environment: environment,
                                     stdoutPath: stdoutPath, stderrPath: stderrPath)
    }

    deinit { kill9() }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stdoutBytes: [UInt8] { (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: stdoutPath)))) ?? [] }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    var lines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// Waits until a stdout line satisfies `match` (returns it), the child exits, or the timeout.
    func waitForLine(timeout: Double = 30, _ match: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = lines.first(where: match) { return line }
            if !process.isRunning { return lines.first(where: match) }
            usleep(20_000)
        }
        return nil
    }

    /// Waits until stderr contains `text`.
    func waitForStderr(_ text: String, timeout: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if stderr.contains(text) { return true }
            usleep(20_000)
        }
        return stderr.contains(text)
    }

    /// SIGKILL and reap (nothing is flushed, nothing cleaned up: a crash).
    func kill9() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// SIGTERM and wait; the exit status, or nil if the child did not exit within `timeout`
    /// (then it is killed).
    func terminate(timeout: Double = 20) -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(ThreadSanitizer.scaled(timeout))
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill9()
            return nil
        }
        return process.terminationStatus
    }

    /// Waits for the child to exit.
    func wait(timeout: Double = 60) -> Int32? {
        let deadline = Date().addingTimeInterval(ThreadSanitizer.scaled(timeout))
        while process.isRunning && Date() < deadline { usleep(5_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// Runs an executable to completion.
    static func run(_ executable: URL, _ arguments: [String], in directory: TemporaryDirectory, timeout: Double = 60,
                    environment: [String: String] = [:]) throws -> RunResult {
        let child = try ChildProcess(executable, arguments, name: executable.lastPathComponent, in: directory, environment: environment)
        guard let status = child.wait(timeout: timeout) else {
            child.kill9()
            throw AtollError(.timeout, "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) did not finish in \(ThreadSanitizer.scaled(timeout)) s")
        }
        let result = RunResult(status: status, stdout: child.stdoutBytes, stderr: child.stderr)
        try? FileManager.default.removeItem(atPath: child.stdoutPath)
        try? FileManager.default.removeItem(atPath: child.stderrPath)
        return result
    }
}
