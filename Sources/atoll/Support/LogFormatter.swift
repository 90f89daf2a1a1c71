import Atoll

/// Words for transaction-log instructions, with names from the schema of `transaction`.
struct LogFormatter {
    let transaction: Transaction

    private func table(_ key: TableKey) -> TableSpec? { transaction.spec(of: key) }

    private func tableName(_ key: TableKey) -> String { table(key)?.name ?? "table#\(key.rawValue)" }

    private func isInternal(_ key: TableKey) -> Bool { table(key)?.name.hasPrefix(DynamicSchema.reservedPrefix) ?? false }

    private func column(_ key: TableKey, _ c: Int) -> String {
        guard let spec = table(key), c >= 0, c < spec.columns.count else { return "#\(c)" }
        return spec.columns[c].name
    }

    /// The object as its primary key where it can be known (it still exists), else its key.
    /// Throws when the object cannot be read: a damaged file is reported, not printed as keys.
    private func object(_ t: TableKey, _ k: ObjectKey) throws -> String {
        guard let spec = table(t), spec.primaryKey != nil else { return "#\(k.rawValue)" }
        if spec.keyIsPrimaryKey { return String(k.intPrimaryKey) }
        let tbl = try transaction.table(t)
        if try tbl.contains(k) { return try tbl.primaryKeyValue(k).dataFileText }
        return "#\(k.rawValue)"
    }

    private func value(_ v: StorageValue, _ t: TableKey, _ c: Int) throws -> String {
        if case .link(let k) = v, let spec = table(t), c < spec.columns.count, let target = spec.columns[c].linkTarget,
           let targetKey = transaction.tableKey(named: target) {
            return try "\(target) \(object(targetKey, k))"
        }
        return v.dataFileText
    }

    /// One line, or nil for instructions on Atoll's internal classes.
    func describe(_ i: LogInstruction) throws -> String? {
        if let t = i.table, isInternal(t) { return nil }
        switch i {
        case .addTable(_, let spec):
            if spec.name.hasPrefix(DynamicSchema.reservedPrefix) { return nil }
            return "AddClass \(spec.name) {\(spec.columns.map(\.description).joined(separator: ", "))}"
        case .removeTable(_, let name):
            return name.hasPrefix(DynamicSchema.reservedPrefix) ? nil : "RemoveClass \(name)"
        case .addColumn(let t, _, let spec): return "AddProperty \(tableName(t)).\(spec)"
        case .removeColumn(let t, _, let name): return "RemoveProperty \(tableName(t)).\(name)"
        case .renameColumn(let t, _, let from, let to): return "RenameProperty \(tableName(t)).\(from) -> \(to)"
        case .setIndexed(let t, let c, let on): return "\(on ? "AddIndex" : "RemoveIndex") \(tableName(t)).\(column(t, c))"
        case .setPrimaryKey(let t, let name): return "SetPrimaryKey \(tableName(t)) \(name.isEmpty ? "(none)" : name)"
        case .createObject(let t, let k, let pk): return "Create \(tableName(t)) \(pk.isNull ? "#\(k.rawValue)" : pk.dataFileText)"
        case .eraseObject(let t, let k, let pk): return "Delete \(tableName(t)) \(pk.isNull ? "#\(k.rawValue)" : pk.dataFileText)"
        case .set(let t, let k, let c, let v, let implicit):
            return try "Set \(tableName(t)) \(object(t, k)) \(column(t, c)) = \(value(v, t, c))\(implicit ? " (target deleted)" : "")"
        case .addInteger(let t, let k, let c, let d): return try "Add \(tableName(t)) \(object(t, k)) \(column(t, c)) += \(d)"
        case .listInsert(let t, let k, let c, let index, let v): return try "ListInsert \(tableName(t)) \(object(t, k)) \(column(t, c))[\(index)] = \(value(v, t, c))"
        case .listSet(let t, let k, let c, let index, let v): return try "ListSet \(tableName(t)) \(object(t, k)) \(column(t, c))[\(index)] = \(value(v, t, c))"
        case .listErase(let t, let k, let c, let index, let implicit):
            return try "ListErase \(tableName(t)) \(object(t, k)) \(column(t, c))[\(index)]\(implicit ? " (target deleted)" : "")"
        case .listMove(let t, let k, let c, let from, let to): return try "ListMove \(tableName(t)) \(object(t, k)) \(column(t, c))[\(from)] -> [\(to)]"
        case .listClear(let t, let k, let c): return try "ListClear \(tableName(t)) \(object(t, k)) \(column(t, c))"
        case .clearTable(let t): return "Clear \(tableName(t))"
        case .setMetadata(let name, let value): return name.hasPrefix("atoll.") || name.hasPrefix(DynamicSchema.reservedPrefix) ? nil : "SetMetadata \(name) (\(value.count) bytes)"
        }
    }
}
