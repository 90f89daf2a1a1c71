public import struct Foundation.UUID

/// Identifies a table within a database file. Stable for the table's lifetime.
public struct TableKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public static func < (a: TableKey, b: TableKey) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "table#\(rawValue)" }
}

/// Identifies an object within its table. Objects of a table are ordered by key.
///
/// Tables whose primary key is a non-optional integer use the primary key itself as the object
/// key (`ObjectKey(primaryKey:)`), so a primary-key lookup is a single tree descent and needs
/// no separate index. Other tables number their objects from a counter.
public struct ObjectKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    @inlinable public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    /// The key of the object whose integer primary key is `pk`: order-preserving (the sign bit
    /// is flipped so negative keys sort first).
    @inlinable public init(primaryKey pk: Int64) { rawValue = UInt64(bitPattern: pk) ^ (1 << 63) }

    /// The integer primary key this key was made from.
    @inlinable public var intPrimaryKey: Int64 { Int64(bitPattern: rawValue ^ (1 << 63)) }

    @inlinable public static func < (a: ObjectKey, b: ObjectKey) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "obj#\(rawValue)" }
}

/// A value as the storage engine sees it, for dynamic access, the transaction log, lists and
/// sync. Typed accessors on `Table` avoid this enum on hot paths.
public enum StorageValue: Hashable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    case binary([UInt8])
    case timestamp(Timestamp)
    case uuid(UUID)
    case objectId(ObjectId)
    /// A link: the target object's key (the target table comes from the schema).
    case link(ObjectKey)
    case decimal128(Decimal128)
    /// A link to an object of any table, as a mixed value holds it (realm-core's `TypedLink`,
    /// RealmSwift's `AnyRealmValue.object`): the target's table and key.
    case typedLink(TableKey, ObjectKey)
    /// A list of mixed values nested in a mixed value (RealmSwift 10.51's `AnyRealmValue.list`);
    /// its elements may be nested collections themselves, up to `mixedNestingMax` levels.
    case mixedList([StorageValue])
    /// A map of mixed values nested in a mixed value (RealmSwift 10.51's `AnyRealmValue.dictionary`),
    /// keys following the map key rules (`MapKeyRules`).
    case mixedMap([String: StorageValue])

    /// How deeply collections may nest in one mixed value (a list in a list is two levels). Deeper
    /// values are refused when written and read as corrupt, so that neither the encoder nor the
    /// decoder, both recursive, can exhaust a thread's stack.
    public static let mixedNestingMax = 100

    public var isNull: Bool { if case .null = self { true } else { false } }

    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let v): "\(v)"
        case .int(let v): "\(v)"
        case .float(let v): "\(v)f"
        case .double(let v): "\(v)"
        case .string(let v): "\"\(v)\""
        case .binary(let v): "<\(v.count) bytes>"
        case .timestamp(let v): v.description
        case .uuid(let v): "uuid(\(v.uuidString))"
        case .objectId(let v): "oid(\(v))"
        case .link(let k): "->\(k.rawValue)"
        case .decimal128(let v): "decimal128(\(v))"
        case .typedLink(let t, let k): "->\(t.rawValue):\(k.rawValue)"
        case .mixedList(let l): "[" + l.map(\.description).joined(separator: ", ") + "]"
        case .mixedMap(let m): "{" + m.keys.sorted(by: StorageValue.mapKeyPrecedes).map { "\"\($0)\": \(m[$0]!)" }.joined(separator: ", ") + "}"
        }
    }

    /// Whether the value may be stored in a column of `type` (null checked separately).
    package func matches(_ type: ColumnType) -> Bool {
        switch (self, type) {
        case (.null, _): true
        case (.link, .mixed): false
        case (_, .mixed): true
        case (.typedLink, _), (.mixedList, _), (.mixedMap, _): false
        case (.bool, .bool), (.int, .int), (.float, .float), (.double, .double), (.string, .string),
             (.binary, .binary), (.timestamp, .timestamp), (.uuid, .uuid), (.objectId, .objectId), (.link, .link),
             (.decimal128, .decimal128):
            true
        default: false
        }
    }

    package var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .double: "double"
        case .string: "string"
        case .binary: "data"
        case .timestamp: "date"
        case .uuid: "uuid"
        case .objectId: "objectId"
        case .link: "link"
        case .decimal128: "decimal128"
        case .typedLink: "object"
        case .mixedList: "list"
        case .mixedMap: "dictionary"
        }
    }
}

// MARK: mixed columns

extension StorageValue {
    /// The stored bytes of a non-null value of a mixed column: its tagged encoding.
    package var mixedBytes: [UInt8] {
        var w = ByteWriter(capacity: 16)
        encode(into: &w)
        return w.bytes
    }

    /// The value of a mixed column from its stored bytes (validated: a tag and exactly one value).
    package static func mixed(from bytes: UnsafeRawBufferPointer) throws -> StorageValue {
        guard bytes.count > 0 else { return .null }
        var r = ByteReader(bytes, context: "mixed value")
        let value = try decode(from: &r)
        guard r.isAtEnd else { throw AtollError.corrupted("a mixed value has \(r.remaining) bytes after its value") }
        // A mixed value links with a typed link (the table is part of the value), never a bare key.
        if case .link = value { throw AtollError.corrupted("a mixed value holds a link without its table") }
        return value
    }
}

// MARK: binary encoding (transaction log, lists in sync payloads)

extension StorageValue {
    package enum Tag: UInt8 {
        case null = 0, boolFalse = 1, boolTrue = 2, int = 3, float = 4, double = 5, string = 6, binary = 7,
             timestamp = 8, uuid = 9, objectId = 10, link = 11,
             // 12 is taken: sync changesets mark a link's primary key with it (ChangesetContent.linkTag).
             decimal128 = 13,
             // A typed link: varint table key, varint object key (only in mixed values).
             typedLink = 14,
             // A nested list: varint count, then the elements (mixed values only).
             mixedList = 15,
             // A nested map: varint count, then (string key, value) pairs, keys ascending by their
             // UTF-8 bytes (mixed values only).
             mixedMap = 16
             // 17 is taken: sync marks a typed link by its target's class and primary key with it
             // (ChangesetContent.typedLinkTag).
    }

    package func encode(into w: inout ByteWriter) {
        switch self {
        case .null: w.u8(Tag.null.rawValue)
        case .bool(let b): w.u8(b ? Tag.boolTrue.rawValue : Tag.boolFalse.rawValue)
        case .int(let v): w.u8(Tag.int.rawValue); w.zigzag(v)
        case .float(let v): w.u8(Tag.float.rawValue); w.f32(v)
        case .double(let v): w.u8(Tag.double.rawValue); w.f64(v)
        case .string(let s): w.u8(Tag.string.rawValue); w.string(s)
        case .binary(let b): w.u8(Tag.binary.rawValue); w.blob(b)
        case .timestamp(let t): w.u8(Tag.timestamp.rawValue); w.zigzag(t.seconds); w.varint(UInt64(t.nanoseconds))
        case .uuid(let u):
            w.u8(Tag.uuid.rawValue)
            withUnsafeBytes(of: u.uuid) { w.append($0) }
        case .objectId(let o): w.u8(Tag.objectId.rawValue); w.append(o.bytes)
        case .link(let k): w.u8(Tag.link.rawValue); w.varint(k.rawValue)
        case .decimal128(let d): w.u8(Tag.decimal128.rawValue); d.write(to: &w)
        case .typedLink(let t, let k): w.u8(Tag.typedLink.rawValue); w.varint(UInt64(t.rawValue)); w.varint(k.rawValue)
        case .mixedList(let l):
            w.u8(Tag.mixedList.rawValue); w.varint(UInt64(l.count))
            for e in l { e.encode(into: &w) }
        case .mixedMap(let m):
            w.u8(Tag.mixedMap.rawValue); w.varint(UInt64(m.count))
            for k in m.keys.sorted(by: StorageValue.mapKeyPrecedes) {
                w.string(k)
                m[k]!.encode(into: &w)
            }
        }
    }

    package static func decode(from r: inout ByteReader) throws -> StorageValue {
        try decode(from: &r, depth: 0)
    }

    /// `decode(from:)` of a value nested `depth` collections deep.
    static func decode(from r: inout ByteReader, depth: Int) throws -> StorageValue {
        let raw = try r.u8()
        guard let tag = Tag(rawValue: raw) else { throw AtollError.corrupted("unknown value tag \(raw)") }
        switch tag {
        case .null: return .null
        case .boolFalse: return .bool(false)
        case .boolTrue: return .bool(true)
        case .int: return .int(try r.zigzag())
        case .float: return .float(try r.f32())
        case .double: return .double(try r.f64())
        case .string: return .string(try r.string(max: SchemaLimits.valueBytesMax))
        case .binary: return .binary(try r.blob(max: SchemaLimits.valueBytesMax))
        case .timestamp:
            let s = try r.zigzag()
            let n = try r.varint()
            guard n < 1_000_000_000 else { throw AtollError.corrupted("timestamp nanoseconds \(n)") }
            return .timestamp(Timestamp(seconds: s, nanoseconds: Int32(n)))
        case .uuid:
            let b = try r.bytes(16)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case .objectId: return .objectId(ObjectId(twelveBytes: Array(try r.bytes(12))))
        case .link: return .link(ObjectKey(try r.varint()))
        case .decimal128: return .decimal128(Decimal128(littleEndianBytes: try r.bytes(16)))
        case .typedLink:
            let t = try r.varint()
            guard t <= UInt64(UInt32.max) else { throw AtollError.corrupted("a typed link names table \(t)") }
            return .typedLink(TableKey(UInt32(t)), ObjectKey(try r.varint()))
        case .mixedList, .mixedMap:
            guard depth < mixedNestingMax else {
                throw AtollError.corrupted("a mixed value nests collections more than \(mixedNestingMax) deep")
            }
            let n = try r.varint()
            // Every element takes at least one byte.
            guard n <= UInt64(r.remaining) else { throw AtollError.corrupted("a nested collection of \(n) elements in \(r.remaining) bytes") }
            if tag == .mixedList {
                var l: [StorageValue] = []
                l.reserveCapacity(Int(n))
                for _ in 0..<n { l.append(try nestedElement(from: &r, depth: depth)) }
                return .mixedList(l)
            }
            var m: [String: StorageValue] = [:]
            m.reserveCapacity(Int(n))
            var previous: String?
            for _ in 0..<n {
                let k = try r.string(max: SchemaLimits.valueBytesMax)
                if let previous, !mapKeyPrecedes(previous, k) {
                    throw AtollError.corrupted("a nested map's keys are not unique and ascending ('\(previous)', '\(k)')")
                }
                do { try MapKeyRules.validate(k) } catch let e as AtollError { throw AtollError.corrupted("a nested map: \(e.message)") }
                m[k] = try nestedElement(from: &r, depth: depth)
                previous = k
            }
            return .mixedMap(m)
        }
    }

    /// An element of a nested collection: any mixed value but a bare link.
    private static func nestedElement(from r: inout ByteReader, depth: Int) throws -> StorageValue {
        let v = try decode(from: &r, depth: depth + 1)
        if case .link = v { throw AtollError.corrupted("a nested collection holds a link without its table") }
        return v
    }
}

// MARK: nested collections

extension StorageValue {
    /// Map keys in stored order: by their UTF-8 bytes.
    package static func mapKeyPrecedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    /// Whether the value is a nested list or map.
    package var isNestedCollection: Bool {
        switch self {
        case .mixedList, .mixedMap: true
        default: false
        }
    }

    /// Every typed link in the value: itself, or those anywhere in its nested collections.
    package var typedLinks: [(table: TableKey, key: ObjectKey)] {
        var out: [(table: TableKey, key: ObjectKey)] = []
        collectTypedLinks(into: &out)
        return out
    }

    private func collectTypedLinks(into out: inout [(table: TableKey, key: ObjectKey)]) {
        switch self {
        case .typedLink(let t, let k): out.append((t, k))
        case .mixedList(let l): for e in l { e.collectTypedLinks(into: &out) }
        case .mixedMap(let m): for e in m.values { e.collectTypedLinks(into: &out) }
        default: break
        }
    }

    /// The value with `link` gone from its nested collections, as realm-core does when the target
    /// is deleted: removed from lists, null in maps. A value that is `link` itself becomes null.
    package func removingTypedLink(_ link: StorageValue) -> StorageValue {
        switch self {
        case link: return .null
        case .mixedList(let l): return .mixedList(l.compactMap { $0 == link ? nil : $0.removingTypedLink(link) })
        case .mixedMap(let m): return .mixedMap(m.mapValues { $0.removingTypedLink(link) })
        default: return self
        }
    }

    /// Checks that a value to be written nests no deeper than `mixedNestingMax` and that its
    /// nested maps' keys are valid; `label` names the property in messages.
    package func validateNesting(_ label: String, depth: Int = 0) throws {
        switch self {
        case .mixedList(let l):
            guard depth < Self.mixedNestingMax else { throw Self.tooDeep(label) }
            for e in l {
                if case .link = e { throw AtollError(.typeMismatch, "\(label): a nested collection cannot hold a link without its table") }
                try e.validateNesting(label, depth: depth + 1)
            }
        case .mixedMap(let m):
            guard depth < Self.mixedNestingMax else { throw Self.tooDeep(label) }
            for (k, e) in m {
                try MapKeyRules.validate(k)
                if case .link = e { throw AtollError(.typeMismatch, "\(label): a nested collection cannot hold a link without its table") }
                try e.validateNesting(label, depth: depth + 1)
            }
        default: break
        }
    }

    static func tooDeep(_ label: String) -> AtollError {
        AtollError(.limitExceeded, "\(label): collections nested in a mixed value may be at most \(mixedNestingMax) levels deep")
    }
}
