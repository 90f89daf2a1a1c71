import AtollTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What one run of the `atoll` executable did.
struct CLIResult: CustomStringConvertible {
    let status: Int32
    let stdout: String
    let stderr: String

    var description: String { "status \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }

    /// The stderr lines (an error is exactly one).
    var errorLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
}

/// Runs the built `atoll` executable (next to the test bundle) in a scratch directory.
final class CLISandbox: @unchecked Sendable {
    // Sendable: a test uses its sandbox from one task; the directory is its own.
    let path: String

    init() {
        path = NSTemporaryDirectory() + "atoll-cli-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    static var executable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("atoll")
    }

    func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
        return name
    }

    func read(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: file(name)))) }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }

    /// Runs `atoll args...` in the sandbox and waits for it.
    @discardableResult
    func atoll(_ args: String...) throws -> CLIResult { try run(args) }

    /// Runs `atoll args...` as the unprivileged `user` (through runuser; the tests run as root).
    func atoll(asUser user: String, _ args: String...) throws -> CLIResult {
        try run(["-u", user, "--", Self.executable.path] + args, executable: URL(fileURLWithPath: "/usr/sbin/runuser"))
    }

    func run(_ args: [String], executable: URL = CLISandbox.executable) throws -> CLIResult {
        let outName = file(".stdout-\(UUID().uuidString)"), errName = file(".stderr-\(UUID().uuidString)")
        defer {
            unlink(outName)
            unlink(errName)
        }
        let process = try SpawnedProcess(executable: executable.path, arguments: args, environment: ProcessInfo.processInfo.environment,
                                         directory: path, stdout: .file(outName), stderr: .file(errName))
        process.waitUntilExit()
        return CLIResult(status: process.terminationStatus,
                         stdout: String(decoding: try Data(contentsOf: URL(fileURLWithPath: outName)), as: UTF8.self),
                         stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errName)), as: UTF8.self))
    }

    /// Starts `atoll args...` with stdout on a pipe, for commands that keep running (`watch`).
    func start(_ args: String...) throws -> RunningCLI {
        try start(args)
    }

    func start(_ args: [String]) throws -> RunningCLI {
        try RunningCLI(args, directory: path)
    }
}

/// A running `atoll` process whose stdout is read line by line; killed when released.
final class RunningCLI {
    let process: SpawnedProcess
    private let stdoutPipe = Pipe()
    private lazy var lines = LineReader(fileDescriptor: stdoutPipe.fileHandleForReading.fileDescriptor)

    init(_ args: [String], directory: String) throws {
        process = try SpawnedProcess(executable: CLISandbox.executable.path, arguments: args, environment: ProcessInfo.processInfo.environment,
                                     directory: directory, stdout: .descriptor(stdoutPipe.fileHandleForWriting.fileDescriptor), stderr: .null)
        try stdoutPipe.fileHandleForWriting.close()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The next line of output, or nil at its end or after `timeout` seconds.
    func readLine(timeout: Double = 20) -> String? { lines.readLine(timeout: timeout) }

    /// Sends a signal and waits for the exit status.
    func stop(_ signal: Int32 = SIGINT) -> Int32 {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process.terminationStatus
    }
}
