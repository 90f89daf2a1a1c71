// The arithmetic aggregates need: addition and subtraction (`@sum`, `sum(ofProperty:)`) and
// division by a count (`@avg`, `average(ofProperty:)`). Results are correctly rounded to 34
// digits (half to even) except that an addend more than 37 digits below the other is first cut
// to 37 digits, which can move a result that lies exactly halfway by one unit in the 34th digit.
// Infinities and NaN follow IEEE 754: ∞ + -∞ and anything with NaN give NaN.

extension Decimal128: AdditiveArithmetic {
    public static var zero: Decimal128 { Decimal128() }

    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { lhs.adding(rhs) }

    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        var negated = rhs
        if !rhs.isNaN { negated.negate() }
        return lhs.adding(negated)
    }

    public static func += (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs + rhs }

    public static func -= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs - rhs }

    private func adding(_ other: Decimal128) -> Decimal128 {
        if isNaN { return self }
        if other.isNaN { return other }
        if isInfinite || other.isInfinite {
            if isInfinite && other.isInfinite && isSignMinus != other.isSignMinus { return .nan }
            return isInfinite ? self : other
        }
        var (a, b) = (self, other)
        if a.exponent < b.exponent { swap(&a, &b) }
        // a has the larger exponent: scale it down toward b's (adding zeros, at most 37 digits).
        var ca = a.coefficient
        var cb = b.coefficient
        var e = a.exponent
        if ca == 0 {
            e = b.exponent
        } else {
            let shift = Swift.min(a.exponent - b.exponent, 37 - Self.digitCount(ca))
            ca *= Self.pow10(shift)
            e = a.exponent - shift
        }
        if e > b.exponent {
            // b has digits below a's 37: cut them, keeping a sticky unit so rounding sees them.
            let drop = e - b.exponent
            let cut = Self.roundingDivideTruncating(cb, byPowerOfTen: drop)
            cb = cut.quotient * 10 + (cut.inexact ? 1 : 0)
            ca *= 10
            e -= 1
        } else {
            e = b.exponent
        }
        if a.isSignMinus == b.isSignMinus {
            return Self.make(negative: a.isSignMinus, coefficient: ca + cb, exponent: e)
        }
        if ca >= cb {
            // Exact cancellation gives +0, as IEEE 754 requires under round-to-nearest.
            return Self.make(negative: ca == cb ? false : a.isSignMinus, coefficient: ca - cb, exponent: e)
        }
        return Self.make(negative: b.isSignMinus, coefficient: cb - ca, exponent: e)
    }

    private static func roundingDivideTruncating(_ c: UInt128, byPowerOfTen n: Int) -> (quotient: UInt128, inexact: Bool) {
        if n > 38 { return (0, c != 0) }
        let (q, r) = c.quotientAndRemainder(dividingBy: pow10(n))
        return (q, r != 0)
    }

    /// The value divided by `count` (> 0), rounded to 34 digits: the mean of `count` values
    /// whose sum this is.
    public func divided(by count: Int) -> Decimal128 {
        precondition(count > 0, "Decimal128.divided(by:) needs a positive count")
        if !isFinite { return self }
        let divisor = UInt128(count)
        var (quotient, remainder) = coefficient.quotientAndRemainder(dividingBy: divisor)
        var e = exponent
        // Long division: one more digit at a time until 35 digits (one for rounding) or exact.
        while remainder != 0, Self.digitCount(quotient) < Self.digitsMax + 1 || quotient == 0 {
            let (q, r) = (remainder * 10).quotientAndRemainder(dividingBy: divisor)
            quotient = quotient * 10 + q
            remainder = r
            e -= 1
        }
        if remainder != 0, quotient % 10 == 0 || quotient % 10 == 5 { quotient += 1 }  // sticky
        return Self.make(negative: isSignMinus, coefficient: quotient, exponent: e)
    }
}
