import AtollQuery
import AtollStorage
import Foundation
import Testing

/// realm-core's queries on collections nested in a mixed property (test/test_parser.cpp:
/// Parser_NestedMixedDictionaryList, Parser_NestedDictionaryDeep, Parser_issue7393), with
/// realm-core's data and expected counts: `value.key`, `value['key']`, `value[0]`, `value[*]`,
/// `value[FIRST]`/`[LAST]`/`[SIZE]`, `value.@size`, `value.@keys`, `value.@type`. Left out, as
/// Atoll does not do them yet: comparing `value[*]` with a list literal as a whole
/// (`properties[*] == {1, 2, 3}`), and following an object link found inside a nested collection
/// (`properties.three[1].friend.name`).
@Suite struct NestedMixedQueryTests {
    static let spec = TableSpec(name: "table", columns: [
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "properties", type: .mixed, isNullable: true),
        ColumnSpec(name: "self", type: .link, isNullable: true, linkTarget: "table"),
    ], primaryKey: "name")

    static func dict(_ entries: [String: StorageValue]) -> StorageValue { .mixedMap(entries) }

    /// Parser_NestedMixedDictionaryList's four persons.
    static func beatles() throws -> ConformanceRealm {
        try ConformanceRealm([spec]) { w in
            let t = try #require(try w.table(named: "table"))
            func person(_ name: String, _ properties: StorageValue) throws {
                let k = try t.create(primaryKey: .string(name))
                try t.set(k, 1, properties)
                try t.set(k, 2, .link(k))
            }
            try person("Paul", dict([
                "instruments": .mixedList([
                    dict(["brand": .string("høfner"), "strings": .int(4), "electric": .bool(true)]),
                    dict(["brand": .string("gibson"), "strings": .int(6), "electric": .bool(true)]),
                    dict(["brand": .string("martin"), "strings": .int(12), "electric": .bool(false)]),
                ]),
                "pets": .mixedList([
                    dict(["name": .string("pipper"), "legs": .int(2), "age": .int(4)]),
                    dict(["name": .string("fido"), "legs": .int(4), "age": .int(8)]),
                ]),
            ]))
            try person("John", dict([
                "tickets": .mixedList([]),
                "instruments": .mixedList([
                    dict(["brand": .string("fender"), "strings": .int(6), "electric": .bool(true)]),
                    dict(["brand": .string("gibson"), "color": .string("red"), "strings": .int(6), "electric": .bool(true)]),
                ]),
                "pets": .mixedList([
                    dict(["name": .string("Lady"), "legs": .int(4), "age": .int(6)]),
                    dict(["name": .string("carl"), "legs": .int(0), "age": .int(20)]),
                ]),
            ]))
            try person("George", .mixedList([.int(1), .int(2), .int(3)]))
            try person("Ringo", dict(["Foo": .string("Bar")]))
        }
    }

    @Test func parserNestedMixedDictionaryList() throws {
        let realm = try Self.beatles()
        realm.expectCounts(on: "table", [
            CountCase(1, "properties.instruments[0].strings == 6"),
            CountCase(1, "properties.instruments[0].strings > 5"),
            CountCase(2, "properties.instruments[*].strings == 6"),
            CountCase(1, "properties.instruments[LAST].strings == 6"),
            CountCase(1, "properties.instruments[*].@keys  == 'color'"),
            CountCase(2, "properties.instruments[*].brand  BEGINSWITH 'gi'"),
            CountCase(1, "properties[*][0].legs  == 2"),
            CountCase(1, "properties[*][0].legs  == 4"),
            CountCase(1, "properties[*][*].legs  == 0"),
            CountCase(2, "properties[*][*][*] > 10"),
            CountCase(1, "ANY properties[*] == 2"),
            CountCase(3, "NONE properties[*] == 2"),
            CountCase(2, "properties.@keys == 'instruments'"),
            CountCase(2, "properties.@keys == 'pets'"),
            CountCase(1, "properties.@keys == 'tickets'"),
            CountCase(2, "properties.@size == 3"),
            CountCase(1, "properties.instruments.@size == 2"),
            CountCase(3, "properties.@type == 'object'"),
            CountCase(1, "properties.@type == 'array'"),
            CountCase(4, "properties.@type == 'collection'"),
            CountCase(1, "properties.Foo == 'Bar'"),
        ])
    }

    /// The same data through the other spellings: `['key']`, arguments, `[FIRST]`, `[SIZE]`,
    /// `@count`, `@type` of nested values, and values that are not there.
    @Test func otherSpellingsOfTheSamePaths() throws {
        let realm = try Self.beatles()
        realm.expectCounts(on: "table", [
            CountCase(1, "properties['instruments'][0]['strings'] == 6"),
            CountCase(1, "properties[$0][$1].strings == 6", ["instruments", 0]),
            CountCase(1, "properties.instruments[FIRST].strings == 6"),
            CountCase(2, "properties.instruments[first].electric == true"),
            CountCase(2, "properties[SIZE] == 3"),
            CountCase(1, "properties.instruments[SIZE] == 3"),
            CountCase(2, "properties.@count == 3"),
            CountCase(2, "properties.pets.@type == 'array'"),
            CountCase(2, "properties.pets[0].@type == 'object'"),
            CountCase(2, "properties.pets[0].age.@type == 'int'"),
            CountCase(4, "properties.nothing == nil"),
            CountCase(0, "properties.nothing != nil"),
            CountCase(4, "properties.instruments[7].strings == nil"),
            CountCase(0, "ANY properties.instruments[*].missing == nil"),
            CountCase(1, "properties[0] == 1"),
            CountCase(1, "properties[LAST] == 3"),
            CountCase(4, "self.properties != 1"),
        ])
        realm.expectInvalid(on: "table", [
            ("name[0] == 'a'", []),
            ("properties[SIZE].x == 1", []),
            ("properties.@keys.x == 'a'", []),
        ])
    }

    @Test func parserNestedDictionaryDeep() throws {
        let realm = try ConformanceRealm([Self.spec]) { w in
            let t = try #require(try w.table(named: "table"))
            let paul = try t.create(primaryKey: .string("Paul"))
            let john = try t.create(primaryKey: .string("John"))
            try t.set(paul, 2, .link(paul))
            try t.set(paul, 1, Self.dict([
                "one": .int(1),
                "two": .mixedList([.int(5), .int(6)]),
                "three": .mixedList([.int(5), Self.dict(["Hello": .int(5), "friend": .typedLink(t.key, john)])]),
            ]))
            // realm-core refuses a dictionary nested 100 levels further (LimitExceeded); Atoll's
            // limit is 100 levels in all.
            var deep = StorageValue.int(1)
            for _ in 0..<(StorageValue.mixedNestingMax + 1) { deep = Self.dict(["deeper": deep]) }
            #expect { try t.set(john, 1, deep) } throws: { ($0 as? AtollError)?.kind == .limitExceeded }
        }
        realm.expectCounts(on: "table", [
            CountCase(0, "self.properties == 1"),
            CountCase(0, "properties[0] == 1"),
            CountCase(1, "properties['one'] == 1"),
            CountCase(0, "properties.two[1].Hello == 5"),
            CountCase(0, "properties.three[0].Hello == 5"),
            CountCase(1, "properties.three[1].Hello == 5"),
        ])
    }

    @Test func parserIssue7393() throws {
        let realm = try ConformanceRealm([TableSpec(name: "Table", columns: [
            ColumnSpec(name: "id", type: .string),
            ColumnSpec(name: "value", type: .mixed, isNullable: true),
        ], primaryKey: "id")]) { w in
            let t = try #require(try w.table(named: "Table"))
            let k = try t.create(primaryKey: .string("EMBEDDED"))
            try t.set(k, 1, .mixedList([
                .mixedList([.int(4), .int(5), .int(6)]),
                Self.dict(["key1": .int(7), "key2": .int(8), "key3": .mixedList([.int(9)])]),
            ]))
        }
        // realm-core's `value[*][*] == {4, 5, 6}` (1), `value[0][*] == {4, 5, 6}` (1) and
        // `value[1][*] == {4, 5, 6}` (0), as ANY comparisons with IN, which Atoll spells so.
        realm.expectCounts(on: "Table", [
            CountCase(1, "ANY value[*][*] IN {4, 5, 6}"),
            CountCase(1, "ANY value[0][*] IN {4, 5, 6}"),
            CountCase(0, "ANY value[1][*] IN {4, 5, 6}"),
            CountCase(1, "value[1].key3[0] == 9"),
        ])
    }
}
