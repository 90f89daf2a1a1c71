import AtollStorage

// Wire layout of one frame, version 1. All integers little-endian.
//
//   offset  size  field
//   0       1     magicVersion   0xA1: "Atoll sync frame, wire version 1"
//   1       4     frameBytes     whole frame including this header; 14 ... FrameLimits.frameBytesMax
//   5       4     crc32c         CRC32C of bytes [0, 5) followed by bytes [9, frameBytes)
//   9       1     kind           Frame.kind
//   10      4     payloadBytes   uncompressed payload size; 0 ... FrameLimits.payloadBytesMax
//   14      n     body           n = frameBytes - 14 bytes of zstd stream; empty iff payloadBytes == 0
//
// The checksum covers every byte but itself, so a flipped bit in the length, kind, declared size
// or body is caught before decompression. Bodies are successive `ZSTD_e_flush` outputs of one zstd
// stream per direction of a connection (see ZstdStream.swift): a body decompresses to exactly
// `payloadBytes` bytes given all earlier bodies of the connection, and never more; the decoder
// gives zstd `payloadBytes + 1` bytes of room and refuses the frame if it fills them.
//
// Invariants the decoder enforces before allocating: magicVersion is 0xA1; 14 <= frameBytes <=
// frameBytesMax; payloadBytes <= payloadBytesMax; body empty iff payloadBytes == 0.

/// The fixed 14-byte header in front of every frame body.
struct FrameHeader: Equatable {
    static let bytes = 14
    static let magicVersion: UInt8 = 0xA1
    /// The largest value a 32-bit size field can carry that still fits in `Int` on every platform.
    static let declaredBytesMax = Int(Int32.max)

    var frameBytes: Int
    var kind: UInt8
    var payloadBytes: Int
    var crc32c: UInt32

    /// Reads and validates a header from the first `bytes` bytes at `base`: everything here is
    /// attacker-controlled, so each field is checked before anything is sized by it.
    static func parse(_ base: UnsafeRawPointer, limits: FrameLimits) throws(AtollError) -> FrameHeader {
        let magic = base.load(as: UInt8.self)
        guard magic == magicVersion else {
            throw AtollError(.protocolViolation, magic == 0x16
                ? "received a TLS record where a frame was expected (first byte 0x16): the peer speaks TLS but this end does not"
                : "not an Atoll sync frame: first byte 0x\(hex(magic)), expected 0x\(hex(magicVersion)) (another protocol, or a peer with a different wire version)")
        }
        let frameBytes = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 1, as: UInt32.self)))
        let crc = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 5, as: UInt32.self))
        let kind = base.load(fromByteOffset: 9, as: UInt8.self)
        let payloadBytes = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 10, as: UInt32.self)))
        guard frameBytes >= FrameHeader.bytes else {
            throw AtollError(.protocolViolation, "frame declares \(frameBytes) bytes, less than its own \(FrameHeader.bytes)-byte header")
        }
        guard frameBytes <= limits.frameBytesMax else {
            throw AtollError(.protocolViolation, "frame declares \(frameBytes) bytes on the wire, over the limit of \(limits.frameBytesMax) (frameBytesMax)")
        }
        guard payloadBytes <= limits.payloadBytesMax else {
            throw AtollError(.protocolViolation, "frame declares a payload of \(payloadBytes) bytes, over the limit of \(limits.payloadBytesMax) (payloadBytesMax)")
        }
        guard (payloadBytes == 0) == (frameBytes == FrameHeader.bytes) else {
            throw AtollError(.protocolViolation, payloadBytes == 0
                ? "frame declares an empty payload but carries \(frameBytes - FrameHeader.bytes) body bytes"
                : "frame declares a payload of \(payloadBytes) bytes but carries no body")
        }
        return FrameHeader(frameBytes: frameBytes, kind: kind, payloadBytes: payloadBytes, crc32c: crc)
    }

    /// Writes the header, checksumming it together with the body already at `base + bytes`.
    static func write(
        to base: UnsafeMutableRawPointer, kind: UInt8, payloadBytes: Int, bodyBytes: Int
    ) {
        let frameBytes = bytes + bodyBytes
        base.storeBytes(of: magicVersion, as: UInt8.self)
        base.storeBytes(of: UInt32(truncatingIfNeeded: frameBytes).littleEndian, toByteOffset: 1, as: UInt32.self)
        base.storeBytes(of: kind, toByteOffset: 9, as: UInt8.self)
        base.storeBytes(of: UInt32(truncatingIfNeeded: payloadBytes).littleEndian, toByteOffset: 10, as: UInt32.self)
        let crc = checksum(UnsafeRawPointer(base), frameBytes: frameBytes)
        base.storeBytes(of: crc.littleEndian, toByteOffset: 5, as: UInt32.self)
    }

    /// CRC32C of a whole frame at `base`, skipping the checksum field itself.
    static func checksum(_ base: UnsafeRawPointer, frameBytes: Int) -> UInt32 {
        let head = CRC32C.checksum(base, count: 5)
        return CRC32C.checksum(base + 9, count: frameBytes - 9, continuing: head)
    }
}

private func hex(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16, uppercase: true)
    return digits.count == 1 ? "0" + digits : digits
}
