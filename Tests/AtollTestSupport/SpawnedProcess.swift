public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, for tests that run the package's executables.
///
/// Not Foundation's `Process`: on Linux its `run()` reads `/proc/self/fd` with a 256-byte copy
/// of each directory entry's name (swift-corelibs-foundation, `findMaximumOpenFromProcSelfFD`,
/// fixed upstream by PR #5472 after the toolchain here was released), which reads past glibc's
/// buffer and crashed the whole test process once (SIGSEGV in `Process.run()`) in a run that
/// spawns hundreds of children while holding over a thousand descriptors.
///
/// The child gets stdin from /dev/null, stdout and stderr in the given files (or this
/// process's), and no descriptor of this process but those three (`closefrom(3)` in the child),
/// so it never holds the test's lock files or sockets.
public final class SpawnedProcess: Sendable {
    public let processIdentifier: Int32
    /// The wait status once the child has been reaped.
    private let reaped = TestLock<Int32?>(nil)

    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// This process's own.
        case inherit
        /// /dev/null.
        case null
        /// A file: read from for stdin; created or truncated for stdout and stderr.
        case file(String)
        /// A descriptor of this process (a pipe's end), duplicated onto the stream.
        case descriptor(Int32)
    }

    public convenience init(executable: String, arguments: [String], environment: [String: String],
                            stdoutPath: String?, stderrPath: String?) throws {
        try self.init(executable: executable, arguments: arguments, environment: environment,
                      stdout: stdoutPath.map { .file($0) } ?? .inherit, stderr: stderrPath.map { .file($0) } ?? .inherit)
    }

    /// Starts `executable`; `directory`: its working directory (nil: this process's).
    /// `descriptors`: descriptors of this process the child gets as 3, 4, ... in order (a
    /// browser's `--remote-debugging-pipe` reads 3 and writes 4).
    public init(executable: String, arguments: [String], environment: [String: String], directory: String? = nil,
                stdin: Stream = .null, stdout: Stream, stderr: Stream, descriptors: [Int32] = []) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .inherit: break
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, target == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, target)
            }
        }
        for (i, fd) in descriptors.enumerated() { posix_spawn_file_actions_adddup2(&actions, fd, Int32(3 + i)) }
        if let directory {
            guard let chdir = Self.addChdir else {
                throw SpawnError(description: "posix_spawn_file_actions_addchdir_np is missing (glibc 2.29 or later is needed)")
            }
            _ = chdir(&actions, directory)
        }
        guard let closeFrom = Self.addCloseFrom else {
            throw SpawnError(description: "posix_spawn_file_actions_addclosefrom_np is missing (glibc 2.34 or later is needed)")
        }
        _ = closeFrom(&actions, Int32(3 + descriptors.count))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in envp { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard rc == 0 else {
            throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        processIdentifier = pid
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which Swift's Glibc module
    /// does not import.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()

    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private static let addChdir: AddChdir? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addchdir_np") else { return nil }
        return unsafeBitCast(symbol, to: AddChdir.self)
    }()

    /// Whether the child has not exited yet (reaps it when it has).
    public var isRunning: Bool {
        reaped.withLock { status in
            if status != nil { return false }
            var s: Int32 = 0
            let r = waitpid(processIdentifier, &s, WNOHANG)
            if r == processIdentifier {
                status = s
                return false
            }
            return r == 0
        }
    }

    /// Blocks until the child exits.
    public func waitUntilExit() {
        while isRunning { usleep(1_000) }
    }

    /// The exit code, or the number of the signal that ended the child (as Foundation's
    /// `Process.terminationStatus`); 0 while it runs.
    public var terminationStatus: Int32 {
        guard let s = reaped.withLock({ $0 }) else { return 0 }
        let signal = s & 0x7f
        return signal == 0 ? (s >> 8) & 0xff : signal
    }

    /// Whether a signal ended the child (Foundation: `terminationReason == .uncaughtSignal`).
    public var terminatedBySignal: Bool {
        guard let s = reaped.withLock({ $0 }) else { return false }
        return s & 0x7f != 0
    }

    /// What a finished child printed, and how it ended.
    public struct Output: Sendable {
        /// The exit code, or the number of the signal that ended the child.
        public let status: Int32
        /// Whether a signal ended the child.
        public let terminatedBySignal: Bool
        public let stdout: Data
        public let stderr: Data
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    }

    /// Runs `executable` to its end with `input` on its stdin (nothing: /dev/null) and returns
    /// what it wrote. Output goes through files in the temporary directory, never pipes, so a
    /// child that writes much to both streams cannot block on a full pipe.
    public static func run(_ executable: String, _ arguments: [String],
                           environment: [String: String] = ProcessInfo.processInfo.environment,
                           input: Data? = nil) throws -> Output {
        let base = NSTemporaryDirectory() + "atoll-spawn-\(getpid())-\(UUID().uuidString)"
        let outPath = base + ".out", errPath = base + ".err", inPath = base + ".in"
        defer { unlink(outPath); unlink(errPath); unlink(inPath) }
        if let input {
            guard FileManager.default.createFile(atPath: inPath, contents: input) else {
                throw SpawnError(description: "cannot write \(inPath)")
            }
        }
        let process = try SpawnedProcess(executable: executable, arguments: arguments, environment: environment,
                                         stdin: input == nil ? .null : .file(inPath), stdout: .file(outPath), stderr: .file(errPath))
        process.waitUntilExit()
        return Output(status: process.terminationStatus, terminatedBySignal: process.terminatedBySignal,
                      stdout: try Data(contentsOf: URL(fileURLWithPath: outPath)),
                      stderr: try Data(contentsOf: URL(fileURLWithPath: errPath)))
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public let description: String
    }
}
