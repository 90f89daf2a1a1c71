// Port of realm-swift's Realm/Tests/LinkingObjectsTests.mm (realm-swift has no Swift suite for
// linking objects), expected values kept, with its PersonObject model.
//
// Not ported:
// - testRenamedProperties — `propertiesMapping()`;
// - in testLinkingObjectsOnUnmanagedObject, the queries, sorting and aggregates of an unmanaged
//   object's linking objects (Atoll: a programming error, RealmSwift: empty results) and
//   `indexOfObjectWhere` — the count, first, last, iteration and KVC parts are ported; observing
//   them is a misuse in both (RealmSwift raises, Atoll stops).

import Atoll
import AtollTestSupport
import Foundation
import Testing

/// realm-swift's PersonObject (RLMTestObjects): a person with children and parents.
class PersonObject: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var children: List<PersonObject>
    @Persisted(originProperty: "children") var parents: LinkingObjects<PersonObject>
}

@Suite struct LinkingObjectsTests {
    let t = RealmTestCase()

    private func asArray<C: Sequence>(_ collection: C) -> [String] where C.Element == PersonObject {
        collection.map(\.name)
    }

    @Test func testBasics() throws {
        let realm = try t.realmWithTestPath()
        realm.beginWrite()
        let hannah = realm.create(PersonObject.self, value: ["Hannah", 0])
        let mark = realm.create(PersonObject.self, value: ["Mark", 30, [hannah]])
        let hannahsParents = hannah.parents
        #expect(asArray(hannahsParents) == ["Mark"])
        #expect(hannahsParents.first!.isSameObject(as: mark))
        try realm.commitWrite()
        #expect(asArray(hannahsParents) == ["Mark"])

        realm.beginWrite()
        realm.create(PersonObject.self, value: ["Diane", 29, [hannah]])
        try realm.commitWrite()
        #expect(asArray(hannahsParents) == ["Mark", "Diane"])

        realm.beginWrite()
        realm.delete(hannah)
        try realm.commitWrite()
        #expect(asArray(hannahsParents) == [])
    }

    @Test func testLinkingObjectsOnUnmanagedObject() throws {
        let don = PersonObject(value: ["Don", 60, []])
        #expect(don.parents.count == 0)
        #expect(don.parents.first == nil)
        #expect(don.parents.last == nil)
        for _ in don.parents { Issue.record("Got an item in empty linking objects") }
        #expect(don.parents.value(forKey: "age").isEmpty)
        let mark = PersonObject(value: ["Mark", 30, []])
        #expect(don.parents.index(of: mark) == nil)
    }

    @Test func testLinkingObjectsOnFrozenObject() throws {
        let realm = try t.realmWithTestPath()
        realm.beginWrite()
        let hannah = realm.create(PersonObject.self, value: ["Hannah", 0])
        let mark = realm.create(PersonObject.self, value: ["Mark", 30, [hannah]])
        try realm.commitWrite()

        let frozenHannah = hannah.freeze()
        let frozenMark = mark.freeze()
        #expect(asArray(frozenHannah.parents) == ["Mark"])
        #expect(frozenHannah.parents.first!.isSameObject(as: frozenMark))

        realm.beginWrite()
        let diane = realm.create(PersonObject.self, value: ["Diane", 29, [hannah]])
        try realm.commitWrite()

        let frozenHannah2 = hannah.freeze()
        #expect(asArray(frozenHannah.parents) == ["Mark"])
        #expect(asArray(frozenHannah2.parents) == ["Mark", "Diane"])
        #expect(frozenHannah2.parents.last!.isSameObject(as: diane.freeze()))

        realm.beginWrite()
        realm.delete(hannah)
        try realm.commitWrite()
        #expect(asArray(frozenHannah.parents) == ["Mark"])
        #expect(asArray(frozenHannah2.parents) == ["Mark", "Diane"])
    }

    @Test func testFilteredLinkingObjects() throws {
        let realm = try t.realmWithTestPath()
        realm.beginWrite()
        let hannah = realm.create(PersonObject.self, value: ["Hannah", 0])
        let mark = realm.create(PersonObject.self, value: ["Mark", 30, [hannah]])
        realm.create(PersonObject.self, value: ["Diane", 29, [hannah]])
        let hannahsParents = hannah.parents
        // Three separate queries so that accessing a property on one doesn't invalidate testing
        // of other properties.
        let resultsA = hannahsParents.filter("age > 25")
        let resultsB = hannahsParents.filter("age > 25")
        let resultsC = hannahsParents.filter("age > 25")
        mark.children.removeAll()
        try realm.commitWrite()

        #expect(resultsA.count == 1)
        #expect(resultsB.firstIndex { $0.name == "Mark" } == nil)
        #expect(asArray(resultsC) == ["Diane"])
    }

    @Test func testNotificationSentInitially() throws {
        let realm = try t.realmWithTestPath()
        realm.beginWrite()
        let hannah = realm.create(PersonObject.self, value: ["Hannah", 0])
        realm.create(PersonObject.self, value: ["Mark", 30, [hannah]])
        try realm.commitWrite()

        var calls: [[String]] = []
        let token = hannah.parents.observe { change in
            if case .initial(let parents) = change { calls.append(parents.map(\.name)) } else { Issue.record("\(change)") }
        }
        #expect(calls == [["Mark"]])
        token.invalidate()
    }

    @Test func testNotificationSentAfterCommit() throws {
        let realm = try t.realmWithTestPath()
        realm.beginWrite()
        let hannah = realm.create(PersonObject.self, value: ["Hannah", 0])
        try realm.commitWrite()

        var kinds: [String] = []
        let token = hannah.parents.observe { change in
            switch change {
            case .initial: kinds.append("initial")
            case .update: kinds.append("update")
            case .error(let e): Issue.record("\(e)")
            }
        }
        #expect(kinds == ["initial"])
        let configuration = t.configurationWithTestPath()
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write {
                realm.create(PersonObject.self, value: ["Mark", 30, Array(realm.objects(PersonObject.self).filter("name == 'Hannah'"))])
            }
        }
        realm.refresh()
        #expect(kinds == ["initial", "update"])
        token.invalidate()
    }

    @Test func testNotificationNotSentForUnrelatedChange() throws {
        let realm = try t.realmWithTestPath()
        realm.beginWrite()
        let hannah = realm.create(PersonObject.self, value: ["Hannah", 0])
        try realm.commitWrite()

        var calls = 0
        let token = hannah.parents.observe { _ in calls += 1 }
        #expect(calls == 1)
        let configuration = t.configurationWithTestPath()
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write {}
        }
        realm.refresh()
        #expect(calls == 1, "an unrelated write transaction does not call the block again")
        token.invalidate()
    }

    @Test func testNotificationSentOnlyForActualRefresh() throws {
        let realm = try t.realmWithTestPath()
        realm.beginWrite()
        let hannah = realm.create(PersonObject.self, value: ["Hannah", 0])
        try realm.commitWrite()

        var calls = 0
        let token = hannah.parents.observe { _ in calls += 1 }
        #expect(calls == 1)
        // Turn off autorefresh, so the background commit should not result in a notification
        realm.autorefresh = false
        let configuration = t.configurationWithTestPath()
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            try! realm.write {
                realm.create(PersonObject.self, value: ["Mark", 30, Array(realm.objects(PersonObject.self).filter("name == 'Hannah'"))])
            }
        }
        #expect(calls == 1)
        realm.refresh()
        #expect(calls == 2)
        token.invalidate()
    }

    @Test func testDeletingObjectWithNotificationsRegistered() throws {
        let realm = try t.realmWithTestPath()
        realm.beginWrite()
        let hannah = realm.create(PersonObject.self, value: ["Hannah", 0])
        let mark = realm.create(PersonObject.self, value: ["Mark", 30, [hannah]])
        try realm.commitWrite()

        var calls = 0
        let token = hannah.parents.observe { _ in calls += 1 }
        #expect(calls == 1)
        realm.beginWrite()
        realm.delete(mark)
        try realm.commitWrite()
        #expect(calls == 2)
        #expect(hannah.parents.count == 0)
        token.invalidate()
    }
}
