import ArgumentParser
import Atoll

/// `atoll stats DBPATH`
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Print file size, used and free bytes, live versions and the oldest pinned version.",
        discussion: """
        Live versions are the newest one plus every version a reader (in any process) still pins; space \
        freed after the oldest pinned version is reused only once it is released.
        """
    )

    @Argument(help: "The database file.")
    var dbpath: String

    @OptionGroup var encryption: KeyFileOption

    func run() throws {
        let db = try DatabaseAccess.openDatabase(dbpath, key: try encryption.key())
        let s = try db.stats()
        var text = "file size: \(s.fileSizeBytes) bytes\n"
        text += "used: \(s.usedBytes) bytes\n"
        text += "free: \(s.freeBytes) bytes\n"
        text += "version: \(s.version)\n"
        text += "live versions: \(s.liveVersions)\n"
        if let v = s.oldestPinnedVersion {
            let age = s.oldestPinnedAgeSeconds.map { " (pinned \(Int($0.rounded())) s ago)" } ?? ""
            text += "oldest pinned version: \(v)\(age)\n"
        } else {
            text += "oldest pinned version: none\n"
        }
        text += "stored history: \(s.historyEntries) versions\n"
        for (table, objects) in s.objectCounts where !table.hasPrefix(DynamicSchema.reservedPrefix) {
            text += "objects in \(table): \(objects)\n"
        }
        try Output().write(text)
    }
}
