import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/1.1 GET against a local endpoint on 127.0.0.1 (the relay's status address,
/// `atoll studio`), enough to read a page or JSON and its status code.
public enum StatusHTTP {
    /// A request that could not be made or answered.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    public struct Response: Sendable {
        public var status: Int
        public var body: String
    }

    public static func get(port: Int, path: String, token: String? = nil) throws -> Response {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StatusHTTP.Failure("socket: errno \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw StatusHTTP.Failure("connect to 127.0.0.1:\(port): errno \(errno)") }
        let authorization = token.map { "Authorization: Bearer \($0)\r\n" } ?? ""
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(authorization)Connection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw StatusHTTP.Failure("send: errno \(errno)")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n >= 0 else { throw StatusHTTP.Failure("recv from 127.0.0.1:\(port): errno \(errno)") }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n"), let code = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw StatusHTTP.Failure("malformed HTTP response: \(text.prefix(200))")
        }
        return Response(status: code, body: String(text[split.upperBound...]))
    }
}
