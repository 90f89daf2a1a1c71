import AtollStorage

/// An embedded class that syncs as part of its parents (docs/SYNC.md, "Embedded objects").
///
/// Its objects have no primary key of their own: each is named by its parent's class and
/// primary key and the path of properties from the parent down to it (`EmbeddedPath`).
final class SyncedEmbeddedClass {
    let key: TableKey
    let name: String
    let spec: TableSpec
    let columnsByName: [String: Int]
    /// Per to-one column that holds an embedded object: its class.
    var embeddedColumns: [Int: SyncedEmbeddedClass] = [:]
    /// Per column that is a list of embedded objects: their class (SyncWriter+EmbeddedLists.swift).
    var embeddedLists: [Int: SyncedEmbeddedClass] = [:]
    /// Per column that is a map of embedded objects: their class (SyncWriter+EmbeddedMaps.swift).
    var embeddedMaps: [Int: SyncedEmbeddedClass] = [:]
    /// The (table, column) pairs whose to-one links, lists or maps own objects of this class.
    var owners: [(table: TableKey, column: Int)] = []

    init(key: TableKey, spec: TableSpec) {
        self.key = key
        name = spec.name
        self.spec = spec
        var byName: [String: Int] = [:]
        for (i, c) in spec.columns.enumerated() { byName[c.name] = i }
        columnsByName = byName
    }

    /// The columns that sync as last-writer-wins fields (every column but the embedded ones).
    var fieldColumns: [Int] { spec.columns.indices.filter { embeddedColumns[$0] == nil && embeddedLists[$0] == nil && embeddedMaps[$0] == nil } }
}

extension SyncSchema {
    /// The embedded classes reachable from the selected classes, checked: to-one properties,
    /// lists and maps may hold embedded objects, and an embedded class may hold only values and
    /// further to-one embedded objects and lists and maps of them (sets, maps and lists of values,
    /// and links to top-level objects inside embedded objects, do not sync yet).
    /// An embedded class named in the selection is accepted (it syncs with its parents).
    static func loadEmbedded(_ selected: [TableKey], _ txn: Transaction) throws -> [String: SyncedEmbeddedClass] {
        var embedded: [String: SyncedEmbeddedClass] = [:]
        func embeddedClass(named target: String) -> SyncedEmbeddedClass? {
            if let e = embedded[target] { return e }
            guard let k = txn.tableKey(named: target), let spec = txn.spec(of: k), spec.isEmbedded else { return nil }
            let e = SyncedEmbeddedClass(key: k, spec: spec)
            embedded[target] = e
            return e
        }
        func check(_ spec: TableSpec, _ k: TableKey, inEmbedded: Bool) throws
            -> (toOne: [Int: SyncedEmbeddedClass], lists: [Int: SyncedEmbeddedClass], maps: [Int: SyncedEmbeddedClass])
        {
            var toOne: [Int: SyncedEmbeddedClass] = [:]
            var lists: [Int: SyncedEmbeddedClass] = [:]
            var maps: [Int: SyncedEmbeddedClass] = [:]
            for (i, col) in spec.columns.enumerated() {
                let target = col.type == .link ? col.linkTarget.flatMap(embeddedClass(named:)) : nil
                if let target {
                    guard !col.isSet else {
                        throw AtollError(.schemaMismatch,
                            "'\(spec.name).\(col.name)' is a set of embedded objects ('\(target.name)'); sets of embedded objects do not sync: make it a to-one property, a list or a map, or leave '\(spec.name)' out of the synced classes")
                    }
                    if col.isMap { maps[i] = target } else if col.isList { lists[i] = target } else { toOne[i] = target }
                    target.owners.append((k, i))
                } else if inEmbedded && (col.isList || col.type == .link) {
                    throw AtollError(.schemaMismatch,
                        "'\(spec.name).\(col.name)' is \(col.isList ? "a collection of values" : "a link to a top-level object") inside an embedded object; only values, to-one embedded objects and lists and maps of embedded objects inside embedded objects sync yet: leave the classes that hold '\(spec.name)' out of the synced classes")
                }
            }
            return (toOne, lists, maps)
        }
        // Top-level classes first, then every embedded class reached (each checked once).
        var pending: [SyncedEmbeddedClass] = []
        var checked = Set<String>()
        for k in selected {
            guard let spec = txn.spec(of: k), !spec.isEmbedded else { continue }
            let found = try check(spec, k, inEmbedded: false)
            for e in Array(found.toOne.values) + Array(found.lists.values) + Array(found.maps.values) where checked.insert(e.name).inserted {
                pending.append(e)
            }
        }
        while let e = pending.popLast() {
            (e.embeddedColumns, e.embeddedLists, e.embeddedMaps) = try check(e.spec, e.key, inEmbedded: true)
            for child in Array(e.embeddedColumns.values) + Array(e.embeddedLists.values) + Array(e.embeddedMaps.values)
                where checked.insert(child.name).inserted
            {
                pending.append(child)
            }
        }
        return embedded
    }

    /// The embedded columns of a top-level class.
    static func embeddedColumns(of spec: TableSpec, _ embedded: [String: SyncedEmbeddedClass]) -> [Int: SyncedEmbeddedClass] {
        var result: [Int: SyncedEmbeddedClass] = [:]
        for (i, col) in spec.columns.enumerated() where col.type == .link && !col.isList {
            if let target = col.linkTarget.flatMap({ embedded[$0] }) { result[i] = target }
        }
        return result
    }

    /// The lists of embedded objects of a top-level class.
    static func embeddedLists(of spec: TableSpec, _ embedded: [String: SyncedEmbeddedClass]) -> [Int: SyncedEmbeddedClass] {
        var result: [Int: SyncedEmbeddedClass] = [:]
        for (i, col) in spec.columns.enumerated() where col.type == .link && col.isList && !col.isSet && !col.isMap {
            if let target = col.linkTarget.flatMap({ embedded[$0] }) { result[i] = target }
        }
        return result
    }

    /// The maps of embedded objects of a top-level class.
    static func embeddedMaps(of spec: TableSpec, _ embedded: [String: SyncedEmbeddedClass]) -> [Int: SyncedEmbeddedClass] {
        var result: [Int: SyncedEmbeddedClass] = [:]
        for (i, col) in spec.columns.enumerated() where col.type == .link && col.isMap {
            if let target = col.linkTarget.flatMap({ embedded[$0] }) { result[i] = target }
        }
        return result
    }
}
