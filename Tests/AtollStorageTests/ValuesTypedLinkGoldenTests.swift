import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// The golden file of typed links in mixed values (AnyRealmValue.object, Fixtures/values-typedlink):
/// holders whose indexed mixed property, list, set and map link dogs (a class with a primary key)
/// and cats (without one) among other values; some targets were deleted before the file was
/// written, so their values are already gone. Every later Atoll must open it, read the same values,
/// find them through the index and keep their backlinks: deleting a target still removes it.
/// `ATOLL_WRITE_GOLDEN_VALUES=1` regenerates it (only when the encoding is meant to change, which
/// it must not).
@Suite struct ValuesTypedLinkGoldenTests {
    static let fixture = GoldenFixture.path("values-typedlink")

    static let holderSpec = TableSpec(name: "Holder", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "value", type: .mixed, isNullable: true, isIndexed: true),
        ColumnSpec(name: "list", type: .mixed, isNullable: true, isList: true),
        ColumnSpec(name: "set", type: .mixed, isNullable: true, isSet: true),
        ColumnSpec(name: "map", type: .mixed, isNullable: true, isMap: true),
    ], primaryKey: "id")
    static let dogSpec = TableSpec(name: "Dog", columns: [ColumnSpec(name: "id", type: .int)], primaryKey: "id")
    static let catSpec = TableSpec(name: "Cat", columns: [ColumnSpec(name: "name", type: .string)])
    static let holders = 60, dogs = 10, cats = 5

    /// Dog i is deleted when i % 4 == 3 (dogs 3 and 7).
    static func dogSurvives(_ i: Int) -> Bool { i % 4 != 3 }

    /// What holder i was given: links to dogs and cats (by number) and plain values, in order.
    enum Given: Equatable { case dog(Int), cat(Int), value(StorageValue) }
    static func given(_ i: Int) -> (value: Given, list: [Given], set: [Given], map: [(String, Given)]) {
        let value: Given = i % 3 == 0 ? .dog(i % dogs) : i % 3 == 1 ? .cat(i % cats) : .value(.int(Int64(i)))
        let list: [Given] = [.dog((i + 1) % dogs), .value(.string("s\(i)")), .cat((i + 2) % cats), .dog((i + 3) % dogs)]
        let set: [Given] = [.dog(i % dogs), .dog((i + 5) % dogs), .value(.bool(i % 2 == 0))]
        let map: [(String, Given)] = [("a", .dog((i + 7) % dogs)), ("b", .cat(i % cats)), ("c", .value(.double(Double(i) / 2)))]
        return (value, list, set, map)
    }

    @Test func writeGoldenFileWhenAsked() throws {
        let fixture = Self.fixture
        guard let db = try GoldenFixture.startRegenerating(fixture, when: "ATOLL_WRITE_GOLDEN_VALUES") else { return }
        let w = try db.beginWrite()
        let h = try w.table(w.createTable(Self.holderSpec))
        let d = try w.table(w.createTable(Self.dogSpec))
        let c = try w.table(w.createTable(Self.catSpec))
        let dogKeys = try (0..<Self.dogs).map { try d.create(primaryKey: .int(Int64($0))) }
        let catKeys = try (0..<Self.cats).map { _ in try c.create() }
        func stored(_ g: Given) -> StorageValue {
            switch g {
            case .dog(let n): .typedLink(d.key, dogKeys[n])
            case .cat(let n): .typedLink(c.key, catKeys[n])
            case .value(let v): v
            }
        }
        for i in 0..<Self.holders {
            let k = try h.create(primaryKey: .int(Int64(i)))
            let g = Self.given(i)
            try h.set(k, 1, stored(g.value))
            try h.setList(k, 2, g.list.map(stored))
            for v in g.set { _ = try h.setInsert(k, 3, stored(v)) }
            for (key, v) in g.map { try h.mapSet(k, 4, key: key, stored(v)) }
        }
        for n in 0..<Self.dogs where !Self.dogSurvives(n) { try d.erase(dogKeys[n]) }
        try w.commit()
        try GoldenFixture.finishRegenerating(fixture)
        #expect(try db.verify().tables.count == 3)
    }

    @Test func theGoldenFileReadsTheSameLinksAndKeepsTheirBacklinks() throws {
        let dir = TemporaryDirectory()
        let copy = try GoldenFixture.copy(Self.fixture, into: dir)
        let db = try Database.open(DatabaseConfiguration(path: copy))
        #expect(try db.verify().tables.count == 3)
        let r = try db.beginRead()
        let h = try #require(try r.table(named: "Holder")), d = try #require(try r.table(named: "Dog")), c = try #require(try r.table(named: "Cat"))
        #expect(h.spec == Self.holderSpec)
        let catKeys = try c.objectKeys()
        #expect(catKeys.count == Self.cats)
        // What each given value reads as now: a deleted dog is gone (nil in a property or a map).
        func now(_ g: Given) -> StorageValue? {
            switch g {
            case .dog(let n): Self.dogSurvives(n) ? .typedLink(d.key, ObjectKey(primaryKey: Int64(n))) : nil
            case .cat(let n): .typedLink(c.key, catKeys[n])
            case .value(let v): v
            }
        }
        var linksToDog0 = 0
        for i in 0..<Self.holders {
            let k = ObjectKey(primaryKey: Int64(i))
            let g = Self.given(i)
            #expect(try h.value(k, 1) == (now(g.value) ?? .null), "value of \(i)")
            #expect(try h.listValues(k, 2) == g.list.compactMap(now), "list of \(i)")
            #expect(try h.listValues(k, 3) == SortedSearch.sortedUnique(g.set.compactMap(now)), "set of \(i)")
            #expect(try h.mapEntries(k, 4).map(\.value) == g.map.map { now($0.1) ?? .null }, "map of \(i)")
            let all = [g.value] + g.list + g.set + g.map.map(\.1)
            linksToDog0 += all.filter { $0 == .dog(0) }.count
        }
        #expect(try d.backlinkCount(to: ObjectKey(primaryKey: 0)) == linksToDog0)
        let dog0 = StorageValue.typedLink(d.key, ObjectKey(primaryKey: 0))
        #expect(Set(try h.findAll(indexed: 1, equalTo: dog0)) == Set((0..<Self.holders).filter { $0 % 3 == 0 && $0 % Self.dogs == 0 }.map { ObjectKey(primaryKey: Int64($0)) }))
        r.close()

        // The stored backlinks still work: deleting dog 0 removes every link to it.
        let w = try db.beginWrite()
        try #require(try w.table(named: "Dog")).erase(ObjectKey(primaryKey: 0))
        let h2 = try #require(try w.table(named: "Holder"))
        for i in 0..<Self.holders {
            let k = ObjectKey(primaryKey: Int64(i))
            #expect(try !h2.listValues(k, 2).contains(dog0) && !h2.listValues(k, 3).contains(dog0) && h2.value(k, 1) != dog0)
            #expect(try !h2.mapEntries(k, 4).map(\.value).contains(dog0))
        }
        try w.commit()
        #expect(try db.verify().tables.count == 3)
    }
}
