@_spi(AtollTesting) import Atoll
import AtollStorage
import AtollTestSupport
import Foundation
import Testing

// Managed lists read and edited element by element (issue 20): count, subscript, iteration,
// append, insert, remove, move and replace, many of them in one write transaction and across
// many, checked against an array model; reopened from the file and verified; rolled back;
// observed; lists of objects and of every primitive type, with nulls.

final class BigListItem: Object {
    @Persisted(primaryKey: true) var id = 0
}

final class BigListOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var ints: List<Int>
    @Persisted var optionalInts: List<Int?>
    @Persisted var strings: List<String>
    @Persisted var optionalStrings: List<String?>
    @Persisted var bools: List<Bool>
    @Persisted var doubles: List<Double?>
    @Persisted var floats: List<Float>
    @Persisted var dates: List<Date?>
    @Persisted var datas: List<Data>
    @Persisted var uuids: List<UUID?>
    @Persisted var objectIds: List<ObjectId>
    @Persisted var decimals: List<Decimal128?>
    @Persisted var mixed: List<AnyRealmValue>
    @Persisted var items: List<BigListItem>
}

/// A seeded generator, so a failing sequence can be replayed.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Applies `steps` random edits to `list` and to an array model alike, checking count and a
/// random element after each edit.
private func randomEdits<E: RealmCollectionValue & Equatable>(_ list: List<E>, _ model: inout [E], steps: Int,
                                                            rng: inout SeededGenerator, make: (inout SeededGenerator) -> E) {
    for _ in 0..<steps {
        let op = Int.random(in: 0..<10, using: &rng)
        switch op {
        case 0...3:
            let e = make(&rng)
            list.append(e)
            model.append(e)
        case 4, 5:
            let e = make(&rng)
            let i = Int.random(in: 0...model.count, using: &rng)
            list.insert(e, at: i)
            model.insert(e, at: i)
        case 6, 7:
            guard !model.isEmpty else { continue }
            let i = Int.random(in: 0..<model.count, using: &rng)
            list.remove(at: i)
            model.remove(at: i)
        case 8:
            guard !model.isEmpty else { continue }
            let e = make(&rng)
            let i = Int.random(in: 0..<model.count, using: &rng)
            list[i] = e
            model[i] = e
        default:
            guard !model.isEmpty else { continue }
            let from = Int.random(in: 0..<model.count, using: &rng), to = Int.random(in: 0..<model.count, using: &rng)
            list.move(from: from, to: to)
            model.insert(model.remove(at: from), at: to)
        }
        #expect(list.count == model.count)
        if !model.isEmpty {
            let i = Int.random(in: 0..<model.count, using: &rng)
            #expect(list[i] == model[i], "element \(i)")
        }
    }
}

@Suite struct LargeListTests {
    private static func configuration(_ directory: TemporaryDirectory, key: Data? = nil) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: directory.file("lists.atoll")), encryptionKey: key,
                            objectTypes: [BigListOwner.self, BigListItem.self])
    }

    private static func verify(_ directory: TemporaryDirectory, key: Data? = nil) throws {
        var c = DatabaseConfiguration(path: directory.file("lists.atoll"))
        if let key { c.encryptionKey = try EncryptionKey(bytes: key) }
        _ = try Database.open(c).verify()
    }

    @Test func randomEditsInOneWriteAndAcrossWritesMatchAnArray() throws {
        let directory = TemporaryDirectory()
        var rng = SeededGenerator(state: 20)
        var model: [Int] = []
        do {
            let realm = try Realm(configuration: Self.configuration(directory))
            let owner = try realm.write { realm.create(BigListOwner.self, value: ["id": 1]) }
            // Thousands of edits in one transaction: the list grows well past one leaf's worth.
            try realm.write { randomEdits(owner.ints, &model, steps: 3_000, rng: &rng) { Int.random(in: -1_000...1_000, using: &$0) } }
            #expect(Array(owner.ints) == model)
            // Then many small transactions on the committed list.
            for _ in 0..<60 {
                try realm.write { randomEdits(owner.ints, &model, steps: 5, rng: &rng) { Int.random(in: -1_000...1_000, using: &$0) } }
                #expect(owner.ints.count == model.count)
            }
            #expect(Array(owner.ints) == model)
            // Shrinking to empty and growing again.
            try realm.write {
                while !owner.ints.isEmpty { owner.ints.remove(at: owner.ints.count / 2) }
                model.removeAll()
                randomEdits(owner.ints, &model, steps: 500, rng: &rng) { Int.random(in: 0...9, using: &$0) }
            }
            #expect(Array(owner.ints) == model)
        }
        try Self.verify(directory)
        let reopened = try Realm(configuration: Self.configuration(directory))
        let owner = try #require(reopened.object(ofType: BigListOwner.self, forPrimaryKey: 1))
        #expect(owner.ints.count == model.count)
        #expect(Array(owner.ints) == model)
        #expect(owner.ints.indices.map { owner.ints[$0] } == model)
    }

    @Test func listsOfObjectsFollowTheModelAndKeepTheirTargets() throws {
        let directory = TemporaryDirectory()
        var rng = SeededGenerator(state: 21)
        var model: [Int] = []
        let realm = try Realm(configuration: Self.configuration(directory))
        let (owner, items) = try realm.write {
            (realm.create(BigListOwner.self, value: ["id": 1]), (0..<50).map { realm.create(BigListItem.self, value: ["id": $0]) })
        }
        var objects: [BigListItem] = []
        try realm.write { randomEdits(owner.items, &objects, steps: 1_500, rng: &rng) { items[Int.random(in: 0..<50, using: &$0)] } }
        model = objects.map(\.id)
        #expect(owner.items.map(\.id) == model)
        for _ in 0..<20 {
            try realm.write { randomEdits(owner.items, &objects, steps: 5, rng: &rng) { items[Int.random(in: 0..<50, using: &$0)] } }
        }
        model = objects.map(\.id)
        #expect(owner.items.map(\.id) == model)
        // Deleting a target removes it from the list everywhere it is listed.
        try realm.write { realm.delete(items[7]) }
        model.removeAll { $0 == 7 }
        #expect(owner.items.map(\.id) == model)
        try Self.verify(directory)
    }

    @Test func everyPrimitiveTypeAndNullsFollowTheModel() throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: Self.configuration(directory))
        let owner = try realm.write { realm.create(BigListOwner.self, value: ["id": 1]) }
        var rng = SeededGenerator(state: 22)
        func run<E: RealmCollectionValue & Equatable>(_ list: List<E>, _ make: (inout SeededGenerator) -> E) throws {
            var model: [E] = []
            try realm.write { randomEdits(list, &model, steps: 400, rng: &rng, make: make) }
            for _ in 0..<5 { try realm.write { randomEdits(list, &model, steps: 10, rng: &rng, make: make) } }
            #expect(Array(list) == model, "\(E.self)")
        }
        func maybe<T>(_ rng: inout SeededGenerator, _ value: (inout SeededGenerator) -> T) -> T? {
            Bool.random(using: &rng) ? value(&rng) : nil
        }
        try run(owner.optionalInts) { r in maybe(&r) { g in Int.random(in: .min ... .max, using: &g) } }
        try run(owner.strings) { String(repeating: "s", count: Int.random(in: 0...40, using: &$0)) }
        try run(owner.optionalStrings) { r in maybe(&r) { g in "v\(Int.random(in: 0...999, using: &g))" } }
        try run(owner.bools) { Bool.random(using: &$0) }
        try run(owner.doubles) { r in maybe(&r) { g in Double.random(in: -1e9...1e9, using: &g) } }
        try run(owner.floats) { Float.random(in: -1e3...1e3, using: &$0) }
        try run(owner.dates) { r in maybe(&r) { g in Date(timeIntervalSince1970: Double(Int.random(in: 0...2_000_000_000, using: &g))) } }
        try run(owner.datas) { Data((0..<Int.random(in: 0...20, using: &$0)).map { UInt8(truncatingIfNeeded: $0) }) }
        try run(owner.uuids) { r in maybe(&r) { _ in UUID() } }
        try run(owner.objectIds) { _ in ObjectId.generate() }
        try run(owner.decimals) { r in maybe(&r) { g in Decimal128(Int.random(in: -99_999...99_999, using: &g)) } }
        try run(owner.mixed) { rng in
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: return .none
            case 1: return .int(Int.random(in: -5...5, using: &rng))
            case 2: return .string("m\(Int.random(in: 0...9, using: &rng))")
            default: return .double(Double(Int.random(in: 0...9, using: &rng)))
            }
        }
        try Self.verify(directory)
    }

    @Test func encryptedListsReopenAndVerify() throws {
        let directory = TemporaryDirectory()
        let key = Data((0..<64).map { UInt8($0 * 3 & 0xFF) })
        var rng = SeededGenerator(state: 23)
        var model: [Int] = []
        do {
            let realm = try Realm(configuration: Self.configuration(directory, key: key))
            let owner = try realm.write { realm.create(BigListOwner.self, value: ["id": 1]) }
            try realm.write { randomEdits(owner.ints, &model, steps: 2_000, rng: &rng) { Int.random(in: .min ... .max, using: &$0) } }
            for _ in 0..<10 { try realm.write { randomEdits(owner.ints, &model, steps: 5, rng: &rng) { Int.random(in: 0...9, using: &$0) } } }
        }
        try Self.verify(directory, key: key)
        let realm = try Realm(configuration: Self.configuration(directory, key: key))
        let owner = try #require(realm.object(ofType: BigListOwner.self, forPrimaryKey: 1))
        #expect(Array(owner.ints) == model)
    }

    @Test func aRolledBackWriteLeavesTheListAsItWas() throws {
        let directory = TemporaryDirectory()
        let realm = try Realm(configuration: Self.configuration(directory))
        let owner = try realm.write { realm.create(BigListOwner.self, value: ["id": 1]) }
        try realm.write { owner.ints.append(objectsIn: 0..<1_000) }
        let before = Array(0..<1_000)
        realm.beginWrite()
        for i in 0..<500 { owner.ints.append(i) }
        owner.ints.remove(at: 3)
        owner.ints.insert(-1, at: 0)
        owner.ints.move(from: 0, to: 900)
        owner.ints[10] = 77
        #expect(owner.ints.count == 1_500)
        realm.cancelWrite()
        #expect(owner.ints.count == 1_000)
        #expect(Array(owner.ints) == before)

        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try realm.write {
                owner.ints.removeAll()
                for i in 0..<2_000 { owner.ints.append(i * 2) }
                throw Abandon()
            }
        }
        #expect(Array(owner.ints) == before)
        try Self.verify(directory)
        let reopened = try Realm(configuration: Self.configuration(directory))
        #expect(Array(try #require(reopened.object(ofType: BigListOwner.self, forPrimaryKey: 1)).ints) == before)
    }

    @Test func manyEditsInOneWriteAreObservedAtTheirPositions() throws {
        let realm = try Realm(configuration: Self.configuration(TemporaryDirectory()))
        let owner = try realm.write { realm.create(BigListOwner.self, value: ["id": 1]) }
        try realm.write { owner.ints.append(objectsIn: 0..<2_000) }
        let log = ChangeLog<List<Int>>()
        let token = owner.ints.observe { log.record($0, count: \.count) }
        try realm.write {
            owner.ints.append(2_000)           // insertion at 2000
            owner.ints.insert(-1, at: 10)      // insertion at 10
            owner.ints.remove(at: 0)           // deletion of old 0
            owner.ints[500] = -500             // old 500 modified (it is at 500 after +1 -1)
        }
        #expect(log.wait { $0.updates.count == 1 })
        #expect(log.updates == [Change(deletions: [0], insertions: [9, 2_000], modifications: [500])])
        #expect(log.counts.last == 2_001)
        #expect(owner.ints[9] == -1 && owner.ints[500] == -500 && owner.ints[2_000] == 2_000)
        token.invalidate()
    }
}
