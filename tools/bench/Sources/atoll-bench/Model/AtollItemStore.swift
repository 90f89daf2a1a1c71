import AtollStorage

/// The `Item` model on the AtollStorage table API: schema, bulk loading and the cold-open read.
/// The storage suite measures the engine through this; the compare suite's Atoll side uses it
/// until it moves to the object API.
enum AtollItemStore {
    static let tableName = "Item"

    /// Column indexes in `spec.columns`.
    enum Column {
        static let id = 0
        static let name = 1
        static let age = 2
        static let score = 3
        static let active = 4
    }

    static let spec = TableSpec(
        name: tableName,
        columns: [
            ColumnSpec(name: "id", type: .int),
            ColumnSpec(name: "name", type: .string, isIndexed: true),
            ColumnSpec(name: "age", type: .int),
            ColumnSpec(name: "score", type: .double),
            ColumnSpec(name: "active", type: .bool),
        ],
        primaryKey: "id")

    static func configuration(_ path: String, durability: DatabaseConfiguration.Durability = .full,
                              encryptionKey: EncryptionKey? = nil) -> DatabaseConfiguration {
        DatabaseConfiguration(path: path, durability: durability, encryptionKey: encryptionKey)
    }

    /// Creates the `Item` table in its own transaction.
    static func createSchema(_ db: Database) throws {
        let w = try db.beginWrite()
        try w.createTable(spec)
        try w.commit()
    }

    /// The `Item` table of a transaction; throws when the file has none.
    static func table(_ txn: Transaction) throws -> Table {
        guard let t = try txn.table(named: tableName) else { throw BenchError("the database has no '\(tableName)' table") }
        return t
    }

    /// Creates objects `range` of `data` in a write transaction's table.
    static func insert(_ data: ItemData, _ range: Range<Int>, into t: Table) throws {
        for i in range {
            let key = try t.create(primaryKey: .int(data.id(i)))
            try t.set(key, Column.name, .string(data.name(i)))
            try t.set(key, Column.age, .int(data.ages[i]))
            try t.set(key, Column.score, .double(data.scores[i]))
            try t.set(key, Column.active, .bool(data.actives[i]))
        }
    }

    /// A fresh file, the table created, then every object inserted in one transaction with full
    /// durability; times the insert transaction including its commit (`key`: encrypted file).
    static func timedBulkInsert(path: String, data: ItemData, encryptionKey: EncryptionKey? = nil) throws -> UInt64 {
        ScratchDirectory.removeDatabase(path)
        let db = try Database.open(configuration(path, encryptionKey: encryptionKey))
        try createSchema(db)
        let watch = Stopwatch()
        let w = try db.beginWrite()
        try insert(data, 0..<data.count, into: try table(w))
        try w.commit()
        return watch.elapsedNanoseconds
    }

    /// Creates a database at `path` (replacing any) holding every object of `data`, written in
    /// one transaction. Every reference is released on return, so the file is closed.
    static func build(path: String, data: ItemData, durability: DatabaseConfiguration.Durability = .full) throws {
        ScratchDirectory.removeDatabase(path)
        let db = try Database.open(configuration(path, durability: durability))
        try createSchema(db)
        let w = try db.beginWrite()
        try insert(data, 0..<data.count, into: try table(w))
        try w.commit()
    }

    /// Opens `path`, finds the object with primary key `id` and reads its name and age; returns
    /// the nanoseconds from before the open to after the read. Run in a fresh process.
    static func timedOpenAndRead(path: String, id: Int64) throws -> UInt64 {
        let watch = Stopwatch()
        let db = try Database.open(configuration(path))
        let r = try db.beginRead()
        let t = try table(r)
        guard let key = try t.find(primaryKey: .int(id)) else { throw BenchError("no object with id \(id) in \(path)") }
        let name = try t.value(key, Column.name)
        let age = try t.value(key, Column.age)
        let ns = watch.elapsedNanoseconds
        guard case .string = name, case .int = age else { throw BenchError("object \(id) read back as (\(name), \(age))") }
        r.close()
        withExtendedLifetime(db) {}
        return ns
    }
}
