import AtollQuery
import AtollStorage
import Foundation
import Testing

/// A small database whose every value is chosen so that each query of the evaluation suites has
/// a result worked out by hand from the semantics (docs/QUERY_LANGUAGE.md).
///
/// Person (int primary key `id`, indexed `name`, indexed optional `code`):
///
/// | id | name      | age | nickname  | height | weight | active | born                | photo    | code | bestFriend | dogs        | tags         | scores  | ratings    |
/// |----|-----------|-----|-----------|--------|--------|--------|---------------------|----------|------|------------|-------------|--------------|---------|------------|
/// | 1  | Alice     | 30  | Ally      | 1.70   | 60.5   | true   | 1990-01-01 00:00:00 | 01 02 03 | 7    | 2          | Rex, Fido   | red, blue    | 1, 2, 3 | 4.5, nil   |
/// | 2  | Bob       | 25  | nil       | nil    | 80     | false  | nil                 | nil      | nil  | nil        |             |              |         |            |
/// | 3  | Émile     | 40  | émile     | 1.80   | 75     | true   | 1980-06-15 12:30:00 | FF       | 7    | 1          | Rex, Luna   | Red          | 10      | 3.0        |
/// | 4  | straße    | 35  | STRASSE   | 1.65   | 70     | true   | 2000-02-29 00:00:00 | (empty)  | 9    | 4          | Bella       | blue, green  | 5, 5    | nil        |
/// | 5  | ΣΊΣΥΦΟΣ   | 30  | σίσυφος   | nil    | 90     | false  | 1969-07-20 20:17:40 | 41 42    | nil  | 3          |             |              |         |            |
/// | 6  | 日本語     | 0   | nihongo   | 1.50   | 50     | false  | nil                 | nil      | 0    | nil        | Max         | 日本          | -1      | 1.0, 2.0   |
/// | 7  | (empty)   | -5  | (empty)   | 0.0    | 0      | true   | nil                 | nil      | nil  | nil        |             | (empty)      | 0       |            |
/// | 8  | a*b?c     | 100 | nil       | 2.0    | 100    | false  | nil                 | nil      | 7    | 1          | Fido        |              |         |            |
///
/// uid: 1 → U1, 3 → U2, 5 → U3, others nil. oid: person i → ObjectId with bytes 0…0 i.
///
/// Dog (string primary key `name`, indexed `age`; `owners` = Person.dogs linking objects):
///
/// | name  | age | weight | owner | nicknames  | owners |
/// |-------|-----|--------|-------|------------|--------|
/// | Rex   | 3   | 20.5   | 1     | Rexy       | 1, 3   |
/// | Fido  | 5   | nil    | 1     |            | 1, 8   |
/// | Bella | 1   | 8.0    | 4     | nil        | 4      |
/// | Max   | 10  | 30.0   | nil   | Maxi, M    | 6      |
/// | Luna  | 3   | 12.0   | 3     | Lu, nil    | 3      |
///
/// Word (no primary key): `text` and `bytes` for Unicode folding, see `words`.
final class QueryFixture {
    static let personSpec = TableSpec(name: "Person", columns: [
        ColumnSpec(name: "id", type: .int),                                          // 0
        ColumnSpec(name: "name", type: .string, isIndexed: true),
        ColumnSpec(name: "age", type: .int),
        ColumnSpec(name: "nickname", type: .string, isNullable: true),
        ColumnSpec(name: "height", type: .double, isNullable: true),
        ColumnSpec(name: "weight", type: .float),                                    // 5
        ColumnSpec(name: "isActive", type: .bool),
        ColumnSpec(name: "born", type: .timestamp, isNullable: true),
        ColumnSpec(name: "photo", type: .binary, isNullable: true),
        ColumnSpec(name: "uid", type: .uuid, isNullable: true),
        ColumnSpec(name: "oid", type: .objectId),                                    // 10
        ColumnSpec(name: "code", type: .int, isNullable: true, isIndexed: true),
        ColumnSpec(name: "bestFriend", type: .link, isNullable: true, linkTarget: "Person"),
        ColumnSpec(name: "dogs", type: .link, isList: true, linkTarget: "Dog"),
        ColumnSpec(name: "tags", type: .string, isList: true),
        ColumnSpec(name: "scores", type: .int, isList: true),                        // 15
        ColumnSpec(name: "ratings", type: .double, isNullable: true, isList: true),
    ], primaryKey: "id")

    static let dogSpec = TableSpec(name: "Dog", columns: [
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "age", type: .int, isIndexed: true),
        ColumnSpec(name: "weight", type: .double, isNullable: true),
        ColumnSpec(name: "owner", type: .link, isNullable: true, linkTarget: "Person"),
        ColumnSpec(name: "nicknames", type: .string, isNullable: true, isList: true),
    ], primaryKey: "name", linkingObjects: [LinkingObjectsSpec(name: "owners", originTable: "Person", originProperty: "dogs")])

    static let wordSpec = TableSpec(name: "Word", columns: [
        ColumnSpec(name: "text", type: .string, isNullable: true),
        ColumnSpec(name: "bytes", type: .binary, isNullable: true),
    ])

    /// Words for the folding suites, stored in this order (Word keys 0, 1, 2, …).
    static let words: [String?] = [
        "ᏣᎳᎩ",          // 0 Cherokee capitals (they fold to the small letters ꮳꮃꭹ)
        "ꮳꮃꭹ",          // 1 Cherokee small letters
        "ᲐᲑᲒ",          // 2 Georgian Mtavruli
        "აბგ",          // 3 Georgian Mkhedruli
        "𐐀𐐁",          // 4 Deseret capitals
        "𐐨𐐩",          // 5 Deseret small
        "ﬃ",            // 6 ligature ffi (full folding: "ffi")
        "Straße",       // 7
        "STRASSE",      // 8
        "\u{01C5}emal",  // 9 titlecase digraph ǅ
        "\u{01C4}EMAL",  // 10 capital Ǆ
        "ıi",           // 11 dotless i stays distinct from i
        "Ii",           // 12
        "caf\u{E9}",     // 13 precomposed é
        "cafe\u{301}",  // 14 e + combining acute
        "CAFE",         // 15
        "ἈΘῆναι",       // 16 Greek with breathings and circumflex
        "αθηναι",       // 17
        "がっこう",      // 18 hiragana with dakuten
        "かっこう",      // 19
        "שָׁלוֹם",        // 20 Hebrew with vowel points
        "שלום",         // 21
        "øre",          // 22 ø is a letter, not o + diacritic
        "ore",          // 23
        nil,            // 24
        "",             // 25
    ]

    static let uids = [
        UUID(uuidString: "11111111-1111-1111-1111-111111111111"),
        UUID(uuidString: "22222222-2222-2222-2222-222222222222"),
        UUID(uuidString: "33333333-3333-3333-3333-333333333333"),
    ].compactMap { $0 }

    static func oid(_ i: UInt8) -> ObjectId? { ObjectId(bytes: [UInt8](repeating: 0, count: 11) + [i]) }

    static func date(_ seconds: Int64) -> StorageValue { .timestamp(Timestamp(seconds: seconds, nanoseconds: 0)) }

    let db: Database

    init() throws {
        db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "query-fixture-\(UUID())"))
        let w = try db.beginWrite()
        let person = try w.table(w.createTable(Self.personSpec))
        let dog = try w.table(w.createTable(Self.dogSpec))
        let word = try w.table(w.createTable(Self.wordSpec))

        var dogKeys: [String: ObjectKey] = [:]
        for (name, age, weight) in [("Rex", 3, 20.5), ("Fido", 5, nil), ("Bella", 1, 8.0), ("Max", 10, 30.0), ("Luna", 3, 12.0)] as [(String, Int64, Double?)] {
            let k = try dog.create(primaryKey: .string(name))
            dogKeys[name] = k
            try dog.set(k, 1, .int(age))
            try dog.set(k, 2, weight.map { .double($0) } ?? .null)
        }
        func p(_ id: Int64) -> ObjectKey { ObjectKey(primaryKey: id) }
        struct Row {
            var id: Int64, name: String, age: Int64, nickname: String?, height: Double?, weight: Float, active: Bool
            var born: Int64?, photo: [UInt8]?, uid: Int?, code: Int64?
            var dogs: [String], tags: [String], scores: [Int64], ratings: [Double?]
        }
        let rows = [
            Row(id: 1, name: "Alice", age: 30, nickname: "Ally", height: 1.70, weight: 60.5, active: true, born: 631_152_000, photo: [1, 2, 3], uid: 0, code: 7,
                dogs: ["Rex", "Fido"], tags: ["red", "blue"], scores: [1, 2, 3], ratings: [4.5, nil]),
            Row(id: 2, name: "Bob", age: 25, nickname: nil, height: nil, weight: 80, active: false, born: nil, photo: nil, uid: nil, code: nil,
                dogs: [], tags: [], scores: [], ratings: []),
            Row(id: 3, name: "\u{C9}mile", age: 40, nickname: "\u{E9}mile", height: 1.80, weight: 75, active: true, born: 329_920_200, photo: [0xFF], uid: 1, code: 7,
                dogs: ["Rex", "Luna"], tags: ["Red"], scores: [10], ratings: [3.0]),
            Row(id: 4, name: "straße", age: 35, nickname: "STRASSE", height: 1.65, weight: 70, active: true, born: 951_782_400, photo: [], uid: nil, code: 9,
                dogs: ["Bella"], tags: ["blue", "green"], scores: [5, 5], ratings: [nil]),
            Row(id: 5, name: "ΣΊΣΥΦΟΣ", age: 30, nickname: "σίσυφος", height: nil, weight: 90, active: false, born: -14_182_940, photo: [0x41, 0x42], uid: 2, code: nil,
                dogs: [], tags: [], scores: [], ratings: []),
            Row(id: 6, name: "日本語", age: 0, nickname: "nihongo", height: 1.50, weight: 50, active: false, born: nil, photo: nil, uid: nil, code: 0,
                dogs: ["Max"], tags: ["日本"], scores: [-1], ratings: [1.0, 2.0]),
            Row(id: 7, name: "", age: -5, nickname: "", height: 0.0, weight: 0, active: true, born: nil, photo: nil, uid: nil, code: nil,
                dogs: [], tags: [""], scores: [0], ratings: []),
            Row(id: 8, name: "a*b?c", age: 100, nickname: nil, height: 2.0, weight: 100, active: false, born: nil, photo: nil, uid: nil, code: 7,
                dogs: ["Fido"], tags: [], scores: [], ratings: []),
        ]
        for r in rows {
            let k = try person.create(primaryKey: .int(r.id))
            try person.set(k, 1, .string(r.name))
            try person.set(k, 2, .int(r.age))
            try person.set(k, 3, r.nickname.map { .string($0) } ?? .null)
            try person.set(k, 4, r.height.map { .double($0) } ?? .null)
            try person.set(k, 5, .float(r.weight))
            try person.set(k, 6, .bool(r.active))
            try person.set(k, 7, r.born.map { Self.date($0) } ?? .null)
            try person.set(k, 8, r.photo.map { .binary($0) } ?? .null)
            try person.set(k, 9, r.uid.map { .uuid(Self.uids[$0]) } ?? .null)
            try person.set(k, 10, Self.oid(UInt8(r.id)).map { .objectId($0) } ?? .null)
            try person.set(k, 11, r.code.map { .int($0) } ?? .null)
            try person.setList(k, 13, r.dogs.compactMap { dogKeys[$0].map { .link($0) } })
            try person.setList(k, 14, r.tags.map { .string($0) })
            try person.setList(k, 15, r.scores.map { .int($0) })
            try person.setList(k, 16, r.ratings.map { $0.map { .double($0) } ?? .null })
        }
        for (id, friend) in [(1, 2), (3, 1), (4, 4), (5, 3), (8, 1)] as [(Int64, Int64)] { try person.set(p(id), 12, .link(p(friend))) }
        for (name, owner) in [("Rex", 1), ("Fido", 1), ("Bella", 4), ("Luna", 3)] as [(String, Int64)] {
            if let k = dogKeys[name] { try dog.set(k, 3, .link(p(owner))) }
        }
        for (name, nicknames) in [("Rex", ["Rexy"]), ("Bella", [nil]), ("Max", ["Maxi", "M"]), ("Luna", ["Lu", nil])] as [(String, [String?])] {
            if let k = dogKeys[name] { try dog.setList(k, 4, nicknames.map { $0.map { .string($0) } ?? .null }) }
        }
        for text in Self.words {
            let k = try word.create()
            try word.set(k, 0, text.map { .string($0) } ?? .null)
            try word.set(k, 1, text.map { .binary(Array($0.utf8)) } ?? .null)
        }
        try w.commit()
    }

    /// An object reference argument for Person `id`.
    static func person(_ id: Int64) -> TestObject { TestObject(queryClassName: "Person", queryObjectKey: ObjectKey(primaryKey: id).rawValue) }

    /// Runs `query` on `className` three ways (planned run, `count`, and filtering every key as
    /// candidates) and checks that they agree; returns the keys of the planned run.
    func run(_ query: String, on className: String, _ arguments: [Any] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> [ObjectKey] {
        let r = try db.beginRead()
        defer { r.close() }
        let engine = QueryEngine(transaction: r)
        let bound = try engine.bind(query, on: className, arguments: arguments)
        let keys = try engine.run(bound)
        if bound.clauses.isEmpty {
            #expect(try engine.count(bound) == keys.count, "count disagrees with run for '\(query)'", sourceLocation: sourceLocation)
            let all = try #require(try r.table(named: className)).objectKeys()
            #expect(try engine.run(bound, candidates: all) == keys, "filtering candidates disagrees with run for '\(query)'", sourceLocation: sourceLocation)
        }
        return keys
    }

    /// Person ids matching, in result order.
    func people(_ query: String, _ arguments: [Any] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> [Int64] {
        try run(query, on: "Person", arguments, sourceLocation: sourceLocation).map(\.intPrimaryKey)
    }

    /// Dog names matching, in result order.
    func dogs(_ query: String, _ arguments: [Any] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let keys = try run(query, on: "Dog", arguments, sourceLocation: sourceLocation)
        let r = try db.beginRead()
        defer { r.close() }
        let t = try #require(try r.table(named: "Dog"))
        return try keys.map { k in if case .string(let s) = try t.value(k, 0) { s } else { "?" } }
    }

    /// Indexes into `words` of the matching Word objects.
    func words(_ query: String, _ arguments: [Any] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> [Int] {
        let keys = try run(query, on: "Word", arguments, sourceLocation: sourceLocation)
        let r = try db.beginRead()
        defer { r.close() }
        let t = try #require(try r.table(named: "Word"))
        return try keys.map { try t.position(of: $0) }
    }
}

/// One row of a table-driven suite: a query, its arguments and the expected result.
struct QueryCase<Result: Sendable & Equatable>: Sendable, CustomTestStringConvertible {
    let query: String
    let arguments: [any Sendable]
    let expected: Result

    init(_ query: String, _ arguments: [any Sendable], _ expected: Result) {
        self.query = query
        self.arguments = arguments
        self.expected = expected
    }

    init(_ query: String, _ expected: Result) {
        self.init(query, [], expected)
    }

    var testDescription: String { arguments.isEmpty ? query : "\(query) \(arguments)" }
}
