import AtollStorage

/// ISO-8601 text for `Timestamp`s, exact to the nanosecond, for data files, dumps and arguments.
///
/// Written form (what dumps produce, byte for byte deterministic): `YYYY-MM-DDTHH:MM:SS[.f]Z` in
/// UTC, where the fraction is the nanoseconds with trailing zeros removed (absent when zero).
/// Years outside 0000...9999 are written with a sign (`+10000-01-01T00:00:00Z`,
/// `-0001-12-31T23:59:59Z`; year 0 is 1 BC, as in ISO-8601's proleptic Gregorian calendar).
///
/// Accepted form: the same, with `t` or a space for `T`, `z` for `Z`, an offset `±HH:MM` or
/// `±HHMM` instead of `Z` (no zone means UTC), and 1 to 9 fractional digits.
enum ISO8601Timestamp {
    static func format(_ t: Timestamp) -> String {
        let days = floorDiv(t.seconds, 86_400)
        let secondsOfDay = t.seconds - days * 86_400
        let (y, m, d) = civil(fromDays: days)
        var s = ""
        if y < 0 {
            s += "-" + pad(-y, 4)
        } else if y > 9999 {
            s += "+" + String(y)
        } else {
            s += pad(y, 4)
        }
        s += "-" + pad(m, 2) + "-" + pad(d, 2)
        s += "T" + pad(secondsOfDay / 3600, 2) + ":" + pad(secondsOfDay / 60 % 60, 2) + ":" + pad(secondsOfDay % 60, 2)
        if t.nanoseconds != 0 {
            var fraction = pad(Int64(t.nanoseconds), 9)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            s += "." + fraction
        }
        return s + "Z"
    }

    /// The timestamp of an ISO-8601 string, or a description of what is wrong with it.
    static func parse(_ text: String) -> Result<Timestamp, ParseError> {
        var p = Scanner(bytes: Array(text.utf8))
        return p.timestamp()
    }

    struct ParseError: Error {
        let message: String
    }

    private struct Scanner {
        let bytes: [UInt8]
        var i = 0

        mutating func digits(_ count: Int) -> Int64? {
            guard i + count <= bytes.count else { return nil }
            var v: Int64 = 0
            for k in 0..<count {
                let b = bytes[i + k]
                guard b >= 0x30, b <= 0x39 else { return nil }
                v = v * 10 + Int64(b - 0x30)
            }
            i += count
            return v
        }

        mutating func accept(_ chars: String) -> Bool {
            guard i < bytes.count, chars.utf8.contains(bytes[i]) else { return false }
            i += 1
            return true
        }

        func fail(_ what: String) -> Result<Timestamp, ParseError> {
            .failure(ParseError(message: what))
        }

        mutating func timestamp() -> Result<Timestamp, ParseError> {
            let expected = "expected an ISO-8601 date such as 2024-05-17T09:30:00.123456789Z"
            // Year: four digits, or a sign and four or more.
            var year: Int64
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
                let negative = bytes[i] == UInt8(ascii: "-")
                i += 1
                var n = 0
                year = 0
                while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39, n < 12 {
                    year = year * 10 + Int64(bytes[i] - 0x30)
                    i += 1
                    n += 1
                }
                guard n >= 4 else { return fail(expected) }
                if negative { year = -year }
            } else {
                guard let y = digits(4) else { return fail(expected) }
                year = y
            }
            guard accept("-"), let month = digits(2), accept("-"), let day = digits(2) else { return fail(expected) }
            guard (1...12).contains(month) else { return fail("month \(month) is not 01...12") }
            guard day >= 1, day <= daysIn(month: month, year: year) else { return fail("day \(day) does not exist in month \(month) of \(year)") }
            guard accept("Tt ") else { return fail(expected + " (the time is missing)") }
            guard let hour = digits(2), accept(":"), let minute = digits(2), accept(":"), let second = digits(2) else { return fail(expected) }
            guard hour < 24, minute < 60, second < 60 else { return fail("time \(hour):\(minute):\(second) is out of range") }
            var nanoseconds: Int64 = 0
            if accept(".,") {
                var n = 0
                while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                    guard n < 9 else { return fail("more than 9 fractional digits of a second (nanoseconds are the limit)") }
                    nanoseconds = nanoseconds * 10 + Int64(bytes[i] - 0x30)
                    i += 1
                    n += 1
                }
                guard n > 0 else { return fail("digits must follow the decimal point of the seconds") }
                for _ in n..<9 { nanoseconds *= 10 }
            }
            var offsetSeconds: Int64 = 0
            if accept("Zz") {
            } else if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
                let negative = bytes[i] == UInt8(ascii: "-")
                i += 1
                guard let oh = digits(2) else { return fail("expected a time zone offset such as +02:00") }
                _ = accept(":")
                guard let om = digits(2), oh < 24, om < 60 else { return fail("expected a time zone offset such as +02:00") }
                offsetSeconds = (oh * 3600 + om * 60) * (negative ? -1 : 1)
            }
            guard i == bytes.count else { return fail("unexpected text after the date") }
            let days = daysFromCivil(year: year, month: month, day: day)
            let (s1, o1) = days.multipliedReportingOverflow(by: 86_400)
            let (s2, o2) = s1.addingReportingOverflow(hour * 3600 + minute * 60 + second - offsetSeconds)
            guard !o1, !o2 else { return fail("the date is out of range") }
            return .success(Timestamp(seconds: s2, nanoseconds: Int32(nanoseconds)))
        }
    }

    // MARK: calendar (proleptic Gregorian; H. Hinnant's algorithms)

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = z0 + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
