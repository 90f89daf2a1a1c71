/// One stored property of a table.
public struct ColumnSpec: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var type: ColumnType
    public var isNullable: Bool
    /// The column holds a collection: a list, or a set (`isSet`) or a map (`isMap`), which are
    /// stored like lists (an encoded sequence of elements, see ListCodec). Every check of
    /// `isList` that means "not a single value" therefore covers sets and maps too; the list
    /// operations (positional edits) refuse sets and maps.
    public var isList: Bool
    /// A set: unique elements, kept sorted by value (Realm's set order). Implies `isList`.
    public var isSet: Bool
    /// A map from string keys to elements, kept sorted by key. Implies `isList`.
    public var isMap: Bool
    public var isIndexed: Bool
    /// For links (and lists of links): the name of the target table.
    public var linkTarget: String?
    /// For int columns: the declared width in bits (8, 16, 32 or 64). Values outside the
    /// declared range are rejected.
    public var intBits: UInt8

    public init(name: String, type: ColumnType, isNullable: Bool = false, isList: Bool = false,
                isIndexed: Bool = false, linkTarget: String? = nil, intBits: UInt8 = 64,
                isSet: Bool = false, isMap: Bool = false)
    {
        precondition(!(isSet && isMap), "a column is a set or a map, not both")
        self.name = name
        self.type = type
        self.isNullable = isNullable
        self.isList = isList || isSet || isMap
        self.isSet = isSet
        self.isMap = isMap
        self.isIndexed = isIndexed
        self.linkTarget = linkTarget
        self.intBits = intBits
    }

    /// Which collection the column holds, or nil for a single value.
    public var collectionKind: CollectionKind? {
        guard isList else { return nil }
        return isSet ? .set : isMap ? .map : .list
    }

    /// A copy of the column describing one element (or one map value) of a collection column.
    public var elementSpec: ColumnSpec {
        var e = self
        e.isList = false
        e.isSet = false
        e.isMap = false
        return e
    }

    public var description: String {
        var s = type == .link ? (linkTarget ?? "link") : type.description
        if isNullable { s += "?" }
        if isSet { s += "<>" } else if isMap { s += "{}" } else if isList { s += "[]" }
        return "\(name): \(s)\(isIndexed ? " (indexed)" : "")"
    }

    /// How the column is stored in a leaf: a list is always a byte string (its encoding).
    var physical: PhysicalKind {
        if isList { return .bytes }
        switch type {
        case .bool, .int, .link, .timestamp: return .ints
        case .float: return .float32
        case .double: return .float64
        case .uuid, .decimal128: return .fixed(16)
        case .objectId: return .fixed(12)
        case .string, .binary, .mixed: return .bytes
        }
    }

    /// Leaf blocks the column uses (a timestamp stores seconds and nanoseconds separately).
    var blockCount: Int { (!isList && type == .timestamp) ? 2 : 1 }
}

/// The kinds of collection a column can hold (realm-js schema notation: `int[]`, `int<>`, `int{}`).
public enum CollectionKind: Sendable, Hashable {
    case list
    case set
    case map
}

/// An inverse relationship: the objects of `originTable` whose `originProperty` links here.
/// Computed from backlinks; stored in the schema only so tools can print it.
public struct LinkingObjectsSpec: Sendable, Hashable {
    public var name: String
    public var originTable: String
    public var originProperty: String

    public init(name: String, originTable: String, originProperty: String) {
        self.name = name
        self.originTable = originTable
        self.originProperty = originProperty
    }
}

/// The schema of one table (an object class).
public struct TableSpec: Sendable, Hashable {
    public var name: String
    public var columns: [ColumnSpec]
    /// Name of the primary-key column, if any.
    public var primaryKey: String?
    public var linkingObjects: [LinkingObjectsSpec]
    /// An embedded table (Realm's `EmbeddedObject`): no primary key, and each row is owned by
    /// exactly one link from another row, which deletes it when unlinked or deleted (see
    /// Table+Embedded.swift).
    public var isEmbedded: Bool

    public init(name: String, columns: [ColumnSpec], primaryKey: String? = nil,
                linkingObjects: [LinkingObjectsSpec] = [], isEmbedded: Bool = false)
    {
        self.name = name
        self.columns = columns
        self.primaryKey = primaryKey
        self.linkingObjects = linkingObjects
        self.isEmbedded = isEmbedded
    }

    public func columnIndex(named name: String) -> Int? { columns.firstIndex { $0.name == name } }

    public var primaryKeyIndex: Int? { primaryKey.flatMap(columnIndex(named:)) }

    /// Integer primary keys are the object keys themselves: no separate index and no stored
    /// column (see ObjectKey.forIntPrimaryKey).
    public var keyIsPrimaryKey: Bool {
        guard let i = primaryKeyIndex else { return false }
        let c = columns[i]
        return c.type == .int && !c.isNullable && !c.isList
    }
}

/// Limits on names, as in Realm.
public enum SchemaLimits {
    public static let tableNameBytesMax = 57
    public static let columnNameBytesMax = 63
    public static let columnsPerTableMax = 1000
    /// Largest string or binary value.
    public static let valueBytesMax = 16 << 20
}

extension TableSpec {
    /// Why a set cannot hold embedded objects (realm-core's schema rule, with its reason): every
    /// schema layer refuses it with these words.
    public static func setOfEmbeddedObjectsRefusal(className: String, property: String, target: String) -> String {
        "set property '\(className).\(property)' cannot contain embedded object type '\(target)': set semantics do not apply to embedded objects, each of which has exactly one owner (use a List)"
    }

    /// Checks names, types and limits. Throws `.limitExceeded` or `.invalidArgument`.
    public func validate() throws {
        guard !name.isEmpty else { throw AtollError(.invalidArgument, "a table needs a name") }
        guard name.utf8.count <= SchemaLimits.tableNameBytesMax else {
            throw AtollError(.limitExceeded, "class name '\(name)' is \(name.utf8.count) bytes; the limit is \(SchemaLimits.tableNameBytesMax)")
        }
        guard columns.count <= SchemaLimits.columnsPerTableMax else {
            throw AtollError(.limitExceeded, "class '\(name)' has \(columns.count) properties; the limit is \(SchemaLimits.columnsPerTableMax)")
        }
        var seen = Set<String>()
        for c in columns {
            guard !c.name.isEmpty else { throw AtollError(.invalidArgument, "class '\(name)' has a property with an empty name") }
            guard c.name.utf8.count <= SchemaLimits.columnNameBytesMax else {
                throw AtollError(.limitExceeded, "property name '\(c.name)' of '\(name)' is \(c.name.utf8.count) bytes; the limit is \(SchemaLimits.columnNameBytesMax)")
            }
            guard seen.insert(c.name).inserted else { throw AtollError(.invalidArgument, "class '\(name)' declares property '\(c.name)' twice") }
            if c.type == .link {
                guard let t = c.linkTarget, !t.isEmpty else {
                    throw AtollError(.invalidArgument, "link property '\(name).\(c.name)' has no target class")
                }
            }
            // Sets and maps of indexable values can be indexed (their elements), lists cannot.
            if c.isIndexed && (!c.type.isIndexable || (c.isList && !c.isSet && !c.isMap)) {
                throw AtollError(.invalidArgument, "property '\(name).\(c.name)' of type \(c.type) cannot be indexed")
            }
            if c.isSet && c.isMap {
                throw AtollError(.invalidArgument, "property '\(name).\(c.name)' cannot be both a set and a map")
            }
            if c.isSet && c.type == .link && c.isNullable {
                throw AtollError(.invalidArgument, "property '\(name).\(c.name)': a set of objects cannot hold nil")
            }
            if c.isMap && c.type == .link && !c.isNullable {
                throw AtollError(.invalidArgument, "property '\(name).\(c.name)': a map of objects must have optional values (a value becomes nil when its object is deleted)")
            }
            guard [8, 16, 32, 64].contains(c.intBits) else {
                throw AtollError(.invalidArgument, "property '\(name).\(c.name)' declares \(c.intBits)-bit integers")
            }
        }
        for l in linkingObjects {
            guard seen.insert(l.name).inserted else { throw AtollError(.invalidArgument, "class '\(name)' declares property '\(l.name)' twice") }
        }
        if isEmbedded, let pk = primaryKey {
            throw AtollError(.invalidArgument, "embedded class '\(name)' cannot have a primary key ('\(pk)'): an embedded object is identified by its parent")
        }
        if let pk = primaryKey {
            guard let i = columnIndex(named: pk) else {
                throw AtollError(.invalidArgument, "primary key '\(pk)' is not a property of '\(name)'")
            }
            let c = columns[i]
            guard c.type.canBePrimaryKey, !c.isList else {
                throw AtollError(.invalidArgument, "property '\(name).\(pk)' of type \(c.type) cannot be a primary key")
            }
        }
    }
}
