import ArgumentParser
import AtollSync

/// A `HOST:PORT` argument; IPv6 hosts in brackets (`[::1]:7450`).
struct HostPort: ExpressibleByArgument, CustomStringConvertible, Sendable {
    var host: String
    var port: Int

    /// `HOST:PORT`, or a port alone for 127.0.0.1 (loopback).
    init?(argument: String) {
        if let port = Int(argument), (0...65535).contains(port) {
            self.init(host: "127.0.0.1", port: port)
            return
        }
        guard let parsed = try? HostPort.parse(argument) else { return nil }
        self = parsed
    }

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    static func parse(_ text: String) throws -> HostPort {
        let (host, port) = try RelayAddress.split(text, ports: 0...65535)
        return HostPort(host: host, port: port)
    }

    static var defaultValueDescription: String { "HOST:PORT" }

    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
