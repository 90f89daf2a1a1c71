import AtollStorage
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/1.1 GET against the relay's status endpoint on 127.0.0.1, enough to read
/// `/`, `/status` and `/metrics` and their status codes.
enum StatusHTTP {
    struct Response {
        var status: Int
        var body: String
    }

    static func get(port: Int, path: String, token: String? = nil) throws -> Response {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw AtollError(.ioError, "socket: errno \(errno)") }
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
        guard connected == 0 else { throw AtollError(.connectionFailed, "connect to 127.0.0.1:\(port): errno \(errno)") }
        let authorization = token.map { "Authorization: Bearer \($0)\r\n" } ?? ""
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(authorization)Connection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw AtollError(.ioError, "send: errno \(errno)")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n >= 0 else { throw AtollError(.timeout, "recv from 127.0.0.1:\(port): errno \(errno)") }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n"), let code = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw AtollError(.protocolViolation, "malformed HTTP response: \(text.prefix(200))")
        }
        return Response(status: code, body: String(text[split.upperBound...]))
    }
}

/// Prometheus text format, read back: the value of one sample.
struct PrometheusSamples {
    let text: String

    /// The value of `name` whose labels include every pair of `labels` (nil when absent).
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            let series = line[..<space]
            let metric = series.prefix { $0 != "{" }
            guard metric == name else { continue }
            let labelText = series.dropFirst(metric.count)
            guard labels.allSatisfy({ labelText.contains("\($0.key)=\"\($0.value)\"") }) else { continue }
            return Double(line[line.index(after: space)...])
        }
        return nil
    }

    /// The sum of `name` over all its label sets (0 when absent).
    func total(_ name: String) -> Double {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") && ($0.hasPrefix(name + " ") || $0.hasPrefix(name + "{")) }
            .compactMap { line in line.lastIndex(of: " ").flatMap { Double(line[line.index(after: $0)...]) } }
            .reduce(0, +)
    }
}
