public import Foundation
import AtollStorage

extension Realm {
    /// How a Realm is opened. Every parameter of the initializer has a default, as in RealmSwift:
    /// `Realm.Configuration(inMemoryIdentifier: "test")`, `Realm.Configuration(schemaVersion: 2)`.
    public struct Configuration: Sendable {

        /// The default location on Linux, where there is no Documents folder:
        /// `$XDG_DATA_HOME/atoll/default.atoll`, or `~/.local/share/atoll/default.atoll`, or
        /// `./default.atoll` when neither is set. The directory is created on first open.
        public static var defaultFileURL: URL {
            let env = ProcessInfo.processInfo.environment
            if let xdg = env["XDG_DATA_HOME"], !xdg.isEmpty {
                return URL(fileURLWithPath: xdg).appendingPathComponent("atoll/default.atoll")
            }
            if let home = env["HOME"], !home.isEmpty {
                return URL(fileURLWithPath: home).appendingPathComponent(".local/share/atoll/default.atoll")
            }
            return URL(fileURLWithPath: "default.atoll")
        }

        private static let defaultStorage = DefaultConfigurationBox()

        /// The configuration `try Realm()` uses. Assign to change it for the process.
        public static var defaultConfiguration: Configuration {
            get { defaultStorage.get() }
            set { defaultStorage.set(newValue) }
        }

        /// The file; nil when `inMemoryIdentifier` is set.
        public var fileURL: URL? {
            didSet { if fileURL != nil { inMemoryIdentifier = nil } }
        }
        /// Realms with the same identifier share data while any of them is open in the process.
        public var inMemoryIdentifier: String? {
            didSet { if inMemoryIdentifier != nil { fileURL = nil } }
        }
        /// A 64-byte key: every page of the file is encrypted with AES-256 and authenticated
        /// with HMAC-SHA256 (docs/FORMAT.md, "Encryption"). Opening an encrypted file without
        /// its key fails with `.fileEncrypted`, with another key with `.invalidKey`.
        public var encryptionKey: Data?
        /// Open without writing: writes throw `.readOnly`, and nothing is created or compacted.
        /// A read-only realm joins the file's lock file (creating it only while open, when it can).
        /// On read-only media, or in a folder this user may not write, it reads the newest version
        /// as of opening, without a lock file, and sees no later commits (docs/FORMAT.md, "Lock file").
        public var readOnly: Bool
        /// The version of the schema the code declares; bump it when models change.
        public var schemaVersion: UInt64
        /// Called when opening a file whose schema version is older than `schemaVersion`.
        public var migrationBlock: MigrationBlock?
        /// Delete the file instead of migrating when the schema changed.
        public var deleteRealmIfMigrationNeeded: Bool
        /// Called once per process before the first open; return true to compact the file.
        public var shouldCompactOnLaunch: (@Sendable (_ totalBytes: Int, _ usedBytes: Int) -> Bool)?
        /// Fail with `.tooManyActiveVersions` instead of letting more versions than this pile up.
        public var maximumNumberOfActiveVersions: UInt?
        /// The model classes of this realm. nil: every class the program uses (see README).
        public var objectTypes: [Object.Type]?
        /// Commits are durable when `commitWrite` returns (fdatasync). Set false for bulk loads
        /// and tests: commits then survive a crash of the process but not of the machine.
        public var syncWrites: Bool
        /// A realm file copied to `fileURL` when no file is there yet (a bundled, pre-filled
        /// database), as in RealmSwift.
        public var seedFilePath: URL?

        /// A configuration; every parameter has a default (`.init(inMemoryIdentifier: "x")`).
        /// `syncConfiguration` is reserved for sync and must be nil.
        public init(fileURL: URL? = Configuration.defaultFileURL, inMemoryIdentifier: String? = nil, syncConfiguration: Never? = nil,
                    encryptionKey: Data? = nil, readOnly: Bool = false, schemaVersion: UInt64 = 0,
                    migrationBlock: MigrationBlock? = nil, deleteRealmIfMigrationNeeded: Bool = false,
                    shouldCompactOnLaunch: (@Sendable (Int, Int) -> Bool)? = nil, objectTypes: [Object.Type]? = nil,
                    maximumNumberOfActiveVersions: UInt? = nil, syncWrites: Bool = true, seedFilePath: URL? = nil)
        {
            self.seedFilePath = seedFilePath
            self.fileURL = inMemoryIdentifier == nil ? fileURL : nil
            self.inMemoryIdentifier = inMemoryIdentifier
            self.encryptionKey = encryptionKey
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.migrationBlock = migrationBlock
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.shouldCompactOnLaunch = shouldCompactOnLaunch
            self.objectTypes = objectTypes
            self.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions
            self.syncWrites = syncWrites
        }

        /// Identifies the database the configuration opens (file path or memory identifier).
        var identity: String {
            if let id = inMemoryIdentifier { return "memory:" + id }
            return "file:" + (fileURL?.standardizedFileURL.path ?? "")
        }

        func storageConfiguration() throws -> DatabaseConfiguration {
            let maxVersions = maximumNumberOfActiveVersions.map { Int($0) }
            if let id = inMemoryIdentifier {
                guard encryptionKey == nil else {
                    throw AtollError(.invalidArgument, "an in-memory realm cannot be encrypted; remove the encryption key or use a file")
                }
                return DatabaseConfiguration(inMemoryIdentifier: id, maximumActiveVersions: maxVersions)
            }
            guard let url = fileURL else { throw AtollError(.invalidArgument, "the configuration has neither a fileURL nor an inMemoryIdentifier") }
            guard url.isFileURL else { throw AtollError(.invalidArgument, "'\(url)' is not a file URL") }
            return DatabaseConfiguration(path: url.path, durability: syncWrites ? .full : .unsafe, readOnly: readOnly,
                                         createIfMissing: !readOnly, maximumActiveVersions: maxVersions,
                                         encryptionKey: try encryptionKey.map { try EncryptionKey(bytes: $0) })
        }
    }
}

/// Called during a migration with the `Migration` and the file's old schema version. It runs
/// on the thread that opens the realm, which may be any thread the configuration is used on.
public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldSchemaVersion: UInt64) -> Void

private final class DefaultConfigurationBox: Sendable {
    private let value = AtollLock<Realm.Configuration>(Realm.Configuration())
    func get() -> Realm.Configuration { value.withLock { $0 } }
    func set(_ c: Realm.Configuration) { value.withLock { $0 = c } }
}

import Synchronization
