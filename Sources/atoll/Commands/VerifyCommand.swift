import ArgumentParser
import Atoll

/// `atoll verify DBPATH`
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Walk every tree of the newest version and check every checksum. Exit status 0 means healthy.",
        discussion: "Checks page checksums, the header, tree invariants, index and row counts, and that every page is used exactly once or free. A damaged database exits with status 1 and names the first problem."
    )

    @Argument(help: "The database file.")
    var dbpath: String

    @OptionGroup var encryption: KeyFileOption

    func run() throws {
        let db = try DatabaseAccess.openDatabase(dbpath, key: try encryption.key())
        let report = try db.verify()
        let classes = report.tables.filter { !$0.name.hasPrefix(DynamicSchema.reservedPrefix) }.map { "\($0.name) \($0.objects)" }
        try Output().line("ok: version \(report.version), \(report.pageCount) pages (\(report.freePages) free), \(report.pagesChecked) checked; "
            + "classes: \(classes.isEmpty ? "none" : classes.joined(separator: ", "))")
    }
}
