@testable import AtollStorage
import Foundation

/// Small valid database files, made with the storage API: each exercises different structures
/// (columns of every type, indexes, lists, links and backlinks, blobs, history, internal trees,
/// free pages, multi-level trees).
enum FileSeeds {
    static func all(in directory: String) throws -> [(name: String, bytes: [UInt8])] {
        var seeds: [(name: String, bytes: [UInt8])] = []
        func make(_ name: String, historyRetainedVersions: Int = 0, _ fill: (Database) throws -> Void) throws {
            let path = "\(directory)/seed-\(name).atoll"
            unlink(path)
            unlink(path + ".lock")
            do {
                let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe, historyRetainedVersions: historyRetainedVersions))
                try fill(db)
                _ = try db.verify()
            }
            // The file grows in large steps; the seed keeps only the pages in use (the newest
            // root slot's page count), which still opens and verifies.
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            bytes.removeLast(bytes.count - min(bytes.count, usedBytes(bytes)))
            unlink(path)
            unlink(path + ".lock")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            do {
                let db = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe, readOnly: true, createIfMissing: false))
                _ = try db.verify()
            }
            unlink(path)
            unlink(path + ".lock")
            seeds.append((name: name, bytes: bytes))
        }

        try make("empty") { _ in }
        try make("types", historyRetainedVersions: 8) { db in
            let w = try db.beginWrite()
            let person = try w.table(w.createTable(personSpec))
            let dog = try w.table(w.createTable(dogSpec))
            for i in 0..<6 { try addPerson(person, Int64(i)) }
            for (i, name) in ["Rex", "Fido", "Bella"].enumerated() {
                let k = try dog.create(primaryKey: .string(name))
                try dog.set(k, 1, .int(Int64(i * 3)))
                try dog.set(k, 2, .link(ObjectKey(primaryKey: Int64(i))))
                try person.setList(ObjectKey(primaryKey: Int64(i)), 7, [.link(k)])
            }
            _ = try w.commit()
            let w2 = try db.beginWrite()
            let p2 = try w2.table(named: "Person")!
            try p2.set(ObjectKey(primaryKey: 1), 2, .int(99))
            try p2.listInsert(ObjectKey(primaryKey: 2), 6, at: 0, .string("inserted"))
            try p2.erase(ObjectKey(primaryKey: 0))
            try w2.setMetadata("atoll.schemaVersion", [2])
            _ = try w2.commit()
        }
        try make("blobs", historyRetainedVersions: 2) { db in
            let w = try db.beginWrite()
            let t = try w.table(w.createTable(TableSpec(name: "Doc", columns: [
                ColumnSpec(name: "title", type: .string, isIndexed: true),
                ColumnSpec(name: "body", type: .string),
                ColumnSpec(name: "data", type: .binary, isNullable: true),
                ColumnSpec(name: "words", type: .string, isList: true),
            ])))
            let long = String(repeating: "atoll ", count: 400)
            for i in 0..<3 {
                let k = try t.create()
                try t.set(k, 0, .string(long.prefix(500) + "\(i)"))
                try t.set(k, 1, .string(long + "\(i)"))
                try t.set(k, 2, i == 1 ? .null : .binary([UInt8](repeating: UInt8(i), count: 1500)))
                try t.setList(k, 3, (0..<(i * 150)).map { .string("w\($0)") })
            }
            _ = try w.commit()
        }
        try make("internal") { db in
            let w = try db.beginWrite()
            _ = try w.createTable(TableSpec(name: "Item", columns: [ColumnSpec(name: "id", type: .int)], primaryKey: "id"))
            for i in 0..<40 {
                try w.putInternal("sync.state", key: Array("k\(i)".utf8), value: [UInt8](repeating: UInt8(i), count: i * 7))
            }
            try w.putInternal("relay.log", key: [0, 0, 0, 1], value: [UInt8](repeating: 3, count: 2000))
            w.setSyncHistoryRetained(from: 1)
            _ = try w.commit()
        }
        try make("large", historyRetainedVersions: 1) { db in
            let w = try db.beginWrite()
            let t = try w.table(w.createTable(TableSpec(name: "Row", columns: [
                ColumnSpec(name: "id", type: .int),
                ColumnSpec(name: "name", type: .string, isIndexed: true),
                ColumnSpec(name: "score", type: .double),
                ColumnSpec(name: "next", type: .link, isNullable: true, linkTarget: "Row"),
            ], primaryKey: "id")))
            for i in 0..<500 {
                let k = try t.create(primaryKey: .int(Int64(i)))
                try t.set(k, 1, .string("name-\(i % 120)"))
                try t.set(k, 2, .double(Double(i) / 3))
                if i > 0 { try t.set(k, 3, .link(ObjectKey(primaryKey: Int64(i - 1)))) }
            }
            _ = try w.commit()
            let w2 = try db.beginWrite()
            let t2 = try w2.table(named: "Row")!
            for i in stride(from: 0, to: 500, by: 3) { try t2.erase(ObjectKey(primaryKey: Int64(i))) }
            _ = try w2.commit()
        }
        // A file of format 1 (page checksums without page number and file id), which Atoll
        // still reads: `tools/fuzz/run --seeds` runs from the repository root.
        if let golden = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: "Fixtures/format-v1/golden.atoll"))) {
            seeds.append((name: "golden-v1", bytes: Array(golden.prefix(usedBytes(golden)))))
        }
        return seeds
    }

    /// Bytes up to the page count of the newest root slot (pages 1 and 2; version at 8, page
    /// count at 16, docs/FORMAT.md).
    static func usedBytes(_ file: [UInt8]) -> Int {
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(file[at + $1]) << (8 * $1) } }
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(file[at + $1]) << (8 * $1) } }
        let page = 4096
        let newest = u64(page + 8) >= u64(2 * page + 8) ? page : 2 * page
        return u32(newest + 16) * page
    }

    static let personSpec = TableSpec(name: "Person", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "name", type: .string, isIndexed: true),
        ColumnSpec(name: "age", type: .int, isNullable: true, isIndexed: true),
        ColumnSpec(name: "born", type: .timestamp, isNullable: true),
        ColumnSpec(name: "photo", type: .binary, isNullable: true),
        ColumnSpec(name: "ids", type: .uuid, isNullable: true),
        ColumnSpec(name: "tags", type: .string, isList: true),
        ColumnSpec(name: "dogs", type: .link, isList: true, linkTarget: "Dog"),
        ColumnSpec(name: "weight", type: .float),
        ColumnSpec(name: "height", type: .double, isNullable: true),
        ColumnSpec(name: "active", type: .bool),
        ColumnSpec(name: "oid", type: .objectId, isNullable: true, isIndexed: true),
        ColumnSpec(name: "scores", type: .int, isNullable: true, isList: true),
        ColumnSpec(name: "small", type: .int, intBits: 8),
    ], primaryKey: "id")

    static let dogSpec = TableSpec(name: "Dog", columns: [
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "age", type: .int, isIndexed: true),
        ColumnSpec(name: "owner", type: .link, isNullable: true, linkTarget: "Person"),
    ], primaryKey: "name", linkingObjects: [LinkingObjectsSpec(name: "owners", originTable: "Person", originProperty: "dogs")])

    static func addPerson(_ t: Table, _ i: Int64) throws {
        let k = try t.create(primaryKey: .int(i))
        try t.set(k, 1, .string(["Ali", "Bo", "Émile", "", "日本", "x"][Int(i) % 6]))
        try t.set(k, 2, i % 2 == 0 ? .null : .int(i * 11))
        try t.set(k, 3, .timestamp(Timestamp(seconds: i * 1000 - 3000, nanoseconds: Int32(i))))
        try t.set(k, 4, i % 3 == 0 ? .null : .binary([UInt8(i), 0, 255]))
        try t.set(k, 5, .uuid(UUID(uuid: (UInt8(i), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))))
        try t.setList(k, 6, (0..<Int(i % 4)).map { .string("t\($0)") })
        try t.set(k, 8, .float(Float(i) * 1.5))
        try t.set(k, 9, i % 2 == 1 ? .null : .double(Double(i) / 7))
        try t.set(k, 10, .bool(i % 2 == 0))
        try t.set(k, 11, .objectId(ObjectId(bytes: [UInt8](repeating: UInt8(i), count: 12)) ?? ObjectId()))
        try t.setList(k, 12, [.int(i), .null, .int(-i)])
        try t.set(k, 13, .int(i - 3))
    }
}
