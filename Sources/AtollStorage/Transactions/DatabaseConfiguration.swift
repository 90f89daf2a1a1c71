/// How a database file is opened.
public struct DatabaseConfiguration: Sendable, Hashable {
    /// When a commit is durable.
    public enum Durability: Sendable, Hashable {
        /// Every commit is on stable storage when `commit()` returns: one fdatasync for a
        /// commit of a format-3 file that wrote at most 496 pages (4 MiB), two otherwise
        /// (docs/FORMAT.md, "Commit and recovery"). A crash or power failure loses nothing that
        /// returned.
        case full
        /// No sync: a commit survives a process crash, but not a power failure or kernel crash.
        /// After one, the file may open at an older version, or, when the disk kept the newest
        /// commits only in part and the older ones' pages were reused, not at all
        /// (`.fileCorrupted`). For tests, bulk loads and files that can be rebuilt.
        case unsafe
        /// In-memory database: nothing is written to disk.
        case memoryOnly
    }

    /// Path of the data file; nil for an in-memory database.
    public var path: String?
    /// Identifier of an in-memory database: every open with the same identifier in a process
    /// shares one database, which lives while any of them is open.
    public var inMemoryIdentifier: String?
    public var durability: Durability
    public var readOnly: Bool
    /// Create the file when it does not exist (never in read-only mode).
    public var createIfMissing: Bool
    /// Fail a read or commit that would make more versions live at once than this (nil: no limit).
    public var maximumActiveVersions: Int?
    /// Keep the transaction logs of at least this many recent commits in the history, beyond
    /// what readers and sync need (for `atoll log` and auditing).
    public var historyRetainedVersions: Int
    /// The smallest address-space reservation of the file's mapping (tests shrink it so that
    /// growth crosses reservations and remaps under live snapshots).
    var mappingReservationBytesMin = MappedFile.minimumReservationBytes
    /// Encrypt and authenticate every page with this key (docs/FORMAT.md, "Encryption"). A new
    /// file is created encrypted; an existing file must have been created with the same key.
    /// In-memory databases cannot be encrypted.
    public var encryptionKey: EncryptionKey?

    public init(path: String, durability: Durability = .full, readOnly: Bool = false, createIfMissing: Bool = true,
                maximumActiveVersions: Int? = nil, historyRetainedVersions: Int = 0, encryptionKey: EncryptionKey? = nil)
    {
        self.path = path
        inMemoryIdentifier = nil
        self.durability = durability
        self.readOnly = readOnly
        self.createIfMissing = createIfMissing
        self.maximumActiveVersions = maximumActiveVersions
        self.historyRetainedVersions = historyRetainedVersions
        self.encryptionKey = encryptionKey
    }

    public init(inMemoryIdentifier: String, maximumActiveVersions: Int? = nil, historyRetainedVersions: Int = 0) {
        path = nil
        self.inMemoryIdentifier = inMemoryIdentifier
        durability = .memoryOnly
        readOnly = false
        createIfMissing = true
        self.maximumActiveVersions = maximumActiveVersions
        self.historyRetainedVersions = historyRetainedVersions
        encryptionKey = nil
    }

    /// The lock file used with a data file.
    public static func lockPath(for path: String) -> String { path + ".lock" }
}
