import Dispatch
import AtollStorage
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM and SIGINT as an async value, plus a way for the command itself to stop the wait
/// (`node`, `studio`).
final class TerminationSignals: Sendable {
    private let stream: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation
    private let sources: AtollLock<[any DispatchSourceSignal]>

    init() {
        (stream, continuation) = AsyncStream<Int32>.makeStream()
        let continuation = self.continuation
        sources = AtollLock([SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        })
    }

    func interrupt() { continuation.yield(0) }

    func next() async -> Int32 {
        for await number in stream { return number }
        return SIGTERM
    }
}
