import Foundation
import Testing
@testable import AtollStorage

/// Random table operations (create, set, erase, list changes, clear, rollback) checked against a
/// reference model after every transaction, with `verify` (every checksum, tree invariant, index
/// count and page) passing after every commit.
@Suite struct TablePropertyTests {
    typealias Row = [StorageValue]

    static let personSpec = TableSpec(name: "Person", columns: [
        ColumnSpec(name: "name", type: .string, isIndexed: true),
        ColumnSpec(name: "age", type: .int, isNullable: true, isIndexed: true, intBits: 16),
        ColumnSpec(name: "height", type: .float, isNullable: true),
        ColumnSpec(name: "weight", type: .double),
        ColumnSpec(name: "born", type: .timestamp, isNullable: true),
        ColumnSpec(name: "photo", type: .binary, isNullable: true),
        ColumnSpec(name: "uid", type: .uuid),
        ColumnSpec(name: "best", type: .link, isNullable: true, linkTarget: "Person"),
        ColumnSpec(name: "friends", type: .link, isList: true, linkTarget: "Person"),
        ColumnSpec(name: "tags", type: .string, isList: true),
        ColumnSpec(name: "flag", type: .bool),
    ])

    struct Rng: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func randomString(_ rng: inout Rng) -> String {
        let roll = Int.random(in: 0..<100, using: &rng)
        let length = roll < 80 ? Int.random(in: 0...12, using: &rng) : roll < 97 ? Int.random(in: 13...600, using: &rng) : Int.random(in: 1000...5000, using: &rng)
        var s = ""
        let alphabet = Array("abcdeéü日本 ")
        for _ in 0..<length { s.append(alphabet[Int.random(in: 0..<alphabet.count, using: &rng)]) }
        return s
    }

    static func randomValue(_ c: Int, _ rng: inout Rng, keys: [ObjectKey]) -> StorageValue {
        let col = personSpec.columns[c]
        if col.isNullable && Int.random(in: 0..<5, using: &rng) == 0 { return .null }
        switch c {
        case 0: return .string(randomString(&rng))
        case 1: return .int(Int64.random(in: -32768...32767, using: &rng))
        case 2: return .float(Float(Int.random(in: -1000...1000, using: &rng)) / 4)
        case 3: return .double(Double.random(in: -1e6...1e6, using: &rng))
        case 4: return .timestamp(Timestamp(seconds: Int64.random(in: -1_000_000_000...4_000_000_000, using: &rng), nanoseconds: Int32.random(in: 0..<1_000_000_000, using: &rng)))
        case 5:
            let n = Int.random(in: 0...(Bool.random(using: &rng) ? 40 : 3000), using: &rng)
            var b: [UInt8] = []
            for _ in 0..<n { b.append(UInt8.random(in: 0...255, using: &rng)) }
            return .binary(b)
        case 6:
            var b: [UInt8] = []
            for _ in 0..<16 { b.append(UInt8.random(in: 0...255, using: &rng)) }
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case 7:
            guard let k = keys.randomElement(using: &rng) else { return .null }
            return .link(k)
        case 10: return .bool(Bool.random(using: &rng))
        default: return .null
        }
    }

    static func defaultRow() -> Row {
        [.string(""), .null, .null, .double(0), .null, .null,
         .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))), .null, .null, .null, .bool(false)]
    }

    struct Model {
        var rows: [ObjectKey: Row] = [:]
        var friends: [ObjectKey: [StorageValue]] = [:]
        var tags: [ObjectKey: [StorageValue]] = [:]

        mutating func erase(_ k: ObjectKey) {
            rows[k] = nil; friends[k] = nil; tags[k] = nil
            for (o, var row) in rows where row[7] == .link(k) { row[7] = .null; rows[o] = row }
            for (o, list) in friends { friends[o] = list.filter { $0 != .link(k) } }
        }
    }

    func check(_ t: Table, _ model: Model) throws {
        #expect(t.count == model.rows.count)
        #expect(try t.objectKeys() == model.rows.keys.sorted())
        for (k, row) in model.rows {
            for c in row.indices where !Self.personSpec.columns[c].isList {
                #expect(try t.value(k, c) == row[c], "column \(c) of \(k)")
            }
            #expect(try t.listValues(k, 8) == (model.friends[k] ?? []))
            #expect(try t.listValues(k, 9) == (model.tags[k] ?? []))
        }
        // Index lookups agree with a scan of the model.
        for (_, row) in model.rows.prefix(40) {
            let expected = model.rows.filter { $0.value[0] == row[0] }.map(\.key).sorted()
            #expect(try t.findAll(indexed: 0, equalTo: row[0]) == expected)
            let expectedAge = model.rows.filter { $0.value[1] == row[1] }.map(\.key).sorted()
            #expect(try t.findAll(indexed: 1, equalTo: row[1]) == expectedAge)
        }
        // Backlinks agree with the model's links.
        for k in model.rows.keys.prefix(20) {
            let links = model.rows.values.filter { $0[7] == .link(k) }.count + model.friends.values.reduce(0) { $0 + $1.filter { $0 == .link(k) }.count }
            #expect(try t.backlinkCount(to: k) == links)
        }
    }

    /// `ATOLL_PROPERTY_SEEDS` runs more seeds (default 4).
    static let seeds: [UInt64] = (1...(ProcessInfo.processInfo.environment["ATOLL_PROPERTY_SEEDS"].flatMap(Int.init) ?? 4)).map { UInt64($0) * 11 }

    @Test(arguments: seeds)
    func randomOperationsMatchModel(seed: UInt64) throws {
        var rng = Rng(state: seed)
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "table-prop-\(seed)-\(UUID())"))
        let setup = try db.beginWrite()
        let tk = try setup.createTable(Self.personSpec)
        try setup.commit()
        var model = Model()
        for _ in 0..<40 {
            let w = try db.beginWrite()
            let t = try w.table(tk)
            var working = model
            for _ in 0..<Int.random(in: 1...60, using: &rng) {
                let keys = working.rows.keys.sorted()
                let roll = Int.random(in: 0..<100, using: &rng)
                if roll < 35 || keys.isEmpty {
                    let k = try t.create()
                    working.rows[k] = Self.defaultRow()
                    for c in [0, 1, 3, 10] where Bool.random(using: &rng) {
                        let v = Self.randomValue(c, &rng, keys: keys)
                        try t.set(k, c, v)
                        working.rows[k]?[c] = v
                    }
                } else if let k = keys.randomElement(using: &rng) {
                    if roll < 70 {
                        let c = [0, 1, 2, 3, 4, 5, 6, 7, 10].randomElement(using: &rng) ?? 0
                        let v = Self.randomValue(c, &rng, keys: keys)
                        try t.set(k, c, v)
                        working.rows[k]?[c] = v
                    } else if roll < 80 {
                        if let f = keys.randomElement(using: &rng) {
                            var list = working.friends[k] ?? []
                            let at = Int.random(in: 0...list.count, using: &rng)
                            try t.listInsert(k, 8, at: at, .link(f))
                            list.insert(.link(f), at: at)
                            working.friends[k] = list
                        }
                    } else if roll < 88 {
                        var list = working.tags[k] ?? []
                        if !list.isEmpty && Bool.random(using: &rng) {
                            let at = Int.random(in: 0..<list.count, using: &rng)
                            try t.listRemove(k, 9, at: at)
                            list.remove(at: at)
                        } else {
                            let v = StorageValue.string(Self.randomString(&rng))
                            try t.listInsert(k, 9, at: list.count, v)
                            list.append(v)
                        }
                        working.tags[k] = list
                    } else if roll < 995 / 10 || Int.random(in: 0..<4, using: &rng) != 0 {
                        try t.erase(k)
                        working.erase(k)
                    } else {
                        try t.clear()
                        working = Model()
                    }
                }
            }
            // Errors leave nothing half-done: a required value set to nil is rejected.
            if let k = working.rows.keys.first {
                #expect(throws: AtollError.self) { try t.set(k, 3, .null) }
                #expect(throws: AtollError.self) { try t.set(k, 1, .int(100_000)) }
            }
            try check(t, working)
            if Int.random(in: 0..<6, using: &rng) == 0 {
                w.rollback()
            } else {
                try w.commit()
                model = working
                let report = try db.verify()
                #expect(report.tables.first?.objects == model.rows.count)
            }
            let r = try db.beginRead()
            try check(try r.table(tk), model)
            r.close()
        }
    }

    @Test func schemaChangesKeepData() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "schema-\(UUID())"))
        let w = try db.beginWrite()
        let tk = try w.createTable(Self.personSpec)
        let t = try w.table(tk)
        var keys: [ObjectKey] = []
        for i in 0..<500 {
            let k = try t.create()
            try t.set(k, 0, .string("p\(i)"))
            try t.set(k, 1, .int(Int64(i % 50)))
            if let prev = keys.last { try t.set(k, 7, .link(prev)); try t.listInsert(k, 8, at: 0, .link(prev)) }
            keys.append(k)
        }
        try w.commit()

        let w2 = try db.beginWrite()
        let c = try w2.addColumn(tk, ColumnSpec(name: "nick", type: .string, isNullable: true, isIndexed: true))
        try w2.removeColumn(tk, 2) // height: moves every later column (links included) one left
        try w2.renameColumn(tk, 0, to: "fullName")
        try w2.commit()
        _ = try db.verify()

        let r = try db.beginRead()
        defer { r.close() }
        let t2 = try r.table(tk)
        #expect(t2.spec.columns.map(\.name) == ["fullName", "age", "weight", "born", "photo", "uid", "best", "friends", "tags", "flag", "nick"])
        #expect(c == 11)
        for (i, k) in keys.enumerated() {
            #expect(try t2.value(k, 0) == .string("p\(i)"))
            #expect(try t2.value(k, 1) == .int(Int64(i % 50)))
            #expect(try t2.value(k, 10) == .null)
            if i > 0 { #expect(try t2.value(k, 6) == .link(keys[i - 1])) }
        }
        #expect(try t2.backlinkCount(to: keys[0]) == 2)
        #expect(try t2.backlinks(to: keys[0], from: tk, column: 6) == [keys[1]])
        #expect(try t2.findAll(indexed: 10, equalTo: .null).count == 500)
    }
}
