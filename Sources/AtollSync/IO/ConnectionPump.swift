import AtollStorage

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
/// A queued frame's bytes are charged to the connection's share of the memory budget until it is
/// handed to the transport, so no peer that stops reading can make a queue grow past the budget:
/// `send` refuses instead, and the driver closes that connection.
struct OutgoingQueue: Sendable {
    let continuation: AsyncStream<OutgoingFrame>.Continuation
    let account: BufferAccount

    static func make(for connection: FrameConnection) -> (queue: OutgoingQueue, stream: AsyncStream<OutgoingFrame>) {
        let (stream, continuation) = AsyncStream<OutgoingFrame>.makeStream()
        return (OutgoingQueue(continuation: continuation, account: connection.account), stream)
    }

    /// Queues `frame`, or throws `.limitExceeded` (nothing queued) when the budget cannot hold it.
    func send(_ frame: Frame) throws(AtollError) {
        try account.reserve(frame.payload.count, for: "an outgoing frame of \(frame.payload.count) bytes")
        continuation.yield(.frame(frame))
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
    func pump(_ outbound: AsyncStream<OutgoingFrame>, received: @escaping @Sendable (Frame) async -> Void) async -> AtollError? {
        await withTaskGroup(of: AtollError?.self) { group -> AtollError? in
            group.addTask {
                do {
                    for await item in outbound {
                        switch item {
                        case .frame(let frame):
                            try await self.send(frame)
                            // Now in the codec's hands, which counts it until the socket takes it.
                            self.account.release(frame.payload.count)
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
                    for try await frame in self.inbound { await received(frame) }
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
