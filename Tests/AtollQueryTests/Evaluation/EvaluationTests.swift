import AtollQuery
import AtollStorage
import Foundation
import Testing

/// Table-driven evaluation over real data (QueryFixture): every operator family, with the
/// expected objects worked out by hand from the documented semantics. Each query also runs
/// through `count` and through candidate filtering, which must agree.
@Suite struct EvaluationTests {
    let fixture: QueryFixture
    init() throws { fixture = try QueryFixture() }

    typealias People = QueryCase<[Int64]>
    typealias Dogs = QueryCase<[String]>

    func check(_ c: People, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let got = try fixture.people(c.query, c.arguments, sourceLocation: sourceLocation)
        #expect(got.sorted() == c.expected.sorted(), "\(c.query)", sourceLocation: sourceLocation)
    }

    func check(_ c: Dogs, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let got = try fixture.dogs(c.query, c.arguments, sourceLocation: sourceLocation)
        #expect(got.sorted() == c.expected.sorted(), "\(c.query)", sourceLocation: sourceLocation)
    }

    // MARK: comparisons, every operator and type, either side constant

    static let comparisonsCases: [People] = [
        People("age == 30", [1, 5]),
        People("age = 30", [1, 5]),
        People("age != 30", [2, 3, 4, 6, 7, 8]),
        People("age <> 30", [2, 3, 4, 6, 7, 8]),
        People("age < 25", [6, 7]),
        People("age <= 25", [2, 6, 7]),
        People("age =< 25", [2, 6, 7]),
        People("age > 35", [3, 8]),
        People("age >= 35", [3, 4, 8]),
        People("age => 35", [3, 4, 8]),
        People("30 < age", [3, 4, 8]),
        People("35 >= age", [1, 2, 4, 5, 6, 7]),
        People("age BETWEEN {25, 35}", [1, 2, 4, 5]),
        People("age BETWEEN {35, 25}", []),
        People("age IN {0, 100, 7}", [6, 8]),
        People("age IN {}", []),
        People("age == ANY {30, 40}", [1, 3, 5]),
        People("age == NONE {30, 40}", [2, 4, 6, 7, 8]),
        People("age == {30, 40}", [1, 3, 5]),
        People("age > 29.5", [1, 3, 4, 5, 8]),
        People("age == 30.0", [1, 5]),
        People("age == 30.5", []),
        People("age < -4.5", [7]),
        People("height > 1.7", [3, 8]),
        People("height >= 1.7", [1, 3, 8]),
        People("height < 1", [7]),
        People("height == 0", [7]),
        People("weight >= 70", [2, 3, 4, 5, 8]),
        People("weight == 60.5", [1]),
        People("weight BETWEEN {50, 60.5}", [1, 6]),
        People("weight IN {0, 100}", [7, 8]),
        People("weight > age", [1, 2, 3, 4, 5, 6, 7]), // 60.5>30, 80>25, 75>40, 70>35, 90>30, 50>0, 0>-5; 100>100 no
        People("age == code", [6]),                    // 0 == 0; nil codes never equal an int
        People("isActive == true", [1, 3, 4, 7]),
        People("isActive == false", [2, 5, 6, 8]),
        People("isActive != true", [2, 5, 6, 8]),
        People("isActive == YES", [1, 3, 4, 7]),
        People("isActive == NO", [2, 5, 6, 8]),
        People("true == isActive", [1, 3, 4, 7]),
        People("born > 1990-01-01@00:00:00", [4]),
        People("born >= 1990-01-01@00:00:00", [1, 4]),
        People("born == 1980-06-15@12:30:00", [3]),
        People("born == 1980-06-15T12:30:00", [3]),
        People("born == T329920200:0", [3]),
        People("born == 1990-01-01@00:00:00:1", []),   // one nanosecond later
        People("born < T0:0", [5]),
        People("born BETWEEN {1970-01-01@00:00:00, 1995-01-01@00:00:00}", [1, 3]),
        People("born IN {T951782400:0, T631152000:0}", [1, 4]),
        People("uid == uuid(11111111-1111-1111-1111-111111111111)", [1]),
        People("uid != uuid(11111111-1111-1111-1111-111111111111)", [2, 3, 4, 5, 6, 7, 8]),
        People("uid IN {uuid(22222222-2222-2222-2222-222222222222), uuid(33333333-3333-3333-3333-333333333333)}", [3, 5]),
        People("oid == oid(000000000000000000000003)", [3]),
        People("oid > oid(000000000000000000000004)", [5, 6, 7, 8]),
        People("photo == B64\"AQID\"", [1]),
        People("photo != B64\"AQID\"", [2, 3, 4, 5, 6, 7, 8]),
        People("photo == B64\"\"", [4]),
        People("name == 'Alice'", [1]),
        People("'Alice' == name", [1]),
        People("name != 'Alice'", [2, 3, 4, 5, 6, 7, 8]),
        People("name == ''", [7]),
        People("name < 'B'", [1, 7]),                  // byte order: "" < "Alice" < "B" < "Bob"
        People("name > 'Z'", [3, 4, 5, 6, 8]),         // lower case and non-ASCII sort after 'Z'
        People("name >= 'A' AND name < 'C'", [1, 2]),
        People("name IN {'Bob', 'straße', 'nobody'}", [2, 4]),
        People("bestFriend == nil", [2, 6, 7]),
        People("bestFriend != nil", [1, 3, 4, 5, 8]),
        People("code == 7", [1, 3, 8]),
        People("code != 7", [2, 4, 5, 6, 7]),
        People("code IN {9, nil}", [2, 4, 5, 7]),
        People("code > 0", [1, 3, 4, 8]),
    ]

    @Test(arguments: comparisonsCases) func comparisons(_ c: People) throws { try check(c) }

    @Test func linksCompareWithObjectsNilAndArguments() throws {
        try check(People("bestFriend == $0", [QueryFixture.person(1)], [3, 8]))
        try check(People("bestFriend != $0", [QueryFixture.person(1)], [1, 2, 4, 5, 6, 7]))
        try check(People("$0 == bestFriend", [QueryFixture.person(4)], [4]))
        try check(People("bestFriend IN $0", [[QueryFixture.person(1), QueryFixture.person(4)]], [3, 4, 8]))
        try check(People("bestFriend == $0", [Optional<Int>.none], [2, 6, 7]))
        try check(Dogs("owner == $0", [QueryFixture.person(1)], ["Rex", "Fido"]))
        try check(People("ANY dogs == $0", [TestObject(queryClassName: "Dog", queryObjectKey: try dogKey("Luna").rawValue)], [3]))
        try check(People("$0 IN dogs", [TestObject(queryClassName: "Dog", queryObjectKey: try dogKey("Rex").rawValue)], [1, 3]))
    }

    func dogKey(_ name: String) throws -> ObjectKey {
        let r = try fixture.db.beginRead()
        defer { r.close() }
        return try #require(try r.table(named: "Dog")?.find(primaryKey: .string(name)))
    }

    // MARK: strings and binary data

    static let stringsCases: [People] = [
        People("name BEGINSWITH 'A'", [1]),
        People("name BEGINSWITH 'a'", [8]),
        People("name BEGINSWITH[c] 'a'", [1, 8]),
        People("name ENDSWITH 'e'", [1, 3, 4]),
        People("name ENDSWITH[c] 'E'", [1, 3, 4]),
        People("name CONTAINS 'li'", [1]),
        People("name CONTAINS 'ß'", [4]),
        People("name CONTAINS[c] 'SS'", [4]),             // ß folds to ss
        People("name ==[c] 'STRASSE'", [4]),
        People("name ==[c] 'Strasse'", [4]),
        People("nickname ==[c] 'straße'", [4]),
        People("name == 'Emile'", []),
        People("name ==[c] 'emile'", []),                 // [c] keeps the accent
        People("name ==[d] 'Emile'", [3]),
        People("name ==[cd] 'EMILE'", [3]),
        People("name ==[cd] 'σισυφος'", [5]),             // tonos removed, final sigma folded
        People("name ==[c] 'σίσυφος'", [5]),
        People("name ==[c] 'σισυφος'", []),
        People("name !=[c] 'alice'", [2, 3, 4, 5, 6, 7, 8]),
        People("name BEGINSWITH[cd] 'E'", [3]),
        People("name CONTAINS[d] 'Σ'", [5]),
        People("name CONTAINS '本'", [6]),
        People("name LIKE 'A*'", [1]),
        People("name LIKE '?ob'", [2]),
        People("name LIKE '*'", [1, 2, 3, 4, 5, 6, 7, 8]),
        People("name LIKE '???'", [2, 6]),                // characters, not bytes: 日本語 is three
        People("name LIKE 'a*b?c'", [8]),
        People("name LIKE '*e'", [1, 3, 4]),
        People("name LIKE[c] 'é*'", [3]),
        People("name LIKE[c] '*SSE'", [4]),
        People("name LIKE 'a?b*'", [8]),
        People("name BEGINSWITH ''", [1, 2, 3, 4, 5, 6, 7, 8]),  // every string begins with "" (realm-core)
        People("name CONTAINS ''", [1, 2, 3, 4, 5, 6, 7, 8]),
        People("nickname ENDSWITH ''", [1, 3, 4, 5, 6, 7]),         // not nil
        People("name ENDSWITH $0", [Optional<String>.none], [1, 2, 3, 4, 5, 6, 7, 8]),  // every value ends with nil
        People("nickname CONTAINS NULL", [1, 2, 3, 4, 5, 6, 7, 8]),
        People("nickname LIKE NULL", [2, 8]),
        People("NULL CONTAINS nickname", []),
        People("NULL LIKE nickname", [2, 8]),
        People("name.@size == 3", [2]),                                 // bytes: 日本語 is 9
        People("nickname.@count > 6", [4, 5, 6]),                      // émile is 6 bytes; nil has no length
        People("name CONTAINS[c] {'li', 'ob'}", [1, 2]),
        People("nickname BEGINSWITH 'A'", [1]),
        People("NOT nickname CONTAINS 'x'", [1, 2, 3, 4, 5, 6, 7, 8]),
        People("nickname CONTAINS[c] 'i'", [3, 6]),     // émile, nihongo (ί is Greek)
        People("name IN {'alice', 'BOB'}", []),
        People("photo BEGINSWITH B64\"AQ==\"", [1]),
        People("photo CONTAINS B64\"Ag==\"", [1]),
        People("photo ENDSWITH B64\"Aw==\"", [1]),
        People("photo ==[c] B64\"YWI=\"", [5]),           // "ab" ASCII-case-insensitively equals "AB"
        People("photo BEGINSWITH B64\"\"", [1, 3, 4, 5]),  // every non-nil value
        People("photo LIKE B64\"Pw==\"", [3]),            // "?" matches any one byte
    ]

    @Test(arguments: stringsCases) func strings(_ c: People) throws { try check(c) }

    static let unicodeFoldingCases: [QueryCase<[Int]>] = [
        QueryCase("text ==[c] 'ꮳꮃꭹ'", [0, 1]),
        QueryCase("text ==[c] 'ᏣᎳᎩ'", [0, 1]),
        QueryCase("text == 'ꮳꮃꭹ'", [1]),
        QueryCase("text ==[c] 'აბგ'", [2, 3]),
        QueryCase("text ==[c] '𐐨𐐩'", [4, 5]),
        QueryCase("text BEGINSWITH[c] '𐐀'", [4, 5]),
        QueryCase("text ==[c] 'FFI'", [6]),
        QueryCase("text ==[c] 'strasse'", [7, 8]),
        QueryCase("text CONTAINS[c] 'ß'", [7, 8]),
        QueryCase("text ==[c] '\u{01C6}emal'", [9, 10]),         // ǅ, Ǆ and ǆ are one letter
        QueryCase("text ==[c] 'd\u{17E}emal'", []),              // d + ž is two
        QueryCase("text ==[c] 'ii'", [12]),               // ı is not i under default folding
        QueryCase("text ==[c] 'ıi'", [11]),
        QueryCase("text == 'caf\u{E9}'", [13]),         // byte equality without modifiers
        QueryCase("text ==[d] 'cafe'", [13, 14]),
        QueryCase("text ==[cd] 'CAFÉ'", [13, 14, 15]),
        QueryCase("text LIKE[c] 'caf?'", [13, 14, 15]),   // a character with its combining mark is one ?
        QueryCase("text ==[cd] 'αθηναι'", [16, 17]),
        QueryCase("text ==[c] 'αθηναι'", [17]),
        QueryCase("text ==[d] 'かっこう'", [18, 19]),
        QueryCase("text ==[d] 'שלום'", [20, 21]),
        QueryCase("text ==[d] 'ore'", [23]),              // ø is a letter of its own
        QueryCase("text ==[cd] 'ØRE'", [22]),
        QueryCase("text == nil", [24]),
        QueryCase("text == ''", [25]),
        QueryCase("text !=[c] 'strasse'", [0, 1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]),
        QueryCase("bytes ==[c] $0", [Data("strasse".utf8)], [8]), // binary [c] is ASCII only: ß is two other bytes
        QueryCase("bytes CONTAINS $0", [Data("ß".utf8)], [7]),
    ]

    @Test(arguments: unicodeFoldingCases) func unicodeFolding(_ c: QueryCase<[Int]>) throws {
        #expect(try fixture.words(c.query, c.arguments).sorted() == c.expected, "\(c.query)")
    }

    // MARK: logic

    static let logicCases: [People] = [
        People("age > 30 AND isActive == true", [3, 4]),
        People("age > 30 && isActive == true", [3, 4]),
        People("age > 30 OR name == 'Bob'", [2, 3, 4, 8]),
        People("age > 30 || name == 'Bob'", [2, 3, 4, 8]),
        People("NOT age > 30", [1, 2, 5, 6, 7]),
        People("!(age > 30)", [1, 2, 5, 6, 7]),
        People("NOT NOT age > 30", [3, 4, 8]),
        People("TRUEPREDICATE", [1, 2, 3, 4, 5, 6, 7, 8]),
        People("FALSEPREDICATE", []),
        People("NOT FALSEPREDICATE AND age == 0", [6]),
        People("(age < 26 OR age > 39) AND NOT isActive == false", [3, 7]),
        People("NOT (age == 30 OR age == 40)", [2, 4, 6, 7, 8]),
        People("age == 30 OR age == 40 AND isActive == false", [1, 5]),   // AND binds tighter
        People("(age == 30 OR age == 40) AND isActive == false", [5]),
        People("name == 'Bob' AND age > 3", [2]),                          // index term ANDed with a scan
        People("code == 7 AND NOT (name BEGINSWITH 'A')", [3, 8]),
        People("code == 7 OR height == nil", [1, 2, 3, 5, 8]),
        People("tags == 'red' OR dogs.name == 'Max' OR age < 0", [1, 6, 7]),
    ]

    @Test(arguments: logicCases) func logic(_ c: People) throws { try check(c) }

    // MARK: key paths through links, lists and linking objects; quantifiers

    static let personPathsCases: [People] = [
        People("bestFriend.name == 'Bob'", [1]),
        People("bestFriend.age == nil", [2, 6, 7]),                        // through a nil link
        People("bestFriend.nickname == nil", [1, 2, 6, 7]),
        People("bestFriend.bestFriend.name == 'Alice'", [5]),
        People("dogs.name == 'Rex'", [1, 3]),                              // bare = ANY
        People("ANY dogs.age > 4", [1, 6, 8]),
        People("SOME dogs.age > 4", [1, 6, 8]),
        People("ALL dogs.age > 2", [1, 2, 3, 5, 6, 7, 8]),                 // true for no dogs
        People("NONE dogs.age > 4", [2, 3, 4, 5, 7]),
        People("dogs.owner.name == 'Émile'", [3]),
        People("dogs.weight == nil", [1, 8]),
        People("ANY dogs.owners.name == 'a*b?c'", [1, 8]),
        People("tags == 'blue'", [1, 4]),
        People("ANY tags ==[c] 'red'", [1, 3]),
        People("ALL tags BEGINSWITH 'b'", [2, 5, 8]),
        People("NONE tags == 'blue'", [2, 3, 5, 6, 7, 8]),
        People("'blue' IN tags", [1, 4]),
        People("tags IN {'green', '日本'}", [4, 6]),
        People("scores > 4", [3, 4]),
        People("ALL scores > 0", [1, 2, 3, 4, 5, 8]),
        People("ALL scores BETWEEN {2, 4}", [2, 5, 8]),   // BETWEEN on a list needs ALL (realm-core)
        People("ratings == nil", [1, 4]),
        People("ANY ratings > 2.5", [1, 3]),
        People("NONE ratings == nil", [2, 3, 5, 6, 7, 8]),
    ]

    @Test(arguments: personPathsCases) func personKeyPaths(_ c: People) throws { try check(c) }

    static let dogPathsCases: [Dogs] = [
        Dogs("owner.name == 'Alice'", ["Rex", "Fido"]),
        Dogs("owner.age > 30", ["Bella", "Luna"]),
        Dogs("owner == nil", ["Max"]),
        Dogs("owner.age == nil", ["Max"]),
        Dogs("owner.bestFriend.name == 'Bob'", ["Rex", "Fido"]),
        Dogs("owners.name == 'Alice'", ["Rex", "Fido"]),
        Dogs("ALL owners.age > 26", ["Rex", "Fido", "Bella", "Luna"]),
        Dogs("NONE owners.isActive == true", ["Max"]),
        Dogs("@links.Person.dogs.name BEGINSWITH 'a'", ["Fido"]),
        Dogs("nicknames == nil", ["Bella", "Luna"]),
        Dogs("nicknames BEGINSWITH 'M'", ["Max"]),
        Dogs("ALL nicknames != nil", ["Rex", "Fido", "Max"]),
        Dogs("name == 'Rex'", ["Rex"]),
        Dogs("age == 3", ["Rex", "Luna"]),
        Dogs("age IN {1, 10}", ["Bella", "Max"]),
        Dogs("age == 3.0", ["Rex", "Luna"]),
        Dogs("age == 3.5", []),
        Dogs("weight == nil", ["Fido"]),
    ]

    @Test(arguments: dogPathsCases) func dogKeyPaths(_ c: Dogs) throws { try check(c) }

    // MARK: aggregates and SUBQUERY

    static let personAggregatesCases: [People] = [
        People("dogs.@count == 0", [2, 5, 7]),
        People("dogs.@size > 1", [1, 3]),
        People("tags.@count == 2", [1, 4]),
        People("scores.@sum == 10", [3, 4]),
        People("scores.@sum == 0", [2, 5, 7, 8]),                          // empty sums are 0
        People("scores.@min == 5", [4]),
        People("scores.@max > 2", [1, 3, 4]),
        People("scores.@avg == 2", [1]),
        People("scores.@avg == nil", [2, 5, 8]),                           // empty: nil
        People("scores.@min == nil", [2, 5, 8]),
        People("ratings.@avg > 3", [1]),                                   // nil elements skipped
        People("ratings.@sum == 3", [3, 6]),
        People("ratings.@max == nil", [2, 4, 5, 7, 8]),                    // only nils, or empty
        People("dogs.@avg.age > 3", [1, 6, 8]),
        People("dogs.@max.weight == 30", [6]),
        People("dogs.@min.weight < 10", [4]),
        People("dogs.@sum.age == 8", [1]),
        People("dogs.@count == scores.@count", [2, 5, 6]),
        People("SUBQUERY(dogs, $d, $d.age > 2 AND $d.weight > 15).@count > 0", [1, 3, 6]),
        People("SUBQUERY(dogs, $d, age >= 3).@count == 2", [1, 3]),
        People("SUBQUERY(dogs, $d, $d.owner.name == 'Alice').@count >= 1", [1, 3, 8]),
        People("SUBQUERY(dogs, $d, ANY $d.nicknames == nil).@count > 0", [3, 4]),
        People("SUBQUERY(dogs, $d, SUBQUERY($d.owners, $o, $o.age > 35).@count > 0).@count > 0", [1, 3, 8]),
        People("SUBQUERY(dogs, $d, $d.age > 100).@count == 0", [1, 2, 3, 4, 5, 6, 7, 8]),
        People("SUBQUERY(dogs, $d, $d.age == 3).@count == 2 AND age > 35", [3]),
    ]

    @Test(arguments: personAggregatesCases) func personAggregates(_ c: People) throws { try check(c) }

    static let dogAggregatesCases: [Dogs] = [
        Dogs("owners.@count == 2", ["Rex", "Fido"]),
        Dogs("owners.@avg.age > 50", ["Fido"]),
        Dogs("owners.@min.age == 0", ["Max"]),
        Dogs("nicknames.@count == 2", ["Max", "Luna"]),
        Dogs("SUBQUERY(owners, $o, $o.isActive == true).@count == 1", ["Fido", "Bella", "Luna"]),
    ]

    @Test(arguments: dogAggregatesCases) func dogAggregates(_ c: Dogs) throws { try check(c) }

    // MARK: nil and NULL

    static let nilsCases: [People] = [
        People("nickname == nil", [2, 8]),
        People("nickname == NULL", [2, 8]),
        People("nil == nickname", [2, 8]),
        People("nickname != nil", [1, 3, 4, 5, 6, 7]),
        People("nickname == ''", [7]),
        People("nickname > 'a'", [3, 5, 6]),                               // nil is the smallest string (Realm)
        People("nickname <= 'a'", [1, 2, 4, 7, 8]),
        People("nickname >= 'A' AND nickname <= 'z'", [1, 4, 6]),
        People("nickname != 'Ally'", [2, 3, 4, 5, 6, 7, 8]),               // nil != value
        People("nickname IN {nil, 'Ally'}", [1, 2, 8]),
        People("height == nil", [2, 5]),
        People("height != nil", [1, 3, 4, 6, 7, 8]),
        People("height == $0", [Optional<Double>.none], [2, 5]),
        People("height IN {nil, 1.5}", [2, 5, 6]),
        People("height > 0", [1, 3, 4, 6, 8]),
        People("NOT height > 0", [2, 5, 7]),
        People("born != nil", [1, 3, 4, 5]),
        People("uid != nil AND photo == nil", []),
        People("photo == nil", [2, 6, 7, 8]),
        People("code == nil", [2, 5, 7]),
        People("code < 8", [1, 3, 6, 8]),
    ]

    @Test(arguments: nilsCases) func nils(_ c: People) throws { try check(c) }

    // MARK: arguments

    static let argumentCasesCases: [People] = [
        People("age > $0", [30], [3, 4, 8]),
        People("age > %d", [30], [3, 4, 8]),
        People("name == %@", ["Bob"], [2]),
        People("height > %f", [1.7], [3, 8]),
        People("%K == %@", ["name", "Bob"], [2]),
        People("%K > %d", ["age", 35], [3, 8]),
        People("%K.%K == %@", ["bestFriend", "name", "Alice"], [3, 8]),
        People("age IN $0", [[30, 0]], [1, 5, 6]),
        People("age == $0", [[30, 40]], [1, 3, 5]),                 // a list on the right of == means IN
        People("age IN %@", [Set([25])], [2]),
        People("age BETWEEN $0", [[0, 25]], [2, 6]),
        People("age BETWEEN %@", [[Int8(-5), Int8(0)]], [6, 7]),
        People("name BEGINSWITH[c] $1 AND age > $0", [20, "s"], [4]),
        People("$1 == age OR $1 == code", [0, 9], [4]),
        People("born > $0", [Date(timeIntervalSince1970: 631_152_000)], [4]),
        People("born == $0", [Date(timeIntervalSince1970: 329_920_200)], [3]),
        People("uid == $0", [QueryFixture.uids[1]], [3]),
        People("oid == $0", [QueryFixture.oid(6)], [6]),
        People("photo == $0", [Data([0xFF])], [3]),
        People("photo BEGINSWITH %@", [Data([1, 2])], [1]),
        People("isActive == $0", [true], [1, 3, 4, 7]),
        People("weight == $0", [Float(60.5)], [1]),
        People("weight == $0", [NSNumber(value: 75)], [3]),
        People("height IN $0", [[1.5, 2.0] as [Double]], [6, 8]),
        People("tags IN $0", [["red", "green"]], [1, 4]),
        People("name IN $0", [[String]()], []),
        People("ANY scores IN $0", [[10, -1]], [3, 6]),
        People("SUBQUERY(dogs, $d, %K > %@).@count > 0", ["age", 4], [1, 6, 8]),
    ]

    @Test(arguments: argumentCasesCases) func arguments(_ c: People) throws { try check(c) }

    // MARK: literals

    static let literalsCases: [People] = [
        People("age == 0x1E", [1, 5]),
        People("age == 0x64", [8]),
        People("age == -5", [7]),
        People("age > -0x1", [1, 2, 3, 4, 5, 6, 8]),
        People("height == 1.8e0", [3]),
        People("weight > 9.5e1", [8]),
        People("height == 18E-1", [3]),
        People("name == \"Bob\"", [2]),
        People("name == 'a*b?c'", [8]),
        People("name == \"\u{C9}mile\"", [3]),
        People("name == '\\u00c9mile'", []),                // the text as written: backslash, u, 0, 0, c, 9, …
        People("nickname == \"\"", [7]),
        People("name == 'Bob' AND nickname == NULL", [2]),
        People("isActive == TRUE AND age == 40", [3]),
        People("born == 1990-01-01@00:00:00:0", [1]),
        People("born == 1969-07-20T20:17:40", [5]),
        People("born == T-14182940:0", [5]),
        People("uid == uuid(33333333-3333-3333-3333-333333333333)", [5]),
        People("oid == oid(000000000000000000000007)", [7]),
        People("photo == B64\"QUI=\"", [5]),
    ]

    @Test(arguments: literalsCases) func literals(_ c: People) throws { try check(c) }
}

