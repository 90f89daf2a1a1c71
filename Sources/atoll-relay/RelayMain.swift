import ArgumentParser
import AtollStorage
import Foundation

/// `atoll-relay`: the sync relay server and its development certificate tool.
///
/// Errors end the process with one line on stderr: exit 1 for a runtime failure (missing file,
/// port in use), 64 for a usage error, 0 after a clean SIGTERM shutdown.
@main
enum RelayMain {
    static func main() async {
        do {
            var command = try await AtollRelay.asyncParseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as AtollError {
            fail(error.message, code: 1)
        } catch {
            let code = AtollRelay.exitCode(for: error)
            if code == .success {
                print(AtollRelay.fullMessage(for: error))
                exit(0)
            }
            if let exitCode = error as? ExitCode { exit(exitCode.rawValue) }
            fail(AtollRelay.message(for: error) + " (see 'atoll-relay help')", code: code.rawValue)
        }
    }

    static func fail(_ message: String, code: Int32) -> Never {
        let line = "atoll-relay: " + message.replacingOccurrences(of: "\n", with: " ") + "\n"
        FileHandle.standardError.write(Data(line.utf8))
        exit(code)
    }
}

struct AtollRelay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "atoll-relay",
        abstract: "The Atoll sync relay.",
        subcommands: [ServeCommand.self, MigrateCommand.self, StatusCommand.self, CertsCommand.self]
    )
}
