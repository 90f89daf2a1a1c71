import AtollStorage
import CoreMetrics
import Dispatch

/// Drives a `NodeSession` (sans-IO) with real I/O: a TLS connection kept up by `FrameClient`,
/// the file's commit notifications, a timer, and the waiters of `waitForUpload` and
/// `waitForDownload`.
///
/// The driver is an actor on its own thread (`SyncThreadExecutor`): the session's work (extracting
/// commits, applying downloads, each a commit with fdatasync) runs there, never on the event loop
/// or the cooperative pool. Each connection gets an epoch; frames and the end of a connection
/// that is no longer current are ignored, so a late event of an old connection cannot confuse
/// the session. Frames go out through a per-connection stream, in the order the session emitted
/// them.
actor NodeDriver {
    nonisolated let executor: SyncThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let session: NodeSession
    private let client: FrameClient
    private let configuration: SyncConfiguration
    private let publisher: SessionPublisher
    private var watcher: CommitWatcher?
    private var connectTask: Task<Void, Never>?
    /// Connection loops cancelled while the session runs (pause, a fatal error), chained: they may
    /// still be closing their connection, and the client's event loops must outlive that.
    private var retiredConnectTasks: Task<Void, Never>?
    private var tickTask: Task<Void, Never>?
    private var link: Link?
    private var epoch: UInt64 = 0
    /// Whether the current connection attempt got as far as a session (for error reporting).
    private var attemptReachedSession = false
    private var isClosed = false
    private var nextWaiterID: UInt64 = 0
    /// Client resets the session had completed when the upload waiters were last settled.
    private var resetsSettled = 0
    /// The permission the database's write guard enforces (nil: no guard installed).
    private var guardedPermission: RealmPermission?
    private nonisolated let metrics: NodeMetrics
    /// When the oldest upload not yet acknowledged was sent (monotonic ns), for the upload latency.
    private var uploadSentAt: UInt64?
    private var uploadWaiters: [UInt64: (target: UInt64, continuation: CheckedContinuation<Void, any Error>)] = [:]
    private var downloadWaiters: [UInt64: (mark: UInt64, continuation: CheckedContinuation<Void, any Error>)] = [:]

    private struct Link {
        let epoch: UInt64
        let outbound: OutgoingQueue
    }

    init(replica: sending SyncReplica, client: FrameClient, configuration: SyncConfiguration, publisher: SessionPublisher,
         executor: SyncThreadExecutor)
    {
        self.executor = executor
        session = NodeSession(replica: replica, timings: configuration.timings)
        session.clientResetMode = configuration.clientResetMode
        self.client = client
        self.configuration = configuration
        self.publisher = publisher
        metrics = NodeMetrics(factory: configuration.metricsFactory ?? MetricsSystem.factory, realmID: configuration.realmID)
    }

    /// The driver's clock for the session's timers: monotonic milliseconds.
    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds / 1_000_000 }

    // MARK: life cycle

    /// Starts watching the file, the timer and the session (which asks for a connection).
    func begin() {
        // The watcher, the timer and the connection loop hold the driver until `shutdown()` ends
        // them (SyncSession calls it on close and when released).
        watcher = CommitWatcher(database: session.replica.database) { [self] in
            executor.submit { self.assumeIsolated { $0.localCommitted() } }
        }
        let interval = configuration.tickInterval
        tickTask = Task { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                tick()
            }
        }
        perform(session.start(now: Self.now()))
    }

    /// Stops everything: the connection (closed cleanly), the timer, the watcher, the client's
    /// thread; waiters fail with `.closed`. Acknowledgements received so far are written.
    func shutdown() async {
        guard !isClosed else { return }
        isClosed = true
        perform(session.pause())
        connectTask?.cancel()
        await connectTask?.value
        connectTask = nil
        // Loops cancelled earlier (the pause above cancels the current one) must have closed their
        // connections before the client's event loops shut down below.
        await retiredConnectTasks?.value
        retiredConnectTasks = nil
        tickTask?.cancel()
        await tickTask?.value
        tickTask = nil
        await watcher?.stop()
        watcher = nil
        // Persist the relay's acknowledgements and the download position (a commit only when
        // something changed), so a restart does not ask for them again.
        do {
            _ = try session.replica.extractLocalChanges()
        } catch {
            // Not written: a restart asks for them again. Observers hear why.
            publisher.report(error as? AtollError ?? AtollError(.ioError, "\(error)"), connection: false)
        }
        failWaiters(AtollError(.closed, "the sync session was closed"))
        publisher.end()
        session.replica.database.setWriteGuard(nil)
        guardedPermission = nil
        try? await client.shutdown()
    }

    func pause() { perform(session.pause()) }

    func performClientReset(_ mode: ClientResetMode) {
        guard !isClosed else { return }
        perform(session.performClientReset(mode, now: Self.now()))
    }

    func resume() {
        guard !isClosed else { return }
        perform(session.resume(now: Self.now()))
    }

    private func localCommitted() {
        watcher?.acknowledge()
        perform(session.localCommitted(now: Self.now()))
    }

    private func tick() {
        perform(session.tick(now: Self.now()))
    }

    // MARK: actions

    private func perform(_ actions: [SessionAction]) {
        var dropped: AtollError?
        for action in actions {
            switch action {
            case .send(let frame):
                guard let l = link else { continue }
                metrics.bytesSent.increment(by: frame.payload.count)
                if frame.kind == SyncMessage.Kind.upload.rawValue {
                    metrics.changesetsSent.increment(by: FrameCensus.changesetCount(frame))
                    if uploadSentAt == nil { uploadSentAt = DispatchTime.now().uptimeNanoseconds }
                }
                do {
                    try l.outbound.send(frame)
                } catch {
                    // This side's memory budget is spent (the relay does not read what it is
                    // sent): the connection goes, and the session resends after reconnecting.
                    l.outbound.close(error)
                    link = nil
                    dropped = error
                }
            case .disconnect:
                if let l = link {
                    l.outbound.close(nil)
                    link = nil
                }
            case .stateChanged(let state):
                publisher.setState(state, lastError: session.lastError)
            case .error(let error):
                publisher.report(error, connection: false)
            }
        }
        if let dropped {
            perform(session.transportDisconnected(error: dropped, now: Self.now()))
            return
        }
        reconcileConnection()
        publisher.setPermission(session.permission)
        updateWriteGuard()
        settleWaiters()
        publisher.setProgress(session.progress)
    }

    /// Keeps the database's write guard in step with the permission the relay gave in its last
    /// `welcome`: a write transaction of this process that changes a synced class this node may
    /// not write fails before commit with `.permissionDenied` (the relay would refuse it, and the
    /// session would stop). Full permission, or none known, installs no guard.
    private func updateWriteGuard() {
        let permission = session.permission.flatMap { $0.write && $0.writeClasses == nil ? nil : $0 }
        guard permission != guardedPermission else { return }
        guardedPermission = permission
        let database = session.replica.database
        guard let permission else {
            database.setWriteGuard(nil)
            return
        }
        let synced = Set(session.replica.schema.byName.keys)
        let realm = session.replica.realmID
        database.setWriteGuard { changed in
            for name in changed where synced.contains(name) && !permission.mayWrite(name) {
                throw AtollError(.permissionDenied, permission.write
                    ? "class '\(name)' is read-only in realm '\(realm)' for this node (the relay's rules let it change only \(permission.writeClasses?.joined(separator: ", ") ?? "")); the write transaction was not committed"
                    : "realm '\(realm)' is read-only for this node (the relay's rules); the write transaction was not committed")
            }
        }
    }

    /// Keeps a connection loop running exactly while the session wants one.
    private func reconcileConnection() {
        if session.shouldConnect, !isClosed {
            guard connectTask == nil else { return }
            let client = self.client, policy = configuration.reconnect
            // On the driver's own thread, like the driver: see SyncThreadExecutor.
            connectTask = Task(executorPreference: executor) { [self] in
                await client.run(reconnect: policy, onEvent: { event in
                    self.executor.submit { self.assumeIsolated { $0.clientEvent(event) } }
                }, session: { connection in
                    try await self.run(connection)
                })
            }
        } else if let task = connectTask {
            task.cancel()
            connectTask = nil
            let previous = retiredConnectTasks
            retiredConnectTasks = Task {
                await previous?.value
                await task.value
            }
        }
    }

    /// Failed connection attempts (refused, unreachable, certificate rejected) never reach a
    /// session; they are reported here. The end of a session is reported by the session.
    private func clientEvent(_ event: ClientEvent) {
        switch event {
        case .connecting:
            attemptReachedSession = false
        case .disconnected(let error?) where !attemptReachedSession:
            publisher.report(error, connection: true)
        default:
            break
        }
    }

    // MARK: one connection

    /// Runs one admitted connection: hands it to the session, then pumps frames both ways until
    /// either direction ends.
    private nonisolated func run(_ connection: FrameConnection) async throws {
        let (queue, outbound) = OutgoingQueue.make(for: connection)
        guard let epoch = await attach(queue) else { return }
        metrics.connections.increment()
        metrics.connected.increment()
        let failure = await connection.pump(outbound, of: queue) { frame in await self.received(frame, epoch: epoch) }
        await detach(epoch, error: failure)
        metrics.connected.decrement()
    }

    private func attach(_ outbound: OutgoingQueue) -> UInt64? {
        attemptReachedSession = true
        guard session.shouldConnect, !isClosed else {
            outbound.finish()
            return nil
        }
        epoch += 1
        link = Link(epoch: epoch, outbound: outbound)
        perform(session.transportConnected(now: Self.now()))
        return link?.epoch
    }

    private func received(_ frame: Frame, epoch: UInt64) {
        guard link?.epoch == epoch else { return }
        metrics.bytesReceived.increment(by: frame.payload.count)
        switch SyncMessage.Kind(rawValue: frame.kind) {
        case .download?:
            metrics.changesetsReceived.increment(by: FrameCensus.changesetCount(frame))
        case .uploadAck?:
            if let sent = uploadSentAt {
                metrics.uploadLatency.recordNanoseconds(Int64(clamping: DispatchTime.now().uptimeNanoseconds - sent))
                uploadSentAt = nil
            }
        case .error?:
            if case .error(let code, _)? = try? SyncMessage(frame: frame) { metrics.errorReceived(code) }
        default:
            break
        }
        perform(session.receive(frame, now: Self.now()))
    }

    private func detach(_ epoch: UInt64, error: AtollError?) {
        // A connection the session closed itself has already been forgotten.
        guard let l = link, l.epoch == epoch else { return }
        l.outbound.finish()
        link = nil
        uploadSentAt = nil
        let reported = error.flatMap { $0.kind == .cancelled ? nil : $0 }
        perform(session.transportDisconnected(error: reported, now: Self.now()))
    }

    // MARK: waiting

    func waitForUpload() async throws {
        if let error = stoppedError { throw error }
        perform(session.localCommitted(now: Self.now()))
        let target = try session.uploadTarget()
        if session.isUploaded(through: target) { return }
        if let error = stoppedError { throw error }
        let id = newWaiterID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    c.resume(throwing: AtollError(.cancelled, "waiting for the upload was cancelled"))
                } else {
                    uploadWaiters[id] = (target, c)
                }
            }
        } onCancel: { [executor] in
            executor.submit { self.assumeIsolated { $0.cancelWaiter(id) } }
        }
    }

    func waitForDownload() async throws {
        if let error = stoppedError { throw error }
        let (mark, actions) = session.requestDownloadMark()
        let id = newWaiterID()
        perform(actions)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    session.removeMark(mark)
                    c.resume(throwing: AtollError(.cancelled, "waiting for the download was cancelled"))
                } else if session.isDownloaded(mark: mark) {
                    session.removeMark(mark)
                    c.resume()
                } else {
                    downloadWaiters[id] = (mark, c)
                }
            }
        } onCancel: { [executor] in
            executor.submit { self.assumeIsolated { $0.cancelWaiter(id) } }
        }
    }

    private func newWaiterID() -> UInt64 {
        nextWaiterID += 1
        return nextWaiterID
    }

    /// The error that stopped the session for good (fatal, or closed).
    private var stoppedError: AtollError? {
        if isClosed { return AtollError(.closed, "the sync session was closed") }
        if session.state == .offline, let e = session.lastError { return e }
        return nil
    }

    private func cancelWaiter(_ id: UInt64) {
        let cancelled = AtollError(.cancelled, "waiting for sync was cancelled")
        if let w = uploadWaiters.removeValue(forKey: id) { w.continuation.resume(throwing: cancelled) }
        if let w = downloadWaiters.removeValue(forKey: id) {
            session.removeMark(w.mark)
            w.continuation.resume(throwing: cancelled)
        }
    }

    private func settleWaiters() {
        if let error = stoppedError {
            failWaiters(error)
            return
        }
        if session.clientResetsCompleted != resetsSettled {
            // A client reset renumbered the file's changesets (a new node id): what a waiter
            // waited for is discarded or made again, so it now waits for every changeset made.
            resetsSettled = session.clientResetsCompleted
            let target = session.progress.uploadable
            for (id, w) in uploadWaiters { uploadWaiters[id] = (target, w.continuation) }
        }
        for (id, w) in uploadWaiters where session.isUploaded(through: w.target) {
            uploadWaiters[id] = nil
            w.continuation.resume()
        }
        for (id, w) in downloadWaiters where session.isDownloaded(mark: w.mark) {
            downloadWaiters[id] = nil
            session.removeMark(w.mark)
            w.continuation.resume()
        }
    }

    private func failWaiters(_ error: AtollError) {
        let uploads = uploadWaiters.values, downloads = downloadWaiters.values
        uploadWaiters = [:]
        downloadWaiters = [:]
        for w in uploads { w.continuation.resume(throwing: error) }
        for w in downloads {
            session.removeMark(w.mark)
            w.continuation.resume(throwing: error)
        }
    }

    // MARK: reading

    var nodeID: NodeID { session.replica.nodeID }
}
