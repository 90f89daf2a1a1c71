import AtollStorage

// A small JSON reader for schema files, data files and query arguments. Foundation's
// JSONSerialization is not used because these files need what it cannot give:
// - the position of every value, so an error names `file:line:column`;
// - object members in file order (a schema's properties keep their declaration order);
// - numbers as written, so each converts exactly to the type of its property (an int keeps all
//   64 bits, a float is rounded once from the decimal text, `-0.0` keeps its sign);
// - duplicate keys reported instead of silently dropped.
//
// Limits: nesting depth `InputLimits.jsonNestingDepthMax` (deep nesting would exhaust the
// stack), input must be UTF-8 (a leading byte-order mark is skipped).

/// One JSON value with the byte offset where it starts in its document.
struct JSONNode {
    enum Value {
        case null
        case bool(Bool)
        /// The literal as written (validated JSON number syntax).
        case number(String)
        case string(String)
        case array([JSONNode])
        case object([JSONMember])
    }

    var value: Value
    var offset: Int

    var typeName: String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    var isNull: Bool { if case .null = value { true } else { false } }

    /// The members of an object (nil for other values).
    var members: [JSONMember]? { if case .object(let m) = value { m } else { nil } }

    var string: String? { if case .string(let s) = value { s } else { nil } }
}

struct JSONMember {
    var key: String
    var keyOffset: Int
    var value: JSONNode
}

/// The text of a document, to turn byte offsets into `name:line:column` in error messages.
struct JSONSource: Sendable {
    /// The file name (or "argument 2", ...) shown in messages.
    let name: String
    let bytes: [UInt8]

    /// `name:line:column` of a byte offset (1-based; the column counts characters).
    func location(_ offset: Int) -> String {
        var line = 1, column = 1
        var i = 0
        let end = min(offset, bytes.count)
        while i < end {
            let b = bytes[i]
            if b == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return "\(name):\(line):\(column)"
    }

    /// An error located at `offset`.
    func error(_ kind: AtollError.Kind, at offset: Int, _ message: String) -> AtollError {
        AtollError(kind, "\(location(offset)): \(message)")
    }
}

/// Parses a JSON text (RFC 8259) into `JSONNode`s.
struct JSONParser {
    static let depthMax = InputLimits.jsonNestingDepthMax

    private let bytes: [UInt8]
    private let source: JSONSource
    private var position = 0
    private var depth = 0
    /// Called as parsing advances (bytes consumed), at most every `progressStride` bytes.
    private let progress: ((Int) -> Void)?
    private var nextProgress = 0
    private static let progressStride = 1 << 20

    /// Parses the whole of `source` as one JSON value.
    static func parse(_ source: JSONSource, progress: ((Int) -> Void)? = nil) throws -> JSONNode {
        var parser = JSONParser(source: source, progress: progress)
        return try parser.parseDocument()
    }

    private init(source: JSONSource, progress: ((Int) -> Void)?) {
        self.source = source
        bytes = source.bytes
        self.progress = progress
    }

    private func fail(_ message: String, at offset: Int? = nil) -> AtollError {
        source.error(.invalidInput, at: offset ?? position, message)
    }

    private mutating func parseDocument() throws -> JSONNode {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        try validateUTF8()
        skipWhitespace()
        guard position < bytes.count else { throw fail(bytes.isEmpty ? "the file is empty; expected JSON" : "expected a JSON value, found only white space") }
        let node = try parseValue()
        skipWhitespace()
        if position < bytes.count { throw fail("unexpected \(describe(position)) after the JSON value") }
        progress?(bytes.count)
        return node
    }

    private func validateUTF8() throws {
        // Decode once up front; string contents can then be taken as validated UTF-8.
        var iterator = bytes[position...].makeIterator()
        var decoder = UTF8()
        var offset = position
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                offset += UTF8.width(scalar)
            case .emptyInput:
                return
            case .error:
                throw fail("the file is not valid UTF-8", at: offset)
            }
        }
    }

    private func describe(_ offset: Int) -> String {
        guard offset < bytes.count else { return "end of file" }
        let b = bytes[offset]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + (b < 0x10 ? "0" : "") + String(b, radix: 16, uppercase: true)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws -> JSONNode {
        if let progress, position >= nextProgress {
            progress(position)
            nextProgress = position + Self.progressStride
        }
        let start = position
        guard position < bytes.count else { throw fail("unexpected end of file; expected a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return JSONNode(value: .object(try parseObject()), offset: start)
        case UInt8(ascii: "["): return JSONNode(value: .array(try parseArray()), offset: start)
        case UInt8(ascii: "\""): return JSONNode(value: .string(try parseString()), offset: start)
        case UInt8(ascii: "t"): try expectWord("true"); return JSONNode(value: .bool(true), offset: start)
        case UInt8(ascii: "f"): try expectWord("false"); return JSONNode(value: .bool(false), offset: start)
        case UInt8(ascii: "n"): try expectWord("null"); return JSONNode(value: .null, offset: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return JSONNode(value: .number(try parseNumber()), offset: start)
        default:
            if bytes[position] == UInt8(ascii: "N") || bytes[position] == UInt8(ascii: "I") {
                throw fail("\(describe(position)) does not start a JSON value; NaN and Infinity are written as the strings \"NaN\", \"Infinity\" and \"-Infinity\"")
            }
            throw fail("unexpected \(describe(position)); expected a value")
        }
    }

    private mutating func expectWord(_ word: StaticString) throws {
        let start = position
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw fail("unexpected end of file", at: start) }
        let matches = word.withUTF8Buffer { w in
            (0..<count).allSatisfy { bytes[start + $0] == w[$0] }
        }
        guard matches else { throw fail("unexpected \(describe(start)); expected a value", at: start) }
        position += count
    }

    private mutating func enter() throws {
        depth += 1
        if depth > Self.depthMax {
            throw source.error(.limitExceeded, at: position, "the JSON is nested more than \(Self.depthMax) levels deep (the limit)")
        }
    }

    private mutating func parseObject() throws -> [JSONMember] {
        try enter()
        defer { depth -= 1 }
        position += 1
        var members: [JSONMember] = []
        var seen = Set<String>()
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return members }
        while true {
            skipWhitespace()
            guard position < bytes.count else { throw fail("unexpected end of file inside an object") }
            guard bytes[position] == UInt8(ascii: "\"") else {
                throw fail("unexpected \(describe(position)); expected a member name in double quotes")
            }
            let keyOffset = position
            let key = try parseString()
            guard seen.insert(key).inserted else { throw fail("duplicate key \"\(key)\"", at: keyOffset) }
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw fail("unexpected \(describe(position)); expected ':' after \"\(key)\"")
            }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            members.append(JSONMember(key: key, keyOffset: keyOffset, value: value))
            skipWhitespace()
            guard position < bytes.count else { throw fail("unexpected end of file inside an object") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return members
            default: throw fail("unexpected \(describe(position)); expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws -> [JSONNode] {
        try enter()
        defer { depth -= 1 }
        position += 1
        var elements: [JSONNode] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return elements }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else { throw fail("unexpected end of file inside an array") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return elements
            default: throw fail("unexpected \(describe(position)); expected ',' or ']'")
            }
        }
    }

    private mutating func parseNumber() throws -> String {
        let start = position
        func digits() -> Int {
            let from = position
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") { position += 1 }
            return position - from
        }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        let intStart = position
        let intDigits = digits()
        guard intDigits > 0 else { throw fail("a number needs digits after '-'", at: start) }
        if intDigits > 1, bytes[intStart] == UInt8(ascii: "0") { throw fail("numbers cannot have leading zeros", at: start) }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw fail("a number needs digits after '.'", at: start) }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw fail("a number needs digits in its exponent", at: start) }
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func parseString() throws -> String {
        let start = position
        position += 1
        let contentStart = position
        // Fast path: no escapes.
        while position < bytes.count {
            let b = bytes[position]
            if b == UInt8(ascii: "\"") {
                let s = String(decoding: bytes[contentStart..<position], as: UTF8.self)
                position += 1
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw fail("control character (byte 0x\(String(b, radix: 16))) in a string; write it as an escape such as \\n") }
            position += 1
        }
        var out = Array(bytes[contentStart..<position])
        while position < bytes.count {
            let b = bytes[position]
            switch b {
            case UInt8(ascii: "\""):
                position += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                let escapeOffset = position
                position += 1
                guard position < bytes.count else { break }
                let e = bytes[position]
                position += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4(at: escapeOffset)
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate \\u\(String(scalar, radix: 16, uppercase: true)) in a string", at: escapeOffset)
                        }
                        position += 2
                        let low = try hex4(at: escapeOffset)
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("invalid surrogate pair in a string", at: escapeOffset) }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw fail("unpaired surrogate \\u\(String(scalar, radix: 16, uppercase: true)) in a string", at: escapeOffset)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape", at: escapeOffset) }
                    out.append(contentsOf: UTF8.encode(u).map { Array($0) } ?? [])
                default:
                    throw fail("invalid escape '\\\(Character(Unicode.Scalar(e)))' in a string", at: escapeOffset)
                }
            default:
                if b < 0x20 { throw fail("control character (byte 0x\(String(b, radix: 16))) in a string; write it as an escape such as \\n") }
                out.append(b)
                position += 1
            }
        }
        throw fail("unterminated string", at: start)
    }

    private mutating func hex4(at escapeOffset: Int) throws -> UInt32 {
        guard position + 4 <= bytes.count else { throw fail("\\u needs four hexadecimal digits", at: escapeOffset) }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[position]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw fail("\\u needs four hexadecimal digits", at: escapeOffset)
            }
            v = v << 4 | d
            position += 1
        }
        return v
    }
}
