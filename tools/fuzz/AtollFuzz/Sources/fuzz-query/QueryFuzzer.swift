import AtollQuery
import AtollStorage
import Foundation
import FuzzSupport

// Query strings end to end: lexer, parser, binder (against the fixed schema of a small
// database), then the evaluator on that database. Input: byte 0 chooses the class queried and
// the arguments; the rest is the query text (UTF-8, invalid sequences repaired as an
// application's String would be).
//
// Checked: every query binds or throws `.invalidQuery`; a bound query runs without error; its
// count agrees with its run, and so does filtering every object as candidates (a wrong answer
// is a lie even when nothing crashes).

private let outcome = Outcome(target: "fuzz-query", allowedKinds: [.invalidQuery])
private nonisolated(unsafe) let fixture = try! QueryDatabase()

@main
enum QueryFuzzMain {
    static func main() {
        _ = fixture
        FuzzDriver.run(seeds: QuerySeeds.all, fuzzQuery)
    }
}

func fuzzQuery(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard let selector = input.first else { return 0 }
    let className = QueryDatabase.classNames[Int(selector & 3) % QueryDatabase.classNames.count]
    let arguments = QueryDatabase.argumentSets[Int(selector >> 2) % QueryDatabase.argumentSets.count]
    let text = String(decoding: input.dropFirst(), as: UTF8.self)
    fixture.check(text, on: className, arguments: arguments)
    return 0
}

final class QueryDatabase {
    static let classNames = ["Person", "Dog", "Word"]

    /// Argument lists: numbers, strings, every value type, nil, collections, an object.
    nonisolated(unsafe) static let argumentSets: [[Any]] = {
        let oid = ObjectId(bytes: [UInt8](repeating: 7, count: 12)) ?? ObjectId()
        let uuid = UUID(uuidString: "11111111-1111-1111-1111-111111111111") ?? UUID()
        let person = PersonReference(queryClassName: "Person", queryObjectKey: ObjectKey(primaryKey: 1).rawValue)
        let none: String? = nil
        return [
            [],
            [3, "Rex"],
            ["a*b?c", 2.5, true],
            [Int64.max, Int64.min, Double.nan, -0.0],
            [Date(timeIntervalSince1970: 631_152_000), Data([1, 2, 3]), uuid, oid],
            [none as Any, "", [Int](), [1, 2, 3]],
            [person, "owner.name", ["Rex", "Fido"], Float(1.5)],
            [Double.infinity, "straße", Data(), "日本"],
        ]
    }()

    let database: Database
    let read: ReadTransaction
    let engine: QueryEngine
    let allKeys: [String: [ObjectKey]]

    init() throws {
        database = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "fuzz-query"))
        let w = try database.beginWrite()
        try Self.fill(w)
        _ = try w.commit()
        read = try database.beginRead()
        engine = QueryEngine(transaction: read)
        var keys: [String: [ObjectKey]] = [:]
        for name in Self.classNames { keys[name] = try read.table(named: name)?.objectKeys() ?? [] }
        allKeys = keys
    }

    func check(_ text: String, on className: String, arguments: [Any]) {
        guard let bound = outcome.check("bind '\(text)'", { try engine.bind(text, on: className, arguments: arguments) }) else { return }
        // A query that bound must evaluate: an error now would be a failure the binder let through.
        let strict = Outcome(target: "fuzz-query", allowedKinds: [])
        guard let keys = strict.check("run '\(text)'", { try engine.run(bound) }) else { return }
        guard bound.clauses.isEmpty else { return }
        let count = strict.check("count '\(text)'", { try engine.count(bound) })
        outcome.require(count == keys.count, "count \(count ?? -1) disagrees with run (\(keys.count) objects) for '\(text)' on \(className)")
        let filtered = strict.check("candidates '\(text)'", { try engine.run(bound, candidates: allKeys[className] ?? []) })
        outcome.require(filtered == keys, "filtering every object as candidates disagrees with run for '\(text)' on \(className)")
    }

    private static func fill(_ w: WriteTransaction) throws {
        let person = try w.table(w.createTable(TableSpec(name: "Person", columns: [
            ColumnSpec(name: "id", type: .int),
            ColumnSpec(name: "name", type: .string, isIndexed: true),
            ColumnSpec(name: "age", type: .int),
            ColumnSpec(name: "nickname", type: .string, isNullable: true),
            ColumnSpec(name: "height", type: .double, isNullable: true),
            ColumnSpec(name: "weight", type: .float),
            ColumnSpec(name: "isActive", type: .bool),
            ColumnSpec(name: "born", type: .timestamp, isNullable: true),
            ColumnSpec(name: "photo", type: .binary, isNullable: true),
            ColumnSpec(name: "uid", type: .uuid, isNullable: true),
            ColumnSpec(name: "oid", type: .objectId),
            ColumnSpec(name: "code", type: .int, isNullable: true, isIndexed: true),
            ColumnSpec(name: "bestFriend", type: .link, isNullable: true, linkTarget: "Person"),
            ColumnSpec(name: "dogs", type: .link, isList: true, linkTarget: "Dog"),
            ColumnSpec(name: "tags", type: .string, isList: true),
            ColumnSpec(name: "scores", type: .int, isList: true),
            ColumnSpec(name: "ratings", type: .double, isNullable: true, isList: true),
        ], primaryKey: "id")))
        let dog = try w.table(w.createTable(TableSpec(name: "Dog", columns: [
            ColumnSpec(name: "name", type: .string),
            ColumnSpec(name: "age", type: .int, isIndexed: true),
            ColumnSpec(name: "weight", type: .double, isNullable: true),
            ColumnSpec(name: "owner", type: .link, isNullable: true, linkTarget: "Person"),
            ColumnSpec(name: "nicknames", type: .string, isNullable: true, isList: true),
        ], primaryKey: "name", linkingObjects: [LinkingObjectsSpec(name: "owners", originTable: "Person", originProperty: "dogs")])))
        let word = try w.table(w.createTable(TableSpec(name: "Word", columns: [
            ColumnSpec(name: "text", type: .string, isNullable: true),
            ColumnSpec(name: "bytes", type: .binary, isNullable: true),
            ColumnSpec(name: "n", type: .int, isNullable: true, intBits: 8),
        ])))
        var dogs: [ObjectKey] = []
        for (name, age, weight) in [("Rex", 3, 20.5), ("Fido", 5, nil), ("Bella", 1, 8.0), ("Max", 10, 30.0)] as [(String, Int64, Double?)] {
            let k = try dog.create(primaryKey: .string(name))
            try dog.set(k, 1, .int(age))
            try dog.set(k, 2, weight.map { .double($0) } ?? .null)
            try dog.setList(k, 4, [.string(name.lowercased()), .null])
            dogs.append(k)
        }
        let names = ["Alice", "Bob", "Émile", "straße", "ΣΊΣΥΦΟΣ", "日本語", "", "a*b?c"]
        for (i, name) in names.enumerated() {
            let id = Int64(i + 1)
            let k = try person.create(primaryKey: .int(id))
            try person.set(k, 1, .string(name))
            try person.set(k, 2, .int(id * 7 - 20))
            try person.set(k, 3, i % 3 == 0 ? .null : .string(name.uppercased()))
            try person.set(k, 4, i % 2 == 0 ? .double(1.5 + Double(i) / 10) : .null)
            try person.set(k, 5, .float(Float(i) * 10.5))
            try person.set(k, 6, .bool(i % 2 == 0))
            try person.set(k, 7, i % 4 == 1 ? .null : .timestamp(Timestamp(seconds: Int64(i) * 400_000_000 - 1_000_000_000, nanoseconds: Int32(i))))
            try person.set(k, 8, i % 3 == 2 ? .null : .binary(Array(name.utf8.prefix(3))))
            try person.set(k, 9, i % 2 == 1 ? .null : .uuid(UUID(uuid: (UInt8(i), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))))
            try person.set(k, 10, .objectId(ObjectId(bytes: [UInt8](repeating: 0, count: 11) + [UInt8(i)]) ?? ObjectId()))
            try person.set(k, 11, i % 3 == 1 ? .null : .int(Int64(i % 4)))
            try person.setList(k, 13, dogs.prefix(i % 5).map { .link($0) })
            try person.setList(k, 14, names.prefix(i % 3).map { .string($0) })
            try person.setList(k, 15, (0..<(i % 4)).map { .int(Int64($0 * i)) })
            try person.setList(k, 16, (0..<(i % 3)).map { $0 == 1 ? .null : .double(Double($0) + 0.5) })
        }
        for i in 0..<names.count {
            try person.set(ObjectKey(primaryKey: Int64(i + 1)), 12, .link(ObjectKey(primaryKey: Int64((i * 3) % names.count + 1))))
        }
        for (i, d) in dogs.enumerated() where i != 3 { try dog.set(d, 3, .link(ObjectKey(primaryKey: Int64(i + 1)))) }
        for (i, text) in ["ᏣᎳᎩ", "Straße", "STRASSE", "ıi", "caf\u{E9}", "cafe\u{301}", "がっこう", "øre", "", nil].enumerated() {
            let k = try word.create()
            try word.set(k, 0, text.map { .string($0) } ?? .null)
            try word.set(k, 1, text.map { .binary(Array($0.utf8)) } ?? .null)
            try word.set(k, 2, i % 3 == 0 ? .null : .int(Int64(i * 13 - 60)))
        }
    }
}

struct PersonReference: QueryObjectReference {
    var queryClassName: String
    var queryObjectKey: UInt64
}

/// Valid queries of every family in docs/QUERY_LANGUAGE.md, each with its selector byte.
enum QuerySeeds {
    static let queries: [(selector: UInt8, text: String)] = [
        (0, "age > 3 AND name BEGINSWITH[c] 'a'"),
        (4, "age > $0 AND ANY dogs.name == $1"),
        (0, "name CONTAINS[cd] 'e' OR nickname ENDSWITH[c] 'E' || NOT isActive == true"),
        (0, "name LIKE[c] '*a?c' AND nickname != nil"),
        (0, "age BETWEEN {10, 40} AND code IN {0, 1, 2}"),
        (0, "dogs.@count > 1 AND scores.@sum >= 3 AND ratings.@avg < 2.0 AND scores.@max == 2"),
        (0, "SUBQUERY(dogs, $d, $d.age > 2 AND $d.name BEGINSWITH 'R').@count > 0"),
        (0, "bestFriend.bestFriend.name == 'Bob' AND ALL tags != 'x' AND NONE dogs.age > 9"),
        (1, "owner.name == 'Alice' AND ANY owners.age > 0 AND @links.Person.dogs.@count >= 1"),
        (1, "nicknames CONTAINS 'r' AND weight == nil SORT(age DESC, name ASC) LIMIT(2)"),
        (0, "TRUEPREDICATE SORT(name ASC) DISTINCT(isActive) LIMIT(3)"),
        (0, "born > 1990-01-01@00:00:00 AND born < T1000000000:5 AND uid == uuid(01010203-0405-0607-0809-0a0b0c0d0e0f)"),
        (0, "oid == oid(000000000000000000000003) AND photo BEGINSWITH B64\"QWw=\""),
        (16, "born == $0 AND photo == $1 AND uid == $2 AND oid == $3"),
        (20, "nickname == $0 AND name != $1 AND scores IN $3"),
        (24, "bestFriend == $0 AND %K == 'Bob'"),
        (8, "name == %@ AND height > %f AND isActive == %d"),
        (2, "text ==[c] 'strasse' OR text ==[d] 'cafe' OR bytes CONTAINS[c] B64\"Q0E=\" OR n < -5"),
        (0, "(age == 1 OR (age == 2 AND NOT (name == 'x'))) AND FALSEPREDICATE == false"),
        (0, "#limit > 3 OR 'red' IN tags OR 'li' IN name OR 5 < age OR 0x1F == age OR 1.5e3 > height"),
        (0, "name == \"\\u{1F600}\\n\\t\\\\\" OR name MATCHES 'x'"),
        (1, "age > 2 && !(name == 'Max') || weight >= 8.0"),
    ]

    static func all() -> [(name: String, bytes: [UInt8])] {
        queries.enumerated().map { i, q in (name: "seed-\(i)", bytes: [q.selector] + Array(q.text.utf8)) }
    }
}
