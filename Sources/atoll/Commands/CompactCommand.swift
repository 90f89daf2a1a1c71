import ArgumentParser
import Atoll

/// `atoll compact DBPATH [--out PATH]`
struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Rewrite a database without free space, in place or into a new file.",
        discussion: """
        In place, the database must not be open in any other process (the compacted copy replaces the file \
        atomically). With --out, the copy of the newest version goes to PATH, which must not exist, and the \
        database may be in use. The copy keeps every object and key but no history.
        """
    )

    @Argument(help: "The database file.")
    var dbpath: String

    @OptionGroup var encryption: KeyFileOption

    @Option(help: "Write the compacted copy here instead of replacing the database.")
    var out: String?

    func run() throws {
        try DatabaseAccess.requireExisting(dbpath)
        let output = Output()
        if let out {
            if DatabaseAccess.exists(out) { throw CLIFailure(.outputExists, "'\(out)' already exists; compact writes only to a new file") }
            let db = try DatabaseAccess.openDatabase(dbpath, key: try encryption.key())
            try db.writeCopy(to: out)
            try output.line("compacted \(dbpath) into \(out): \(Self.size(dbpath)) -> \(Self.size(out)) bytes")
        } else {
            let (before, after) = try Database.compact(path: dbpath, encryptionKey: try encryption.key())
            try output.line("compacted \(dbpath): \(before) -> \(after) bytes")
        }
    }

    static func size(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }
}

#if canImport(Glibc)
import Glibc
#endif
