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
    /// The (table, column) pairs whose to-one links own objects of this class.
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
    var fieldColumns: [Int] { spec.columns.indices.filter { embeddedColumns[$0] == nil } }
}

extension SyncSchema {
    /// The embedded classes reachable from the selected classes, checked: only to-one
    /// properties may hold embedded objects, and an embedded class may hold only values and
    /// further to-one embedded objects (lists, sets, maps and links to top-level objects inside
    /// embedded objects, and lists and maps of embedded objects, do not sync yet). An embedded
    /// class named in the selection is accepted (it syncs with its parents).
    static func loadEmbedded(_ selected: [TableKey], _ txn: Transaction) throws -> [String: SyncedEmbeddedClass] {
        var embedded: [String: SyncedEmbeddedClass] = [:]
        func embeddedClass(named target: String) -> SyncedEmbeddedClass? {
            if let e = embedded[target] { return e }
            guard let k = txn.tableKey(named: target), let spec = txn.spec(of: k), spec.isEmbedded else { return nil }
            let e = SyncedEmbeddedClass(key: k, spec: spec)
            embedded[target] = e
            return e
        }
        func check(_ spec: TableSpec, _ k: TableKey, inEmbedded: Bool) throws -> [Int: SyncedEmbeddedClass] {
            var result: [Int: SyncedEmbeddedClass] = [:]
            for (i, col) in spec.columns.enumerated() {
                let target = col.type == .link ? col.linkTarget.flatMap(embeddedClass(named:)) : nil
                if let target {
                    guard !col.isList else {
                        throw AtollError(.schemaMismatch,
                            "'\(spec.name).\(col.name)' is a \(col.isMap ? "map" : "list") of embedded objects ('\(target.name)'); lists and maps of embedded objects do not sync yet: make it a to-one property or leave '\(spec.name)' out of the synced classes")
                    }
                    result[i] = target
                    target.owners.append((k, i))
                } else if inEmbedded && (col.isList || col.type == .link) {
                    throw AtollError(.schemaMismatch,
                        "'\(spec.name).\(col.name)' is \(col.isList ? "a collection" : "a link to a top-level object") inside an embedded object; only values and to-one embedded objects inside embedded objects sync yet: leave the classes that hold '\(spec.name)' out of the synced classes")
                }
            }
            return result
        }
        // Top-level classes first, then every embedded class reached (each checked once).
        var pending: [SyncedEmbeddedClass] = []
        var checked = Set<String>()
        for k in selected {
            guard let spec = txn.spec(of: k), !spec.isEmbedded else { continue }
            for (_, e) in try check(spec, k, inEmbedded: false) where checked.insert(e.name).inserted { pending.append(e) }
        }
        while let e = pending.popLast() {
            e.embeddedColumns = try check(e.spec, e.key, inEmbedded: true)
            for (_, child) in e.embeddedColumns where checked.insert(child.name).inserted { pending.append(child) }
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
}
