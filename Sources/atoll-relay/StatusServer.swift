import AtollStorage
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A minimal HTTP/1.1 endpoint: `GET /status` answers the relay's status as JSON; anything else is
/// 404 or 405. Plain HTTP, meant for loopback or a private network (it reveals peer names and
/// addresses, not data); bind it to 127.0.0.1 unless a monitor elsewhere must reach it.
final class StatusServer: Sendable {
    let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    private init(port: Int, group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.port = port
        self.group = group
        self.channel = channel
    }

    static func start(host: String, port: Int, status: @escaping @Sendable () async -> RelayStatus) async throws -> StatusServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(StatusHTTPHandler(status: status))
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
}

final class StatusHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let status: @Sendable () async -> RelayStatus
    private var request: HTTPRequestHead?

    init(status: @escaping @Sendable () async -> RelayStatus) {
        self.status = status
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
        guard head.uri == "/status" || head.uri == "/status?format=json" else {
            write(context, head, status: .notFound, body: "not found; try GET /status\n", type: "text/plain")
            return
        }
        let status = self.status
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let promise = context.eventLoop.makePromise(of: String.self)
        promise.completeWithTask {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let data = (try? encoder.encode(await status())) ?? Data("{}".utf8)
            return String(decoding: data, as: UTF8.self) + "\n"
        }
        promise.futureResult.whenSuccess { body in
            let (handler, context) = loopBound.value
            handler.write(context, head, status: .ok, body: body, type: "application/json")
        }
    }

    private func write(_ context: ChannelHandlerContext, _ request: HTTPRequestHead, status: HTTPResponseStatus, body: String, type: String) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(body.utf8.count))
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
