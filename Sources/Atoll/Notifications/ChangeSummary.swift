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

    /// One list property of one object.
    struct ListSlot: Hashable {
        let table: TableKey
        let object: ObjectKey
        let column: Int
    }

    /// A change of a list, by position, in log order.
    enum ListOperation: Equatable {
        case insert(Int)
        case set(Int)
        case erase(Int)
        case move(from: Int, to: Int)
        case clear
    }

    var tables: [TableKey: TableChanges] = [:]
    /// The operations on each changed list, in order (for list notifications with exact
    /// positions, duplicates included).
    var lists: [ListSlot: [ListOperation]] = [:]
    var schemaChanged = false
    /// A schema change other than new tables: columns of existing tables may be renumbered.
    /// (Another realm of the process opening with classes first used since, or another
    /// process's, adds their tables; that changes no existing object.)
    var existingTablesChanged = false
    /// False when some log was not available: treat everything as possibly changed.
    var isComplete = true
    /// The realm's own commit, delivered on its thread: as in RealmSwift, object notifications
    /// then carry no old values.
    var isLocal = false

    var isEmpty: Bool { tables.isEmpty && !schemaChanged && isComplete }

    func touches(_ table: TableKey) -> Bool { !isComplete || schemaChanged || tables[table] != nil }

    /// Whether the summary is exact: logs complete and no schema change renumbering columns.
    var isExact: Bool { isComplete && !existingTablesChanged }

    mutating func add(log bytes: [UInt8]) {
        var reader = TransactionLogReader(bytes)
        while let i = reader.next() { add(i) }
        if reader.error != nil { isComplete = false }
    }

    private mutating func modify(_ t: TableKey, _ k: ObjectKey, _ c: Int) {
        tables[t, default: TableChanges()].modified[k, default: []].insert(c)
    }

    private mutating func list(_ t: TableKey, _ k: ObjectKey, _ c: Int, _ op: ListOperation) {
        modify(t, k, c)
        lists[ListSlot(table: t, object: k, column: c), default: []].append(op)
    }

    mutating func add(_ i: LogInstruction) {
        switch i {
        case .addTable:
            schemaChanged = true
        case .removeTable, .addColumn, .removeColumn, .renameColumn, .setIndexed, .setPrimaryKey:
            schemaChanged = true
            existingTablesChanged = true
        case .createObject(let t, let k, _):
            var c = tables[t, default: TableChanges()]
            if c.deleted.remove(k) != nil { c.modified[k] = Set(0..<1000) } else { c.inserted.insert(k) }
            tables[t] = c
        case .eraseObject(let t, let k, _):
            var c = tables[t, default: TableChanges()]
            if c.inserted.remove(k) == nil { c.deleted.insert(k) }
            c.modified[k] = nil
            tables[t] = c
        case .set(let t, let k, let col, _, _), .addInteger(let t, let k, let col, _):
            modify(t, k, col)
        case .listInsert(let t, let k, let col, let index, _):
            list(t, k, col, .insert(index))
        case .listSet(let t, let k, let col, let index, _):
            list(t, k, col, .set(index))
        case .listErase(let t, let k, let col, let index, _):
            list(t, k, col, .erase(index))
        case .listMove(let t, let k, let col, let from, let to):
            list(t, k, col, .move(from: from, to: to))
        case .listClear(let t, let k, let col):
            list(t, k, col, .clear)
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
            summary.isLocal = true
            return summary
        }
        guard new.version > old else { return summary }
        for v in (old + 1)...new.version {
            let stored: [UInt8]?
            do {
                stored = try new.log(of: v)
            } catch {
                summary.isComplete = false
                continue
            }
            guard let log = stored else {
                // A commit stores its log while a reader pinned below it may need it, which the
                // realm asking (pinned at `old`) does, unless the log is empty: a commit of
                // internal data only, such as sync's bookkeeping. Above the history floor a
                // missing log is such a commit and changed nothing; below it, it was trimmed.
                if v <= new.rootRecord.historyFloor { summary.isComplete = false }
                continue
            }
            summary.add(log: log)
        }
        return summary
    }
}

/// The index changes of a list from the operations of the log: positions exact even with
/// duplicates, as Realm reports them (a moved element is a deletion and an insertion).
enum ListChangeBuilder {
    /// `oldCount` elements before; returns nil when the operations do not fit the list (the
    /// caller then compares contents instead).
    static func changes(oldCount: Int, operations: [ChangeSummary.ListOperation])
        -> (deletions: [Int], insertions: [Int], modifiedOld: Set<Int>, survivors: [Int])?
    {
        // Each position holds the element's old index, or -1 for an element inserted since.
        var tags = Array(0..<oldCount)
        var modifiedOld = Set<Int>()
        for op in operations {
            switch op {
            case .insert(let i):
                guard i >= 0, i <= tags.count else { return nil }
                tags.insert(-1, at: i)
            case .set(let i):
                guard i >= 0, i < tags.count else { return nil }
                if tags[i] >= 0 { modifiedOld.insert(tags[i]) }
            case .erase(let i):
                guard i >= 0, i < tags.count else { return nil }
                tags.remove(at: i)
            case .move(let from, let to):
                guard from >= 0, from < tags.count, to >= 0, to < tags.count else { return nil }
                tags.remove(at: from)
                tags.insert(-1, at: to)
            case .clear:
                tags.removeAll()
            }
        }
        let kept = Set(tags.filter { $0 >= 0 })
        let deletions = (0..<oldCount).filter { !kept.contains($0) }
        let insertions = tags.indices.filter { tags[$0] < 0 }
        return (deletions, insertions, modifiedOld.intersection(kept), tags)
    }
}
