import ArgumentParser
import Atoll
import Foundation

/// `atoll`: inspect, load and debug Atoll databases from a shell.
///
/// Every failure ends the process with exactly one line on stderr, `atoll: <what went wrong>`,
/// and an exit status from `ExitStatus` (below 128); nothing is written to the database.
@main
enum AtollMain {
    static func main() async {
        do {
            // "-1 < age" would be read as options (or "-h..." as a request for help).
            try DashArguments.check(Array(CommandLine.arguments.dropFirst()))
            var command = try AtollCommand.parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as AtollError {
            fail(error.message, status: ExitStatus(error))
        } catch let error as CLIFailure {
            fail(error.message, status: error.status)
        } catch {
            let code = AtollCommand.exitCode(for: error)
            if code == .success {
                // --help, --version.
                print(AtollCommand.fullMessage(for: error))
                exit(0)
            }
            if let exitCode = error as? ExitCode { exit(exitCode.rawValue) }
            let help = AtollCommand.helpCommandName(for: error)
            fail(AtollCommand.message(for: error) + " (see '\(help) --help')", status: .usage)
        }
    }

    /// One line on stderr, then exit.
    static func fail(_ message: String, status: ExitStatus) -> Never {
        let line = "atoll: " + message.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ") + "\n"
        Output.writeAll(2, Array(line.utf8))
        exit(status.rawValue)
    }
}

extension AtollCommand {
    /// "atoll query" for an error about `atoll query ...`.
    static func helpCommandName(for error: any Error) -> String {
        let words = CommandLine.arguments.dropFirst().prefix(1)
        if let sub = words.first, configuration.subcommands.contains(where: { $0._commandName == sub }) {
            return "atoll \(sub)"
        }
        return "atoll"
    }
}
