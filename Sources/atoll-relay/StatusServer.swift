import AtollStorage
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// What the status endpoint serves, read afresh on every request.
struct StatusSource: Sendable {
    /// The JSON status document (`GET /status`).
    var status: @Sendable () async -> RelayStatus
    /// The metrics in Prometheus text format (`GET /metrics`).
    var metrics: @Sendable () async -> String
}

/// A minimal HTTP/1.1 endpoint:
/// - `GET /status`: the relay's status as JSON;
/// - `GET /metrics`: its metrics in Prometheus text format (docs/OPERATIONS.md);
/// - `GET /`: the dashboard, a self-contained page that polls the two above.
/// Anything else is 404 or 405. Plain HTTP: it reveals peer names, identities and addresses (not
/// data), so it binds to loopback unless the operator gives a token (`--status-token-file`);
/// with a token, `/status` and `/metrics` answer 401 to a request without
/// `Authorization: Bearer TOKEN`. The page itself holds no data and is served to anyone; it takes
/// the token from its address's fragment (`/#token=...`, which browsers never send).
final class StatusServer: Sendable {
    let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    private init(port: Int, group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.port = port
        self.group = group
        self.channel = channel
    }

    static func start(host: String, port: Int, token: String?, source: StatusSource) async throws -> StatusServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(StatusHTTPHandler(source: source, token: token))
                    }
                }
                .bind(host: host, port: port).get()
            return StatusServer(port: channel.localAddress?.port ?? port, group: group, channel: channel)
        } catch {
            try? await group.shutdownGracefully()
            let reason = (error as? IOError)?.errnoCode == EADDRINUSE ? "address already in use" : "\(error)"
            throw AtollError(.ioError, "cannot serve status on \(host):\(port): \(reason)")
        }
    }

    func shutdown() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    /// Whether `host` is a loopback address, where the endpoint may run without a token.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}

final class StatusHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let source: StatusSource
    private let token: String?
    private var request: HTTPRequestHead?

    init(source: StatusSource, token: String?) {
        self.source = source
        self.token = token
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            request = head
        case .body:
            break
        case .end:
            guard let head = request else { return }
            request = nil
            respond(context, head)
        }
    }

    private func respond(_ context: ChannelHandlerContext, _ head: HTTPRequestHead) {
        guard head.method == .GET else {
            write(context, head, status: .methodNotAllowed, body: "only GET is supported\n", type: "text/plain")
            return
        }
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? head.uri
        switch path {
        case "/", "/index.html":
            write(context, head, status: .ok, body: StatusPage.html, type: "text/html; charset=utf-8")
        case "/status", "/metrics":
            guard isAuthorized(head) else {
                write(context, head, status: .unauthorized, body: "a bearer token is required (Authorization: Bearer TOKEN, the relay's --status-token-file)\n",
                      type: "text/plain", extra: [("WWW-Authenticate", "Bearer")])
                return
            }
            let source = self.source
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let promise = context.eventLoop.makePromise(of: String.self)
            promise.completeWithTask {
                if path == "/metrics" { return await source.metrics() }
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                // A failure (a non-finite number, say) is answered as one, never as an empty status.
                let data = try encoder.encode(await source.status())
                return String(decoding: data, as: UTF8.self) + "\n"
            }
            promise.futureResult.whenFailure { error in
                let (handler, context) = loopBound.value
                handler.write(context, head, status: .internalServerError, body: "the status could not be encoded: \(error)\n", type: "text/plain")
            }
            promise.futureResult.whenSuccess { body in
                let (handler, context) = loopBound.value
                handler.write(context, head, status: .ok, body: body,
                              type: path == "/metrics" ? "text/plain; version=0.0.4; charset=utf-8" : "application/json")
            }
        default:
            write(context, head, status: .notFound, body: "not found; try GET /, /status or /metrics\n", type: "text/plain")
        }
    }

    /// No token configured, or `Authorization: Bearer TOKEN` with the token (compared in time
    /// independent of where it differs).
    private func isAuthorized(_ head: HTTPRequestHead) -> Bool {
        guard let token else { return true }
        guard let value = head.headers.first(name: "Authorization"), value.hasPrefix("Bearer ") else { return false }
        let given = Array(value.utf8.dropFirst(7)), expected = Array(token.utf8)
        guard given.count == expected.count else { return false }
        return zip(given, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private func write(_ context: ChannelHandlerContext, _ request: HTTPRequestHead, status: HTTPResponseStatus, body: String, type: String,
                       extra: [(String, String)] = [])
    {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: "close")
        for (name, value) in extra { headers.add(name: name, value: value) }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
