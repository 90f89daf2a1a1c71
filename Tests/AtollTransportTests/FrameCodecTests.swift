import AtollStorage
import Testing
@testable import AtollSync
import AtollTestSupport


func randomBytes(_ count: Int, _ rng: inout SeededGenerator) -> [UInt8] {
    var words = [UInt64](repeating: 0, count: (count + 7) / 8)
    for i in words.indices { words[i] = rng.next() }
    return words.withUnsafeBytes { Array($0.prefix(count)) }
}

func expectViolation(_ containing: String, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        try body()
        Issue.record("expected a protocol violation mentioning '\(containing)'", sourceLocation: sourceLocation)
    } catch let error as AtollError {
        #expect(error.kind == .protocolViolation, sourceLocation: sourceLocation)
        #expect(error.message.contains(containing), "\(error.message)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
}

/// A frame with an arbitrary header over `body`, with a correct checksum (for forging bad frames).
func forgedFrame(kind: UInt8 = 7, payloadBytes: Int, body: [UInt8]) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: FrameHeader.bytes) + body
    bytes.withUnsafeMutableBytes {
        FrameHeader.write(to: $0.baseAddress!, kind: kind, payloadBytes: payloadBytes, bodyBytes: body.count)
    }
    return bytes
}

@Suite struct FrameCodecTests {
    static let sampleFrames: [Frame] = {
        var rng = SeededGenerator(seed: 1)
        let text = Array("set Task(pk: 42).title = \"buy milk\"; set Task(pk: 42).done = true".utf8)
        return [
            Frame(kind: 1, payload: text),
            Frame(kind: 0xF0, payload: []),
            Frame(kind: 2, payload: text + text),
            Frame(kind: 3, payload: randomBytes(300, &rng)),
            Frame(kind: 255, payload: [0]),
            Frame(kind: 1, payload: text),
        ]
    }()

    @Test func framesRoundTripInOrder() throws {
        var rng = SeededGenerator(seed: 2)
        let frames = Self.sampleFrames + [
            Frame(kind: 9, payload: [UInt8](repeating: 0x41, count: 200_000)),
            Frame(kind: 10, payload: randomBytes(1 << 20, &rng)),
        ]
        let encoder = try FrameEncoder()
        let wire = try encoder.encode(frames)
        let decoder = try FrameDecoder()
        #expect(try decoder.decode(wire) == frames)
        #expect(decoder.bufferedBytes == 0)
        try decoder.finish()
    }

    @Test func everySplitPointOfTheStreamDecodesTheSameFrames() throws {
        let wire = try FrameEncoder().encode(Self.sampleFrames)
        for split in 0...wire.count {
            let decoder = try FrameDecoder()
            var got = try decoder.decode(Array(wire[..<split]))
            got += try decoder.decode(Array(wire[split...]))
            #expect(got == Self.sampleFrames, "split at \(split)")
        }
    }

    @Test func byteAtATimeAndRandomChunksDecodeTheSameFrames() throws {
        let wire = try FrameEncoder().encode(Self.sampleFrames)
        let decoder = try FrameDecoder()
        var got: [Frame] = []
        for byte in wire { got += try decoder.decode([byte]) }
        #expect(got == Self.sampleFrames)

        var rng = SeededGenerator(seed: 3)
        for _ in 0..<50 {
            let decoder = try FrameDecoder()
            var got: [Frame] = []
            var offset = 0
            while offset < wire.count {
                let n = Int.random(in: 1...64, using: &rng)
                let end = min(wire.count, offset + n)
                got += try decoder.decode(Array(wire[offset..<end]))
                offset = end
            }
            #expect(got == Self.sampleFrames)
        }
    }

    @Test func repeatedSmallMessagesCompressAgainstEarlierFrames() throws {
        let encoder = try FrameEncoder()
        let message = Array("set Task(pk: \"9f0c1e2a\").title = \"water the plants\"".utf8)
        let first = try encoder.encode([Frame(kind: 1, payload: message)]).count
        let again = try encoder.encode([Frame(kind: 1, payload: message)]).count
        #expect(again < first / 2, "first \(first) bytes, repeat \(again) bytes")
        #expect(again <= FrameHeader.bytes + 12)
    }

    @Test func aCorruptedChecksumIsRefused() throws {
        var wire = try FrameEncoder().encode([Self.sampleFrames[0]])
        wire[5] ^= 0x01
        let decoder = try FrameDecoder()
        expectViolation("checksum mismatch") { _ = try decoder.decode(wire) }
    }

    @Test func aFlippedBitAnywhereInKindSizeOrBodyIsRefused() throws {
        let wire = try FrameEncoder().encode([Self.sampleFrames[2]])
        for offset in [9, 10, 11, 12, 13] + Array(FrameHeader.bytes..<wire.count) {
            for bit in [0, 7] {
                var damaged = wire
                damaged[offset] ^= UInt8(1 << bit)
                let decoder = try FrameDecoder()
                do {
                    _ = try decoder.decode(damaged)
                    Issue.record("flip of bit \(bit) at byte \(offset) was accepted")
                } catch let error as AtollError {
                    #expect(error.kind == .protocolViolation)
                }
            }
        }
    }

    @Test func aWrongMagicByteIsRefusedWithItsValue() throws {
        var wire = try FrameEncoder().encode([Self.sampleFrames[0]])
        wire[0] = 0xA2
        expectViolation("first byte 0xA2") { _ = try FrameDecoder().decode(wire) }
        expectViolation("TLS record") { _ = try FrameDecoder().decode([0x16, 3, 1] + [UInt8](repeating: 0, count: 20)) }
        expectViolation("first byte 0x47") { _ = try FrameDecoder().decode(Array("GET / HTTP/1.1\r\n\r\n".utf8)) }
    }

    @Test func aTruncatedFrameWaitsAndThenFailsAtEndOfStream() throws {
        let wire = try FrameEncoder().encode([Self.sampleFrames[2]])
        let decoder = try FrameDecoder()
        #expect(try decoder.decode(Array(wire.dropLast())).isEmpty)
        #expect(decoder.bufferedBytes == wire.count - 1)
        expectViolation("ended in the middle of a frame") { try decoder.finish() }
    }

    @Test func oversizedDeclaredSizesAreRefusedFromTheHeaderAlone() throws {
        let limits = try FrameLimits(payloadBytesMax: 1 << 20)
        // Only the 14 header bytes are sent: refusal must not wait for (or buffer toward) the body.
        var huge = forgedFrame(payloadBytes: 100, body: [1, 2, 3])
        huge.withUnsafeMutableBytes { $0.storeBytes(of: UInt32.max.littleEndian, toByteOffset: 1, as: UInt32.self) }
        let decoder = try FrameDecoder(limits: limits)
        expectViolation("over the limit of \(limits.frameBytesMax) (frameBytesMax)") {
            _ = try decoder.decode(Array(huge.prefix(FrameHeader.bytes)))
        }
        #expect(decoder.bufferedCapacity < 64)

        let bigPayload = forgedFrame(payloadBytes: (1 << 20) + 1, body: [1, 2, 3])
        let second = try FrameDecoder(limits: limits)
        expectViolation("over the limit of 1048576 (payloadBytesMax)") {
            _ = try second.decode(Array(bigPayload.prefix(FrameHeader.bytes)))
        }
        #expect(second.bufferedCapacity < 64)

        // The same refusal when the header arrives split across chunks.
        let third = try FrameDecoder(limits: limits)
        #expect(try third.decode(Array(huge.prefix(5))).isEmpty)
        expectViolation("frameBytesMax") { _ = try third.decode(Array(huge[5..<FrameHeader.bytes])) }

        expectViolation("less than its own 14-byte header") {
            var tiny = forgedFrame(payloadBytes: 0, body: [])
            tiny[1] = 3
            _ = try FrameDecoder().decode(tiny)
        }
    }

    @Test func aFrameAtExactlyTheLimitsIsAccepted() throws {
        var rng = SeededGenerator(seed: 4)
        let limits = try FrameLimits(payloadBytesMax: 4096)
        let payload = randomBytes(4096, &rng)  // incompressible: the body is at its largest
        let wire = try FrameEncoder(limits: limits).encode([Frame(kind: 1, payload: payload)])
        #expect(wire.count <= limits.frameBytesMax)
        #expect(try FrameDecoder(limits: limits).decode(wire) == [Frame(kind: 1, payload: payload)])
    }

    @Test func aDecompressionBombIsStoppedAtItsDeclaredSize() throws {
        // 256 MiB of zeros compress to a few kilobytes; the frame claims 4 KiB.
        let compressor = try ZstdCompressor()
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var body: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: ZstdCompressor.compressedBytesBound(zeros.count))
        for _ in 0..<256 {
            let n = try zeros.withUnsafeBytes { input in
                try chunk.withUnsafeMutableBytes { try compressor.compressFlush(input, into: $0) }
            }
            body += chunk[..<n]
        }
        #expect(body.count < 64 << 10)

        let bomb = forgedFrame(payloadBytes: 4096, body: body)
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            expectViolation("decompresses to more than its declared 4096 bytes") {
                _ = try FrameDecoder().decode(bomb)
            }
        }
        // Inflating 256 MiB would take far longer than stopping after 4 KiB.
        #expect(elapsed < .seconds(2))

        // Declaring the truth is refused by the limit before decompression starts.
        let honest = forgedFrame(payloadBytes: 256 << 20, body: body)
        expectViolation("payloadBytesMax") { _ = try FrameDecoder().decode(honest) }
    }

    @Test func aBodyShorterThanItsDeclarationIsRefused() throws {
        let encoder = try FrameEncoder()
        let real = try encoder.encode([Frame(kind: 1, payload: Array(repeating: 7, count: 100))])
        let body = Array(real[FrameHeader.bytes...])
        expectViolation("decompresses to 100 bytes, but the frame declares 101") {
            _ = try FrameDecoder().decode(forgedFrame(payloadBytes: 101, body: body))
        }
        expectViolation("declares an empty payload") {
            _ = try FrameDecoder().decode(forgedFrame(payloadBytes: 0, body: body))
        }
        expectViolation("not valid zstd data") {
            _ = try FrameDecoder().decode(forgedFrame(payloadBytes: 10, body: Array("not zstd at all".utf8)))
        }
    }

    @Test func aFailedDecoderKeepsFailing() throws {
        let decoder = try FrameDecoder()
        expectViolation("first byte") { _ = try decoder.decode([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) }
        let good = try FrameEncoder().encode([Self.sampleFrames[0]])
        expectViolation("first byte") { _ = try decoder.decode(good) }
    }

    @Test func theEncoderRefusesAnOversizedPayloadAndStaysUsable() throws {
        let limits = try FrameLimits(payloadBytesMax: 1000)
        let encoder = try FrameEncoder(limits: limits)
        var wire: [UInt8] = []
        #expect(throws: AtollError.self) { try encoder.encode(Frame(kind: 1, payload: Array(repeating: 1, count: 1001)), into: &wire) }
        #expect(wire.isEmpty)
        try encoder.encode(Frame(kind: 1, payload: Array(repeating: 1, count: 1000)), into: &wire)
        #expect(try FrameDecoder(limits: limits).decode(wire) == [Frame(kind: 1, payload: Array(repeating: 1, count: 1000))])
    }

    @Test func limitsThatCannotCarryAnIncompressiblePayloadAreRejected() {
        #expect(throws: AtollError.self) { try FrameLimits(payloadBytesMax: 1 << 20, frameBytesMax: 1 << 20) }
        #expect(throws: AtollError.self) { try FrameLimits(payloadBytesMax: -1) }
        #expect(FrameLimits.default.frameBytesMax >= FrameLimits.default.payloadBytesMax)
    }
}
