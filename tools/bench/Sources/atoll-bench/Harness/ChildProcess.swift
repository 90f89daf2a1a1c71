#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Runs this benchmark executable again as a child process (a hidden subcommand), for figures
/// that must start from a process that has nothing open or mapped yet, such as a cold open.
enum ChildProcess {
    /// The path of the running executable.
    static let executablePath: String = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// Runs `atoll-bench arguments...` and returns its standard output; throws when it fails.
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executablePath)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError("child 'atoll-bench \(arguments.joined(separator: " "))' exited with status \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The cold-open probe: a fresh process opens a database, reads one object and reports the
/// nanoseconds that took, measured inside the child (process start-up is not included; mapping
/// the file, reading its header and schema are).
enum OpenProbe {
    static let subcommand = "_probe-open"

    /// Median milliseconds of `plan.runs` child processes (after warm-ups) opening `path` with
    /// `engine` and reading the object with primary key `id`.
    static func medianMilliseconds(engine: String, path: String, id: Int64, plan: SamplingPlan) throws -> Double {
        let ns = try Sampler.measure(plan) { _ in try probe(engine: engine, path: path, id: id) }
        return Rate.milliseconds(ns)
    }

    /// One child run; `extra` are engine settings (SQLiteTuning.arguments).
    static func probe(engine: String, path: String, id: Int64, extra: [String] = []) throws -> UInt64 {
        let out = try ChildProcess.run([subcommand, engine, path, String(id)] + extra)
        guard let ns = UInt64(out.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchError("open probe printed '\(out)' instead of nanoseconds")
        }
        return ns
    }

    /// The child's side: `_probe-open <atoll|sqlite> <path> <id> [settings]`; prints nanoseconds.
    static func runChild(_ arguments: [String]) throws {
        guard arguments.count >= 3, let id = Int64(arguments[2]) else {
            throw BenchError("usage: atoll-bench \(subcommand) <atoll|sqlite> <path> <id> [<cache MiB> <mmap MiB>]")
        }
        let ns: UInt64
        switch arguments[0] {
        case "atoll": ns = try AtollObjects.timedOpenAndRead(path: arguments[1], id: id)
        case "atoll-storage": ns = try AtollItemStore.timedOpenAndRead(path: arguments[1], id: id)
        case "sqlite":
            let tuning = arguments.count > 3 ? try SQLiteTuning(arguments: arguments[3...]) : SQLiteTuning()
            ns = try SQLiteWorkloads.timedOpenAndRead(path: arguments[1], id: id, tuning: tuning)
        default: throw BenchError("unknown engine '\(arguments[0])'")
        }
        print(ns)
    }
}
