#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// One `atoll-relay serve` process on 127.0.0.1 (mutual TLS with the development certificates),
/// on its own Atoll file (`--db`) or on a shared PostgreSQL (`--postgres`). Its stdout and stderr
/// go to files in the run's directory, so a chatty relay never blocks on a full pipe.
final class RelayProcess {
    let process = Process()
    let name: String
    let port: Int
    let stdoutPath: String
    let stderrPath: String

    /// The `atoll-relay` executable: `ATOLL_RELAY` if set, else the one next to this benchmark,
    /// which `swift build -c release --package-path tools/bench --product atoll-relay` puts there.
    static func executable() throws -> String {
        if let path = ProcessInfo.processInfo.environment["ATOLL_RELAY"], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else { throw BenchError("ATOLL_RELAY=\(path) is not an executable") }
            return path
        }
        let sibling = (ChildProcess.executablePath as NSString).deletingLastPathComponent + "/atoll-relay"
        guard FileManager.default.isExecutableFile(atPath: sibling) else {
            throw BenchError("the relay suite runs atoll-relay processes; build it next to atoll-bench first: swift build -c release --package-path tools/bench --product atoll-relay (or set ATOLL_RELAY to its path)")
        }
        return sibling
    }

    /// Starts a relay and waits for its "listening on" line. `store` is `["--db", PATH]` or
    /// `["--postgres", URL]`.
    init(name: String, store: [String], certificates certs: String, directory: String) throws {
        self.name = name
        stdoutPath = "\(directory)/\(name).out"
        stderrPath = "\(directory)/\(name).err"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: try Self.executable())
        process.arguments = ["serve"] + store + ["--listen", "127.0.0.1:0", "--cert", "\(certs)/relay.pem", "--key", "\(certs)/relay-key.pem",
                                                 "--ca", "\(certs)/ca.pem"]
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        process.standardInput = FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        try process.run()
        // "atoll-relay listening on 127.0.0.1:PORT (mutual TLS), ..."
        let deadline = Date().addingTimeInterval(60)
        var found: Int?
        while found == nil, Date() < deadline {
            let text = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("atoll-relay listening on ") }),
               let address = line.dropFirst("atoll-relay listening on ".count).split(separator: " ").first,
               let p = address.split(separator: ":").last.flatMap({ Int($0) })
            {
                found = p
                break
            }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        guard let found else {
            let stderr = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
            throw BenchError("relay \(name) did not start listening: \(stderr.suffix(2000))")
        }
        port = found
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// SIGTERM and wait for the clean shutdown (SIGKILL after 30 s).
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning {
            writeStandardError("relay: \(name) did not stop within 30 s of SIGTERM; killed\n")
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
