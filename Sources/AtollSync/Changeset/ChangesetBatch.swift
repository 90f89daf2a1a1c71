package import AtollStorage

/// Many changesets in one message body.
///
///     originCount, originCount × 16-byte node id
///     changesetCount, per changeset:
///         origin index, seq − previous seq of that origin in the batch (the first: seq itself),
///         zigzag(hlc − previous changeset's hlc), u8 flags, body length, body
///
/// Consecutive changesets of one origin cost a few header bytes; the zstd compression of the
/// frame then takes care of repeated names inside bodies.
public enum ChangesetBatch {
    package static func encode(_ changesets: some Collection<Changeset>, into w: inout ByteWriter) {
        var origins: [NodeID] = []
        var originIndex: [NodeID: Int] = [:]
        for c in changesets where originIndex[c.origin] == nil {
            originIndex[c.origin] = origins.count
            origins.append(c.origin)
        }
        w.varint(UInt64(origins.count))
        for o in origins { w.append(o.bytes) }
        w.varint(UInt64(changesets.count))
        var previousSeq = [UInt64](repeating: 0, count: origins.count)
        var previousHLC: HLCTimestamp = 0
        for c in changesets {
            let i = originIndex[c.origin] ?? 0
            w.varint(UInt64(i))
            w.varint(c.seq &- previousSeq[i])
            previousSeq[i] = c.seq
            w.zigzag(Int64(bitPattern: c.hlc &- previousHLC))
            previousHLC = c.hlc
            w.u8(c.flags)
            w.blob(c.body)
        }
    }

    /// The changesets of an encoded batch.
    ///
    /// - Throws: `.protocolViolation` for bytes that are not a valid batch.
    public static func decode(_ bytes: [UInt8]) throws -> [Changeset] {
        try bytes.withUnsafeBytes { buffer in
            var r = ByteReader(buffer, context: "changeset batch", source: .peer)
            let result = try decode(from: &r)
            guard r.isAtEnd else { throw AtollError(.protocolViolation, "\(r.remaining) bytes after a changeset batch") }
            return result
        }
    }

    /// The batch encoding of `changesets`.
    public static func encode(_ changesets: some Collection<Changeset>) -> [UInt8] {
        var w = ByteWriter(capacity: changesets.reduce(16) { $0 + $1.body.count + 24 })
        encode(changesets, into: &w)
        return w.bytes
    }

    /// Decodes a batch, checking counts against `SyncLimits` and that each origin's sequence
    /// numbers increase. Bodies are not decoded here.
    package static func decode(from r: inout ByteReader) throws -> [Changeset] {
        do {
            let originCount = try r.length(max: min(SyncLimits.batchChangesetsMax, r.remaining / 16))
            var origins: [NodeID] = []
            origins.reserveCapacity(originCount)
            for _ in 0..<originCount {
                guard let n = NodeID(bytes: try r.bytes(16)) else { throw AtollError(.protocolViolation, "bad node id") }
                origins.append(n)
            }
            let count = try r.length(max: min(SyncLimits.batchChangesetsMax, r.remaining / 4))
            guard originCount <= count else { throw AtollError(.protocolViolation, "a batch names \(originCount) origins for \(count) changesets") }
            var previousSeq = [UInt64](repeating: 0, count: originCount)
            var previousHLC: HLCTimestamp = 0
            var result: [Changeset] = []
            result.reserveCapacity(count)
            for _ in 0..<count {
                guard originCount > 0 else { throw AtollError(.protocolViolation, "a batch with changesets names no origin") }
                let i = try r.length(max: originCount - 1)
                let delta = try r.varint()
                let (seq, overflow) = previousSeq[i].addingReportingOverflow(delta)
                guard delta >= 1, !overflow else { throw AtollError(.protocolViolation, "sequence numbers of one origin must increase within a batch") }
                previousSeq[i] = seq
                let hlc = previousHLC &+ UInt64(bitPattern: try r.zigzag())
                previousHLC = hlc
                let flags = try r.u8()
                guard flags & ~Changeset.knownFlags == 0, flags != Changeset.knownFlags else { throw AtollError(.protocolViolation, "unknown changeset flags \(flags)") }
                let body = try r.blob(max: SyncLimits.changesetBodyBytesMax)
                result.append(Changeset(origin: origins[i], seq: seq, hlc: hlc, flags: flags, body: body))
            }
            return result
        } catch let e as AtollError {
            throw e.kind == .protocolViolation ? e : AtollError(.protocolViolation, "malformed changeset batch: \(e.message)")
        }
    }
}
