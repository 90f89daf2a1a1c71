import Atoll
import Foundation
import Testing

// Collections nested in AnyRealmValue (Realm 10.51's `.list` and `.dictionary`) through the
// object API beyond realm-swift's MixedCollectionTest (RealmConformanceTests): in the elements of a
// List<AnyRealmValue> and the values of a Map<String, AnyRealmValue>, the depth limit, sets
// refusing them, links inside them to deleted objects, a write outside a transaction, freezing,
// queries through Results, the dynamic API, and JSON export and import.

final class NestedMixedDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

@Suite struct NestedMixedObjectTests {
    func realm(_ function: String = #function) throws -> Realm {
        try Realm(configuration: freshConfiguration([MixedStringObject.self, MixedKeyedObject.self, MixedHolder.self, NestedMixedDog.self], function: function))
    }

    @Test func listElementsAndMapValuesHoldNestedCollectionsThatWriteBack() throws {
        let realm = try realm()
        let o = MixedHolder()
        o.anyList.append(.int(1))
        o.anyList.append(AnyRealmValue.fromArray([.string("a"), AnyRealmValue.fromDictionary(["k": .int(2)])]))
        o.anyMap["m"] = AnyRealmValue.fromDictionary(["inner": AnyRealmValue.fromArray([.bool(true)])])
        try realm.write { realm.add(o) }

        #expect(o.anyList[1].listValue?[1].dictionaryValue?["k"] == .int(2))
        #expect(o.anyMap["m"]?.dictionaryValue?["inner"]?.listValue?[0] == .bool(true))
        try realm.write {
            o.anyList[1].listValue?.append(.double(3.5))
            o.anyList[1].listValue?[1].dictionaryValue?["k"] = .string("changed")
            o.anyMap["m"]?.dictionaryValue?["inner"]?.listValue?.insert(.int(0), at: 0)
            o.anyMap["m"]?.dictionaryValue?["new"] = AnyRealmValue.fromArray([])
        }
        #expect(o.anyList.count == 2)
        #expect(o.anyList[0] == .int(1))
        #expect(o.anyList[1].listValue?.map { $0.stringValue ?? $0.doubleValue.map { "\($0)" } ?? "?" } == ["a", "?", "3.5"])
        #expect(o.anyList[1].listValue?[1].dictionaryValue?["k"] == .string("changed"))
        #expect(o.anyMap["m"]?.dictionaryValue?["inner"]?.listValue?.map { $0 } == [.int(0), .bool(true)])
        #expect(o.anyMap["m"]?.dictionaryValue?["new"]?.listValue?.count == 0)
        // Iteration gives the same write-back collections.
        let second = Array(o.anyList)[1]
        try realm.write { second.listValue?.removeAll() }
        #expect(o.anyList[1].listValue?.count == 0)
        let viaValues = o.anyMap.values[0]
        try realm.write { viaValues.dictionaryValue?.removeObject(for: "new") }
        #expect(o.anyMap["m"]?.dictionaryValue?.keys == ["inner"])
    }

    @Test func setsRefuseNestedCollections() throws {
        let realm = try realm()
        let o = MixedHolder()
        try realm.write { realm.add(o) }
        #expect(throws: AtollError.self) {
            try realm.write { o.anySet.insert(AnyRealmValue.fromArray([.int(1)])) }
        }
        #expect(o.anySet.count == 0)
    }

    @Test func nestingDeeperThanTheLimitIsAnErrorNotACrash() throws {
        let realm = try realm()
        func nested(_ depth: Int) -> AnyRealmValue {
            var v = AnyRealmValue.int(7)
            for _ in 0..<depth { v = AnyRealmValue.fromArray([v]) }
            return v
        }
        let o = MixedHolder()
        o.anyValue = nested(100)
        try realm.write { realm.add(o) }
        var v = o.anyValue
        for _ in 0..<100 { v = v.listValue?[0] ?? .none }
        #expect(v == .int(7))
        #expect {
            try realm.write { o.anyValue = nested(101) }
        } throws: { e in
            guard let e = e as? AtollError else { return false }
            return e.kind == .limitExceeded && e.message.contains("at most 100 levels deep")
        }
        // Far deeper input is refused the same way: conversion stops at the limit. (Much deeper
        // unmanaged values than this overflow the stack when Swift releases them, before Atoll
        // sees them.)
        #expect(throws: AtollError.self) { try realm.write { o.anyValue = nested(2_000) } }
        // Growing a nested collection past the limit from inside is refused too.
        #expect(throws: AtollError.self) {
            try realm.write {
                var innermost = o.anyValue
                for _ in 0..<99 { innermost = innermost.listValue?[0] ?? .none }
                innermost.listValue?.append(AnyRealmValue.fromArray([]))
            }
        }
    }

    @Test func aDeletedObjectLeavesNestedListsAndIsNilInNestedDictionaries() throws {
        let realm = try realm()
        let rex = NestedMixedDog()
        rex.id = 1
        rex.name = "rex"
        let o = MixedHolder()
        o.anyValue = AnyRealmValue.fromDictionary(["dogs": AnyRealmValue.fromArray([.object(rex), .int(3)]), "best": .object(rex)])
        try realm.write { realm.add(o) }
        #expect(o.anyValue.dictionaryValue?["dogs"]?.listValue?[0].object(NestedMixedDog.self)?.name == "rex")
        #expect(realm.objects(NestedMixedDog.self).count == 1, "the object in the nested collection was added")
        try realm.write { realm.delete(rex) }
        #expect(o.anyValue.dictionaryValue?["dogs"]?.listValue?.map { $0 } == [.int(3)])
        #expect(o.anyValue.dictionaryValue?["best"] == AnyRealmValue.none)
    }

    @Test func frozenObjectsReadTheirNestedCollections() throws {
        let realm = try realm()
        let o = MixedHolder()
        o.anyValue = AnyRealmValue.fromArray([.int(1), AnyRealmValue.fromDictionary(["a": .string("b")])])
        try realm.write { realm.add(o) }
        let frozen = o.freeze()
        try realm.write { o.anyValue.listValue?.append(.int(2)) }
        #expect(frozen.anyValue.listValue?.count == 2)
        #expect(frozen.anyValue.listValue?[1].dictionaryValue?["a"] == .string("b"))
        #expect(o.anyValue.listValue?.count == 3)
    }

    @Test func resultsQueryNestedCollections() throws {
        let realm = try realm()
        try realm.write {
            for (i, v) in [
                AnyRealmValue.fromDictionary(["tags": AnyRealmValue.fromArray([.string("a"), .string("b")]), "n": .int(1)]),
                AnyRealmValue.fromArray([.int(5), .int(6)]),
                AnyRealmValue.int(5),
            ].enumerated() {
                let o = MixedHolder()
                o.name = "\(i)"
                o.anyValue = v
                realm.add(o)
            }
        }
        let all = realm.objects(MixedHolder.self)
        #expect(all.filter("anyValue.tags[*] == 'b'").map(\.name) == ["0"])
        #expect(all.filter("anyValue['n'] == 1").map(\.name) == ["0"])
        #expect(all.filter("anyValue[1] == 6").map(\.name) == ["1"])
        #expect(all.filter("anyValue.@size == 2").map(\.name) == ["0", "1"])
        #expect(all.filter("anyValue.@type == 'list'").map(\.name) == ["1"])
        #expect(all.filter("anyValue.@type == 'dictionary'").map(\.name) == ["0"])
        #expect(all.filter("anyValue == 5").map(\.name) == ["2"])
        #expect(all.filter("ANY anyValue[*] == 5").map(\.name) == ["1"])
    }

    @Test func queriesGoIntoListsAndMapsOfMixedValuesAndTypedSubscripts() throws {
        let realm = try realm()
        try realm.write {
            let a = MixedHolder()
            a.name = "a"
            a.anyValue = AnyRealmValue.fromArray([AnyRealmValue.fromDictionary(["k": .string("x")]), .int(2)])
            a.anyList.append(AnyRealmValue.fromDictionary(["k": .string("x"), "n": .int(1)]))
            a.anyMap["tickets"] = AnyRealmValue.fromArray([.int(0), .int(1), .int(4)])
            realm.add(a)
            let b = MixedHolder()
            b.name = "b"
            b.anyValue = AnyRealmValue.fromDictionary(["k": AnyRealmValue.fromArray([.int(1), .int(2), .int(3)])])
            b.anyList.append(AnyRealmValue.fromArray([.int(7), .int(8)]))
            b.anyMap["tickets"] = AnyRealmValue.fromArray([.int(2), .int(3), .int(4)])
            realm.add(b)
        }
        let all = realm.objects(MixedHolder.self)
        // Lists and maps of mixed values, in the string query language.
        #expect(all.filter("anyList[0].k == 'x'").map(\.name) == ["a"])
        #expect(all.filter("ANY anyList[*]['k'] == 'x'").map(\.name) == ["a"])
        #expect(all.filter("anyList[*][1] == 8").map(\.name) == ["b"])
        #expect(all.filter("anyMap.tickets[0] == 2").map(\.name) == ["b"])
        #expect(all.filter("anyMap['tickets'][LAST] == 4").map(\.name) == ["a", "b"])
        #expect(all.filter("anyMap[*][1] == 1").map(\.name) == ["a"])
        #expect(all.filter("anyMap.tickets.@size == 3").map(\.name) == ["a", "b"])
        // A list literal against a nested collection, position by position.
        #expect(all.filter("anyValue.k[*] == {1, 2, 3}").map(\.name) == ["b"])
        #expect(all.filter("anyMap.tickets[*] == {0, 1, 4}").map(\.name) == ["a"])
        // The typed subscripts, through the same text.
        #expect(all.where { $0.anyValue[0]["k"] == .string("x") }.map(\.name) == ["a"])
        #expect(all.where { $0.anyValue["k"][2] == .int(3) }.map(\.name) == ["b"])
        #expect(all.where { $0.anyValue["k"].any > .int(2) }.map(\.name) == ["b"])
        #expect(all.where { $0.anyValue.any == .int(2) }.map(\.name) == ["a"])
        #expect(all.where { $0.anyValue[5] == .none }.map(\.name) == ["a", "b"])
        #expect(all.where { $0.anyValue[1] == .int(2) && $0.name == "a" }.count == 1)
        #expect(all.where { !($0.anyValue["k"][0] == .int(1)) }.map(\.name) == ["a"])
    }

    @Test func aNestedListObservedByItselfSeesItsChangesAndItsEnd() throws {
        let realm = try realm()
        let o = MixedHolder()
        o.anyValue = AnyRealmValue.fromDictionary(["list": AnyRealmValue.fromArray([.int(1), .int(2)]), "other": .int(0)])
        try realm.write { realm.add(o) }
        let list = try #require(o.anyValue.dictionaryValue?["list"]?.listValue)
        var updates: [[[Int]]] = []
        var initial = 0
        let token = list.observe { change in
            switch change {
            case .initial: initial += 1
            case .update(let l, let d, let i, let m):
                updates.append([d, i, m])
                #expect(l === list)
            case .error(let error): Issue.record("unexpected \(error)")
            }
        }
        defer { token.invalidate() }
        #expect(initial == 1)
        // A change elsewhere in the value reports nothing.
        try realm.write { o.anyValue.dictionaryValue?["other"] = .int(1) }
        #expect(updates.isEmpty)
        // Changes through another accessor: the observed list reads the new elements.
        try realm.write { o.anyValue.dictionaryValue?["list"]?.listValue?.insert(.int(0), at: 0) }
        #expect(updates.last == [[], [0], []])
        #expect(Array(list) == [.int(0), .int(1), .int(2)])
        try realm.write { o.anyValue.dictionaryValue?["list"]?.listValue?.remove(at: 1) }
        #expect(updates.last == [[1], [], []])
        try realm.write { list[1] = .string("two") }
        #expect(updates.last == [[], [], [1]])
        #expect(updates.count == 3)
        // The key assigned a scalar: every element deleted, then nothing more.
        try realm.write { o.anyValue.dictionaryValue?["list"] = .int(5) }
        #expect(updates.last == [[0, 1], [], []])
        #expect(list.isEmpty)
        try realm.write { o.anyValue.dictionaryValue?["list"] = AnyRealmValue.fromArray([.int(9)]) }
        #expect(updates.count == 4)
    }

    @Test func aNestedDictionaryObservedByItselfEndsWithItsObject() throws {
        let realm = try realm()
        let o = MixedHolder()
        o.anyList.append(AnyRealmValue.fromDictionary(["a": .int(1), "b": .int(2)]))
        try realm.write { realm.add(o) }
        let map = try #require(o.anyList[0].dictionaryValue)
        var updates: [[[String]]] = []
        let token = map.observe { change in
            if case .update(_, let d, let i, let m) = change { updates.append([d, i, m]) }
        }
        defer { token.invalidate() }
        try realm.write {
            o.anyList[0].dictionaryValue?["c"] = .int(3)
            o.anyList[0].dictionaryValue?["a"] = .int(10)
            o.anyList[0].dictionaryValue?["b"] = nil
        }
        #expect(updates == [[["b"], ["c"], ["a"]]])
        #expect(map["a"] == .int(10) && map["c"] == .int(3) && map["b"] == nil)
        // The object deleted: every key deleted.
        try realm.write { realm.delete(o) }
        #expect(updates.last == [["a", "c"], [], []])
        #expect(updates.count == 2)
    }

    @Test func aNestedListCanBeObservedOnAQueue() throws {
        let realm = try realm()
        let o = MixedHolder()
        o.anyValue = AnyRealmValue.fromArray([.int(1)])
        try realm.write { realm.add(o) }
        let list = try #require(o.anyValue.listValue)
        let log = ChangeLog<List<AnyRealmValue>>()
        let token = list.observe(on: DispatchQueue(label: "nested-observation")) { change in
            log.record(change, count: \.count)
        }
        defer { token.invalidate() }
        #expect(log.wait { $0.initial == 1 })
        try realm.write { o.anyValue.listValue?.append(.int(2)) }
        #expect(log.wait { $0.updates.count == 1 })
        #expect(log.updates == [Change(insertions: [1])])
        #expect(log.counts == [1, 2])
    }

    @Test func theDynamicAPIReadsNestedCollectionsAsArraysAndDictionaries() throws {
        let realm = try realm()
        let rex = NestedMixedDog()
        rex.id = 1
        let o = MixedHolder()
        o.name = "h"
        o.anyValue = AnyRealmValue.fromDictionary(["l": AnyRealmValue.fromArray([.int(1), .object(rex)])])
        try realm.write { realm.add(o) }
        let d = try #require(try realm.dynamicObjects(throwing: "MixedHolder").first)
        let value = try #require(d["anyValue"] as? [String: Any?])
        let list = try #require(value["l"] as? [Any?])
        #expect(list.count == 2)
        #expect(list[0] as? Int == 1)
        #expect((list[1] as? DynamicObject)?["id"] as? Int == 1)

        // Written through the dynamic API: arrays and dictionaries become nested collections.
        let dog = try #require(try realm.dynamicObjects(throwing: "NestedMixedDog").first)
        try realm.write { d["anyValue"] = ["x": [1, "two", dog] as [Any], "y": [String: Any]()] as [String: Any] }
        #expect(o.anyValue.dictionaryValue?["x"]?.listValue?[1] == .string("two"))
        #expect(o.anyValue.dictionaryValue?["x"]?.listValue?[2].object(NestedMixedDog.self)?.id == 1)
        #expect(o.anyValue.dictionaryValue?["y"]?.dictionaryValue?.count == 0)
    }

    @Test func jsonExportAndImportWriteNestedCollectionsAsArraysAndObjects() throws {
        let realm = try realm()
        let o = MixedHolder()
        o.name = "h"
        o.anyValue = AnyRealmValue.fromDictionary(["b": AnyRealmValue.fromArray([.int(1), .string("x"), .date(Date(timeIntervalSince1970: 0))]), "a": AnyRealmValue.fromDictionary([:])])
        try realm.write { realm.add(o) }
        let dump = try realm.dumpJSON(canonical: true)
        #expect(dump.contains("\"anyValue\":{\"a\":{},\"b\":[1,\"x\",{\"$date\":\"1970-01-01T00:00:00Z\"}]}"), "\(dump)")

        let copy = try self.realm()
        let document = try ImportDocument(jsonBytes: Array(dump.utf8), sourceName: "dump.json")
        try copy.write { _ = try copy.importObjects(document, update: .error) }
        #expect(try copy.dumpJSON(canonical: true) == dump)
        let imported = try #require(copy.objects(MixedHolder.self).first)
        #expect(imported.anyValue.dictionaryValue?["b"]?.listValue?[1] == .string("x"))
        #expect(imported.anyValue.dictionaryValue?["a"]?.dictionaryValue?.count == 0)
    }
}

@Suite struct NestedMixedUnmanagedTests {
    /// Step by step through a deep unmanaged value: each level is the collection it was built from.
    @Test func unmanagedNestedCollectionsReadBackLevelByLevel() throws {
        let so = MixedStringObject()
        so.stringCol = "hello"
        let inner = AnyRealmValue.fromArray([.object(so)])
        let dict = AnyRealmValue.fromDictionary(["key1": inner])
        let pair = AnyRealmValue.fromArray([inner, dict])
        let top = AnyRealmValue.fromDictionary(["key2": pair])
        let o = MixedHolder()
        o.anyValue = top
        let d1 = try #require(o.anyValue.dictionaryValue)
        let p1 = try #require(d1["key2"])
        let l1 = try #require(p1.listValue)
        #expect(l1.count == 2)
        let first = l1[0]
        let l2 = try #require(first.listValue)
        #expect(l2.count == 1)
        #expect(l2[0].object(MixedStringObject.self)?.stringCol == "hello")
        let second = try #require(l1[1].dictionaryValue)
        #expect(second["key1"]?.listValue?[0].object(MixedStringObject.self)?.stringCol == "hello")
    }
}
