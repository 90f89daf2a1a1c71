import AtollStorage

/// Turns frames into wire bytes (header + zstd-compressed body, see FrameHeader.swift) for one
/// direction of one connection.
///
/// The encoder owns the connection's compression stream, so frames must be sent in the order they
/// are encoded and each encoder belongs to exactly one connection. It is not `Sendable`: keep it on
/// the connection's event loop (the transport does) or in one task.
///
/// Batching: encode many frames back to back into one buffer and write that once; each frame is
/// still flushed, so the receiver can act on it without waiting for the next. Small messages of
/// similar shape compress against each other across frames as well as within a frame.
///
/// ```swift
/// let encoder = try FrameEncoder()
/// var wire: [UInt8] = []
/// try encoder.encode(Frame(kind: 1, payload: bytes), into: &wire)
/// ```
public final class FrameEncoder {
    /// The size limits frames are checked against.
    public let limits: FrameLimits
    private let compressor: ZstdCompressor
    /// Once compression fails the stream is out of step with what was sent; nothing more can be.
    private var failure: (any Error)?

    /// An encoder; `compressionLevel` is zstd's (nil: its default).
    ///
    /// - Throws: when the compression context cannot be made.
    public init(limits: FrameLimits = .default, compressionLevel: Int32? = nil) throws {
        self.limits = limits
        compressor = try ZstdCompressor(level: compressionLevel ?? ZstdStreamParameters.levelDefault)
    }

    /// The most wire bytes a frame with `payloadBytes` of payload can take.
    public static func encodedBytesBound(payloadBytes: Int) -> Int {
        FrameLimits.frameBytesNeeded(payloadBytes)
    }

    /// Appends the wire form of `frame` to `output`.
    ///
    /// - Throws: `.limitExceeded` if the payload is over `limits.payloadBytesMax` (nothing is
    ///   written and the encoder stays usable); `.ioError` if zstd fails (the encoder is then unusable).
    public func encode(_ frame: Frame, into output: inout [UInt8]) throws {
        try checkSendable(frame)
        let start = output.count
        let bound = FrameEncoder.encodedBytesBound(payloadBytes: frame.payload.count)
        output.append(contentsOf: repeatElement(0, count: bound))
        let written: Int
        do {
            written = try output.withUnsafeMutableBytes { (all: UnsafeMutableRawBufferPointer) throws -> Int in
                try encodeChecked(frame, into: UnsafeMutableRawBufferPointer(rebasing: all[start...]))
            }
        } catch {
            output.removeLast(bound)
            throw error
        }
        output.removeLast(bound - written)
    }

    /// The wire bytes of `frames`, encoded back to back.
    public func encode(_ frames: some Sequence<Frame>) throws -> [UInt8] {
        var output: [UInt8] = []
        for frame in frames { try encode(frame, into: &output) }
        return output
    }

    /// Writes the wire form of `frame` into `buffer`, which must hold at least
    /// `encodedBytesBound(payloadBytes: frame.payload.count)` bytes, and returns the bytes written.
    public func encode(_ frame: Frame, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try checkSendable(frame)
        guard buffer.count >= FrameEncoder.encodedBytesBound(payloadBytes: frame.payload.count) else {
            throw AtollError(.invalidArgument, "output buffer of \(buffer.count) bytes is under the bound for a \(frame.payload.count)-byte payload")
        }
        return try encodeChecked(frame, into: buffer)
    }

    private func checkSendable(_ frame: Frame) throws {
        if let failure { throw failure }
        guard frame.payload.count <= limits.payloadBytesMax else {
            throw AtollError(.limitExceeded, "frame payload of \(frame.payload.count) bytes exceeds payloadBytesMax (\(limits.payloadBytesMax)); split the message")
        }
    }

    private func encodeChecked(_ frame: Frame, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress else {
            throw AtollError(.invalidArgument, "empty output buffer")
        }
        var bodyBytes = 0
        if !frame.payload.isEmpty {
            let body = UnsafeMutableRawBufferPointer(start: base + FrameHeader.bytes, count: buffer.count - FrameHeader.bytes)
            do {
                bodyBytes = try frame.payload.withUnsafeBytes { (payload: UnsafeRawBufferPointer) throws -> Int in
                    try compressor.compressFlush(payload, into: body)
                }
            } catch {
                failure = error
                throw error
            }
        }
        FrameHeader.write(to: base, kind: frame.kind, payloadBytes: frame.payload.count, bodyBytes: bodyBytes)
        return FrameHeader.bytes + bodyBytes
    }

    /// Memory held by the compression stream.
    public var memoryBytes: Int { compressor.memoryBytes }
}
