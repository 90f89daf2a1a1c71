import AtollStorage
import Foundation

/// Splits a query string into tokens.
///
/// Works on the UTF-8 bytes; every token records the byte offset where it starts, which is what
/// error messages report. Names may contain any non-ASCII characters (Realm allows property names
/// such as `델타` or `Δέλτα`).
///
/// Literal forms recognized here:
/// - integers `42`, `-7`, `0x1F`; floats `1.5`, `-2e-3`
/// - strings `'…'` and `"…"`, whose text is kept as written (see `scanString`)
/// - timestamps `2021-02-20@17:30:15` / `2021-02-20T17:30:15:500` (UTC, optional nanoseconds)
///   and `T1613842215:0` (seconds and nanoseconds since 1970, both of the same sign)
/// - `uuid(d1b186e1-e9e0-4768-a1a7-c492519d47ee)`, `oid(507f1f77bcf86cd799439011)`, `B64"SGk="`
struct Lexer {
    private let bytes: [UInt8]
    private var position = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// All tokens of `text`, ending with `.end`.
    static func tokenize(_ text: String) throws -> [Token] {
        var lexer = Lexer(text)
        var tokens: [Token] = []
        while true {
            let token = try lexer.nextToken()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    // MARK: - Scanning

    private func peek(_ ahead: Int = 0) -> UInt8? {
        let index = position + ahead
        return index < bytes.count ? bytes[index] : nil
    }

    private static func isDigit(_ byte: UInt8?) -> Bool {
        guard let byte else { return false }
        return byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "f")
    }

    static func isNameStart(_ byte: UInt8?) -> Bool {
        guard let byte else { return false }
        return (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || byte == UInt8(ascii: "_") || byte >= 0x80
    }

    static func isNameContinuation(_ byte: UInt8?) -> Bool {
        isNameStart(byte) || isDigit(byte)
    }

    private mutating func skipWhitespace() {
        while let byte = peek() {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D:
                position += 1
            case 0xC2 where peek(1) == 0xA0:  // U+00A0 NO-BREAK SPACE, common in pasted text
                position += 2
            default:
                return
            }
        }
    }

    private func text(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    private mutating func nextToken() throws -> Token {
        skipWhitespace()
        let start = position
        guard let byte = peek() else { return Token(kind: .end, offset: start) }

        func single(_ kind: TokenKind, length: Int = 1) -> Token {
            position += length
            return Token(kind: kind, offset: start)
        }

        switch byte {
        case UInt8(ascii: "("): return single(.leftParen)
        case UInt8(ascii: ")"): return single(.rightParen)
        case UInt8(ascii: "{"): return single(.leftBrace)
        case UInt8(ascii: "}"): return single(.rightBrace)
        case UInt8(ascii: "["): return single(.leftBracket)
        case UInt8(ascii: "]"): return single(.rightBracket)
        case UInt8(ascii: ","): return single(.comma)
        case UInt8(ascii: "."): return single(.dot)
        // `[*]`, every element of a collection nested in a mixed value: a word only right after `[`.
        case UInt8(ascii: "*") where bytes[..<start].last(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }) == UInt8(ascii: "["):
            return single(.word("*"))
        case UInt8(ascii: "="):
            switch peek(1) {
            case UInt8(ascii: "="): return single(.equal, length: 2)
            case UInt8(ascii: "<"): return single(.lessOrEqual, length: 2)
            case UInt8(ascii: ">"): return single(.greaterOrEqual, length: 2)
            default: return single(.equal)
            }
        case UInt8(ascii: "!"):
            return peek(1) == UInt8(ascii: "=") ? single(.notEqual, length: 2) : single(.not)
        case UInt8(ascii: "<"):
            switch peek(1) {
            case UInt8(ascii: "="): return single(.lessOrEqual, length: 2)
            case UInt8(ascii: ">"): return single(.notEqual, length: 2)
            default: return single(.less)
            }
        case UInt8(ascii: ">"):
            return peek(1) == UInt8(ascii: "=") ? single(.greaterOrEqual, length: 2) : single(.greater)
        case UInt8(ascii: "&"):
            guard peek(1) == UInt8(ascii: "&") else { throw AtollError.invalidQuery("expected '&&' but found a single '&'", at: start) }
            return single(.and, length: 2)
        case UInt8(ascii: "|"):
            guard peek(1) == UInt8(ascii: "|") else { throw AtollError.invalidQuery("expected '||' but found a single '|'", at: start) }
            return single(.or, length: 2)
        case UInt8(ascii: "'"), UInt8(ascii: "\""):
            return Token(kind: .literal(.string(try scanString())), offset: start)
        case UInt8(ascii: "$"):
            return try scanDollar()
        case UInt8(ascii: "%"):
            return try scanFormatSpecifier()
        case UInt8(ascii: "@"):
            position += 1
            let nameStart = position
            while Self.isNameContinuation(peek()) { position += 1 }
            guard position > nameStart else { throw AtollError.invalidQuery("expected a name after '@' such as @count", at: start) }
            return Token(kind: .atName(text(nameStart..<position)), offset: start)
        case UInt8(ascii: "#"):
            position += 1
            let nameStart = position
            guard Self.isNameStart(peek()) else { throw AtollError.invalidQuery("expected a name after '#'", at: start) }
            while Self.isNameContinuation(peek()) { position += 1 }
            return Token(kind: .escapedName(text(nameStart..<position)), offset: start)
        case UInt8(ascii: "-"), UInt8(ascii: "+"):
            guard Self.isDigit(peek(1)) else {
                throw AtollError.invalidQuery("arithmetic is not supported; '\(Character(Unicode.Scalar(byte)))' must be followed by a number", at: start)
            }
            return try scanNumber()
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            if let timestamp = try scanReadableTimestamp() { return Token(kind: .literal(timestamp), offset: start) }
            return try scanNumber()
        case 0xE2 where peek(1) == 0x80 && [0x98, 0x99, 0x9C, 0x9D].contains(peek(2) ?? 0):
            throw AtollError.invalidQuery("typographic quote found; write strings with straight quotes ' or \"", at: start)
        default:
            guard Self.isNameStart(byte) else {
                let scalar = String(decoding: [byte], as: UTF8.self)
                throw AtollError.invalidQuery("unexpected character '\(scalar)'", at: start)
            }
            return try scanWord()
        }
    }

    // MARK: - Words and the literals that start like words

    private mutating func scanWord() throws -> Token {
        let start = position
        if peek() == UInt8(ascii: "T"), let timestamp = try scanEpochTimestamp() {
            return Token(kind: .literal(timestamp), offset: start)
        }
        while Self.isNameContinuation(peek()) { position += 1 }
        let word = text(start..<position)
        let lowercased = word.utf8.count <= 4 ? word.lowercased() : ""
        if lowercased == "uuid" && peek() == UInt8(ascii: "(") {
            let body = try scanParenthesizedBody(of: "uuid", start: start)
            guard let uuid = UUID(uuidString: body) else {
                throw AtollError.invalidQuery("'\(body)' is not a valid UUID (expected the form d1b186e1-e9e0-4768-a1a7-c492519d47ee)", at: start)
            }
            return Token(kind: .literal(.uuid(uuid)), offset: start)
        }
        if lowercased == "oid" && peek() == UInt8(ascii: "(") {
            let body = try scanParenthesizedBody(of: "oid", start: start)
            guard let objectId = try? ObjectId(string: body) else {
                throw AtollError.invalidQuery("'\(body)' is not a valid ObjectId (expected 24 hexadecimal digits)", at: start)
            }
            return Token(kind: .literal(.objectId(objectId)), offset: start)
        }
        if lowercased == "b64" && peek() == UInt8(ascii: "\"") {
            position += 1
            let bodyStart = position
            while let byte = peek(), byte != UInt8(ascii: "\"") { position += 1 }
            guard peek() == UInt8(ascii: "\"") else { throw AtollError.invalidQuery("unterminated B64\"…\" literal", at: start) }
            let body = text(bodyStart..<position)
            position += 1
            guard let data = Data(base64Encoded: body) else {
                throw AtollError.invalidQuery("B64\"…\" does not contain valid base64", at: start)
            }
            return Token(kind: .literal(.base64(Array(data))), offset: start)
        }
        return Token(kind: .word(word), offset: start)
    }

    /// The text between `name(` and `)`, with the position after the `)`.
    private mutating func scanParenthesizedBody(of name: String, start: Int) throws -> String {
        position += 1  // (
        let bodyStart = position
        while let byte = peek(), byte != UInt8(ascii: ")"), position - bodyStart <= 64 { position += 1 }
        guard peek() == UInt8(ascii: ")") else { throw AtollError.invalidQuery("expected ')' to close \(name)(…)", at: start) }
        let body = text(bodyStart..<position).trimmingCharacters(in: .whitespaces)
        position += 1
        return body
    }

    // MARK: - Strings

    /// A string literal's text exactly as written between its quotes, as realm-core keeps it: an
    /// escape sequence is validated but not translated, so `'a\nb'` is the four characters
    /// `a`, `\`, `n`, `b`, and `'it\'s'` is `it\'s`. The backslash only stops the next quote from
    /// ending the literal. The escapes realm-core's lexer accepts are `\" \' \/ \\ \b \f \n \r
    /// \t \0` and `\u` with four hexadecimal digits; any other is a syntax error.
    private mutating func scanString() throws -> String {
        let start = position
        let quote = bytes[position]
        position += 1
        let textStart = position
        while true {
            guard let byte = peek() else {
                throw AtollError.invalidQuery("unterminated string literal (missing closing \(quote == UInt8(ascii: "'") ? "'" : "\""))", at: start)
            }
            position += 1
            if byte == quote { break }
            guard byte == UInt8(ascii: "\\") else { continue }
            let escapeStart = position - 1
            guard let escaped = peek() else { continue }
            position += 1
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: "b"),
                 UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"), UInt8(ascii: "0"):
                continue
            case UInt8(ascii: "u"):
                var digits = 0
                while digits < 4, let digit = peek(), Self.isHexDigit(digit) {
                    digits += 1
                    position += 1
                }
                guard digits == 4 else {
                    throw AtollError.invalidQuery("\\u in a string must be followed by 4 hexadecimal digits", at: escapeStart)
                }
            default:
                throw AtollError.invalidQuery(
                    "invalid escape sequence in a string literal; a backslash may precede only \" ' / \\ b f n r t 0 or u and 4 hexadecimal digits (the text is kept as written)",
                    at: escapeStart
                )
            }
        }
        return text(textStart..<(position - 1))
    }

    // MARK: - Arguments

    private mutating func scanDollar() throws -> Token {
        let start = position
        position += 1
        if Self.isDigit(peek()) {
            let digitsStart = position
            while Self.isDigit(peek()) { position += 1 }
            guard let index = Int(text(digitsStart..<position)), index <= QueryLimits.argumentIndexMax else {
                throw AtollError.invalidQuery("argument index is larger than \(QueryLimits.argumentIndexMax)", at: start)
            }
            if Self.isNameStart(peek()) { throw AtollError.invalidQuery("invalid argument '\(text(start..<position + 1))…'", at: start) }
            return Token(kind: .argument(index), offset: start)
        }
        guard Self.isNameStart(peek()) else {
            throw AtollError.invalidQuery("expected an argument number ($0) or a variable name ($x) after '$'", at: start)
        }
        let nameStart = position
        while Self.isNameContinuation(peek()) { position += 1 }
        return Token(kind: .variable(text(nameStart..<position)), offset: start)
    }

    private mutating func scanFormatSpecifier() throws -> Token {
        let start = position
        position += 1
        let forms: [(String, FormatSpecifier)] = [
            ("@", .object), ("K", .keyPath),
            ("lld", .integer), ("llu", .integer), ("lli", .integer),
            ("ld", .integer), ("lu", .integer), ("li", .integer), ("lf", .floatingPoint),
            ("d", .integer), ("i", .integer), ("u", .integer), ("f", .floatingPoint),
        ]
        for (form, specifier) in forms {
            let formBytes = Array(form.utf8)
            if position + formBytes.count <= bytes.count && Array(bytes[position..<position + formBytes.count]) == formBytes {
                position += formBytes.count
                return Token(kind: .formatSpecifier(specifier), offset: start)
            }
        }
        throw AtollError.invalidQuery("unsupported format specifier; use %@, %d, %f or %K", at: start)
    }

    // MARK: - Numbers

    private mutating func scanNumber() throws -> Token {
        let start = position
        var negative = false
        if peek() == UInt8(ascii: "-") || peek() == UInt8(ascii: "+") {
            negative = peek() == UInt8(ascii: "-")
            position += 1
        }
        let magnitudeStart = position
        if peek() == UInt8(ascii: "0"), peek(1) == UInt8(ascii: "x") || peek(1) == UInt8(ascii: "X") {
            position += 2
            let digitsStart = position
            while let byte = peek(), Self.isHexDigit(byte) { position += 1 }
            guard position > digitsStart else { throw AtollError.invalidQuery("expected hexadecimal digits after 0x", at: start) }
            try rejectTrailingNameCharacters(numberStart: start)
            let value = try integer(magnitude: UInt64(text(digitsStart..<position), radix: 16), negative: negative, start: start)
            return Token(kind: .literal(.int(value)), offset: start)
        }
        var isFloat = false
        while Self.isDigit(peek()) { position += 1 }
        if peek() == UInt8(ascii: "."), Self.isDigit(peek(1)) {
            isFloat = true
            position += 1
            while Self.isDigit(peek()) { position += 1 }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            let signOffset = peek(1) == UInt8(ascii: "-") || peek(1) == UInt8(ascii: "+") ? 1 : 0
            if Self.isDigit(peek(1 + signOffset)) {
                isFloat = true
                position += 1 + signOffset
                while Self.isDigit(peek()) { position += 1 }
            }
        }
        try rejectTrailingNameCharacters(numberStart: start)
        let digits = text(magnitudeStart..<position)
        if isFloat {
            guard let magnitude = Double(digits), magnitude.isFinite else {
                throw AtollError.invalidQuery("number '\(text(start..<position))' is out of range", at: start)
            }
            return Token(kind: .literal(.double(negative ? -magnitude : magnitude)), offset: start)
        }
        let value = try integer(magnitude: UInt64(digits), negative: negative, start: start)
        return Token(kind: .literal(.int(value)), offset: start)
    }

    private func rejectTrailingNameCharacters(numberStart: Int) throws {
        if Self.isNameContinuation(peek()) {
            var end = position
            while end < bytes.count && Self.isNameContinuation(bytes[end]) { end += 1 }
            throw AtollError.invalidQuery("invalid number '\(text(numberStart..<end))'", at: numberStart)
        }
    }

    private func integer(magnitude: UInt64?, negative: Bool, start: Int) throws -> Int64 {
        guard let magnitude else {
            throw AtollError.invalidQuery("integer '\(text(start..<position))' is out of range for a 64-bit integer", at: start)
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else {
                throw AtollError.invalidQuery("integer '\(text(start..<position))' is out of range for a 64-bit integer", at: start)
            }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else {
            throw AtollError.invalidQuery("integer '\(text(start..<position))' is out of range for a 64-bit integer", at: start)
        }
        return Int64(magnitude)
    }

    // MARK: - Timestamps

    /// Reads up to `maxCount` digits; nil (position unchanged) if there are none.
    private mutating func digits(maxCount: Int) -> Int? {
        var value = 0, count = 0
        while count < maxCount, let byte = peek(), Self.isDigit(byte) {
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            position += 1
            count += 1
        }
        return count > 0 ? value : nil
    }

    /// `YYYY-MM-DD@HH:MM:SS[:NANOS]` (or `T` for `@`), in UTC; nil (nothing consumed) if the text
    /// does not start like a date.
    private mutating func scanReadableTimestamp() throws -> LiteralValue? {
        let start = position
        guard let year = digits(maxCount: 4), peek() == UInt8(ascii: "-"), Self.isDigit(peek(1)) else {
            position = start
            return nil
        }
        position += 1
        let format = "timestamps are written YYYY-MM-DD@HH:MM:SS or YYYY-MM-DD@HH:MM:SS:NANOSECONDS"
        func expect(_ separator: UInt8) throws {
            guard peek() == separator else { throw AtollError.invalidQuery(format, at: start) }
            position += 1
        }
        guard let month = digits(maxCount: 2) else { throw AtollError.invalidQuery(format, at: start) }
        try expect(UInt8(ascii: "-"))
        guard let day = digits(maxCount: 2) else { throw AtollError.invalidQuery(format, at: start) }
        guard peek() == UInt8(ascii: "@") || peek() == UInt8(ascii: "T") else { throw AtollError.invalidQuery(format, at: start) }
        position += 1
        guard let hour = digits(maxCount: 2) else { throw AtollError.invalidQuery(format, at: start) }
        try expect(UInt8(ascii: ":"))
        guard let minute = digits(maxCount: 2) else { throw AtollError.invalidQuery(format, at: start) }
        try expect(UInt8(ascii: ":"))
        guard let second = digits(maxCount: 2) else { throw AtollError.invalidQuery(format, at: start) }
        var nanoseconds = 0
        if peek() == UInt8(ascii: ":") {
            position += 1
            guard let value = digits(maxCount: 9) else { throw AtollError.invalidQuery(format, at: start) }
            nanoseconds = value
        }
        try rejectTrailingNameCharacters(numberStart: start)
        guard (1...12).contains(month), (1...CivilCalendar.daysInMonth(month, year: year)).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else {
            throw AtollError.invalidQuery("'\(text(start..<position))' is not a valid date and time", at: start)
        }
        let days = CivilCalendar.daysSince1970(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3_600 + minute * 60 + second)
        return TimestampLiteral.normalized(seconds: seconds, nanosecondsAfter: Int64(nanoseconds))
    }

    /// `T<seconds>:<nanoseconds>`; nil (nothing consumed) if the word is not of that form.
    private mutating func scanEpochTimestamp() throws -> LiteralValue? {
        let start = position
        position += 1  // T
        func signedDigits() -> (negative: Bool, digits: String)? {
            var negative = false
            if peek() == UInt8(ascii: "-") && Self.isDigit(peek(1)) {
                negative = true
                position += 1
            }
            let digitsStart = position
            while Self.isDigit(peek()) { position += 1 }
            return position > digitsStart ? (negative, text(digitsStart..<position)) : nil
        }
        guard let secondsPart = signedDigits(), peek() == UInt8(ascii: ":") else {
            position = start
            return nil
        }
        position += 1
        guard let nanosecondsPart = signedDigits() else {
            throw AtollError.invalidQuery("timestamps are written T<seconds>:<nanoseconds>, for example T1613842215:0", at: start)
        }
        try rejectTrailingNameCharacters(numberStart: start)
        guard let secondsMagnitude = Int64(secondsPart.digits), let nanosecondsMagnitude = Int32(nanosecondsPart.digits),
              nanosecondsMagnitude < 1_000_000_000
        else {
            throw AtollError.invalidQuery("timestamp '\(text(start..<position))' is out of range (nanoseconds must be below 1000000000)", at: start)
        }
        let seconds = secondsPart.negative ? -secondsMagnitude : secondsMagnitude
        let nanoseconds = nanosecondsPart.negative ? -nanosecondsMagnitude : nanosecondsMagnitude
        guard (seconds >= 0 && nanoseconds >= 0) || (seconds <= 0 && nanoseconds <= 0) else {
            throw AtollError.invalidQuery("timestamp '\(text(start..<position))' mixes signs; seconds and nanoseconds must have the same sign", at: start)
        }
        return .timestamp(seconds: seconds, nanoseconds: nanoseconds)
    }
}

/// Proleptic Gregorian calendar arithmetic for timestamp literals (no Foundation calendars, so
/// the result never depends on the machine's time zone or locale).
enum CivilCalendar {
    static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the given date (negative before it). Howard Hinnant's
    /// `days_from_civil` algorithm.
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// Realm's timestamp convention: seconds and nanoseconds carry the same sign, so that
/// (seconds, nanoseconds) pairs order lexicographically.
enum TimestampLiteral {
    /// The instant `seconds + nanosecondsAfter / 1e9` (nanosecondsAfter ≥ 0) in that convention.
    static func normalized(seconds: Int64, nanosecondsAfter: Int64) -> LiteralValue {
        if seconds < 0 && nanosecondsAfter > 0 {
            return .timestamp(seconds: seconds + 1, nanoseconds: Int32(nanosecondsAfter - 1_000_000_000))
        }
        return .timestamp(seconds: seconds, nanoseconds: Int32(nanosecondsAfter))
    }
}
