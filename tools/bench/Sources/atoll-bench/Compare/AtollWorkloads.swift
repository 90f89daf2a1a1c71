import AtollStorage

// The Atoll side of the compare suite.
//
// For now it is written against the AtollStorage table API (`Table`, `ObjectKey`,
// `StorageValue`), through AtollItemStore. When the object API lands, replace the bodies here
// with `Realm` / `Object` / `Results` code (`realm.write { realm.add(...) }`,
// `realm.object(ofType:forPrimaryKey:)`, `realm.objects(Item.self).where { ... }`,
// `.sorted(by: \.age)`); the CompareEngine and CompareReader contracts and the suite do not
// change. Until then W4, W5 and W6 go through per-object `value(key, column)` calls, which
// is what the table API offers, not what a query engine would do.

struct AtollWorkloads: CompareEngine {
    let name = "atoll"
    let fileExtension = "atoll"

    private typealias Column = AtollItemStore.Column

    private func freshDatabase(_ path: String) throws -> Database {
        ScratchDirectory.removeDatabase(path)
        let db = try Database.open(AtollItemStore.configuration(path))
        try AtollItemStore.createSchema(db)
        return db
    }

    func timedInsertAll(path: String, data: ItemData) throws -> UInt64 {
        let db = try freshDatabase(path)
        let watch = Stopwatch()
        let w = try db.beginWrite()
        try AtollItemStore.insert(data, 0..<data.count, into: try AtollItemStore.table(w))
        try w.commit()
        return watch.elapsedNanoseconds
    }

    func timedSingleObjectCommits(path: String, data: ItemData, count: Int) throws -> UInt64 {
        let db = try freshDatabase(path)
        let watch = Stopwatch()
        for i in 0..<count {
            let w = try db.beginWrite()
            try AtollItemStore.insert(data, i..<(i + 1), into: try AtollItemStore.table(w))
            try w.commit()
        }
        return watch.elapsedNanoseconds
    }

    func timedUpdateScores(path: String, ids: [Int64], scores: [Double]) throws -> UInt64 {
        let db = try Database.open(AtollItemStore.configuration(path))
        let watch = Stopwatch()
        let w = try db.beginWrite()
        let t = try AtollItemStore.table(w)
        for (id, score) in zip(ids, scores) {
            guard let key = try t.find(primaryKey: .int(id)) else { throw BenchError("atoll: object \(id) is missing") }
            try t.set(key, Column.score, .double(score))
        }
        try w.commit()
        return watch.elapsedNanoseconds
    }

    func timedDeleteAll(path: String) throws -> UInt64 {
        let db = try Database.open(AtollItemStore.configuration(path))
        let watch = Stopwatch()
        let w = try db.beginWrite()
        try AtollItemStore.table(w).clear()
        try w.commit()
        return watch.elapsedNanoseconds
    }

    func build(path: String, data: ItemData) throws {
        try AtollItemStore.build(path: path, data: data)
    }

    func fileBytes(path: String) -> Int { ScratchDirectory.fileBytes(path) }

    func objectCount(path: String) throws -> Int {
        let db = try Database.open(AtollItemStore.configuration(path))
        let r = try db.beginRead()
        defer { r.close() }
        return try AtollItemStore.table(r).count
    }

    func openReader(path: String) throws -> any CompareReader { try AtollReader(path: path) }
}

/// The read workloads: each call is one read transaction on a database opened once (as each
/// SQLite call is one `read`).
final class AtollReader: CompareReader {
    private var database: Database?

    private typealias Column = AtollItemStore.Column

    init(path: String) throws {
        database = try Database.open(AtollItemStore.configuration(path))
    }

    private func read<T>(_ body: (Table) throws -> T) throws -> T {
        guard let database else { throw BenchError("atoll: the reader is closed") }
        let r = try database.beginRead()
        defer { r.close() }
        return try body(try AtollItemStore.table(r))
    }

    func lookups(_ ids: [Int64]) throws -> Int {
        try read { table in
            var check = 0
            for id in ids {
                guard let key = try table.find(primaryKey: .int(id)) else { continue }
                if case .string(let name) = try table.value(key, Column.name) { check &+= name.utf8.count }
                if case .int(let age) = try table.value(key, Column.age) { check &+= Int(age) }
            }
            return check
        }
    }

    func countOlderThan40Active() throws -> Int {
        try read { table in
            var count = 0
            for key in try table.objectKeys() {
                guard case .int(let age) = try table.value(key, Column.age), age > 40 else { continue }
                if case .bool(true) = try table.value(key, Column.active) { count += 1 }
            }
            return count
        }
    }

    func namesSortedByAge(_ names: [String]) throws -> Int {
        try read { table in
            var hash = 0
            var hits: [(age: Int64, id: Int64)] = []
            for name in names {
                hits.removeAll(keepingCapacity: true)
                for key in try table.findAll(indexed: Column.name, equalTo: .string(name)) {
                    guard case .int(let age) = try table.value(key, Column.age) else { continue }
                    hits.append((age, key.intPrimaryKey))
                }
                hits.sort { $0.age != $1.age ? $0.age < $1.age : $0.id < $1.id }
                for hit in hits { mixIntoHash(&hash, hit.id) }
            }
            return hash
        }
    }

    func enumerateSumOfScores() throws -> Double {
        try read { table in
            var sum = 0.0
            for key in try table.objectKeys() {
                if case .double(let score) = try table.value(key, Column.score) { sum += score }
            }
            return sum
        }
    }

    func aggregateSumOfScores() throws -> Double {
        try read { table in
            guard case .double(let sum) = try table.aggregate(Column.score, .sum) else { throw BenchError("atoll: sum(score) is not a double") }
            return sum
        }
    }

    func close() { database = nil }
}
