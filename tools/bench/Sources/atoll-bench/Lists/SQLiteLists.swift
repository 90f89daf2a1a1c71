import GRDB

// The SQLite side of the `lists` suite through GRDB, the fastest idiomatic way we found for a
// list that is read by position: a child table (owner_id, position, value) with a covering index
// on (owner_id, position, value), positions kept dense (0..<n), so that `list[i]` is one index
// lookup and iteration one index range scan in order. An insert in the middle renumbers the
// elements after it with one `UPDATE ... SET position = position + 1`. The index is not
// unique because SQLite checks uniqueness row by row during an UPDATE, so that statement would
// collide on a unique (owner_id, position) key; a WITHOUT ROWID table keyed by (owner_id,
// position) needs two UPDATEs (p -> -1-p, then -p) and measured 2.4x slower per insert on a
// 100k list, with the same lookup speed. Gap-based positions would make the insert cheaper but
// `list[i]` an OFFSET scan, O(i): L2 would lose by orders of magnitude. Same connection settings
// as the compare suite (WAL, synchronous FULL, SQLiteTuning); cached statements with unchecked
// arguments.

struct SQLiteLists {
    let tuning: SQLiteTuning

    static let schema = """
        CREATE TABLE owner (id INTEGER PRIMARY KEY NOT NULL);
        CREATE TABLE owner_value (
            owner_id INTEGER NOT NULL REFERENCES owner(id),
            position INTEGER NOT NULL,
            value INTEGER NOT NULL
        );
        CREATE INDEX owner_value_by_position ON owner_value(owner_id, position, value);
        INSERT INTO owner (id) VALUES (1);
        """

    func open(_ path: String) throws -> DatabaseQueue { try SQLiteWorkloads.openQueue(path, tuning: tuning) }

    /// A fresh file with the schema and owner 1 holding `elements` (untimed set-up).
    func build(path: String, elements: [Int]) throws -> DatabaseQueue {
        ScratchDirectory.removeDatabase(path)
        let queue = try open(path)
        try queue.write { db in
            try db.execute(sql: Self.schema)
            let insert = try db.cachedStatement(sql: "INSERT INTO owner_value (owner_id, position, value) VALUES (1, ?, ?)")
            for (i, e) in elements.enumerated() {
                insert.setUncheckedArguments([i, e])
                try insert.execute()
            }
        }
        return queue
    }

    /// L1: one INSERT per element at the end, in one transaction (timed, commit included).
    func timedAppend(path: String, count: Int) throws -> UInt64 {
        let queue = try build(path: path, elements: [])
        let watch = Stopwatch()
        try queue.write { db in
            // The append position is the list's count, as an application appending to a list
            // whose length it does not hold in memory would read it.
            let countStatement = try db.cachedStatement(sql: "SELECT COUNT(*) FROM owner_value WHERE owner_id = 1")
            var next = try Int.fetchOne(countStatement) ?? 0
            let insert = try db.cachedStatement(sql: "INSERT INTO owner_value (owner_id, position, value) VALUES (1, ?, ?)")
            for i in 0..<count {
                insert.setUncheckedArguments([next, ListData.value(i)])
                try insert.execute()
                next += 1
            }
        }
        let ns = watch.elapsedNanoseconds
        let n = try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM owner_value WHERE owner_id = 1") ?? 0 }
        guard n == count else { throw BenchError("sqlite L1: \(n) elements, expected \(count)") }
        return ns
    }

    /// L2: one primary-key lookup per position, in one read transaction.
    func sumAt(_ queue: DatabaseQueue, _ positions: [Int]) throws -> Int {
        try queue.read { db in
            let statement = try db.cachedStatement(sql: "SELECT value FROM owner_value WHERE owner_id = 1 AND position = ?")
            var sum = 0
            for p in positions {
                statement.setUncheckedArguments([p])
                guard let v = try Int.fetchOne(statement) else { throw BenchError("sqlite L2: no element at \(p)") }
                sum &+= v
            }
            return sum
        }
    }

    /// L3: each insert its own transaction: renumber the tail, then insert (timed).
    func timedInserts(path: String, data: ListData, positions: [Int], checksum: inout Int) throws -> UInt64 {
        let queue = try build(path: path, elements: ListData.values(data.count))
        let watch = Stopwatch()
        for (k, p) in positions.enumerated() {
            try queue.write { db in
                let shift = try db.cachedStatement(sql: "UPDATE owner_value SET position = position + 1 WHERE owner_id = 1 AND position >= ?")
                shift.setUncheckedArguments([p])
                try shift.execute()
                let insert = try db.cachedStatement(sql: "INSERT INTO owner_value (owner_id, position, value) VALUES (1, ?, ?)")
                insert.setUncheckedArguments([p, -k - 1])
                try insert.execute()
            }
        }
        let ns = watch.elapsedNanoseconds
        checksum = try queue.read { db in
            ListData.checksum(try Int.fetchAll(db, sql: "SELECT value FROM owner_value WHERE owner_id = 1 ORDER BY position"))
        }
        return ns
    }

    /// L4: one range scan in position order, summing in Swift as an application iterating its
    /// list would.
    func sumAll(_ queue: DatabaseQueue) throws -> Int {
        try queue.read { db in
            let statement = try db.cachedStatement(sql: "SELECT value FROM owner_value WHERE owner_id = 1 ORDER BY position")
            var sum = 0
            let cursor = try Int.fetchCursor(statement)
            while let v = try cursor.next() { sum &+= v }
            return sum
        }
    }
}
