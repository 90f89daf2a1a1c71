import ArgumentParser

/// The root command. Each subcommand lives in its own file under Commands/; a new one (such as
/// the sync engineer's `atoll node`) is a type conforming to `ParsableCommand` or
/// `AsyncParsableCommand`, added to `subcommands` below.
struct AtollCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "atoll",
        abstract: "Inspect, load, debug and sync Atoll databases.",
        discussion: """
        Only 'import' creates a database; every other command fails on a path that does not exist. \
        Errors are one line on stderr, and the exit status says what kind:
          0   success (for 'verify': the database is healthy)
          1   the database is damaged or not an Atoll database
          64  wrong command-line usage
          65  bad input: schema, data, query or argument (unknown class, wrong type...)
          66  a file to read does not exist
          73  an output file already exists
          74  an I/O error
          75  the database is busy (locked, too many versions or readers); try again
          77  permission denied, or the database is read-only
          70  anything else (a bug: please report it)
        """,
        subcommands: [
            ImportCommand.self,
            DeleteCommand.self,
            QueryCommand.self,
            DumpCommand.self,
            SchemaCommand.self,
            StatsCommand.self,
            VerifyCommand.self,
            CompactCommand.self,
            LogCommand.self,
            WatchCommand.self,
            NodeCommand.self,
            ConflictsCommand.self,
            StudioCommand.self,
        ]
    )
}
