public import AtollStorage

/// One committed transaction of one node, as it travels between nodes: who made it (origin),
/// its place in that node's sequence (contiguous from 1), the origin's clock reading when it was
/// made, and its instructions (`body`, encoded by `ChangesetContent`).
///
/// Every instruction of a changeset shares the changeset's stamp (hlc, origin). The body stays
/// encoded while a changeset is stored, forwarded and batched; only the node applying it decodes it.
public struct Changeset: Sendable, Equatable {
    /// The node that made the changeset.
    public var origin: NodeID
    /// Its number among the origin's changesets (1, 2, 3, ... without gaps).
    public var seq: UInt64
    /// The hybrid logical clock reading it is stamped with.
    public var hlc: HLCTimestamp
    /// Bit 0 (`continuesFlag`): the origin's transaction continues in the next changeset (a
    /// transaction larger than `SyncLimits.changesetBodyBytesMax` is shipped in parts). Bit 1
    /// (`abandonsFlag`): written by a relay, never by a node; see `abandonsFlag`.
    public var flags: UInt8
    /// The encoded instructions (`ChangesetContent`), decoded only by the node applying them.
    public var body: [UInt8]

    /// In `flags`: more parts of the same transaction follow.
    public static let continuesFlag: UInt8 = 1
    /// In `flags`: the origin's transaction in progress will never be finished, and its parts
    /// are dropped unapplied. A relay appends such a changeset (empty body, the origin's next
    /// number) for a node it has forgotten whose last stored changeset continues: that node
    /// resets to a new id and makes the whole transaction again (sync protocol 7).
    public static let abandonsFlag: UInt8 = 2

    /// Every flag a changeset may carry.
    static let knownFlags: UInt8 = continuesFlag | abandonsFlag

    /// Whether this changeset abandons its origin's transaction in progress (`abandonsFlag`).
    public var abandons: Bool { flags & Self.abandonsFlag != 0 }

    /// The changeset a relay appends to abandon `origin`'s unfinished transaction, whose last
    /// stored part is number `seq` stamped `hlc`.
    static func abandonment(of origin: NodeID, after seq: UInt64, hlc: HLCTimestamp) -> Changeset {
        Changeset(origin: origin, seq: seq + 1, hlc: hlc, flags: abandonsFlag, body: ChangesetBodyEncoder(origin: origin).finish())
    }

    /// The digest a relay keeps of an origin's newest changeset for `welcome`: 0 ("unknown")
    /// for an abandonment, which the origin never made.
    package var storedDigest: UInt64 { abandons ? 0 : digest }

    /// A changeset with these fields.
    public init(origin: NodeID, seq: UInt64, hlc: HLCTimestamp, flags: UInt8 = 0, body: [UInt8]) {
        self.origin = origin
        self.seq = seq
        self.hlc = hlc
        self.flags = flags
        self.body = body
    }

    /// The stamp of the changeset's first instruction.
    public var stamp: Stamp { Stamp(hlc: hlc, node: origin) }

    /// What tells two changesets of one origin and number apart: the stamp, with the CRC-32C of
    /// the flags and body in its high half. Only copies of one node's file (which share its id)
    /// can make two changesets of one number; theirs differ here unless stamps and bodies both
    /// collide. Never 0 (0 means "unknown" in `welcome`).
    public var digest: UInt64 {
        var crc = CRC32C.checksum(CollectionOfOne(flags))
        crc = body.withUnsafeBytes { CRC32C.checksum($0, continuing: crc) }
        let d = hlc ^ (UInt64(crc) << 32)
        return d == 0 ? 1 : d
    }
}

/// A list element's identity: a per-list Lamport number and the node that inserted it. Unique
/// within its list: a node inserting into a list takes a number above every number the list
/// holds, so its own elements never repeat a number.
public struct ElementID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// A Lamport number: larger than any element id its inserting node had seen.
    public var lamport: UInt64
    /// The node that inserted the element.
    public var node: NodeID

    /// An element id.
    public init(lamport: UInt64, node: NodeID) {
        self.lamport = lamport
        self.node = node
    }

    public static func < (a: ElementID, b: ElementID) -> Bool {
        if a.lamport != b.lamport { return a.lamport < b.lamport }
        return a.node < b.node
    }

    public var description: String { "\(lamport)@\(node.description.prefix(8))" }
}

/// A value in a changeset: a scalar as stored, or a link given by its target's primary key (the
/// target class follows from the property; object keys are local to a file and never travel).
public enum SyncValue: Hashable, Sendable, CustomStringConvertible {
    /// A stored value (or null).
    case value(StorageValue)
    /// A link, by the target's primary key.
    case link(primaryKey: StorageValue)
    /// A mixed value that links an object (a typed link, `AnyRealmValue.object`): the target's
    /// class names itself, as the property does not (changeset body format 5).
    case typedLink(className: String, primaryKey: StorageValue)

    /// No value (a nil property, or a link to nothing).
    public static let null = SyncValue.value(.null)

    public var description: String {
        switch self {
        case .value(let v): v.description
        case .link(let pk): "->\(pk)"
        case .typedLink(let c, let pk): "->\(c):\(pk)"
        }
    }

    /// Whether it is a typed link (body format 5).
    public var isTypedLink: Bool {
        if case .typedLink = self { true } else { false }
    }
}

/// An object as every node names it: its class (an index into the changeset's class names) and
/// its primary key.
public struct ObjectAddress: Hashable, Sendable {
    /// The class, as an index into the changeset's class names.
    public var classIndex: Int
    /// The object's primary key.
    public var primaryKey: StorageValue

    /// An address.
    public init(classIndex: Int, primaryKey: StorageValue) {
        self.classIndex = classIndex
        self.primaryKey = primaryKey
    }
}

/// One change, addressed by (class, primary key, property). Properties are indexes into the
/// changeset's property names.
public enum SyncInstruction: Hashable, Sendable {
    /// The object exists (created, or re-created after a delete).
    case create(ObjectAddress)
    /// The object is deleted (a tombstone stamped with the changeset's stamp).
    case erase(ObjectAddress)
    /// A last-writer-wins write of a scalar or link property.
    case set(ObjectAddress, property: Int, value: SyncValue)
    /// An increment of an integer property; increments add up.
    case addInteger(ObjectAddress, property: Int, delta: Int64)
    /// A new list element `ElementID(lamport, origin)` placed after `after` (nil: at the head).
    case listInsert(ObjectAddress, property: Int, after: ElementID?, lamport: UInt64, value: SyncValue)
    /// A last-writer-wins write of one list element.
    case listSet(ObjectAddress, property: Int, element: ElementID, value: SyncValue)
    /// Removal of one list element.
    case listErase(ObjectAddress, property: Int, element: ElementID)
    /// An add of `value` to a set, tagged with the instruction's stamp (add-wins: it stays
    /// unless a removal names that tag).
    case setAdd(ObjectAddress, property: Int, value: SyncValue)
    /// A removal of `value` from a set: of the adds (by their stamps) its origin had seen there.
    case setRemove(ObjectAddress, property: Int, value: SyncValue, tags: [Stamp])
    /// A last-writer-wins write of one map key.
    case mapSet(ObjectAddress, property: Int, key: String, value: SyncValue)
    /// A last-writer-wins removal of one map key (a tombstone stamped with the instruction).
    case mapRemove(ObjectAddress, property: Int, key: String)

    /// Whether it is one of the set and map instructions (body format 4).
    public var isCollectionInstruction: Bool {
        switch self {
        case .setAdd, .setRemove, .mapSet, .mapRemove: true
        default: false
        }
    }

    /// The object the instruction changes.
    public var object: ObjectAddress {
        switch self {
        case .create(let o), .erase(let o), .set(let o, _, _), .addInteger(let o, _, _), .listInsert(let o, _, _, _, _),
             .listSet(let o, _, _, _), .listErase(let o, _, _), .setAdd(let o, _, _), .setRemove(let o, _, _, _),
             .mapSet(let o, _, _, _), .mapRemove(let o, _, _):
            o
        }
    }
}
