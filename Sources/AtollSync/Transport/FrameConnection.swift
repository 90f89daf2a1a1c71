public import AtollStorage
import NIOCore

/// One authenticated connection carrying frames, handed to the server's connection handler or to
/// the client's session. Safe to use from any task: several tasks may send at once (frames from
/// one `send` call stay together and in order).
///
/// The connection lives as long as the handler or session it was given to; when that returns, the
/// connection is closed. Backpressure works both ways: `send` suspends while the peer is not
/// reading, and a consumer that stops iterating `inbound` makes the transport stop reading.
///
/// ```swift
/// for try await frame in connection.inbound {
///     try await connection.send(reply(to: frame))
/// }
/// ```
public final class FrameConnection: Sendable {
    /// Who the peer is (certificate common name or token name, and address).
    public let peer: PeerIdentity
    /// Frames from the peer, in order. Ends when the peer closes cleanly; throws an `AtollError`
    /// when the connection fails (for example `.protocolViolation` for a bad frame, `.timeout`
    /// for a dead peer, or the error the peer sent in its goodbye).
    public let inbound: InboundFrames
    /// The limits this connection enforces; `send` refuses payloads over `payloadBytesMax`.
    public let limits: FrameLimits
    private let outbound: NIOAsyncChannelOutboundWriter<Frame>
    private let channel: any Channel
    /// This connection's share of the transport's memory budget.
    let account: BufferAccount

    init(peer: PeerIdentity, limits: FrameLimits, inbound: NIOAsyncChannelInboundStream<Frame>, outbound: NIOAsyncChannelOutboundWriter<Frame>,
         channel: any Channel, account: BufferAccount)
    {
        self.peer = peer
        self.limits = limits
        self.inbound = InboundFrames(base: inbound, account: account)
        self.outbound = outbound
        self.channel = channel
        self.account = account
    }

    /// Opens the session: from now on the peer may send frames up to `limits` (until now it was
    /// held to the server's `limitsBeforeSession`, when one is configured). Call once the peer's
    /// handshake is accepted and before answering it, so that whatever the peer sends after the
    /// answer is read under the full limits. Does nothing on a client or without such limits.
    public func beginSession() async {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        channel.triggerUserOutboundEvent(SessionOpened(), promise: promise)
        do {
            try await promise.futureResult.get()
        } catch {
            // The channel closed meanwhile: sending the answer fails as well, and says so.
        }
    }

    /// Queues `frame` for the peer, suspending while the connection's send buffer is full.
    /// Returning does not mean the peer has received it; acknowledgements are the protocol's job.
    ///
    /// - Throws: `AtollError(.limitExceeded)` for a payload over `limits.payloadBytesMax` and
    ///   `.invalidArgument` for a kind reserved for the transport (nothing is sent, the
    ///   connection stays up); `.closed` once the connection is closed.
    public func send(_ frame: Frame) async throws {
        try check(frame)
        do {
            try await outbound.write(frame)
        } catch {
            throw AtollError(.closed, "cannot send: the connection to \(peer.name) is closed")
        }
    }

    /// Queues several frames, written together (one flush, coalesced into as few TLS records as
    /// their size allows).
    public func send(contentsOf frames: [Frame]) async throws {
        for frame in frames { try check(frame) }
        do {
            try await outbound.write(contentsOf: frames)
        } catch {
            throw AtollError(.closed, "cannot send: the connection to \(peer.name) is closed")
        }
    }

    private func check(_ frame: Frame) throws {
        guard frame.payload.count <= limits.payloadBytesMax else {
            throw AtollError(.limitExceeded, "frame payload of \(frame.payload.count) bytes exceeds payloadBytesMax (\(limits.payloadBytesMax)); split the message")
        }
        guard !frame.isTransportControl else {
            throw AtollError(.invalidArgument, "frame kind 0x\(String(frame.kind, radix: 16)) is reserved for the transport (protocol kinds are below 0xF0)")
        }
    }

    /// Closes the connection. With an error, the peer first receives it (a goodbye frame) so it can
    /// report why; without one, the close is a clean end of stream. Returns once closed.
    public func close(error: AtollError? = nil) async {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        channel.triggerUserOutboundEvent(CloseRequest(error: error), promise: promise)
        _ = try? await promise.futureResult.get()
        _ = try? await channel.closeFuture.get()
    }

    /// Whether the connection is still open.
    public var isOpen: Bool { channel.isActive }
}

/// The frames a peer sends, as an async sequence. Iterate it from one task.
///
/// A frame's bytes count against the transport's memory budget until the iterator is asked for
/// the next one: the consumer's work on a frame is covered by the budget.
public struct InboundFrames: AsyncSequence, Sendable {
    public typealias Element = Frame
    let base: NIOAsyncChannelInboundStream<Frame>
    let account: BufferAccount

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: NIOAsyncChannelInboundStream<Frame>.AsyncIterator
        let account: BufferAccount
        /// Bytes of the frame returned last, released on the next call.
        var delivered = 0

        public mutating func next() async throws -> Frame? {
            account.release(delivered)
            delivered = 0
            do {
                let frame = try await base.next()
                delivered = frame?.payload.count ?? 0
                return frame
            } catch let error as AtollError {
                throw error
            } catch is CancellationError {
                throw AtollError(.cancelled, "receiving was cancelled")
            } catch {
                throw AtollError(.connectionFailed, "connection error: \(error)")
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), account: account)
    }
}
