import AtollStorage

/// The protocol version this code speaks. A peer with another version gets a `.protocolVersion`
/// error naming both.
///
/// Version 2 adds the node's permissions to `welcome` (`Welcome.permission`, flag bit 1). A relay
/// accepts nodes of versions `syncProtocolVersionOldest...syncProtocolVersion` and answers each
/// in its own version, so relays are upgraded first, then nodes.
///
/// Version 3 adds the node's schema description to `hello` (`Hello.schema`): the relay keeps the
/// realm's schema history and accepts nodes whose schema only adds to it. A node of version 1 or
/// 2 (a fingerprint only) is accepted only while the history is exactly its schema.
///
/// Version 4 adds the digest of the node's newest stored changeset to `welcome`
/// (`Welcome.uploadedThroughDigest`, flag bit 2), so that a copy of a node's file that made as
/// many changesets as the relay holds of that node is told apart from the node itself.
///
/// Version 5 adds the realm's schema history to `welcome` (`Welcome.schemaHistory`, flag bit 4),
/// which the node records so that `atoll schema FILE --sync` can show it, and garbage collection
/// by acknowledgement (docs/SYNC.md, "The stability point"): the node reports its clock floor
/// (`clockFloor`), the relay sends the realm's stability point (`stabilityPoint`), and `welcome`
/// says when the relay had forgotten the node (`Welcome.expired`, flag bit 3).
///
/// Version 6 adds the bound that lets nodes collect deleted objects (docs/SYNC.md, "The stability
/// point"): the node reports the log position it has merged, as far as its unstored changes are
/// concerned (`appliedFloor`), and the relay sends the realm's deletion point
/// (`deletionPoint`), below which every delete was merged by every peer before it made any
/// changeset still to come.
///
/// Version 7 adds abandonments (`Changeset.abandonsFlag`): a relay ends the unfinished
/// transaction of a node it forgot with a changeset that tells nodes to drop its parts. A relay
/// does not send abandonments to a node of an older version (which would refuse the flag); such
/// a node keeps the parts staged, as before.
public let syncProtocolVersion: UInt32 = 7
/// The oldest node version a relay of this code accepts.
public let syncProtocolVersionOldest: UInt32 = 1

/// Why a peer refuses or ends a session (sent in an `.error` message before closing).
public enum SyncErrorCode: UInt16, Sendable, Equatable {
    /// A message could not be decoded, or broke the protocol's rules.
    case malformed = 1
    /// The peers speak protocol versions the other does not accept; the message names both.
    case protocolVersion = 2
    /// The node's synced schema differs from the realm's.
    case schemaMismatch = 3
    /// The realm id is empty or too long.
    case invalidRealm = 4
    /// Reserved: the relay no longer has history the node needs. (Relays of this version send
    /// trimmed history as a snapshot instead.)
    case historyTrimmed = 5
    /// The relay holds more changesets of this node than the node made: the file was restored
    /// from a backup or copied from another node.
    case originConflict = 6
    /// A changeset is stamped too far ahead of the relay's clock; the node's clock is wrong. Not
    /// fatal: the relay stores what came before and the node retries later.
    case clockAhead = 7
    /// The relay could not store changesets (a storage failure); retry later.
    case unavailable = 8
    /// A message that is not valid in the session's state (e.g. data before the handshake).
    case unexpectedMessage = 9
    /// The identity may not read the realm (at `hello`), or an upload changes what it may not
    /// write (the whole upload is refused; the message names the changeset and why).
    case permissionDenied = 10
    /// A changeset is stamped below the realm's stability point (protocol 5): the node's clock
    /// is behind the realm's, or it was away while the point moved on. A node of protocol 5
    /// resets to the relay's state and makes its unsynced changes again, as new writes.
    case belowStabilityPoint = 11

    /// Whether the session must end (every code but `.clockAhead`).
    public var isFatal: Bool { self != .clockAhead }

    var errorKind: AtollError.Kind {
        switch self {
        case .schemaMismatch: .schemaMismatch
        case .unavailable: .connectionFailed
        case .clockAhead, .belowStabilityPoint: .clockSkew
        case .permissionDenied: .permissionDenied
        default: .protocolViolation
        }
    }
}

/// The messages of the sync protocol. Each travels as one `Frame` (kind byte + payload); the
/// transport compresses, checksums and delimits frames.
///
/// Node -> relay: `hello` (first), `upload`, `downloadAck`, `markRequest`.
/// Relay -> node: `welcome` (or `error`), `uploadAck`, `download`, `markReply`.
/// Either side: `error` (then the sender closes, unless the code is not fatal).
public enum SyncMessage: Equatable, Sendable {
    /// Opens a session: who the node is, which realm and schema, and what it already has.
    case hello(Hello)
    /// The relay accepts: its identity, what it has stored of the node's own changesets, and the
    /// realm's current head.
    case welcome(Welcome)
    /// A refusal or the end of the session: why, in a code and a sentence for the logs.
    case error(code: SyncErrorCode, message: String)
    /// Own changesets of the node, in sequence order.
    case upload([Changeset])
    /// The relay stored the node's changesets up to `through`, durably. `resend`: it detected a
    /// gap and the node should send again from `through + 1`.
    case uploadAck(through: UInt64, resend: Bool)
    /// Changesets of other nodes from the relay's log: entries after `from` up to `to` (entries
    /// the node already has are left out; `to` may pass some), and the log's `head` when sent.
    case download(from: UInt64, to: UInt64, head: UInt64, changesets: [Changeset])
    /// The node applied the relay's log up to `cursor`. `resend`: it saw a gap and wants the log
    /// again from `cursor + 1`.
    case downloadAck(cursor: UInt64, resend: Bool)
    /// Asks the relay for its current head (for "wait until downloaded everything there is").
    case markRequest(id: UInt64)
    /// The relay's log head when the `markRequest` with this `id` arrived.
    case markReply(id: UInt64, head: UInt64)
    /// A chunk of the realm's compacted history (for a node that lacks trimmed changesets), a
    /// body of instructions with their own stamps. The last chunk (`final`) carries what the node
    /// has once it applied them all: the version vector and the log position `through`.
    case snapshot(index: UInt64, final: Bool, through: UInt64, versionVector: VersionVector, body: [UInt8])
    /// The node applied snapshot chunks before `next`; `resend`: it wants them again from `next`.
    case snapshotAck(next: UInt64, resend: Bool)
    /// Node to relay (version 5): every changeset of this node that the relay has not
    /// acknowledged, and every one it will make, is stamped at or above `floor` (a clock
    /// reading). Sent when it grows.
    case clockFloor(UInt64)
    /// Relay to node (version 5): the realm's stability point. Every changeset stamped below
    /// `point` (a clock reading) that any peer the relay counts will ever upload is in the log at
    /// or before position `through`; a node that has applied the log through `through` may drop
    /// the metadata that only such changesets could need.
    case stabilityPoint(point: UInt64, through: UInt64)
    /// Node to relay (version 6): every changeset of this node that the relay has not stored,
    /// and every one it will make, is made after the node merged every changeset of the
    /// relay's log at or before `position` (UInt64.max: it has merged no other node's changeset
    /// yet, so its changes name only what it made itself). Sent when it changes, and before
    /// uploads made after it changed.
    case appliedFloor(UInt64)
    /// Relay to node (version 6): the realm's deletion point, at most its stability point. A
    /// changeset stamped below `point` is in the log at or before a position every peer the
    /// relay counts had merged before making any changeset still to come (and any other node's
    /// changesets made before merging it are refused); a node that has applied the log through
    /// `through` may drop the metadata of objects deleted below it.
    case deletionPoint(point: UInt64, through: UInt64)

    /// The node's handshake: its identity, realm, synced schema and what it already has.
    public struct Hello: Equatable, Sendable {
        /// The protocol version the node speaks.
        public var protocolVersion: UInt32
        /// The node's identity (random, stored in its file).
        public var nodeID: NodeID
        /// The realm the node syncs.
        public var realmID: String
        /// A digest of the node's synced schema; the relay refuses one that differs from the realm's.
        public var schemaFingerprint: [UInt8]
        /// Where the node is in the relay's log.
        public var cursor: DownloadCursor
        /// For every origin, the last changeset the node has applied.
        public var versionVector: VersionVector
        /// The node's synced schema (version 3; nil: the relay compares fingerprints only).
        public var schema: SyncSchemaDescription?

        /// A handshake with these fields.
        public init(protocolVersion: UInt32 = syncProtocolVersion, nodeID: NodeID, realmID: String, schemaFingerprint: [UInt8],
                    cursor: DownloadCursor, versionVector: VersionVector, schema: SyncSchemaDescription? = nil)
        {
            self.schema = schema
            self.protocolVersion = protocolVersion
            self.nodeID = nodeID
            self.realmID = realmID
            self.schemaFingerprint = schemaFingerprint
            self.cursor = cursor
            self.versionVector = versionVector
        }
    }

    /// The relay's acceptance of a node's `hello`.
    public struct Welcome: Equatable, Sendable {
        /// The protocol version of the session (the node's own).
        public var protocolVersion: UInt32
        /// The relay's identity (the same for every relay on one PostgreSQL store).
        public var relayID: NodeID
        /// The highest sequence number of the node's own changesets the relay has stored.
        public var uploadedThrough: UInt64
        /// The realm's log head when the node connected.
        public var head: UInt64
        /// The log position downloads continue after (the node's cursor, or past history the
        /// relay trimmed and the node already has).
        public var start: UInt64
        /// A snapshot of the compacted history follows (the node lacks trimmed changesets).
        public var snapshotFollows: Bool
        /// What the node may do in the realm, when the relay has rules (version 2; nil: the relay
        /// has none, or the node speaks version 1).
        public var permission: RealmPermission?
        /// `Changeset.digest` of the node's changeset number `uploadedThrough` as the relay stored
        /// it (version 4; 0: unknown, or the node speaks an older version). A node whose own
        /// changeset of that number has another digest is a copy of another node's file.
        public var uploadedThroughDigest: UInt64
        /// The realm's schema history as the relay holds it after admitting the node: the union
        /// of every synced schema nodes brought (version 5; nil: the relay has none yet, or the
        /// node speaks an older version).
        public var schemaHistory: SyncSchemaDescription?
        /// The relay had forgotten this node (not seen for longer than its
        /// `peerExpiryMilliseconds`), so the realm's metadata may have been collected without
        /// it: the node replaces its synced data with the relay's state and makes its
        /// unacknowledged changes again as new writes (version 5, flag bit 3).
        public var expired: Bool = false

        /// An acceptance with these fields.
        public init(protocolVersion: UInt32 = syncProtocolVersion, relayID: NodeID, uploadedThrough: UInt64, head: UInt64,
                    start: UInt64 = 0, snapshotFollows: Bool = false, permission: RealmPermission? = nil,
                    uploadedThroughDigest: UInt64 = 0, schemaHistory: SyncSchemaDescription? = nil, expired: Bool = false)
        {
            self.expired = expired
            self.uploadedThroughDigest = uploadedThroughDigest
            self.schemaHistory = schemaHistory
            self.protocolVersion = protocolVersion
            self.relayID = relayID
            self.uploadedThrough = uploadedThrough
            self.head = head
            self.start = start
            self.snapshotFollows = snapshotFollows
            self.permission = permission
        }
    }

    /// Frame kinds (the transport reserves none).
    public enum Kind: UInt8, Sendable {
        /// `SyncMessage.hello`.
        case hello = 1
        /// `SyncMessage.welcome`.
        case welcome
        /// `SyncMessage.error`.
        case error
        /// `SyncMessage.upload`.
        case upload
        /// `SyncMessage.uploadAck`.
        case uploadAck
        /// `SyncMessage.download`.
        case download
        /// `SyncMessage.downloadAck`.
        case downloadAck
        /// `SyncMessage.markRequest`.
        case markRequest
        /// `SyncMessage.markReply`.
        case markReply
        /// `SyncMessage.snapshot`.
        case snapshot
        /// `SyncMessage.snapshotAck`.
        case snapshotAck
        /// `SyncMessage.clockFloor`.
        case clockFloor
        /// `SyncMessage.stabilityPoint`.
        case stabilityPoint
        /// `SyncMessage.appliedFloor`.
        case appliedFloor
        /// `SyncMessage.deletionPoint`.
        case deletionPoint
    }

    /// The frame kind the message travels as.
    public var kind: Kind {
        switch self {
        case .hello: .hello
        case .welcome: .welcome
        case .error: .error
        case .upload: .upload
        case .uploadAck: .uploadAck
        case .download: .download
        case .downloadAck: .downloadAck
        case .markRequest: .markRequest
        case .markReply: .markReply
        case .snapshot: .snapshot
        case .snapshotAck: .snapshotAck
        case .clockFloor: .clockFloor
        case .stabilityPoint: .stabilityPoint
        case .appliedFloor: .appliedFloor
        case .deletionPoint: .deletionPoint
        }
    }
}

// MARK: encoding

extension SyncMessage {
    /// The message as a frame.
    public var frame: Frame { Frame(kind: kind.rawValue, payload: encodePayload()) }

    func encodePayload() -> [UInt8] {
        var w = ByteWriter(capacity: 64)
        switch self {
        case .hello(let h):
            w.varint(UInt64(h.protocolVersion))
            w.append(h.nodeID.bytes)
            w.string(h.realmID)
            w.blob(h.schemaFingerprint)
            w.append(h.cursor.relayID.bytes)
            w.varint(h.cursor.seq)
            Self.writeVersionVector(h.versionVector, &w)
            if h.protocolVersion >= 3 { w.blob(h.schema?.encode() ?? []) }
        case .welcome(let wl):
            w.varint(UInt64(wl.protocolVersion))
            w.append(wl.relayID.bytes)
            w.varint(wl.uploadedThrough)
            w.varint(wl.head)
            w.varint(wl.start)
            // Flags: bit 0 snapshot follows, bit 1 permission follows (version 2): u8 bits
            // (0 read, 1 write, 2 writeClasses given), then with bit 2 a count and the class names;
            // bit 2 the digest of changeset `uploadedThrough` follows (version 4): a varint;
            // bit 3 the relay had forgotten the node (version 5);
            // bit 4 the realm's schema history follows (version 5): a blob, after the digest.
            let digest = wl.protocolVersion >= 4 && wl.uploadedThroughDigest != 0
            let expired = wl.protocolVersion >= 5 && wl.expired
            let history = wl.protocolVersion >= 5 ? wl.schemaHistory : nil
            w.u8((wl.snapshotFollows ? 1 : 0) | (wl.permission != nil ? 2 : 0) | (digest ? 4 : 0) | (expired ? 8 : 0) | (history != nil ? 16 : 0))
            if let p = wl.permission {
                w.u8((p.read ? 1 : 0) | (p.write ? 2 : 0) | (p.writeClasses != nil ? 4 : 0))
                if let classes = p.writeClasses {
                    w.varint(UInt64(classes.count))
                    for name in classes { w.string(name) }
                }
            }
            if digest { w.varint(wl.uploadedThroughDigest) }
            if let history { w.blob(history.encode()) }
        case .error(let code, let message):
            w.varint(UInt64(code.rawValue))
            w.string(truncated(message, bytes: SyncLimits.errorMessageBytesMax))
        case .upload(let changesets):
            ChangesetBatch.encode(changesets, into: &w)
        case .uploadAck(let through, let resend):
            w.varint(through)
            w.u8(resend ? 1 : 0)
        case .download(let from, let to, let head, let changesets):
            w.varint(from)
            w.varint(to)
            w.varint(head)
            ChangesetBatch.encode(changesets, into: &w)
        case .downloadAck(let cursor, let resend):
            w.varint(cursor)
            w.u8(resend ? 1 : 0)
        case .markRequest(let id):
            w.varint(id)
        case .markReply(let id, let head):
            w.varint(id)
            w.varint(head)
        case .snapshot(let index, let final, let through, let vv, let body):
            w.varint(index)
            w.u8(final ? 1 : 0)
            w.varint(through)
            Self.writeVersionVector(vv, &w)
            w.blob(body)
        case .snapshotAck(let next, let resend):
            w.varint(next)
            w.u8(resend ? 1 : 0)
        case .clockFloor(let floor):
            w.varint(floor)
        case .stabilityPoint(let point, let through), .deletionPoint(let point, let through):
            w.varint(point)
            w.varint(through)
        case .appliedFloor(let position):
            w.varint(position)
        }
        return w.bytes
    }

    /// Decodes and validates a frame. Anything malformed throws `.protocolViolation` (and never
    /// traps): unknown kinds, truncated or trailing bytes, counts beyond `SyncLimits`.
    public init(frame: Frame) throws {
        guard let kind = Kind(rawValue: frame.kind) else {
            throw AtollError(.protocolViolation, "unknown message kind \(frame.kind)")
        }
        self = try frame.payload.withUnsafeBytes { buffer in
            var r = ByteReader(buffer, context: "sync message", source: .peer)
            do {
                let m = try Self.decode(kind, &r)
                guard r.isAtEnd else { throw AtollError(.protocolViolation, "\(r.remaining) bytes after a \(kind) message") }
                return m
            } catch let e as AtollError {
                throw e.kind == .protocolViolation ? e : AtollError(.protocolViolation, "malformed \(kind) message: \(e.message)")
            }
        }
    }

    private static func writeVersionVector(_ vv: VersionVector, _ w: inout ByteWriter) {
        let entries = vv.entries.sorted { $0.key < $1.key }
        w.varint(UInt64(entries.count))
        for (node, seq) in entries {
            w.append(node.bytes)
            w.varint(seq)
        }
    }

    private static func readVersionVector(_ r: inout ByteReader) throws -> VersionVector {
        let n = try r.length(max: min(SyncLimits.versionVectorEntriesMax, r.remaining / 17))
        var vv = VersionVector()
        for _ in 0..<n {
            let origin = try node(&r)
            let seq = try r.varint()
            guard vv[origin] == 0 else { throw AtollError(.protocolViolation, "a version vector names node \(origin) twice") }
            vv[origin] = seq
        }
        return vv
    }

    private static func node(_ r: inout ByteReader) throws -> NodeID {
        guard let n = NodeID(bytes: try r.bytes(16)) else { throw AtollError(.protocolViolation, "bad node id") }
        return n
    }

    private static func decode(_ kind: Kind, _ r: inout ByteReader) throws -> SyncMessage {
        switch kind {
        case .hello:
            let version = try r.varint()
            let id = try node(&r)
            let realm = try RealmID.read(&r)
            let fingerprint = try r.blob(max: 64)
            let relay = try node(&r)
            let cursor = try r.varint()
            let vv = try readVersionVector(&r)
            var schema: SyncSchemaDescription?
            if version >= 3, r.remaining > 0 {
                let bytes = try r.blob(max: SyncLimits.schemaDescriptionBytesMax)
                if !bytes.isEmpty { schema = try SyncSchemaDescription.decode(bytes, fromPeer: true) }
            }
            return .hello(Hello(protocolVersion: UInt32(truncatingIfNeeded: min(version, UInt64(UInt32.max))), nodeID: id, realmID: realm,
                                schemaFingerprint: fingerprint, cursor: DownloadCursor(relayID: relay, seq: cursor), versionVector: vv,
                                schema: schema))
        case .welcome:
            let version = try r.varint()
            let relay = try node(&r)
            let uploaded = try r.varint(), head = try r.varint(), start = try r.varint()
            let flags = try r.u8()
            guard flags & ~UInt8(1 | 2 | 4 | 8 | 16) == 0, start <= head, flags & 4 == 0 || version >= 4,
                  flags & (8 | 16) == 0 || version >= 5 else {
                throw AtollError(.protocolViolation, "a malformed welcome")
            }
            var permission: RealmPermission?
            if flags & 2 != 0 {
                let bits = try r.u8()
                guard bits <= 7 else { throw AtollError(.protocolViolation, "unknown permission bits \(bits) in a welcome") }
                var classes: [String]?
                if bits & 4 != 0 {
                    let n = try r.length(max: min(SyncLimits.permissionClassesMax, r.remaining))
                    classes = try (0..<n).map { _ in try r.string(max: SchemaLimits.tableNameBytesMax) }
                }
                permission = RealmPermission(read: bits & 1 != 0, write: bits & 2 != 0, writeClasses: classes)
            }
            let digest = flags & 4 != 0 ? try r.varint() : 0
            let history = flags & 16 != 0 ? try SyncSchemaDescription.decode(try r.blob(max: SyncLimits.schemaDescriptionBytesMax), fromPeer: true) : nil
            return .welcome(Welcome(protocolVersion: UInt32(truncatingIfNeeded: min(version, UInt64(UInt32.max))), relayID: relay,
                                    uploadedThrough: uploaded, head: head, start: start, snapshotFollows: flags & 1 != 0,
                                    permission: permission, uploadedThroughDigest: digest, schemaHistory: history, expired: flags & 8 != 0))
        case .error:
            let raw = try r.varint()
            let code = raw <= UInt64(UInt16.max) ? SyncErrorCode(rawValue: UInt16(raw)) ?? .malformed : .malformed
            return .error(code: code, message: try r.string(max: SyncLimits.errorMessageBytesMax))
        case .upload:
            return .upload(try ChangesetBatch.decode(from: &r))
        case .uploadAck:
            let through = try r.varint()
            let flags = try r.u8()
            guard flags <= 1 else { throw AtollError(.protocolViolation, "unknown acknowledgement flags \(flags)") }
            return .uploadAck(through: through, resend: flags == 1)
        case .download:
            let from = try r.varint(), to = try r.varint(), head = try r.varint()
            guard from <= to, to <= head else { throw AtollError(.protocolViolation, "a download covers \(from)...\(to) of a log whose head is \(head)") }
            return .download(from: from, to: to, head: head, changesets: try ChangesetBatch.decode(from: &r))
        case .downloadAck:
            let cursor = try r.varint()
            let flags = try r.u8()
            guard flags <= 1 else { throw AtollError(.protocolViolation, "unknown acknowledgement flags \(flags)") }
            return .downloadAck(cursor: cursor, resend: flags == 1)
        case .markRequest:
            return .markRequest(id: try r.varint())
        case .markReply:
            return .markReply(id: try r.varint(), head: try r.varint())
        case .snapshot:
            let index = try r.varint()
            let flags = try r.u8()
            guard flags <= 1 else { throw AtollError(.protocolViolation, "unknown snapshot flags \(flags)") }
            let through = try r.varint()
            let vv = try readVersionVector(&r)
            return .snapshot(index: index, final: flags == 1, through: through, versionVector: vv,
                             body: try r.blob(max: SyncLimits.changesetBodyBytesMax))
        case .snapshotAck:
            let next = try r.varint()
            let flags = try r.u8()
            guard flags <= 1 else { throw AtollError(.protocolViolation, "unknown acknowledgement flags \(flags)") }
            return .snapshotAck(next: next, resend: flags == 1)
        case .clockFloor:
            return .clockFloor(try r.varint())
        case .stabilityPoint:
            return .stabilityPoint(point: try r.varint(), through: try r.varint())
        case .appliedFloor:
            return .appliedFloor(try r.varint())
        case .deletionPoint:
            return .deletionPoint(point: try r.varint(), through: try r.varint())
        }
    }
}

/// `s` cut to at most `bytes` UTF-8 bytes, at a character boundary.
func truncated(_ s: String, bytes: Int) -> String {
    guard s.utf8.count > bytes else { return s }
    var out = ""
    var used = 0
    for ch in s {
        let n = ch.utf8.count
        guard used + n <= bytes else { break }
        out.append(ch)
        used += n
    }
    return out
}
