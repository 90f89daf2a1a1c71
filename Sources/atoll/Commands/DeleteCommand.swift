import ArgumentParser
import Atoll

/// `atoll delete DBPATH TYPE 'PREDICATE' [--arg JSON]...`
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete the objects of a class that match a predicate, in one transaction, and print how many.",
        discussion: "Links to deleted objects become null and lists drop them."
    )

    @Argument(help: "The database file.")
    var dbpath: String

    @OptionGroup var encryption: KeyFileOption

    @OptionGroup var query: QueryOptions

    func run() throws {
        let out = Output()
        let realm = try DatabaseAccess.openRealm(dbpath, readOnly: false, key: try encryption.key())
        let count = try realm.write {
            let matching = try query.results(in: realm).objects()
            try realm.delete(matching)
            return matching.count
        }
        try out.line("\(count)")
    }
}
