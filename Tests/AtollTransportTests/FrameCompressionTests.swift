import AtollStorage
import Testing
@testable import AtollSync
import AtollTestSupport

/// Bytes on the wire for small field updates: the design's budget is 20 bytes per update once
/// many are batched. The messages imitate what a changeset carries for one field update (origin
/// node id, origin sequence, hybrid clock, class, primary key, property, value) in a plain binary
/// encoding; the figures are printed so a run shows them.
@Suite struct FrameCompressionTests {
    /// One field update in a plain encoding: no tricks, so compression does the work.
    static func fieldUpdate(_ i: Int, node: [UInt8], objectIds: [[UInt8]], rng: inout SeededGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes += node                                                        // origin node id
        bytes += withUnsafeBytes(of: UInt64(i + 1).littleEndian, Array.init) // origin sequence
        let hlc = UInt64(1_760_000_000_000 + i * 37) << 16 | UInt64(i % 4)
        bytes += withUnsafeBytes(of: hlc.littleEndian, Array.init)           // hybrid logical clock
        bytes += [1]                                                         // "set field"
        bytes += [4] + Array("Task".utf8)                                    // class
        bytes += [16] + objectIds[Int.random(in: 0..<objectIds.count, using: &rng)]  // primary key
        let properties = ["title", "done", "priority", "dueDate"]
        let property = properties[Int.random(in: 0..<properties.count, using: &rng)]
        bytes += [UInt8(property.utf8.count)] + Array(property.utf8)          // property
        switch property {
        case "title":
            let words = ["buy", "milk", "call", "mum", "fix", "bike", "water", "plants", "read", "book"]
            let title = "\(words[Int.random(in: 0..<10, using: &rng)]) \(words[Int.random(in: 0..<10, using: &rng)]) \(Int.random(in: 0..<100, using: &rng))"
            bytes += [3, UInt8(title.utf8.count)] + Array(title.utf8)
        case "done":
            bytes += [2, UInt8.random(in: 0...1, using: &rng)]
        default:
            bytes += [1] + withUnsafeBytes(of: Int64.random(in: 0..<10_000, using: &rng).littleEndian, Array.init)
        }
        return bytes
    }

    static func wireBytesPerUpdate(updates: Int, perFrame: Int, level: Int32) throws -> (plain: Double, wire: Double) {
        var rng = SeededGenerator(seed: 42)
        let node = randomBytes(16, &rng)
        let objectIds = (0..<500).map { _ in randomBytes(16, &rng) }
        let encoder = try FrameEncoder(compressionLevel: level)
        let decoder = try FrameDecoder()
        var plain = 0
        var wire = 0
        var i = 0
        while i < updates {
            var payload: [UInt8] = []
            for _ in 0..<min(perFrame, updates - i) {
                let update = fieldUpdate(i, node: node, objectIds: objectIds, rng: &rng)
                payload += [UInt8(update.count)] + update
                i += 1
            }
            plain += payload.count
            let bytes = try encoder.encode([Frame(kind: 1, payload: payload)])
            wire += bytes.count
            #expect(try decoder.decode(bytes) == [Frame(kind: 1, payload: payload)])
        }
        return (Double(plain) / Double(updates), Double(wire) / Double(updates))
    }

    @Test func batchedSmallFieldUpdatesTakeAtMostTwentyBytesEach() throws {
        let (plain, wire) = try Self.wireBytesPerUpdate(updates: 20_000, perFrame: 200, level: ZstdStreamParameters.levelDefault)
        print("field updates, 200 per frame: \(plain) bytes plain, \(wire) bytes on the wire per update")
        #expect(wire <= 20)
    }

    @Test func unbatchedSmallUpdatesStillCompressAgainstTheStream() throws {
        let (plain, wire) = try Self.wireBytesPerUpdate(updates: 5_000, perFrame: 1, level: ZstdStreamParameters.levelDefault)
        print("field updates, 1 per frame: \(plain) bytes plain, \(wire) bytes on the wire per update (14 of them header)")
        #expect(wire < plain * 0.75)
    }

    @Test func everyCompressionLevelStaysWithinTheBudget() throws {
        for level: Int32 in [1, 3, 6, 9] {
            let clock = ContinuousClock()
            var result = (plain: 0.0, wire: 0.0)
            let time = try clock.measure { result = try Self.wireBytesPerUpdate(updates: 5_000, perFrame: 200, level: level) }
            print("level \(level): \(result.wire) wire bytes per update (200 per frame), \(time) for 5000 updates (generate + encode + decode)")
            #expect(result.wire <= 20, "level \(level)")
        }
    }
}
