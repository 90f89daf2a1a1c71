public import AtollStorage

/// The size limits a connection enforces on frames, before it allocates anything for them.
///
/// The receiver checks the sizes a frame header declares against these limits as soon as the
/// header's 14 bytes have arrived, so a peer that declares a huge frame is refused before any
/// buffer grows, and a body that decompresses to more than it declared is stopped within one byte
/// of its declaration.
///
/// ```swift
/// let limits = try FrameLimits(payloadBytesMax: 1 << 20)   // frameBytesMax follows
/// ```
public struct FrameLimits: Sendable, Equatable {
    /// The most bytes one frame may occupy on the wire, header included (compressed size).
    public let frameBytesMax: Int
    /// The most bytes a frame's payload may decompress to.
    public let payloadBytesMax: Int

    /// 32 MiB: room for a message carrying two values of the storage engine's largest size
    /// (`TableSpec.valueBytesMax`, 16 MiB) with their addressing.
    public static let payloadBytesMaxDefault = 32 << 20

    /// Frames of up to `payloadBytesMaxDefault` bytes.
    public static let `default` = FrameLimits(uncheckedPayloadBytesMax: payloadBytesMaxDefault)

    /// What a connection accepts before its peer is authenticated: room for a token or a goodbye
    /// (a few KiB), nothing like a data frame.
    public static let admission = FrameLimits(uncheckedPayloadBytesMax: 8 << 10)

    /// 1 MiB: what a server accepts from an admitted peer until the application opens its session
    /// (`TransportConfiguration.limitsBeforeSession`; the sync relay's `hello`, which carries a
    /// version vector of about 19 bytes per origin: room for some 50,000 origins).
    public static let handshakePayloadBytesMax = 1 << 20

    /// Limits for an admitted peer whose session is not open yet: room for a handshake, not for
    /// data. A peer cannot make the server buffer a full-size frame before it has said who it is
    /// at the protocol level.
    public static let handshake = FrameLimits(uncheckedPayloadBytesMax: handshakePayloadBytesMax)

    /// Limits for payloads up to `payloadBytesMax`; `frameBytesMax` defaults to the largest frame
    /// such a payload can compress to (incompressible data grows slightly).
    public init(payloadBytesMax: Int = payloadBytesMaxDefault, frameBytesMax: Int? = nil) throws(AtollError) {
        guard payloadBytesMax >= 0, payloadBytesMax <= FrameHeader.declaredBytesMax else {
            throw AtollError(.invalidArgument, "payloadBytesMax must be between 0 and \(FrameHeader.declaredBytesMax), not \(payloadBytesMax)")
        }
        let needed = FrameLimits.frameBytesNeeded(payloadBytesMax)
        let frameBytesMax = frameBytesMax ?? needed
        // Every payload the sender accepts must fit in a frame: the compressed stream cannot drop
        // a frame it has already compressed, so "too large after compression" must be impossible.
        guard frameBytesMax >= needed, frameBytesMax <= FrameHeader.declaredBytesMax else {
            throw AtollError(.invalidArgument, "frameBytesMax must be between \(needed) (the compressed bound of payloadBytesMax) and \(FrameHeader.declaredBytesMax), not \(frameBytesMax)")
        }
        self.payloadBytesMax = payloadBytesMax
        self.frameBytesMax = frameBytesMax
    }

    private init(uncheckedPayloadBytesMax payloadBytesMax: Int) {
        self.payloadBytesMax = payloadBytesMax
        self.frameBytesMax = FrameLimits.frameBytesNeeded(payloadBytesMax)
    }

    static func frameBytesNeeded(_ payloadBytes: Int) -> Int {
        FrameHeader.bytes + ZstdCompressor.compressedBytesBound(payloadBytes)
    }
}
