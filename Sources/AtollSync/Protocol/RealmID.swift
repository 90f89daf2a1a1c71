public import AtollStorage
import Foundation

/// The allowed form of a realm id, checked where one enters the system: a node's configuration
/// (`SyncReplica.open`), the relay's handshake (`RelayCore`), and the wire decoder (`hello`).
///
/// A realm id is 1 to `SyncLimits.realmIDBytesMax` (256) bytes of valid UTF-8 in Unicode
/// normalization form C, with no control, format, separator or private-use characters
/// (categories Cc, Cf, Zl, Zp, Co: invisible or layout-changing characters such as U+0000,
/// U+200B or U+202E) and no white space at either end.
///
/// Why: the relay names a realm by its id, and Swift compares strings by canonical equivalence,
/// so two byte-different ids ("é" precomposed and "e" + U+0301) would name one realm; requiring
/// NFC makes equal ids byte-identical. Invalid UTF-8 is refused rather than repaired with
/// replacement characters (which would make different byte strings alias), and invisible
/// characters are refused so that ids that print the same are the same.
///
/// ```swift
/// try RealmID.validate("shop")          // fine
/// RealmID.problem("shop\u{0}")          // "... contains the control character U+0000 ..."
/// ```
public enum RealmID {
    /// Longest realm id, in UTF-8 bytes.
    public static let bytesMax = SyncLimits.realmIDBytesMax

    /// What is wrong with `id`, in words, or nil when it is an allowed realm id.
    public static func problem(_ id: String) -> String? {
        let bytes = id.utf8.count
        guard bytes > 0 else { return "the realm id is empty" }
        guard bytes <= bytesMax else {
            return "the realm id is \(bytes) bytes long, over the limit of \(bytesMax) (realmIDBytesMax)"
        }
        for scalar in id.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse:
                return "the realm id contains the character \(codePoint(scalar)) (\(describe(scalar.properties.generalCategory))); use printable characters"
            default:
                continue
            }
        }
        if let first = id.unicodeScalars.first, first.properties.isWhitespace {
            return "the realm id starts with white space (\(codePoint(first)))"
        }
        if let last = id.unicodeScalars.last, last.properties.isWhitespace {
            return "the realm id ends with white space (\(codePoint(last)))"
        }
        guard Array(id.precomposedStringWithCanonicalMapping.utf8) == Array(id.utf8) else {
            return "the realm id is not in Unicode normalization form C (NFC); normalize it first, so that ids that read the same are the same bytes"
        }
        return nil
    }

    /// Throws `.invalidArgument` naming the problem when `id` is not an allowed realm id (for ids
    /// given to this process: configuration, command line).
    public static func validate(_ id: String) throws(AtollError) {
        if let problem = problem(id) {
            throw AtollError(.invalidArgument, "\(problem) ('\(printable(id))')")
        }
    }

    /// Reads a realm id as the `hello` message carries it (varint length, UTF-8 bytes), refusing
    /// an over-long or invalid UTF-8 one with `.protocolViolation`. The rules beyond the encoding
    /// (`problem`) are the relay's to apply, so that it answers with `.invalidRealm`.
    static func read(_ r: inout ByteReader) throws -> String {
        let n = try r.varint()
        guard n <= UInt64(bytesMax) else {
            throw AtollError(.protocolViolation, "the realm id is \(n) bytes long, over the limit of \(bytesMax) (realmIDBytesMax)")
        }
        let bytes = try r.bytes(Int(n))
        guard let id = String(validating: bytes, as: UTF8.self) else {
            throw AtollError(.protocolViolation, "the realm id is not valid UTF-8 (bytes \(hexBytes(bytes)))")
        }
        return id
    }

    /// `id` with characters that would garble a log line or an error shown as U+XXXX.
    static func printable(_ id: String) -> String {
        var out = ""
        for scalar in id.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse:
                out += codePoint(scalar)
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func describe(_ category: Unicode.GeneralCategory) -> String {
        switch category {
        case .control: "a control character"
        case .format: "an invisible format character"
        case .lineSeparator, .paragraphSeparator: "a line or paragraph separator"
        default: "a private-use character"
        }
    }

    private static func hexBytes(_ bytes: UnsafeRawBufferPointer) -> String {
        let shown = bytes.prefix(32).map { byte -> String in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ")
        return bytes.count > 32 ? shown + " ..." : shown
    }
}
