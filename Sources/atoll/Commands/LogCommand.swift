import ArgumentParser
import Atoll

/// `atoll log DBPATH [--since VERSION]`
struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Print the stored history, one instruction per line: VERSION INSTRUCTION.",
        discussion: """
        A database stores the transaction log of a commit only while something needs it: a reader of an \
        older version (live queries in any process), sync, or a retention setting. Classes are named, \
        objects shown by primary key where it is known (else #key), and properties by their current \
        names (#index where a later schema change removed them). Atoll's internal classes are left out.
        """
    )

    @Argument(help: "The database file.")
    var dbpath: String

    @OptionGroup var encryption: KeyFileOption

    @Option(help: "Print only versions after this one.")
    var since: UInt64 = 0

    func run() throws {
        let out = Output()
        let db = try DatabaseAccess.openDatabase(dbpath, key: try encryption.key())
        let read = try db.beginRead()
        defer { read.close() }
        let formatter = LogFormatter(transaction: read)
        let versions = try read.loggedVersions(after: since)
        for version in versions {
            guard let bytes = try read.log(of: version) else { continue }
            for instruction in try TransactionLogReader.decodeAll(bytes) {
                guard let text = try formatter.describe(instruction) else { continue }
                try out.line("\(version) \(text)")
            }
        }
        try out.flush()
        if versions.isEmpty {
            Output.writeAll(2, Array("atoll: note: no history is stored after version \(since) (the newest version is \(read.version))\n".utf8))
        }
    }
}
