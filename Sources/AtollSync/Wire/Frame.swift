/// One protocol message as the transport carries it: a kind byte and the message's uncompressed
/// bytes. What kinds exist and what their payloads mean belongs to the sync protocol
/// (`Protocol/`); the wire layer (`FrameEncoder`, `FrameDecoder`) only compresses, checksums,
/// bounds and delimits them.
public struct Frame: Sendable, Equatable {
    /// The message kind. The wire layer reserves no values; the protocol defines them all.
    public var kind: UInt8
    /// The uncompressed message bytes.
    public var payload: [UInt8]

    public init(kind: UInt8, payload: [UInt8]) {
        self.kind = kind
        self.payload = payload
    }
}
