import AtollStorage

// RelayStore in the relay's own Atoll file: its state in internal trees (the relay dogfoods the
// engine: every changeset is durable, per the file's durability, before it is acknowledged).
//
//   relay.meta     "id"                          -> 16-byte relay id (a new file is a new log)
//   relay.realms   UTF-8 realm id                -> u32 realm index, 16-byte schema fingerprint,
//                                                   varint head, varint trimmed-through,
//                                                   varint operations through head,
//                                                   varint operations through trimmed-through,
//                                                   then (when recorded) the schema history
//                                                   (SyncSchemaDescription's encoding)
//   relay.log      u32 BE realm ++ u64 BE seq    -> varint arrival (ms since 1970), varint
//                                                   operations through this entry, 16-byte
//                                                   origin, varint origin seq, varint hlc,
//                                                   u8 flags, changeset body
//   relay.origins  u32 BE realm ++ 16-byte node  -> varint stored seq (contiguous from 1),
//                                                   varint trimmed seq, then (written since
//                                                   protocol 4) varint Changeset.digest of
//                                                   changeset `stored`
//   relay.peers    u32 BE realm ++ 16-byte node  -> varint acknowledged log position,
//                                                   varint first seen, varint last seen (ms)
//   relay.points   UTF-8 realm id                -> varint stability point (the highest sent),
//                                                   then (protocol 6) varint deletion point,
//                                                   varint applied bound (absent: 0)
//
// The log of a realm is the arrival order of its changesets. Arrival order respects causality
// (a node's changeset can depend only on changesets the relay had already stored and sent it),
// so serving the log in order delivers every changeset after the ones it depends on.

/// The relay's state in its own Atoll file: one relay per file (`atoll-relay serve` holds
/// `PATH.relay-lock`), so the state in memory is authoritative and only this process writes it.
package final class RelayFileStore: RelayStore {
    let database: Database
    package let relayID: NodeID
    package private(set) var realms: [String: RelayRealm] = [:]
    private var nextRealmIndex: UInt32 = 1

    static let meta = "relay.meta"
    static let realmsTree = "relay.realms"
    static let log = "relay.log"
    static let origins = "relay.origins"
    static let peers = "relay.peers"
    static let points = "relay.points"
    /// Per realm (u32 BE index), how far the indexes of the compacted history (of tombstones
    /// and removals, `RelayBase.deleted`, and of embedded objects under their parents) were
    /// built for a history folded before folding kept them: empty, all of it; else the last
    /// object key indexed. No entry: not begun (a realm of a file written before relays kept
    /// both, 2026-11-29). A new realm's entry is empty.
    static let indexed = "relay.base.indexed.2"
    /// The same for the index of tombstones alone (files of 2026-11-28); its entries go once a
    /// realm is indexed again.
    static let indexedBefore = "relay.base.indexed"

    package init(database: Database, newRelayID: NodeID? = nil) throws {
        self.database = database
        let w = try database.beginWrite()
        do {
            if let bytes = try w.internalValue(Self.meta, key: Array("id".utf8)), let id = NodeID(bytes: bytes) {
                relayID = id
                w.rollback()
            } else {
                relayID = newRelayID ?? NodeID.random()
                try w.putInternal(Self.meta, key: Array("id".utf8), value: relayID.bytes)
                try w.commit()
            }
        } catch {
            w.rollback()
            throw error
        }
        try load()
    }

    /// Per realm index, where building the index of its history's tombstones resumes (after
    /// that object key; empty: from the start), for the realms whose index is not complete.
    private var indexing: [UInt32: [UInt8]] = [:]

    private func load() throws {
        let r = try database.beginRead()
        defer { r.close() }
        var byIndex: [UInt32: String] = [:]
        try r.forEachInternalEntry(Self.realmsTree, from: []) { k, v in
            let id = String(decoding: k, as: UTF8.self)
            var rd = ByteReader(v, context: "relay realm")
            var realm = RelayRealm(id: id, index: try rd.u32(), fingerprint: Array(try rd.bytes(16)))
            realm.head = try rd.varint()
            realm.trimmedThrough = try rd.varint()
            realm.operations = try rd.varint()
            realm.operationsAtTrim = try rd.varint()
            if rd.remaining > 0 {
                realm.schema = try SyncSchemaDescription.decode(Array(try rd.bytes(rd.remaining)), fromPeer: false)
            }
            realms[id] = realm
            byIndex[realm.index] = id
            nextRealmIndex = max(nextRealmIndex, realm.index + 1)
            return true
        }
        try r.forEachInternalEntry(Self.origins, from: []) { k, v in
            guard k.count == 20, let realm = byIndex[UInt32(bigEndian: k.loadUnaligned(as: UInt32.self))],
                  let node = NodeID(bytes: UnsafeRawBufferPointer(rebasing: k[4...]))
            else { throw AtollError.corrupted("relay origin key of \(k.count) bytes") }
            var rd = ByteReader(v, context: "relay origin")
            realms[realm]?.origins[node] = (try rd.varint(), try rd.varint())
            if rd.remaining > 0 { realms[realm]?.originDigests[node] = try rd.varint() }
            return true
        }
        try r.forEachInternalEntry(Self.peers, from: []) { k, v in
            guard k.count == 20, let realm = byIndex[UInt32(bigEndian: k.loadUnaligned(as: UInt32.self))],
                  let node = NodeID(bytes: UnsafeRawBufferPointer(rebasing: k[4...]))
            else { throw AtollError.corrupted("relay peer key of \(k.count) bytes") }
            var rd = ByteReader(v, context: "relay peer")
            realms[realm]?.peers[node] = RelayPeer(acknowledged: try rd.varint(), firstSeenMilliseconds: try rd.varint(),
                                                   lastSeenMilliseconds: try rd.varint())
            return true
        }
        try r.forEachInternalEntry(Self.points, from: []) { k, v in
            let id = String(decoding: k, as: UTF8.self)
            guard realms[id] != nil else { throw AtollError.corrupted("relay stability point of unknown realm '\(id)'") }
            var rd = ByteReader(v, context: "relay stability point")
            var bounds = RelayStability(point: try rd.varint())
            if rd.remaining > 0 {
                bounds.deletionPoint = try rd.varint()
                bounds.applied = try rd.varint()
            }
            realms[id]?.stability = bounds
            return true
        }
        for realm in realms.values {
            guard let done = try r.internalValue(Self.indexed, key: Self.realmKey(realm.index)) else {
                indexing[realm.index] = []
                continue
            }
            if !done.isEmpty { indexing[realm.index] = done }
        }
    }

    /// The key of a realm's entry in `indexed`, and the prefix of its keys in the other trees.
    private static func realmKey(_ realm: UInt32) -> [UInt8] {
        var w = ByteWriter(capacity: 4)
        w.u32BigEndian(realm)
        return w.bytes
    }

    private static func key(_ realm: UInt32, _ node: NodeID) -> [UInt8] {
        realmKey(realm) + node.bytes
    }

    private static func logKey(_ realm: UInt32, _ seq: UInt64) -> [UInt8] {
        var w = ByteWriter(capacity: 12)
        w.append(realmKey(realm))
        w.u64BigEndian(seq)
        return w.bytes
    }

    private func putRealm(_ w: WriteTransaction, _ realm: RelayRealm) throws {
        var v = ByteWriter(capacity: 48)
        v.u32(realm.index)
        v.append(realm.fingerprint)
        v.varint(realm.head)
        v.varint(realm.trimmedThrough)
        v.varint(realm.operations)
        v.varint(realm.operationsAtTrim)
        if let schema = realm.schema { v.append(schema.encode()) }
        try w.putInternal(Self.realmsTree, key: Array(realm.id.utf8), value: v.bytes)
    }

    @discardableResult
    private func write<R>(_ body: (WriteTransaction) throws -> R) throws -> R {
        let w = try database.beginWrite()
        do {
            let r = try body(w)
            try w.commit()
            return r
        } catch {
            w.rollback()
            throw error
        }
    }

    package func openRealm(_ id: String, fingerprint: [UInt8], node: NodeID) throws -> RelayRealm {
        if let r = realms[id] { return r }
        let realm = RelayRealm(id: id, index: nextRealmIndex, fingerprint: fingerprint)
        try write { w in
            try putRealm(w, realm)
            // Folding indexes all of a new realm's history.
            try w.putInternal(Self.indexed, key: Self.realmKey(realm.index), value: [])
        }
        nextRealmIndex += 1
        realms[id] = realm
        return realm
    }

    package func recordSchema(_ realmID: String, from old: SyncSchemaDescription?, to new: SyncSchemaDescription) throws -> Bool {
        guard var realm = realms[realmID] else { throw AtollError(.invalidArgument, "realm '\(realmID)' was not opened on this relay") }
        guard realm.schema == old else { return false }
        realm.schema = new
        realm.fingerprint = new.fingerprint
        try write { w in try putRealm(w, realm) }
        realms[realmID] = realm
        return true
    }

    /// Writes `origin`'s record of `realm` (see the layout above).
    private func putOrigin(_ w: WriteTransaction, _ realm: RelayRealm, _ origin: NodeID) throws {
        guard let o = realm.origins[origin] else { return }
        var v = ByteWriter(capacity: 24)
        v.varint(o.stored)
        v.varint(o.trimmed)
        if let digest = realm.originDigests[origin] { v.varint(digest) }
        try w.putInternal(Self.origins, key: Self.key(realm.index, origin), value: v.bytes)
    }

    package func append(_ realmID: String, _ changesets: [Changeset], arrival: UInt64) throws -> RelayAppend {
        guard var realm = realms[realmID] else { return RelayAppend(entries: [], storedThrough: 0, gap: !changesets.isEmpty) }
        let origin = changesets.first?.origin
        precondition(changesets.allSatisfy { $0.origin == origin }, "an append holds one origin's changesets")
        var stored = origin.flatMap { realm.origins[$0]?.stored } ?? 0
        var fresh: [(Changeset, UInt64)] = []
        var gap = false
        for cs in changesets where cs.seq > stored {
            guard cs.seq == stored + 1 else {
                gap = true
                break
            }
            fresh.append((cs, try relayOperations(of: cs)))
            stored = cs.seq
        }
        guard let origin, !fresh.isEmpty else { return RelayAppend(entries: [], storedThrough: stored, gap: gap) }
        var entries: [RelayEntry] = []
        try write { w in
            for (cs, operations) in fresh {
                realm.head += 1
                realm.operations += operations
                var v = ByteWriter(capacity: cs.body.count + 40)
                v.varint(arrival)
                v.varint(realm.operations)
                v.append(cs.origin.bytes)
                v.varint(cs.seq)
                v.varint(cs.hlc)
                v.u8(cs.flags)
                v.append(cs.body)
                try w.putInternal(Self.log, key: Self.logKey(realm.index, realm.head), value: v.bytes)
                entries.append(RelayEntry(seq: realm.head, arrivalMilliseconds: arrival, operations: realm.operations, changeset: cs))
            }
            var o = realm.origins[origin] ?? (0, 0)
            o.stored = stored
            realm.origins[origin] = o
            realm.originDigests[origin] = fresh[fresh.count - 1].0.storedDigest
            try putOrigin(w, realm, origin)
            try putRealm(w, realm)
        }
        realms[realmID] = realm
        return RelayAppend(entries: entries, storedThrough: stored, gap: gap)
    }

    private static func decodeEntry(seq: UInt64, _ v: UnsafeRawBufferPointer) throws -> RelayEntry {
        var r = ByteReader(v, context: "relay log entry")
        let arrival = try r.varint()
        let operations = try r.varint()
        guard let origin = NodeID(bytes: try r.bytes(16)) else { throw AtollError.corrupted("relay log entry: bad origin") }
        let originSeq = try r.varint()
        let hlc = try r.varint()
        let flags = try r.u8()
        let body = Array(try r.bytes(r.remaining))
        return RelayEntry(seq: seq, arrivalMilliseconds: arrival, operations: operations,
                          changeset: Changeset(origin: origin, seq: originSeq, hlc: hlc, flags: flags, body: body))
    }

    package func entries(_ realmID: String, after: UInt64, maxBytes: Int, include: (Changeset) -> Bool) throws -> (entries: [RelayEntry], through: UInt64) {
        try entries(realmID, after: after, maxCount: SyncLimits.batchChangesetsMax, maxBytes: maxBytes, scanMax: SyncLimits.batchChangesetsMax * 10, include: include)
    }

    func entries(_ realmID: String, after: UInt64, maxCount: Int, maxBytes: Int, scanMax: Int,
                 include: (Changeset) -> Bool) throws -> (entries: [RelayEntry], through: UInt64)
    {
        guard let realm = realms[realmID], after < realm.head else { return ([], after) }
        let r = try database.beginRead()
        defer { r.close() }
        var result: [RelayEntry] = []
        var through = after
        var bytes = 0
        var scanned = 0
        try r.forEachInternalEntry(Self.log, from: Self.logKey(realm.index, after + 1), prefix: Self.realmKey(realm.index)) { k, v in
            guard k.count == 12 else { throw AtollError.corrupted("relay log key of \(k.count) bytes") }
            let seq = UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 4, as: UInt64.self))
            let e = try Self.decodeEntry(seq: seq, v)
            through = seq
            scanned += 1
            if include(e.changeset) {
                result.append(e)
                bytes += e.changeset.body.count
            }
            return result.count < maxCount && bytes < maxBytes && scanned < scanMax
        }
        if through < after { through = after }
        // Reached the end: nothing else up to the head.
        if scanned < scanMax && result.count < maxCount && bytes < maxBytes { through = realm.head }
        return (result, through)
    }

    package func entryHeaders(_ realmID: String, after: UInt64, maxCount: Int) throws -> (headers: [RelayEntryHeader], through: UInt64) {
        guard let realm = realms[realmID], after < realm.head, maxCount > 0 else { return ([], after) }
        let r = try database.beginRead()
        defer { r.close() }
        var headers: [RelayEntryHeader] = []
        try r.forEachInternalEntry(Self.log, from: Self.logKey(realm.index, after + 1), prefix: Self.realmKey(realm.index)) { k, v in
            guard k.count == 12 else { throw AtollError.corrupted("relay log key of \(k.count) bytes") }
            var reader = ByteReader(v, context: "relay log entry")
            _ = try reader.varint() // arrival
            _ = try reader.varint() // operations
            guard let origin = NodeID(bytes: try reader.bytes(16)) else { throw AtollError.corrupted("relay log entry: bad origin") }
            headers.append(RelayEntryHeader(position: UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 4, as: UInt64.self)),
                                            origin: origin, seq: try reader.varint(), hlc: try reader.varint(), flags: try reader.u8()))
            return headers.count < maxCount
        }
        return (headers, headers.count < maxCount ? realm.head : headers[headers.count - 1].position)
    }

    package func entry(_ realmID: String, _ seq: UInt64) throws -> RelayEntry? {
        guard let realm = realms[realmID] else { return nil }
        let r = try database.beginRead()
        defer { r.close() }
        return try r.internalValue(Self.log, key: Self.logKey(realm.index, seq)).map { bytes in
            try bytes.withUnsafeBytes { try Self.decodeEntry(seq: seq, $0) }
        }
    }

    package func currentHead(_ realmID: String) throws -> UInt64 { realms[realmID]?.head ?? 0 }

    /// Only this relay writes the file: its view is always current.
    package func refreshHeads(_ realmIDs: Set<String>) throws -> [String] { [] }

    package func noteHead(_ realmID: String, _ head: UInt64) -> Bool { false }

    // MARK: peers

    package func notePeer(_ realmID: String, _ node: NodeID, acknowledged: UInt64, now: UInt64) {
        notePeer(realmID, node, acknowledged: acknowledged, now: now, firstContact: false)
    }

    /// The file is this relay's alone: a known peer's record is written with the next flush.
    /// A new peer's is written now: a node that has stored changesets but no peer record is
    /// taken for a forgotten one (RelayCore.hello), which a crash before the flush must not
    /// make of it.
    package func registerPeer(_ realmID: String, _ node: NodeID, acknowledged: UInt64, now: UInt64) throws {
        let isNew = realms[realmID]?.peers[node] == nil
        notePeer(realmID, node, acknowledged: acknowledged, now: now, firstContact: true)
        if isNew { try flushPeers() }
    }

    package func peers(_ realmID: String) throws -> [NodeID: RelayPeer] { realms[realmID]?.peers ?? [:] }

    package func isPeer(_ realmID: String, _ node: NodeID) throws -> Bool { realms[realmID]?.peers[node] != nil }

    package func raiseStability(_ realmID: String, to bounds: RelayStability) throws {
        guard let realm = realms[realmID] else { throw AtollError(.invalidArgument, "realm '\(realmID)' was not opened on this relay") }
        let raised = realm.stability.raised(to: bounds)
        guard raised != realm.stability else { return }
        var v = ByteWriter(capacity: 30)
        v.varint(raised.point)
        v.varint(raised.deletionPoint)
        v.varint(raised.applied)
        try write { w in try w.putInternal(Self.points, key: Array(realmID.utf8), value: v.bytes) }
        realms[realmID]?.stability = raised
    }

    /// The file is this relay's alone: its view is current.
    package func storedStability(_ realmID: String) throws -> RelayStability { realms[realmID]?.stability ?? RelayStability() }

    private func notePeer(_ realmID: String, _ node: NodeID, acknowledged: UInt64, now: UInt64, firstContact: Bool) {
        guard realms[realmID] != nil else { return }
        var p = realms[realmID]?.peers[node] ?? RelayPeer(acknowledged: acknowledged, firstSeenMilliseconds: now, lastSeenMilliseconds: now)
        if firstContact { p.acknowledged = acknowledged } else { p.acknowledged = max(p.acknowledged, acknowledged) }
        p.lastSeenMilliseconds = now
        p.isDirty = true
        realms[realmID]?.peers[node] = p
    }

    package func forgetPeer(_ realmID: String, _ node: NodeID) throws {
        guard let realm = realms[realmID], realm.peers[node] != nil else { return }
        try write { w in try w.deleteInternal(Self.peers, key: Self.key(realm.index, node)) }
        realms[realmID]?.peers[node] = nil
    }

    package func flushPeers(connected: [RelayConnectedPeer], now: UInt64) throws { try flushPeers() }

    /// Writes changed peer records (acknowledgements are kept in memory between flushes; a
    /// crash loses only some, which makes trimming more careful, never less).
    func flushPeers() throws {
        let dirty = realms.values.flatMap { realm in realm.peers.filter(\.value.isDirty).map { (realm, $0.key, $0.value) } }
        guard !dirty.isEmpty else { return }
        try write { w in
            for (realm, node, p) in dirty {
                var v = ByteWriter(capacity: 24)
                v.varint(p.acknowledged)
                v.varint(p.firstSeenMilliseconds)
                v.varint(p.lastSeenMilliseconds)
                try w.putInternal(Self.peers, key: Self.key(realm.index, node), value: v.bytes)
            }
        }
        for (realm, node, _) in dirty { realms[realm.id]?.peers[node]?.isDirty = false }
    }

    package func trimCandidates() throws -> [String] { realms.keys.sorted() }

    @discardableResult
    package func trim(_ realmID: String, localFloor: UInt64?, connected: Set<NodeID>, holdingSnapshot: Bool, expiryMilliseconds: UInt64?,
                      limit: Int, now: UInt64) throws -> RelayTrimOutcome
    {
        if let expiry = expiryMilliseconds, let realm = realms[realmID] {
            for (node, peer) in realm.peers.sorted(by: { $0.key < $1.key }) where now > peer.lastSeenMilliseconds &+ expiry && !connected.contains(node) {
                try forgetPeer(realmID, node)
            }
        }
        // The compacted history must not change under a snapshot being streamed.
        var outcome = RelayTrimOutcome()
        guard !holdingSnapshot, let current = realms[realmID], !current.peers.isEmpty else { return outcome }
        var floor = current.peers.values.map(\.acknowledged).min() ?? 0
        if let localFloor { floor = min(floor, localFloor) }
        if floor > current.trimmedThrough {
            try flushPeers()
            outcome = try trim(realmID, through: floor, limit: limit)
        }
        try collectBase(realmID, limit: limit)
        return outcome
    }

    /// Drops the compacted history's tombstones below the realm's deletion point
    /// (`RelayBase.collectDeleted`), about `limit` of them, once the log is trimmed through the
    /// applied bound that came with the point and the history is all indexed.
    private func collectBase(_ realmID: String, limit: Int) throws {
        guard let realm = realms[realmID] else { return }
        try buildDeletionIndex(realm, limit: limit)
        guard indexing[realm.index] == nil else { return }
        let bounds = realm.stability
        guard bounds.deletionPoint > 0, bounds.applied > 0, realm.trimmedThrough >= bounds.applied else { return }
        let r = try database.beginRead()
        let pending = Result { try RelayBase.hasDeleted(realm: realm.index, below: bounds.deletionPoint, in: r) }
        r.close()
        guard try pending.get() else { return }
        try write { w in
            try RelayBase.collectDeleted(realm: realm.index, below: bounds.deletionPoint, limit: limit,
                                         collectable: RelayBase.Collectable(schema: realm.schema), in: w)
        }
    }

    /// Indexes the tombstones, removals and embedded objects of about `limit` more objects of
    /// a history folded before folding kept those indexes (`indexed`), so that collecting
    /// reaches them too; one step per trim, until the realm's history is all indexed (nothing
    /// is collected before: an embedded object not indexed yet would outlive its parent).
    private func buildDeletionIndex(_ realm: RelayRealm, limit: Int) throws {
        guard let resume = indexing[realm.index] else { return }
        let prefix = Self.realmKey(realm.index)
        let next: [UInt8]? = try write { w in
            var keys: [[UInt8]] = []
            var more = false
            try w.forEachInternalEntry(RelayBase.objects, from: resume.isEmpty ? prefix : resume, prefix: prefix) { k, _ in
                if !resume.isEmpty, k.elementsEqual(resume) { return true }
                guard keys.count < max(1, limit) else {
                    more = true
                    return false
                }
                keys.append(Array(k))
                return true
            }
            for k in keys { try RelayBase.indexDeletions(ofObject: k, realm: realm.index, in: w) }
            let last = more ? keys.last : nil
            try w.putInternal(Self.indexed, key: prefix, value: last ?? [])
            if last == nil { try w.deleteInternal(Self.indexedBefore, key: prefix) }
            return last
        }
        indexing[realm.index] = next
    }

    /// Drops log entries up to `through` (which every known peer has acknowledged), about
    /// `limit` of them. Returns how many went.
    ///
    /// Trimming stops only where no transaction is open (every origin's last entry up to there
    /// ends a transaction, `continuesFlag` clear), going past `limit` to finish one if needed,
    /// and never past `through`. So the compacted history holds only whole transactions, its
    /// version vector ends each origin at a transaction's end, and a node joining from a
    /// snapshot never gets part of a transaction from the snapshot and the rest from the log.
    @discardableResult
    func trim(_ realmID: String, through: UInt64, limit: Int) throws -> RelayTrimOutcome {
        var outcome = RelayTrimOutcome()
        guard var realm = realms[realmID], through > realm.trimmedThrough else { return outcome }
        let last = min(through, realm.head)
        let soft = realm.trimmedThrough + UInt64(max(1, limit))
        let prefix = Self.realmKey(realm.index)
        try write { w in
            var doomed: [(key: [UInt8], origin: NodeID, seq: UInt64, operations: UInt64, changeset: Changeset)] = []
            // Entries through `boundary` (a count of `doomed`), up to log position `end`, leave
            // no transaction open.
            var open: Set<NodeID> = []
            var boundary = 0
            var end = realm.trimmedThrough
            try w.forEachInternalEntry(Self.log, from: Self.logKey(realm.index, realm.trimmedThrough + 1), prefix: prefix) { k, v in
                guard k.count == 12 else { throw AtollError.corrupted("relay log key of \(k.count) bytes") }
                let seq = UInt64(bigEndian: k.loadUnaligned(fromByteOffset: 4, as: UInt64.self))
                guard seq <= last else { return false }
                let e = try Self.decodeEntry(seq: seq, v)
                doomed.append((Array(k), e.changeset.origin, e.changeset.seq, e.operations, e.changeset))
                if e.changeset.flags & Changeset.continuesFlag != 0 {
                    open.insert(e.changeset.origin)
                } else {
                    open.remove(e.changeset.origin)
                }
                if open.isEmpty {
                    boundary = doomed.count
                    end = seq
                }
                return !(open.isEmpty && seq >= soft)
            }
            doomed.removeSubrange(boundary...)
            guard end > realm.trimmedThrough else { return }
            let abandoned = RelayTrimOutcome.abandonedParts(doomed.map(\.changeset))
            for (i, d) in doomed.enumerated() {
                // Its effect stays in the realm's compacted history (for nodes that lack it).
                if !abandoned.contains(i) { try RelayBase.fold(d.changeset, realm: realm.index, into: w) }
                try w.deleteInternal(Self.log, key: d.key)
                var o = realm.origins[d.origin] ?? (d.seq, d.seq)
                o.trimmed = max(o.trimmed, d.seq)
                realm.origins[d.origin] = o
                realm.operationsAtTrim = d.operations
            }
            for origin in Set(doomed.map(\.origin)) where realm.origins[origin] != nil {
                try putOrigin(w, realm, origin)
            }
            realm.trimmedThrough = end
            try putRealm(w, realm)
            outcome.removed = doomed.count
        }
        realms[realmID] = realm
        return outcome
    }

    /// Only this relay trims the file, and its core holds trimming while it streams a snapshot.
    package func beginSnapshot(_ realmID: String, through: UInt64, now: UInt64) throws {}

    package func endSnapshot(_ realmID: String) throws {}

    package func snapshotChunk(_ realmID: String, after: [UInt8]?, bytesMax: Int, through: UInt64, now: UInt64) throws -> (body: [UInt8], last: [UInt8]?) {
        guard let realm = realms[realmID] else { return (ChangesetBodyEncoder(origin: relayID, explicitStamps: true).finish(), nil) }
        let r = try database.beginRead()
        defer { r.close() }
        return try RelayBase.chunk(realm: realm.index, after: after, relay: relayID, bytesMax: bytesMax, in: r)
    }

    package func operations(_ realmID: String, through seq: UInt64) throws -> UInt64 {
        guard let realm = realms[realmID] else { return 0 }
        if seq >= realm.head { return realm.operations }
        if seq <= realm.trimmedThrough { return seq == realm.trimmedThrough ? realm.operationsAtTrim : 0 }
        // Between the trimmed position and the head the log holds every entry.
        guard let e = try entry(realmID, seq) else { throw AtollError.corrupted("relay log entry \(seq) of realm '\(realmID)' is missing") }
        return e.operations
    }
}
