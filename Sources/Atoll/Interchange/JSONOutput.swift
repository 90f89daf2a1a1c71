/// Writes JSON text into a byte buffer, handing full chunks to a sink so a dump of any size
/// needs bounded memory.
///
/// Number and string forms are fixed, so equal values always give equal bytes:
/// - integers in decimal; doubles and floats as the shortest decimal that reads back to the same
///   value (Swift's `description`: `1.0`, `0.1`, `1e-05`, `-0.0`); NaN and the infinities,
///   which JSON cannot express, as the strings `"NaN"`, `"Infinity"` and `"-Infinity"`;
/// - strings in UTF-8, escaping only `"` `\` and control characters (`\b \f \n \r \t`, others as
///   `\u00XX`).
struct JSONOutput {
    private(set) var buffer: [UInt8] = []
    private let sink: (([UInt8]) throws -> Void)?
    private static let chunkBytes = 1 << 16

    /// Collects everything in `buffer`.
    init() { sink = nil }

    /// Hands the text to `sink` in chunks (call `flush()` at the end).
    init(sink: @escaping ([UInt8]) throws -> Void) {
        self.sink = sink
        buffer.reserveCapacity(Self.chunkBytes + 1024)
    }

    var text: String { String(decoding: buffer, as: UTF8.self) }

    mutating func flushIfFull() throws {
        if let sink, buffer.count >= Self.chunkBytes {
            try sink(buffer)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    mutating func flush() throws {
        if let sink, !buffer.isEmpty {
            try sink(buffer)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    mutating func raw(_ s: StaticString) {
        s.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }

    mutating func raw(_ s: String) { buffer.append(contentsOf: s.utf8) }

    mutating func byte(_ b: UInt8) { buffer.append(b) }

    mutating func append(_ bytes: [UInt8]) { buffer.append(contentsOf: bytes) }

    mutating func int(_ v: Int64) { raw(String(v)) }

    mutating func double(_ v: Double) {
        if v.isNaN { raw("\"NaN\"") } else if v.isInfinite { raw(v < 0 ? "\"-Infinity\"" : "\"Infinity\"") } else { raw(v.description) }
    }

    mutating func float(_ v: Float) {
        if v.isNaN { raw("\"NaN\"") } else if v.isInfinite { raw(v < 0 ? "\"-Infinity\"" : "\"Infinity\"") } else { raw(v.description) }
    }

    mutating func string(_ s: String) {
        buffer.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case 0x22: raw("\\\"")
            case 0x5C: raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x08: raw("\\b")
            case 0x0C: raw("\\f")
            case 0..<0x20:
                raw("\\u00")
                buffer.append(Self.hex[Int(b >> 4)])
                buffer.append(Self.hex[Int(b & 15)])
            default: buffer.append(b)
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)
}
