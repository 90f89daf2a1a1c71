import ServiceLifecycle
import UnixSignals

/// SIGTERM and SIGINT as a service of a command's `ServiceGroup`: the first of them calls
/// `onSignal` and returns, which the group (configured with `.gracefullyShutdownGroup` for this
/// service) turns into a graceful shutdown of its other services, in the reverse of their order.
/// It also ends on the group's graceful shutdown or cancellation. The sequence is made (the
/// signals trapped) before the command starts anything, so a signal that arrives before the
/// group runs waits in it instead of killing the process.
struct SignalService: Service {
    let signals: UnixSignalsSequence
    let onSignal: @Sendable (UnixSignal) -> Void

    func run() async throws {
        for await signal in signals.cancelOnGracefulShutdown() {
            onSignal(signal)
            return
        }
    }
}
