import AtollStorage
@testable import AtollSync
import FuzzSupport

// The wire layer: a byte stream from a peer, cut into chunks of any size, through FrameDecoder
// (header limits, CRC32C, the connection's zstd stream, declared sizes, decompression bombs),
// then each frame to its consumer: transport control frames (goodbye, token) and sync messages.
//
// Input: byte 0 = flags, byte 1 = chunking seed, then either the raw stream (flags bit 0 clear)
// or frames to encode with a real FrameEncoder and then tamper with (bit 0 set):
//     repeated: u8 kind, u16 LE payload length, payload
// Checksums are recomputed after tampering except where the flags say not to, so mutations
// reach the decompressor and the decoders behind it instead of stopping at CRC32C.
//
// Checked: outcomes are frames or `.protocolViolation`; decoding the stream whole and in
// chunks gives the same frames and the same failure; untampered encoded frames decode to
// exactly what was encoded.

private let outcome = Outcome(target: "fuzz-frame", allowedKinds: [.protocolViolation])
private let smallLimits = try! FrameLimits(payloadBytesMax: 4096)

@main
enum FrameFuzzMain {
    static func main() {
        FuzzDriver.run(seeds: FrameSeeds.all, fuzzFrame)
    }
}

func fuzzFrame(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard input.count >= 2 else { return 0 }
    let flags = input[0]
    var random = InputRandom(seed: UInt64(input[1]))
    let limits: FrameLimits = flags & 0x40 != 0 ? .admission : (flags & 0x80 != 0 ? smallLimits : .default)
    var stream: [UInt8]
    var expected: [Frame]?
    if flags & 1 != 0 {
        let frames = parseFrames(Array(input[2...]))
        guard let encoder = outcome.check("encoder", { try FrameEncoder(limits: .default) }) else { return 0 }
        var wire: [UInt8] = []
        for frame in frames {
            outcome.check("encode", { try encoder.encode(frame, into: &wire) })
        }
        stream = wire
        let tampered = tamper(&stream, mode: (flags >> 1) & 7, random: &random)
        expected = tampered ? nil : frames.filter { $0.payload.count <= limits.payloadBytesMax }
        if expected?.count != frames.count { expected = nil }
    } else {
        stream = Array(input[2...])
    }
    // Checksums: repaired everywhere, nowhere, or everywhere but one frame.
    switch (flags >> 4) & 3 {
    case 0, 1: repairChecksums(&stream, skipping: nil)
    case 2: break
    default: repairChecksums(&stream, skipping: random.below(4))
    }

    let whole = decode(stream, chunks: [stream.count], limits: limits)
    var cuts: [Int] = []
    var left = stream.count
    while left > 0 {
        let n = min(left, 1 + random.below(random.below(3) == 0 ? 4 : 64))
        cuts.append(n)
        left -= n
    }
    let chunked = decode(stream, chunks: cuts, limits: limits)
    outcome.require(whole.frames == chunked.frames, "the stream decoded whole gives \(whole.frames.count) frames, in chunks \(chunked.frames.count)")
    outcome.require(whole.failure == chunked.failure, "the stream decoded whole fails with \(String(describing: whole.failure)), in chunks with \(String(describing: chunked.failure))")
    if let expected {
        outcome.require(whole.failure == nil && whole.frames == expected, "encoded frames did not decode to themselves: \(String(describing: whole.failure))")
    }
    for frame in whole.frames { consume(frame) }
    return 0
}

/// Frames from the structured input: u8 kind, u16 LE length, payload (cut at the end of input).
private func parseFrames(_ bytes: [UInt8]) -> [Frame] {
    var frames: [Frame] = []
    var i = 0
    while i + 3 <= bytes.count, frames.count < 64 {
        let kind = bytes[i]
        let length = min(Int(bytes[i + 1]) | Int(bytes[i + 2]) << 8, bytes.count - i - 3)
        frames.append(Frame(kind: kind, payload: Array(bytes[(i + 3)..<(i + 3 + length)])))
        i += 3 + length
    }
    return frames
}

/// Damages an encoded stream in one of a few ways a hostile peer would; returns whether it did.
private func tamper(_ stream: inout [UInt8], mode: UInt8, random: inout InputRandom) -> Bool {
    let starts = frameStarts(stream)
    guard !starts.isEmpty else { return false }
    let at = starts[random.below(starts.count)]
    switch mode {
    case 1, 2:  // declare another payload size (a bomb, or a short body)
        let declared = Int(stream[at + 10]) | Int(stream[at + 11]) << 8 | Int(stream[at + 12]) << 16 | Int(stream[at + 13]) << 24
        let changed = mode == 1 ? declared + 1 + random.below(70_000) : max(0, declared - 1 - random.below(declared + 1))
        for b in 0..<4 { stream[at + 10 + b] = UInt8(truncatingIfNeeded: changed >> (8 * b)) }
    case 3:  // flip a byte of a body
        let frameBytes = Int(stream[at + 1]) | Int(stream[at + 2]) << 8 | Int(stream[at + 3]) << 16 | Int(stream[at + 4]) << 24
        guard frameBytes > 14 else { return false }
        stream[at + 14 + random.below(frameBytes - 14)] ^= UInt8(truncatingIfNeeded: 1 + random.below(255))
    case 4:  // end the stream early
        stream.removeLast(1 + random.below(stream.count))
    case 5:  // drop a whole frame (the zstd stream loses its history)
        let next = starts.first { $0 > at } ?? stream.count
        stream.removeSubrange(at..<next)
    case 6:  // change the kind
        stream[at + 9] = UInt8(truncatingIfNeeded: random.next())
    default:
        return false
    }
    return true
}

/// Where frames start, following the declared lengths while they stay inside the stream.
private func frameStarts(_ stream: [UInt8]) -> [Int] {
    var starts: [Int] = []
    var at = 0
    while at + 14 <= stream.count {
        let frameBytes = Int(stream[at + 1]) | Int(stream[at + 2]) << 8 | Int(stream[at + 3]) << 16 | Int(stream[at + 4]) << 24
        guard frameBytes >= 14, at + frameBytes <= stream.count else { break }
        starts.append(at)
        at += frameBytes
    }
    return starts
}

/// Recomputes the CRC32C of every frame that lies wholly inside the stream.
private func repairChecksums(_ stream: inout [UInt8], skipping skipped: Int?) {
    for (index, at) in frameStarts(stream).enumerated() where index != skipped {
        let frameBytes = Int(stream[at + 1]) | Int(stream[at + 2]) << 8 | Int(stream[at + 3]) << 16 | Int(stream[at + 4]) << 24
        stream.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            let crc = FrameHeader.checksum(UnsafeRawPointer(base + at), frameBytes: frameBytes)
            (base + at + 5).storeBytes(of: crc.littleEndian, as: UInt32.self)
        }
    }
}

private struct Decoded {
    var frames: [Frame] = []
    var failure: AtollError?
}

private func decode(_ stream: [UInt8], chunks: [Int], limits: FrameLimits) -> Decoded {
    var result = Decoded()
    guard let decoder = outcome.check("decoder", { try FrameDecoder(limits: limits) }) else { return result }
    var at = 0
    var decoding = true
    do {
        for n in chunks {
            try stream[at..<(at + n)].withUnsafeBytes { chunk in
                try decoder.decode(chunk) { frame in
                    outcome.require(frame.payload.count <= limits.payloadBytesMax, "a frame of \(frame.payload.count) bytes passed payloadBytesMax \(limits.payloadBytesMax)")
                    result.frames.append(frame)
                    return true
                }
            }
            at += n
        }
        decoding = false
        try decoder.finish()
    } catch let error as AtollError {
        outcome.require(error.kind == .protocolViolation, "decoding failed with .\(error.kind.rawValue): \(error.message)")
        result.failure = error
        // A decoder that failed on a frame stays failed (`finish` only reports a stream that
        // ended inside a frame).
        if decoding {
            do {
                _ = try decoder.decode([0xA1])
                outcome.violation("a failed decoder accepted more bytes")
            } catch {}
        }
    } catch {
        outcome.violation("decoding threw \(type(of: error)), not an AtollError")
    }
    outcome.require(decoder.bufferedBytes <= limits.frameBytesMax, "the decoder buffers \(decoder.bufferedBytes) bytes, over frameBytesMax")
    return result
}

/// What the connection does with a frame: transport control frames, or a sync message.
private func consume(_ frame: Frame) {
    if frame.isTransportControl {
        switch frame.kind {
        case TransportFrameKind.goodbye:
            let error = Goodbye.error(from: frame.payload)
            outcome.require(error.message.utf8.count <= Goodbye.messageBytesMax * 3 + 64, "a goodbye produced a \(error.message.utf8.count)-byte message")
        case TransportFrameKind.token:
            _ = verifier.name(for: frame.payload)
        default:
            break
        }
        return
    }
    outcome.check("message kind \(frame.kind)", { try SyncMessage(frame: frame) })
}

private let verifier = try! TokenVerifier(["secret-token": "node-a", "another": "node-b"])

enum FrameSeeds {
    static func all() throws -> [(name: String, bytes: [UInt8])] {
        let node = NodeID(bytes: [UInt8](repeating: 1, count: 16))!
        let relay = NodeID(bytes: [UInt8](repeating: 2, count: 16))!
        let body = ChangesetContent(classes: ["Dog"], properties: ["name", "age"], instructions: [
            .create(ObjectAddress(classIndex: 0, primaryKey: .int(1))),
            .set(ObjectAddress(classIndex: 0, primaryKey: .int(1)), property: 0, value: .value(.string("Rex"))),
        ]).encode(origin: node)
        let messages: [[SyncMessage]] = [
            [.hello(.init(nodeID: node, realmID: "shop", schemaFingerprint: [1, 2, 3], cursor: DownloadCursor(relayID: relay, seq: 4), versionVector: VersionVector()))],
            [.welcome(.init(relayID: relay, uploadedThrough: 3, head: 9, start: 2)), .uploadAck(through: 3, resend: false)],
            [.upload([Changeset(origin: node, seq: 1, hlc: 1 << 20, body: body)]), .markRequest(id: 1)],
            [.download(from: 0, to: 2, head: 2, changesets: [Changeset(origin: node, seq: 1, hlc: 5, body: body), Changeset(origin: relay, seq: 1, hlc: 6, body: body)])],
            [.error(code: .schemaMismatch, message: "the schema differs"), .markReply(id: 1, head: 2), .downloadAck(cursor: 2, resend: true)],
        ]
        var seeds: [(name: String, bytes: [UInt8])] = []
        for (i, batch) in messages.enumerated() {
            let frames = batch.map(\.frame)
            // Raw stream seeds: real encoder output.
            let encoder = try FrameEncoder()
            seeds.append((name: "raw-\(i)", bytes: [0, UInt8(i)] + (try encoder.encode(frames))))
            // Structured seeds: the frames to encode, untampered and tampered.
            var structured: [UInt8] = []
            for f in frames {
                structured += [f.kind, UInt8(f.payload.count & 0xFF), UInt8(f.payload.count >> 8)] + f.payload
            }
            seeds.append((name: "encode-\(i)", bytes: [1, UInt8(i)] + structured))
            seeds.append((name: "tamper-\(i)", bytes: [1 | UInt8((i % 6) + 1) << 1, UInt8(i)] + structured))
        }
        let control = [Goodbye.frame(for: AtollError(.protocolViolation, "bad frame")), Frame(kind: TransportFrameKind.token, payload: Array("secret-token".utf8)),
                       Frame(kind: TransportFrameKind.heartbeat, payload: []), Frame(kind: TransportFrameKind.accepted, payload: [])]
        seeds.append((name: "control", bytes: [0x40, 0] + (try FrameEncoder().encode(control))))
        return seeds
    }
}
