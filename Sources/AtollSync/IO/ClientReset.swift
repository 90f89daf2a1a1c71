public import AtollStorage

/// A callback of a client reset: what the node had not synced, and (after the reset) what of it
/// was recovered and what was discarded.
public typealias ClientResetCallback = @Sendable (ClientResetInfo) -> Void

/// What a session does when the relay will never accept the node's unsynced changes (docs/AUTH.md,
/// "Client reset"): the relay refused an upload because the node may not write it, the relay
/// holds more changesets of this node than the node made (the file was copied or restored from a
/// backup), or the relay lost changesets of this node it had acknowledged (a relay store restored
/// from a backup).
///
/// Every automatic mode downloads the relay's whole state under a new node id and then, in one
/// write transaction, replaces the synced classes' data with it (classes that do not sync are
/// untouched; live `Results` get ordinary change notifications). A crash before that commit
/// leaves the old state, which resets again at the next start.
///
/// The names follow Realm's `ClientResetMode`; the callbacks get a `ClientResetInfo` (Atoll
/// has no frozen copy of the old file to hand over: `beforeReset` runs while the file still holds
/// the old state, `afterReset` once it holds the new one).
public enum ClientResetMode: Sendable {
    /// The session stops with the error (state `.offline`, `lastError`), keeping the local
    /// changes; `errorHandler` is called with what they are. `SyncSession.performClientReset(_:)`
    /// resets later. The default, as before client reset existed.
    case manual(errorHandler: ClientResetCallback? = nil)
    /// The synced data becomes the relay's state; every unsynced local change is discarded
    /// (handed to `beforeReset` before it goes).
    case discardUnsyncedChanges(beforeReset: ClientResetCallback? = nil, afterReset: ClientResetCallback? = nil)
    /// The synced data becomes the relay's state, then the unsynced local changes the node may
    /// still write are made again on top of it, as new local writes (new stamps) that sync
    /// normally. Changes to classes the relay's rules do not let the node write are discarded.
    /// If re-applying fails, the session stops with that error (as `.manual`), the relay's state
    /// in place.
    case recoverUnsyncedChanges(beforeReset: ClientResetCallback? = nil, afterReset: ClientResetCallback? = nil)
    /// As `.recoverUnsyncedChanges`, but if re-applying fails the changes are discarded and the
    /// session goes on.
    case recoverOrDiscardUnsyncedChanges(beforeReset: ClientResetCallback? = nil, afterReset: ClientResetCallback? = nil)

    var beforeReset: ClientResetCallback? {
        switch self {
        case .manual: nil
        case .discardUnsyncedChanges(let b, _), .recoverUnsyncedChanges(let b, _), .recoverOrDiscardUnsyncedChanges(let b, _): b
        }
    }

    var afterReset: ClientResetCallback? {
        switch self {
        case .manual: nil
        case .discardUnsyncedChanges(_, let a), .recoverUnsyncedChanges(_, let a), .recoverOrDiscardUnsyncedChanges(_, let a): a
        }
    }

    var recovers: Bool {
        switch self {
        case .recoverUnsyncedChanges, .recoverOrDiscardUnsyncedChanges: true
        case .manual, .discardUnsyncedChanges: false
        }
    }

    var isManual: Bool {
        if case .manual = self { return true }
        return false
    }
}

/// One object changed by local commits the relay never got: its class, its primary key, and how.
public struct UnsyncedChange: Sendable, Equatable, CustomStringConvertible {
    /// How the object was changed (the last of create and delete decides; otherwise modified).
    public enum Kind: Sendable, Equatable {
        /// Created (and possibly written).
        case created
        /// Deleted.
        case deleted
        /// Properties written.
        case modified
    }

    /// The object's class.
    public var className: String
    /// The object's primary key.
    public var primaryKey: StorageValue
    /// Created, deleted or modified.
    public var kind: Kind
    /// The properties written (list properties included), in first-written order.
    public var properties: [String]

    /// A change.
    public init(className: String, primaryKey: StorageValue, kind: Kind, properties: [String]) {
        self.className = className
        self.primaryKey = primaryKey
        self.kind = kind
        self.properties = properties
    }

    public var description: String { "\(kind) \(className) \(primaryKey)\(properties.isEmpty ? "" : " (\(properties.joined(separator: ", ")))")" }
}

/// What a client reset is about, as its callbacks see it.
public struct ClientResetInfo: Sendable {
    /// Why the relay will not take the node's changes (`.permissionDenied`, `.protocolViolation`
    /// for an origin conflict or a relay that lost the node's history).
    public var error: AtollError
    /// Every object changed by local commits not stored by the relay, in first-changed order.
    public var unsyncedChanges: [UnsyncedChange]
    /// After the reset: the changes made again on top of the relay's state (recover modes).
    public var recovered: [UnsyncedChange]
    /// After the reset: the changes that are gone (all of them in discard mode; those the node
    /// may not write, or all if re-applying failed, in recover modes).
    public var discarded: [UnsyncedChange]
    /// The node id before the reset, and after it (a reset gives the file a new one).
    public var previousNodeID: NodeID
    /// The node id after the reset (the same as `previousNodeID` before it).
    public var nodeID: NodeID

    /// Information about a reset.
    public init(error: AtollError, unsyncedChanges: [UnsyncedChange], recovered: [UnsyncedChange] = [], discarded: [UnsyncedChange] = [],
                previousNodeID: NodeID, nodeID: NodeID)
    {
        self.error = error
        self.unsyncedChanges = unsyncedChanges
        self.recovered = recovered
        self.discarded = discarded
        self.previousNodeID = previousNodeID
        self.nodeID = nodeID
    }
}

extension UnsyncedChange {
    /// The objects changed by `changesets` (own changesets, in order), one entry per object.
    static func summarize(_ changesets: [Changeset]) throws -> [UnsyncedChange] {
        var order: [ObjectID] = []
        var byObject: [ObjectID: UnsyncedChange] = [:]
        for cs in changesets {
            let content = try ChangesetContent.decode(cs.body, origin: cs.origin)
            for i in content.instructions {
                let o = i.object
                guard o.classIndex < content.classes.count else { throw AtollError(.protocolViolation, "an own changeset names class \(o.classIndex)") }
                let id = ObjectID(className: content.classes[o.classIndex], primaryKey: o.primaryKey)
                var change = byObject[id] ?? UnsyncedChange(className: id.className, primaryKey: id.primaryKey, kind: .modified, properties: [])
                if byObject[id] == nil { order.append(id) }
                switch i {
                case .create: change.kind = .created
                case .erase: change.kind = .deleted
                default: break
                }
                if let p = i.property, p < content.properties.count, !change.properties.contains(content.properties[p]) {
                    change.properties.append(content.properties[p])
                }
                byObject[id] = change
            }
        }
        return order.compactMap { byObject[$0] }
    }

    struct ObjectID: Hashable {
        let className: String
        let primaryKey: StorageValue
    }
}
