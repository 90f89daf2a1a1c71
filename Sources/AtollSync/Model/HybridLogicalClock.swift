/// A hybrid logical clock reading: physical milliseconds since 1970 in the high 48 bits, a
/// logical counter in the low 16 bits. Readings compare as plain integers.
///
/// 48 bits of milliseconds last until the year 10889; when more than 65,536 events happen in
/// one millisecond the counter carries into the millisecond part, which is harmless: readings
/// stay unique and increasing, and the physical part runs a little ahead.
public typealias HLCTimestamp = UInt64

/// The total order every conflict is decided by: a clock reading, then the node id, then the
/// instruction's position in its changeset.
///
/// Every changeset carries its origin's clock reading when it was made; its instructions are
/// stamped (reading, origin, index), so that two instructions of one transaction are ordered as
/// they were made (delete then re-create, write then increment) and no two instructions anywhere
/// share a stamp. The same comparison gives the same answer on every node.
public struct Stamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The clock reading.
    public var hlc: HLCTimestamp
    /// The node that made the change.
    public var node: NodeID
    /// The instruction's position in its changeset.
    public var index: UInt32

    /// A stamp.
    public init(hlc: HLCTimestamp, node: NodeID, index: UInt32 = 0) {
        self.hlc = hlc
        self.node = node
        self.index = index
    }

    /// Below every real stamp.
    public static let zero = Stamp(hlc: 0, node: .zero)

    public static func < (a: Stamp, b: Stamp) -> Bool {
        if a.hlc != b.hlc { return a.hlc < b.hlc }
        if a.node != b.node { return a.node < b.node }
        return a.index < b.index
    }

    /// The stamp of instruction `index` of the same changeset.
    public func at(_ index: Int) -> Stamp { Stamp(hlc: hlc, node: node, index: UInt32(truncatingIfNeeded: index)) }

    public var description: String {
        "\(HybridLogicalClock.physicalMilliseconds(of: hlc)).\(hlc & 0xFFFF)@\(node.description.prefix(8))#\(index)"
    }
}

/// A hybrid logical clock (Kulkarni et al.): readings follow physical time while it moves
/// forward, never go backwards (the last reading is persisted with every sync commit, so a
/// restart or a clock stepped back cannot reuse a reading), and move past every remote reading
/// observed, so a change made after seeing another is stamped after it.
///
/// A remote reading more than `maxForwardDriftMilliseconds` ahead of local physical time is
/// not trusted: the clock advances only to that bound, and `observe` reports the event. (The
/// remote changeset itself keeps its stamp, which every node must agree on.)
///
/// ```swift
/// var clock = HybridLogicalClock(last: persisted)
/// let stamp = clock.tick(physicalMilliseconds: now)     // strictly greater than `persisted`
/// ```
public struct HybridLogicalClock: Sendable, Equatable {
    /// The last reading given out or observed.
    public private(set) var last: HLCTimestamp

    /// The low bits of a reading that hold the logical counter.
    public static let logicalBits: UInt64 = 16
    /// The default bound on how far ahead of local time a remote reading is believed (1 minute).
    public static let maxForwardDriftMillisecondsDefault: UInt64 = 60_000
    /// Physical times are clamped to this (2^48 - 1 ms) so a reading never overflows.
    public static let physicalMillisecondsMax: UInt64 = (1 << 48) - 1

    /// A clock that never gives out `last` or anything before it.
    public init(last: HLCTimestamp = 0) { self.last = last }

    /// The physical milliseconds of a reading.
    public static func physicalMilliseconds(of t: HLCTimestamp) -> UInt64 { t >> logicalBits }

    static func reading(physical: UInt64) -> HLCTimestamp { min(physical, physicalMillisecondsMax) << logicalBits }

    /// A new reading for a local event: greater than every earlier reading, and at least the
    /// physical time.
    public mutating func tick(physicalMilliseconds now: UInt64) -> HLCTimestamp {
        let p = Self.reading(physical: now)
        // `last` is at most the reading of physicalMillisecondsMax + bound (observe caps it), so
        // the increment cannot overflow.
        last = max(last &+ 1, p)
        return last
    }

    /// Moves the clock to at least `reading` (a local change must be stamped after the data it
    /// overwrites, even data stamped by a clock that was ahead).
    public mutating func advance(to reading: HLCTimestamp) {
        last = max(last, reading)
    }

    /// Takes a remote reading into account. Returns false when the reading was implausibly far
    /// in the future and the clock moved only to the bound.
    @discardableResult
    public mutating func observe(_ remote: HLCTimestamp, physicalMilliseconds now: UInt64,
                                 maxForwardDriftMilliseconds drift: UInt64 = maxForwardDriftMillisecondsDefault) -> Bool
    {
        let bound = Self.reading(physical: now &+ min(drift, Self.physicalMillisecondsMax)) | 0xFFFF
        if remote > bound {
            last = max(last, bound)
            return false
        }
        last = max(last, remote)
        return true
    }
}
