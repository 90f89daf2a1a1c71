import Atoll
import Foundation
import Testing

// MutableSet and Map through the object API: persistence, Realm's set order and map key rules,
// link-target deletion, unmanaged use before add, freezing, and notifications (set positions,
// map keys).

final class Player: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var tags: MutableSet<String>
    @Persisted var lucky: MutableSet<Int?>
    @Persisted var scores: Map<String, Int?>
    @Persisted var ratings: Map<String, Double>
    @Persisted var friends: MutableSet<Player>
    @Persisted var byRole: Map<String, Player?>
}

/// Map changes as plain values.
struct KeyChange: Equatable {
    var deletions: [String] = []
    var insertions: [String] = []
    var modifications: [String] = []
}

@Suite struct SetAndMapTests {
    func realm() throws -> Realm { try Realm(configuration: freshConfiguration([Player.self])) }

    @Test func unmanagedSetsAndMapsAreStoredWhenTheirObjectIsAdded() throws {
        let realm = try realm()
        let p = Player()
        p.name = "ann"
        p.tags.insert("b")
        p.tags.insert(objectsIn: ["a", "b", "c"])
        p.scores["level1"] = 10
        p.scores["level0"] = .some(nil)
        p.ratings["x"] = 1.5
        #expect(p.tags.count == 3)
        try realm.write { realm.add(p) }
        #expect(p.realm != nil)
        #expect(Array(p.tags) == ["a", "b", "c"], "managed, the set is in set order")
        #expect(p.scores.keys == ["level0", "level1"])
        #expect(p.scores["level0"] == .some(nil), "a key holding nil is present")
        #expect(p.scores["level1"] == 10)
        #expect(p.scores["missing"] == nil)
        #expect(p.ratings.values == [1.5])

        let again = try #require(realm.object(ofType: Player.self, forPrimaryKey: "ann"))
        #expect(again.tags.contains("c"))
        #expect(!again.tags.contains("z"))
        #expect(again.tags.index(of: "b") == 1)
    }

    @Test func setsKeepRealmsOrderAndUniqueness() throws {
        let realm = try realm()
        let p = try realm.write { realm.create(Player.self, value: ["name": "p"]) }
        try realm.write {
            for t in ["pear", "Zebra", "apple", "pear"] { p.tags.insert(t) }
            for n: Int? in [3, nil, -1, 3, nil] { p.lucky.insert(n) }
        }
        #expect(Array(p.tags) == ["Zebra", "apple", "pear"])
        #expect(Array(p.lucky) == [nil, -1, 3])
        #expect(p.lucky.min() == -1)
        #expect(p.lucky.max() == 3)
        #expect(p.lucky.sum() == 2)
        #expect(p.lucky.average() == 1)
        #expect(p.tags.sorted(ascending: false) == ["pear", "apple", "Zebra"])
        try realm.write {
            p.tags.remove("apple")
            p.tags.remove("absent")
        }
        #expect(Array(p.tags) == ["Zebra", "pear"])
        let other = MutableSet<String>()
        other.insert(objectsIn: ["pear", "kiwi"])
        try realm.write { p.tags.formUnion(other) }
        #expect(Array(p.tags) == ["Zebra", "kiwi", "pear"])
        try realm.write { p.tags.formIntersection(other) }
        #expect(Array(p.tags) == ["kiwi", "pear"])
        try realm.write { p.tags.subtract(other) }
        #expect(p.tags.isEmpty)
    }

    @Test func mapKeysFollowRealmsRulesAndAnInvalidKeyFailsTheWrite() throws {
        let realm = try realm()
        let p = try realm.write { realm.create(Player.self, value: ["name": "p"]) }
        for bad in ["", "a.b", "$a"] {
            #expect(throws: AtollError.self) { try realm.write { p.scores[bad] = 1 } }
        }
        #expect(p.scores.isEmpty, "a failed write changes nothing")
        try realm.write {
            p.scores["b"] = 2
            p.scores["a"] = 1
            p.scores["a$"] = 3
            p.scores.updateValue(nil, forKey: "c")
        }
        #expect(p.scores.keys == ["a", "a$", "b", "c"])
        #expect(p.scores.values == [1, 3, 2, nil])
        #expect(p.scores.min() == 1)
        #expect(p.scores.max() == 3)
        #expect(p.scores.sum() == 6)
        #expect(p.scores.average() == 2)
        try realm.write {
            p.scores["b"] = nil
            p.scores.removeObject(for: "a$")
        }
        #expect(p.scores.keys == ["a", "c"])
        let more: [(key: String, value: Int?)] = [(key: "a", value: 5), (key: "d", value: 4)]
        try realm.write { p.scores.merge(more) { old, new in (old ?? 0) + (new ?? 0) } }
        #expect(p.scores.asKeyValueSequence().map(\.key) == ["a", "c", "d"])
        #expect(p.scores["a"] == 6)
        try realm.write { p.scores.removeAll() }
        #expect(p.scores.count == 0)
    }

    @Test func deletingAnObjectRemovesItFromSetsAndNullsItInMaps() throws {
        let realm = try realm()
        let (ann, bob) = try realm.write {
            (realm.create(Player.self, value: ["name": "ann"]), realm.create(Player.self, value: ["name": "bob"]))
        }
        try realm.write {
            ann.friends.insert(bob)
            ann.friends.insert(bob)
            ann.byRole["captain"] = bob
            ann.byRole["keeper"] = ann
        }
        #expect(ann.friends.count == 1)
        #expect(ann.friends.filter("name == 'bob'").count == 1)
        #expect(ann.byRole.filter("name BEGINSWITH 'a'").map(\.name) == ["ann"])
        try realm.write { realm.delete(bob) }
        #expect(ann.friends.isEmpty)
        #expect(ann.byRole.keys == ["captain", "keeper"], "the key stays")
        #expect(ann.byRole["captain"] == .some(nil), "its value becomes nil")
        #expect(ann.byRole.asResults.count == 1, "results of a map hold its non-nil objects")
    }

    @Test func frozenSetsAndMapsKeepTheirVersion() throws {
        let realm = try realm()
        let p = try realm.write { realm.create(Player.self, value: ["name": "p", "tags": ["x"], "scores": ["a": 1]]) }
        #expect(Array(p.tags) == ["x"])
        let tags = p.tags.freeze()
        let scores = p.scores.freeze()
        try realm.write {
            p.tags.insert("y")
            p.scores["b"] = 2
        }
        #expect(tags.isFrozen)
        #expect(Array(tags) == ["x"])
        #expect(scores.keys == ["a"])
        #expect(Array(try #require(tags.thaw())) == ["x", "y"])
        #expect(try #require(scores.thaw()).keys == ["a", "b"])
    }

    @Test func setNotificationsReportPositionsInSetOrder() throws {
        let realm = try realm()
        let p = try realm.write { realm.create(Player.self, value: ["name": "p", "tags": ["b", "d"]]) }
        let log = ChangeLog<MutableSet<String>>()
        let token = p.tags.observe { log.record($0, count: \.count) }
        try realm.write { p.tags.insert("a") }           // a b d
        try realm.write { p.tags.insert("c") }           // a b c d
        try realm.write { p.tags.insert("c") }           // no change
        try realm.write { p.tags.remove("b") }           // a c d
        try realm.write { p.ratings["x"] = 1 }       // another property
        try realm.write { p.tags.removeAll() }
        #expect(log.initial == 1)
        #expect(log.updates == [
            Change(insertions: [0]),
            Change(insertions: [2]),
            Change(deletions: [1]),
            Change(deletions: [0, 1, 2]),
        ])
        token.invalidate()
    }

    @Test func mapNotificationsReportKeys() throws {
        let realm = try realm()
        let p = try realm.write { realm.create(Player.self, value: ["name": "p", "scores": ["a": 1, "b": 2]]) }
        let bob = try realm.write { realm.create(Player.self, value: ["name": "bob"]) }
        var changes: [KeyChange] = []
        var initial = 0
        let token = p.scores.observe { change in
            switch change {
            case .initial: initial += 1
            case .update(_, let d, let i, let m): changes.append(KeyChange(deletions: d, insertions: i, modifications: m))
            case .error(let e): Issue.record("\(e)")
            }
        }
        var roleChanges: [KeyChange] = []
        let roleToken = p.byRole.observe { change in
            if case .update(_, let d, let i, let m) = change { roleChanges.append(KeyChange(deletions: d, insertions: i, modifications: m)) }
        }
        try realm.write { p.scores["c"] = 3 }
        try realm.write { p.scores["a"] = 10 }
        try realm.write { p.scores["a"] = 10 }             // same value: no change
        try realm.write { p.scores["b"] = nil }
        try realm.write {
            p.scores["d"] = 4
            p.scores["c"] = nil
            p.scores["a"] = 11
        }
        try realm.write { p.byRole["captain"] = bob }
        try realm.write { bob.tags.insert("x") }          // the captain changed
        realm.refresh()
        #expect(initial == 1)
        #expect(changes == [
            KeyChange(insertions: ["c"]),
            KeyChange(modifications: ["a"]),
            KeyChange(deletions: ["b"]),
            KeyChange(deletions: ["c"], insertions: ["d"], modifications: ["a"]),
        ])
        #expect(roleChanges == [KeyChange(insertions: ["captain"]), KeyChange(modifications: ["captain"])])
        token.invalidate()
        roleToken.invalidate()
    }

    @Test func objectNotificationsSeeSetAndMapChanges() throws {
        let realm = try realm()
        let p = try realm.write { realm.create(Player.self, value: ["name": "p"]) }
        var names: [[String]] = []
        let token = p.observe { change in
            if case .change(_, let properties) = change { names.append(properties.map(\.name)) }
        }
        try realm.write { p.tags.insert("a") }
        try realm.write { p.scores["k"] = 1 }
        try realm.write { p.scores["k"] = 2 }
        #expect(names == [["tags"], ["scores"], ["scores"]])
        token.invalidate()
    }

    @Test func queriesReadASetAndAMapsValuesLikeAList() throws {
        let realm = try realm()
        try realm.write {
            realm.create(Player.self, value: ["name": "ann", "tags": ["x", "y"], "scores": ["a": 1, "b": 5]])
            realm.create(Player.self, value: ["name": "bob", "tags": ["y"], "scores": ["a": 2]])
            realm.create(Player.self, value: ["name": "cy"])
        }
        func names(_ predicate: String) throws -> [String] {
            try realm.objects(Player.self).filter(throwing: predicate).map(\.name).sorted()
        }
        #expect(try names("ANY tags == 'x'") == ["ann"])
        #expect(try names("'y' IN tags") == ["ann", "bob"])
        #expect(try names("tags.@count == 0") == ["cy"])
        #expect(try names("scores.@max > 3") == ["ann"])
        #expect(try names("scores.@sum == 2") == ["bob"])
        #expect(try names("ANY scores > 1") == ["ann", "bob"])
        #expect(try names("ALL scores < 3") == ["bob", "cy"])
        #expect(realm.objects(Player.self).where { $0.tags.contains("x") }.map(\.name) == ["ann"])
        #expect(realm.objects(Player.self).where { $0.tags.count > 0 }.map(\.name).sorted() == ["ann", "bob"])
    }
}
