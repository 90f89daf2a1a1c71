import ArgumentParser
import AtollRelayPostgres
import AtollStorage
import Logging

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Create or upgrade the relay's tables in PostgreSQL.",
        discussion: """
            Creates the relay's tables in the database of --postgres (or checks that they are current), \
            then prints one line with the schema version and the log's relay id. 'serve --postgres' \
            does the same before it starts; relays starting together are serialized. A database \
            whose schema is newer than this atoll-relay knows is refused. The password comes from \
            PGPASSWORD or --postgres-password-file.
            """
    )

    @Option(name: .long, help: ArgumentHelp("The relays' PostgreSQL database.", valueName: "postgresql://USER@HOST:PORT/DBNAME"))
    var postgres: String

    @Option(name: .long, help: ArgumentHelp("A file whose first line is the PostgreSQL password (else PGPASSWORD).", valueName: "PATH"))
    var postgresPasswordFile: String?

    func run() throws {
        var location = try PostgresLocation(url: postgres)
        try location.readPassword(file: postgresPasswordFile)
        var logger = Logger(label: "atoll-relay") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        let outcome = try PostgresRelayMigration.run(location: location, logger: logger)
        print("atoll-relay: \(location) holds relay schema version \(outcome.version) (\(outcome.created ? "created" : "already current")), relay id \(outcome.relayID)")
    }
}
