// Decimal128 to and from text.
//
// Parsing accepts what realm-core's `bid128_from_string` accepts for numbers: an optional sign,
// digits with at most one decimal point, an optional exponent (`e`/`E`, optional sign, digits),
// and the words `NaN`, `Inf`, `Infinity` in any case. More than 34 significant digits round half
// to even. Unlike realm-core, which turns any other text into NaN, Atoll rejects it: a typo in
// an import file should not become a stored NaN.
//
// Printing follows RealmSwift's `Decimal128.stringValue`: realm-core's `to_string` (the
// coefficient's digits with the decimal point placed by the exponent, `E` notation when the
// point would fall outside the digits) with trailing zeros after the point removed.

extension Decimal128 {
    /// Limits the text a value is parsed from (34 digits need far less; exponents and zeros pad).
    public static let textBytesMax = 1024

    /// The value written in `string` (`"3.14"`, `"-1E-3"`, `"NaN"`, `"Infinity"`).
    ///
    /// - Throws: `AtollError` of kind `.invalidArgument` if `string` is not a number.
    public init(string: String) throws {
        guard let value = Self.parse(Array(string.utf8)) else {
            let shown = string.count > 40 ? String(string.prefix(40)) + "…" : string
            throw AtollError(.invalidArgument, "'\(shown)' is not a Decimal128 (expected digits with an optional '.', sign and exponent, e.g. \"-12.5E3\", or NaN/Infinity)")
        }
        self = value
    }

    static func parse(_ text: [UInt8]) -> Decimal128? {
        guard !text.isEmpty, text.count <= textBytesMax else { return nil }
        var i = 0
        var negative = false
        if text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") {
            negative = text[i] == UInt8(ascii: "-")
            i += 1
        }
        let word = String(decoding: text[i...], as: UTF8.self).lowercased()
        if word == "nan" { return Decimal128(high: nanMask | (negative ? signMask : 0), low: 0) }
        if word == "inf" || word == "infinity" { return Decimal128(high: infinityMask | (negative ? signMask : 0), low: 0) }

        var digits: [UInt8] = []  // significant digits, leading zeros dropped
        var sawDigit = false
        var sawPoint = false
        var fractionDigits = 0
        while i < text.count {
            let ch = text[i]
            if ch >= UInt8(ascii: "0"), ch <= UInt8(ascii: "9") {
                sawDigit = true
                if sawPoint { fractionDigits += 1 }
                if !(digits.isEmpty && ch == UInt8(ascii: "0")) { digits.append(ch - UInt8(ascii: "0")) }
            } else if ch == UInt8(ascii: "."), !sawPoint {
                sawPoint = true
            } else {
                break
            }
            i += 1
        }
        guard sawDigit else { return nil }
        var exponent = 0
        if i < text.count {
            guard text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E") else { return nil }
            i += 1
            var exponentNegative = false
            if i < text.count, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") {
                exponentNegative = text[i] == UInt8(ascii: "-")
                i += 1
            }
            guard i < text.count else { return nil }
            while i < text.count {
                let ch = text[i]
                guard ch >= UInt8(ascii: "0"), ch <= UInt8(ascii: "9") else { return nil }
                // Past any representable exponent the value is 0 or ∞ either way; stop growing.
                if exponent < 100_000 { exponent = exponent * 10 + Int(ch - UInt8(ascii: "0")) }
                i += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        exponent -= fractionDigits
        // Keep 35 digits and a sticky bit so `make` rounds as if it saw them all.
        var kept = digits
        if digits.count > 35 {
            let dropped = digits.count - 35
            kept = Array(digits[0..<35])
            exponent += dropped
            if digits[35...].contains(where: { $0 != 0 }) {
                // A non-zero tail: round the 35th digit away from a tie.
                if kept[34] == 0 || kept[34] == 5 { kept[34] += 1 }
            }
        }
        var coefficient: UInt128 = 0
        for d in kept { coefficient = coefficient * 10 + UInt128(d) }
        return make(negative: negative, coefficient: coefficient, exponent: exponent)
    }

    /// realm-core's `to_string` with RealmSwift's trailing-zero trimming: `"1.5"`, `"-3"`,
    /// `"1.23E-7"`, `"1E+3"` is printed `"1E3"`, `"NaN"`, `"Inf"`, `"-Inf"`.
    public var stringValue: String {
        var text = isSignMinus && !isNaN ? "-" : ""
        if isNaN { return "NaN" }
        if isInfinite { return text + "Inf" }
        let digits = Array(String(coefficient).utf8)
        var exponent = self.exponent
        var before = digits.count
        while before > 1 && exponent != 0 {
            before -= 1
            exponent += 1
        }
        var mantissa = String(decoding: digits[0..<before], as: UTF8.self)
        if before < digits.count {
            var fraction = Array(digits[before...])
            while fraction.last == UInt8(ascii: "0") { fraction.removeLast() }
            if !fraction.isEmpty { mantissa += "." + String(decoding: fraction, as: UTF8.self) }
        }
        text += mantissa
        if exponent != 0 { text += "E\(exponent)" }
        return text
    }

    public var description: String { stringValue }

    /// The value in the decimal arithmetic specification's to-scientific-string form (what
    /// MongoDB prints for a decimal128): plain notation unless the exponent is positive or the
    /// value is below 10^-6 — `"0.5"`, `"1.50"`, `"-0"`, `"1.23E+10"`, `"1E-7"`, `"NaN"`,
    /// `"Infinity"`. It keeps the exact encoding (trailing zeros and all), so parsing it gives
    /// back the same bits for any canonical value. Data files use this form.
    public var scientificString: String {
        if isNaN { return "NaN" }
        let sign = isSignMinus ? "-" : ""
        if isInfinite { return sign + "Infinity" }
        let digits = Array(String(coefficient).utf8)
        let e = exponent
        let adjusted = e + digits.count - 1
        if e <= 0 && adjusted >= -6 {
            if e == 0 { return sign + String(decoding: digits, as: UTF8.self) }
            let pointAt = digits.count + e
            if pointAt > 0 {
                return sign + String(decoding: digits[0..<pointAt], as: UTF8.self) + "." + String(decoding: digits[pointAt...], as: UTF8.self)
            }
            return sign + "0." + String(repeating: "0", count: -pointAt) + String(decoding: digits, as: UTF8.self)
        }
        var text = sign + String(decoding: digits[0..<1], as: UTF8.self)
        if digits.count > 1 { text += "." + String(decoding: digits[1...], as: UTF8.self) }
        return text + "E" + (adjusted >= 0 ? "+" : "") + String(adjusted)
    }
}
