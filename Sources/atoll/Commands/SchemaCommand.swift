import ArgumentParser
import Atoll
import AtollSync
import Foundation

/// `atoll schema DBPATH [--sync]`
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the schema in the JSON notation 'import --schema' reads.",
        discussion: """
        With --sync, print instead the file's schema version and, for a file that syncs, its realm, \
        its node, whether sync has adopted the file's schema (after a migration it adopts it when \
        it next starts), and what the node keeps aside from other nodes for classes and properties \
        its schema lacks, and the realm's schema history (every class and property any node \
        brought) as the relay sent it when the node last connected, with what this node's schema \
        lacks of it (`atoll-relay status` shows the relay's current one).
        """
    )

    @Argument(help: "The database file.")
    var dbpath: String

    @Flag(help: "Print the schema version and the sync status of the schema instead.")
    var sync = false

    @OptionGroup var encryption: KeyFileOption

    func run() throws {
        let key = try encryption.key()
        guard sync else {
            let realm = try DatabaseAccess.openRealm(dbpath, readOnly: true, key: key)
            try Output().write(realm.dynamicSchema.json)
            return
        }
        try DatabaseAccess.requireExisting(dbpath)
        let version = try schemaVersionAtURL(URL(fileURLWithPath: dbpath), encryptionKey: key.map { Data($0.bytes) })
        var text = "schema version: \(version)\n"
        let database = try DatabaseAccess.openDatabase(dbpath, key: key)
        if let status = try SyncReplica.schemaStatus(of: database) {
            text += "sync: realm '\(status.realmID)', node \(status.nodeID)\n"
            text += status.isAdopted
                ? "synced schema: adopted\n"
                : "synced schema: changed since the node last synced; adopted when sync next starts\n"
            let kept = status.kept.values.reduce(0, +)
            text += "kept from other nodes: \(kept) instruction\(kept == 1 ? "" : "s")"
            text += kept == 0 ? "\n" : " naming " + status.kept.keys.sorted().map { "\($0) (\(status.kept[$0] ?? 0))" }.joined(separator: ", ") + "\n"
            if let relayHistory = status.relaySchemaHistory {
                text += "realm's schema history (from relay \(relayHistory.relayID), when the node last connected):\n"
                var lacking: [String] = []
                for c in relayHistory.history.classes {
                    text += "  \(c.name) (\(c.isEmbedded ? "embedded" : "primary key \(c.primaryKey)")): "
                        + c.properties.map { "\($0.name) \($0.typeDescription)" }.joined(separator: ", ") + "\n"
                    guard let mine = status.schema.schemaClass(named: c.name) else {
                        lacking.append(c.name)
                        continue
                    }
                    lacking += c.properties.filter { mine.property(named: $0.name) == nil }.map { "\(c.name).\($0.name)" }
                }
                text += lacking.isEmpty ? "this node's schema has all of it\n" : "this node's schema lacks: \(lacking.joined(separator: ", "))\n"
            } else {
                text += "realm's schema history: not received yet (relays send it when the node connects, from sync protocol 5 on)\n"
            }
        } else {
            text += "sync: never started on this file\n"
        }
        try Output().write(text)
    }
}
