public import AtollStorage

// The conflict ledger: what a merge threw away.
//
// Last-writer-wins converges by discarding the losing write. When a merge decides between writes
// that were concurrent (neither node had seen the other's write when it made its own), the node
// records the decision in the internal tree `sync.conflicts` of its file, in the commit that made
// it:
//
//   sync.conflicts  object key ++ u16 BE column (0xFFFF: the object itself) ++ losing stamp
//                   (u64 BE hlc ++ 16-byte node ++ u32 BE index)
//                -> u8 kind, class name, tagged primary key, property name ("" for the object),
//                   u8 1 + varint lamport + 16-byte node of a list element, or u8 2 + the key of
//                   a map entry (string), or u8 0, winning
//                   value, losing value (u8 0: a delete, 1: tagged value, 2: tagged primary key of
//                   a link target), winning stamp (u64 BE hlc, 16-byte node, u32 BE index),
//                   u64 BE local version of the commit that decided it, u64 BE milliseconds
//                   since 1970 when it was recorded
//
// Concurrency is known exactly, from two facts. (1) Changesets reach every node in an order that
// respects causality (the relay's log), so a write that arrives after a newer write of the same
// property was not seen by the newer one: a conflict. (2) Each erase, set and list element write
// carries the stamp its origin had seen there (changeset body format 3), so a newer write that
// arrives was concurrent with the write it replaces exactly when it had not seen it. Every node
// therefore records the same entries (keyed by the losing write), whatever the order in which the
// changesets arrive. The winner of a property or list element entry is read with it: what the
// property holds now, or the delete that reset it (Conflict+Access.swift), so it is the same on
// every node with the same changesets. Snapshots of a relay's compacted history carry no seen stamps, and changesets of
// format 1 (older nodes, the first changesets of a file that held data) none either: writes that
// win from them are not recorded.
//
// The ledger does not sync. It is bounded locally (`ConflictRetention`) after every commit that
// records an entry.

/// A write that lost a merge to a concurrent one (docs/SYNC.md, "Conflicts").
public struct Conflict: Sendable, Equatable, Identifiable, CustomStringConvertible {
    /// How the two writes met.
    public enum Kind: UInt8, Sendable, CustomStringConvertible {
        /// Two nodes wrote the same property concurrently; the later stamp won.
        case concurrentWrite = 1
        /// A property written concurrently with a delete of its object, and stamped before it:
        /// the write is void. The winner is the delete (`winningValue` nil).
        case writeVoidedByDelete = 2
        /// A delete concurrent with a later write of the object: the object stays (or comes back)
        /// with the data written after the delete. The loser is the delete (`losingValue` nil).
        case deleteOverridden = 3
        /// Two nodes wrote the same list element concurrently; the later stamp won.
        case listElementWrite = 4
        /// Two nodes wrote (or removed) the same map key concurrently; the later stamp won. A
        /// removal of the key is a nil value.
        case mapEntryWrite = 5

        public var description: String {
            switch self {
            case .concurrentWrite: "concurrent write"
            case .writeVoidedByDelete: "write voided by delete"
            case .deleteOverridden: "delete overridden"
            case .listElementWrite: "concurrent list element write"
            case .mapEntryWrite: "concurrent map entry write"
            }
        }
    }

    /// Identifies an entry in the ledger of this file.
    public struct ID: Hashable, Sendable {
        let key: [UInt8]
    }

    public var id: ID
    /// What kind of decision the merge made.
    public var kind: Kind
    /// The class of the object.
    public var className: String
    /// The object's primary key.
    public var primaryKey: StorageValue
    /// The property (nil: the object itself, for `deleteOverridden`).
    public var property: String?
    /// The list element written, for `listElementWrite`.
    public var listElement: ElementID?
    /// What the property (list element) holds now, or for `deleteOverridden` the first write
    /// after the delete (nil when the winner is a delete).
    public var winningValue: SyncValue?
    /// The value that was discarded (nil when the loser is a delete).
    public var losingValue: SyncValue?
    /// The stamp of the write (or delete) that won.
    public var winningStamp: Stamp
    /// The stamp of the write (or delete) that lost.
    public var losingStamp: Stamp
    /// The local version of the commit whose merge decided it.
    public var decidedInVersion: UInt64
    /// When this node recorded it (milliseconds since 1970, this node's clock).
    public var recordedAtMilliseconds: UInt64
    /// The map key written, for `mapEntryWrite`.
    public var mapKey: String? = nil

    /// The node that made the winning change.
    public var winningNode: NodeID { winningStamp.node }
    /// The node that made the losing change.
    public var losingNode: NodeID { losingStamp.node }

    public var description: String {
        let target = "\(className)[\(primaryKey)]" + (property.map { ".\($0)" } ?? "") + (listElement.map { "[\($0)]" } ?? "")
            + (mapKey.map { "[\"\($0)\"]" } ?? "")
        let win = winningValue.map(\.description) ?? "(delete)"
        let lose = losingValue.map(\.description) ?? "(delete)"
        return "\(kind) \(target): \(win) by \(winningNode.description.prefix(8)) at \(winningStamp) beat \(lose) by \(losingNode.description.prefix(8)) at \(losingStamp)"
    }
}

/// How many conflicts a node keeps (the ledger is local: each node bounds its own).
public struct ConflictRetention: Sendable, Equatable {
    /// The most entries kept; the oldest go first. Default 1,000.
    public var countMax: Int
    /// Entries older than this are removed. Default 30 days.
    public var ageMillisecondsMax: UInt64

    /// The default of `countMax`.
    public static let countMaxDefault = 1_000
    /// The default of `ageMillisecondsMax` (30 days).
    public static let ageMillisecondsMaxDefault: UInt64 = 30 * 24 * 3_600_000

    /// A retention policy; a negative count is taken as zero.
    public init(countMax: Int = ConflictRetention.countMaxDefault, ageMillisecondsMax: UInt64 = ConflictRetention.ageMillisecondsMaxDefault) {
        self.countMax = max(0, countMax)
        self.ageMillisecondsMax = ageMillisecondsMax
    }
}

enum ConflictLedger {
    static let tree = "sync.conflicts"
    static let objectColumn = 0xFFFF

    static func prefix(_ objectKey: [UInt8], column: Int) -> [UInt8] {
        var w = ByteWriter(capacity: objectKey.count + 2)
        w.append(objectKey)
        w.u8(UInt8(column >> 8))
        w.u8(UInt8(column & 0xFF))
        return w.bytes
    }

    static func key(_ objectKey: [UInt8], column: Int, losing: Stamp) -> [UInt8] {
        var w = ByteWriter(capacity: objectKey.count + 30)
        w.append(prefix(objectKey, column: column))
        stamp(losing, into: &w)
        return w.bytes
    }

    static func stamp(_ s: Stamp, into w: inout ByteWriter) {
        w.u64BigEndian(s.hlc)
        w.append(s.node.bytes)
        w.u32BigEndian(s.index)
    }

    static func readStamp(_ r: inout ByteReader) throws -> Stamp {
        let hlc = try r.u64BigEndian()
        guard let node = NodeID(bytes: try r.bytes(16)) else { throw AtollError.corrupted("conflict ledger entry with a bad node id") }
        return Stamp(hlc: hlc, node: node, index: try r.u32BigEndian())
    }

    static func value(_ v: SyncValue?, into w: inout ByteWriter) {
        switch v {
        case nil: w.u8(0)
        case .value(let s)?: w.u8(1); s.encode(into: &w)
        case .link(let pk)?: w.u8(2); pk.encode(into: &w)
        case .typedLink(let className, let pk)?: w.u8(3); w.string(className); pk.encode(into: &w)
        }
    }

    static func readValue(_ r: inout ByteReader) throws -> SyncValue? {
        switch try r.u8() {
        case 0: return nil
        case 1: return .value(try StorageValue.decode(from: &r))
        case 2: return .link(primaryKey: try StorageValue.decode(from: &r))
        case 3:
            let className = try r.string(max: SchemaLimits.tableNameBytesMax)
            return .typedLink(className: className, primaryKey: try StorageValue.decode(from: &r))
        case let t: throw AtollError.corrupted("conflict ledger entry with value tag \(t)")
        }
    }

    static func encode(_ c: Conflict) -> [UInt8] {
        var w = ByteWriter(capacity: 96)
        w.u8(c.kind.rawValue)
        w.string(c.className)
        c.primaryKey.encode(into: &w)
        w.string(c.property ?? "")
        if let e = c.listElement {
            w.u8(1)
            w.varint(e.lamport)
            w.append(e.node.bytes)
        } else if let key = c.mapKey {
            w.u8(2)
            w.string(key)
        } else {
            w.u8(0)
        }
        value(c.winningValue, into: &w)
        value(c.losingValue, into: &w)
        stamp(c.winningStamp, into: &w)
        w.u64BigEndian(c.decidedInVersion)
        w.u64BigEndian(c.recordedAtMilliseconds)
        return w.bytes
    }

    static func decode(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws -> Conflict {
        guard key.count >= 30 else { throw AtollError.corrupted("conflict ledger key of \(key.count) bytes") }
        var kr = ByteReader(UnsafeRawBufferPointer(rebasing: key[(key.count - 28)...]), context: "conflict ledger key")
        let losing = try readStamp(&kr)
        var r = ByteReader(value, context: "conflict ledger entry")
        guard let kind = Conflict.Kind(rawValue: try r.u8()) else { throw AtollError.corrupted("conflict ledger entry of an unknown kind") }
        let className = try r.string(max: SchemaLimits.tableNameBytesMax)
        let pk = try StorageValue.decode(from: &r)
        let property = try r.string(max: SchemaLimits.columnNameBytesMax)
        var element: ElementID?
        var mapKey: String?
        switch try r.u8() {
        case 0: break
        case 1:
            let lamport = try r.varint()
            guard let node = NodeID(bytes: try r.bytes(16)) else { throw AtollError.corrupted("conflict ledger entry with a bad element node") }
            element = ElementID(lamport: lamport, node: node)
        case 2: mapKey = try r.string(max: r.remaining)
        case let t: throw AtollError.corrupted("conflict ledger entry with target tag \(t)")
        }
        let winning = try readValue(&r)
        let losingValue = try readValue(&r)
        let winningStamp = try readStamp(&r)
        let version = try r.u64BigEndian()
        let recorded = try r.u64BigEndian()
        return Conflict(id: Conflict.ID(key: Array(key)), kind: kind, className: className, primaryKey: pk,
                        property: property.isEmpty ? nil : property, listElement: element, winningValue: winning,
                        losingValue: losingValue, winningStamp: winningStamp, losingStamp: losing,
                        decidedInVersion: version, recordedAtMilliseconds: recorded, mapKey: mapKey)
    }

    /// Every entry of the ledger (of one object when `objectKey` is given), in key order.
    static func entries(_ txn: Transaction, objectKey: [UInt8] = []) throws -> [Conflict] {
        var result: [Conflict] = []
        try txn.forEachInternalEntry(tree, from: objectKey, prefix: objectKey) { k, v in
            result.append(try decode(key: k, value: v))
            return true
        }
        return result
    }

    /// Removes the oldest entries beyond `retention.countMax` and those older than its age.
    static func enforce(_ retention: ConflictRetention, txn: WriteTransaction, nowMilliseconds: UInt64) throws {
        var all: [(recorded: UInt64, key: [UInt8])] = []
        try txn.forEachInternalEntry(tree, from: []) { k, v in
            guard v.count >= 8 else { throw AtollError.corrupted("conflict ledger entry of \(v.count) bytes") }
            let recorded = UInt64(bigEndian: v.loadUnaligned(fromByteOffset: v.count - 8, as: UInt64.self))
            all.append((recorded, Array(k)))
            return true
        }
        let cutoff = nowMilliseconds > retention.ageMillisecondsMax ? nowMilliseconds - retention.ageMillisecondsMax : 0
        all.sort { $0.recorded != $1.recorded ? $0.recorded < $1.recorded : $0.key.lexicographicallyPrecedes($1.key) }
        let excess = max(0, all.count - retention.countMax)
        for (i, e) in all.enumerated() where i < excess || e.recorded < cutoff {
            try txn.deleteInternal(tree, key: e.key)
        }
    }
}
