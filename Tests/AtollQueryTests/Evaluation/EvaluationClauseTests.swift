@testable import AtollQuery
import AtollStorage
import Foundation
import Testing
import AtollTestSupport

/// SORT / DISTINCT / LIMIT over real data (ordered results), every error kind through the
/// engine, index planning, and chained filters.
@Suite struct EvaluationClauseTests {
    let fixture: QueryFixture
    init() throws { fixture = try QueryFixture() }

    static let ordered: [QueryCase<[Int64]>] = [
        QueryCase("TRUEPREDICATE SORT(age ASC)", [7, 6, 2, 1, 5, 4, 3, 8]),            // ties (1, 5) keep key order
        QueryCase("TRUEPREDICATE SORT(age DESC)", [8, 3, 4, 1, 5, 2, 6, 7]),
        QueryCase("TRUEPREDICATE SORT(nickname ASC)", [2, 8, 7, 1, 4, 6, 3, 5]),      // nil first, then UTF-8 order
        QueryCase("TRUEPREDICATE SORT(nickname DESC)", [5, 3, 6, 4, 1, 7, 2, 8]),     // nil last, ties stable
        QueryCase("TRUEPREDICATE SORT(name ASC)", [7, 1, 2, 8, 4, 3, 5, 6]),          // "" A B a s É Σ 日
        QueryCase("TRUEPREDICATE SORT(height ASC)", [2, 5, 7, 6, 4, 1, 3, 8]),
        QueryCase("TRUEPREDICATE SORT(born ASC)", [2, 6, 7, 8, 5, 3, 1, 4]),          // nil first, 1969 before 1970
        QueryCase("TRUEPREDICATE SORT(photo ASC)", [2, 6, 7, 8, 4, 1, 5, 3]),         // bytes: [] 010203 4142 FF
        QueryCase("TRUEPREDICATE SORT(uid DESC)", [5, 3, 1, 2, 4, 6, 7, 8]),
        QueryCase("TRUEPREDICATE SORT(isActive DESC, age ASC)", [7, 1, 4, 3, 6, 2, 5, 8]),
        QueryCase("TRUEPREDICATE SORT(bestFriend.name ASC)", [2, 6, 7, 3, 8, 1, 4, 5]),
        QueryCase("TRUEPREDICATE SORT(name ASC) SORT(age ASC)", [7, 6, 2, 1, 5, 4, 3, 8]), // later SORT wins, earlier breaks ties
        QueryCase("age > 0 LIMIT(2)", [1, 2]),
        QueryCase("TRUEPREDICATE SORT(age DESC) LIMIT(3)", [8, 3, 4]),
        QueryCase("TRUEPREDICATE LIMIT(3) SORT(age DESC)", [3, 1, 2]),                 // applied in the order written
        QueryCase("TRUEPREDICATE LIMIT(0)", []),
        QueryCase("TRUEPREDICATE DISTINCT(age)", [1, 2, 3, 4, 6, 7, 8]),
        QueryCase("TRUEPREDICATE DISTINCT(isActive)", [1, 2]),
        QueryCase("TRUEPREDICATE DISTINCT(isActive, code)", [1, 2, 4, 6, 7, 8]),
        QueryCase("TRUEPREDICATE DISTINCT(nickname)", [1, 2, 3, 4, 5, 6, 7]),         // the two nils are one value
        QueryCase("TRUEPREDICATE SORT(age DESC) DISTINCT(isActive)", [8, 3]),
        QueryCase("TRUEPREDICATE DISTINCT(isActive) SORT(age DESC)", [1, 2]),
        QueryCase("TRUEPREDICATE DISTINCT(age) SORT(age ASC) LIMIT(2)", [7, 6]),
        QueryCase("isActive == true SORT(age DESC) LIMIT(2)", [3, 4]),
        QueryCase("code == 7 SORT(name DESC)", [3, 8, 1]),                             // index-planned, then sorted
        QueryCase("TRUEPREDICATE DISTINCT(bestFriend.isActive)", [1, 3]),              // false, true; nil links left out
    ]

    @Test(arguments: ordered) func clausesInAnyOrder(_ c: QueryCase<[Int64]>) throws {
        #expect(try fixture.people(c.query) == c.expected, "\(c.query)")
    }

    @Test func sortByLinkedValueWithTiesOnDogs() throws {
        #expect(try fixture.dogs("TRUEPREDICATE SORT(owner.age DESC, name ASC)") == ["Luna", "Bella", "Fido", "Rex", "Max"])
        #expect(try fixture.dogs("TRUEPREDICATE SORT(weight ASC)") == ["Fido", "Bella", "Luna", "Rex", "Max"])
    }

    /// Sorting is total and stable across types and many equal values: a large shuffled input
    /// sorts the same whatever order the rows were inserted in.
    @Test func sortIsStableAndTotalOnManyRows() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "sort-\(UUID())"))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(TableSpec(name: "Row", columns: [
            ColumnSpec(name: "n", type: .int), ColumnSpec(name: "s", type: .string, isNullable: true), ColumnSpec(name: "d", type: .double, isNullable: true),
        ])))
        var rng = SeededGenerator(seed: 7)
        var rows: [(key: ObjectKey, s: String?, d: Double?)] = []
        for i in 0..<2000 {
            let k = try t.create()
            let s: String? = Int.random(in: 0..<10, using: &rng) == 0 ? nil : ["b", "a", "é", "B", "", "ß", "z"].randomElement(using: &rng)
            let d: Double? = Int.random(in: 0..<8, using: &rng) == 0 ? nil : Double(Int.random(in: -3...3, using: &rng))
            try t.set(k, 0, .int(Int64(i)))
            try t.set(k, 1, s.map { .string($0) } ?? .null)
            try t.set(k, 2, d.map { .double($0) } ?? .null)
            rows.append((k, s, d))
        }
        try w.commit()
        let r = try db.beginRead()
        defer { r.close() }
        let engine = QueryEngine(transaction: r)
        let got = try engine.run(try engine.bind("TRUEPREDICATE SORT(s ASC, d DESC)", on: "Row"))
        // Reference: nil first; strings by UTF-8 bytes; doubles descending with nil last; ties by key.
        func less(_ a: (key: ObjectKey, s: String?, d: Double?), _ b: (key: ObjectKey, s: String?, d: Double?)) -> Bool {
            if a.s != b.s {
                guard let x = a.s else { return true }
                guard let y = b.s else { return false }
                return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
            }
            if a.d != b.d {
                guard let x = a.d else { return false }
                guard let y = b.d else { return true }
                return x > y
            }
            return a.key < b.key
        }
        #expect(got == rows.sorted(by: less).map(\.key))
    }

    // MARK: errors

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let query: String
        let className: String
        let arguments: [any Sendable]
        let fragments: [String]
        init(_ query: String, on className: String = "Person", _ arguments: [any Sendable], _ fragments: [String]) {
            self.query = query
            self.className = className
            self.arguments = arguments
            self.fragments = fragments
        }

        init(_ query: String, on className: String = "Person", _ fragments: [String]) {
            self.init(query, on: className, [], fragments)
        }
        var testDescription: String { query }
    }

    /// Every kind of error: the message names the problem and its UTF-8 offset.
    static let errors: [ErrorCase] = [
        // syntax
        ErrorCase("age >", ["offset 5"]),
        ErrorCase("age > 3 AND", ["offset 11"]),
        ErrorCase("name == 'Bob", ["unterminated string literal", "offset 8"]),
        ErrorCase("(age > 3", ["expected ')'", "offset 8"]),
        ErrorCase("age >> 3", ["offset 5"]),
        ErrorCase("age == 3 &  name == 'x'", ["single '&'", "offset 9"]),
        ErrorCase("name ==[x] 'a'", ["unknown modifier '[x]'", "offset"]),
        ErrorCase("age == 0x", ["hexadecimal digits", "offset 7"]),
        ErrorCase("age == 99999999999999999999", ["out of range", "offset 7"]),
        ErrorCase("born == 2021-13-01@00:00:00", ["not a valid date", "offset 8"]),
        ErrorCase("uid == uuid(123)", ["not a valid UUID", "offset 7"]),
        ErrorCase("oid == oid(xyz)", ["not a valid ObjectId", "offset 7"]),
        ErrorCase("", ["the query is empty"]),
        ErrorCase("name == ‘Bob’", ["typographic quote", "offset 8"]),
        // unknown names
        ErrorCase("agee > 3", ["'agee'", "Person", "offset 0"]),
        ErrorCase("bestFriend.agee > 3", ["'agee'", "offset 11"]),
        ErrorCase("dogs.nam == 'x'", ["'nam'", "Dog", "offset 5"]),
        ErrorCase("SUBQUERY(dogs, $d, $x.age > 1).@count > 0", ["unknown variable '$x'", "offset 19"]),
        // type mismatches
        ErrorCase("age == 'a'", ["cannot compare int property 'age' with string 'a'", "offset 7"]),
        ErrorCase("isActive > 1", ["cannot compare bool property", "offset 11"]),
        ErrorCase("isActive == 1", ["cannot compare bool property", "offset 12"]),
        ErrorCase("name == 3", ["cannot compare string property 'name' with int 3", "offset 8"]),
        ErrorCase("born > 5", ["cannot compare date property", "offset 7"]),
        ErrorCase("bestFriend == 'Bob'", ["cannot compare Person property 'bestFriend' with string", "offset 14"]),
        ErrorCase("bestFriend == $0", [TestObject(queryClassName: "Dog", queryObjectKey: 1)], ["with a Dog object; it holds Person objects", "offset 14"]),
        ErrorCase("age BEGINSWITH '1'", ["string or binary data", "offset 4"]),
        ErrorCase("age ==[c] 3", ["[c] applies only to strings", "offset 4"]),
        ErrorCase("name BETWEEN {'A', 'C'}", ["BETWEEN needs numbers or dates", "offset 5"]),
        ErrorCase("oid BETWEEN {oid(000000000000000000000002), oid(000000000000000000000003)}", ["BETWEEN needs numbers or dates", "offset 4"]),
        ErrorCase("age BETWEEN {1, 2, 3}", ["exactly two values", "offset 12"]),
        ErrorCase("age IN 3", ["IN needs a list", "offset 7"]),
        ErrorCase("3 == 4", ["two constants", "offset 2"]),
        ErrorCase("tags == scores", ["two collections", "offset 5"]),
        // nil and collections of objects; BETWEEN on a collection without ALL
        ErrorCase("dogs == nil", ["'dogs' is a collection of objects", "offset 5"]),
        ErrorCase("scores BETWEEN {1, 2}", ["needs ALL", "offset 7"]),
        // LIKE[d]; string escapes other than realm-core's
        ErrorCase("name LIKE[d] 'a'", ["LIKE does not take [d]", "offset 5"]),
        ErrorCase("name == 'a\\qb'", ["invalid escape", "offset 10"]),
        // arguments
        ErrorCase("age > $1", [3], ["offset 6"]),
        ErrorCase("name == %@", ["placeholders but only 0 arguments"]),
        ErrorCase("age == $0 AND name == %@", [1, "x"], ["cannot mix", "offset 22"]),
        ErrorCase("%K == 1", [5], ["%K needs a key path string"]),
        ErrorCase("%K == 1", ["nope"], ["unknown property 'nope'"]),
        ErrorCase("age IN $0", [3], ["IN needs a list", "offset 7"]),
        ErrorCase("age == %d", ["x"], ["offset 7"]),
        // aggregates on non-lists and misplaced collection operators
        ErrorCase("age.@count > 1", ["@count can only follow a list or linking objects, but 'age' is an int property", "offset 4"]),
        ErrorCase("name.@avg > 2", ["@avg can only follow a list", "offset 5"]),
        ErrorCase("bestFriend.@count > 1", ["'bestFriend' is a link to Person", "offset 11"]),
        ErrorCase("tags.@avg > 2", ["@avg cannot be applied to the string values of 'tags'", "offset 5"]),
        ErrorCase("dogs.@sum > 2", ["must be followed by one property", "offset 5"]),
        ErrorCase("dogs.@foo > 1", ["unsupported collection operator '@foo'", "offset 5"]),
        ErrorCase("SUBQUERY(tags, $t, $t == 'a').@count > 0", ["SUBQUERY needs a list of objects", "offset 9"]),
        ErrorCase("SUBQUERY(dogs, $d, age > 1) > 0", ["must be followed by .@count"]),
        ErrorCase("ANY age > 3", ["ANY needs a key path through a list", "offset 0"]),
        // clauses and unsupported features
        ErrorCase("TRUEPREDICATE SORT(dogs ASC)", ["SORT", "'dogs'"]),
        ErrorCase("TRUEPREDICATE SORT(bestFriend ASC)", ["because it is a link"]),
        ErrorCase("TRUEPREDICATE DISTINCT(tags)", ["passes through a list"]),
        ErrorCase("TRUEPREDICATE LIMIT(-1)", ["LIMIT", "offset"]),
        ErrorCase("name MATCHES 'a.*'", ["MATCHES", "not supported", "offset 5"]),
        ErrorCase("age + 1 > 3", ["arithmetic is not supported", "offset 4"]),
        ErrorCase("ANY tags == ALL {'a'}", ["cannot be combined", "offset 16"]),
        ErrorCase("{1, 2} == scores", ["needs ANY, ALL or NONE before the list", "offset 0"]),
        ErrorCase("owner.name == 'x'", on: "Nope", ["no class named 'Nope'"]),
    ]

    @Test(arguments: errors) func errorsNameTheProblemAndWhereItIs(_ c: ErrorCase) throws {
        let r = try fixture.db.beginRead()
        defer { r.close() }
        let engine = QueryEngine(transaction: r)
        do {
            let bound = try engine.bind(c.query, on: c.className, arguments: c.arguments)
            _ = try engine.run(bound)
            Issue.record("'\(c.query)' should be rejected")
        } catch let e as AtollError {
            #expect(e.kind == .invalidQuery, "\(e)")
            for f in c.fragments { #expect(e.message.contains(f), "message \"\(e.message)\" lacks \"\(f)\"") }
        }
    }

    // MARK: index planning

    func plan(_ query: String, on className: String, _ arguments: [Any] = []) throws -> [ObjectKey]? {
        let r = try fixture.db.beginRead()
        defer { r.close() }
        let engine = QueryEngine(transaction: r)
        let bound = try engine.bind(query, on: className, arguments: arguments)
        return try engine.plannedCandidates(bound.predicate, table: try #require(try r.table(named: className)))
    }

    /// Equality and IN on the primary key or an indexed property select candidates from the
    /// index (the candidate list is exactly the matching objects); other predicates scan.
    @Test func equalityAndInOnIndexedPropertiesUseTheIndex() throws {
        let p = { (ids: [Int64]) in ids.map { ObjectKey(primaryKey: $0) } }
        #expect(try plan("id == 3", on: "Person") == p([3]))                       // int primary key: the object key
        #expect(try plan("id IN {2, 5, 99}", on: "Person") == p([2, 5]))
        #expect(try plan("name == 'Bob'", on: "Person") == p([2]))                 // indexed string
        #expect(try plan("name IN {'Bob', 'straße'}", on: "Person") == p([2, 4]))
        #expect(try plan("code == 7", on: "Person") == p([1, 3, 8]))               // indexed optional int
        #expect(try plan("code == nil", on: "Person") == p([2, 5, 7]))
        #expect(try plan("code IN $0", on: "Person", [[9, 0]]) == p([4, 6]))
        #expect(try plan("age > 3 AND name == 'Bob'", on: "Person") == p([2]))     // an indexed term of an AND
        #expect(try plan("name == 'Rex'", on: "Dog")?.count == 1)                  // string primary key
        #expect(try plan("age == 3", on: "Dog")?.count == 2)
        #expect(try plan("age == 3.0", on: "Dog")?.count == 2)
        // A range on an indexed int: the index's run above 7, exactly the matches (an int's
        // strict bound moves by one; see RangePlanTests).
        #expect(try plan("code > 7", on: "Person") == p([4]))
        #expect(try plan("code >= 7", on: "Person") == p([1, 3, 4, 8]))
        // Not from the index: other operators, modifiers, OR, NOT, paths, unindexed properties.
        for query in ["name ==[c] 'bob'", "name BEGINSWITH 'B'", "name != 'Bob'", "code > 7.5", "name == 'Bob' OR age > 3",
                      "NOT name == 'Bob'", "bestFriend.name == 'Bob'", "age == 30", "age == 3.5"] {
            let on = query == "age == 3.5" ? "Dog" : "Person"
            #expect(try plan(query, on: on) == nil, "\(query) should scan")
        }
    }

    /// On a larger table the planned lookup touches only the matching rows and agrees with a
    /// scan of the same condition.
    @Test func indexedLookupAgreesWithAScanOnManyRows() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "index-\(UUID())"))
        let w = try db.beginWrite()
        let t = try w.table(w.createTable(TableSpec(name: "Item", columns: [
            ColumnSpec(name: "sku", type: .string, isIndexed: true), ColumnSpec(name: "shelf", type: .int, isNullable: true, isIndexed: true),
            ColumnSpec(name: "shelfCopy", type: .int, isNullable: true),
        ])))
        for i in 0..<5000 {
            let k = try t.create()
            try t.set(k, 0, .string("sku-\(i % 1000)"))
            let shelf: StorageValue = i % 7 == 0 ? .null : .int(Int64(i % 50))
            try t.set(k, 1, shelf)
            try t.set(k, 2, shelf)
        }
        try w.commit()
        let r = try db.beginRead()
        defer { r.close() }
        let engine = QueryEngine(transaction: r)
        let table = try #require(try r.table(named: "Item"))
        for (indexed, scanned) in [("sku == 'sku-17'", "sku ==[c] 'SKU-17'"), ("shelf == 3", "shelfCopy == 3"), ("shelf == nil", "shelfCopy == nil"),
                                   ("shelf IN {1, 2, nil}", "shelfCopy IN {1, 2, nil}"), ("sku IN {'sku-1', 'sku-999', 'none'}", "sku ==[c] 'sku-1' OR sku ==[c] 'sku-999'")] {
            let q = try engine.bind(indexed, on: "Item")
            let candidates = try #require(try engine.plannedCandidates(q.predicate, table: table), "\(indexed) should use the index")
            let viaIndex = try engine.run(q)
            #expect(candidates == viaIndex, "the index returns exactly the matches of \(indexed)")
            #expect(viaIndex == (try engine.run(try engine.bind(scanned, on: "Item"))), "\(indexed) vs \(scanned)")
            #expect(!viaIndex.isEmpty && viaIndex.count < 1000)
        }
    }

    // MARK: chained filters

    /// `filter` calls chain by AND-ing bound queries into one predicate (one plan: the indexed
    /// term of a later filter still selects candidates) with the clauses of both.
    @Test func chainedFiltersComposeIntoOnePlan() throws {
        let r = try fixture.db.beginRead()
        defer { r.close() }
        let engine = QueryEngine(transaction: r)
        let a = try engine.bind("age > 20 SORT(age DESC)", on: "Person")
        let b = try engine.bind("isActive == true", on: "Person")
        let c = try engine.bind("code == 7", on: "Person")
        let chained = a.combined(with: b).combined(with: c)
        guard case .and(let terms) = chained.predicate else { Issue.record("expected one AND"); return }
        #expect(terms.count == 3)
        #expect(chained.clauses.count == 1)
        let table = try #require(try r.table(named: "Person"))
        #expect(try engine.plannedCandidates(chained.predicate, table: table) == [1, 3, 8].map { ObjectKey(primaryKey: $0) })
        #expect(try engine.run(chained).map(\.intPrimaryKey) == [3, 1])
        #expect(try engine.run(a.combined(with: try engine.bind("TRUEPREDICATE LIMIT(2)", on: "Person"))).map(\.intPrimaryKey) == [8, 3])
    }
}
