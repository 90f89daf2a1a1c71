import Foundation
public import AtollStorage

// Values in data files (`atoll import`, `dump`, `query`): the one place that decides how each
// stored type reads from and prints to JSON.
//
// | type     | JSON                                                                 |
// |----------|----------------------------------------------------------------------|
// | bool     | true / false                                                         |
// | int      | an integer (a number with a fraction or exponent must be integral)   |
// | float    | a number (rounded once from the decimal text); "NaN", "Infinity", "-Infinity" |
// | double   | a number; "NaN", "Infinity", "-Infinity"                             |
// | string   | a string                                                             |
// | data     | a base64 string (standard alphabet, padded)                          |
// | date     | an ISO-8601 string, up to 9 fractional digits (ISO8601Timestamp)     |
// | uuid     | a string such as "5e4f3a1c-8b6d-4c1f-9a3e-2b7c6d5e4f3a" (lower case when printed) |
// | objectId | a string of 24 hexadecimal digits                                    |
// | decimal128 | a string such as "19.99", "1.50", "-1.5E-7", "NaN", "Infinity" (Decimal128.scientificString, which keeps the exact encoding); a JSON number is read from its text, every digit kept |
// | mixed    | self-describing: null, true/false, an integer (int), a number with a fraction or exponent (double), a string; the other types tagged: {"$float": n}, {"$double": "NaN"}, {"$date": "…"}, {"$data": "base64"}, {"$uuid": "…"}, {"$oid": "…"}, {"$numberDecimal": "…"} |
// | link     | the target's primary-key value, or a nested object                  |
// | list     | an array of the above                                                |
// | nil      | null                                                                 |

extension StorageValue {
    /// The value as it reads in a data file (a link as its raw object key), for tools such as
    /// `atoll log`.
    public var dataFileText: String { InterchangeText.describe(self) }
}

enum InterchangeText {
    /// A scalar as it reads in a data file, for messages.
    static func describe(_ v: StorageValue) -> String {
        var out = JSONOutput()
        InterchangeValue.appendScalar(v, to: &out)
        return out.text
    }
}

enum InterchangeValue {
    /// Appends a stored scalar (not a link) as JSON.
    static func appendScalar(_ v: StorageValue, to out: inout JSONOutput) {
        switch v {
        case .null: out.raw("null")
        case .bool(let b): out.raw(b ? "true" : "false")
        case .int(let i): out.int(i)
        case .float(let f): out.float(f)
        case .double(let d): out.double(d)
        case .string(let s): out.string(s)
        case .binary(let b): out.string(Data(b).base64EncodedString())
        case .timestamp(let t): out.string(ISO8601Timestamp.format(t))
        case .uuid(let u): out.string(u.uuidString.lowercased())
        case .objectId(let o): out.string(o.description)
        case .link(let k): out.int(Int64(bitPattern: k.rawValue))
        case .decimal128(let d): out.string(d.scientificString)
        // In messages only: a data file writes a typed link with its class (ObjectJSONEncoder).
        case .typedLink(let t, let k): out.string("link to object \(k.rawValue) of table \(t.rawValue)")
        case .mixedList, .mixedMap: appendMixed(v, to: &out)
        }
    }

    /// Appends a value of a mixed column: self-describing JSON (see the table above).
    static func appendMixed(_ v: StorageValue, to out: inout JSONOutput) {
        func tagged(_ tag: StaticString, _ body: (inout JSONOutput) -> Void) {
            out.raw("{\"")
            out.raw(tag)
            out.raw("\":")
            body(&out)
            out.byte(UInt8(ascii: "}"))
        }
        switch v {
        case .null, .bool, .int, .string: appendScalar(v, to: &out)
        case .double(let d):
            if d.isFinite {
                let text = d.description
                // A double always reads back as a double: keep a fraction or exponent in sight.
                out.raw(text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? text : text + ".0")
            } else {
                tagged("$double") { $0.double(d) }
            }
        case .float(let f): tagged("$float") { $0.float(f) }
        case .binary: tagged("$data") { appendScalar(v, to: &$0) }
        case .timestamp: tagged("$date") { appendScalar(v, to: &$0) }
        case .uuid: tagged("$uuid") { appendScalar(v, to: &$0) }
        case .objectId: tagged("$oid") { appendScalar(v, to: &$0) }
        case .decimal128: tagged("$numberDecimal") { appendScalar(v, to: &$0) }
        // Links are written by ObjectJSONEncoder, which knows their targets.
        case .link, .typedLink: out.raw("null")
        // A nested list is an array, a nested dictionary an object (its keys never start with
        // `$`, so it never reads as a tagged value).
        case .mixedList(let l):
            out.byte(UInt8(ascii: "["))
            for (i, e) in l.enumerated() {
                if i > 0 { out.byte(UInt8(ascii: ",")) }
                appendMixed(e, to: &out)
            }
            out.byte(UInt8(ascii: "]"))
        case .mixedMap(let m):
            out.byte(UInt8(ascii: "{"))
            for (i, k) in m.keys.sorted(by: StorageValue.mapKeyPrecedes).enumerated() {
                if i > 0 { out.byte(UInt8(ascii: ",")) }
                out.string(k)
                out.byte(UInt8(ascii: ":"))
                appendMixed(m[k]!, to: &out)
            }
            out.byte(UInt8(ascii: "}"))
        }
    }

    /// The value of a mixed column from its self-describing JSON.
    static func mixed(_ node: JSONNode, depth: Int = 0) -> Result<StorageValue, Mismatch> {
        switch node.value {
        case .null: return .success(.null)
        case .bool(let b): return .success(.bool(b))
        case .string(let s): return .success(.string(s))
        case .number(let text):
            if let i = Int64(text) { return .success(.int(i)) }
            guard let d = Double(text), d.isFinite else { return .failure(Mismatch(message: "\(text) is out of the range of a double")) }
            return .success(.double(d))
        case .object(let members):
            if members.count == 1, let m = members.first, m.key.hasPrefix("$") {
                let types: [String: ColumnType] = ["$float": .float, "$double": .double, "$date": .timestamp, "$data": .binary,
                                                   "$uuid": .uuid, "$oid": .objectId, "$numberDecimal": .decimal128]
                guard let type = types[m.key] else { break }
                return scalar(m.value, type: type)
            }
            // Any other object is a nested dictionary (Realm 10.51's AnyRealmValue.dictionary).
            guard depth < StorageValue.mixedNestingMax else { return .failure(Mismatch(message: AnyRealmValue.tooDeep().message)) }
            var entries: [String: StorageValue] = [:]
            for m in members {
                if m.key.hasPrefix("$") { break }
                do { try MapKeyRules.validate(m.key) } catch let e as AtollError { return .failure(Mismatch(message: e.message)) } catch { return .failure(Mismatch(message: "\(error)")) }
                switch mixed(m.value, depth: depth + 1) {
                case .success(let v): entries[m.key] = v
                case .failure(let e): return .failure(e)
                }
            }
            guard entries.count == members.count else { break }
            return .success(.mixedMap(entries))
        case .array(let elements):
            // A nested list (Realm 10.51's AnyRealmValue.list).
            guard depth < StorageValue.mixedNestingMax else { return .failure(Mismatch(message: AnyRealmValue.tooDeep().message)) }
            var values: [StorageValue] = []
            for e in elements {
                switch mixed(e, depth: depth + 1) {
                case .success(let v): values.append(v)
                case .failure(let e): return .failure(e)
                }
            }
            return .success(.mixedList(values))
        }
        return .failure(Mismatch(message: "expected a value or a tagged value such as {\"$date\": \"…\"} ($float, $double, $date, $data, $uuid, $oid, $numberDecimal), found \(node.typeName)"))
    }

    /// Why a JSON value cannot be stored in a column; the caller adds where.
    struct Mismatch: Error {
        let message: String
    }

    /// The stored value of a JSON value for a scalar column type (`type` never `.link`).
    static func scalar(_ node: JSONNode, type: ColumnType, intBits: UInt8 = 64) -> Result<StorageValue, Mismatch> {
        func expected(_ what: String) -> Result<StorageValue, Mismatch> {
            .failure(Mismatch(message: "expected \(what), found \(node.typeName)"))
        }
        if type == .mixed { return mixed(node) }
        switch (type, node.value) {
        case (_, .null):
            return .success(.null)
        case (.bool, .bool(let b)):
            return .success(.bool(b))
        case (.bool, _):
            return expected("true or false")
        case (.int, .number(let text)):
            let value: Int64
            if let i = Int64(text) {
                value = i
            } else if let d = Double(text), d.rounded() == d, d >= -9.223_372_036_854_775_808e18, d < 9.223_372_036_854_775_808e18 {
                value = Int64(d)
            } else if text.allSatisfy({ $0.isNumber || $0 == "-" }) {
                return .failure(Mismatch(message: "\(text) is out of the range of a 64-bit integer"))
            } else {
                return .failure(Mismatch(message: "expected an integer, found \(text)"))
            }
            if intBits < 64 {
                let lo = -(Int64(1) << (intBits - 1)), hi = (Int64(1) << (intBits - 1)) - 1
                guard value >= lo && value <= hi else { return .failure(Mismatch(message: "\(value) does not fit this \(intBits)-bit integer property")) }
            }
            return .success(.int(value))
        case (.int, _):
            return expected("an integer")
        case (.float, .number(let text)):
            guard let f = Float(text), f.isFinite else { return .failure(Mismatch(message: "\(text) is out of the range of a float")) }
            return .success(.float(f))
        case (.double, .number(let text)):
            guard let d = Double(text), d.isFinite else { return .failure(Mismatch(message: "\(text) is out of the range of a double")) }
            return .success(.double(d))
        case (.float, .string(let s)), (.double, .string(let s)):
            let special: Double
            switch s {
            case "NaN": special = .nan
            case "Infinity": special = .infinity
            case "-Infinity": special = -.infinity
            default: return .failure(Mismatch(message: "expected a number, found the string \"\(s)\" (the only strings allowed are \"NaN\", \"Infinity\" and \"-Infinity\")"))
            }
            return .success(type == .float ? .float(Float(special)) : .double(special))
        case (.float, _), (.double, _):
            return expected("a number")
        case (.string, .string(let s)):
            return .success(.string(s))
        case (.string, _):
            return expected("a string")
        case (.binary, .string(let s)):
            guard let d = Data(base64Encoded: s) else { return .failure(Mismatch(message: "\"\(s.prefix(40))\" is not valid base64")) }
            return .success(.binary([UInt8](d)))
        case (.binary, _):
            return expected("a base64 string")
        case (.timestamp, .string(let s)):
            switch ISO8601Timestamp.parse(s) {
            case .success(let t): return .success(.timestamp(t))
            case .failure(let e): return .failure(Mismatch(message: "\"\(s)\": \(e.message)"))
            }
        case (.timestamp, _):
            return expected("an ISO-8601 date string")
        case (.uuid, .string(let s)):
            guard let u = UUID(uuidString: s) else { return .failure(Mismatch(message: "\"\(s)\" is not a UUID such as \"5e4f3a1c-8b6d-4c1f-9a3e-2b7c6d5e4f3a\"")) }
            return .success(.uuid(u))
        case (.uuid, _):
            return expected("a UUID string")
        case (.objectId, .string(let s)):
            guard let o = try? ObjectId(string: s) else { return .failure(Mismatch(message: "\"\(s)\" is not an ObjectId (24 hexadecimal digits)")) }
            return .success(.objectId(o))
        case (.objectId, _):
            return expected("an ObjectId string")
        case (.decimal128, .string(let s)), (.decimal128, .number(let s)):
            guard let d = try? Decimal128(string: s) else { return .failure(Mismatch(message: "\"\(s.prefix(40))\" is not a Decimal128 (a number such as \"19.99\" or \"-1.5E-7\", or \"NaN\", \"Inf\")")) }
            return .success(.decimal128(d))
        case (.decimal128, _):
            return expected("a decimal number or a string such as \"19.99\"")
        case (.link, _), (.mixed, _):
            return expected("a link")
        }
    }
}
