import AtollStorage
import Crypto

/// The synced schema of a node, or a realm's schema history at a relay: per class its primary
/// key, embeddedness and properties (name, type, optionality, list, integer width, link target).
/// Indexes do not count (they are local).
///
/// A node sends its own in `hello` (protocol 3). The relay keeps, per realm, the union of every
/// description nodes have brought: a node whose schema only adds classes or properties extends
/// it; one that gives an existing class another primary key or embeddedness, or an existing
/// property another type, optionality, list-ness, width or link target, is refused with
/// `schemaMismatch` naming the class, the property and both types (`merging(_:)`).
///
/// Encoding (all integers LEB128 varints), classes and properties in name order so that equal
/// descriptions have equal bytes:
///
///     u8 format (1)
///     class count, per class: string name, string primary key, u8 flags (1: embedded),
///         property count, per property: string name, u8 type (ColumnType raw value),
///         u8 flags (1: optional, 2: list, 4: set, 8: map; a set or map is also a list), u8
///         integer width, string link target ("" when none)
///
/// Flags 4 and 8 are newer than the format: a description without sets and maps has the bytes
/// (and the fingerprint) it had before them; a relay that predates them refuses one with them
/// as malformed.
public struct SyncSchemaDescription: Equatable, Sendable, CustomStringConvertible {
    /// One property of a synced class.
    public struct Property: Equatable, Sendable {
        /// The property's name.
        public var name: String
        /// `ColumnType`'s raw value (kept raw: a relay stores types it may not know).
        public var type: UInt8
        /// Whether it is optional.
        public var isNullable: Bool
        /// Whether it is a list.
        public var isList: Bool
        /// The width of an integer property (8, 16, 32 or 64).
        public var intBits: UInt8
        /// The class a link or list of links points to.
        public var linkTarget: String?
        /// Whether it is a set (`isList` is true too).
        public var isSet: Bool
        /// Whether it is a map (`isList` is true too).
        public var isMap: Bool

        /// A property description; `type` is `ColumnType`'s raw value.
        public init(name: String, type: UInt8, isNullable: Bool, isList: Bool, intBits: UInt8, linkTarget: String?,
                    isSet: Bool = false, isMap: Bool = false) {
            self.name = name
            self.type = type
            self.isNullable = isNullable
            self.isList = isList || isSet || isMap
            self.intBits = intBits
            self.linkTarget = linkTarget
            self.isSet = isSet
            self.isMap = isMap
        }

        /// How a message names the property's type: "int", "string?", "list<Dog>", "int32".
        public var typeDescription: String {
            var s = ColumnType(rawValue: type).map { $0 == .link ? (linkTarget ?? "link") : $0.description } ?? "type \(type)"
            if type == ColumnType.int.rawValue, intBits != 64 { s += "\(intBits)" }
            if isNullable { s += "?" }
            return isSet ? "set<\(s)>" : isMap ? "map<\(s)>" : isList ? "list<\(s)>" : s
        }
    }

    /// One synced class.
    public struct Class: Equatable, Sendable {
        /// The class's name.
        public var name: String
        /// The name of its primary key property.
        public var primaryKey: String
        /// Whether it is an embedded class.
        public var isEmbedded: Bool
        /// In name order.
        public var properties: [Property]

        /// A class description (the properties are put in name order).
        public init(name: String, primaryKey: String, isEmbedded: Bool = false, properties: [Property]) {
            self.name = name
            self.primaryKey = primaryKey
            self.isEmbedded = isEmbedded
            self.properties = properties.sorted { $0.name < $1.name }
        }

        /// The property called `name`, if the class has it. O(properties).
        public func property(named name: String) -> Property? { properties.first { $0.name == name } }
    }

    /// In name order.
    public private(set) var classes: [Class]

    /// A description of `classes` (put in name order).
    public init(classes: [Class]) {
        self.classes = classes.sorted { $0.name < $1.name }
    }

    /// The class called `name`, if the description has it. O(classes).
    public func schemaClass(named name: String) -> Class? { classes.first { $0.name == name } }

    static let formatVersion: UInt8 = 1

    /// 16 bytes identifying the description: the fingerprint protocol 1 and 2 nodes send (the
    /// same text, hashed the same way), so a node of those versions syncs with a realm whose
    /// history is exactly its schema.
    public var fingerprint: [UInt8] {
        var text = "atoll-sync-schema-1\n"
        for c in classes {
            text += "class \(c.name) pk \(c.primaryKey)\n"
            for p in c.properties {
                text += "  \(p.name) \(p.type) \(p.isNullable ? 1 : 0) \(p.isList ? 1 : 0) \(p.intBits) \(p.linkTarget ?? "")"
                    + (p.isSet ? " set" : p.isMap ? " map" : "") + "\n"
            }
        }
        return Array(SHA256.hash(data: Array(text.utf8))).prefix(16).map { $0 }
    }

    /// One line: each class with its primary key and properties.
    public var description: String {
        classes.map { c in
            "\(c.name)(\(c.isEmbedded ? "embedded" : "pk \(c.primaryKey)"): " + c.properties.map { "\($0.name) \($0.typeDescription)" }.joined(separator: ", ") + ")"
        }.joined(separator: "; ")
    }

    // MARK: merging

    /// The union of this history and `other`: the classes and properties of both. Throws
    /// `.schemaMismatch` naming the first conflict (a class with another primary key or
    /// embeddedness, a property with another type) and what to do.
    public func merging(_ other: SyncSchemaDescription) throws -> SyncSchemaDescription {
        var byName: [String: Class] = [:]
        for c in classes { byName[c.name] = c }
        for theirs in other.classes {
            guard var mine = byName[theirs.name] else {
                byName[theirs.name] = theirs
                continue
            }
            guard mine.primaryKey == theirs.primaryKey else {
                throw AtollError(.schemaMismatch,
                    "class '\(theirs.name)' has primary key '\(theirs.primaryKey)' in the node's schema but '\(mine.primaryKey)' in the realm's; a primary key cannot change in a synced realm: sync a new class instead")
            }
            guard mine.isEmbedded == theirs.isEmbedded else {
                throw AtollError(.schemaMismatch,
                    "class '\(theirs.name)' is \(theirs.isEmbedded ? "embedded" : "not embedded") in the node's schema but \(mine.isEmbedded ? "embedded" : "not embedded") in the realm's; sync a new class instead")
            }
            var properties = mine.properties
            for p in theirs.properties {
                guard let known = mine.property(named: p.name) else {
                    properties.append(p)
                    continue
                }
                guard known == p else {
                    throw AtollError(.schemaMismatch,
                        "property '\(theirs.name).\(p.name)' is \(p.typeDescription) in the node's schema but \(known.typeDescription) in the realm's; a synced property cannot change its type: add a property with a new name and copy the values over in a migration")
                }
            }
            mine = Class(name: mine.name, primaryKey: mine.primaryKey, isEmbedded: mine.isEmbedded, properties: properties)
            byName[mine.name] = mine
        }
        return SyncSchemaDescription(classes: Array(byName.values))
    }

    // MARK: encoding

    /// The canonical encoding (see the top of this file).
    public func encode() -> [UInt8] {
        var w = ByteWriter(capacity: 64 + classes.count * 64)
        w.u8(Self.formatVersion)
        w.varint(UInt64(classes.count))
        for c in classes {
            w.string(c.name)
            w.string(c.primaryKey)
            w.u8(c.isEmbedded ? 1 : 0)
            w.varint(UInt64(c.properties.count))
            for p in c.properties {
                w.string(p.name)
                w.u8(p.type)
                w.u8((p.isNullable ? 1 : 0) | (p.isList ? 2 : 0) | (p.isSet ? 4 : 0) | (p.isMap ? 8 : 0))
                w.u8(p.intBits)
                w.string(p.linkTarget ?? "")
            }
        }
        return w.bytes
    }

    /// Decodes and validates a description (names non-empty and within the schema limits, no
    /// class or property twice, in name order). `fromPeer`: one received in a message (errors
    /// are `.protocolViolation`), else one a store kept (errors are `.fileCorrupted`).
    public static func decode(_ bytes: [UInt8], fromPeer: Bool) throws -> SyncSchemaDescription {
        try bytes.withUnsafeBytes { buffer in
            var r = ByteReader(buffer, context: "schema description", source: fromPeer ? .peer : .file)
            func bad(_ what: String) -> AtollError {
                fromPeer ? AtollError(.protocolViolation, "a malformed schema description: \(what)") : AtollError.corrupted("schema description: \(what)")
            }
            let format = try r.u8()
            guard format == formatVersion else { throw bad("format \(format)") }
            let count = try r.length(max: r.remaining / 4)
            var classes: [Class] = []
            for _ in 0..<count {
                let name = try r.string(max: SchemaLimits.tableNameBytesMax)
                let pk = try r.string(max: SchemaLimits.columnNameBytesMax)
                let flags = try r.u8()
                guard !name.isEmpty, flags <= 1 else { throw bad("class '\(name)'") }
                guard classes.last.map({ $0.name < name }) ?? true else { throw bad("classes out of order at '\(name)'") }
                let n = try r.length(max: r.remaining / 5)
                var properties: [Property] = []
                for _ in 0..<n {
                    let pname = try r.string(max: SchemaLimits.columnNameBytesMax)
                    let type = try r.u8()
                    let pflags = try r.u8()
                    let bits = try r.u8()
                    let target = try r.string(max: SchemaLimits.tableNameBytesMax)
                    guard !pname.isEmpty, pflags <= 15, pflags & 12 != 12, pflags & 12 == 0 || pflags & 2 != 0, bits <= 64 else {
                        throw bad("property '\(name).\(pname)'")
                    }
                    guard properties.last.map({ $0.name < pname }) ?? true else { throw bad("properties of '\(name)' out of order at '\(pname)'") }
                    properties.append(Property(name: pname, type: type, isNullable: pflags & 1 != 0, isList: pflags & 2 != 0, intBits: bits,
                                               linkTarget: target.isEmpty ? nil : target, isSet: pflags & 4 != 0, isMap: pflags & 8 != 0))
                }
                classes.append(Class(name: name, primaryKey: pk, isEmbedded: flags & 1 != 0, properties: properties))
            }
            guard r.remaining == 0 else { throw bad("\(r.remaining) bytes after its end") }
            return SyncSchemaDescription(classes: classes)
        }
    }
}
