import ArgumentParser
import AtollStorage
import Foundation
import NIOCore
import NIOPosix

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a running relay's connected peers and their lag (from its --status endpoint)."
    )

    @Option(name: .long, help: ArgumentHelp("The relay's status endpoint (its serve --status).", valueName: "HOST:PORT"))
    var status: HostPort

    @Option(name: .long, help: ArgumentHelp("A file whose first line is the endpoint's bearer token (its serve --status-token-file).", valueName: "PATH"))
    var tokenFile: String?

    @Flag(name: .long, help: "Print the JSON document instead of a table.")
    var json = false

    func run() async throws {
        let token = try tokenFile.map { try ServeCommand.readToken($0) }
        let body = try await HTTPGet.fetch(host: status.host, port: status.port, path: "/status", bearerToken: token)
        if json {
            print(body, terminator: body.hasSuffix("\n") ? "" : "\n")
            return
        }
        guard let report = try? JSONDecoder().decode(RelayStatus.self, from: Data(body.utf8)) else {
            throw AtollError(.protocolViolation, "\(status) did not answer with a relay status document")
        }
        print(report.text)
    }
}

/// Fetches one small HTTP resource: enough for the status endpoint, not a general client.
enum HTTPGet {
    static let responseBytesMax = 4 << 20

    static func fetch(host: String, port: Int, path: String, bearerToken: String? = nil) async throws -> String {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let body = try await fetch(host: host, port: port, path: path, bearerToken: bearerToken, group: group)
            try? await group.shutdownGracefully()
            return body
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    private static func fetch(host: String, port: Int, path: String, bearerToken: String?, group: MultiThreadedEventLoopGroup) async throws -> String {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(.seconds(5))
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
                }
        } catch {
            let reason = (error as? IOError)?.errnoCode == ECONNREFUSED ? "connection refused (is the relay running with --status?)" : "\(error)"
            throw AtollError(.connectionFailed, "cannot reach the status endpoint \(host):\(port): \(reason)")
        }
        let response = try await channel.executeThenClose { inbound, outbound in
            let authorization = bearerToken.map { "Authorization: Bearer \($0)\r\n" } ?? ""
            try await outbound.write(ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: \(host)\r\n\(authorization)Connection: close\r\n\r\n"))
            var bytes: [UInt8] = []
            for try await chunk in inbound {
                bytes += chunk.readableBytesView
                guard bytes.count <= responseBytesMax else {
                    throw AtollError(.limitExceeded, "the status response from \(host):\(port) exceeds \(responseBytesMax) bytes")
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        guard let split = response.range(of: "\r\n\r\n") else {
            throw AtollError(.protocolViolation, "\(host):\(port) sent a malformed HTTP response")
        }
        let statusLine = response[..<split.lowerBound].split(separator: "\r\n").first ?? ""
        let code = statusLine.split(separator: " ").dropFirst().first
        guard code != "401" else {
            throw AtollError(.authenticationFailed, "\(host):\(port) requires a bearer token: give --token-file (the relay's --status-token-file)")
        }
        guard code == "200" else {
            throw AtollError(.protocolViolation, "\(host):\(port) answered '\(statusLine)'")
        }
        return String(response[split.upperBound...])
    }
}
