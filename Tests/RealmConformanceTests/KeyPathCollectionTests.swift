// Port of the key-path tests of realm-swift's RealmSwift/Tests/RealmCollectionTypeTests.swift
// (testSortWithSwiftKeyPath, testSortWithDescriptorBySwiftKeyPath, test{Min,Max,Sum,Average}BySwiftKeyPath,
// testObservePartialKeyPath, testObservePartialKeyPathNoChange, testObservePartialKeyPathWithLink)
// and ObjectTests.swift (testModifyMultipleObservedPartialKeyPathLocally,
// testModifyUnobservedPartialKeyPathLocally), with realm-swift's expected values. realm-swift
// runs the collection tests on Results and on List (its subclasses); here each runs on both.
// Commits from another thread reach an observer when its realm refreshes (Atoll has no run loop
// to wait in). All 11 pass. Left out: the MutableSet, AnyRealmCollection and actor variants
// (no such types yet / async observation on actors is not part of this work).
// The models are realm-swift's CTT* models under TQ* names, so that the port of the rest of
// RealmCollectionTypeTests can add the originals without a clash.
//
// Then Atoll's own checks of the same APIs: `where` and `index(matching:)` on List and
// LinkingObjects, `distinct(by:)`, and the key-path cache.

import Atoll
import Foundation
import Testing

class TQAggregateObject: Object {
    @Persisted var intCol = 0
    @Persisted var int8Col = 0
    @Persisted var int16Col = 0
    @Persisted var int32Col = 0
    @Persisted var int64Col = 0
    @Persisted var floatCol = 0 as Float
    @Persisted var doubleCol = 0.0
    @Persisted var boolCol = false
    @Persisted var dateCol = Date()
    @Persisted var trueCol = true
    @Persisted var stringListCol: List<TQNullableStringObjectWithLink>
    @Persisted var linkCol: TQLinkTarget?
}

class TQAggregateObjectList: Object {
    @Persisted var list: List<TQAggregateObject>
}

class TQNullableStringObjectWithLink: Object {
    @Persisted var stringCol: String? = ""
    @Persisted var linkCol: TQLinkTarget?
}

class TQLinkTarget: Object {
    @Persisted var id = 0
    @Persisted(originProperty: "linkCol") var stringObjects: LinkingObjects<TQNullableStringObjectWithLink>
    @Persisted(originProperty: "linkCol") var aggregateObjects: LinkingObjects<TQAggregateObject>
}

class TQStringList: Object {
    @Persisted var array: List<TQNullableStringObjectWithLink>
}

/// The collections realm-swift's RealmCollectionTypeTests subclasses test.
enum KeyPathCollectionKind: String, CaseIterable, Sendable {
    case results, list
}

@Suite struct KeyPathCollectionTests {
    let t = RealmTestCase()

    func realm() throws -> Realm { try t.realm() }

    /// realm-swift's setUp: two strings linking to one target, and the collection of them.
    func makeCollection(_ kind: KeyPathCollectionKind) throws -> (Realm, Results<TQNullableStringObjectWithLink>, List<TQNullableStringObjectWithLink>?) {
        let target1 = TQLinkTarget()
        target1.id = 1
        let str1 = TQNullableStringObjectWithLink()
        str1.stringCol = "1"
        str1.linkCol = target1
        let str2 = TQNullableStringObjectWithLink()
        str2.stringCol = "2"
        str2.linkCol = target1
        let realm = try realm()
        var list: TQStringList?
        try realm.write {
            realm.add(str1)
            realm.add(str2)
            realm.add(target1)
            if kind == .list { list = realm.create(TQStringList.self, value: [[str1, str2]]) }
        }
        return (realm, realm.objects(TQNullableStringObjectWithLink.self), list?.array)
    }

    func makeAggregateableObjects(_ realm: Realm) -> [TQAggregateObject] {
        let obj1 = TQAggregateObject()
        obj1.intCol = 1
        obj1.int8Col = 1
        obj1.int16Col = 1
        obj1.int32Col = 1
        obj1.int64Col = 1
        obj1.floatCol = 1.1
        obj1.doubleCol = 1.11
        obj1.dateCol = Date(timeIntervalSince1970: 1)
        obj1.boolCol = false

        let obj2 = TQAggregateObject()
        obj2.intCol = 2
        obj2.int8Col = 2
        obj2.int16Col = 2
        obj2.int32Col = 2
        obj2.int64Col = 2
        obj2.floatCol = 2.2
        obj2.doubleCol = 2.22
        obj2.dateCol = Date(timeIntervalSince1970: 2)
        obj2.boolCol = false

        let obj3 = TQAggregateObject()
        obj3.intCol = 3
        obj3.int8Col = 3
        obj3.int16Col = 3
        obj3.int32Col = 3
        obj3.int64Col = 3
        obj3.floatCol = 2.2
        obj3.doubleCol = 2.22
        obj3.dateCol = Date(timeIntervalSince1970: 2)
        obj3.boolCol = false

        realm.add([obj1, obj2, obj3])
        return [obj1, obj2, obj3]
    }

    /// realm-swift's getAggregateableCollection: the three objects, as Results or as a List.
    func aggregateable(_ kind: KeyPathCollectionKind) throws -> (Results<TQAggregateObject>, List<TQAggregateObject>?) {
        let realm = try realm()
        return try realm.write {
            let objects = makeAggregateableObjects(realm)
            switch kind {
            case .results: return (realm.objects(TQAggregateObject.self), nil)
            case .list:
                let list = realm.create(TQAggregateObjectList.self, value: [objects])
                return (realm.objects(TQAggregateObject.self), list.list)
            }
        }
    }

    @Test(arguments: KeyPathCollectionKind.allCases)
    func testSortWithSwiftKeyPath(_ kind: KeyPathCollectionKind) throws {
        let (_, results, list) = try makeCollection(kind)
        if let list { try sortWithSwiftKeyPath(kind, list) } else { try sortWithSwiftKeyPath(kind, results) }
    }

    func sortWithSwiftKeyPath<C: RealmCollection>(_ kind: KeyPathCollectionKind, _ collection: C) throws
        where C.Element == TQNullableStringObjectWithLink {
        var sorted = collection.sorted(by: \.stringCol, ascending: true)
        #expect("1" == sorted[0].stringCol)
        #expect("2" == sorted[1].stringCol)

        sorted = collection.sorted(by: \.stringCol, ascending: false)
        #expect("2" == sorted[0].stringCol)
        #expect("1" == sorted[1].stringCol)

        sorted = collection.sorted(by: \.linkCol?.id, ascending: true)
        #expect("1" == sorted[0].stringCol)
        #expect("2" == sorted[1].stringCol)

        let (results, list) = try aggregateable(kind)
        let nonOptionalSorted = list.map { $0.sorted(by: \.intCol, ascending: true) } ?? results.sorted(by: \.intCol, ascending: true)
        nonOptionalSorted.enumerated().forEach { e in
            #expect(e.offset + 1 == nonOptionalSorted[e.offset].intCol)
        }
    }

    @Test(arguments: KeyPathCollectionKind.allCases)
    func testSortWithDescriptorBySwiftKeyPath(_ kind: KeyPathCollectionKind) throws {
        let (results, list) = try aggregateable(kind)
        let sorted = list.map { $0.sorted(by: [SortDescriptor(keyPath: \TQAggregateObject.intCol, ascending: true)]) }
            ?? results.sorted(by: [SortDescriptor(keyPath: \TQAggregateObject.intCol, ascending: true)])
        sorted.enumerated().forEach { e in
            #expect(e.offset + 1 == sorted[e.offset].intCol)
        }
    }

    @Test(arguments: KeyPathCollectionKind.allCases)
    func testMinBySwiftKeyPath(_ kind: KeyPathCollectionKind) throws {
        let (results, list) = try aggregateable(kind)
        func check<C: RealmCollection>(_ collection: C) where C.Element == TQAggregateObject {
            #expect(1 == collection.min(of: \.intCol))
            #expect(1 == collection.min(of: \.int8Col))
            #expect(1 == collection.min(of: \.int16Col))
            #expect(1 == collection.min(of: \.int32Col))
            #expect(1 == collection.min(of: \.int64Col))
            #expect(1.1 == collection.min(of: \.floatCol))
            #expect(1.11 == collection.min(of: \.doubleCol))
            #expect(Date(timeIntervalSince1970: 1) == collection.min(of: \.dateCol))
        }
        if let list { check(list) } else { check(results) }
    }

    @Test(arguments: KeyPathCollectionKind.allCases)
    func testMaxBySwiftKeyPath(_ kind: KeyPathCollectionKind) throws {
        let (results, list) = try aggregateable(kind)
        func check<C: RealmCollection>(_ collection: C) where C.Element == TQAggregateObject {
            #expect(3 == collection.max(of: \.intCol))
            #expect(3 == collection.max(of: \.int8Col))
            #expect(3 == collection.max(of: \.int16Col))
            #expect(3 == collection.max(of: \.int32Col))
            #expect(3 == collection.max(of: \.int64Col))
            #expect(2.2 == collection.max(of: \.floatCol))
            #expect(2.22 == collection.max(of: \.doubleCol))
            #expect(2.22 == collection.max(of: \.doubleCol))
            #expect(Date(timeIntervalSince1970: 2) == collection.max(of: \.dateCol))
        }
        if let list { check(list) } else { check(results) }
    }

    @Test(arguments: KeyPathCollectionKind.allCases)
    func testSumBySwiftKeyPath(_ kind: KeyPathCollectionKind) throws {
        let (results, list) = try aggregateable(kind)
        func check<C: RealmCollection>(_ collection: C) where C.Element == TQAggregateObject {
            #expect(6 == collection.sum(of: \.intCol))
            #expect(6 == collection.sum(of: \.int8Col))
            #expect(6 == collection.sum(of: \.int16Col))
            #expect(6 == collection.sum(of: \.int32Col))
            #expect(6 == collection.sum(of: \.int64Col))
            #expect(abs(5.5 - collection.sum(of: \.floatCol)) < 0.001)
            #expect(abs(5.55 - collection.sum(of: \.doubleCol)) < 0.001)
        }
        if let list { check(list) } else { check(results) }
    }

    @Test(arguments: KeyPathCollectionKind.allCases)
    func testAverageBySwiftKeyPath(_ kind: KeyPathCollectionKind) throws {
        let (results, list) = try aggregateable(kind)
        func check<C: RealmCollection>(_ collection: C) where C.Element == TQAggregateObject {
            #expect(2 == collection.average(of: \.intCol))
            #expect(2 == collection.average(of: \.int8Col))
            #expect(2 == collection.average(of: \.int16Col))
            #expect(2 == collection.average(of: \.int32Col))
            #expect(2 == collection.average(of: \.int64Col))
            #expect(abs(1.8333 - collection.average(of: \.floatCol)!) < 0.001)
            #expect(abs(1.85 - collection.average(of: \.doubleCol)!) < 0.001)
        }
        if let list { check(list) } else { check(results) }
    }

    /// realm-swift's expectNoChange: a commit on another thread reaches the realm, and no
    /// collection observer fires.
    func expectNoChange(_ fn: @Sendable @escaping (Realm) -> Void) throws {
        let realm = try realm()
        var refreshes = 0
        let token = realm.observe { _, _ in refreshes += 1 }
        let configuration = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            realm.beginWrite()
            fn(realm)
            try! realm.commitWrite()
        }
        realm.refresh()
        #expect(refreshes == 1)
        token.invalidate()
    }

    func writeOnAnotherThread(_ fn: @Sendable @escaping (Realm) -> Void) {
        let configuration = t.defaultConfiguration
        t.dispatchSyncNewThread {
            let realm = try! Realm(configuration: configuration)
            realm.beginWrite()
            fn(realm)
            try! realm.commitWrite()
        }
    }

    @Test(arguments: KeyPathCollectionKind.allCases)
    func testObservePartialKeyPath(_ kind: KeyPathCollectionKind) throws {
        let (realm, results, list) = try makeCollection(kind)
        if let list { try observePartialKeyPath(realm, list) } else { try observePartialKeyPath(realm, results) }
    }

    func observePartialKeyPath<C: RealmCollection>(_ realm: Realm, _ collection: C) throws where C.Element == TQNullableStringObjectWithLink {
        var calls = 0
        let token0 = collection.observe(keyPaths: [\.stringCol]) { (changes: RealmCollectionChange) in
            switch changes {
            case .initial(let collection):
                #expect(collection.count == 2)
            case .update(_, let deletions, let insertions, let modifications):
                #expect(deletions == [])
                #expect(insertions == [])
                #expect(modifications == [0])
            case .error:
                Issue.record("error not expected")
            }
            calls += 1
        }
        #expect(calls == 1)

        // Expect a change notification for the token observing `stringCol` keypath.
        writeOnAnotherThread { realm in
            let obj = realm.objects(TQNullableStringObjectWithLink.self).first!
            obj.stringCol = "changed"
        }
        realm.refresh()
        #expect(calls == 2)
        token0.invalidate()
    }

    @Test(arguments: KeyPathCollectionKind.allCases)
    func testObservePartialKeyPathNoChange(_ kind: KeyPathCollectionKind) throws {
        let (_, results, list) = try makeCollection(kind)
        if let list { try observePartialKeyPathNoChange(list) } else { try observePartialKeyPathNoChange(results) }
    }

    func observePartialKeyPathNoChange<C: RealmCollection>(_ collection: C) throws where C.Element == TQNullableStringObjectWithLink {
        var calls = 0
        let token0 = collection.observe(keyPaths: [\.stringCol]) { (changes: RealmCollectionChange) in
            switch changes {
            case .initial(let collection):
                #expect(collection.count == 2)
            default:
                Issue.record("Unexpected change: \(changes)")
            }
            calls += 1
        }
        #expect(calls == 1)

        // Expect no notification for `stringCol` key path because only `linkCol.id` will be modified.
        try expectNoChange { realm in
            let obj = realm.objects(TQNullableStringObjectWithLink.self).first!
            obj.linkCol!.id = 2
        }
        token0.invalidate()
    }

    @Test(arguments: KeyPathCollectionKind.allCases)
    func testObservePartialKeyPathWithLink(_ kind: KeyPathCollectionKind) throws {
        let (realm, results, list) = try makeCollection(kind)
        if let list { try observePartialKeyPathWithLink(realm, list) } else { try observePartialKeyPathWithLink(realm, results) }
    }

    func observePartialKeyPathWithLink<C: RealmCollection>(_ realm: Realm, _ collection: C) throws where C.Element == TQNullableStringObjectWithLink {
        var calls = 0
        let token = collection.observe(keyPaths: [\.linkCol?.id]) { (changes: RealmCollectionChange) in
            switch changes {
            case .initial(let collection):
                #expect(collection.count == 2)
            case .update(_, let deletions, let insertions, let modifications):
                #expect(deletions == [])
                #expect(insertions == [])
                // The single TQLinkTarget object modified is linked to two origin objects.
                #expect(modifications == [0, 1])
            case .error:
                Issue.record("error not expected")
            }
            calls += 1
        }
        #expect(calls == 1)

        // Only expect a change notification for `linkCol.id` keypath.
        writeOnAnotherThread { realm in
            let obj = realm.objects(TQNullableStringObjectWithLink.self).first!
            obj.linkCol!.id = 2
        }
        realm.refresh()
        #expect(calls == 2)
        token.invalidate()
    }

    // MARK: ObjectTests

    func createObject(_ value: Int = 0) throws -> SwiftObject {
        let realm = try realm()
        return try realm.write {
            realm.create(SwiftObject.self, value: ["intCol": value])
        }
    }

    @Test func testModifyMultipleObservedPartialKeyPathLocally() throws {
        let object = try createObject()

        // Expect notification for "intCol" keyPath when "intCol" is modified
        var calls = 0
        var token = object.observe(keyPaths: [\SwiftObject.intCol, \SwiftObject.stringCol]) { changes in
            if case .change(_, let properties) = changes {
                #expect(properties.count == 1)
                #expect(properties[0].newValue as? Int == 2)
                calls += 1
            }
        }
        try object.realm!.write {
            object.intCol = 2
        }
        #expect(calls == 1)
        token.invalidate()

        // Expect notification for "stringCol" keyPath when "stringCol" is modified
        calls = 0
        token = object.observe(keyPaths: [\SwiftObject.intCol, \SwiftObject.stringCol]) { changes in
            if case .change(_, let properties) = changes {
                #expect(properties.count == 1)
                #expect(properties[0].newValue as? String == "new string")
                calls += 1
            }
        }
        try object.realm!.write {
            object.stringCol = "new string"
        }
        #expect(calls == 1)
        token.invalidate()
    }

    @Test func testModifyUnobservedPartialKeyPathLocally() throws {
        let object = try createObject()

        // Expect no notification for "boolCol" keypath when "intCol" is modified
        var calls = 0
        let token = object.observe(keyPaths: [\SwiftObject.boolCol, \SwiftObject.stringCol]) { _ in
            calls += 1
        }
        try object.realm!.write {
            object.intCol = 3
        }
        #expect(calls == 0)
        token.invalidate()
    }

    // MARK: Atoll's checks

    @Test func whereAndIndexMatchingOnListAndLinkingObjects() throws {
        let (_, list) = try aggregateable(.list)
        let owner = try #require(list)
        #expect(owner.where { $0.intCol >= 2 }.map(\.intCol) == [2, 3])
        #expect(owner.index(matching: { $0.intCol == 3 }) == 2)
        #expect(owner.index(matching: { $0.intCol == 7 }) == nil)

        let (realm, _, _) = try makeCollection(.results)
        let target = try #require(realm.objects(TQLinkTarget.self).first)
        #expect(target.stringObjects.where { $0.stringCol == "2" }.count == 1)
        #expect(target.stringObjects.index(matching: { $0.stringCol == "2" }) == 1)
        #expect(realm.objects(TQLinkTarget.self).where { $0.stringObjects.stringCol == "1" }.count == 1)
        #expect(realm.objects(TQLinkTarget.self).where { $0.stringObjects.count == 2 }.count == 1)
    }

    @Test func distinctByKeyPath() throws {
        let (results, _) = try aggregateable(.results)
        #expect(results.distinct(by: [\TQAggregateObject.floatCol]).count == 2)
        #expect(results.distinct(by: [\TQAggregateObject.floatCol, \TQAggregateObject.intCol]).count == 3)
    }

    @Test func keyPathNames() {
        #expect(_name(for: \TQAggregateObject.linkCol?.stringObjects) == "linkCol.stringObjects")
        #expect(_name(for: \TQAggregateObject.stringListCol[0].linkCol?.id) == "stringListCol.linkCol.id")
        #expect(_name(for: \TQAggregateObject.stringListCol.first?.stringCol) == "stringListCol.stringCol")
        // A computed property that reads one persisted property is that property (as in
        // RealmSwift: sectioned(by: \.firstLetter) sorts by stringCol).
        #expect(_name(for: \ModernAllTypesObject.firstLetter) == "stringCol")
        // Cached: the second lookup gives the same answer.
        #expect(_name(for: \TQAggregateObject.linkCol?.id) == "linkCol.id")
        #expect(_name(for: \TQAggregateObject.linkCol?.id) == "linkCol.id")
    }
}
