import AtollStorage
import NIOCore

/// Moves frames between the byte stream and the pipeline using the sans-IO codec: bytes in,
/// `Frame`s out; `Frame`s in, bytes out. It knows nothing of what frames mean.
///
/// Received frames are held to limits that grow with trust: until the control handler reports the
/// peer admitted (`PeerAdmitted`), to `FrameLimits.admission` (only small transport frames are
/// legitimate then, and an unauthenticated peer must not make the connection buffer a full-size
/// frame); then, when the server is configured with `limitsBeforeSession`, to those until the
/// application opens the session (`SessionOpened`); then to `limits`.
///
/// Every byte it buffers is charged to the connection's `BufferAccount` (the transport's memory
/// budget): unfinished and decompressed frames through the decoder, encoded output until the
/// socket has taken it.
///
/// Writes are coalesced until a flush, so a burst of frames becomes one buffer (and one or a few
/// TLS records). A decoding error is passed on as an error event (the control handler reports it
/// to the peer and closes); nothing read after it is decoded.
final class FrameCodecHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = Frame
    typealias OutboundIn = Frame
    typealias OutboundOut = ByteBuffer

    private let encoder: FrameEncoder
    private let decoder: FrameDecoder
    private var failed = false
    private var pending: ByteBuffer?
    private var pendingPromise: EventLoopPromise<Void>?

    private let limits: FrameLimits
    private let limitsBeforeSession: FrameLimits?
    private let account: BufferAccount?

    init(limits: FrameLimits, limitsBeforeSession: FrameLimits? = nil, compressionLevel: Int32?, account: BufferAccount? = nil) throws {
        self.limits = limits
        self.limitsBeforeSession = limitsBeforeSession.map { $0.payloadBytesMax < limits.payloadBytesMax ? $0 : limits }
        self.account = account
        encoder = try FrameEncoder(limits: limits, compressionLevel: compressionLevel)
        decoder = try FrameDecoder(limits: FrameLimits.admission.payloadBytesMax < limits.payloadBytesMax ? .admission : limits)
        decoder.account = account
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        let buffer = unwrapInboundIn(data)
        do {
            try buffer.withUnsafeReadableBytes { bytes in
                // Each frame is delivered before the next header is read, so admission (which
                // raises the limits) applies to the frames that follow it in the same read.
                try decoder.decode(bytes) { frame in
                    context.fireChannelRead(wrapInboundOut(frame))
                    // A frame handler may have closed the connection; later frames are dropped.
                    return context.channel.isActive
                }
            }
        } catch {
            failed = true
            context.fireErrorCaught(error)
        }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if event is PeerAdmitted {
            decoder.limits = limitsBeforeSession ?? limits
            promise?.succeed()
            return
        }
        if event is SessionOpened {
            decoder.limits = limits
            account?.sessionOpened()
            promise?.succeed()
            return
        }
        context.triggerUserOutboundEvent(event, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !failed {
            do { try decoder.finish() } catch { context.fireErrorCaught(error) }
        }
        pendingPromise?.fail(ChannelError.ioOnClosedChannel)
        pending = nil
        pendingPromise = nil
        context.fireChannelInactive()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let frame = unwrapOutboundIn(data)
        var buffer = pending ?? context.channel.allocator.buffer(capacity: 0)
        do {
            try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: FrameEncoder.encodedBytesBound(payloadBytes: frame.payload.count)) {
                try encoder.encode(frame, into: $0)
            }
        } catch {
            // A frame that cannot be sent must not vanish silently (writes through the async
            // channel carry no promise), and a compression failure leaves the stream unusable:
            // either way the connection ends with the error. `FrameConnection.send` refuses
            // oversized payloads before they get here.
            promise?.fail(error)
            context.fireErrorCaught(error)
            return
        }
        pending = buffer
        if let promise {
            if let pendingPromise { pendingPromise.futureResult.cascade(to: promise) } else { pendingPromise = promise }
        }
    }

    func flush(context: ChannelHandlerContext) {
        if let buffer = pending {
            var promise = pendingPromise
            pending = nil
            pendingPromise = nil
            if let account {
                // Counted (not refused: the frames were admitted to the outgoing queue already)
                // until the socket has taken them.
                let bytes = buffer.readableBytes
                account.charge(bytes)
                let written = promise ?? context.eventLoop.makePromise(of: Void.self)
                written.futureResult.whenComplete { _ in account.release(bytes) }
                promise = written
            }
            context.write(wrapOutboundOut(buffer), promise: promise)
        }
        context.flush()
    }
}
