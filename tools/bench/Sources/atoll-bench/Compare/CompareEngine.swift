/// One engine's side of the compare workloads (see CompareSuite for what each one measures).
///
/// Write workloads take a path and return the nanoseconds of the timed part only: each does its
/// own untimed set-up (a fresh file and schema, or opening a copy of the seed) and releases
/// everything before returning, so the file is closed. Read workloads run on a `CompareReader`
/// opened once on the seed, inside one read transaction, and are timed by the suite.
protocol CompareEngine {
    /// "atoll" or "sqlite": the column of the table, and the engine name of the open probe.
    var name: String { get }
    /// Appended to scratch file names.
    var fileExtension: String { get }

    /// A fresh database with the schema at `path` (untimed), then every object of `data`
    /// inserted in one transaction (timed, commit included). Full durability.
    func timedInsertAll(path: String, data: ItemData) throws -> UInt64
    /// A fresh database with the schema (untimed), then `count` transactions each inserting one
    /// object of `data`, each durable when its commit returns (timed).
    func timedSingleObjectCommits(path: String, data: ItemData, count: Int) throws -> UInt64
    /// W11: a fresh database with the schema (untimed) watched by an observer in another
    /// process, then `count` commits each inserting one object of `data`; for each commit the
    /// nanoseconds from just before it to the observer's callback (see LiveNotifications).
    func liveNotificationLatencies(path: String, data: ItemData, count: Int) throws -> [UInt64]
    /// Sets `score` of the objects with `ids` to `scores` in one transaction (timed).
    func timedUpdateScores(path: String, ids: [Int64], scores: [Double]) throws -> UInt64
    /// Deletes every object in one transaction (timed).
    func timedDeleteAll(path: String) throws -> UInt64
    /// Builds a database holding `data` without timing (the 10k file of W9).
    func build(path: String, data: ItemData) throws
    /// Bytes the closed database occupies on disk (without lock or shared-memory files).
    func fileBytes(path: String) -> Int
    /// Number of objects stored (to check that a workload did what it says).
    func objectCount(path: String) throws -> Int

    func openReader(path: String) throws -> any CompareReader
}

/// Read workloads on one snapshot. Each returns a checksum that must agree between engines.
protocol CompareReader: AnyObject {
    /// W3: for each id, find the object and read `name` and `age`; returns Σ(age + name bytes).
    func lookups(_ ids: [Int64]) throws -> Int
    /// W4: number of objects with `age > 40 AND active == true`, without an index.
    func countOlderThan40Active() throws -> Int
    /// W5: for each name, the objects with that name (through the index) sorted by age, then
    /// id; returns a hash of the id sequences (order-sensitive).
    func namesSortedByAge(_ names: [String]) throws -> Int
    /// W4 written as a type-safe query (`where { $0.age > 40 && $0.active }`) where the engine has
    /// one; SQLite runs the same SQL as `countOlderThan40Active`.
    func countOlderThan40ActiveTypeSafe() throws -> Int
    /// W5 with a type-safe query and a key-path sort where the engine has them; SQLite runs the
    /// same SQL as `namesSortedByAge`.
    func namesSortedByAgeTypeSafe(_ names: [String]) throws -> Int
    /// W6: enumerates every object reading `score`; returns the sum.
    func enumerateSumOfScores() throws -> Double
    /// W6b: the engine's own aggregate of `score`.
    func aggregateSumOfScores() throws -> Double
    /// Ends the read transaction and releases the database.
    func close()
}

/// The order-sensitive hash W5 uses over its result ids.
@inline(__always)
func mixIntoHash(_ hash: inout Int, _ id: Int64) {
    hash = hash &* 1_000_003 &+ Int(id)
}
