import AtollStorage
import Foundation

/// What one identity may do in one realm.
public struct RealmPermission: Sendable, Equatable, CustomStringConvertible {
    /// Whether the identity may join the realm and download it.
    public var read: Bool
    /// Whether the identity may upload changes.
    public var write: Bool
    /// The classes it may change when `write` is true; nil: every class.
    public var writeClasses: [String]?

    /// A permission; `writeClasses` nil allows writes to every class.
    public init(read: Bool, write: Bool, writeClasses: [String]? = nil) {
        self.read = read
        self.write = write
        self.writeClasses = writeClasses
    }

    /// Read and write everything (a relay without rules).
    public static let full = RealmPermission(read: true, write: true)
    /// Nothing (no rule matched).
    public static let none = RealmPermission(read: false, write: false)

    /// Whether changes to objects of `className` are allowed.
    public func mayWrite(_ className: String) -> Bool {
        write && (writeClasses.map { $0.contains(className) } ?? true)
    }

    public var description: String {
        if !read { return "no access" }
        if !write { return "read-only" }
        return writeClasses.map { "read, write \($0.joined(separator: ", "))" } ?? "read-write"
    }
}

/// The relay's permission rules (`atoll-relay serve --rules FILE`, docs/AUTH.md): an ordered list,
/// each a realm name pattern with placeholders filled from the identity, and what the identity may
/// do in a realm it matches. The first rule whose pattern matches decides; no match, no access.
///
/// ```json
/// {"rules": [
///   {"realm": "user/{sub}", "read": true, "write": true},
///   {"realm": "team/{claims.team}", "read": true, "write": true, "writeClasses": ["Task"]},
///   {"realm": "catalog", "read": true, "write": false}
/// ]}
/// ```
///
/// `{sub}` is the identity's name (a JWT's `sub`, a certificate's common name, a static token's
/// name); `{claims.X}` is claim X of a JWT. A rule whose placeholder has no value for the
/// identity (no such claim) does not match it.
public struct AccessRules: Sendable, Equatable {
    /// One rule: a realm pattern and what a matching identity may do there.
    public struct Rule: Sendable, Equatable {
        /// The realm id pattern, with `{sub}` and `{claims.X}` filled from the identity.
        public var realm: String
        /// What the rule allows.
        public var permission: RealmPermission

        /// A rule for the realms matching `realm`.
        public init(realm: String, permission: RealmPermission) {
            self.realm = realm
            self.permission = permission
        }
    }

    /// Most rules one file may hold.
    public static let rulesMax = 10_000

    /// The rules in order; the first that matches decides.
    public var rules: [Rule]

    /// Rules, each pattern checked.
    ///
    /// - Throws: `AtollError(.invalidInput)` for a pattern with an unknown or unclosed placeholder,
    ///   a rule that writes without reading, or `writeClasses` without `write`.
    public init(_ rules: [Rule]) throws {
        guard rules.count <= Self.rulesMax else {
            throw AtollError(.invalidInput, "\(rules.count) rules; at most \(Self.rulesMax)")
        }
        for (index, rule) in rules.enumerated() {
            let at = "rule \(index + 1) ('\(rule.realm)')"
            guard !rule.realm.isEmpty else { throw AtollError(.invalidInput, "rule \(index + 1): 'realm' is empty") }
            _ = try Self.segments(rule.realm, at: at)
            if rule.permission.write && !rule.permission.read {
                throw AtollError(.invalidInput, "\(at): 'write' needs 'read' (a node syncs only realms it reads)")
            }
            if let classes = rule.permission.writeClasses {
                guard rule.permission.write else { throw AtollError(.invalidInput, "\(at): 'writeClasses' needs \"write\": true") }
                guard classes.count <= SyncLimits.permissionClassesMax else {
                    throw AtollError(.invalidInput, "\(at): \(classes.count) classes in 'writeClasses'; at most \(SyncLimits.permissionClassesMax)")
                }
                if let bad = classes.first(where: { $0.isEmpty || $0.utf8.count > SchemaLimits.tableNameBytesMax }) {
                    throw AtollError(.invalidInput, "\(at): '\(bad)' in 'writeClasses' is not a class name (1 to \(SchemaLimits.tableNameBytesMax) bytes)")
                }
            }
        }
        self.rules = rules
    }

    /// Parses a rules file's bytes. Unknown fields, a value of the wrong type and malformed JSON
    /// are refused.
    ///
    /// - Throws: `AtollError(.invalidInput)` saying what is wrong and where.
    public init(json: [UInt8]) throws {
        let file: RulesFile
        do {
            file = try JSONDecoder().decode(RulesFile.self, from: Data(json))
        } catch let error as AtollError {
            throw error
        } catch let DecodingError.dataCorrupted(context) {
            throw AtollError(.invalidInput, "not valid JSON: \(context.debugDescription)\(Self.describe(context.codingPath))")
        } catch let DecodingError.keyNotFound(key, context) {
            throw AtollError(.invalidInput, "'\(key.stringValue)' is missing\(Self.describe(context.codingPath))")
        } catch let DecodingError.typeMismatch(type, context) {
            throw AtollError(.invalidInput, "\(Self.describe(context.codingPath, leading: false)) must be \(type == Bool.self ? "true or false" : type == String.self ? "a string" : "\(type)")")
        } catch {
            throw AtollError(.invalidInput, "\(error)")
        }
        try self.init(file.rules.map { Rule(realm: $0.realm, permission: RealmPermission(read: $0.read, write: $0.write, writeClasses: $0.writeClasses)) })
    }

    /// Reads and parses a rules file.
    ///
    /// - Throws: `.fileNotFound` or `.fileAccessDenied` for a file that cannot be read, and
    ///   `.invalidInput` as `init(json:)`, each message naming the file.
    public static func load(path: String) throws -> AccessRules {
        guard FileManager.default.fileExists(atPath: path) else {
            throw AtollError(.fileNotFound, "rules file '\(path)' does not exist")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AtollError(.fileAccessDenied, "rules file '\(path)' cannot be read")
        }
        do {
            return try AccessRules(json: [UInt8](data))
        } catch let error as AtollError {
            throw AtollError(error.kind, "rules file '\(path)': \(error.message)")
        }
    }

    /// What `identity` may do in `realm`: the first matching rule's permission, or none.
    public func permission(for realm: String, identity: PeerIdentity) -> RealmPermission {
        for rule in rules where Self.matches(rule.realm, realm, identity) {
            return rule.permission
        }
        return .none
    }

    // MARK: patterns

    private enum Segment: Equatable {
        case literal(String)
        case subject
        case claim(String)
    }

    private static func segments(_ pattern: String, at: String) throws -> [Segment] {
        var segments: [Segment] = []
        var rest = Substring(pattern)
        while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            guard rest[open] == "{" else { throw AtollError(.invalidInput, "\(at): a '}' without '{'") }
            if open > rest.startIndex { segments.append(.literal(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw AtollError(.invalidInput, "\(at): a '{' without '}'")
            }
            let name = rest[rest.index(after: open)..<close]
            if name == "sub" {
                segments.append(.subject)
            } else if name.hasPrefix("claims."), name.count > 7, !name.contains("{") {
                segments.append(.claim(String(name.dropFirst(7))))
            } else {
                throw AtollError(.invalidInput, "\(at): unknown placeholder '{\(name)}' (use {sub} or {claims.NAME})")
            }
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { segments.append(.literal(String(rest))) }
        return segments
    }

    private static func matches(_ pattern: String, _ realm: String, _ identity: PeerIdentity) -> Bool {
        // Patterns were checked at init: a failure here cannot happen, and would match nothing.
        guard let segments = try? segments(pattern, at: "") else { return false }
        var filled = ""
        for segment in segments {
            switch segment {
            case .literal(let text): filled += text
            case .subject:
                guard !identity.subject.isEmpty else { return false }
                filled += identity.subject
            case .claim(let name):
                guard let value = identity.claims[name], !value.isEmpty else { return false }
                filled += value
            }
        }
        return filled == realm
    }

    private static func describe(_ path: [any CodingKey], leading: Bool = true) -> String {
        guard !path.isEmpty else { return leading ? "" : "the file" }
        var words: [String] = []
        for key in path {
            if let index = key.intValue { words.append("rule \(index + 1)") } else if key.stringValue != "rules" { words.append("'\(key.stringValue)'") }
        }
        let text = words.joined(separator: " ")
        return leading ? (text.isEmpty ? "" : " (at \(text))") : text
    }
}

/// The file's shape, decoded strictly: unknown fields are refused.
private struct RulesFile: Decodable {
    var rules: [RuleEntry]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if let unknown = container.allKeys.map(\.stringValue).filter({ $0 != "rules" }).sorted().first {
            throw AtollError(.invalidInput, "unknown field '\(unknown)' (the file holds only \"rules\")")
        }
        rules = try container.decode([RuleEntry].self, forKey: Key(stringValue: "rules"))
    }

    struct RuleEntry: Decodable {
        var realm: String
        var read: Bool
        var write: Bool
        var writeClasses: [String]?

        private static let fields: Set<String> = ["realm", "read", "write", "writeClasses"]

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            if let unknown = container.allKeys.map(\.stringValue).filter({ !Self.fields.contains($0) }).sorted().first {
                let index = (container.codingPath.last?.intValue).map { "rule \($0 + 1)" } ?? "a rule"
                throw AtollError(.invalidInput, "\(index): unknown field '\(unknown)' (known: realm, read, write, writeClasses)")
            }
            realm = try container.decode(String.self, forKey: Key(stringValue: "realm"))
            read = try container.decodeIfPresent(Bool.self, forKey: Key(stringValue: "read")) ?? false
            write = try container.decodeIfPresent(Bool.self, forKey: Key(stringValue: "write")) ?? false
            writeClasses = try container.decodeIfPresent([String].self, forKey: Key(stringValue: "writeClasses"))
        }
    }
}
