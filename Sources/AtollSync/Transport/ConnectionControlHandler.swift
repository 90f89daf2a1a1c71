import AtollStorage
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// Asks a connection to close, first telling the peer why when there is an error.
struct CloseRequest: Sendable {
    var error: AtollError?
}

/// Tells the codec the peer is admitted, so larger frames may follow (`limitsBeforeSession`, or
/// full-size ones).
struct PeerAdmitted: Sendable {}

/// Tells the codec the application has opened the session (`FrameConnection.beginSession()`), so
/// full-size frames may follow.
struct SessionOpened: Sendable {}

/// The transport's own part of a connection: admission (certificate or token), the `accepted`
/// handshake, heartbeats, goodbyes, and turning every failure into one clear `AtollError`.
/// Transport frames (kinds 0xF0...0xFF) stop here; protocol frames pass through untouched once
/// the connection is ready, and not before.
final class ConnectionControlHandler: ChannelDuplexHandler {
    typealias InboundIn = Frame
    typealias InboundOut = Frame
    typealias OutboundIn = Frame
    typealias OutboundOut = Frame

    enum Role {
        /// `identities` counts admitted connections per peer name (`connectionsPerIdentityMax`).
        /// `tokens` nil: mutual TLS.
        case server(tokens: TokenAdmission?, identities: IdentityCounter? = nil)
        /// `onTokenExpired` is called when the server ends the connection because the token
        /// expired (its client then asks its token provider again).
        case client(token: String?, onTokenExpired: (@Sendable () -> Void)? = nil)
    }

    private enum State {
        /// TLS handshake under way.
        case handshaking
        /// TLS done; waiting for the client's token (server) or the server's `accepted` (client).
        case authenticating
        case ready
        case closed
    }

    private let role: Role
    private let handshakeTimeout: Duration
    private let logger: Logger
    /// The connection's share of the memory budget: frames this handler consumes are released here.
    private let account: BufferAccount?
    /// The peer name counted in the server's `IdentityCounter` while this connection is open.
    private var countedIdentity: String?
    /// Completed with the peer's identity once the connection is ready, failed if it never is.
    let ready: EventLoopPromise<PeerIdentity>
    private var state = State.handshaking
    private var tlsPeerName = "unknown"
    private var tlsAlternativeNames: [String] = []
    /// Closes the connection when the peer's token expires.
    private var expiryTimer: Scheduled<Void>?
    /// A token is being verified (asynchronously); a second token frame is a violation.
    private var verifyingToken = false
    /// The admitted peer's name (certificate or token), for log lines.
    private var peerName: String?
    private var remoteAddress = "unknown"
    private var handshakeTimer: Scheduled<Void>?
    /// The first failure, reported once (to the ready promise, the log and the application).
    private var failure: AtollError?

    /// Told of each refusal on the server side (`TransportConfiguration.onRefusal`).
    private let onRefusal: (@Sendable (_ address: String, _ error: AtollError) -> Void)?

    init(role: Role, handshakeTimeout: Duration, logger: Logger, ready: EventLoopPromise<PeerIdentity>, account: BufferAccount? = nil,
         onRefusal: (@Sendable (_ address: String, _ error: AtollError) -> Void)? = nil)
    {
        self.onRefusal = onRefusal
        self.role = role
        self.handshakeTimeout = handshakeTimeout
        self.logger = logger
        self.ready = ready
        self.account = account
    }

    private var isServer: Bool { if case .server = role { true } else { false } }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { activate(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        activate(context)
        context.fireChannelActive()
    }

    private func activate(_ context: ChannelHandlerContext) {
        guard handshakeTimer == nil, state == .handshaking else { return }
        remoteAddress = Self.describe(context.channel.remoteAddress)
        handshakeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(handshakeTimeout)) { [self] in
            guard state == .handshaking || state == .authenticating else { return }
            fail(context, AtollError(.timeout, "the connection was not authenticated within \(handshakeTimeout) (TLS handshake\(isServer ? " or token" : " or the server's acceptance") missing)"), tellPeer: true)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let tls = event as? TLSUserEvent, case .handshakeCompleted = tls {
            tlsHandshakeCompleted(context)
            return
        }
        if let keepalive = event as? KeepaliveHandler.Event {
            switch keepalive {
            case .heartbeatDue:
                if state == .ready { context.writeAndFlush(wrapOutboundOut(Frame(kind: TransportFrameKind.heartbeat, payload: [])), promise: nil) }
            case .peerSilent(let silence):
                fail(context, AtollError(.timeout, "no data from the peer for \(silence) (keepalive timeout); presumed dead"), tellPeer: false)
            }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func tlsHandshakeCompleted(_ context: ChannelHandlerContext) {
        guard state == .handshaking else { return }
        state = .authenticating
        let certificate = try? context.pipeline.syncOperations.handler(type: NIOSSLHandler.self).peerCertificate
        (tlsPeerName, tlsAlternativeNames) = TLSMaterial.peerNames(certificate)
        switch role {
        case .server(let tokens, _):
            if tokens == nil {
                // Mutual TLS: BoringSSL has verified the client's chain against the CA.
                accept(context, PeerIdentity(name: tlsPeerName, method: .certificate, address: remoteAddress,
                                             alternativeNames: tlsAlternativeNames))
            }
        case .client(let token, _):
            if let token {
                context.writeAndFlush(wrapOutboundOut(Frame(kind: TransportFrameKind.token, payload: Array(token.utf8))), promise: nil)
            }
        }
    }

    private func accept(_ context: ChannelHandlerContext, _ peer: PeerIdentity) {
        if case .server(_, let identities?) = role {
            guard identities.admit(peer.name) else {
                fail(context, AtollError(.limitExceeded, "'\(peer.name)' already has \(identities.max) connections open, the most one identity may hold (connectionsPerIdentityMax); close one or raise the limit"), tellPeer: true)
                return
            }
            countedIdentity = peer.name
        }
        context.writeAndFlush(wrapOutboundOut(Frame(kind: TransportFrameKind.accepted, payload: [])), promise: nil)
        if let expires = peer.expires {
            // A connection lives no longer than its token: the node reconnects with a fresh one.
            let delay = TimeAmount.milliseconds(Int64(max(0, expires.timeIntervalSinceNow * 1000).rounded(.up)))
            expiryTimer = context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [self] in
                fail(context, AtollError(.tokenExpired, "the token of '\(peer.name)' expired at \(expires); connect again with a fresh one"),
                     tellPeer: true)
            }
        }
        becomeReady(context, peer)
    }

    /// Checks a token: the static table first (development), then the authenticator, whose
    /// verification runs off the event loop and comes back to it.
    private func verifyToken(_ context: ChannelHandlerContext, _ token: [UInt8], _ admission: TokenAdmission) {
        guard !verifyingToken, token.count <= Goodbye.tokenBytesMax else {
            fail(context, AtollError(.authenticationFailed, "the bearer token was not accepted"), tellPeer: true)
            return
        }
        if let name = admission.table?.name(for: token) {
            accept(context, PeerIdentity(name: name, method: .token, address: remoteAddress))
            return
        }
        guard let authenticator = admission.authenticator else {
            fail(context, AtollError(.authenticationFailed, "the bearer token was not accepted"), tellPeer: true)
            return
        }
        verifyingToken = true
        let promise = context.eventLoop.makePromise(of: AuthenticatedToken.self)
        promise.completeWithTask { try await authenticator.authenticate(token) }
        let address = remoteAddress
        promise.futureResult.assumeIsolated().whenComplete { [self] result in
            guard state == .authenticating else { return }
            switch result {
            case .success(let verified):
                accept(context, PeerIdentity(name: verified.subject, method: .jwt, address: address, claims: verified.claims,
                                             expires: verified.expires))
            case .failure(let error):
                let refusal = (error as? AtollError) ?? AtollError(.authenticationFailed, "the bearer token was not accepted: \(error)")
                fail(context, refusal, tellPeer: true)
            }
        }
    }

    private func becomeReady(_ context: ChannelHandlerContext, _ peer: PeerIdentity) {
        peerName = peer.name
        context.triggerUserOutboundEvent(PeerAdmitted(), promise: nil)
        state = .ready
        handshakeTimer?.cancel()
        handshakeTimer = nil
        ready.succeed(peer)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard frame.isTransportControl else {
            if state == .ready {
                // The application releases the frame's bytes once it has consumed it.
                context.fireChannelRead(data)
                return
            }
            account?.release(frame.payload.count)
            if state != .closed {
                fail(context, AtollError(.protocolViolation, "received a protocol frame (kind \(frame.kind)) before the connection was authenticated"), tellPeer: true)
            }
            return
        }
        account?.release(frame.payload.count)
        switch (frame.kind, state, role) {
        case (TransportFrameKind.heartbeat, .ready, _):
            break
        case (TransportFrameKind.goodbye, _, _):
            let error = Goodbye.error(from: frame.payload)
            if error.kind == .tokenExpired, case .client(_, let onTokenExpired?) = role { onTokenExpired() }
            fail(context, error, tellPeer: false)
        case (TransportFrameKind.token, .authenticating, .server(let tokens?, _)):
            verifyToken(context, frame.payload, tokens)
        case (TransportFrameKind.accepted, .authenticating, .client):
            becomeReady(context, PeerIdentity(name: tlsPeerName, method: .certificate, address: remoteAddress))
        default:
            if state != .closed {
                fail(context, AtollError(.protocolViolation, "unexpected transport frame of kind 0x\(String(frame.kind, radix: 16)) while \(state)"), tellPeer: true)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The stream is still sound after a violation found by the decoder or a limit of this side
        // (the budget): the peer can be told why.
        let kind = (error as? AtollError)?.kind
        fail(context, translate(error), tellPeer: kind == .protocolViolation || kind == .limitExceeded)
    }

    func channelInactive(context: ChannelHandlerContext) {
        handshakeTimer?.cancel()
        handshakeTimer = nil
        expiryTimer?.cancel()
        expiryTimer = nil
        releaseIdentity()
        if state != .ready && state != .closed {
            let error = failure ?? AtollError(.connectionFailed, isServer
                ? "the client closed the connection before it was authenticated"
                : "the server closed the connection before accepting it (for example, it refused this client's certificate)")
            logRefusal(error)
            ready.fail(error)
        }
        state = .closed
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // A channel that never became active (connect failed) is torn down without
        // channelInactive; the promise must still be completed.
        handshakeTimer?.cancel()
        handshakeTimer = nil
        releaseIdentity()
        if state != .ready && state != .closed {
            state = .closed
            ready.fail(failure ?? AtollError(.connectionFailed, "the connection closed before it was established"))
        }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let request = event as? CloseRequest else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        if let error = request.error, state != .closed {
            context.writeAndFlush(wrapOutboundOut(Goodbye.frame(for: error)), promise: nil)
        }
        context.close(promise: promise)
    }

    /// Ends the connection over `error`: tells the peer (when the byte stream is still sound),
    /// logs, fails the ready promise, and hands the error to the application once.
    private func fail(_ context: ChannelHandlerContext, _ error: AtollError, tellPeer: Bool) {
        guard failure == nil, state != .closed else { return }
        failure = error
        let wasReady = state == .ready
        // Before the TLS handshake has completed a goodbye could not reach the peer (TLS would
        // only buffer it) and would cost a compression context for nothing: hundreds of idle
        // connections timing out together would each allocate one.
        if tellPeer && context.channel.isActive && state != .handshaking {
            context.writeAndFlush(wrapOutboundOut(Goodbye.frame(for: error)), promise: nil)
        }
        if wasReady {
            logger.notice("connection to \(peerName ?? tlsPeerName) at \(remoteAddress) closed: \(error)")
            context.fireErrorCaught(error)
        } else {
            logRefusal(error)
            state = .closed
            ready.fail(error)
        }
        context.close(promise: nil)
    }

    private func releaseIdentity() {
        if let name = countedIdentity, case .server(_, let identities?) = role {
            identities.release(name)
        }
        countedIdentity = nil
    }

    private func logRefusal(_ error: AtollError) {
        if isServer {
            logger.warning("refused connection from \(remoteAddress): \(error.message)")
            onRefusal?(remoteAddress, error)
        } else {
            logger.warning("connection to \(remoteAddress) refused: \(error.message)")
        }
    }

    /// One clear `AtollError` for whatever NIO, BoringSSL or the codec reported.
    private func translate(_ error: any Error) -> AtollError {
        if let error = error as? AtollError { return error }
        if let ssl = error as? NIOSSLError {
            switch ssl {
            case .handshakeFailed(let reason):
                let what = state == .ready ? "TLS failed" : "TLS handshake failed"
                return AtollError(.authenticationFailed, "\(what): \(Self.describe(reason))\(isServer ? "" : Self.clientHint(reason))")
            case .uncleanShutdown:
                return AtollError(.connectionFailed, "the peer closed the connection without a TLS close (crashed or cut off)")
            default:
                return AtollError(.connectionFailed, "TLS error: \(ssl)")
            }
        }
        if let ssl = error as? BoringSSLError {
            // With TLS 1.3 a client learns that its certificate was refused from an alert read
            // after its side of the handshake completed.
            let refusedUs = ["TLSV1_ALERT_UNKNOWN_CA", "SSLV3_ALERT_BAD_CERTIFICATE", "TLSV1_ALERT_CERTIFICATE_REQUIRED",
                             "SSLV3_ALERT_CERTIFICATE_UNKNOWN", "TLSV1_ALERT_ACCESS_DENIED", "SSLV3_ALERT_CERTIFICATE_EXPIRED"]
                .contains(Self.reasonCode("\(ssl)") ?? "")
            return AtollError(refusedUs ? .authenticationFailed : .connectionFailed, "TLS error: \(Self.describe(ssl))")
        }
        if let io = error as? IOError {
            return AtollError(.connectionFailed, "connection error: \(io.description)")
        }
        return AtollError(.connectionFailed, "connection error: \(error)")
    }

    /// BoringSSL's reason code ("CERTIFICATE_VERIFY_FAILED"), explained in words.
    private static func describe(_ error: BoringSSLError) -> String {
        let text = "\(error)"
        let code = reasonCode(text)
        let words: String
        switch code {
        case "CERTIFICATE_VERIFY_FAILED":
            words = "the peer's certificate was not accepted (not issued by the trusted CA, expired, or not valid for this use)"
        case "PEER_DID_NOT_RETURN_A_CERTIFICATE":
            words = "the peer presented no certificate"
        case "TLSV1_ALERT_UNKNOWN_CA", "SSLV3_ALERT_BAD_CERTIFICATE", "SSLV3_ALERT_CERTIFICATE_UNKNOWN", "TLSV1_ALERT_ACCESS_DENIED",
             "SSLV3_ALERT_CERTIFICATE_EXPIRED":
            words = "the peer refused this side's certificate"
        case "TLSV1_ALERT_CERTIFICATE_REQUIRED", "TLSV1_CERTIFICATE_REQUIRED":
            words = "the peer requires a certificate and this side presented none"
        case "WRONG_VERSION_NUMBER", "UNSUPPORTED_PROTOCOL", "TLSV1_ALERT_PROTOCOL_VERSION":
            words = "the peer does not speak TLS 1.3"
        case "HTTP_REQUEST", "HTTPS_PROXY_REQUEST":
            words = "the peer sent plain HTTP instead of TLS"
        default:
            words = code.map { "BoringSSL reports \($0)" } ?? text
        }
        return code.map { "\(words) [\($0)]" } ?? words
    }

    private static func reasonCode(_ text: String) -> String? {
        guard let marker = text.range(of: "OPENSSL_internal:") else { return nil }
        let rest = text[marker.upperBound...]
        let code = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return code.isEmpty ? nil : String(code)
    }

    private static func clientHint(_ error: BoringSSLError) -> String {
        reasonCode("\(error)") == "CERTIFICATE_VERIFY_FAILED" ? " (the server's certificate is not issued by the configured CA, or not valid for this host)" : ""
    }

    static func describe(_ address: SocketAddress?) -> String {
        guard let address else { return "unknown" }
        if let ip = address.ipAddress, let port = address.port {
            return address.protocol == .inet6 ? "[\(ip)]:\(port)" : "\(ip):\(port)"
        }
        return "\(address)"
    }
}
