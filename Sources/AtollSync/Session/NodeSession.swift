public import AtollStorage

/// Where a node's session stands.
public enum SessionState: Sendable, Equatable, CustomStringConvertible {
    /// Not trying to sync: not started, paused, or stopped by a fatal error (`lastError`).
    case offline
    /// Wants to sync and has no connection: the transport should connect (with backoff).
    case disconnected
    /// Connected, handshake sent, waiting for the relay's welcome.
    case connecting
    /// Handshake done: changesets flow both ways.
    case connected

    public var description: String {
        switch self {
        case .offline: "offline"
        case .disconnected: "disconnected"
        case .connecting: "connecting"
        case .connected: "connected"
        }
    }
}

/// How far uploads and downloads are, counted in changesets and relay log positions.
public struct SyncProgress: Equatable, Sendable {
    /// The last own changeset the relay acknowledged, and the last one made.
    public var uploaded: UInt64
    /// The last own changeset made.
    public var uploadable: UInt64
    /// The relay log position applied, and the log's head as last heard from the relay.
    public var downloaded: UInt64
    /// The relay's log head as last heard.
    public var downloadable: UInt64

    /// Whether the relay has every own changeset.
    public var isUploadComplete: Bool { uploaded >= uploadable }
    /// Whether everything the relay had is applied.
    public var isDownloadComplete: Bool { downloaded >= downloadable }
}

/// What the driver of a session must do.
public enum SessionAction: Equatable, Sendable {
    /// Send this frame on the connection.
    case send(Frame)
    /// Close the connection (after sending what came before).
    case disconnect
    /// The state changed (for observers).
    case stateChanged(SessionState)
    /// An error for the user. When the session stopped because of it, the state is `.offline`.
    case error(AtollError)
}

/// Timing parameters of a session (milliseconds of the driver's monotonic clock).
public struct SessionTimings: Sendable, Equatable {
    /// Uploads sent and not acknowledged for this long are sent again; a download gap not
    /// filled for this long is asked for again.
    public var retransmitMilliseconds: UInt64

    /// Timings.
    public init(retransmitMilliseconds: UInt64 = 10_000) {
        self.retransmitMilliseconds = retransmitMilliseconds
    }
}

/// The node side of the sync protocol, without I/O: the driver feeds it transport events,
/// received frames, local commit notifications and clock ticks, and carries out the actions it
/// returns (send a frame, close the connection). It reads and writes only the node's file,
/// through its `SyncReplica`.
///
/// ```swift
/// let session = NodeSession(replica: replica)
/// perform(session.start(now: now))                 // -> .stateChanged(.disconnected)
/// perform(session.transportConnected(now: now))    // -> .send(hello)
/// perform(session.receive(frame, now: now))        // welcome, acks, downloads
/// ```
///
/// Use one session from one thread (or actor). Uploads go in batches of at most
/// `SyncLimits.batchChangesetsMax` changesets, with at most `SyncLimits.uploadBatchesInFlightMax`
/// unacknowledged; each download batch is applied in one commit and acknowledged after it. The
/// parts of a split transaction are kept in the file as they come and applied in the commit of
/// the batch that brings the last one (SyncWriter+Stage.swift), so the acknowledgement of a
/// batch never covers anything that a crash could lose.
public final class NodeSession {
    /// The file this session syncs.
    public let replica: SyncReplica
    /// Its retransmission timing.
    public let timings: SessionTimings
    /// The session's state.
    public private(set) var state: SessionState = .offline
    /// The error that stopped the session, if one did.
    public private(set) var lastError: AtollError?
    /// What this node may do in the realm, as the relay said in its last `welcome` (nil: the relay
    /// has no rules, or has not welcomed this node yet).
    public private(set) var permission: RealmPermission?
    /// Remote clock readings capped so far (a peer's clock is too far ahead).
    public private(set) var clockWarnings = 0
    /// What the session does when the relay will never accept this node's unsynced changes
    /// (ClientReset.swift): `.manual()` (stop with the error) unless set.
    public var clientResetMode: ClientResetMode = .manual()
    /// The error of a client reset that `.manual` left to the application
    /// (`performClientReset(_:now:)`), nil when none is pending.
    public private(set) var pendingClientReset: AtollError?
    /// Client resets completed by this session.
    public private(set) var clientResetsCompleted = 0
    /// The stability point this session last collected garbage under (0: none yet;
    /// docs/SYNC.md, "The stability point").
    public private(set) var collectedPoint: UInt64 = 0
    /// The deletion point the last garbage collection dropped deleted objects under (0: none).
    public private(set) var collectedDeletionPoint: UInt64 = 0
    /// What the garbage collections of this session dropped, in total.
    public private(set) var collected = GarbageCollection()
    /// Times the relay said it had forgotten this node (`Welcome.expired`) and the session
    /// recovered by resetting to the relay's state.
    public private(set) var expiryRecoveries = 0
    /// Whether the session is downloading the relay's state for a client reset.
    public var isResetting: Bool { reset != nil }
    /// The client reset in progress: the relay's state as downloaded so far under the node id
    /// the file will get (kept in memory, applied in one commit once complete).
    private var reset: ResetPhase?
    /// Test hook: runs inside the reset's transaction, before its commit (a throw rolls back).
    var resetFault: (() throws -> Void)?

    private struct ResetPhase {
        let error: AtollError
        let mode: ClientResetMode
        let nodeID: NodeID
        var head: UInt64 = 0
        var snapshot: [[UInt8]] = []
        var versionVector: VersionVector?
        var changesets: [Changeset] = []
    }

    private var wantsConnection = false
    private var relayID: NodeID?
    private var relayHead: UInt64 = 0
    private var cursor: UInt64 = 0
    private var uploadSent: UInt64 = 0
    private var uploadInFlight: [UInt64] = []
    private var lastUploadProgress: UInt64 = 0
    private var lastDownloadProgress: UInt64 = 0
    private var marks: [UInt64: UInt64?] = [:]
    private var nextMarkID: UInt64 = 1
    /// Receiving the relay's compacted history: the next chunk expected.
    private var snapshotNext: UInt64?
    /// The cursor a resend was last asked for (asked once per position; the timer asks again).
    private var resendRequestedAt: UInt64?
    /// The clock floor last reported on this connection.
    private var floorSent: UInt64 = 0
    /// A stability point received on this connection and not collected under yet, with the log
    /// position the node must have applied first.
    private var pendingPoint: (point: UInt64, through: UInt64)?
    /// The applied floor last reported on this connection (protocol 6).
    private var appliedSent: UInt64?
    /// A deletion point received on this connection and not collected under yet, with the log
    /// position the node must have applied first.
    private var pendingDeletion: (point: UInt64, through: UInt64)?
    /// Test hook: an upload batch closes once its bodies reach this many bytes (the simulator
    /// spreads transactions over many batches with a small value).
    var uploadBatchBytesMax = SyncLimits.batchBytesMax

    /// A session for `replica`, offline until started.
    public init(replica: SyncReplica, timings: SessionTimings = SessionTimings()) {
        self.replica = replica
        self.timings = timings
        cursor = replica.downloadCursor.seq
    }

    // MARK: control

    /// Starts syncing: the driver should connect the transport.
    public func start(now: UInt64) -> [SessionAction] {
        lastError = nil
        wantsConnection = true
        var actions = recoverPending() + extract()
        if state == .offline { actions += transition(.disconnected) }
        return actions
    }

    /// Stops syncing until `resume()`; local commits still become changesets.
    public func pause() -> [SessionAction] {
        wantsConnection = false
        return stop()
    }

    /// Starts again after a pause or a lost connection; returns what to send.
    public func resume(now: UInt64) -> [SessionAction] { start(now: now) }

    /// Whether the driver should keep a connection open (or reconnect, with backoff).
    public var shouldConnect: Bool { wantsConnection }

    private func stop() -> [SessionAction] {
        var actions: [SessionAction] = []
        if state == .connecting || state == .connected { actions.append(.disconnect) }
        resetConnection()
        return actions + transition(.offline)
    }

    private func transition(_ s: SessionState) -> [SessionAction] {
        guard s != state else { return [] }
        state = s
        return [.stateChanged(s)]
    }

    private func resetConnection() {
        relayID = nil
        uploadInFlight.removeAll()
        snapshotNext = nil
        floorSent = 0
        pendingPoint = nil
        appliedSent = nil
        pendingDeletion = nil
    }

    /// An apply of downloaded data that threw (its batch was rolled back): a malformed payload
    /// is the relay's protocol violation and ends the session; a damaged local file ends it too
    /// (applying again would fail again, and nothing may be merged past a failed read); another
    /// error of the local store is reported and the session reconnects.
    private func applyFailed(_ error: any Error) -> [SessionAction] {
        let e = error as? AtollError ?? AtollError(.ioError, "applying downloaded changes failed: \(error)")
        let malformed = e.kind == .protocolViolation
        return fail(e, code: malformed ? .malformed : nil, fatal: malformed || e.kind == .fileCorrupted)
    }

    /// Ends the session because of `error`: tells the relay (when `code` is given), closes, and
    /// goes offline (fatal) or waits to reconnect.
    private func fail(_ error: AtollError, code: SyncErrorCode?, fatal: Bool) -> [SessionAction] {
        var actions: [SessionAction] = []
        if let code, state == .connecting || state == .connected { actions.append(.send(SyncMessage.error(code: code, message: error.message).frame)) }
        actions.append(.error(error))
        if fatal {
            lastError = error
            wantsConnection = false
            return actions + stop()
        }
        if state == .connecting || state == .connected { actions.append(.disconnect) }
        resetConnection()
        return actions + transition(.disconnected)
    }

    // MARK: transport events

    /// The transport connected (TLS done): sends the handshake.
    public func transportConnected(now: UInt64) -> [SessionAction] {
        guard wantsConnection else { return [.disconnect] }
        resetConnection()
        var actions = extract()
        var hello = SyncMessage.Hello(nodeID: replica.nodeID, realmID: replica.realmID, schemaFingerprint: replica.schemaFingerprint,
                                      cursor: replica.downloadCursor, versionVector: replica.versionVector, schema: replica.schemaDescription)
        if let r = reset {
            // A client reset: the relay's whole state, as a node new to the realm gets it, under
            // the id the file will have (what an earlier connection brought is asked for again).
            reset = ResetPhase(error: r.error, mode: r.mode, nodeID: r.nodeID)
            hello.nodeID = r.nodeID
            hello.cursor = .start
            hello.versionVector = VersionVector()
        }
        actions.append(.send(SyncMessage.hello(hello).frame))
        lastUploadProgress = now
        lastDownloadProgress = now
        return actions + transition(.connecting)
    }

    /// The connection ended (for any reason). In-flight uploads will be sent again.
    public func transportDisconnected(error: AtollError?, now: UInt64) -> [SessionAction] {
        resetConnection()
        var actions: [SessionAction] = []
        if let error, wantsConnection { actions.append(.error(error)) }
        return actions + transition(wantsConnection ? .disconnected : .offline)
    }

    /// A local commit happened (in this or another process): makes changesets and uploads them.
    public func localCommitted(now: UInt64) -> [SessionAction] {
        extract() + pumpUploads(now: now)
    }

    /// Timers: resends unacknowledged uploads, asks for stalled downloads, picks up commits of
    /// other processes that sent no notification.
    public func tick(now: UInt64) -> [SessionAction] {
        var actions = extract()
        guard state == .connected else { return actions }
        if !uploadInFlight.isEmpty, now >= lastUploadProgress + timings.retransmitMilliseconds {
            uploadSent = replica.uploadAcknowledged
            uploadInFlight.removeAll()
            lastUploadProgress = now
        }
        if let next = snapshotNext {
            if now >= lastDownloadProgress + timings.retransmitMilliseconds {
                actions.append(.send(SyncMessage.snapshotAck(next: next, resend: true).frame))
                lastDownloadProgress = now
            }
        } else if relayHead > cursor, now >= lastDownloadProgress + timings.retransmitMilliseconds {
            actions.append(.send(SyncMessage.downloadAck(cursor: cursor, resend: true).frame))
            resendRequestedAt = cursor
            lastDownloadProgress = now
        }
        return actions + pumpUploads(now: now)
    }

    /// A client reset's recovery plan that a crash (or a failed recovery) left in the file is
    /// applied before anything else is extracted.
    private func recoverPending() -> [SessionAction] {
        do {
            if try replica.hasPendingRecovery { try replica.applyPendingRecovery() }
            return []
        } catch {
            return fail(error as? AtollError ?? AtollError(.ioError, "recovering a client reset's changes failed: \(error)"), code: nil, fatal: true)
        }
    }

    private func extract() -> [SessionAction] {
        do {
            try replica.extractLocalChanges()
            return oversizeWarnings()
        } catch let e as AtollError {
            // A local problem (schema changed, storage failure): syncing cannot go on.
            return fail(e, code: nil, fatal: true)
        } catch {
            return []
        }
    }

    /// Local commits too large to ship as one transaction (extracted by any call): the user
    /// learns that other nodes can see them in parts. Not fatal.
    private func oversizeWarnings() -> [SessionAction] {
        replica.takeOversizeWarnings().map { .error($0) }
    }

    // MARK: received frames

    /// Handles a frame from the relay; returns what to send and report.
    public func receive(_ frame: Frame, now: UInt64) -> [SessionAction] {
        let message: SyncMessage
        do {
            message = try SyncMessage(frame: frame)
        } catch let e as AtollError {
            // The message came from the relay: say so (the decoder cannot know who sent it).
            return fail(AtollError(.protocolViolation, "the relay sent an invalid message: \(e.message)"), code: .malformed, fatal: true)
        } catch {
            return []
        }
        switch (state, message) {
        case (.offline, _), (.disconnected, _):
            // A frame of a connection that has ended: nothing to do with it.
            return []
        case (_, .error(let code, let text)):
            let e = AtollError(code.errorKind, "the relay refused: \(text)")
            if !code.isFatal { return [.error(e)] }
            // An upload refused for want of permission (a refused hello comes before the
            // welcome): the relay will never take these changes.
            if code == .permissionDenied, state == .connected, reset == nil { return clientResetNeeded(e, code: nil) }
            // Changes stamped below the realm's stability point: made again, as new writes.
            if code == .belowStabilityPoint, state == .connected, reset == nil { return recoverFromExpiry(e) }
            return fail(e, code: nil, fatal: code != .unavailable)
        case (.connecting, .welcome(let w)):
            return welcome(w, now: now)
        case (.connected, .uploadAck(let through, let resend)):
            return uploadAck(through, resend: resend, now: now)
        case (.connected, .download(let from, let to, let head, let changesets)):
            return download(from: from, to: to, head: head, changesets, now: now)
        case (.connected, .snapshot(let index, let final, let through, let vv, let body)):
            return snapshot(index: index, final: final, through: through, vv, body, now: now)
        case (.connected, .stabilityPoint(let point, let through)):
            if point > max(collectedPoint, pendingPoint?.point ?? 0) { pendingPoint = (point, through) }
            return collectIfStable()
        case (.connected, .deletionPoint(let point, let through)):
            if point > max(collectedDeletionPoint, pendingDeletion?.point ?? 0) { pendingDeletion = (point, through) }
            return collectIfStable()
        case (.connected, .markReply(let id, let head)):
            relayHead = max(relayHead, head)
            if marks[id] != nil { marks[id] = .some(head) }
            return []
        default:
            return fail(AtollError(.protocolViolation, "the relay sent a \(message.kind) message while the session was \(state)"),
                        code: .unexpectedMessage, fatal: true)
        }
    }

    private func welcome(_ w: SyncMessage.Welcome, now: UInt64) -> [SessionAction] {
        guard w.protocolVersion == syncProtocolVersion else {
            return fail(AtollError(.protocolViolation, "the relay speaks sync protocol \(w.protocolVersion); this node speaks \(syncProtocolVersion)"),
                        code: .protocolVersion, fatal: true)
        }
        if reset != nil { return resetWelcome(w, now: now) }
        guard w.uploadedThrough <= replica.lastLocalSeq else {
            return clientResetNeeded(AtollError(.protocolViolation,
                "the relay holds \(w.uploadedThrough) changesets of this node, which made only \(replica.lastLocalSeq): this file was restored from a backup or copied from another node; give it a new identity or sync a fresh copy"),
                        code: .originConflict)
        }
        // The relay's changeset of this number that this node has not seen acknowledged must be
        // this node's own: another digest means a copy of this file (the same node id) made it.
        if w.uploadedThroughDigest != 0, w.uploadedThrough > replica.uploadAcknowledged {
            let own: UInt64?
            do {
                own = try replica.outgoingDigest(of: w.uploadedThrough)
            } catch {
                return fail(error as? AtollError ?? AtollError(.ioError, "reading the outgoing log failed: \(error)"), code: nil, fatal: true)
            }
            if own != w.uploadedThroughDigest {
                return clientResetNeeded(AtollError(.protocolViolation,
                    "the relay's changeset \(w.uploadedThrough) of this node is not the one this file made: this file was copied from another node, or restored from a backup that another copy went on from; give it a new identity or sync a fresh copy"),
                            code: .originConflict)
            }
        }
        guard w.uploadedThrough >= replica.uploadAcknowledged else {
            return clientResetNeeded(AtollError(.protocolViolation,
                "the relay holds \(w.uploadedThrough) changesets of this node but had acknowledged \(replica.uploadAcknowledged): the relay's store was restored from a backup or replaced, and this node's changes since then are lost to the other nodes"),
                        code: nil)
        }
        if let history = w.schemaHistory {
            do {
                try replica.recordRelaySchemaHistory(history, relay: w.relayID)
            } catch {
                return fail(error as? AtollError ?? AtollError(.ioError, "recording the realm's schema history failed: \(error)"), code: nil, fatal: true)
            }
        }
        if w.expired {
            // What the relay stored of this node (checked above to be this file's) is in its
            // state: acknowledged, so that the reset makes again only what it never had.
            replica.acknowledgeUpload(through: w.uploadedThrough)
            return recoverFromExpiry(AtollError(.connectionFailed,
                "the relay had forgotten this node (not seen for longer than its peer expiry): resetting to the relay's state and making this node's unsynced changes again"))
        }
        relayID = w.relayID
        permission = w.permission
        relayHead = w.head
        snapshotNext = w.snapshotFollows ? 0 : nil
        resendRequestedAt = nil
        // Downloads continue after the relay's `start`: this node's cursor, or past history the
        // relay trimmed that this node has (or gets in the snapshot first).
        cursor = replica.downloadCursor.relayID == w.relayID ? replica.downloadCursor.seq : 0
        if !w.snapshotFollows, w.start != cursor {
            cursor = w.start
            replica.advanceCursor(to: DownloadCursor(relayID: w.relayID, seq: w.start))
        }
        replica.acknowledgeUpload(through: w.uploadedThrough)
        uploadSent = replica.uploadAcknowledged
        uploadInFlight.removeAll()
        lastUploadProgress = now
        lastDownloadProgress = now
        var actions = transition(.connected)
        for (id, head) in marks.sorted(by: { $0.key < $1.key }) where head == nil { actions.append(.send(SyncMessage.markRequest(id: id).frame)) }
        // The floors first: the relay refuses uploads made before merging its applied bound
        // unless this node has said it had merged it.
        return actions + reportFloor() + pumpUploads(now: now)
    }

    private func uploadAck(_ through: UInt64, resend: Bool, now: UInt64) -> [SessionAction] {
        guard through <= replica.lastLocalSeq else {
            return fail(AtollError(.protocolViolation, "the relay acknowledged changeset \(through), which this node never made"), code: .malformed, fatal: true)
        }
        if through > replica.uploadAcknowledged { lastUploadProgress = now }
        replica.acknowledgeUpload(through: through)
        uploadInFlight.removeAll { $0 <= through }
        if resend {
            uploadSent = through
            uploadInFlight.removeAll()
        }
        return pumpUploads(now: now) + reportFloor()
    }

    private func pumpUploads(now: UInt64) -> [SessionAction] {
        // During a client reset nothing goes up: the unsynced changes are the reset's to decide.
        guard state == .connected, reset == nil else { return [] }
        // The relay judges uploads by the applied floor reported before them.
        var actions = reportApplied()
        do {
            while uploadInFlight.count < SyncLimits.uploadBatchesInFlightMax {
                let batch = try replica.outgoingChangesets(after: uploadSent, maxBytes: uploadBatchBytesMax)
                guard let last = batch.last else { break }
                actions.append(.send(SyncMessage.upload(batch).frame))
                if uploadInFlight.isEmpty { lastUploadProgress = now }
                uploadSent = last.seq
                uploadInFlight.append(last.seq)
            }
        } catch let e as AtollError {
            return actions + fail(e, code: nil, fatal: false)
        } catch {}
        return actions
    }

    private func download(from: UInt64, to: UInt64, head: UInt64, _ changesets: [Changeset], now: UInt64) -> [SessionAction] {
        relayHead = max(relayHead, head)
        guard snapshotNext == nil else { return [] }
        if reset != nil, from == cursor {
            reset?.changesets += changesets
            cursor = to
            resendRequestedAt = nil
            lastDownloadProgress = now
            return [.send(SyncMessage.downloadAck(cursor: to, resend: false).frame)] + finishResetIfComplete(now: now)
        }
        guard from == cursor else {
            // A repeat (already applied): acknowledge again (the first acknowledgement may have
            // been lost). A gap (something was lost): ask once for the log again from here (the
            // timer asks again if that is lost too).
            if to <= cursor { return [.send(SyncMessage.downloadAck(cursor: cursor, resend: false).frame)] }
            guard resendRequestedAt != cursor else { return [] }
            resendRequestedAt = cursor
            return [.send(SyncMessage.downloadAck(cursor: cursor, resend: true).frame)]
        }
        guard let relayID else { return [] }
        do {
            if changesets.isEmpty {
                // Only positions to pass (this node's own changesets): no commit needed.
                replica.advanceCursor(to: DownloadCursor(relayID: relayID, seq: to))
            } else {
                let report = try replica.apply(changesets, cursor: DownloadCursor(relayID: relayID, seq: to))
                clockWarnings += report.clockCapped
            }
        } catch {
            return applyFailed(error)
        }
        cursor = to
        resendRequestedAt = nil
        lastDownloadProgress = now
        // Local changesets made by the apply's extraction go out too.
        return [.send(SyncMessage.downloadAck(cursor: to, resend: false).frame)] + oversizeWarnings() + pumpUploads(now: now)
            + reportFloor() + collectIfStable()
    }

    private func snapshot(index: UInt64, final: Bool, through: UInt64, _ vv: VersionVector, _ body: [UInt8], now: UInt64) -> [SessionAction] {
        guard let relayID else { return [] }
        guard let next = snapshotNext else {
            // Finished already (or none was announced): the acknowledgement of the last chunk
            // may have been lost, so acknowledge again.
            return [.send(SyncMessage.snapshotAck(next: index + 1, resend: false).frame)]
        }
        guard index == next else {
            if index < next { return [.send(SyncMessage.snapshotAck(next: next, resend: false).frame)] }
            guard resendRequestedAt != next else { return [] }
            resendRequestedAt = next
            return [.send(SyncMessage.snapshotAck(next: next, resend: true).frame)]
        }
        if reset != nil {
            reset?.snapshot.append(body)
            lastDownloadProgress = now
            resendRequestedAt = nil
            snapshotNext = final ? nil : next + 1
            if final {
                reset?.versionVector = vv
                cursor = through
            }
            return [.send(SyncMessage.snapshotAck(next: next + 1, resend: false).frame)] + finishResetIfComplete(now: now)
        }
        do {
            let report = try replica.applySnapshot(body, index: index, relay: relayID,
                                                   completion: final ? (vv, DownloadCursor(relayID: relayID, seq: through)) : nil)
            clockWarnings += report.clockCapped
        } catch {
            return applyFailed(error)
        }
        lastDownloadProgress = now
        resendRequestedAt = nil
        snapshotNext = final ? nil : next + 1
        if final { cursor = through }
        // Once the snapshot is in, a point that came with the welcome can be acted on.
        return [.send(SyncMessage.snapshotAck(next: next + 1, resend: false).frame)] + oversizeWarnings() + pumpUploads(now: now)
            + (final ? collectIfStable() : [])
    }

    // MARK: progress and waiting

    /// Upload and download positions.
    public var progress: SyncProgress {
        SyncProgress(uploaded: replica.uploadAcknowledged, uploadable: replica.lastLocalSeq, downloaded: cursor, downloadable: max(relayHead, cursor))
    }

    /// The sequence number that `waitForUpload` waits for: every local commit made so far,
    /// as changesets (extracted now).
    public func uploadTarget() throws -> UInt64 {
        try replica.extractLocalChanges()
        return replica.lastLocalSeq
    }

    /// Whether the relay has acknowledged own changesets through `seq`.
    public func isUploaded(through seq: UInt64) -> Bool { replica.uploadAcknowledged >= seq }

    /// Starts waiting for "everything the relay has now": asks the relay for its head (now, or
    /// once connected). `isDownloaded(mark:)` turns true once the node has applied that far.
    public func requestDownloadMark() -> (id: UInt64, actions: [SessionAction]) {
        let id = nextMarkID
        nextMarkID += 1
        marks[id] = .some(nil)
        let actions: [SessionAction] = state == .connected ? [.send(SyncMessage.markRequest(id: id).frame)] : []
        return (id, actions)
    }

    /// Whether the node has downloaded everything the relay had when it answered mark `id`.
    public func isDownloaded(mark id: UInt64) -> Bool {
        guard reset == nil, let entry = marks[id], let head = entry else { return false }
        return cursor >= head
    }

    /// Forgets a mark (its waiter went away or is satisfied).
    public func removeMark(_ id: UInt64) { marks[id] = nil }

    // MARK: garbage collection (SyncWriter+Collect.swift, docs/SYNC.md "The stability point")

    /// Tells the relay the node's clock floor when it rose (protocol 5; not while resetting).
    private func reportFloor() -> [SessionAction] {
        guard state == .connected, reset == nil else { return [] }
        let floor: UInt64
        do {
            floor = try replica.clockFloor()
        } catch {
            // Not reported: the relay's point waits (it never moves on a floor it did not get).
            return [.error(error as? AtollError ?? AtollError(.ioError, "reading the outgoing log failed: \(error)"))]
        }
        var actions: [SessionAction] = []
        if floor > floorSent {
            floorSent = floor
            actions.append(.send(SyncMessage.clockFloor(floor).frame))
        }
        return actions + reportApplied()
    }

    /// Tells the relay the node's applied floor when it changed (protocol 6; not while
    /// resetting): before uploads, and after downloads, acknowledgements and collections.
    private func reportApplied() -> [SessionAction] {
        guard state == .connected, reset == nil, let relayID else { return [] }
        let floor: UInt64
        do {
            floor = try replica.appliedFloor(relay: relayID)
        } catch {
            return [.error(error as? AtollError ?? AtollError(.ioError, "reading the staged downloads failed: \(error)"))]
        }
        guard floor != appliedSent else { return [] }
        appliedSent = floor
        return [.send(SyncMessage.appliedFloor(floor).frame)]
    }

    /// Collects garbage under the pending stability point (and deletion point) once the node
    /// has applied the log through the position that came with it.
    ///
    /// First it moves the clock to just below a pending stability point. A node the point
    /// counted has its clock there already (the point is at most its floor, its clock + 1); one
    /// it did not (a node that connected since it was computed) may be behind it, and its next
    /// change would be refused as stamped below the point and make it reset.
    private func collectIfStable() -> [SessionAction] {
        guard state == .connected, reset == nil, snapshotNext == nil else { return [] }
        if let p = pendingPoint?.point, p > 0 {
            do {
                try replica.advanceClock(to: p - 1)
            } catch {
                return applyFailed(error)
            }
        }
        let point = pendingPoint.flatMap { cursor >= $0.through ? $0.point : nil }
        let deletion = pendingDeletion.flatMap { cursor >= $0.through ? $0.point : nil }
        guard point != nil || deletion != nil else { return [] }
        do {
            // nil: parts of a transaction wait unapplied; the point waits for the next download.
            guard let dropped = try replica.collectGarbage(below: point ?? collectedPoint, deletedBelow: deletion ?? collectedDeletionPoint) else { return [] }
            collected += dropped
        } catch {
            return applyFailed(error)
        }
        if let point {
            collectedPoint = point
            pendingPoint = nil
        }
        if let deletion {
            collectedDeletionPoint = deletion
            pendingDeletion = nil
        }
        return reportFloor()
    }

    /// The relay had forgotten this node, or refused its changes as stamped below the realm's
    /// stability point: the synced data becomes the relay's state and the unsynced changes are
    /// made again as new writes (a client reset in a recover mode, whatever `clientResetMode`
    /// says: nothing is lost, so nothing is left to the application).
    private func recoverFromExpiry(_ error: AtollError) -> [SessionAction] {
        let mode: ClientResetMode = clientResetMode.recovers ? clientResetMode : .recoverUnsyncedChanges()
        reset = ResetPhase(error: error, mode: mode, nodeID: newResetNodeID())
        expiryRecoveries += 1
        return fail(error, code: nil, fatal: false)
    }

    // MARK: client reset (ClientReset.swift, SyncReplica+Reset.swift)

    /// The id the node takes for a reset: a random one (the simulator's are seeded).
    private func newResetNodeID() -> NodeID {
        replica.configuration.resetNodeIDs?() ?? NodeID.random()
    }

    /// Resets the file to the relay's state after `.manual` stopped the session with a client
    /// reset error, in `mode` (not `.manual`): the session starts again, downloads the relay's
    /// state and replaces the synced data with it, as the automatic modes do.
    public func performClientReset(_ mode: ClientResetMode, now: UInt64) -> [SessionAction] {
        guard !mode.isManual else { return [.error(AtollError(.invalidArgument, "a client reset needs a mode that resets (.discardUnsyncedChanges or a recover mode), not .manual"))] }
        guard let error = pendingClientReset else { return [.error(AtollError(.invalidArgument, "no client reset is pending: the relay has not refused this node's changes"))] }
        pendingClientReset = nil
        reset = ResetPhase(error: error, mode: mode, nodeID: newResetNodeID())
        var actions = stop()
        actions += start(now: now)
        return actions
    }

    /// The relay will never take this node's unsynced changes (`error` says why): `.manual`
    /// hands them to its handler and stops; the other modes reconnect under a new node id to
    /// download the relay's state (`transportConnected`), then reset (`finishResetIfComplete`).
    private func clientResetNeeded(_ error: AtollError, code: SyncErrorCode?) -> [SessionAction] {
        guard !clientResetMode.isManual else {
            var actions: [SessionAction] = []
            pendingClientReset = error
            if case .manual(let handler?) = clientResetMode {
                do {
                    handler(ClientResetInfo(error: error, unsyncedChanges: try replica.unsyncedChanges(), previousNodeID: replica.nodeID, nodeID: replica.nodeID))
                } catch {
                    actions.append(.error(error as? AtollError ?? AtollError(.ioError, "reading the unsynced changes failed: \(error)")))
                }
            }
            return actions + fail(error, code: code, fatal: true)
        }
        reset = ResetPhase(error: error, mode: clientResetMode, nodeID: newResetNodeID())
        return fail(error, code: code, fatal: false)
    }

    /// The welcome of a connection made for a client reset (the node is new to the relay).
    private func resetWelcome(_ w: SyncMessage.Welcome, now: UInt64) -> [SessionAction] {
        relayID = w.relayID
        permission = w.permission
        relayHead = w.head
        snapshotNext = w.snapshotFollows ? 0 : nil
        resendRequestedAt = nil
        cursor = w.snapshotFollows ? 0 : w.start
        reset?.head = w.head
        uploadSent = 0
        uploadInFlight.removeAll()
        lastUploadProgress = now
        lastDownloadProgress = now
        var actions = transition(.connected)
        for (id, head) in marks.sorted(by: { $0.key < $1.key }) where head == nil { actions.append(.send(SyncMessage.markRequest(id: id).frame)) }
        return actions + finishResetIfComplete(now: now)
    }

    /// Once the relay's state is downloaded whole (the snapshot, and the log up to the head the
    /// welcome named): `beforeReset`, the reset in one commit, the recovery (recover modes) in
    /// the next, `afterReset`; then the session goes on as the node the file now is.
    private func finishResetIfComplete(now: UInt64) -> [SessionAction] {
        guard let r = reset, let relayID, snapshotNext == nil, cursor >= r.head else { return [] }
        var actions: [SessionAction] = []
        let previous = replica.nodeID
        do {
            if let before = r.mode.beforeReset {
                before(ClientResetInfo(error: r.error, unsyncedChanges: try replica.unsyncedChanges(), previousNodeID: previous, nodeID: previous))
            }
            let permission = self.permission
            let recoverable: ((String) -> Bool)? = r.mode.recovers ? { permission?.mayWrite($0) ?? true } : nil
            let outcome = try replica.resetToRelayState(nodeID: r.nodeID, relay: relayID, snapshot: r.snapshot, versionVector: r.versionVector,
                                                        changesets: r.changesets, cursor: DownloadCursor(relayID: relayID, seq: cursor),
                                                        recoverable: recoverable, fault: resetFault)
            // The changes made again must be stamped at or above the realm's stability point:
            // nodes may have collected what an older stamp would need.
            if let p = pendingPoint { try replica.advanceClock(to: p.point) }
            reset = nil
            pendingClientReset = nil
            clientResetsCompleted += 1
            var info = ClientResetInfo(error: r.error, unsyncedChanges: outcome.unsynced, recovered: outcome.recoverable, discarded: outcome.discarded,
                                       previousNodeID: outcome.previousNodeID, nodeID: outcome.nodeID)
            if r.mode.recovers {
                do {
                    try replica.applyPendingRecovery()
                } catch {
                    let e = error as? AtollError ?? AtollError(.ioError, "recovering the unsynced changes failed: \(error)")
                    guard case .recoverOrDiscardUnsyncedChanges = r.mode else {
                        // The relay's state is in place; the plan stays in the file and is
                        // tried again when the session starts.
                        return actions + fail(e, code: nil, fatal: true)
                    }
                    actions.append(.error(e))
                    try replica.dropPendingRecovery()
                    info.discarded = info.unsyncedChanges
                    info.recovered = []
                }
            }
            r.mode.afterReset?(info)
        } catch {
            // Nothing was changed (the transaction rolled back): a malformed download ends the
            // session; otherwise the reset is tried again on the next connection.
            return actions + applyFailed(error)
        }
        return actions + extract() + pumpUploads(now: now)
    }
}
