import Atoll
import Dispatch
import Foundation

/// The database `atoll studio` shows: one read-only realm on its own queue, which refreshes
/// itself when any process commits, and answers the page's requests as JSON text.
///
/// `@unchecked Sendable`: `realm`, `token` and `commits` are touched only on `queue` (`open`
/// and `perform` are the only ways in, and both run there), which is what confines a realm
/// opened with a queue.
final class StudioData: @unchecked Sendable {
    private let queue = DispatchQueue(label: "atoll.studio")
    private var realm: Realm?
    private var token: NotificationToken?
    /// How many newer versions the realm has moved to since it opened: the page's cue to read again.
    private var commits = 0
    /// The most objects one page of results may hold.
    static let pageMax = 500

    func open(path: String, key: EncryptionKey?) throws {
        try queue.sync {
            let realm = try DatabaseAccess.openRealm(path, readOnly: true, key: key, queue: queue)
            token = realm.observe { [weak self] _, _ in self?.commits += 1 }
            self.realm = realm
        }
    }

    func close() {
        queue.sync {
            token?.invalidate()
            token = nil
            realm = nil
        }
    }

    /// Runs `body` on the realm's queue.
    func perform<T: Sendable>(_ body: @escaping @Sendable (StudioData) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body(self) }) }
        }
    }

    private func openRealm() throws -> Realm {
        guard let realm else { throw AtollError(.invalidArgument, "the studio's database is closed") }
        return realm
    }

    /// `{"version": N}`.
    func version() -> String { "{\"version\":\(commits)}" }

    /// The classes with their object counts and properties.
    func classes() throws -> String {
        let realm = try openRealm()
        var items: [String] = []
        for c in realm.dynamicSchema.classes.sorted(by: { $0.name < $1.name }) {
            let count = try realm.dynamicObjects(throwing: c.name).evaluatedCount()
            let properties = c.properties.map { p in
                "{\"name\":\(JSONText.string(p.name)),\"type\":\(JSONText.string(p.typeString))}"
            }
            items.append("{\"name\":\(JSONText.string(c.name)),\"count\":\(count),\"primaryKey\":\(c.primaryKey.map(JSONText.string) ?? "null"),"
                + "\"properties\":[\(properties.joined(separator: ","))]}")
        }
        return "{\"version\":\(commits),\"classes\":[\(items.joined(separator: ","))]}"
    }

    /// One page of the objects of `className` that match `predicate`, sorted by `sort`
    /// (`keyPath` or `keyPath:desc`, comma-separated).
    func query(className: String, predicate: String, sort: String, offset: Int, limit: Int) throws -> String {
        let realm = try openRealm()
        var results = try realm.dynamicObjects(throwing: className).filter(predicate, arguments: [])
        let keys = sort.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if !keys.isEmpty {
            let descriptors = try keys.map { text in
                guard let d = QueryCommand.sortDescriptor(text) else {
                    throw AtollError(.invalidArgument, "sort '\(text)' is not KEYPATH, KEYPATH:asc or KEYPATH:desc")
                }
                return d
            }
            results = try results.sorted(throwing: descriptors)
        }
        let total = try results.evaluatedCount()
        let first = min(max(offset, 0), total)
        let page = try results.objects(limit: first + min(max(limit, 0), Self.pageMax)).dropFirst(first)
        let schema = realm.dynamicSchema[className: results.className]
        let columns = schema?.properties.filter { !$0.isLinkingObjects } ?? []
        let primaryKeys = Self.primaryKeys(realm)
        let rows = try page.map { o in try objectJSON(o, columns: columns, primaryKeys: primaryKeys) }
        return "{\"version\":\(commits),\"class\":\(JSONText.string(results.className)),\"total\":\(total),\"offset\":\(first),"
            + "\"columns\":[\(columns.map { JSONText.string($0.name) }.joined(separator: ","))],\"objects\":[\(rows.joined(separator: ","))]}"
    }

    /// The object of `className` with the key `key`, every stored property, links as references.
    func object(className: String, key: UInt64) throws -> String? {
        let realm = try openRealm()
        guard let object = try realm.dynamicObject(throwingOfType: className, key: ObjectKey(key)) else { return nil }
        let columns = realm.dynamicSchema[className: className]?.properties.filter { !$0.isLinkingObjects } ?? []
        return "{\"version\":\(commits),\"object\":\(try objectJSON(object, columns: columns, primaryKeys: Self.primaryKeys(realm)))}"
    }

    /// `{"class": C, "key": K, "label": L, "values": {property: value}}`: values as in data
    /// files, except links, which are references `{"$link": {"class", "key", "label"}}`.
    private func objectJSON(_ object: DynamicObject, columns: [DynamicProperty], primaryKeys: [String: String]) throws -> String {
        let link = { (value: Any?) throws -> String in
            guard let target = value as? DynamicObject else { return "null" }
            return "{\"$link\":{\"class\":\(JSONText.string(target.className)),\"key\":\"\(target.key.rawValue)\","
                + "\"label\":\(JSONText.string(try Self.label(target, primaryKeys: primaryKeys)))}}"
        }
        var values: [String] = []
        for p in columns {
            let text: String
            if case .object = p.type {
                let value = try object.value(forProperty: p.name)
                if p.isMap {
                    let entries = (value as? [String: Any?]) ?? [:]
                    text = "{" + (try entries.keys.sorted().map { k in JSONText.string(k) + ":" + (try link(entries[k] ?? nil)) }).joined(separator: ",") + "}"
                } else if p.isList || p.isSet {
                    text = "[" + (try ((value as? [Any?]) ?? []).map { try link($0) }).joined(separator: ",") + "]"
                } else {
                    text = try link(value)
                }
            } else {
                text = try object.jsonValue(forProperty: p.name)
            }
            values.append(JSONText.string(p.name) + ":" + text)
        }
        return "{\"class\":\(JSONText.string(object.className)),\"key\":\"\(object.key.rawValue)\",\"label\":\(JSONText.string(try Self.label(object, primaryKeys: primaryKeys))),"
            + "\"values\":{\(values.joined(separator: ","))}}"
    }

    /// The primary-key property of each class that has one.
    private static func primaryKeys(_ realm: Realm) -> [String: String] {
        var keys: [String: String] = [:]
        for c in realm.dynamicSchema.classes { if let pk = c.primaryKey { keys[c.name] = pk } }
        return keys
    }

    /// How the page names an object: its primary key, else `#key`. Read through the throwing
    /// API: a damaged file is an error answered to the page, never a stopped studio.
    private static func label(_ object: DynamicObject, primaryKeys: [String: String]) throws -> String {
        guard let pk = primaryKeys[object.className] else { return "#\(object.key.rawValue)" }
        return try object.jsonValue(forProperty: pk)
    }
}

/// JSON text for strings the studio writes by hand.
enum JSONText {
    static func string(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<": out += "\\u003c"  // never closes a script element it is embedded in
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}
