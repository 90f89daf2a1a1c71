import AtollQuery
import AtollStorage

// The conflict ledger as a table the query engine runs over.
//
// The ledger is an internal tree (Conflict.swift), not a table: the query engine (AtollQuery)
// evaluates predicates over tables. Rather than a second evaluator over `Conflict` values, the
// entries to filter are written as rows of one table `Conflict` (columns below) in a private
// in-memory database, and the engine binds and runs the predicate there, with every operator,
// SORT, DISTINCT and LIMIT of the language. `atoll conflicts` (the CLI) and `ConflictResults`
// (`realm.conflicts`) both go through these columns, so a predicate means the same in both.
//
// Cost: one in-memory commit of at most `ConflictRetention.countMax` rows (1,000 by default)
// per evaluation of a filtered or sorted collection whose realm moved to a new version; an
// unfiltered collection writes nothing. The database is shared by the process and used under a
// lock (the rows of one evaluation are written, queried and replaced by the next).

package enum ConflictTable {
    /// The class name predicates are bound against.
    package static let className = "Conflict"

    /// The properties a predicate may use. Values are text (strings as they are, other values
    /// as they print, a link as its target's primary key, null for a delete).
    package static let columns: [ColumnSpec] = [
        ColumnSpec(name: "kind", type: .string),
        ColumnSpec(name: "className", type: .string),
        ColumnSpec(name: "primaryKey", type: .string, isNullable: true),
        ColumnSpec(name: "property", type: .string, isNullable: true),
        ColumnSpec(name: "element", type: .string, isNullable: true),
        ColumnSpec(name: "mapKey", type: .string, isNullable: true),
        ColumnSpec(name: "winningValue", type: .string, isNullable: true),
        ColumnSpec(name: "losingValue", type: .string, isNullable: true),
        ColumnSpec(name: "winningNode", type: .string),
        ColumnSpec(name: "losingNode", type: .string),
        ColumnSpec(name: "winningStamp", type: .string),
        ColumnSpec(name: "losingStamp", type: .string),
        ColumnSpec(name: "decidedInVersion", type: .int),
        ColumnSpec(name: "recordedAt", type: .int),
    ]

    /// A value as the predicate compares it: strings without quotes, other values as they print.
    static func text(_ v: StorageValue) -> StorageValue {
        switch v {
        case .null: .null
        case .string(let s): .string(s)
        default: .string(v.description)
        }
    }

    /// A winning or losing value as the predicate compares it (a link: its target's key).
    static func text(_ v: SyncValue?) -> StorageValue {
        switch v {
        case nil: .null
        case .value(let s)?: text(s)
        case .link(let pk)?: text(pk)
        case .typedLink(_, let pk)?: text(pk)
        }
    }

    /// The row of an entry, in the order of `columns`.
    package static func row(_ c: Conflict) -> [StorageValue] {
        [
            .string(c.kind.description), .string(c.className), text(c.primaryKey),
            c.property.map { .string($0) } ?? .null, c.listElement.map { .string($0.description) } ?? .null,
            c.mapKey.map { .string($0) } ?? .null,
            text(c.winningValue), text(c.losingValue),
            .string(c.winningNode.description), .string(c.losingNode.description),
            .string(c.winningStamp.description), .string(c.losingStamp.description),
            .int(Int64(clamping: c.decidedInVersion)), .int(Int64(clamping: c.recordedAtMilliseconds)),
        ]
    }

    /// The process's query database (created on first use), guarded by the lock.
    private static let database = AtollLock<Database?>(nil)

    private static func withDatabase<R: Sendable>(_ body: (Database) throws -> R) throws -> R {
        try database.withLock { (db: inout Database?) throws -> R in
            if let db { return try body(db) }
            let opened = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "atoll-conflict-ledger-query"))
            let w = try opened.beginWrite()
            do {
                if w.tableKey(named: className) == nil { _ = try w.createTable(TableSpec(name: className, columns: columns)) }
                try w.commit()
            } catch {
                w.rollback()
                throw error
            }
            db = opened
            return try body(opened)
        }
    }

    /// Binds a predicate in the query language (trailing SORT / DISTINCT / LIMIT included) to
    /// the ledger's columns. Throws `.invalidQuery` for a predicate the language refuses (an
    /// unknown property, a type mismatch, a syntax error).
    static func bind(_ predicate: String, arguments: [Any]) throws -> BoundQuery {
        try withDatabase { db in
            let r = try db.beginRead()
            defer { r.close() }
            return try QueryEngine(transaction: r).bind(predicate, on: className, arguments: arguments)
        }
    }

    /// The positions in `entries` of the entries `query` matches, in the order of its SORT
    /// clause (ties, and without a clause: the order of `entries`). Every entry with no query.
    static func matches(_ query: BoundQuery?, in entries: [Conflict]) throws -> [Int] {
        guard let query else { return Array(entries.indices) }
        guard !entries.isEmpty else { return [] }
        let rows = entries.map(row)
        return try withDatabase { db in
            var positions: [ObjectKey: Int] = [:]
            let w = try db.beginWrite()
            do {
                guard let key = w.tableKey(named: className) else { throw AtollError.corrupted("the conflict query table is gone") }
                let t = try w.table(key)
                try t.clear()
                for (i, r) in rows.enumerated() { positions[try t.create(values: r)] = i }
                try w.commit()
            } catch {
                w.rollback()
                throw error
            }
            let r = try db.beginRead()
            defer { r.close() }
            var found = try QueryEngine(transaction: r).run(query).map { k in
                guard let i = positions[k] else { throw AtollError.corrupted("the conflict query returned an unknown row") }
                return i
            }
            if query.clauses.isEmpty { found.sort() }
            return found
        }
    }
}
