import Synchronization
// The catalog: a B+tree (root in the root record) describing the tables of a version.
//
//     0x01 ++ u32 BE table id   -> table spec     (changes only with the schema)
//     0x02 ++ u32 BE table id   -> table roots    (changes with every write to the table)
//     0x03 ++ UTF-8 name        -> metadata value (schema version, ...)
//     0x04 ++ UTF-8 name        -> u32 root page of an internal tree (InternalTrees.swift)
//
// Table spec:  varint format (1; 2 when a column is a set or a map; 3 when the table is
//              embedded; 4 when a set or map is indexed), string name, u8 flags (bit 0
//              embedded, formats 3 and 4 only), string primary key
//              ("" for none), varint column count, per column: string name, u8 type, u8 flags
//              (bit 0 nullable, bit 1 list, bit 2 indexed, bit 3 set, bit 4 map; sets and maps
//              also carry bit 1, format 2 or 4 only; bits 1 and 2 together, format 4 only), u8
//              int bits, string link target
//              ("" for none); varint linking-objects count, per entry: string name, string
//              origin table, string origin property.
// Table roots: u32 cluster root, varint object count, varint next object key, u32 backlink
//              root, varint index count, u32 index root per column (0: no index).

struct TableRoots: Equatable {
    var clusterRoot: PageNumber = 0
    var objectCount: UInt64 = 0
    var nextKey: UInt64 = 0
    var backlinkRoot: PageNumber = 0
    var indexRoots: [PageNumber] = []

    func encode() -> [UInt8] {
        var w = ByteWriter(capacity: 32)
        w.u32(clusterRoot)
        w.varint(objectCount)
        w.varint(nextKey)
        w.u32(backlinkRoot)
        w.varint(UInt64(indexRoots.count))
        for r in indexRoots { w.u32(r) }
        return w.bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, pageCount: UInt32) throws -> TableRoots {
        var r = ByteReader(bytes, context: "table roots")
        var t = TableRoots()
        t.clusterRoot = try r.u32()
        t.objectCount = try r.varint()
        t.nextKey = try r.varint()
        t.backlinkRoot = try r.u32()
        let n = try r.length(max: SchemaLimits.columnsPerTableMax)
        t.indexRoots.reserveCapacity(n)
        for _ in 0..<n { t.indexRoots.append(try r.u32()) }
        func check(_ p: PageNumber) throws {
            if p != 0 && (p < FileFormat.firstDataPage || p >= pageCount) {
                throw AtollError.corrupted("table roots name page \(p), outside the file")
            }
        }
        try check(t.clusterRoot)
        try check(t.backlinkRoot)
        for p in t.indexRoots { try check(p) }
        // Every object takes at least its 8-byte key in a leaf page, so a count beyond what the
        // file could hold is damage (and would otherwise reach allocations and Int conversions).
        let objectsMax = UInt64(pageCount) * UInt64(FileFormat.pageSize) / 8
        if t.objectCount > objectsMax {
            throw AtollError.corrupted("table roots record \(t.objectCount) objects, which a file of \(pageCount) pages cannot hold")
        }
        return t
    }
}

enum CatalogKey {
    static func spec(_ t: TableKey) -> [UInt8] { var w = ByteWriter(); w.u8(1); w.u32BigEndian(t.rawValue); return w.bytes }
    static func roots(_ t: TableKey) -> [UInt8] { var w = ByteWriter(); w.u8(2); w.u32BigEndian(t.rawValue); return w.bytes }
    static func metadata(_ name: String) -> [UInt8] { [3] + Array(name.utf8) }
}

extension TableSpec {
    func encode() -> [UInt8] {
        var w = ByteWriter(capacity: 64)
        // Format 2 only when needed, so files without sets and maps stay readable by older
        // versions, and an older version refuses (rather than misreads) a set or a map.
        // Format 3 likewise only for embedded tables: an older version would read the flag
        // but not keep the one-owner invariant.
        // Format 4 only when a set or map is indexed (an older version would not maintain its
        // index): flag 1 then says whether the table is embedded.
        let indexesCollection = columns.contains { $0.isList && $0.isIndexed }
        w.varint(indexesCollection ? 4 : isEmbedded ? 3 : columns.contains { $0.isSet || $0.isMap } ? 2 : 1)
        w.string(name)
        w.u8(isEmbedded ? 1 : 0)
        w.string(primaryKey ?? "")
        w.varint(UInt64(columns.count))
        for c in columns {
            w.string(c.name)
            w.u8(c.type.rawValue)
            w.u8((c.isNullable ? 1 : 0) | (c.isList ? 2 : 0) | (c.isIndexed ? 4 : 0) | (c.isSet ? 8 : 0) | (c.isMap ? 16 : 0))
            w.u8(c.intBits)
            w.string(c.linkTarget ?? "")
        }
        w.varint(UInt64(linkingObjects.count))
        for l in linkingObjects {
            w.string(l.name)
            w.string(l.originTable)
            w.string(l.originProperty)
        }
        return w.bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) throws -> TableSpec {
        var r = ByteReader(bytes, context: "table schema")
        let format = try r.varint()
        guard (1...4).contains(format) else { throw AtollError(.fileFormatTooNew, "a table schema uses format \(format); upgrade Atoll") }
        let name = try r.string(max: 1024)
        let flags = try r.u8()
        guard flags & ~1 == 0, format == 4 || (flags & 1 != 0) == (format == 3) else {
            throw AtollError.corrupted("table schema '\(name)' has flags \(flags) in format \(format)")
        }
        let pk = try r.string(max: 1024)
        let n = try r.length(max: SchemaLimits.columnsPerTableMax)
        var columns: [ColumnSpec] = []
        for _ in 0..<n {
            let cname = try r.string(max: 1024)
            let rawType = try r.u8()
            guard let type = ColumnType(rawValue: rawType) else { throw AtollError.corrupted("unknown column type \(rawType) in '\(name)'") }
            let f = try r.u8()
            guard f & ~0x1F == 0, format >= 2 || f & 0x18 == 0, f & 0x18 != 0x18, format == 4 || f & 6 != 6 else {
                throw AtollError.corrupted("column '\(cname)' of '\(name)' has unknown flags \(f)")
            }
            let bits = try r.u8()
            let target = try r.string(max: 1024)
            columns.append(ColumnSpec(name: cname, type: type, isNullable: f & 1 != 0, isList: f & 2 != 0, isIndexed: f & 4 != 0,
                                      linkTarget: target.isEmpty ? nil : target, intBits: bits,
                                      isSet: f & 8 != 0, isMap: f & 16 != 0))
        }
        let ln = try r.length(max: SchemaLimits.columnsPerTableMax)
        var linking: [LinkingObjectsSpec] = []
        for _ in 0..<ln {
            linking.append(LinkingObjectsSpec(name: try r.string(max: 1024), originTable: try r.string(max: 1024),
                                              originProperty: try r.string(max: 1024)))
        }
        return TableSpec(name: name, columns: columns, primaryKey: pk.isEmpty ? nil : pk, linkingObjects: linking,
                         isEmbedded: flags & 1 != 0)
    }
}

/// The schema of one version: every table's spec, by key and by name. Immutable and shared by
/// all transactions of the same schema generation.
final class SchemaSnapshot: Sendable {
    let generation: UInt64
    let specs: [TableKey: TableSpec]
    let keysByName: [String: TableKey]
    let layouts: [TableKey: LeafLayout]
    /// What a Table caches of each table's columns, made once per schema.
    let columns: [TableKey: Table.Columns]
    /// Values other layers derive from this schema (the query language's view of it), made
    /// once per schema rather than once per use.
    let derived = DerivedValues()

    init(generation: UInt64, specs: [TableKey: TableSpec]) {
        self.generation = generation
        self.specs = specs
        var byName: [String: TableKey] = [:]
        var layouts: [TableKey: LeafLayout] = [:]
        var columns: [TableKey: Table.Columns] = [:]
        for (k, s) in specs { byName[s.name] = k; layouts[k] = LeafLayout(s); columns[k] = Table.Columns(s) }
        keysByName = byName
        self.layouts = layouts
        self.columns = columns
    }

    static func load(catalogRoot: PageNumber, generation: UInt64, space: PageSpace) throws -> SchemaSnapshot {
        var specs: [TableKey: TableSpec] = [:]
        var cursor = BTreeCursor(root: catalogRoot, space: space)
        var more = try [UInt8(1)].withUnsafeBytes { try cursor.seek($0) }
        while more {
            let key = try cursor.key()
            guard key.count == 5, key[0] == 1 else { break }
            let id = UInt32(bigEndian: key.loadUnaligned(fromByteOffset: 1, as: UInt32.self))
            specs[TableKey(id)] = try TableSpec.decode(try cursor.value())
            more = try cursor.next()
        }
        return SchemaSnapshot(generation: generation, specs: specs)
    }
}



/// A cache of values computed from an immutable source, one per type, thread-safe.
package final class DerivedValues: Sendable {
    private let values = AtollLock<[ObjectIdentifier: any Sendable]>([:])

    /// The cached value of type `T`, made by `make` the first time.
    package func value<T: Sendable>(_ type: T.Type, _ make: () -> T) -> T {
        if let hit = values.withLock({ $0[ObjectIdentifier(T.self)] }) as? T { return hit }
        let made = make()
        values.withLock { $0[ObjectIdentifier(T.self)] = made }
        return made
    }
}
