public import AtollStorage
public import Dispatch

/// A running sync session between one file and a relay.
///
/// The session ships every commit made to the file (by this process or any other, also those
/// made while no session ran) and merges what other nodes wrote, each downloaded batch in one
/// commit that raises ordinary notifications: live `Results` and objects on the file update
/// with correct change sets. It keeps a connection to the relay, reconnecting with backoff,
/// until `pause()` or `close()`, or until an error that retrying cannot fix (the state is then
/// `.offline` and `lastError` says why).
///
/// ```swift
/// let session = try realm.sync(with: configuration)
/// let token = session.observe { event in print(event) }
/// try realm.write { realm.add(item) }
/// try await session.waitForUpload()      // the relay has stored it
/// try await session.waitForDownload()    // everything the relay had is applied here
/// await session.close()
/// ```
///
/// All members are safe to call from any thread or task.
public final class SyncSession: Sendable {
    /// What the session was started with.
    public let configuration: SyncConfiguration
    /// This file's node id when the session started (created when sync first started on it; a
    /// client reset gives the file a new one, see `ClientResetInfo.nodeID`).
    public let nodeID: NodeID
    /// The file's path, or its in-memory name.
    public let databaseName: String
    private let driver: NodeDriver
    let publisher: SessionPublisher
    private let lock: SessionLock

    private init(configuration: SyncConfiguration, nodeID: NodeID, databaseName: String, driver: NodeDriver, publisher: SessionPublisher,
                 lock: SessionLock)
    {
        self.configuration = configuration
        self.nodeID = nodeID
        self.databaseName = databaseName
        self.driver = driver
        self.publisher = publisher
        self.lock = lock
    }

    /// Starts syncing `database`. Opening sync on a file the first time gives it a node id and
    /// binds it to the realm; the existing data then becomes the node's first changesets.
    ///
    /// - Throws: `.schemaMismatch` when a synced class has no primary key or the synced schema
    ///   changed since sync started on the file; `.invalidArgument` when the file belongs to
    ///   another realm or the realm id is empty; `.fileNotFound` / `.invalidArgument` for TLS
    ///   files that cannot be used; `.fileLocked` when a session already runs on the file (in
    ///   this process or another, such as `atoll node`). Connection problems are not thrown: the
    ///   session retries and reports them as `.error` events.
    public static func start(database: Database, configuration: SyncConfiguration) throws -> SyncSession {
        guard !database.configuration.readOnly else {
            throw AtollError(.readOnly, "'\(database.displayName)' is open read-only and cannot sync; open it writable")
        }
        let lock = try SessionLock(database: database)
        let client = try FrameClient(host: configuration.relay.host, port: configuration.relay.port, tls: configuration.tls,
                                     configuration: configuration.transport)
        let replica: SyncReplica
        do {
            replica = try SyncReplica.open(database, configuration: configuration.replicaConfiguration)
        } catch {
            Task { try? await client.shutdown() }
            throw error
        }
        let nodeID = replica.nodeID
        let publisher = SessionPublisher()
        let executor = SyncThreadExecutor(name: "atoll-sync")
        let driver = NodeDriver(replica: replica, client: client, configuration: configuration, publisher: publisher, executor: executor)
        executor.submit { driver.assumeIsolated { $0.begin() } }
        return SyncSession(configuration: configuration, nodeID: nodeID, databaseName: database.displayName, driver: driver, publisher: publisher,
                           lock: lock)
    }

    // MARK: state

    /// Where the session stands: `.connected` while changesets flow; `.disconnected` or
    /// `.connecting` while it (re)connects; `.offline` when paused, closed or stopped by an error.
    public var state: SessionState { publisher.snapshot.state }

    /// Changesets uploaded (acknowledged by the relay) of those made, and relay log positions
    /// applied of those the relay announced.
    public var progress: SyncProgress { publisher.snapshot.progress }

    /// The error that stopped the session (state `.offline`), if one did.
    public var lastError: AtollError? { publisher.snapshot.lastError }

    /// The last failed attempt to reach the relay since the session was last connected
    /// (unreachable, refused certificate...), nil once connected.
    public var connectionError: AtollError? { publisher.snapshot.connectionError }

    /// What the relay's rules let this node do in the realm, as the relay said when the session
    /// last connected: nil until then, and when the relay has no rules (every node may read and
    /// write everything). A write transaction that changes a synced class the node may not write
    /// fails before commit with `.permissionDenied`.
    public var permission: RealmPermission? { publisher.snapshot.permission }

    /// Calls `handler` with every state change, progress step and error, in order, on `queue`
    /// (default: a serial queue of the observation's own). Keep the returned observation.
    public func observe(queue: DispatchQueue? = nil, _ handler: @escaping @Sendable (SyncEvent) -> Void) -> SyncObservation {
        publisher.observe(queue: queue, handler)
    }

    /// The events from now on, as an async sequence (ends when the iterating task is cancelled).
    public var events: AsyncStream<SyncEvent> {
        let (stream, continuation) = AsyncStream<SyncEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let observation = publisher.observe(queue: nil) { continuation.yield($0) }
        continuation.onTermination = { _ in observation.invalidate() }
        return stream
    }

    // MARK: control

    /// Returns once the relay has stored every commit made to the file so far (by anyone). After
    /// a client reset it returns once the relay has what the file then holds (the changes a
    /// recover mode made again; nothing more in discard mode).
    ///
    /// - Throws: the session's error if it stops for good meanwhile, `.closed` after `close()`,
    ///   `.cancelled` when the calling task is cancelled. While paused or disconnected it waits.
    public func waitForUpload() async throws {
        try await driver.waitForUpload()
    }

    /// Returns once the file holds everything the relay had stored when this was called
    /// (asking the relay for its head first, once connected).
    ///
    /// - Throws: like `waitForUpload()`.
    public func waitForDownload() async throws {
        try await driver.waitForDownload()
    }

    /// Stops syncing (closing the connection) until `resume()`. Commits are still recorded and
    /// are shipped after `resume()`.
    public func pause() {
        driver.executor.submit { [driver] in driver.assumeIsolated { $0.pause() } }
    }

    /// Syncs again after `pause()`, or after an error stopped the session.
    public func resume() {
        driver.executor.submit { [driver] in driver.assumeIsolated { $0.resume() } }
    }

    /// After `.manual` client reset mode stopped the session (the relay will never accept the
    /// node's unsynced changes), resets the file to the relay's state in `mode`
    /// (`.discardUnsyncedChanges` or a recover mode) and syncs again. Errors (none pending, or
    /// `.manual` given) are reported as `.error` events.
    public func performClientReset(_ mode: ClientResetMode) {
        driver.executor.submit { [driver] in driver.assumeIsolated { $0.performClientReset(mode) } }
    }

    /// Ends the session: closes the connection cleanly, stops its threads and fails pending
    /// waits with `.closed`. The file keeps its sync state; a later session resumes from it.
    public func close() async {
        await driver.shutdown()
        lock.release()
    }

    deinit {
        // The sync thread ends only here, once nothing can call into the driver any more.
        // The file lock is held until the driver has stopped, so no new session overlaps it.
        let driver = self.driver, lock = self.lock
        Task {
            await driver.shutdown()
            lock.release()
            driver.executor.stop()
        }
    }
}
