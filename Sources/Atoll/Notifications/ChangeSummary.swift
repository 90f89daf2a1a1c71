import AtollStorage

/// What a range of commits changed, read from their transaction logs.
struct ChangeSummary {
    struct TableChanges {
        var inserted = Set<ObjectKey>()
        var deleted = Set<ObjectKey>()
        /// Changed columns per object (list changes included).
        var modified: [ObjectKey: Set<Int>] = [:]
        var cleared = false
    }

    var tables: [TableKey: TableChanges] = [:]
    var schemaChanged = false
    /// False when some log was not available: treat everything as possibly changed.
    var isComplete = true

    var isEmpty: Bool { tables.isEmpty && !schemaChanged && isComplete }

    func touches(_ table: TableKey) -> Bool { !isComplete || schemaChanged || tables[table] != nil }

    mutating func add(log bytes: [UInt8]) {
        var reader = TransactionLogReader(bytes)
        while let i = reader.next() { add(i) }
        if reader.error != nil { isComplete = false }
    }

    private mutating func modify(_ t: TableKey, _ k: ObjectKey, _ c: Int) {
        tables[t, default: TableChanges()].modified[k, default: []].insert(c)
    }

    mutating func add(_ i: LogInstruction) {
        switch i {
        case .addTable, .removeTable, .addColumn, .removeColumn, .renameColumn, .setIndexed, .setPrimaryKey:
            schemaChanged = true
        case .createObject(let t, let k, _):
            var c = tables[t, default: TableChanges()]
            if c.deleted.remove(k) != nil { c.modified[k] = Set(0..<1000) } else { c.inserted.insert(k) }
            tables[t] = c
        case .eraseObject(let t, let k, _):
            var c = tables[t, default: TableChanges()]
            if c.inserted.remove(k) == nil { c.deleted.insert(k) }
            c.modified[k] = nil
            tables[t] = c
        case .set(let t, let k, let col, _, _), .addInteger(let t, let k, let col, _), .listInsert(let t, let k, let col, _, _),
             .listSet(let t, let k, let col, _, _), .listErase(let t, let k, let col, _, _), .listMove(let t, let k, let col, _, _),
             .listClear(let t, let k, let col):
            modify(t, k, col)
        case .clearTable(let t):
            tables[t, default: TableChanges()].cleared = true
        case .setMetadata:
            break
        }
    }

    /// The changes between two versions, from the history (and the in-memory log of a commit
    /// this process just made).
    static func between(_ old: UInt64, _ new: Transaction, ownLog: [UInt8]?) -> ChangeSummary {
        var summary = ChangeSummary()
        if let ownLog, new.version == old + 1 {
            summary.add(log: ownLog)
            return summary
        }
        guard new.version > old else { return summary }
        for v in (old + 1)...new.version {
            guard let log = try? new.log(of: v) else { summary.isComplete = false; continue }
            summary.add(log: log)
        }
        return summary
    }
}
