import AtollStorage
import Synchronization

/// What a node driver or the relay queues for one connection.
enum OutgoingFrame: Sendable {
    case frame(Frame)
    /// Open the session (raise the frame limits, `FrameConnection.beginSession()`) before what
    /// follows is sent.
    case beginSession
    /// Close after what came before; with an error, the peer gets it in a goodbye first.
    case close(AtollError?)
}

/// A connection's queue of outgoing frames, filled by a driver's actor and emptied by `pump`.
/// A queued frame's bytes (and `entryOverheadBytes` for the entry itself) are charged to the
/// connection's share of the memory budget until it is handed to the transport. While
/// `framesQueuedReadPause` frames wait, the pump reads nothing more from the peer (its requests
/// wait in TCP, not in memory, and a burst is answered at the pace it is read); and at most
/// `framesQueuedMax` frames wait at all: past that `send` refuses, and the driver closes the
/// connection.
struct OutgoingQueue: Sendable {
    let continuation: AsyncStream<OutgoingFrame>.Continuation
    let account: BufferAccount
    let depth: QueueDepth

    /// Frames queued for one connection and not yet handed to the transport. The protocol keeps
    /// a reading peer far below it (4 batches in flight each way, one answer per request).
    static let framesQueuedMax = 1024
    /// While this many frames are queued for the peer, nothing more is read from it.
    static let framesQueuedReadPause = 64
    /// What an entry costs beyond its payload (the frame, the array header, the stream's node).
    static let entryOverheadBytes = 128

    /// Frames waiting in one queue; shared by the producer and the pump, whose reading side may
    /// wait for it to fall below `framesQueuedReadPause`.
    final class QueueDepth: Sendable {
        private let state = AtollLock<(count: Int, waiter: CheckedContinuation<Void, Never>?)>((0, nil))

        var count: Int { state.withLock { $0.count } }

        func increment() { state.withLock { $0.count += 1 } }

        func decrement() {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.count -= 1
                guard state.count < OutgoingQueue.framesQueuedReadPause else { return nil }
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }

        /// Returns once fewer than `framesQueuedReadPause` frames are queued, or the task is
        /// cancelled. One waiter at a time (the pump's reading side).
        func waitToRead() async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ready = state.withLock { state -> Bool in
                        guard state.count >= OutgoingQueue.framesQueuedReadPause, !Task.isCancelled else { return true }
                        state.waiter = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
        }
    }

    init(continuation: AsyncStream<OutgoingFrame>.Continuation, account: BufferAccount) {
        self.continuation = continuation
        self.account = account
        depth = QueueDepth()
    }

    static func make(for connection: FrameConnection) -> (queue: OutgoingQueue, stream: AsyncStream<OutgoingFrame>) {
        let (stream, continuation) = AsyncStream<OutgoingFrame>.makeStream()
        return (OutgoingQueue(continuation: continuation, account: connection.account), stream)
    }

    static func chargedBytes(_ frame: Frame) -> Int { frame.payload.count + entryOverheadBytes }

    /// Queues `frame`, or throws `.limitExceeded` (nothing queued) when the queue is full or the
    /// budget cannot hold it.
    func send(_ frame: Frame) throws(AtollError) {
        guard depth.count < Self.framesQueuedMax else {
            throw AtollError(.limitExceeded, "the peer does not read what it is sent: \(Self.framesQueuedMax) frames are queued for it (framesQueuedMax); closing this connection")
        }
        try account.reserve(Self.chargedBytes(frame), for: "an outgoing frame of \(frame.payload.count) bytes")
        depth.increment()
        continuation.yield(.frame(frame))
    }

    /// Called by the pump once `frame` is in the transport's hands.
    func sent(_ frame: Frame) {
        depth.decrement()
        account.release(Self.chargedBytes(frame))
    }

    func beginSession() { continuation.yield(.beginSession) }

    /// Closes the connection after what is queued (telling the peer `error`), and ends the queue.
    func close(_ error: AtollError?) {
        continuation.yield(.close(error))
        continuation.finish()
    }

    /// Ends the queue without a close of its own (the connection is ending anyway).
    func finish() { continuation.finish() }
}

extension FrameConnection {
    /// Pumps frames both ways until either direction ends: `outbound` to the peer (in order,
    /// ending on `.close` or when the stream finishes), and every inbound frame to `received`.
    /// Returns the error that ended the connection, nil for a clean end.
    func pump(_ outbound: AsyncStream<OutgoingFrame>, of queue: OutgoingQueue, received: @escaping @Sendable (Frame) async -> Void) async -> AtollError? {
        await withTaskGroup(of: AtollError?.self) { group -> AtollError? in
            group.addTask {
                do {
                    for await item in outbound {
                        switch item {
                        case .frame(let frame):
                            try await self.send(frame)
                            // Now in the codec's hands, which counts it until the socket takes it.
                            queue.sent(frame)
                        case .beginSession:
                            await self.beginSession()
                        case .close(let error):
                            await self.close(error: error)
                            return nil
                        }
                    }
                    return nil
                } catch {
                    return error as? AtollError ?? AtollError(.connectionFailed, "\(error)")
                }
            }
            group.addTask {
                do {
                    for try await frame in self.inbound {
                        await received(frame)
                        // Answers are piling up: read on once they have gone out.
                        if queue.depth.count >= OutgoingQueue.framesQueuedReadPause { await queue.depth.waitToRead() }
                    }
                    return nil
                } catch {
                    return error as? AtollError ?? AtollError(.connectionFailed, "\(error)")
                }
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
