import AtollStorage
import Crypto
import struct Foundation.UUID

/// What sync needs to know about one synced class (a table with a primary key).
final class SyncedClass {
    let key: TableKey
    let name: String
    let spec: TableSpec
    let primaryKeyColumn: Int
    /// Integer primary keys are the object keys (ObjectKey(primaryKey:)): no index lookup.
    let keyIsPrimaryKey: Bool
    /// Per column: the synced class a link column points to.
    var linkTargets: [SyncedClass?]
    /// Per column: the value a property takes when it has never been written (or was reset by a
    /// delete): the storage default (nil for optionals, zero, empty).
    let defaults: [StorageValue]
    let columnsByName: [String: Int]
    /// Per to-one column that holds an embedded object: its class (SyncSchema+Embedded.swift).
    var embeddedColumns: [Int: SyncedEmbeddedClass] = [:]
    /// Per column that is a list of embedded objects: their class (SyncWriter+EmbeddedLists.swift).
    var embeddedLists: [Int: SyncedEmbeddedClass] = [:]
    /// Per column that is a map of embedded objects: their class (SyncWriter+EmbeddedMaps.swift).
    var embeddedMaps: [Int: SyncedEmbeddedClass] = [:]

    /// Whether the class holds embedded objects (to-one, in lists or in maps).
    var holdsEmbedded: Bool { !embeddedColumns.isEmpty || !embeddedLists.isEmpty || !embeddedMaps.isEmpty }

    /// Whether `column` holds embedded objects (to-one, a list or a map of them).
    func isEmbedded(_ column: Int) -> Bool { embeddedColumns[column] != nil || embeddedLists[column] != nil || embeddedMaps[column] != nil }

    init(key: TableKey, spec: TableSpec, primaryKeyColumn: Int) {
        self.key = key
        name = spec.name
        self.spec = spec
        self.primaryKeyColumn = primaryKeyColumn
        keyIsPrimaryKey = spec.keyIsPrimaryKey
        linkTargets = Array(repeating: nil, count: spec.columns.count)
        defaults = spec.columns.map(SyncedClass.defaultValue)
        var byName: [String: Int] = [:]
        for (i, c) in spec.columns.enumerated() { byName[c.name] = i }
        columnsByName = byName
    }

    static func defaultValue(_ c: ColumnSpec) -> StorageValue {
        if c.isNullable || c.isList { return .null }
        switch c.type {
        case .bool: return .bool(false)
        case .int: return .int(0)
        case .float: return .float(0)
        case .double: return .double(0)
        case .string: return .string("")
        case .binary: return .binary([])
        case .timestamp: return .timestamp(Timestamp(seconds: 0, nanoseconds: 0))
        case .uuid: return .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        case .objectId: return .objectId(ObjectId(bytes: [UInt8](repeating: 0, count: 12)) ?? ObjectId())
        case .decimal128: return .decimal128(Decimal128())
        case .mixed: return .null
        case .link: return .null
        }
    }

    var primaryKeySpec: ColumnSpec { spec.columns[primaryKeyColumn] }

    /// Whether `pk` has the type (and nullability) of this class's primary key.
    func accepts(primaryKey pk: StorageValue) -> Bool {
        let c = primaryKeySpec
        switch (pk, c.type) {
        case (.null, _): return c.isNullable
        case (.int, .int), (.string, .string), (.uuid, .uuid), (.objectId, .objectId): return true
        default: return false
        }
    }
}

/// The synced classes of a file and their fingerprint.
///
/// Every class of the file syncs unless the configuration names a subset. Only classes with a
/// primary key can sync (an object is named by (class, primary key) on every node); a class that
/// links to another must sync together with it. The fingerprint is a hash of the synced
/// classes' names, primary keys and properties (name, type, optionality, list, set or map, link
/// target, int width) in name order (`SyncSchemaDescription.fingerprint`); a file records the fingerprint
/// of the schema it last synced with, so that opening it after a migration finds the change
/// (SyncReplica+Schema.swift). Indexes do not count.
struct SyncSchema {
    let classes: [TableKey: SyncedClass]
    let byName: [String: SyncedClass]
    let fingerprint: [UInt8]
    /// Every class of the file syncs (the configuration names no subset): a class added later
    /// would sync too.
    var syncsEveryClass = false
    /// The embedded classes the synced classes hold, by name (they sync as part of their parents).
    var embedded: [String: SyncedEmbeddedClass] = [:]

    /// Classes Atoll keeps for itself (never synced, never listed to users).
    static func isInternal(_ name: String) -> Bool { name.hasPrefix("__atoll") }

    static func load(_ txn: Transaction, classNames: [String]?) throws -> SyncSchema {
        var selected: [TableKey] = []
        if let classNames {
            for name in classNames {
                guard let k = txn.tableKey(named: name) else {
                    throw AtollError(.schemaMismatch, "cannot sync class '\(name)': the file has no such class")
                }
                selected.append(k)
            }
        } else {
            selected = txn.tableKeys.filter { !isInternal(txn.spec(of: $0)?.name ?? "") }
        }
        let embedded = try loadEmbedded(selected, txn)
        var classes: [TableKey: SyncedClass] = [:]
        var byName: [String: SyncedClass] = [:]
        var missingKeys: [String] = []
        for k in selected {
            guard let spec = txn.spec(of: k), !spec.isEmbedded else { continue }
            guard !isInternal(spec.name) else {
                throw AtollError(.schemaMismatch, "class '\(spec.name)' is internal to Atoll and cannot sync")
            }
            guard let pk = spec.primaryKeyIndex else {
                missingKeys.append(spec.name)
                continue
            }
            let c = SyncedClass(key: k, spec: spec, primaryKeyColumn: pk)
            c.embeddedColumns = embeddedColumns(of: spec, embedded)
            c.embeddedLists = embeddedLists(of: spec, embedded)
            c.embeddedMaps = embeddedMaps(of: spec, embedded)
            classes[k] = c
            byName[spec.name] = c
        }
        if !missingKeys.isEmpty {
            throw AtollError(.schemaMismatch,
                "only classes with a primary key can sync, and \(missingKeys.sorted().map { "'\($0)'" }.joined(separator: ", ")) \(missingKeys.count == 1 ? "has" : "have") none; add a primary key or leave \(missingKeys.count == 1 ? "it" : "them") out of the synced classes")
        }
        for c in classes.values {
            for (i, col) in c.spec.columns.enumerated() where col.type == .link && !c.isEmbedded(i) {
                guard let target = col.linkTarget.flatMap({ byName[$0] }) else {
                    throw AtollError(.schemaMismatch,
                        "'\(c.name).\(col.name)' links to '\(col.linkTarget ?? "?")', which does not sync; sync both classes or neither")
                }
                c.linkTargets[i] = target
            }
        }
        var schema = SyncSchema(classes: classes, byName: byName, fingerprint: describe(classes.values, embedded: Array(embedded.values)).fingerprint)
        schema.syncsEveryClass = classNames == nil
        schema.embedded = embedded
        return schema
    }

    static func fingerprint(of classes: some Sequence<SyncedClass>) -> [UInt8] {
        describe(classes).fingerprint
    }

    /// What the handshake tells the relay about these classes.
    static func describe(_ classes: some Sequence<SyncedClass>, embedded: [SyncedEmbeddedClass] = []) -> SyncSchemaDescription {
        // An embedded class is described with no primary key (its objects are named by path).
        SyncSchemaDescription(classes: embedded.map { e in
            SyncSchemaDescription.Class(name: e.name, primaryKey: "", isEmbedded: true, properties: e.spec.columns.map { col in
                SyncSchemaDescription.Property(name: col.name, type: col.type.rawValue, isNullable: col.isNullable, isList: col.isList,
                                               intBits: col.intBits, linkTarget: col.linkTarget, isSet: col.isSet, isMap: col.isMap)
            })
        } + classes.map { c in
            SyncSchemaDescription.Class(name: c.name, primaryKey: c.primaryKeySpec.name, isEmbedded: c.spec.isEmbedded, properties: c.spec.columns.map { col in
                SyncSchemaDescription.Property(name: col.name, type: col.type.rawValue, isNullable: col.isNullable, isList: col.isList,
                                               intBits: col.intBits, linkTarget: col.linkTarget, isSet: col.isSet, isMap: col.isMap)
            })
        })
    }

    var syncDescription: SyncSchemaDescription { Self.describe(classes.values, embedded: Array(embedded.values)) }
}
