import ArgumentParser
import Atoll

/// `atoll schema DBPATH`
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the schema in the JSON notation 'import --schema' reads."
    )

    @Argument(help: "The database file.")
    var dbpath: String

    @OptionGroup var encryption: KeyFileOption

    func run() throws {
        let realm = try DatabaseAccess.openRealm(dbpath, readOnly: true, key: try encryption.key())
        try Output().write(realm.dynamicSchema.json)
    }
}
