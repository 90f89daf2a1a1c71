/// The identity of one replica of a realm (a node): 128 random bits, created once and stored in
/// the node's file. Ties between equal clock readings are broken by comparing node ids, so the
/// order is the same on every node.
///
/// A copied file keeps its node id; two files with the same id would present themselves as one
/// node, so a copy made to start a new node must get a new identity (docs/SYNC.md).
public struct NodeID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The first 64 bits.
    public let high: UInt64
    /// The last 64 bits.
    public let low: UInt64

    /// An id from its two halves.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A new random id.
    public static func random() -> NodeID {
        var g = SystemRandomNumberGenerator()
        return NodeID(high: g.next(), low: g.next())
    }

    /// The id of the 16 bytes (big-endian halves).
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        var h: UInt64 = 0, l: UInt64 = 0
        for (i, b) in bytes.enumerated() {
            if i < 8 { h = h << 8 | UInt64(b) } else { l = l << 8 | UInt64(b) }
        }
        self.init(high: h, low: l)
    }

    /// 16 bytes, big-endian halves (so byte order is id order).
    public var bytes: [UInt8] {
        var b = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            b[i] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(i)))
            b[8 + i] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(i)))
        }
        return b
    }

    /// The zero id: "none" (never a real node; `random()` returning it is a 2^-128 event).
    public static let zero = NodeID(high: 0, low: 0)

    public static func < (a: NodeID, b: NodeID) -> Bool { (a.high, a.low) < (b.high, b.low) }

    /// 32 lowercase hex digits.
    public var description: String {
        func hex(_ v: UInt64) -> String {
            let s = String(v, radix: 16)
            return String(repeating: "0", count: 16 - s.count) + s
        }
        return hex(high) + hex(low)
    }

    /// Parses 32 hex digits.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 32, let h = UInt64(String(decoding: digits[0..<16], as: UTF8.self), radix: 16),
              let l = UInt64(String(decoding: digits[16..<32], as: UTF8.self), radix: 16)
        else { return nil }
        self.init(high: h, low: l)
    }
}
