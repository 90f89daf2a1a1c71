import Atoll
import Foundation
import Testing

// The query fixture of AtollQueryTests (QueryFixture) as model classes: the same people and
// dogs, so the same hand-worked results hold when queries go through Realm, Results, List and
// LinkingObjects, with arguments as Swift values.

final class QPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var name = ""
    @Persisted var age = 0
    @Persisted var nickname: String?
    @Persisted var height: Double?
    @Persisted var weight: Float = 0
    @Persisted var isActive = false
    @Persisted var born: Date?
    @Persisted var photo: Data?
    @Persisted var uid: UUID?
    @Persisted var code: Int8?
    @Persisted var bestFriend: QPerson?
    @Persisted var dogs: List<QDog>
    @Persisted var tags: List<String>
    @Persisted var scores: List<Int>
    @Persisted var ratings: List<Double?>
}

final class QDog: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted(indexed: true) var age = 0
    @Persisted var weight: Double?
    @Persisted var owner: QPerson?
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<QPerson>
}

@Suite struct QueryThroughObjectAPITests {
    let realm: Realm

    init() throws {
        realm = try Realm(configuration: freshConfiguration([QPerson.self, QDog.self]))
        let uids = [UUID(uuidString: "11111111-1111-1111-1111-111111111111"), UUID(uuidString: "22222222-2222-2222-2222-222222222222"),
                    UUID(uuidString: "33333333-3333-3333-3333-333333333333")]
        let realm = self.realm
        try realm.write {
            var dogs: [String: QDog] = [:]
            for (name, age, weight) in [("Rex", 3, 20.5), ("Fido", 5, nil), ("Bella", 1, 8.0), ("Max", 10, 30.0), ("Luna", 3, 12.0)] as [(String, Int, Double?)] {
                dogs[name] = realm.create(QDog.self, value: ["name": name, "age": age, "weight": weight as Any])
            }
            typealias Row = (id: Int, name: String, age: Int, nickname: String?, height: Double?, weight: Float, active: Bool, born: Double?,
                             photo: [UInt8]?, uid: Int?, code: Int8?, dogs: [String], tags: [String], scores: [Int], ratings: [Double?])
            let rows: [Row] = [
                (1, "Alice", 30, "Ally", 1.70, 60.5, true, 631_152_000, [1, 2, 3], 0, 7, ["Rex", "Fido"], ["red", "blue"], [1, 2, 3], [4.5, nil]),
                (2, "Bob", 25, nil, nil, 80, false, nil, nil, nil, nil, [], [], [], []),
                (3, "\u{C9}mile", 40, "\u{E9}mile", 1.80, 75, true, 329_920_200, [0xFF], 1, 7, ["Rex", "Luna"], ["Red"], [10], [3.0]),
                (4, "straße", 35, "STRASSE", 1.65, 70, true, 951_782_400, [], nil, 9, ["Bella"], ["blue", "green"], [5, 5], [nil]),
                (5, "ΣΊΣΥΦΟΣ", 30, "σίσυφος", nil, 90, false, -14_182_940, [0x41, 0x42], 2, nil, [], [], [], []),
                (6, "日本語", 0, "nihongo", 1.50, 50, false, nil, nil, nil, 0, ["Max"], ["日本"], [-1], [1.0, 2.0]),
                (7, "", -5, "", 0.0, 0, true, nil, nil, nil, nil, [], [""], [0], []),
                (8, "a*b?c", 100, nil, 2.0, 100, false, nil, nil, nil, 7, ["Fido"], [], [], []),
            ]
            var people: [Int: QPerson] = [:]
            for r in rows {
                let p = QPerson()
                p.id = r.id
                p.name = r.name
                p.age = r.age
                p.nickname = r.nickname
                p.height = r.height
                p.weight = r.weight
                p.isActive = r.active
                p.born = r.born.map { Date(timeIntervalSince1970: $0) }
                p.photo = r.photo.map { Data($0) }
                p.uid = r.uid.flatMap { uids[$0] }
                p.code = r.code
                p.dogs.append(objectsIn: r.dogs.compactMap { dogs[$0] })
                p.tags.append(objectsIn: r.tags)
                p.scores.append(objectsIn: r.scores)
                p.ratings.append(objectsIn: r.ratings)
                realm.add(p)
                people[r.id] = p
            }
            for (id, friend) in [(1, 2), (3, 1), (4, 4), (5, 3), (8, 1)] { people[id]?.bestFriend = people[friend] }
            for (name, owner) in [("Rex", 1), ("Fido", 1), ("Bella", 4), ("Luna", 3)] { dogs[name]?.owner = people[owner] }
        }
    }

    var people: Results<QPerson> { realm.objects(QPerson.self) }

    func ids(_ query: String) throws -> [Int] { try people.filter(throwing: query).map(\.id) }

    func person(_ id: Int) throws -> QPerson { try #require(realm.object(ofType: QPerson.self, forPrimaryKey: id)) }
    func dog(_ name: String) throws -> QDog { try #require(realm.object(ofType: QDog.self, forPrimaryKey: name)) }

    @Test func operatorFamiliesGiveTheSameResultsAsOnTheEngine() throws {
        let cases: [(String, [Int])] = [
            ("age BETWEEN {25, 35}", [1, 2, 4, 5]),
            ("height > 1.7", [3, 8]),
            ("weight == 60.5", [1]),
            ("code == 7", [1, 3, 8]),
            ("code == nil", [2, 5, 7]),
            ("name ==[cd] 'σισυφος'", [5]),
            ("name LIKE '???'", [2, 6]),
            ("nickname ==[c] 'straße'", [4]),
            ("bestFriend.bestFriend.name == 'Alice'", [5]),
            ("ALL dogs.age > 2", [1, 2, 3, 5, 6, 7, 8]),
            ("ratings == nil", [1, 4]),
            ("scores.@sum == 0", [2, 5, 7, 8]),
            ("dogs.@avg.age > 3", [1, 6, 8]),
            ("SUBQUERY(dogs, $d, $d.age > 2 AND $d.weight > 15).@count > 0", [1, 3, 6]),
            ("NOT (age == 30 OR age == 40)", [2, 4, 6, 7, 8]),
            ("photo == B64\"AQID\"", [1]),
            ("born < T0:0", [5]),
        ]
        for (query, expected) in cases { #expect(try ids(query) == expected, "\(query)") }
    }

    @Test func swiftValuesAsArguments() throws {
        #expect(try people.filter(throwing: "born > %@", Date(timeIntervalSince1970: 631_152_000)).map(\.id) == [4])
        #expect(try people.filter(throwing: "photo == %@", Data([0xFF])).map(\.id) == [3])
        #expect(try people.filter(throwing: "uid == $0", try #require(UUID(uuidString: "22222222-2222-2222-2222-222222222222"))).map(\.id) == [3])
        #expect(try people.filter(throwing: "bestFriend == %@", try person(1)).map(\.id) == [3, 8])
        #expect(try people.filter(throwing: "bestFriend IN %@", [try person(1), try person(4)]).map(\.id) == [3, 4, 8])
        #expect(try people.filter(throwing: "ANY dogs == %@", try dog("Luna")).map(\.id) == [3])
        #expect(try people.filter(throwing: "%@ IN dogs", try dog("Rex")).map(\.id) == [1, 3])
        #expect(try people.filter(throwing: "age IN %@", Set([25, 0])).map(\.id) == [2, 6])
        #expect(try people.filter(throwing: "code == %@", Int8(9)).map(\.id) == [4])
        #expect(try people.filter(throwing: "weight == %@", Float(60.5)).map(\.id) == [1])
        #expect(try people.filter(throwing: "nickname == %@", Optional<String>.none as Any).map(\.id) == [2, 8])
        #expect(try people.filter(throwing: "height == %@", NSNull()).map(\.id) == [2, 5])
        #expect(try people.filter(throwing: "%K > %d AND %K BEGINSWITH[c] %@", "age", 20, "name", "s").map(\.id) == [4])
        #expect(try people.filter(throwing: "age == $0 OR age == $1", 0, 100).map(\.id) == [6, 8])
    }

    @Test func collectionsOfAnObjectFilterSortAndComposeFilters() throws {
        let alice = try person(1)
        #expect(alice.dogs.filter("age > 3").map(\.name) == ["Fido"])
        #expect(try dog("Rex").owners.filter("age > 35").map(\.id) == [3])
        #expect(try dog("Fido").owners.sorted(byKeyPath: "age", ascending: false).map(\.id) == [8, 1])
        let chained = realm.objects(QPerson.self).filter("age > %d", 20).filter("isActive == true").filter("code == 7")
        #expect(chained.map(\.id) == [1, 3])
        #expect(chained.sorted(byKeyPath: "age", ascending: false).map(\.id) == [3, 1])
        #expect(realm.objects(QPerson.self).sorted(byKeyPath: "nickname").map(\.id) == [2, 8, 7, 1, 4, 6, 3, 5])
        #expect(realm.objects(QPerson.self).sorted(by: [SortDescriptor(keyPath: "isActive", ascending: false), SortDescriptor(keyPath: "age")]).map(\.id)
                == [7, 1, 4, 3, 6, 2, 5, 8])
        #expect(realm.objects(QPerson.self).distinct(by: ["isActive", "code"]).map(\.id) == [1, 2, 4, 6, 7, 8])
        #expect(realm.objects(QPerson.self).filter("TRUEPREDICATE SORT(age DESC) LIMIT(3)").map(\.id) == [8, 3, 4])
        #expect(realm.objects(QDog.self).filter("owners.@count == 2").map(\.name).sorted() == ["Fido", "Rex"])
    }

    @Test func liveResultsFollowWritesIncludingInsideTheWrite() throws {
        let active = realm.objects(QPerson.self).filter("isActive == true AND age > 30")
        #expect(active.map(\.id) == [3, 4])
        try realm.write {
            try person(2).isActive = true
            try person(2).age = 31
            #expect(active.map(\.id) == [2, 3, 4], "a query inside the write sees its changes")
            realm.delete(try person(4))
        }
        #expect(active.map(\.id) == [2, 3])
        #expect(realm.objects(QPerson.self).filter("bestFriend == nil").map(\.id) == [2, 4, 6, 7].filter { $0 != 4 })
    }

    @Test func invalidQueriesThrowWithTheProblemAndItsPosition() throws {
        for (query, fragment) in [("agee > 3", "'agee'"), ("age == 'a'", "offset 7"), ("age ==", "offset 6"), ("age.@count > 1", "@count"),
                                  ("age > $1", "offset 6"), ("isActive > 1", "cannot compare bool property 'isActive'")] {
            do {
                _ = try people.filter(throwing: query, 3)
                Issue.record("'\(query)' should throw")
            } catch let e as AtollError {
                #expect(e.kind == .invalidQuery)
                #expect(e.message.contains(fragment), "\(e.message)")
            }
        }
    }
}
