import Atoll
import Foundation
import Testing

// Ported from realm-swift RealmSwift/Tests/AnyRealmValueTests.swift (AnyRealmValueTests,
// AnyRealmValueObjectTests.testAssortment, the MutableSet and Map test classes) with realm-swift's
// values (TestValueFactory.swift: ints 1, 2, 3; floats 1.1, 2.2, 3.3; strings "a", "b", "c"; ...).
// Not ported: the `.object` cases and testDynamicObjectAccessor (Atoll's AnyRealmValue holds no
// link) and KVC (`value(forKey:)`); min/max/sum/average are in AnyRealmValueAggregateTests.
// Dates are fixed instants instead of `Date()` (realm-swift compares them to a second's accuracy
// in testAssortment; a fixed instant makes the exact comparison meaningful).

final class AnyRealmTypeObject: Object {
    @Persisted var anyValue: AnyRealmValue
    @Persisted var anySet: MutableSet<AnyRealmValue>
    @Persisted var otherSet: MutableSet<AnyRealmValue>
    @Persisted var anyMap: Map<String, AnyRealmValue>
}

@Suite struct RealmSwiftAnyRealmValueTests {
    static let date = Date(timeIntervalSince1970: 1_700_000_000)
    /// realm-swift's `anyValues()` of each type (Bool's are false, true, none).
    static let valueSets: [[AnyRealmValue]] = [
        [.int(1), .int(2), .int(3)],
        [.bool(false), .bool(true), .none],
        [.float(1.1), .float(2.2), .float(3.3)],
        [.string("a"), .string("b"), .string("c")],
        [.data(Data("a".utf8)), .data(Data("b".utf8)), .data(Data("c".utf8))],
        [.date(date), .date(date.addingTimeInterval(10)), .date(date.addingTimeInterval(20))],
        [.objectId(.generate()), .objectId(.generate()), .objectId(.generate())],
        [.decimal128(Decimal128(number: NSNumber(value: 1))), .decimal128(Decimal128(number: NSNumber(value: 2))), .decimal128(Decimal128(number: NSNumber(value: 3)))],
        [.uuid(UUID()), .uuid(UUID()), .uuid(UUID())],
    ]

    func realm() throws -> Realm { try Realm(configuration: freshConfiguration([AnyRealmTypeObject.self])) }

    @Test(arguments: valueSets) func testAnyRealmValue(_ values: [AnyRealmValue]) throws {
        let o = AnyRealmTypeObject()
        o.anyValue = values[0]
        #expect(o.anyValue == values[0])
        o.anyValue = values[1]
        #expect(o.anyValue == values[1])
        let realm = try realm()
        try realm.write { realm.add(o) }
        #expect(o.anyValue == values[1])
        try realm.write { o.anyValue = values[2] }
        #expect(o.anyValue == values[2])
    }

    @Test func testAssortment() throws {
        // Reuses one mixed property for every type, unmanaged and then managed.
        let o = AnyRealmTypeObject()
        let data = Data(repeating: 1, count: 64)
        let objectId = ObjectId.generate()
        let decimal = Decimal128(floatLiteral: 12345.6789)
        func variations(_ realm: Realm?) throws {
            func check<T: Equatable>(_ value: AnyRealmValue, _ keyPath: KeyPath<AnyRealmValue, T?>, _ expected: T) throws {
                realm?.beginWrite()
                o.anyValue = value
                try realm?.commitWrite()
                #expect(o.anyValue[keyPath: keyPath] == expected)
            }
            try check(.int(123), \.intValue, 123)
            try check(.float(123.456), \.floatValue, 123.456)
            try check(.string("hello there"), \.stringValue, "hello there")
            try check(.data(data), \.dataValue, data)
            try check(.date(Self.date), \.dateValue, Self.date)
            try check(.objectId(objectId), \.objectIdValue, objectId)
            try check(.decimal128(decimal), \.decimal128Value, decimal)
        }
        try variations(nil)
        o.anyValue = .none
        let realm = try realm()
        try realm.write { realm.add(o) }
        try variations(realm)
    }

    // MARK: MutableSet<AnyRealmValue> (realm-swift AnyRealmValueMutableSetTests), managed

    @Test(arguments: valueSets) func testSetInsertRemoveContains(_ values: [AnyRealmValue]) throws {
        let realm = try realm()
        let o = AnyRealmTypeObject()
        try realm.write { realm.add(o) }
        let set = o.anySet
        try realm.write {
            #expect(set.count == 0)
            set.insert(values[0])
            #expect(set.count == 1 && set.contains(values[0]))
            set.insert(values[1])
            #expect(set.count == 2 && set.contains(values[0]) && set.contains(values[1]))
            set.insert(values[2])
            #expect(set.count == 3)
            set.insert(values[2])  // a duplicate
            #expect(set.count == 3 && values.allSatisfy { set.contains($0) })
            set.remove(values[0])
            #expect(!set.contains(values[0]) && set.contains(values[1]) && set.contains(values[2]))
            set.removeAll()
            #expect(set.count == 0)
        }
    }

    @Test(arguments: valueSets) func testSetAlgebra(_ values: [AnyRealmValue]) throws {
        let realm = try realm()
        let o = AnyRealmTypeObject()
        try realm.write { realm.add(o) }
        let set = o.anySet, other = o.otherSet
        try realm.write {
            set.insert(objectsIn: values)
            other.insert(values[0])
            #expect(other.isSubset(of: set))
            #expect(other.intersects(set))
            other.remove(values[0])
            #expect(!set.isSubset(of: other))
            #expect(!set.intersects(other))

            other.insert(values[0])
            set.formIntersection(other)
            #expect(set.count == 1 && set[0] == values[0])

            set.removeAll()
            other.removeAll()
            set.insert(values[0])
            set.insert(values[1])
            other.insert(values[0])
            other.insert(values[2])
            set.formUnion(other)
            #expect(set.count == 3 && (0..<3).allSatisfy { values.contains(set[$0]) })

            set.removeAll()
            set.insert(values[0])
            set.insert(values[1])
            set.subtract(other)
            #expect(set.count == 1 && !set.contains(values[0]) && set.contains(values[1]))
        }
    }

    // MARK: Map<String, AnyRealmValue> (realm-swift AnyRealmValueMapTests), managed

    @Test(arguments: valueSets) func testMapInsertSubscriptRemove(_ values: [AnyRealmValue]) throws {
        let realm = try realm()
        let o = AnyRealmTypeObject()
        try realm.write { realm.add(o) }
        let map = o.anyMap
        let entries = zip(["key0", "key1", "key2"], values).map { (key: $0.0, value: $0.1) }
        try realm.write {
            #expect(map.count == 0)
            for (n, entry) in entries.enumerated() {
                map[entry.key] = entry.value
                #expect(map.count == n + 1 && map.keys.count == n + 1 && map.values.count == n + 1)
                #expect(map[entry.key] == entry.value)
            }
            map[entries[1].key] = nil
            #expect(map.count == 2 && map[entries[1].key] == nil)
            #expect(Set([entries[0].key, entries[2].key]).isSubset(of: Set(map.keys)))
            // Storing .none keeps the key (a nil value, not a removal).
            map[entries[0].key] = AnyRealmValue.none
            #expect(map.count == 2 && map.keys.contains(entries[0].key))
            map.removeObject(for: entries[2].key)
            #expect(map.keys == [entries[0].key])
            map.removeAll()
            #expect(map[entries[0].key] == nil)
        }
    }

    /// Atoll's own: a set of mixed values is one set across numeric types, as realm-core's
    /// `Mixed::compare` decides (int 1, double 1.0 and decimal 1 are one element).
    @Test func aSetOfMixedValuesHoldsEqualNumbersOnce() throws {
        let realm = try realm()
        let o = AnyRealmTypeObject()
        try realm.write {
            realm.add(o)
            o.anySet.insert(objectsIn: [.int(1), .double(1.0), .decimal128(Decimal128(1)), .string("1"), .none, .bool(true), .double(0.5)])
        }
        #expect(o.anySet.count == 5)
        #expect(o.anySet.contains(.float(1)))
        // realm-core's order: null, bool, numbers by value, strings.
        #expect(Array(o.anySet) == [.none, .bool(true), .double(0.5), .int(1), .string("1")])
        #expect(realm.objects(AnyRealmTypeObject.self).filter("ANY anySet == 1.0").count == 1)
        #expect(realm.objects(AnyRealmTypeObject.self).filter("ANY anyMap == 1").count == 0)
    }
}
