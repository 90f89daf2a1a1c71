import Atoll
import Foundation
import Testing

// realm-core test/test_parser.cpp, TEST(Parser_TypeOfValue): `@type` on mixed values, with
// realm-core's data set and expected counts. Two objects differ: realm-core puts a dictionary in
// object 17 and a link in object 19; Atoll's AnyRealmValue holds neither (no `.object`, no nested
// collections), so both keep their ints here, and the counts that include them are realm-core's
// plus or minus those two objects, as written next to each.

final class TypeOfFoo: Object {
    @Persisted var mixed: AnyRealmValue
    @Persisted var int = 0
    @Persisted var list: List<AnyRealmValue>
    override class func className() -> String { "Foo" }
}

final class TypeOfOrigin: Object {
    @Persisted var link: TypeOfFoo?
    @Persisted var links: List<TypeOfFoo>
    override class func className() -> String { "Origin" }
}

@Suite struct AnyRealmValueTypeOfTests {
    let realm: Realm
    /// realm-core's 69 ints, plus objects 17 and 19 (ints here, see above).
    static let nbInts = 69 + 2
    static let nbNumerics = nbInts + 3
    static let nbStrings = 24
    static let intOver50 = 37

    init() throws {
        realm = try Realm(configuration: freshConfiguration([TypeOfFoo.self, TypeOfOrigin.self]))
        let realm = self.realm
        try realm.write {
            var foos: [TypeOfFoo] = []
            for i in 0..<100 {
                let foo = TypeOfFoo()
                foo.mixed = i % 4 != 0 ? .int(i) : .string("String\(i)")
                foo.int = i
                realm.add(foo)
                foos.append(foo)
            }
            foos[15].mixed = .none
            foos[75].mixed = .double(75)
            foos[28].mixed = .data(Data("String2Binary".utf8))
            foos[25].mixed = .double(3)
            foos[35].mixed = .decimal128(Decimal128(3))
            foos[0].list.append(objectsIn: [.int(1), .decimal128(Decimal128(10)), .double(100)])
            foos[1].list.append(objectsIn: [.string("hello"), .int(1000)])
            for i in 0..<10 {
                let origin = TypeOfOrigin()
                origin.link = foos[i * 10]
                origin.links.append(objectsIn: foos[(i * 10)..<(i * 10 + 10)])
                realm.add(origin)
            }
        }
    }

    func foo(_ query: String, _ args: Any...) throws -> Int { try realm.objects(TypeOfFoo.self).filter(throwing: query, args).count }
    func origin(_ query: String) throws -> Int { try realm.objects(TypeOfOrigin.self).filter(throwing: query).count }

    @Test func typeNamesMatchTheValuesOfThatType() throws {
        #expect(try foo("mixed.@type == 'string'") == Self.nbStrings)
        #expect(try foo("mixed.@type == 'double'") == 2)
        #expect(try foo("mixed.@type == 'float'") == 0)
        #expect(try foo("mixed.@type == 'Decimal'") == 1)
        #expect(try foo("mixed.@type == 'decimal128'") == 1)
        #expect(try foo("mixed.@type == 'binary'") == 1)
        #expect(try foo("mixed.@type == 'bytearray'") == 1)
        #expect(try foo("mixed.@type == 'byte[]'") == 1)
        #expect(try foo("mixed.@type == 'uuid'") == 0)
        #expect(try foo("mixed.@type == 'guid'") == 0)
        #expect(try foo("mixed.@type == 'bool'") == 0)
        #expect(try foo("mixed.@type == 'boolean'") == 0)
        for name in ["int", "integer", "int16", "int32", "int64", "short", "long", "byte", "char"] {
            #expect(try foo("mixed.@type == '\(name)'") == Self.nbInts, "\(name)")
        }
        #expect(try foo("mixed.@type == 'timestamp'") == 0)
        #expect(try foo("mixed.@type == 'datetimeoffset'") == 0)
        #expect(try foo("mixed.@type == 'objectlink'") == 0, "realm-core: 1 (object 19's link)")
        #expect(try foo("mixed.@type == 'object'") == 0, "realm-core: 1 (object 17's dictionary)")
        #expect(try foo("mixed.@type == $0", "object") == 0, "realm-core: 1")
        #expect(try foo("mixed.@type == 'binary' || mixed.@type == 'DECIMAL' || mixed.@type == 'Double'") == 4)
        #expect(try foo("mixed.@type == 'null'") == 1)
        #expect(try foo("mixed.@type == 'numeric'") == Self.nbNumerics)
        #expect(try foo("mixed.@type == 'numeric' || mixed.@type == 'string' || mixed.@type == 'objectlink' || mixed.@type == 'binary' || mixed.@type == 'object' || mixed.@type == 'null'") == 100)
        #expect(try foo("mixed.@type == mixed.@type") == 100)
    }

    @Test func typeTestsThroughLinksListsAndWithOtherConditions() throws {
        #expect(try origin("link.mixed.@type == 'numeric' || link.mixed.@type == 'string'") == 10)
        #expect(try origin("links.mixed.@type == 'numeric' || links.mixed.@type == 'string'") == 10)
        #expect(try foo("mixed > 50") == Self.intOver50)
        #expect(try foo("mixed > 50 && mixed.@type == 'double'") == 1)
        #expect(try foo("mixed > 50 && mixed.@type != 'double'") == Self.intOver50 - 1)
        #expect(try foo("mixed > 50 && mixed.@type == 'int'") == Self.intOver50 - 1)

        #expect(try foo("list.@type == 'numeric'") == 2)
        #expect(try foo("list.@type == 'numeric' AND list >= 10 ") == 2)
        #expect(try foo("list.@type == mixed.@type") == 1)
        #expect(try foo("NONE list.@type == mixed.@type && list.@size > 0") == 1)
        #expect(try foo("ALL list.@type == mixed.@type && list.@size > 0") == 0)
        #expect(try foo("ALL list.@type == 'numeric' && list.@size > 0") == 1)
        #expect(try foo("NONE list.@type == 'binary' && list.@size > 0") == 2)
        #expect(try foo("NONE list.@type == 'string' && list.@size > 0") == 1)

        #expect(try origin("links.mixed > 0") == 10)
        #expect(try origin("links.mixed.@type == 'double'") == 2)
        #expect(try origin("links.mixed > 0 && links.mixed.@type == 'double'") == 2)
        #expect(try origin("SUBQUERY(links, $x, $x.mixed.@type == 'double' && $x.mixed == $x.int).@count > 0") == 1)
    }

    /// Atoll's own: IN over type names (the brief's `@type IN {'int', 'double'}`).
    @Test func typeInAListOfNames() throws {
        #expect(try foo("mixed.@type IN {'int', 'double'}") == Self.nbInts + 2)
        #expect(try foo("mixed.@type IN {'string', 'null'}") == Self.nbStrings + 1)
        #expect(try foo("NOT mixed.@type IN {'numeric'}") == 100 - Self.nbNumerics)
    }

    @Test func malformedTypeTestsAreErrors() {
        for query in [
            "mixed.@type == 'asdf'", "mixed.@type == ''", "mixed.@type == 'string|double|'", "mixed.@type == '|'",
            "mixed.@type == 23", "mixed.@type == 2.5", "mixed.@type == int", "int.@type == 'int'",
            "link.@type == 'objectlink'", "mixed.@type =[c] 'string'", "mixed.@type > 'int'",
        ] {
            #expect(throws: AtollError.self, "\(query)") {
                _ = try realm.objects(TypeOfFoo.self).filter(throwing: query).count
            }
        }
        #expect(throws: AtollError.self) { _ = try origin("links.mixed.@type IN {'numeric', 'asdf'}") }
        #expect(throws: AtollError.self) { _ = try origin("link.@type == 'objectlink'") }
    }
}
