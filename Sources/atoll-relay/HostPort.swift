import ArgumentParser
import AtollStorage

/// A `HOST:PORT` argument; IPv6 hosts in brackets (`[::1]:7450`).
struct HostPort: ExpressibleByArgument, CustomStringConvertible, Sendable {
    var host: String
    var port: Int

    init?(argument: String) {
        guard let parsed = try? HostPort.parse(argument) else { return nil }
        self = parsed
    }

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    static func parse(_ text: String) throws -> HostPort {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw AtollError(.invalidArgument, "'\(text)' is not HOST:PORT")
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                throw AtollError(.invalidArgument, "'\(text)' is not HOST:PORT")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), (0...65535).contains(port) else {
            throw AtollError(.invalidArgument, "'\(text)' is not HOST:PORT with a port from 0 to 65535")
        }
        return HostPort(host: String(host), port: port)
    }

    static var defaultValueDescription: String { "HOST:PORT" }

    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
