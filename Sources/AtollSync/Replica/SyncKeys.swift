package import AtollStorage
import Crypto

// Sync metadata of a node, in internal trees of its own file (AtollStorage InternalTrees.swift),
// committed in the same transaction as the data it describes:
//
//   sync.state      "state"                          -> the replica state (ReplicaState.swift)
//   sync.objects    object key                       -> ObjectRecord: stamps of the object, its
//                                                       fields, its tombstone (ObjectRecord.swift)
//   sync.lists      object key ++ u16 BE column      -> ListRecord: the list's elements, ids and
//                                                       tombstones (ListRecord.swift)
//   sync.lists.removed  object key ++ u16 BE column  -> nothing: the list record holds a removed
//                                                       element whose removal reading is known, to
//                                                       collect (SyncWriter+Collect.swift); the key
//                                                       0x00 says the set is complete
//   sync.counters   object key ++ u16 BE column ++ u64 BE hlc ++ 16-byte node ++ u32 BE index
//                                                    -> zigzag delta of the increment made with
//                                                       that stamp (kept while a write of the field
//                                                       stamped before it could still arrive)
//   sync.dangling   target object key ++ origin object key ++ u16 BE column
//                                                    -> tagged origin primary key: a link whose
//                                                       target is deleted; it shows as nil (or is
//                                                       absent from its list) and comes back if the
//                                                       target is re-created
//   sync.outgoing   u64 BE seq                       -> varint hlc, u8 flags, body of a local
//                                                       changeset not yet acknowledged by the relay
//   sync.staged     0x01 ++ 16-byte origin ++ u64 BE seq
//                                                    -> varint hlc, u8 flags, body: a received part
//                                                       of a remote transaction whose last part has
//                                                       not arrived (SyncWriter+Stage.swift)
//                   0x02 ++ u64 BE chunk index       -> a received chunk of a relay snapshot whose
//                                                       last chunk has not arrived
//   sync.unknown    u64 BE hlc ++ 16-byte node ++ u32 BE index
//                                                    -> an instruction naming a class or property
//                                                       this node's schema does not have
//                                                       (SyncWriter+Unknown.swift)
//
// An object key is `u32 BE table key ++ primary-key key`, where the primary-key key is the search
// index encoding of the primary key (IndexKey.swift: order-preserving and prefix-free) when it is
// at most 48 bytes, and otherwise 0x09 ++ SHA-256 of the key's tagged value encoding. Metadata is
// keyed by primary key, not by object key, so it outlives the object: a tombstone and a list's
// element structure stay when the object is deleted, and re-creating it finds them.

enum SyncTrees {
    static let state = "sync.state"
    static let objects = "sync.objects"
    static let lists = "sync.lists"
    static let listsWithRemovals = "sync.lists.removed"
    /// The key of `listsWithRemovals` that marks the set complete (no list key is one byte).
    static let listsWithRemovalsComplete: [UInt8] = [0]
    static let counters = "sync.counters"
    static let dangling = "sync.dangling"
    static let outgoing = "sync.outgoing"
    static let staged = "sync.staged"

    static let stateKey: [UInt8] = Array("state".utf8)

    static let primaryKeyKeyBytesMax = 48

    /// The key of an object's metadata.
    static func objectKey(_ table: TableKey, _ pk: StorageValue) -> [UInt8] {
        var w = ByteWriter(capacity: 24)
        w.u32BigEndian(table.rawValue)
        let (encoded, isPrefix) = IndexKey.encode(pk)
        if !isPrefix && encoded.count <= primaryKeyKeyBytesMax {
            w.append(encoded)
        } else {
            var v = ByteWriter(capacity: encoded.count + 8)
            pk.encode(into: &v)
            w.u8(0x09)
            w.append(Array(SHA256.hash(data: v.bytes)))
        }
        return w.bytes
    }

    static func listKey(_ object: [UInt8], column: Int) -> [UInt8] {
        var k = object
        k.append(UInt8(truncatingIfNeeded: column >> 8))
        k.append(UInt8(truncatingIfNeeded: column))
        return k
    }

    static func counterKey(_ object: [UInt8], column: Int, stamp: Stamp) -> [UInt8] {
        var w = ByteWriter(capacity: object.count + 30)
        w.append(object)
        w.u8(UInt8(truncatingIfNeeded: column >> 8)); w.u8(UInt8(truncatingIfNeeded: column))
        w.u64BigEndian(stamp.hlc)
        w.append(stamp.node.bytes)
        w.u32BigEndian(stamp.index)
        return w.bytes
    }

    static func danglingKey(target: [UInt8], origin: [UInt8], column: Int) -> [UInt8] {
        target + listKey(origin, column: column)
    }

    static func outgoingKey(_ seq: UInt64) -> [UInt8] {
        var w = ByteWriter(capacity: 8)
        w.u64BigEndian(seq)
        return w.bytes
    }

    static let stagedPartTag: UInt8 = 1
    static let stagedChunkTag: UInt8 = 2

    /// The prefix of an origin's staged parts (followed by the u64 BE seq).
    static func stagedPartPrefix(_ origin: NodeID) -> [UInt8] { [stagedPartTag] + origin.bytes }

    static func stagedPartKey(_ origin: NodeID, _ seq: UInt64) -> [UInt8] {
        var w = ByteWriter(capacity: 25)
        w.append(stagedPartPrefix(origin))
        w.u64BigEndian(seq)
        return w.bytes
    }

    static func stagedChunkKey(_ index: UInt64) -> [UInt8] {
        var w = ByteWriter(capacity: 9)
        w.u8(stagedChunkTag)
        w.u64BigEndian(index)
        return w.bytes
    }
}

// MARK: values in metadata records

extension SyncValue {
    package func encode(into w: inout ByteWriter) {
        switch self {
        case .value(let v): v.encode(into: &w)
        case .link(let pk): w.u8(ChangesetContent.linkTag); pk.encode(into: &w)
        case .typedLink(let className, let pk): w.u8(ChangesetContent.typedLinkTag); w.string(className); pk.encode(into: &w)
        }
    }

    package static func decode(from r: inout ByteReader) throws -> SyncValue {
        let save = r.offset
        let tag = try r.u8()
        if tag == ChangesetContent.linkTag { return .link(primaryKey: try StorageValue.decode(from: &r)) }
        if tag == ChangesetContent.typedLinkTag {
            let className = try r.string(max: SchemaLimits.tableNameBytesMax)
            return .typedLink(className: className, primaryKey: try StorageValue.decode(from: &r))
        }
        r.offset = save
        return .value(try StorageValue.decode(from: &r))
    }
}

extension ByteWriter {
    mutating func stamp(_ s: Stamp, _ nodes: inout NodeTable) {
        varint(s.hlc)
        varint(UInt64(nodes.index(of: s.node)))
        varint(UInt64(s.index))
    }
}

extension ByteReader {
    mutating func stamp(_ nodes: NodeTable) throws -> Stamp {
        let hlc = try varint()
        let node = try nodes.node(at: try length(max: Int(UInt32.max)))
        return Stamp(hlc: hlc, node: node, index: UInt32(try length(max: Int(UInt32.max))))
    }
}

/// The nodes a replica knows, numbered in order of discovery (0: the replica itself), so that
/// metadata records name a node in a byte or two instead of 16.
struct NodeTable {
    private(set) var ids: [NodeID] = []
    private var indexes: [NodeID: Int] = [:]

    init(_ ids: [NodeID]) {
        for id in ids { _ = index(of: id) }
    }

    var count: Int { ids.count }

    /// The index of `id`, adding it when new.
    mutating func index(of id: NodeID) -> Int {
        if let i = indexes[id] { return i }
        ids.append(id)
        indexes[id] = ids.count - 1
        return ids.count - 1
    }

    func existingIndex(of id: NodeID) -> Int? { indexes[id] }

    func node(at i: Int) throws -> NodeID {
        guard i >= 0, i < ids.count else { throw AtollError.corrupted("sync metadata names node \(i) of \(ids.count)") }
        return ids[i]
    }
}
