// `import AtollSync` gives the object API too: sync is used together with it.
@_exported public import Atoll
import Foundation

extension Realm {
    /// Starts syncing this realm's file with a relay (docs/SYNC.md).
    ///
    /// ```swift
    /// import AtollSync
    ///
    /// let realm = try Realm(configuration: config, queue: .main)
    /// let session = try realm.sync(with: SyncConfiguration(
    ///     relay: RelayAddress(host: "relay.example", port: 7450),
    ///     tls: .mutualTLS(certificatePath: "node.pem", keyPath: "node-key.pem", caPath: "ca.pem"),
    ///     realmID: "shop"))
    /// ```
    ///
    /// Every class of the file syncs (or the subset `configuration.classes` names) and each
    /// needs a primary key. Writes on any Realm of the file, in any process, are shipped; writes
    /// from other nodes land in one commit per downloaded batch and raise the usual
    /// notifications (a realm opened with a queue refreshes by itself). Keep the session while
    /// the file should sync, and `close()` it when done. The session belongs to the file, not to
    /// this Realm instance: start one per file and process.
    ///
    /// - Throws: what `SyncSession.start(database:configuration:)` throws; `.readOnly` for a
    ///   read-only or frozen realm.
    public func sync(with configuration: SyncConfiguration) throws -> SyncSession {
        guard !isFrozen, !self.configuration.readOnly else {
            throw AtollError(.readOnly, "a read-only or frozen realm cannot sync; open the file writable")
        }
        // A process opens each file once: this returns the Database the realm already uses.
        let database = try Database.open(try Self.storageConfiguration(self.configuration))
        return try SyncSession.start(database: database, configuration: configuration)
    }

    static func storageConfiguration(_ c: Configuration) throws -> DatabaseConfiguration {
        if let id = c.inMemoryIdentifier { return DatabaseConfiguration(inMemoryIdentifier: id) }
        guard let url = c.fileURL, url.isFileURL else {
            throw AtollError(.invalidArgument, "the realm's configuration names no file")
        }
        return DatabaseConfiguration(path: url.path, durability: c.syncWrites ? .full : .unsafe,
                                     encryptionKey: try c.encryptionKey.map { try EncryptionKey(bytes: [UInt8]($0)) })
    }
}
