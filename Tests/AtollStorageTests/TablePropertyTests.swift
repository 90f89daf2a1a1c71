import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

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


    static func randomString(_ rng: inout SeededGenerator) -> String {
        let roll = Int.random(in: 0..<100, using: &rng)
        let length = roll < 80 ? Int.random(in: 0...12, using: &rng) : roll < 97 ? Int.random(in: 13...600, using: &rng) : Int.random(in: 1000...5000, using: &rng)
        var s = ""
        let alphabet = Array("abcdeéü日本 ")
        for _ in 0..<length { s.append(alphabet[Int.random(in: 0..<alphabet.count, using: &rng)]) }
        return s
    }

    static func randomBytes(_ rng: inout SeededGenerator, _ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) } }

    // MARK: the model test: every column type, two linked tables

    /// Every column type: ints of 8, 16, 32 and 64 bits, float, double, string, binary,
    /// timestamp, uuid, objectId, bool, optionals, links within and across tables, lists of
    /// links and of primitives (optional elements included), three search indexes.
    static let memberSpec = TableSpec(name: "Member", columns: [
        ColumnSpec(name: "name", type: .string, isIndexed: true),                       // 0
        ColumnSpec(name: "age", type: .int, isNullable: true, isIndexed: true, intBits: 16),
        ColumnSpec(name: "height", type: .float, isNullable: true),
        ColumnSpec(name: "weight", type: .double),
        ColumnSpec(name: "born", type: .timestamp, isNullable: true),
        ColumnSpec(name: "photo", type: .binary, isNullable: true),                      // 5
        ColumnSpec(name: "uid", type: .uuid),
        ColumnSpec(name: "best", type: .link, isNullable: true, linkTarget: "Member"),
        ColumnSpec(name: "friends", type: .link, isList: true, linkTarget: "Member"),
        ColumnSpec(name: "tags", type: .string, isList: true),
        ColumnSpec(name: "flag", type: .bool),                                           // 10
        ColumnSpec(name: "small", type: .int, intBits: 8),
        ColumnSpec(name: "mid", type: .int, isNullable: true, intBits: 32),
        ColumnSpec(name: "big", type: .int, isIndexed: true),
        ColumnSpec(name: "oid", type: .objectId, isNullable: true),
        ColumnSpec(name: "scores", type: .int, isNullable: true, isList: true),          // 15
        ColumnSpec(name: "ratios", type: .double, isList: true),
        ColumnSpec(name: "pet", type: .link, isNullable: true, linkTarget: "Pet"),
        ColumnSpec(name: "pets", type: .link, isList: true, linkTarget: "Pet"),
        ColumnSpec(name: "moments", type: .timestamp, isList: true),
    ])

    static let petSpec = TableSpec(name: "Pet", columns: [
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "age", type: .int, isNullable: true),
    ], primaryKey: "name")

    static let memberScalars = [0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 17]
    static let memberLists = [8, 9, 15, 16, 18, 19]

    static func defaultMemberRow() -> Row {
        Self.memberSpec.columns.map { c in
            if c.isList || c.isNullable { return .null }
            switch c.type {
            case .string: return .string("")
            case .double: return .double(0)
            case .bool: return .bool(false)
            case .int: return .int(0)
            case .uuid: return .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
            default: return .null
            }
        }
    }

    struct World {
        var members: [ObjectKey: Row] = [:]
        var lists: [ObjectKey: [Int: [StorageValue]]] = [:]
        var pets: [ObjectKey: Row] = [:]

        func list(_ k: ObjectKey, _ c: Int) -> [StorageValue] { lists[k]?[c] ?? [] }

        mutating func eraseMember(_ k: ObjectKey) {
            members[k] = nil
            lists[k] = nil
            for (o, row) in members where row[7] == .link(k) { members[o]?[7] = .null }
            for o in lists.keys { let kept = list(o, 8).filter { $0 != .link(k) }; lists[o]?[8] = kept }
        }

        mutating func erasePet(_ k: ObjectKey) {
            pets[k] = nil
            for (o, row) in members where row[17] == .link(k) { members[o]?[17] = .null }
            for o in lists.keys { let kept = list(o, 18).filter { $0 != .link(k) }; lists[o]?[18] = kept }
        }

        /// Links from members to `k` through columns `single` and `many`.
        func linkCount(to k: ObjectKey, single: Int, many: Int) -> Int {
            members.values.filter { $0[single] == .link(k) }.count
                + lists.values.reduce(0) { $0 + ($1[many] ?? []).filter { $0 == .link(k) }.count }
        }
    }

    static func randomScalar(_ c: Int, _ rng: inout SeededGenerator, _ world: World) -> StorageValue {
        let col = memberSpec.columns[c]
        if col.isNullable && Int.random(in: 0..<5, using: &rng) == 0 { return .null }
        switch c {
        case 0: return .string(randomString(&rng))
        case 1: return .int(Int64.random(in: -32768...32767, using: &rng))
        case 2: return .float(Float(Int.random(in: -1000...1000, using: &rng)) / 4)
        case 3: return .double(Double.random(in: -1e6...1e6, using: &rng))
        case 4: return .timestamp(Timestamp(seconds: Int64.random(in: -1_000_000_000...4_000_000_000, using: &rng), nanoseconds: Int32.random(in: 0..<1_000_000_000, using: &rng)))
        case 5: return .binary(randomBytes(&rng, Int.random(in: 0...(Bool.random(using: &rng) ? 40 : 3000), using: &rng)))
        case 6:
            let b = randomBytes(&rng, 16)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case 7: return world.members.keys.randomElement(using: &rng).map { .link($0) } ?? .null
        case 10: return .bool(Bool.random(using: &rng))
        case 11: return .int(Int64.random(in: -128...127, using: &rng))
        case 12: return .int(Int64.random(in: Int64(Int32.min)...Int64(Int32.max), using: &rng))
        case 13:
            // Extremes and a small range, so the index sees duplicates.
            return .int([Int64.min, Int64.max, 0, Int64.random(in: -5...5, using: &rng), Int64.random(in: .min ... .max, using: &rng)].randomElement(using: &rng) ?? 0)
        case 14: return ObjectId(bytes: randomBytes(&rng, 12)).map { .objectId($0) } ?? .null
        case 17: return world.pets.keys.randomElement(using: &rng).map { .link($0) } ?? .null
        default: return .null
        }
    }

    static func randomElement(_ c: Int, _ rng: inout SeededGenerator, _ world: World) -> StorageValue? {
        switch c {
        case 8: return world.members.keys.randomElement(using: &rng).map { .link($0) }
        case 9: return .string(randomString(&rng))
        case 15: return Int.random(in: 0..<4, using: &rng) == 0 ? .null : .int(Int64.random(in: -1000...1000, using: &rng))
        case 16: return .double(Double.random(in: -1...1, using: &rng))
        case 18: return world.pets.keys.randomElement(using: &rng).map { .link($0) }
        case 19: return .timestamp(Timestamp(seconds: Int64.random(in: 0...2_000_000_000, using: &rng), nanoseconds: 0))
        default: return nil
        }
    }

    func checkMember(_ t: Table, _ k: ObjectKey, _ world: World, _ context: @autoclosure () -> String) throws {
        guard let row = world.members[k] else {
            #expect(try !t.contains(k), "\(context()): erased member \(k) still exists")
            return
        }
        for c in Self.memberScalars {
            let stored = try t.value(k, c)
            #expect(stored == row[c], "\(context()): \(Self.memberSpec.columns[c].name) of \(k) is \(stored), expected \(row[c])")
        }
        for c in Self.memberLists {
            #expect(try t.listValues(k, c) == world.list(k, c), "\(context()): list \(Self.memberSpec.columns[c].name) of \(k)")
        }
    }

    func checkWorld(_ members: Table, _ pets: Table, _ world: World) throws {
        #expect(members.count == world.members.count)
        #expect(pets.count == world.pets.count)
        #expect(try members.objectKeys() == world.members.keys.sorted())
        #expect(try pets.objectKeys() == world.pets.keys.sorted())
        for k in world.members.keys { try checkMember(members, k, world, "world") }
        for (k, row) in world.pets {
            #expect(try pets.value(k, 0) == row[0])
            #expect(try pets.value(k, 1) == row[1])
            #expect(try pets.find(primaryKey: row[0]) == k)
            #expect(try pets.backlinkCount(to: k) == world.linkCount(to: k, single: 17, many: 18))
        }
        // Index lookups agree with a scan of the model, for values present and absent.
        for c in [0, 1, 13] {
            var probes = Set(world.members.values.prefix(30).map { $0[c] })
            probes.insert(c == 0 ? .string("absent") : .int(12_345))
            if c == 1 { probes.insert(.null) }
            for v in probes {
                let expected = world.members.filter { $0.value[c] == v }.map(\.key).sorted()
                #expect(try members.findAll(indexed: c, equalTo: v) == expected, "index of \(Self.memberSpec.columns[c].name) for \(v)")
            }
        }
        for k in world.members.keys { #expect(try members.backlinkCount(to: k) == world.linkCount(to: k, single: 7, many: 8)) }
    }

    /// `ATOLL_PROPERTY_SEEDS` runs more seeds (default 4).
    static let seeds: [UInt64] = (1...max(1, ProcessInfo.processInfo.environment["ATOLL_PROPERTY_SEEDS"].flatMap(Int.init) ?? 4)).map { UInt64($0) * 11 }

    /// Random transactions of random operations (create, set, add, erase in either table with
    /// link nullification, every list operation, clear, invalid operations, rollback) checked
    /// against a model after every operation (the touched object, counts) and every transaction
    /// (every object, indexes, backlinks); `verify` after every commit, and a fresh snapshot
    /// must equal the model.
    @Test(arguments: seeds)
    func randomOperationsMatchModel(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "table-prop-\(seed)-\(UUID())"))
        let setup = try db.beginWrite()
        let mk = try setup.createTable(Self.memberSpec)
        let pk = try setup.createTable(Self.petSpec)
        try setup.commit()
        var world = World()
        var nextPet = 0
        for txn in 0..<30 {
            let w = try db.beginWrite()
            let members = try w.table(mk), pets = try w.table(pk)
            var working = world
            for step in 0..<Int.random(in: 1...80, using: &rng) {
                let context = "seed \(seed) txn \(txn) step \(step)"
                let keys = working.members.keys.sorted()
                let roll = Int.random(in: 0..<1000, using: &rng)
                var touched: ObjectKey?
                if roll < 300 || keys.isEmpty {
                    let k = try members.create()
                    working.members[k] = Self.defaultMemberRow()
                    for c in Self.memberScalars where Int.random(in: 0..<3, using: &rng) == 0 {
                        let v = Self.randomScalar(c, &rng, working)
                        try members.set(k, c, v)
                        working.members[k]?[c] = v
                    }
                    touched = k
                } else if roll < 340 {
                    let name = StorageValue.string("pet \(nextPet)")
                    nextPet += 1
                    let p = try pets.create(primaryKey: name)
                    let age: StorageValue = Bool.random(using: &rng) ? .int(Int64.random(in: 0...20, using: &rng)) : .null
                    try pets.set(p, 1, age)
                    working.pets[p] = [name, age]
                } else if roll < 360, let p = working.pets.keys.randomElement(using: &rng) {
                    try pets.erase(p)
                    working.erasePet(p)
                    #expect(try !pets.contains(p))
                } else if let k = keys.randomElement(using: &rng) {
                    touched = k
                    if roll < 600 {
                        let c = Self.memberScalars.randomElement(using: &rng) ?? 0
                        let v = Self.randomScalar(c, &rng, working)
                        try members.set(k, c, v)
                        working.members[k]?[c] = v
                    } else if roll < 640 {
                        let c = [11, 12, 13].randomElement(using: &rng) ?? 13
                        let delta = Int64.random(in: -3...3, using: &rng)
                        if case .int(let old) = working.members[k]?[c] ?? .null {
                            let bits = Self.memberSpec.columns[c].intBits
                            let (sum, overflow) = old.addingReportingOverflow(delta)
                            let fits = !overflow && (bits == 64 || (sum >= -(Int64(1) << (bits - 1)) && sum < (Int64(1) << (bits - 1))))
                            if fits {
                                try members.addInteger(k, c, delta)
                                working.members[k]?[c] = .int(sum)
                            } else {
                                #expect(throws: AtollError.self, "\(context): overflowing add") { try members.addInteger(k, c, delta) }
                            }
                        } else {
                            #expect(throws: AtollError.self, "\(context): add to nil") { try members.addInteger(k, c, delta) }
                        }
                    } else if roll < 880 {
                        let c = Self.memberLists.randomElement(using: &rng) ?? 9
                        var list = working.list(k, c)
                        let op = Int.random(in: 0..<10, using: &rng)
                        if op < 4 || list.isEmpty {
                            if let v = Self.randomElement(c, &rng, working) {
                                let at = Int.random(in: 0...list.count, using: &rng)
                                try members.listInsert(k, c, at: at, v)
                                list.insert(v, at: at)
                            }
                        } else if op < 5 {
                            let at = Int.random(in: 0..<list.count, using: &rng)
                            if let v = Self.randomElement(c, &rng, working) {
                                try members.listSet(k, c, at: at, v)
                                list[at] = v
                            }
                        } else if op < 7 {
                            let at = Int.random(in: 0..<list.count, using: &rng)
                            try members.listRemove(k, c, at: at)
                            list.remove(at: at)
                        } else if op < 8 {
                            let from = Int.random(in: 0..<list.count, using: &rng), to = Int.random(in: 0..<list.count, using: &rng)
                            try members.listMove(k, c, from: from, to: to)
                            list.insert(list.remove(at: from), at: to)
                        } else if op < 9 {
                            try members.listClear(k, c)
                            list = []
                        } else {
                            let values = (0..<Int.random(in: 0...6, using: &rng)).compactMap { _ in Self.randomElement(c, &rng, working) }
                            try members.setList(k, c, values)
                            list = values
                        }
                        working.lists[k, default: [:]][c] = list
                    } else if roll < 960 {
                        try members.erase(k)
                        working.eraseMember(k)
                    } else if roll < 998 || txn != 25 {
                        // Invalid operations throw and change nothing.
                        switch Int.random(in: 0..<5, using: &rng) {
                        case 0: #expect(throws: AtollError.self) { try members.set(k, 3, .null) }
                        case 1: #expect(throws: AtollError.self) { try members.set(k, 11, .int(128)) }
                        case 2: #expect(throws: AtollError.self) { try members.set(k, 7, .link(ObjectKey(1 << 40))) }
                        case 3: #expect(throws: AtollError.self) { try members.listRemove(k, 9, at: working.list(k, 9).count) }
                        default: #expect(throws: AtollError.self) { try members.set(k, 0, .int(1)) }
                        }
                    } else {
                        try members.clear()
                        for m in working.members.keys { working.members[m] = nil }
                        working.lists = [:]
                        touched = nil
                    }
                }
                // After every step: counts, and the touched object in full.
                #expect(members.count == working.members.count, "\(context): member count")
                #expect(pets.count == working.pets.count, "\(context): pet count")
                if let touched { try checkMember(members, touched, working, context) }
            }
            try checkWorld(members, pets, working)
            if Int.random(in: 0..<6, using: &rng) == 0 {
                w.rollback()
            } else {
                try w.commit()
                world = working
                let report = try db.verify()
                #expect(report.tables.map(\.objects).sorted() == [world.pets.count, world.members.count].sorted())
            }
            let r = try db.beginRead()
            try checkWorld(try r.table(mk), try r.table(pk), world)
            r.close()
        }
        let listed = world.lists.values.reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.count } }
        print("table model, seed \(seed): \(world.members.count) members, \(world.pets.count) pets, \(listed) list elements at the end")
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
