import AtollStorage
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A GET request as an ``HTTPEndpoint`` hands it to its handler.
public struct HTTPRequest: Sendable {
    /// The path without the query string (`/api/query`).
    public let path: String
    /// The query string's parameters, percent-decoded (`+` is a space); the last of a repeated name wins.
    public let query: [String: String]
    /// The `Authorization` header, if any.
    public let authorization: String?

    /// Whether the request carries `Authorization: Bearer TOKEN` with `token`, compared in time
    /// independent of where the two differ.
    public func hasBearerToken(_ token: String) -> Bool {
        guard let value = authorization, value.hasPrefix("Bearer ") else { return false }
        let given = Array(value.utf8.dropFirst(7)), expected = Array(token.utf8)
        guard given.count == expected.count else { return false }
        return zip(given, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Splits a request target into its path and decoded query parameters.
    static func parse(target: String, authorization: String?) -> HTTPRequest {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let decode = { (s: Substring) in s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s) }
                query[decode(kv[0])] = kv.count == 2 ? decode(kv[1]) : ""
            }
        }
        return HTTPRequest(path: String(parts.first ?? ""), query: query, authorization: authorization)
    }
}

/// What an ``HTTPEndpoint`` handler answers.
public struct HTTPResponse: Sendable {
    /// The status code (200, 400, 401, 404, 500...).
    public var status: Int
    /// The `Content-Type` header.
    public var contentType: String
    /// The body, sent as UTF-8.
    public var body: String
    /// More headers (`WWW-Authenticate`, ...).
    public var headers: [(String, String)]

    /// A response; `headers` are added to Content-Type, Content-Length, `Cache-Control: no-store`
    /// and `Connection: close`.
    public init(status: Int = 200, contentType: String, body: String, headers: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    /// A plain-text response (an error's one line, say).
    public static func text(_ status: Int, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: body.hasSuffix("\n") ? body : body + "\n")
    }
}

/// A small HTTP/1.1 server for local tools: the relay's status address and `atoll studio`.
///
/// Only GET is served (anything else is 405); every response closes its connection. Requests
/// are answered by one handler, which may suspend; a request's head is at most NIO's default
/// size, and bodies are ignored, so a client cannot make the endpoint buffer without bound.
public final class HTTPEndpoint: Sendable {
    /// The port it listens on (the kernel's choice when it was asked for port 0).
    public let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    private init(port: Int, group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.port = port
        self.group = group
        self.channel = channel
    }

    /// Listens on `host:port`; `what` names the endpoint in the error when it cannot bind
    /// ("status", "studio").
    public static func start(host: String, port: Int, what: String,
                             handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) async throws -> HTTPEndpoint {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(EndpointHandler(handler: handler))
                    }
                }
                .bind(host: host, port: port).get()
            return HTTPEndpoint(port: channel.localAddress?.port ?? port, group: group, channel: channel)
        } catch {
            try? await group.shutdownGracefully()
            let reason = (error as? IOError)?.errnoCode == EADDRINUSE ? "address already in use" : "\(error)"
            throw AtollError(.ioError, "cannot serve \(what) on \(host):\(port): \(reason)")
        }
    }

    /// Stops listening and closes the event loop. Best effort: a channel that is already closed
    /// or a loop already shut down is the state wanted, so their errors are not reported (no
    /// data depends on them; bind failures above are reported).
    public func shutdown() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    /// Whether `host` is a loopback address, where an endpoint may run without a token.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}

/// Turns each request into a call of the endpoint's handler and writes its answer.
final class EndpointHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let handler: @Sendable (HTTPRequest) async -> HTTPResponse
    private var request: HTTPRequestHead?

    init(handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        self.handler = handler
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
            write(context, head, .text(405, "only GET is supported"))
            return
        }
        let request = HTTPRequest.parse(target: head.uri, authorization: head.headers.first(name: "Authorization"))
        let handler = self.handler
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let promise = context.eventLoop.makePromise(of: HTTPResponse.self)
        promise.completeWithTask { await handler(request) }
        promise.futureResult.whenSuccess { response in
            let (this, context) = loopBound.value
            this.write(context, head, response)
        }
    }

    private func write(_ context: ChannelHandlerContext, _ request: HTTPRequestHead, _ response: HTTPResponse) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: response.contentType)
        headers.add(name: "Content-Length", value: String(response.body.utf8.count))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: "close")
        for (name, value) in response.headers { headers.add(name: name, value: value) }
        let status = HTTPResponseStatus(statusCode: response.status)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: response.body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
