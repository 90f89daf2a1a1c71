// Decimal128 from and to binary numbers.
//
// From an integer: exact (exponent 0), as realm-core's `Decimal128(int64_t)`.
// From a Double: realm-core's `Decimal128(double)` (ported from MongoDB), so that a value read
// from a Double compares equal to the same number written as text: the double's exact value
// (exponent 0 for an integer, the shortest exact decimal for other values that fit 34 digits,
// otherwise rounded to 34 digits) and then, if that has more than 15 significant digits,
// quantized to 15 (`3.14159` becomes 3.14159000000000, equal to `Decimal128("3.14159")`).

import Foundation

extension Decimal128 {
    /// The integer `value`, exactly.
    public init(_ value: Int64) {
        self.init(negative: value < 0, coefficient: UInt128(value.magnitude), exponent: 0)
    }

    /// The integer `value`, exactly.
    public init(_ value: Int) { self.init(Int64(value)) }

    /// The Double `value` rounded to 15 significant digits as realm-core converts it
    /// (NaN and ±∞ map to NaN and ±∞).
    public init(_ value: Double) {
        if value.isNaN { self = .nan; return }
        if value.isInfinite { self = Decimal128(high: Self.infinityMask | (value < 0 ? Self.signMask : 0), low: 0); return }
        let negative = value.sign == .minus
        if value == 0 { self.init(negative: negative, coefficient: 0, exponent: 0); return }
        let (c, e) = Self.exactOrNearest34(value.magnitude)
        let fifteenDigitsMax: UInt128 = 999_999_999_999_999
        guard c > fifteenDigitsMax else { self.init(negative: negative, coefficient: c, exponent: e); return }
        // realm-core estimates the decimal exponent from the binary one, quantizes to 15 digits
        // below it, and retries one place higher if that left 16.
        let base2Exponent = value.magnitude.exponent
        var base10Exponent = (Int(base2Exponent) * 30103) / 100_000
        if base2Exponent < 0 { base10Exponent -= 1 }
        var quantized = Self.quantize(c, e, to: base10Exponent - 14)
        if quantized.coefficient > fifteenDigitsMax { quantized = Self.quantize(c, e, to: base10Exponent - 13) }
        self = Self.make(negative: negative, coefficient: quantized.coefficient, exponent: quantized.exponent)
    }

    /// The Double's value to 34 significant digits (exact for most doubles; distinct doubles
    /// stay distinct), without realm-core's rounding to 15: for keys that must tell doubles apart.
    package init(exactly value: Double) {
        if value.isNaN { self = .nan; return }
        if value.isInfinite { self = Decimal128(high: Self.infinityMask | (value < 0 ? Self.signMask : 0), low: 0); return }
        if value == 0 { self.init(); return }
        let (c, e) = Self.exactOrNearest34(value.magnitude)
        self = Self.make(negative: value < 0, coefficient: c, exponent: e)
    }

    /// The Float `value`, through Double (RealmSwift converts floats the same way).
    public init(_ value: Float) { self.init(Double(value)) }

    /// `c × 10^e` re-expressed with exponent `q` (rounding half to even when digits drop).
    private static func quantize(_ c: UInt128, _ e: Int, to q: Int) -> (coefficient: UInt128, exponent: Int) {
        if q >= e { return (roundingDivide(c, byPowerOfTen: q - e), q) }
        // A lower exponent only appends zeros; realm-core's estimate never asks for more than
        // 34 digits, but stay within them regardless.
        var r = c
        var exponent = e
        while exponent > q, r * 10 <= coefficientMax { r *= 10; exponent -= 1 }
        return (r, exponent)
    }

    /// The exact decimal value of a positive finite double when it has at most 34 digits
    /// (exponent 0 for integers, the shortest form otherwise), else its 34-digit rounding.
    private static func exactOrNearest34(_ v: Double) -> (UInt128, Int) {
        var m = UInt128(v.significandBitPattern) | (v.isNormal ? UInt128(1) << 52 : 0)
        var e2 = Int(v.exponent) - 52
        if !v.isNormal { e2 = -1074 }
        while m & 1 == 0 { m >>= 1; e2 += 1 }
        if e2 >= 0 {
            // An integer m × 2^e2: exact if it is below 10^34.
            if e2 < 113, m.leadingZeroBitCount > e2, (m << e2) <= coefficientMax { return (m << e2, 0) }
        } else {
            // m / 2^k = m × 5^k / 10^k: exact if m × 5^k fits 34 digits (k ≤ 48 since 5^49 > 10^34).
            let k = -e2
            if k <= 48 {
                var product = m
                var fits = true
                for _ in 0..<k {
                    let (p, overflow) = product.multipliedReportingOverflow(by: 5)
                    if overflow || p > coefficientMax { fits = false; break }
                    product = p
                }
                if fits { return (product, -k) }
            }
        }
        // Inexact: the C library prints the correctly rounded 34 significant digits.
        let text = String(format: "%.33e", v)
        guard let parsed = parse(Array(text.utf8)), parsed.isFinite else { return (0, 0) }
        return (parsed.coefficient, parsed.exponent)
    }

    /// The nearest Double (NaN for NaN, ±∞ for ±∞ and values beyond Double's range).
    public var doubleValue: Double {
        if isNaN { return .nan }
        if isInfinite { return isSignMinus ? -.infinity : .infinity }
        let magnitude = Double("\(coefficient)e\(exponent)") ?? 0
        return isSignMinus ? -magnitude : magnitude
    }

    /// The value as an Int64 if it is an integer in Int64's range.
    public var exactInt64: Int64? {
        guard isFinite else { return nil }
        var c = coefficient
        var e = exponent
        if c == 0 { return 0 }
        while e < 0 {
            guard c % 10 == 0 else { return nil }
            c /= 10
            e += 1
        }
        while e > 0 {
            let (p, overflow) = c.multipliedReportingOverflow(by: 10)
            guard !overflow, p <= UInt128(UInt64.max) else { return nil }
            c = p
            e -= 1
        }
        if isSignMinus {
            guard c <= UInt128(Int64.max) + 1 else { return nil }
            return c == UInt128(Int64.max) + 1 ? Int64.min : -Int64(c)
        }
        guard c <= UInt128(Int64.max) else { return nil }
        return Int64(c)
    }

    /// Compares with an integer exactly.
    public func compare(_ other: Int64) -> Int { compare(Decimal128(other)) }

    /// Compares with a Double as realm-core's query engine does: the Double is converted with
    /// `init(_: Double)` first (so `Decimal128("0.1") == 0.1` holds).
    public func compare(_ other: Double) -> Int { compare(Decimal128(other)) }
}
