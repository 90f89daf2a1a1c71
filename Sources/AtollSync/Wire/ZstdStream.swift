import AtollStorage
import CZstd

// One zstd stream per direction per connection. Frame bodies are successive flushes of one stream
// (`ZSTD_e_flush`), so each small message is compressed against the history of everything sent
// before it on the connection: field names, class names, node ids and primary keys repeat from
// message to message, and after the first occurrence they cost a few bits instead of their length.
// The price is that frames must be decoded in order and a damaged frame ends the connection, which
// TCP ordering and the close-on-error rule already require.
//
// zstd contexts import as `OpaquePointer` (not `Sendable`), so each wrapper is a non-Sendable class
// owned by one connection's codec and confined to that connection's event loop.

/// Parameters of the compressed stream, fixed by the wire version: both ends must agree.
enum ZstdStreamParameters {
    /// log2 of the back-reference window. It bounds the memory a peer can make the decompressor
    /// reserve (`ZSTD_d_windowLogMax`) and the compressor's history; 512 KiB of history covers
    /// thousands of recent small messages, and large catch-up batches lose little to it.
    static let windowLog: Int32 = 19
    /// Compression level for frame bodies. Small flushed messages gain little from higher levels,
    /// large batches gain a few percent at several times the CPU (see `FrameCodecBenchmarkTests`).
    static let levelDefault: Int32 = 3
    /// log2 of the compressor's match-finder tables (entries of its hash and chain tables). Level 3
    /// would size them for large inputs (2^17 and 2^16 entries); zstd clears them when a stream
    /// starts, so every connection's resident memory paid for them (about 850 KiB per connection
    /// with the decompressor, against about 210 KiB with 2^14, measured with libzstd 1.5). Only
    /// the sender uses them: the wire format and the decoder are unchanged.
    static let matchTablesLog: Int32 = 14
}

/// The compressing half of a connection's zstd stream.
final class ZstdCompressor {
    private let context: OpaquePointer

    init(level: Int32 = ZstdStreamParameters.levelDefault) throws(AtollError) {
        guard let context = ZSTD_createCCtx() else {
            throw AtollError(.ioError, "zstd could not allocate a compression context")
        }
        self.context = context
        try check(ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level), "set compression level")
        try check(ZSTD_CCtx_setParameter(context, ZSTD_c_windowLog, ZstdStreamParameters.windowLog), "set window")
        try check(ZSTD_CCtx_setParameter(context, ZSTD_c_hashLog, ZstdStreamParameters.matchTablesLog), "set hash table size")
        try check(ZSTD_CCtx_setParameter(context, ZSTD_c_chainLog, ZstdStreamParameters.matchTablesLog), "set chain table size")
        // The frame header carries its own CRC32C over the compressed bytes.
        try check(ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 0), "disable zstd checksum")
    }

    deinit { ZSTD_freeCCtx(context) }

    /// The most bytes `compressFlush` can produce for `count` input bytes: zstd's bound for a frame
    /// of that size plus a frame header (only on the first flush) and the empty block a flush can
    /// end with.
    static func compressedBytesBound(_ count: Int) -> Int {
        ZSTD_compressBound(count) + 32
    }

    /// Compresses `input` and flushes it, writing into `output` (at least `compressedBytesBound`
    /// bytes). Returns the number of bytes written. After this the receiver can decompress
    /// everything sent so far.
    func compressFlush(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(AtollError) -> Int {
        var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        var outBuffer = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
        while true {
            let remaining = ZSTD_compressStream2(context, &outBuffer, &inBuffer, ZSTD_e_flush)
            try check(remaining, "compress")
            if remaining == 0 && inBuffer.pos == inBuffer.size { return outBuffer.pos }
            // With an output of `compressedBytesBound` this cannot happen; if it did the stream
            // state would be ahead of what was written, so the connection cannot continue.
            guard outBuffer.pos < outBuffer.size else {
                throw AtollError(.ioError, "zstd produced more than its bound for \(input.count) bytes; the connection's compressed stream is unusable")
            }
        }
    }

    /// Memory held by the context (history window and match tables).
    var memoryBytes: Int { ZSTD_sizeof_CCtx(context) }
}

/// The decompressing half of a connection's zstd stream.
final class ZstdDecompressor {
    private let context: OpaquePointer

    init() throws(AtollError) {
        guard let context = ZSTD_createDCtx() else {
            throw AtollError(.ioError, "zstd could not allocate a decompression context")
        }
        self.context = context
        try check(ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, ZstdStreamParameters.windowLog), "limit window")
    }

    deinit { ZSTD_freeDCtx(context) }

    /// Decompresses all of `input` into `output` and returns the number of bytes produced, or nil
    /// if the output filled up: give it one byte more than the size you expect, so a full output
    /// means the input expands to more than that. A peer's bytes can never make this write past
    /// `output`, reserve more than the window limit, or loop without progress.
    func decompress(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(AtollError) -> Int? {
        var inBuffer = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        var outBuffer = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
        while inBuffer.pos < inBuffer.size {
            guard outBuffer.pos < outBuffer.size else { return nil }
            let before = (inBuffer.pos, outBuffer.pos)
            let code = ZSTD_decompressStream(context, &outBuffer, &inBuffer)
            if ZSTD_isError(code) != 0 {
                throw AtollError(.protocolViolation, "frame body is not valid zstd data (\(String(cString: ZSTD_getErrorName(code))))")
            }
            guard (inBuffer.pos, outBuffer.pos) != before else {
                throw AtollError(.protocolViolation, "frame body stalled the zstd decoder")
            }
        }
        return outBuffer.pos < outBuffer.size ? outBuffer.pos : nil
    }

    var memoryBytes: Int { ZSTD_sizeof_DCtx(context) }
}

@inline(__always)
private func check(_ code: Int, _ what: String) throws(AtollError) {
    if ZSTD_isError(code) != 0 {
        throw AtollError(.ioError, "zstd failed to \(what): \(String(cString: ZSTD_getErrorName(code)))")
    }
}
