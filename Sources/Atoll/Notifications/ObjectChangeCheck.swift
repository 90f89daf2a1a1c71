import AtollStorage
import AtollQuery

extension ChangeSummary {
    /// How many links away a change still counts as a change of the object (Realm reports
    /// changes of linked objects up to four levels deep: the object and three links).
    static let linkDepthMax = 3

    /// Key paths as their components (`"owner.name"` -> `["owner", "name"]`). A key path to
    /// observe follows the limit of query key paths (checking a change recurses once per
    /// component); a longer one is a programming error.
    static func components(_ keyPaths: [String]) -> [[String]] {
        keyPaths.map { path in
            let components = path.split(separator: ".").map(String.init)
            if components.count > QueryLimits.keyPathComponentsMax {
                atollProgrammerError("the key path to observe has \(components.count) components; the limit is \(QueryLimits.keyPathComponentsMax) (QueryLimits.keyPathComponentsMax)")
            }
            return components
        }
    }

    /// Whether object `key` of `table` changed: without key paths, when one of its properties
    /// was written or an object it links to changed (up to `linkDepthMax` links away); with key
    /// paths, only along them (`["owner", "name"]`: the link itself or the linked name).
    /// Throws when a link cannot be read (README, "Failed reads").
    func objectChanged(_ table: TableKey, _ key: ObjectKey, keyPaths: [[String]]?, in transaction: Transaction,
                       depth: Int = ChangeSummary.linkDepthMax) throws -> Bool
    {
        guard isExact else { return true }
        let own = tables[table]?.modified[key]
        guard let spec = transaction.spec(of: table) else { return own != nil }
        if let keyPaths {
            for path in keyPaths {
                guard let first = path.first, let c = spec.columnIndex(named: first) else { continue }
                if own?.contains(c) == true { return true }
                guard path.count > 1, let target = linkedTable(spec.columns[c], transaction) else { continue }
                let rest = [Array(path.dropFirst())]
                for k in try linkedKeys(table, key, c, spec.columns[c].isList, transaction)
                where try objectChanged(target, k, keyPaths: rest, in: transaction, depth: depth) {
                    return true
                }
            }
            return false
        }
        if own != nil { return true }
        guard depth > 0 else { return false }
        for (c, column) in spec.columns.enumerated() {
            guard let target = linkedTable(column, transaction) else { continue }
            // The last level only matters when its table changed at all.
            if depth == 1, tables[target] == nil { continue }
            for k in try linkedKeys(table, key, c, column.isList, transaction)
            where try objectChanged(target, k, keyPaths: nil, in: transaction, depth: depth - 1) {
                return true
            }
        }
        return false
    }

    private func linkedTable(_ column: ColumnSpec, _ transaction: Transaction) -> TableKey? {
        column.linkTarget.flatMap { transaction.tableKey(named: $0) }
    }

    /// The objects `key` links to through `column`: none when the object no longer exists.
    private func linkedKeys(_ table: TableKey, _ key: ObjectKey, _ column: Int, _ isList: Bool, _ transaction: Transaction) throws -> [ObjectKey] {
        guard transaction.spec(of: table) != nil else { return [] }
        let t = try transaction.table(table)
        guard let row = try t.locate(key) else { return [] }
        if isList {
            return try t.list(row, column).values.compactMap { if case .link(let k) = $0 { k } else { nil } }
        }
        if case .link(let k) = try t.value(row, column) { return [k] }
        return []
    }
}
