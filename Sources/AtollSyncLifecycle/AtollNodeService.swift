import AtollStorage
public import AtollSync
public import ServiceLifecycle

/// A node's sync session as a swift-service-lifecycle `Service`: add it to the `ServiceGroup` of
/// a server process, and the group's graceful shutdown (SIGTERM, for example) closes the session
/// cleanly with the process's other services.
///
/// The session syncs from `SyncSession.start` on; ``run()`` keeps it until the group shuts down
/// gracefully (or its task is cancelled) and then closes it: the connection is closed cleanly
/// and the acknowledgements received so far are written. Commits that were not uploaded yet stay
/// in the file and are uploaded by the next session on it.
///
/// When the session stops for good on its own (an error that retrying cannot fix: another
/// realm's file, a schema or a permission the relay refuses; `SyncSession.lastError`), ``run()``
/// closes it and throws that error, which by default ends the whole group with it.
///
/// ```swift
/// let session = try SyncSession.start(database: database, configuration: configuration)
/// let group = ServiceGroup(services: [AtollNodeService(session: session), apiServer],
///                          gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// A group shuts its services down in the reverse of their order: put the node before the
/// services that write through it, so their last writes are made before the session closes.
public struct AtollNodeService: Service {
    /// The session this service runs.
    public let session: SyncSession

    /// A service that owns `session` from now on: ``run()`` closes it when it ends.
    public init(session: SyncSession) {
        self.session = session
    }

    /// Keeps the session until graceful shutdown or cancellation, then closes it.
    ///
    /// - Throws: the `AtollError` that stopped the session for good, when it stops on its own.
    public func run() async throws {
        var failure: AtollError?
        // The states end on graceful shutdown (cancelOnGracefulShutdown), on the task's
        // cancellation, and when the session is closed elsewhere.
        for await state in session.states.cancelOnGracefulShutdown() {
            if state == .offline, let error = session.lastError {
                failure = error
                break
            }
        }
        await session.close()
        if let failure { throw failure }
    }
}
