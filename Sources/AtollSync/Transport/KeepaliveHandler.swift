import NIOCore

/// Watches the byte stream for silence and tells the control handler when to ping and when the
/// peer must be presumed dead. It sits right above TLS so that any received bytes count, including
/// the middle of a large frame still in transit.
///
/// Silence is counted only while a read is outstanding: when the application stops reading
/// (backpressure), NIO stops issuing reads and the clock restarts when reading resumes.
final class KeepaliveHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum Event {
        /// Nothing received for the ping interval: send a ping.
        case pingDue
        /// Nothing received for the timeout.
        case peerSilent(Duration)
    }

    private let policy: KeepalivePolicy
    private var lastHeard = NIODeadline.now()
    private var lastPingRequest = NIODeadline.distantPast
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

    private func start(_ context: ChannelHandlerContext) {
        guard policy.isEnabled, timer == nil else { return }
        lastHeard = .now()
        schedule(context)
    }

    private func schedule(_ context: ChannelHandlerContext) {
        // Checking four times per interval bounds detection lateness to a quarter interval.
        let period = TimeAmount(policy.interval / 4)
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: period) { [self] in
            guard timer != nil, context.channel.isActive else { return }
            tick(context)
            if timer != nil { schedule(context) }
        }
    }

    private func tick(_ context: ChannelHandlerContext) {
        guard reading else { return }
        let now = NIODeadline.now()
        let silence = now - lastHeard
        if silence >= TimeAmount(policy.timeout) {
            timer = nil
            context.fireUserInboundEventTriggered(Event.peerSilent(Duration(silence)))
        } else if silence >= TimeAmount(policy.interval), now - lastPingRequest >= TimeAmount(policy.interval) {
            lastPingRequest = now
            context.fireUserInboundEventTriggered(Event.pingDue)
        }
    }
}
