import Atoll
import Foundation
import Testing

// Ported from realm-core test/test_parser.cpp, TEST(Parser_Dictionary) and
// TEST(Parser_DictionaryObjects), with realm-core's data and expected counts: `map['key']`,
// `map[$0]`, `map.key`, `@keys`, `@values`, `@size`, `@type`, aggregates over a map of mixed
// values. Not ported: the `obj(…)`
// literal, and `dict.@keys == {'Bar'}` / `{'Bar', 'Foo'}` (realm-core compares the whole key set
// with the list; Atoll reads `==` with a list as IN, so `ANY dict.@keys == {'Bar'}` is ported).

final class DictionaryFoo: Object {
    @Persisted var dict: Map<String, AnyRealmValue>
    override class func className() -> String { "foo" }
}

final class DictionaryOrigin: Object {
    @Persisted var link: DictionaryFoo?
    @Persisted var links: List<DictionaryFoo>
    override class func className() -> String { "origin" }
}

final class DictionaryDog: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var age = 0
    override class func className() -> String { "dog" }
}

final class DictionaryPerson: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var pets: Map<String, DictionaryDog?>
    @Persisted var friend: DictionaryPerson?
    override class func className() -> String { "person" }
}

@Suite struct MapQuerySyntaxTests {
    let realm: Realm
    /// realm-core's `expected` and `num_ints_for_value`, computed as it computes them.
    let expected: Int
    let numIntsForValue: Int

    init() throws {
        realm = try Realm(configuration: freshConfiguration([DictionaryFoo.self, DictionaryOrigin.self, DictionaryDog.self, DictionaryPerson.self]))
        var expected = 0, numIntsForValue = 0
        let realm = self.realm
        try realm.write {
            var foos: [DictionaryFoo] = []
            for i in 0..<100 {
                let foo = DictionaryFoo()
                realm.add(foo)
                let dict = foo.dict
                var incr = false, incrNumInts = false
                if i % 4 == 0 {
                    dict["Value"] = .int(i)
                    incrNumInts = true
                    if i > 50 { incr = true }
                } else if i % 10 == 0 {
                    dict["Value"] = .int(100)
                    incr = true
                    incrNumInts = true
                }
                if i % 3 != 0 {
                    dict["Value"] = .int(3)
                    incr = false
                    incrNumInts = true
                }
                if i % 5 == 0 { dict["Foo"] = .int(5) }
                if i == 78 { dict["Value"] = AnyRealmValue.none }
                dict["Bar"] = .int(i)
                if incr { expected += 1 }
                if incrNumInts { numIntsForValue += 1 }
                foos.append(foo)
            }
            for i in 0..<10 {
                let origin = DictionaryOrigin()
                origin.link = foos[i * 10]
                origin.links.append(objectsIn: foos[(i * 10)..<(i * 10 + 10)])
                realm.add(origin)
            }
        }
        self.expected = expected
        self.numIntsForValue = numIntsForValue
    }

    func foo(_ query: String, _ args: Any...) throws -> Int { try realm.objects(DictionaryFoo.self).filter(throwing: query, args).count }
    func origin(_ query: String) throws -> Int { try realm.objects(DictionaryOrigin.self).filter(throwing: query).count }

    @Test func keysValuesAndOneKey() throws {
        #expect(try foo("dict.@values > 50") == 50)
        #expect(try foo("dict['Value'] > 50") == expected)
        #expect(try foo("dict.Value > 50") == expected)
        #expect(try foo("dict[$0] > 50", "Value") == expected)
        #expect(try foo("dict[%@] > 50", "Value") == expected)
        #expect(try foo("ANY dict.@keys == 'Foo'") == 20)
        #expect(try foo("NONE dict.@keys == 'Value'") == 22)
        #expect(try foo("ANY dict.@keys == {'Bar'}") == 100)
        #expect(try foo("dict['Value'] == NULL") == 23)
        #expect(try foo("dict['Value'] == {}") == 0)
        #expect(try foo("dict['Value'] == {0, 100}") == 3)
        #expect(try foo("dict['Value'].@type == 'int'") == numIntsForValue)
        #expect(try foo("dict.@type == 'int'") == 100)
        #expect(try foo("ALL dict.@type == 'int'") == 99)
        #expect(try foo("NONE dict.@type == 'int'") == 0)
        #expect(try foo("ANY dict.@type == 'string'") == 0)
    }

    @Test func throughLinks() throws {
        #expect(try origin("link.dict['Value'] > 50") == 3)
        #expect(try origin("link.dict.Value > 50") == 3)
        #expect(try origin("links.dict['Value'] > 50") == 5)
        #expect(try origin("links.dict > 50") == 6)
        #expect(try origin("links.dict['Value'] == NULL") == 10)
        #expect(try origin("links.dict.@max == 100") == 2)
        #expect(try origin("link.dict.@max == 100") == 2)
    }

    @Test func sizeAndAggregatesOverMixedValues() throws {
        #expect(try foo("dict.@size == 3") == 17)
        #expect(try foo("dict.@max == 100") == 2)
        #expect(try foo("dict.@min < 2") == 2)
        #expect(try foo("dict.@sum >= 100") == 9)
        #expect(try foo("dict.@avg < 10") == 16)

        let first = try #require(realm.objects(DictionaryFoo.self).first)
        try realm.write { first.dict["some extra"] = .int(42) }
        #expect(try foo("dict['some extra'] == 42") == 1)
        try realm.write { first.dict["Value"] = .double(4.5) }
        // Aggregates still work with mixed types.
        #expect(try foo("dict.@max == 100") == 2)
        #expect(try foo("dict.@min < 2") == 2)
        #expect(try foo("dict.@sum >= 100") == 9)
        #expect(try foo("dict.@avg < 10") == 15)
        try realm.write { first.dict["Bar"] = .date(Date(timeIntervalSince1970: 1234.000005678)) }
        #expect(try foo("dict.@max == 100") == 2)
        #expect(try foo("dict.@min < 2") == 1)
        #expect(try foo("dict.@sum >= 100") == 9)
        #expect(try foo("dict.@avg < 10") == 15)
    }

    @Test func valuesOfAMapOfObjects() throws {
        try realm.write {
            let dog = { (name: String, age: Int) in realm.create(DictionaryDog.self, value: ["name": name, "age": age]) }
            let astro = dog("astro", 4), pluto = dog("pluto", 5), lady = dog("lady", 5), snoopy = dog("snoopy", 3)
            let adam = realm.create(DictionaryPerson.self, value: ["name": "adam"])
            adam.pets["dog1"] = pluto
            adam.pets["dog2"] = lady
            adam.pets["none"] = .some(nil)
            let bernie = realm.create(DictionaryPerson.self, value: ["name": "bernie"])
            bernie.pets["dog1"] = astro
            bernie.pets["dog2"] = snoopy
            let charlie = realm.create(DictionaryPerson.self, value: ["name": "charlie"])
            charlie.pets["dog1"] = pluto
            adam.friend = bernie
            bernie.friend = adam
        }
        let persons = realm.objects(DictionaryPerson.self)
        #expect(try persons.filter(throwing: "pets.@values.age > 4").count == 2)
        // Atoll's own: one key of a map of objects, and a property through it.
        #expect(try persons.filter(throwing: "pets['dog2'].age == 3").map(\.name) == ["bernie"])
        #expect(try persons.filter(throwing: "pets['dog2'] == nil").map(\.name) == ["charlie"])
        #expect(try persons.filter(throwing: "pets['none'] == nil").count == 3, "a nil value, or no such key")
        #expect(try persons.filter(throwing: "friend.pets['dog1'].age == 5").map(\.name) == ["bernie"])
    }

    @Test func mapSyntaxOnWhatIsNoMapIsAnError() throws {
        for query in ["links['Value'] == 1", "link.@keys == 'a'", "links.@values == 1"] {
            #expect(throws: AtollError.self, "\(query)") { _ = try origin(query) }
        }
        for query in ["dict.@keys.@keys == 'a'", "dict[1] == 1", "dict['Value' == 1", "dict.@keys > 5"] {
            #expect(throws: AtollError.self, "\(query)") { _ = try foo(query) }
        }
        // A map of mixed values goes on into the collections nested in its values (realm-core's
        // Parser_NestedDictionaryList): no such collection here, so nothing matches.
        #expect(try foo("dict['a']['b'] == 1") == 0)
        // realm-core: `dict[*] > 50` reads every value; `dict[FIRST]`, `dict[LAST]` are errors.
        #expect(try foo("dict[*] > 50") == 50)
        for query in ["dict[FIRST] > 50", "dict[LAST] > 50", "dict[0] > 50"] {
            #expect(throws: AtollError.self, "\(query)") { _ = try foo(query) }
        }
        #expect(throws: AtollError.self) { _ = try foo("dict[$0] == 1", 5) }
    }
}
