import AtollStorage

// Frame kinds 0xF0...0xFF belong to the transport and never reach the protocol: the connection
// handlers consume them. The sync protocol's kinds are 0x00...0xEF.
//
//   kind  name       direction         payload
//   0xF0  heartbeat  either            empty; sent after an interval with nothing else sent
//   0xF2  token      client -> server  bearer token, UTF-8 (token mode only; the first frame)
//   0xF3  accepted   server -> client  empty; the server has authenticated the client
//   0xF4  goodbye    either            why the sender is closing: u8 n, n bytes of AtollError.Kind
//                                      raw value, then the message in UTF-8 (at most 1 KiB)
//
// 0xF1 and 0xF5...0xFF are reserved; receiving one is a protocol violation.
//
// A connection is usable ("ready") on the client once `accepted` arrives and on the server once it
// is sent; before that, any other frame is a protocol violation.

enum TransportFrameKind {
    static let first: UInt8 = 0xF0
    static let heartbeat: UInt8 = 0xF0
    static let token: UInt8 = 0xF2
    static let accepted: UInt8 = 0xF3
    static let goodbye: UInt8 = 0xF4
}

extension Frame {
    /// The first kind reserved for the transport; protocol frames use kinds below it.
    public static let transportKindFirst: UInt8 = TransportFrameKind.first

    var isTransportControl: Bool { kind >= TransportFrameKind.first }
}

enum Goodbye {
    static let messageBytesMax = 1024
    static let tokenBytesMax = 4096

    static func frame(for error: AtollError) -> Frame {
        let kind = Array(error.kind.rawValue.utf8.prefix(255))
        var message = Array(error.message.utf8)
        if message.count > messageBytesMax {
            message = Array(message.prefix(messageBytesMax))
            // Do not cut a UTF-8 sequence in half.
            while let last = message.last, last & 0xC0 == 0x80 { message.removeLast() }
            if let last = message.last, last >= 0xC0 { message.removeLast() }
        }
        return Frame(kind: TransportFrameKind.goodbye, payload: [UInt8(kind.count)] + kind + message)
    }

    /// The error a peer's goodbye carries, as this side reports it.
    static func error(from payload: [UInt8]) -> AtollError {
        guard let n = payload.first.map(Int.init), payload.count >= 1 + n else {
            return AtollError(.protocolViolation, "the peer closed the connection with a malformed goodbye frame")
        }
        let kindText = String(decoding: payload[1..<(1 + n)], as: UTF8.self)
        let message = String(decoding: payload[(1 + n)...].prefix(messageBytesMax), as: UTF8.self)
        let kind = AtollError.Kind(rawValue: kindText) ?? .connectionFailed
        return AtollError(kind, "the peer closed the connection: \(message)")
    }
}
