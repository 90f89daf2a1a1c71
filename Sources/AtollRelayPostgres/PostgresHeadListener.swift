import AtollStorage
package import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// The relay's dedicated `LISTEN atoll_relay` connection: other relays' head notifications
/// become `onHint(realm, head)`. A notification is only a hint (it may be lost: the connection
/// drops, a relay dies between its commit and its notification), so after every (re)connection
/// `onConnected` runs (the relay re-reads the heads of its realms), and the relay also polls the
/// heads about once a second. A lost connection is retried with backoff (100 ms doubling to 5 s)
/// until `stop()`.
package final class PostgresHeadListener: Sendable {
    private let task: AtollLock<Task<Void, Never>?> = AtollLock(nil)

    private init() {}

    package static func start(location: PostgresLocation, logger: Logger,
                              onHint: @escaping @Sendable (String, UInt64) async -> Void,
                              onConnected: @escaping @Sendable () async -> Void) -> PostgresHeadListener
    {
        let listener = PostgresHeadListener()
        let configuration = PostgresSession(location: location, logger: logger).configuration
        let task = Task {
            var backoffMilliseconds: Int64 = 100
            var attempt = 0
            var wasConnected = true
            while !Task.isCancelled {
                attempt += 1
                do {
                    let connection = try await PostgresConnection.connect(configuration: configuration, id: attempt, logger: logger)
                    defer { PostgresSession.closeLater(connection) }
                    if !wasConnected { logger.notice("PostgreSQL notifications work again") }
                    wasConnected = true
                    backoffMilliseconds = 100
                    try await withTaskCancellationHandler {
                        try await connection.listen(on: PostgresRelayStore.channel) { notifications in
                            // Listening: whatever was missed before is read now.
                            await onConnected()
                            for try await notification in notifications {
                                guard let hint = PostgresRelayStore.parseNotification(notification.payload) else { continue }
                                await onHint(hint.realmID, hint.head)
                            }
                        }
                    } onCancel: {
                        PostgresSession.closeLater(connection)
                    }
                    // The notifications ended without an error: the connection closed cleanly.
                    throw AtollError(.connectionFailed, "the server closed the connection")
                } catch {
                    if Task.isCancelled { return }
                    if wasConnected {
                        logger.warning("lost the PostgreSQL notification connection (\(PostgresSession.describe(error))); reconnecting, and polling heads meanwhile")
                    }
                    wasConnected = false
                }
                if Task.isCancelled { return }
                do {
                    try await Task.sleep(for: .milliseconds(backoffMilliseconds))
                } catch {
                    return
                }
                backoffMilliseconds = min(5000, backoffMilliseconds * 2)
            }
        }
        listener.task.withLock { $0 = task }
        return listener
    }

    /// Ends the connection and the retries.
    package func stop() async {
        let task = self.task.withLock { t -> Task<Void, Never>? in
            defer { t = nil }
            return t
        }
        task?.cancel()
        await task?.value
    }
}
