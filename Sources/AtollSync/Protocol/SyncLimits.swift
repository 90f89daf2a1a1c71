/// Every limit the sync core enforces, named (TigerBeetle style). Peers are held to them: input
/// beyond a limit is refused with `.protocolViolation`, before anything is allocated for it.
public enum SyncLimits {
    /// Largest changeset body. A local transaction whose changes encode larger is shipped as
    /// several consecutive changesets (all but the last flagged `continuesFlag`), which
    /// receivers keep aside until the last one arrives and then apply together, in one commit.
    /// Room for one value of the storage engine's largest size (16 MiB) with its addressing;
    /// fits a frame of `FrameLimits.payloadBytesMaxDefault`.
    public static let changesetBodyBytesMax = 24 << 20
    /// A local transaction's changeset is cut (and continued in the next one) once its
    /// instructions reach this many bytes; the instruction that crosses it may be one value of
    /// up to 16 MiB, so a part stays within `changesetBodyBytesMax`.
    public static let changesetSplitBytes = changesetBodyBytesMax / 3
    /// Most body bytes of one transaction (the sum of its parts). Receivers keep the parts of a
    /// transaction in progress in their file (`sync.staged`), never in memory, and apply them in
    /// one commit when the last arrives; the commit's memory grows with the transaction (the
    /// storage engine's transaction log), which this bounds. A peer whose transaction continues
    /// past it is refused with `.protocolViolation`. A local transaction larger than this is
    /// shipped as several transactions of at most this size, each whole on every node, and the
    /// node's session reports `.limitExceeded` saying so.
    public static let transactionBytesMax = 256 << 20
    /// Most changesets in one upload or download message.
    public static let batchChangesetsMax = 1000
    /// A batch stops taking changesets once it holds this many body bytes (it always takes at
    /// least one, which may be as large as `changesetBodyBytesMax`).
    public static let batchBytesMax = 4 << 20
    /// Most upload messages a node has in flight (sent, not acknowledged).
    public static let uploadBatchesInFlightMax = 4
    /// Most download messages the relay has in flight to one node.
    public static let downloadBatchesInFlightMax = 4
    /// List element numbers stay below this so that "one more than the largest" never overflows.
    public static let lamportMax: UInt64 = 1 << 62
    /// Longest realm id, in UTF-8 bytes.
    public static let realmIDBytesMax = 256
    /// Most entries in a version vector (distinct origins in one realm).
    public static let versionVectorEntriesMax = 1 << 20
    /// Most class names in one permission's `writeClasses` (rules file, welcome).
    public static let permissionClassesMax = 1024
    /// Longest error message a peer may send, in UTF-8 bytes.
    public static let errorMessageBytesMax = 4096
    /// Most instructions a local transaction puts in one changeset before it is split.
    public static let changesetInstructionsMax = 1 << 20
    /// The most bytes of a node's schema description in `hello` (and of a realm's schema history).
    public static let schemaDescriptionBytesMax = 1 << 20
}
