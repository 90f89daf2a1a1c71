import NIOCore

/// Heartbeats and dead-peer detection, at the byte level right above TLS.
///
/// Each side sends a heartbeat when it has sent nothing for the keepalive interval, from a timer on
/// its event loop: a live peer therefore produces bytes at least every interval whatever its
/// application is doing, and the heartbeats travel against the direction of any bulk transfer, so
/// a slow consumer's heartbeats are not queued behind the data it is slow to consume (a ping/pong
/// exchange would be). Each side presumes the peer dead when it has received nothing for the
/// timeout, counting only while it is reading: when its own application applies backpressure, NIO
/// stops issuing reads, and the clock restarts when reading resumes. Any received bytes count,
/// including the middle of a large frame still in transit.
final class KeepaliveHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum Event {
        /// Nothing sent for the interval: send a heartbeat.
        case heartbeatDue
        /// Nothing received for the timeout while reading.
        case peerSilent(Duration)
    }

    private let policy: KeepalivePolicy
    private var lastHeard = NIODeadline.now()
    private var lastSent = NIODeadline.now()
    private var reading = false
    private var timer: Scheduled<Void>?

    init(policy: KeepalivePolicy) {
        self.policy = policy
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastHeard = .now()
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reading = false
        context.fireChannelReadComplete()
    }

    func read(context: ChannelHandlerContext) {
        if !reading {
            reading = true
            lastHeard = .now()
        }
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        lastSent = .now()
        context.write(data, promise: promise)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard policy.isEnabled, timer == nil else { return }
        lastHeard = .now()
        lastSent = .now()
        schedule(context)
    }

    private func schedule(_ context: ChannelHandlerContext) {
        // Checking four times per interval bounds lateness to a quarter interval.
        let period = TimeAmount(policy.interval / 4)
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: period) { [self] in
            guard timer != nil, context.channel.isActive else { return }
            tick(context)
            if timer != nil { schedule(context) }
        }
    }

    private func tick(_ context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        if reading, now - lastHeard >= TimeAmount(policy.timeout) {
            timer = nil
            context.fireUserInboundEventTriggered(Event.peerSilent(Duration(now - lastHeard)))
            return
        }
        // When not writable the peer is not draining what is queued; a heartbeat would only queue
        // behind it.
        if now - lastSent >= TimeAmount(policy.interval), context.channel.isWritable {
            lastSent = now
            context.fireUserInboundEventTriggered(Event.heartbeatDue)
        }
    }
}
