import Foundation
import AtollStorage
import AtollQuery

/// Query arguments written in JSON, as `atoll query --arg` takes them.
///
/// - `null`, `true`/`false`, numbers (an integer literal is an int, anything else a double),
///   strings;
/// - `{"$date": "2024-05-17T09:30:00.5Z"}` (ISO-8601, up to 9 fractional digits),
///   `{"$data": "base64"}`, `{"$uuid": "..."}`, `{"$oid": "24 hex digits"}`,
///   `{"$numberDecimal": "19.99"}` (a Decimal128, MongoDB's extended-JSON name);
/// - an array of these: a collection argument (`age IN $0`).
///
/// With `DynamicResults.filter`, an argument compared with a link is the target's primary-key
/// value, and a string compared with a UUID or ObjectId property is parsed as one.
public enum QueryArgumentJSON {
    /// The argument a JSON text stands for, to pass to `DynamicResults.filter(_:arguments:)`.
    ///
    /// - Parameters:
    ///   - text: the JSON text of one value (`5`, `"Rex"`, `{"$date": "2000-01-01T00:00:00Z"}`).
    ///   - sourceName: names the argument in error messages ("argument $0").
    /// - Throws: `.invalidInput` with the position of the problem.
    public static func argument(fromJSON text: String, sourceName: String) throws -> Any {
        let source = JSONSource(name: sourceName, bytes: Array(text.utf8))
        return try value(try JSONParser.parse(source), source: source, depth: 0)
    }

    private static func value(_ node: JSONNode, source: JSONSource, depth: Int) throws -> QueryValue {
        switch node.value {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .string(let s): return .string(s)
        case .number(let text):
            if let i = Int64(text) { return .int(i) }
            guard let d = Double(text), d.isFinite else { throw source.error(.invalidInput, at: node.offset, "\(text) is out of range") }
            return .double(d)
        case .array(let elements):
            guard depth == 0 else { throw source.error(.invalidInput, at: node.offset, "an array argument cannot contain arrays") }
            return .list(try elements.map { try value($0, source: source, depth: depth + 1) })
        case .object(let members):
            guard members.count == 1, let m = members.first, let text = m.value.string else {
                throw source.error(.invalidInput, at: node.offset, "an object argument is {\"$date\": \"ISO-8601\"}, {\"$data\": \"base64\"}, {\"$uuid\": \"...\"}, {\"$oid\": \"...\"} or {\"$numberDecimal\": \"...\"}")
            }
            switch m.key {
            case "$date":
                switch ISO8601Timestamp.parse(text) {
                case .success(let t):
                    // QueryValue timestamps carry one sign in both parts.
                    if t.seconds < 0 && t.nanoseconds > 0 {
                        return .timestamp(seconds: t.seconds + 1, nanoseconds: t.nanoseconds - 1_000_000_000)
                    }
                    return .timestamp(seconds: t.seconds, nanoseconds: t.nanoseconds)
                case .failure(let e):
                    throw source.error(.invalidInput, at: m.value.offset, "\"\(text)\": \(e.message)")
                }
            case "$data":
                guard let d = Data(base64Encoded: text) else { throw source.error(.invalidInput, at: m.value.offset, "\"\(text.prefix(40))\" is not valid base64") }
                return .data([UInt8](d))
            case "$uuid":
                guard let u = UUID(uuidString: text) else { throw source.error(.invalidInput, at: m.value.offset, "\"\(text)\" is not a UUID") }
                return .uuid(u)
            case "$oid":
                guard let o = try? ObjectId(string: text) else { throw source.error(.invalidInput, at: m.value.offset, "\"\(text)\" is not an ObjectId (24 hexadecimal digits)") }
                return .objectId(o)
            case "$numberDecimal":
                guard let d = try? Decimal128(string: text) else { throw source.error(.invalidInput, at: m.value.offset, "\"\(text.prefix(40))\" is not a Decimal128") }
                return .decimal128(d)
            default:
                throw source.error(.invalidInput, at: m.keyOffset, "unknown argument type \"\(m.key)\"; use $date, $data, $uuid, $oid or $numberDecimal")
            }
        }
    }
}
