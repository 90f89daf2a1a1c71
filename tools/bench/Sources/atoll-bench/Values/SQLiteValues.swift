import GRDB

// The SQLite side of the `values` suite through GRDB, the fastest idiomatic way: the set and the
// map are child tables keyed by (item, element) / (item, key) WITHOUT ROWID, each with the index
// its query needs (tag; key, value), and the Decimal128 is fixed-width text ("0001234.56", so
// that text order is numeric order) with an index. Same connection settings as the compare suite
// (WAL, synchronous FULL, SQLiteTuning); cached statements with unchecked arguments.

struct SQLiteValues {
    let name = "sqlite"
    let tuning: SQLiteTuning

    static let schema = """
        CREATE TABLE item (
            id INTEGER PRIMARY KEY NOT NULL,
            price TEXT NOT NULL
        );
        CREATE INDEX item_on_price ON item(price);
        CREATE TABLE item_tag (
            item_id INTEGER NOT NULL REFERENCES item(id),
            tag TEXT NOT NULL,
            PRIMARY KEY (item_id, tag)
        ) WITHOUT ROWID;
        CREATE INDEX item_tag_on_tag ON item_tag(tag);
        CREATE TABLE item_attribute (
            item_id INTEGER NOT NULL REFERENCES item(id),
            key TEXT NOT NULL,
            value INTEGER NOT NULL,
            PRIMARY KEY (item_id, key)
        ) WITHOUT ROWID;
        CREATE INDEX item_attribute_on_key_value ON item_attribute(key, value);
        """

    /// The prices as sortable text, made before any timed part.
    static func prices(_ data: ValueData) -> [String] { data.priceCents.map(ValueData.sortablePriceText(cents:)) }

    /// V1: a fresh file with the schema (untimed), then every object, its tags and its
    /// attributes inserted in one transaction (timed, commit included; full durability).
    func timedInsertAll(path: String, data: ValueData, prices: [String]) throws -> UInt64 {
        ScratchDirectory.removeDatabase(path)
        let queue = try SQLiteWorkloads.openQueue(path, tuning: tuning)
        try queue.write { db in try db.execute(sql: Self.schema) }
        let watch = Stopwatch()
        try queue.write { db in
            let item = try db.cachedStatement(sql: "INSERT INTO item (id, price) VALUES (?, ?)")
            let tag = try db.cachedStatement(sql: "INSERT INTO item_tag (item_id, tag) VALUES (?, ?)")
            let attribute = try db.cachedStatement(sql: "INSERT INTO item_attribute (item_id, key, value) VALUES (?, ?, ?)")
            for i in 0..<data.count {
                let id = data.id(i)
                item.setUncheckedArguments([id, prices[i]])
                try item.execute()
                for j in 0..<ValueData.tagsPerObject {
                    tag.setUncheckedArguments([id, data.tag(i, j)])
                    try tag.execute()
                }
                for j in 0..<ValueData.attributesPerObject {
                    attribute.setUncheckedArguments([id, ValueData.attributeKeys[j], data.attribute(i, j)])
                    try attribute.execute()
                }
            }
        }
        return watch.elapsedNanoseconds
    }

    func openReader(path: String) throws -> SQLiteValuesReader { try SQLiteValuesReader(path: path, tuning: tuning) }
}

/// The read workloads on a queue opened once; each call is one read transaction.
final class SQLiteValuesReader {
    private let queue: DatabaseQueue

    init(path: String, tuning: SQLiteTuning) throws {
        queue = try SQLiteWorkloads.openQueue(path, tuning: tuning)
    }

    /// V2. (item_id, tag) is unique, so counting the index entries counts the items.
    func countWithTag(_ tags: [String]) throws -> Int {
        try queue.read { db in
            let statement = try db.cachedStatement(sql: "SELECT COUNT(*) FROM item_tag WHERE tag = ?")
            var total = 0
            for tag in tags {
                statement.setUncheckedArguments([tag])
                total += try Int.fetchOne(statement) ?? 0
            }
            return total
        }
    }

    /// V3. (item_id, key) is unique: one entry per matching item.
    func countAttributeAbove(_ probes: [(key: String, threshold: Int64)]) throws -> Int {
        try queue.read { db in
            let statement = try db.cachedStatement(sql: "SELECT COUNT(*) FROM item_attribute WHERE key = ? AND value > ?")
            var total = 0
            for p in probes {
                statement.setUncheckedArguments([p.key, p.threshold])
                total += try Int.fetchOne(statement) ?? 0
            }
            return total
        }
    }

    /// V4.
    func countPriceBetween(_ ranges: [(low: String, high: String)]) throws -> Int {
        try queue.read { db in
            let statement = try db.cachedStatement(sql: "SELECT COUNT(*) FROM item WHERE price BETWEEN ? AND ?")
            var total = 0
            for r in ranges {
                statement.setUncheckedArguments([r.low, r.high])
                total += try Int.fetchOne(statement) ?? 0
            }
            return total
        }
    }
}
