import Logging
import ServiceLifecycle
import UnixSignals

/// `atoll-relay serve`'s relay as a service of its `ServiceGroup`: the listener, the status
/// endpoint and the relay service start when the group runs (its signal handling is in place by
/// then) and stop, in that order, on the group's graceful shutdown.
struct RelayHostService: Service {
    let start: @Sendable () async throws -> RelayHost
    /// Called once the relay is listening (the start-up line).
    let started: @Sendable (RelayHost) -> Void

    func run() async throws {
        let host = try await start()
        started(host)
        do {
            try await gracefulShutdown()
        } catch {
            // Cancelled (another service failed): the same orderly stop.
        }
        await host.shutdown()
    }
}

/// The process's signals as a service: SIGHUP calls `onHangUp` and goes on; SIGTERM or SIGINT
/// logs and returns, which the group (configured with `.gracefullyShutdownGroup` for this
/// service) turns into a graceful shutdown of the other services, in the reverse of their order.
/// It also ends on the group's graceful shutdown or cancellation. The sequence is made (the
/// signals trapped) at the start of the command, so a signal that arrives before the group runs
/// waits in it instead of killing the process.
struct SignalService: Service {
    let signals: UnixSignalsSequence
    let logger: Logger
    let onHangUp: @Sendable () async -> Void

    func run() async throws {
        for await signal in signals.cancelOnGracefulShutdown() {
            if signal == .sighup {
                await onHangUp()
                continue
            }
            logger.notice("received \(signal == .sigterm ? "SIGTERM" : "SIGINT"), shutting down")
            return
        }
    }
}
