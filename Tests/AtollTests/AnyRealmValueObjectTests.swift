import Atoll
import Foundation
import Testing

// `AnyRealmValue.object`: a link to an object of any class in a mixed property, list, set or map.
// testObject and the end of testAssortment are ported from realm-swift
// RealmSwift/Tests/AnyRealmValueTests.swift (AnyRealmValueObjectTests), with its values; the
// rest checks what realm-core specifies for a typed link: a deleted target reads as nil in a
// property and a map and leaves lists and sets, and `@type` names it 'objectlink' (or 'link').

final class MixedStringObject: Object {
    @Persisted var stringCol = ""
}

final class MixedKeyedObject: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

final class MixedHolder: Object {
    @Persisted var name = ""
    @Persisted var anyValue: AnyRealmValue
    @Persisted var anyList: List<AnyRealmValue>
    @Persisted var anySet: MutableSet<AnyRealmValue>
    @Persisted var anyMap: Map<String, AnyRealmValue>
}

@Suite struct AnyRealmValueObjectTests {
    func realm(_ function: String = #function) throws -> Realm {
        try Realm(configuration: freshConfiguration([MixedStringObject.self, MixedKeyedObject.self, MixedHolder.self], function: function))
    }

    // realm-swift AnyRealmValueObjectTests.testObject
    @Test func testObject() throws {
        let o = MixedHolder()
        let so = MixedStringObject()
        so.stringCol = "hello"
        o.anyValue = .object(so)
        #expect(o.anyValue.object(MixedStringObject.self)?.stringCol == "hello")
        o.anyValue.object(MixedStringObject.self)?.stringCol = "there"
        #expect(o.anyValue.object(MixedStringObject.self)?.stringCol == "there")
        let realm = try realm()
        try realm.write { realm.add(o) }
        #expect(o.anyValue.object(MixedStringObject.self)?.stringCol == "there")
        #expect(so.realm != nil, "the object in the value was added with its holder")
        try realm.write { o.anyValue.object(MixedStringObject.self)?.stringCol = "bye!" }
        #expect(o.anyValue.object(MixedStringObject.self)?.stringCol == "bye!")
        #expect(realm.objects(MixedStringObject.self).count == 1)
    }

    // The end of realm-swift's testAssortment: a managed mixed property that held other values
    // takes an object.
    @Test func testAssortmentEndsWithAnObject() throws {
        let realm = try realm()
        let o = MixedHolder()
        try realm.write { realm.add(o) }
        try realm.write { o.anyValue = .int(123) }
        #expect(o.anyValue.intValue == 123)
        let so = MixedStringObject()
        so.stringCol = "hello"
        try realm.write { o.anyValue = .object(so) }
        #expect(o.anyValue.object(MixedStringObject.self)?.stringCol == "hello")
        #expect(o.anyValue.object(MixedKeyedObject.self) == nil, "object(_:) of another class is nil")
        #expect(o.anyValue.intValue == nil)
    }

    @Test func aDeletedObjectReadsAsNoneAndLeavesListsAndSets() throws {
        let realm = try realm()
        let a = MixedKeyedObject(), b = MixedKeyedObject()
        a.id = 1; a.name = "a"; b.id = 2; b.name = "b"
        let holder = MixedHolder()
        holder.anyValue = .object(a)
        holder.anyList.append(objectsIn: [.object(a), .int(1), .object(b)])
        holder.anySet.insert(objectsIn: [.object(a), .object(b), .string("s")])
        holder.anyMap["a"] = .object(a)
        holder.anyMap["b"] = .object(b)
        try realm.write { realm.add(holder) }
        #expect(holder.anyValue == .object(a))
        #expect(holder.anyList.count == 3)
        #expect(holder.anyList[2].object(MixedKeyedObject.self)?.name == "b")
        #expect(holder.anySet.count == 3)
        #expect(holder.anySet.contains(.object(b)))
        #expect(holder.anyMap["b"]?.object(MixedKeyedObject.self)?.name == "b")

        try realm.write { realm.delete(a) }
        #expect(holder.anyValue == .none)
        #expect(Array(holder.anyList) == [.int(1), .object(b)])
        #expect(Array(holder.anySet) == [.string("s"), .object(b)])
        #expect(holder.anyMap["a"] == AnyRealmValue.none, "a map keeps the key, with nil")
        #expect(holder.anyMap.count == 2)
    }

    @Test func setsAndMapsAndListsTakeObjectsThroughTheirWholeAPI() throws {
        let realm = try realm()
        let holder = MixedHolder()
        try realm.write { realm.add(holder) }
        let so = MixedStringObject()
        so.stringCol = "x"
        try realm.write {
            holder.anyList.append(.object(so))
            holder.anyList.insert(.int(5), at: 0)
            holder.anySet.insert(.object(so))
            holder.anySet.insert(.object(so))
            holder.anyMap["k"] = .object(so)
        }
        #expect(realm.objects(MixedStringObject.self).count == 1, "one object, added once")
        #expect(holder.anyList[1].object(MixedStringObject.self)?.stringCol == "x")
        #expect(holder.anySet.count == 1, "a set holds an object once")
        #expect(holder.anyMap["k"]?.object(MixedStringObject.self)?.stringCol == "x")
        try realm.write {
            holder.anySet.remove(.object(try #require(holder.anySet.first?.object(MixedStringObject.self))))
            holder.anyList[1] = .string("replaced")
        }
        #expect(holder.anySet.isEmpty)
        #expect(Array(holder.anyList) == [.int(5), .string("replaced")])
    }

    @Test func queriesSeeTheTypeAndCompareWithAnObject() throws {
        let realm = try realm()
        let a = MixedKeyedObject(), b = MixedKeyedObject()
        a.id = 1; b.id = 2
        try realm.write {
            for (name, value) in [("a", AnyRealmValue.object(a)), ("b", .object(b)), ("i", .int(1)), ("n", .none)] {
                let h = MixedHolder()
                h.name = name
                h.anyValue = value
                if name == "a" { h.anyList.append(.object(b)) }
                realm.add(h)
            }
        }
        let holders = realm.objects(MixedHolder.self)
        #expect(holders.filter("anyValue.@type == 'objectlink'").count == 2)
        #expect(holders.filter("anyValue.@type == 'link'").count == 2)
        #expect(holders.filter("anyValue.@type == 'int'").count == 1)
        #expect(holders.filter("anyValue == %@", a).map(\.name) == ["a"])
        #expect(holders.filter("anyValue != %@", a).count == 3)
        #expect(holders.filter("ANY anyList == %@", b).map(\.name) == ["a"])
        #expect(holders.filter("ANY anyList.@type == 'objectlink'").count == 1)
    }

    @Test func dynamicObjectAndTheDynamicAPI() throws {
        let realm = try realm()
        let so = MixedStringObject()
        so.stringCol = "some string..."
        let holder = MixedHolder()
        holder.anyValue = .object(so)
        try realm.write { realm.add(holder) }
        let dynamic = try #require(holder.anyValue.dynamicObject)
        #expect(dynamic["stringCol"] as? String == "some string...")
        #expect(AnyRealmValue.object(MixedStringObject()).dynamicObject == nil, "an unmanaged object has no dynamic form")

        let dynamicHolder = try #require(try realm.dynamicObjects(throwing: "MixedHolder").first)
        #expect((dynamicHolder["anyValue"] as? DynamicObject)?["stringCol"] as? String == "some string...")
        let other = MixedStringObject()
        other.stringCol = "other"
        try realm.write {
            realm.add(other)
            let target = try #require(try realm.dynamicObjects(throwing: "MixedStringObject").filter { $0["stringCol"] as? String == "other" }.first)
            try dynamicHolder.setValue(target, forProperty: "anyValue")
        }
        #expect(holder.anyValue.object(MixedStringObject.self)?.stringCol == "other")
    }

    @Test func jsonNamesTheObjectsClass() throws {
        let realm = try realm()
        let k = MixedKeyedObject()
        k.id = 7
        let s = MixedStringObject()
        s.stringCol = "plain"
        let holder = MixedHolder()
        holder.name = "h"
        holder.anyValue = .object(k)
        holder.anyList.append(.object(s))
        try realm.write { realm.add(holder) }
        let dynamicHolder = try #require(try realm.dynamicObjects(throwing: "MixedHolder").first)
        let json = try dynamicHolder.json(canonical: true)
        #expect(json.contains(#""anyValue":{"$link":{"class":"MixedKeyedObject","pk":7}}"#))
        #expect(json.contains(#""anyList":[{"$link":{"class":"MixedStringObject","object":{"stringCol":"plain"}}}]"#))
    }

    // realm-swift AnyRealmValueListTests<ManagedObjectFactory, SwiftStringObject>.testIndexOf with
    // its values ("a", "b", "c"), then subscripts and inserts of objects (realm-swift's
    // testSubscript expects a count of 1 after appending three values and inserting one, which
    // is not ported).
    @Test func testIndexOfAndSubscriptWithObjects() throws {
        let realm = try realm()
        let holder = MixedHolder()
        try realm.write { realm.add(holder) }
        let values: [AnyRealmValue] = ["a", "b", "c"].map { s in
            let o = MixedStringObject()
            o.stringCol = s
            return .object(o)
        }
        realm.beginWrite()
        defer { realm.cancelWrite() }
        let array = holder.anyList
        #expect(array.index(of: values[0]) == nil)
        array.append(values[0])
        #expect(array.index(of: values[0]) == 0)
        array.append(values[1])
        #expect(array.index(of: values[0]) == 0)
        #expect(array.index(of: values[1]) == 1)

        array.removeAll()
        array.append(objectsIn: values)
        array.insert(values[0], at: 0)
        #expect(array.count == 4)
        #expect(array[0].object(MixedStringObject.self)?.stringCol == "a")
        array[0] = values[1]
        #expect(array[0].object(MixedStringObject.self)?.stringCol == "b")
        #expect(realm.objects(MixedStringObject.self).count == 3)
    }
}
