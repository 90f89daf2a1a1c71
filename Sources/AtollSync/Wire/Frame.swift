/// One protocol message as the transport carries it: a kind byte and the message's uncompressed
/// bytes. What kinds exist and what their payloads mean belongs to the sync protocol
/// (`Protocol/`); the wire layer (`FrameEncoder`, `FrameDecoder`) only compresses, checksums,
/// bounds and delimits them.
public struct Frame: Sendable, Equatable {
    /// The message kind. Kinds 0x00...0xEF are the sync protocol's; 0xF0...0xFF are reserved for
    /// the transport's own frames (ping, token, goodbye; see TransportControl.swift), which the
    /// connection consumes and never delivers.
    public var kind: UInt8
    /// The uncompressed message bytes.
    public var payload: [UInt8]

    /// A frame.
    public init(kind: UInt8, payload: [UInt8]) {
        self.kind = kind
        self.payload = payload
    }
}
