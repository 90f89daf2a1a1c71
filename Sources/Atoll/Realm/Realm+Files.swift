public import Foundation
import AtollStorage

// RealmSwift's file-level API: opening by URL, checking for a file, migrating without
// opening, reading a file's schema version, copying to a configuration, seed files.

extension Realm {
    /// Opens the realm at `fileURL` with the default configuration's other settings.
    public convenience init(fileURL: URL) throws {
        var configuration = Configuration.defaultConfiguration
        configuration.fileURL = fileURL
        try self.init(configuration: configuration)
    }

    /// Whether the file of `config` exists (false for an in-memory realm, which has none).
    public static func fileExists(for config: Configuration) -> Bool {
        guard config.inMemoryIdentifier == nil, let url = config.fileURL else { return false }
        return FileManager.default.fileExists(atPath: url.path)
    }

    /// Runs the configuration's migration (if the file's schema version is older) without
    /// keeping the realm open. Opening a realm does the same, so this is needed only to
    /// migrate ahead of time.
    ///
    /// - Throws: `.fileNotFound` when there is no file; the migration's errors.
    public static func performMigration(for configuration: Configuration = .defaultConfiguration) throws {
        if configuration.inMemoryIdentifier == nil, let url = configuration.fileURL, !FileManager.default.fileExists(atPath: url.path) {
            throw AtollError(.fileNotFound, "there is no realm at '\(url.path)' to migrate")
        }
        _ = try Realm(configuration: configuration)
    }

    /// Writes a compacted copy of the current version to the file of `configuration`, with its
    /// encryption key (none: unencrypted). The file must not exist.
    public func writeCopy(configuration: Configuration) throws {
        guard configuration.inMemoryIdentifier == nil, let url = configuration.fileURL else {
            throw AtollError(.invalidArgument, "writeCopy(configuration:) needs a configuration with a fileURL")
        }
        try writeCopy(toFile: url, encryptionKey: configuration.encryptionKey)
    }
}

extension Realm.Configuration {
    /// Copies `seedFilePath` to `path` when no file is there yet.
    func copySeedFile(to path: String) throws {
        guard let seed = seedFilePath, !FileManager.default.fileExists(atPath: path) else { return }
        guard FileManager.default.fileExists(atPath: seed.path) else {
            throw AtollError(.fileNotFound, "the seed file '\(seed.path)' does not exist")
        }
        do {
            try FileManager.default.copyItem(atPath: seed.path, toPath: path)
        } catch {
            throw AtollError(.fileAccessDenied, "cannot copy the seed file '\(seed.path)' to '\(path)': \(error.localizedDescription)")
        }
    }
}

/// The schema version of the realm file at `fileURL` (0 when it has none yet).
///
/// - Throws: `.fileNotFound` when there is no file; `.fileEncrypted`/`.invalidKey` without its
///   key.
public func schemaVersionAtURL(_ fileURL: URL, encryptionKey: Data? = nil) throws -> UInt64 {
    guard FileManager.default.fileExists(atPath: fileURL.path) else {
        throw AtollError(.fileNotFound, "there is no realm at '\(fileURL.path)'")
    }
    let storage = DatabaseConfiguration(path: fileURL.path, durability: .full, readOnly: true, createIfMissing: false,
                                        encryptionKey: try encryptionKey.map { try EncryptionKey(bytes: $0) })
    let database = try Database.open(storage)
    let read = try database.beginRead()
    defer { read.close() }
    return try SchemaSetup.schemaVersion(read) ?? 0
}
