import AtollStorage
@testable public import AtollSync
public import FuzzSupport

/// Decodes changeset bodies the way a receiving node does and checks that what decoded
/// survives a round trip through the encoder.
///
/// Round trips are compared as bytes (NaN is not equal to itself). Decoding repairs invalid
/// UTF-8 (U+FFFD takes 3 bytes where the bad byte took 1), which can push a name over its limit
/// when encoded again: only a body with a repaired name may fail its first round trip.
public enum BodyCheck {
    /// A changeset body (format 1) of `origin`.
    public static func changeset(_ body: [UInt8], origin: NodeID, _ outcome: Outcome) {
        guard let content = outcome.check("changeset body", { try ChangesetContent.decode(body, origin: origin) }) else { return }
        let strict = Outcome(target: outcome.target, allowedKinds: [])
        let repaired = (content.classes + content.properties).contains { $0.contains("\u{FFFD}") }
        let encoded = content.encode(origin: origin)
        let again = (repaired ? outcome : strict).check("changeset body round trip", { try ChangesetContent.decode(encoded, origin: origin) })
        guard let again else { return }
        let encodedAgain = again.encode(origin: origin)
        if !repaired { outcome.require(encodedAgain == encoded, "a changeset body encodes differently after a round trip") }
        let third = strict.check("changeset body second round trip", { try ChangesetContent.decode(encodedAgain, origin: origin) })
        outcome.require(third?.encode(origin: origin) == encodedAgain, "a changeset body does not survive a second round trip")
    }

    /// A snapshot body (format 2: every instruction with its own stamp) from `relay`.
    public static func snapshot(_ body: [UInt8], relay: NodeID, _ outcome: Outcome) {
        guard let decoded = outcome.check("snapshot body", { try decodeSnapshot(body, relay: relay) }) else { return }
        let strict = Outcome(target: outcome.target, allowedKinds: [])
        let repaired = (decoded.classes + decoded.properties).contains { $0.contains("\u{FFFD}") }
        let encoded = decoded.encode(relay: relay)
        let again = (repaired ? outcome : strict).check("snapshot round trip", { try decodeSnapshot(encoded, relay: relay) })
        guard let again else { return }
        let encodedAgain = again.encode(relay: relay)
        if !repaired { outcome.require(encodedAgain == encoded, "a snapshot body encodes differently after a round trip") }
        let third = strict.check("snapshot second round trip", { try decodeSnapshot(encodedAgain, relay: relay) })
        outcome.require(third?.encode(relay: relay) == encodedAgain, "a snapshot body does not survive a second round trip")
    }

    struct Snapshot {
        var classes: [String]
        var properties: [String]
        var entries: [(instruction: SyncInstruction, stamp: Stamp, elementNode: NodeID?, erased: Bool)] = []

        func encode(relay: NodeID) -> [UInt8] {
            var encoder = ChangesetBodyEncoder(origin: relay, explicitStamps: true)
            for c in classes { _ = encoder.classIndex(c) }
            for p in properties { _ = encoder.propertyIndex(p) }
            for e in entries { encoder.append(e.instruction, stamp: e.stamp, elementNode: e.elementNode, elementErased: e.erased) }
            return encoder.finish()
        }
    }

    static func decodeSnapshot(_ body: [UInt8], relay: NodeID) throws -> Snapshot {
        try body.withUnsafeBytes { buffer in
            var decoder = try ChangesetBodyDecoder(buffer, origin: relay, snapshot: true)
            var snapshot = Snapshot(classes: decoder.classes, properties: decoder.properties)
            while let instruction = try decoder.next() {
                snapshot.entries.append((instruction, decoder.stamp, decoder.elementNode, decoder.elementErased))
            }
            return snapshot
        }
    }
}
