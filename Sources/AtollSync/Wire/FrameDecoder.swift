import AtollStorage

/// Turns wire bytes, fed in chunks of any size, back into frames for one direction of one
/// connection.
///
/// Every header field is validated against `limits` as soon as the header is complete, before any
/// buffer is sized by it; the checksum is verified before decompression; a body must decompress to
/// exactly the declared size (decompression stops one byte past it). The first malformed frame
/// throws `AtollError(.protocolViolation, ...)` and leaves the decoder failed: it rethrows that error
/// for every later call, since the compressed stream cannot resynchronise. Close the connection.
///
/// Not `Sendable`; owns the connection's decompression stream.
///
/// ```swift
/// let decoder = try FrameDecoder()
/// for frame in try decoder.decode(chunk) { handle(frame) }
/// ```
public final class FrameDecoder {
    /// The limits every header parsed from now on is checked against. Lowering or raising them
    /// mid-stream is allowed (the transport keeps them small until the peer is authenticated);
    /// a header already accepted keeps the limits it was checked under.
    public var limits: FrameLimits
    private let decompressor: ZstdDecompressor
    /// Bytes of an incomplete frame. It grows only with bytes actually received, never by a size a
    /// peer declared, so a peer that announces a large frame and stalls holds only what it sent.
    private var pending: [UInt8] = []
    private var pendingHeader: FrameHeader?
    private var failure: (any Error)?
    /// Where buffered bytes are charged (the transport's memory budget), or nil for none. Bytes of
    /// an unfinished frame are charged before they are kept and released once the frame is
    /// complete; a decompressed payload is charged before its buffer is allocated and stays
    /// charged when the frame is returned: whoever consumes the frame releases
    /// `frame.payload.count`. A refused charge fails the decoder like a malformed frame.
    var account: BufferAccount?

    /// Capacity kept for `pending` between frames; larger buffers are released once used.
    static let pendingCapacityKept = 64 << 10

    /// A decoder refusing frames over `limits`.
    ///
    /// - Throws: when the decompression context cannot be made.
    public init(limits: FrameLimits = .default) throws {
        self.limits = limits
        decompressor = try ZstdDecompressor()
    }

    /// Bytes received that do not yet form a complete frame.
    public var bufferedBytes: Int { pending.count }

    /// Capacity of the internal buffer (tests check that declared sizes do not reserve memory).
    var bufferedCapacity: Int { pending.capacity }

    /// Consumes `chunk` and returns the frames it completed, in order.
    public func decode(_ chunk: [UInt8]) throws -> [Frame] {
        try chunk.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws -> [Frame] in try decode(bytes) }
    }

    /// Consumes `chunk` and returns the frames it completed, in order.
    public func decode(_ chunk: UnsafeRawBufferPointer) throws -> [Frame] {
        var frames: [Frame] = []
        try decode(chunk) { frames.append($0); return true }
        return frames
    }

    /// Consumes `chunk`, calling `onFrame` for each frame it completes, in order, before the next
    /// frame's header is read (so `onFrame` may change `limits` for what follows). When `onFrame`
    /// returns false, the rest of the chunk is dropped (the connection is going away).
    public func decode(_ chunk: UnsafeRawBufferPointer, _ onFrame: (Frame) -> Bool) throws {
        if let failure { throw failure }
        do {
            try consume(chunk, onFrame)
        } catch {
            failure = error
            account?.release(pending.count)
            pending = []
            throw error
        }
    }

    private func consume(_ chunk: UnsafeRawBufferPointer, _ onFrame: (Frame) -> Bool) throws {
        guard let chunkBase = chunk.baseAddress else { return }
        var offset = 0
        let end = chunk.count
        while offset < end {
            if pending.isEmpty {
                // Frames wholly inside the chunk are decoded in place, without a copy.
                let available = end - offset
                if available >= FrameHeader.bytes {
                    let header = try FrameHeader.parse(chunkBase + offset, limits: limits)
                    if available >= header.frameBytes {
                        let frame = try decodeFrame(chunkBase + offset, header)
                        offset += header.frameBytes
                        guard onFrame(frame) else { return }
                        continue
                    }
                    pendingHeader = header
                }
                try account?.reserve(available, for: "an unfinished frame")
                pending.append(contentsOf: UnsafeRawBufferPointer(start: chunkBase + offset, count: available))
                return
            }
            // Completing a frame that started in an earlier chunk.
            if pendingHeader == nil {
                let take = min(FrameHeader.bytes - pending.count, end - offset)
                try account?.reserve(take, for: "an unfinished frame")
                pending.append(contentsOf: UnsafeRawBufferPointer(start: chunkBase + offset, count: take))
                offset += take
                guard pending.count == FrameHeader.bytes else { return }
                pendingHeader = try pending.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws -> FrameHeader in
                    guard let base = bytes.baseAddress else { throw AtollError(.protocolViolation, "empty frame header") }
                    return try FrameHeader.parse(base, limits: limits)
                }
            }
            guard let header = pendingHeader else { return }
            let take = min(header.frameBytes - pending.count, end - offset)
            try account?.reserve(take, for: "an unfinished frame")
            pending.append(contentsOf: UnsafeRawBufferPointer(start: chunkBase + offset, count: take))
            offset += take
            guard pending.count == header.frameBytes else { return }
            let frame = try pending.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws -> Frame in
                guard let base = bytes.baseAddress else { throw AtollError(.protocolViolation, "empty frame") }
                return try decodeFrame(base, header)
            }
            pendingHeader = nil
            account?.release(pending.count)
            pending.removeAll(keepingCapacity: pending.capacity <= FrameDecoder.pendingCapacityKept)
            guard onFrame(frame) else { return }
        }
    }

    /// Verifies and decompresses one complete frame of `header.frameBytes` bytes at `base`.
    private func decodeFrame(_ base: UnsafeRawPointer, _ header: FrameHeader) throws -> Frame {
        let actual = FrameHeader.checksum(base, frameBytes: header.frameBytes)
        guard actual == header.crc32c else {
            throw AtollError(.protocolViolation, "frame checksum mismatch (CRC32C \(actual), header says \(header.crc32c)): the frame was damaged in transit or forged")
        }
        guard header.payloadBytes > 0 else { return Frame(kind: header.kind, payload: []) }
        let body = UnsafeRawBufferPointer(start: base + FrameHeader.bytes, count: header.frameBytes - FrameHeader.bytes)
        // Charged before allocating; handed to the consumer with the frame, or given back here.
        try account?.reserve(header.payloadBytes, for: "a decompressed frame of \(header.payloadBytes) bytes")
        var failure: (any Error)?
        // One byte of room past the declared size: filling it proves the body expands beyond its
        // declaration (a decompression bomb is stopped there).
        let payload = [UInt8](unsafeUninitializedCapacity: header.payloadBytes + 1) { buffer, initialized in
            do {
                if let produced = try decompressor.decompress(body, into: UnsafeMutableRawBufferPointer(buffer)) {
                    initialized = produced
                } else {
                    initialized = 0
                    failure = AtollError(.protocolViolation, "frame body decompresses to more than its declared \(header.payloadBytes) bytes (stopped at the limit)")
                }
            } catch {
                initialized = 0
                failure = error
            }
        }
        if let failure {
            account?.release(header.payloadBytes)
            throw failure
        }
        guard payload.count == header.payloadBytes else {
            account?.release(header.payloadBytes)
            throw AtollError(.protocolViolation, "frame body decompresses to \(payload.count) bytes, but the frame declares \(header.payloadBytes)")
        }
        return Frame(kind: header.kind, payload: payload)
    }
}
