/// A 128-bit IEEE 754-2008 decimal floating-point number in the binary integer decimal (BID)
/// encoding, bit for bit as Realm (realm-core `Decimal128`) and MongoDB (BSON type 0x13) store it.
///
/// Layout of the 128 bits (`high` is bits 127..64, `low` bits 63..0):
///
/// | bits     | meaning                                                                 |
/// |----------|-------------------------------------------------------------------------|
/// | 127      | sign                                                                    |
/// | 126..113 | biased exponent (bias 6176, exponents -6176...6111) when bits 126..125 ≠ 11 |
/// | 112..0   | coefficient (at most 10^34 - 1; a larger one is non-canonical and means 0) |
/// | 126..122 | 11110 = infinity, 11111 = NaN (bit 121 set: signalling)                 |
///
/// A value is `coefficient × 10^exponent`; `1.0` (10 × 10^-1) and `1` (1 × 10^0) are different
/// encodings of equal values. Stored on disk and on the wire as 16 bytes, `low` first, each
/// word little-endian (MongoDB's and realm-core's byte order).
///
/// The type stores, parses, prints and compares; it has no arithmetic (Realm's own queries
/// need none, and `min`/`max` aggregate by comparison).
///
/// ```swift
/// let price = try Decimal128(string: "19.99")
/// assert(price == Decimal128(string: "19.990") && price < Decimal128(20))
/// print(price)                               // "19.99"
/// ```
///
/// Comparison is exact (no conversion through `Double`) and total, as realm-core orders values:
/// NaN sorts first (NaNs among themselves by their bits), then -∞, the finite values, +∞.
/// `==` is numeric equality (`+0 == -0`, `1.0 == 1`); two NaNs are equal only when their bits are.
public struct Decimal128: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Bits 127..64: sign, exponent (or special marker) and the high 49 coefficient bits.
    public let high: UInt64
    /// Bits 63..0 of the coefficient.
    public let low: UInt64

    /// The number of bytes of the stored form.
    public static let byteCount = 16
    /// The most significant decimal digits a coefficient holds.
    public static let digitsMax = 34
    static let exponentBias = 6176
    static let exponentMin = -6176
    static let exponentMax = 6111
    /// 10^34 - 1, the largest canonical coefficient.
    static let coefficientMax: UInt128 = 9_999_999_999_999_999_999_999_999_999_999_999
    static let signMask: UInt64 = 1 << 63
    static let specialMask: UInt64 = 0x6000_0000_0000_0000
    static let infinityMask: UInt64 = 0x7800_0000_0000_0000
    static let nanMask: UInt64 = 0x7C00_0000_0000_0000

    /// The value with exactly these bits.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Zero (`0E0`), as RealmSwift's `Decimal128()`.
    public init() { self.init(high: UInt64(Self.exponentBias) << 49, low: 0) }

    /// `coefficient × 10^exponent` for a canonical coefficient and an in-range exponent.
    init(negative: Bool, coefficient: UInt128, exponent: Int) {
        assert(coefficient <= Self.coefficientMax && exponent >= Self.exponentMin && exponent <= Self.exponentMax)
        let biased = UInt64(exponent + Self.exponentBias)
        self.init(high: (negative ? Self.signMask : 0) | biased << 49 | UInt64(truncatingIfNeeded: coefficient >> 64),
                  low: UInt64(truncatingIfNeeded: coefficient))
    }

    /// A quiet NaN (the value realm-core produces for text that is not a number).
    public static let nan = Decimal128(high: nanMask, low: 0)
    /// Positive infinity.
    public static let infinity = Decimal128(high: infinityMask, low: 0)
    /// The largest finite value, 9.999…9 (34 nines) × 10^6144.
    public static let max = Decimal128(negative: false, coefficient: coefficientMax, exponent: exponentMax)
    /// The smallest (most negative) finite value.
    public static let min = Decimal128(negative: true, coefficient: coefficientMax, exponent: exponentMax)

    // MARK: classification

    /// Whether the sign bit is set (true for -0 and -∞ too).
    public var isSignMinus: Bool { high & Self.signMask != 0 }

    /// Whether the value is a NaN (quiet or signalling).
    public var isNaN: Bool { high & Self.nanMask == Self.nanMask }

    /// Whether the value is +∞ or -∞.
    public var isInfinite: Bool { high & Self.nanMask == Self.infinityMask }

    /// Whether the value is neither NaN nor infinite.
    public var isFinite: Bool { high & Self.infinityMask != Self.infinityMask }

    /// Whether the value is a (positive or negative) zero, in any exponent.
    public var isZero: Bool { isFinite && coefficient == 0 }

    /// The coefficient of a finite value (0 for a non-canonical encoding, as IEEE 754 requires).
    var coefficient: UInt128 {
        guard isFinite else { return 0 }
        if high & Self.specialMask == Self.specialMask { return 0 }  // form 2: always > 10^34 - 1
        let c = UInt128(high & 0x0001_FFFF_FFFF_FFFF) << 64 | UInt128(low)
        return c > Self.coefficientMax ? 0 : c
    }

    /// The unbiased exponent of a finite value.
    var exponent: Int {
        if high & Self.specialMask == Self.specialMask { return Int((high >> 47) & 0x3FFF) - Self.exponentBias }
        return Int((high >> 49) & 0x3FFF) - Self.exponentBias
    }

    /// The absolute value (the sign bit cleared; exact).
    public var magnitude: Decimal128 { Decimal128(high: high & ~Self.signMask, low: low) }

    /// Flips the sign (exact).
    public mutating func negate() { self = Decimal128(high: high ^ Self.signMask, low: low) }

    // MARK: comparison

    /// -1, 0 or 1 as realm-core's `Decimal128::compare`: a total order with NaN first.
    public func compare(_ other: Decimal128) -> Int {
        switch (isNaN, other.isNaN) {
        case (true, true):
            if high != other.high { return high < other.high ? -1 : 1 }
            return low == other.low ? 0 : (low < other.low ? -1 : 1)
        case (true, false): return -1
        case (false, true): return 1
        case (false, false): break
        }
        let a = isZero ? 0 : (isSignMinus ? -1 : 1)
        let b = other.isZero ? 0 : (other.isSignMinus ? -1 : 1)
        if a != b { return a < b ? -1 : 1 }
        if a == 0 { return 0 }
        let magnitudeOrder = Self.compareMagnitudes(self, other)
        return a > 0 ? magnitudeOrder : -magnitudeOrder
    }

    /// Orders |x| and |y| for non-zero, non-NaN values.
    private static func compareMagnitudes(_ x: Decimal128, _ y: Decimal128) -> Int {
        switch (x.isInfinite, y.isInfinite) {
        case (true, true): return 0
        case (true, false): return 1
        case (false, true): return -1
        case (false, false): break
        }
        let (cx, ex) = (x.coefficient, x.exponent)
        let (cy, ey) = (y.coefficient, y.exponent)
        // The position of the most significant digit decides unless it is the same.
        let topX = digitCount(cx) + ex
        let topY = digitCount(cy) + ey
        if topX != topY { return topX < topY ? -1 : 1 }
        // Same leading position: scaling the one with the larger exponent keeps it within
        // 34 digits (its digit count grows to the other's).
        var (sx, sy) = (cx, cy)
        if ex > ey { sx *= pow10(ex - ey) } else if ey > ex { sy *= pow10(ey - ex) }
        return sx == sy ? 0 : (sx < sy ? -1 : 1)
    }

    public static func < (lhs: Decimal128, rhs: Decimal128) -> Bool { lhs.compare(rhs) < 0 }

    public static func == (lhs: Decimal128, rhs: Decimal128) -> Bool { lhs.compare(rhs) == 0 }

    /// Hashes the value, not the encoding: equal values (`1.0`, `1`) hash alike.
    public func hash(into hasher: inout Hasher) {
        if isNaN { hasher.combine(high); hasher.combine(low); return }
        if isInfinite { hasher.combine(isSignMinus ? -1 : 1); hasher.combine(UInt8(0xFF)); return }
        var c = coefficient
        if c == 0 { hasher.combine(0); return }
        var e = exponent
        while c % 10 == 0 { c /= 10; e += 1 }
        hasher.combine(isSignMinus)
        hasher.combine(c)
        hasher.combine(e)
    }

    // MARK: digits

    static func pow10(_ n: Int) -> UInt128 {
        var r: UInt128 = 1
        for _ in 0..<n { r *= 10 }
        return r
    }

    static func digitCount(_ c: UInt128) -> Int {
        var n = 1
        var v = c
        while v >= 10 { v /= 10; n += 1 }
        return n
    }

    /// `c / 10^n` rounded half to even (IEEE 754's default rounding).
    static func roundingDivide(_ c: UInt128, byPowerOfTen n: Int) -> UInt128 {
        if n <= 0 { return c }
        if n > 38 { return 0 }
        let d = pow10(n)
        let (q, r) = c.quotientAndRemainder(dividingBy: d)
        let half = d / 2
        if r > half || (r == half && q & 1 == 1) { return q + 1 }
        return q
    }

    /// The nearest value to `coefficient × 10^exponent` for any coefficient of up to 38 digits
    /// and any exponent: too many digits round (half to even), an exponent past the range
    /// clamps (adding zeros) or overflows to infinity, one below it rounds toward zero.
    static func make(negative: Bool, coefficient: UInt128, exponent: Int) -> Decimal128 {
        var c = coefficient
        var e = exponent
        if c == 0 {
            return Decimal128(negative: negative, coefficient: 0, exponent: Swift.min(Swift.max(e, exponentMin), exponentMax))
        }
        let excess = digitCount(c) - digitsMax
        if excess > 0 {
            c = roundingDivide(c, byPowerOfTen: excess)
            e += excess
            if c > coefficientMax { c /= 10; e += 1 }
        }
        if e < exponentMin {
            c = roundingDivide(c, byPowerOfTen: exponentMin - e)
            e = exponentMin
        }
        while e > exponentMax, c != 0, c * 10 <= coefficientMax {
            c *= 10
            e -= 1
        }
        if e > exponentMax {
            if c == 0 { e = exponentMax } else { return negative ? Decimal128(high: infinityMask | signMask, low: 0) : .infinity }
        }
        return Decimal128(negative: negative, coefficient: c, exponent: e)
    }
}
