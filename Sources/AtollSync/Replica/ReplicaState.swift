import AtollStorage

/// Where a node is in the realm's history, persisted in `sync.state` with every sync commit.
///
///     u8 format (1)
///     16 bytes node id                    this replica (node index 0)
///     string realm id
///     16 bytes schema fingerprint
///     varint clock                        last HLC reading given out or observed
///     varint extracted-through version    local commits up to this version are changesets
///     varint upload acknowledged          own changesets up to this seq are stored by the relay
///     16 bytes relay id, varint cursor    download position in that relay's log (zero id: none)
///     varint node count, per node: 16 bytes id, varint applied seq
///                                         the version vector: highest contiguous seq applied
///                                         per origin; for node 0, the last seq it made
///     varint applied floor                (optional, written since sync protocol 6; absent: 0)
///                                         a position in the relay's log: every own changeset
///                                         not acknowledged was made after merging it (max: made
///                                         before merging any other node's changeset)
///     varint element counter              (optional, written when not 0; absent: 0) the
///                                         greatest element number this node has given a list
///                                         element, in any list
struct ReplicaState: Equatable {
    var realmID: String
    var fingerprint: [UInt8]
    var clock: HLCTimestamp = 0
    var extractedThrough: UInt64 = 0
    var uploadAcknowledged: UInt64 = 0
    var relayID: NodeID = .zero
    var relayCursor: UInt64 = 0
    /// A position of relay `relayID`'s log: every own changeset not acknowledged was made after
    /// merging the log through it (UInt64.max: before merging any other node's changeset; 0:
    /// not known). Written with every commit (`AppliedTracking`).
    var appliedFloor: UInt64 = 0
    /// The greatest element number this node has given a list element, in any list: a new
    /// element's number is greater, so that this node never gives two elements one id, even once
    /// a deleted object's list records are collected and the object is made again
    /// (`SyncWriter.newElementID`).
    var elementCounter: UInt64 = 0
    var nodes: NodeTable
    /// Per node index: the highest contiguous seq applied (index 0: the last own seq).
    var applied: [UInt64]

    static let formatVersion: UInt8 = 1

    init(nodeID: NodeID, realmID: String, fingerprint: [UInt8]) {
        self.realmID = realmID
        self.fingerprint = fingerprint
        nodes = NodeTable([nodeID])
        applied = [0]
    }

    static func == (a: ReplicaState, b: ReplicaState) -> Bool {
        a.realmID == b.realmID && a.fingerprint == b.fingerprint && a.clock == b.clock && a.extractedThrough == b.extractedThrough
            && a.uploadAcknowledged == b.uploadAcknowledged && a.relayID == b.relayID && a.relayCursor == b.relayCursor
            && a.appliedFloor == b.appliedFloor && a.elementCounter == b.elementCounter && a.nodes.ids == b.nodes.ids && a.applied == b.applied
    }

    var nodeID: NodeID { nodes.ids[0] }
    var ownSeq: UInt64 {
        get { applied[0] }
        set { applied[0] = newValue }
    }

    mutating func nodeIndex(_ id: NodeID) -> Int {
        let i = nodes.index(of: id)
        while applied.count < nodes.count { applied.append(0) }
        return i
    }

    func appliedSeq(of origin: NodeID) -> UInt64 {
        guard let i = nodes.existingIndex(of: origin) else { return 0 }
        return applied[i]
    }

    var versionVector: VersionVector {
        var v = VersionVector()
        for (i, id) in nodes.ids.enumerated() where applied[i] > 0 { v[id] = applied[i] }
        return v
    }

    func encode() -> [UInt8] {
        var w = ByteWriter(capacity: 96 + nodes.count * 20)
        w.u8(Self.formatVersion)
        w.append(nodeID.bytes)
        w.string(realmID)
        w.append(fingerprint)
        w.varint(clock)
        w.varint(extractedThrough)
        w.varint(uploadAcknowledged)
        w.append(relayID.bytes)
        w.varint(relayCursor)
        w.varint(UInt64(nodes.count))
        for (i, id) in nodes.ids.enumerated() {
            w.append(id.bytes)
            w.varint(applied[i])
        }
        // Older readers stop after the node table.
        if appliedFloor > 0 || elementCounter > 0 { w.varint(appliedFloor) }
        if elementCounter > 0 { w.varint(elementCounter) }
        return w.bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) throws -> ReplicaState {
        var r = ByteReader(bytes, context: "sync state")
        let format = try r.u8()
        guard format == formatVersion else {
            throw AtollError(.fileFormatTooNew, "the sync state of this file has format \(format); upgrade Atoll")
        }
        func node() throws -> NodeID {
            guard let n = NodeID(bytes: try r.bytes(16)) else { throw AtollError.corrupted("sync state: bad node id") }
            return n
        }
        let me = try node()
        var s = ReplicaState(nodeID: me, realmID: try r.string(max: SyncLimits.realmIDBytesMax), fingerprint: [])
        s.fingerprint = Array(try r.bytes(16))
        s.clock = try r.varint()
        s.extractedThrough = try r.varint()
        s.uploadAcknowledged = try r.varint()
        s.relayID = try node()
        s.relayCursor = try r.varint()
        let n = try r.length(max: r.remaining / 17)
        guard n >= 1 else { throw AtollError.corrupted("sync state names no node") }
        var ids: [NodeID] = []
        var applied: [UInt64] = []
        for _ in 0..<n {
            ids.append(try node())
            applied.append(try r.varint())
        }
        guard ids[0] == me else { throw AtollError.corrupted("sync state: node 0 is not this node") }
        s.nodes = NodeTable(ids)
        guard s.nodes.count == n else { throw AtollError.corrupted("sync state names a node twice") }
        s.applied = applied
        if r.remaining > 0 { s.appliedFloor = try r.varint() }
        if r.remaining > 0 { s.elementCounter = try r.varint() }
        return s
    }
}

/// The highest contiguous sequence number applied, per origin. Two peers that exchange version
/// vectors know exactly which changesets the other lacks.
public struct VersionVector: Equatable, Sendable, CustomStringConvertible {
    /// For every origin, the last sequence number seen.
    public private(set) var entries: [NodeID: UInt64] = [:]

    /// A vector with these entries.
    public init(_ entries: [NodeID: UInt64] = [:]) {
        self.entries = entries.filter { $0.value > 0 }
    }

    /// The last sequence number seen of `origin` (0: none).
    public subscript(origin: NodeID) -> UInt64 {
        get { entries[origin] ?? 0 }
        set { entries[origin] = newValue == 0 ? nil : newValue }
    }

    public var description: String {
        entries.sorted { $0.key < $1.key }.map { "\($0.key.description.prefix(8)):\($0.value)" }.joined(separator: " ")
    }
}
