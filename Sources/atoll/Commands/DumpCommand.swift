import ArgumentParser
import Atoll

/// `atoll dump DBPATH [--canonical]`
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Write every object of every class as JSON, in the shape of a data file.",
        discussion: """
        The output imports again with 'atoll import --data'. Classes are sorted by name. Values print as \
        'query' prints them; objects of a class without a primary key that others link to are written \
        nested in those objects.

        --canonical sorts objects by primary key and the keys of every object, and writes no white space \
        (but a final newline): two databases with equal contents give byte-identical dumps. Doubles are \
        written as the shortest decimal that reads back exactly (-0.0 keeps its sign); NaN and the \
        infinities as the strings "NaN", "Infinity", "-Infinity".
        """
    )

    @Argument(help: "The database file.")
    var dbpath: String

    @OptionGroup var encryption: KeyFileOption

    @Flag(help: "Deterministic output for comparisons.")
    var canonical = false

    func run() throws {
        let out = Output()
        let realm = try DatabaseAccess.openRealm(dbpath, readOnly: true, key: try encryption.key())
        try realm.dumpJSON(canonical: canonical) { try out.write(bytes: $0) }
        try out.flush()
    }
}
