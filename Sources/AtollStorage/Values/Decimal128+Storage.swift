// The stored form of a Decimal128: 16 bytes, the low word first, each word little-endian
// (the byte order of realm-core's files and of BSON). Used by cluster leaves, list values, the
// transaction log and sync payloads alike.

extension Decimal128 {
    /// The value stored in `bytes` (16 of them). Sixteen zero bytes, the contents of a row
    /// nobody wrote (a column added by a migration), read as `0` (0E0): the encoding they
    /// spell, 0E-6176, is the same value but would print as such.
    init(littleEndianBytes bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 16, let p = bytes.baseAddress else { self.init(); return }
        let (high, low) = (p.u64(8), p.u64(0))
        if high == 0 && low == 0 { self.init(); return }
        self.init(high: high, low: low)
    }

    func store(to p: UnsafeMutableRawPointer) {
        p.setU64(0, low)
        p.setU64(8, high)
    }

    func write(to w: inout ByteWriter) {
        w.u64(low)
        w.u64(high)
    }

    /// The 16 stored bytes.
    public var littleEndianBytes: [UInt8] {
        var w = ByteWriter(capacity: 16)
        write(to: &w)
        return w.bytes
    }

    /// The value from its 16 stored bytes, or nil if `bytes` does not hold exactly 16.
    public init?(littleEndianBytes bytes: some Collection<UInt8>) {
        let array = Array(bytes)
        guard array.count == 16 else { return nil }
        self = array.withUnsafeBytes { Decimal128(littleEndianBytes: $0) }
    }

    /// An order-preserving, canonical key: equal values (`1.0`, `1`) give equal bytes and the
    /// bytes sort as `compare` orders the values. 18 bytes:
    ///
    ///     class    1 byte: NaN 0, -∞ 1, negative 2, zero 3, positive 4, +∞ 5
    ///     finite non-zero: 2 bytes big-endian of (position of the leading digit + 8192), then the
    ///              coefficient scaled to 34 digits, 15 bytes big-endian (both complemented when
    ///              negative)
    ///     NaN:     `high` and `low` big-endian, then a zero byte (NaNs order by their bits)
    ///     others:  17 zero bytes
    package var orderedKey: [UInt8] {
        var w = ByteWriter(capacity: 18)
        if isNaN {
            w.u8(0)
            w.u64BigEndian(high)
            w.u64BigEndian(low)
            w.u8(0)
            return w.bytes
        }
        if isInfinite {
            w.u8(isSignMinus ? 1 : 5)
            w.append(repeatElement(0, count: 17))
            return w.bytes
        }
        let c = coefficient
        if c == 0 {
            w.u8(3)
            w.append(repeatElement(0, count: 17))
            return w.bytes
        }
        let digits = Self.digitCount(c)
        let position = UInt16(digits + exponent + 8192)
        let scaled = c * Self.pow10(Self.digitsMax - digits)  // < 10^34 < 2^120: 15 bytes
        var body = ByteWriter(capacity: 17)
        body.u8(UInt8(truncatingIfNeeded: position >> 8))
        body.u8(UInt8(truncatingIfNeeded: position))
        for shift in stride(from: 112, through: 0, by: -8) { body.u8(UInt8(truncatingIfNeeded: scaled >> UInt128(shift))) }
        w.u8(isSignMinus ? 2 : 4)
        w.append(isSignMinus ? body.bytes.map { ~$0 } : body.bytes)
        return w.bytes
    }
}
