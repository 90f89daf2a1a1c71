// Port of realm-swift's RealmSwift/Tests/SectionedResultsTests.swift, class
// SectionedResultsProjectionTests (projections sectioned by a key path or a block), with
// realm-swift's expected values. XCTest expectations become counters, as in the port of
// SectionedResultsTests.
//
// Ported (all pass): testCreationFromResults, testCreationFromList, testObservation,
// testObserveOnQueue, testObservationOnSection, testFrozenResults, testFastEnumeration.
// Adapted: `ModernAllTypesProjection` shows the ModernAllTypesObject properties these tests
// read (realm-swift's shows every property, several of types the shared test object lacks).
// Left out: testCreateFromMutableSet (the shared ModernAllTypesObject has no `setString`; sets of
// values are sectioned in PrimitiveSectionedResultsTests), testObservationOnSectionOnQueue (the
// same checks as testObservationOnSection, on a queue, which testObserveOnQueue covers), and
// testFrozen and testFrozenSection, which section ModernAllTypesObject results exactly as the
// port of SectionedResultsTests does.
// Then Atoll's own check: observation of sectioned projections by key paths of the projection.

import Atoll
import Foundation
import Testing

/// realm-swift's ModernAllTypesProjection, with the properties these tests use.
class ModernAllTypesProjection: Projection<ModernAllTypesObject> {
    @Projected(\ModernAllTypesObject.boolCol) var boolCol
    @Projected(\ModernAllTypesObject.intCol) var intCol: Int
    @Projected(\ModernAllTypesObject.stringCol) var stringCol: String
    @Projected(\ModernAllTypesObject.arrayString) var arrayString: List<String>
}

extension ModernAllTypesProjection {
    var firstLetter: String? {
        stringCol.first.map { String($0) }
    }
}

@Suite struct SectionedResultsProjectionTests {
    let t = RealmTestCase()

    func createObjects() throws -> Realm {
        let o1 = ModernAllTypesObject()
        o1.stringCol = "banana"
        o1.arrayString.append(objectsIn: ["banana", "box", "apple", "chalk"])
        let o2 = ModernAllTypesObject()
        o2.stringCol = "box"
        let o3 = ModernAllTypesObject()
        o3.stringCol = "apple"
        let o4 = ModernAllTypesObject()
        o4.stringCol = "chalk"
        let realm = try t.inMemoryRealm("sectioned results test")
        try realm.write {
            realm.deleteAll()
            for o in [o1, o2, o3, o4] { realm.add(o) }
        }
        return realm
    }

    @Test func testCreationFromResults() throws {
        let realm = try createObjects()
        let results = realm.objects(ModernAllTypesProjection.self)

        func assert(ascending: Bool, sectionCount: Int, sectionKeys: [String]) {
            let sectionedResults = results.sectioned(by: \.firstLetter, ascending: ascending)
            #expect(sectionedResults.count == sectionCount)
            #expect(sectionedResults.map { $0.key } == sectionKeys)
            var o: ModernAllTypesProjection = sectionedResults[0][0]
            #expect(o.stringCol == (ascending ? "apple" : "chalk"))

            let sectionedResults2 = results.sectioned(by: \.firstLetter,
                                                      sortDescriptors: [SortDescriptor.init(keyPath: "stringCol", ascending: ascending)])
            #expect(sectionedResults2.count == sectionCount)
            #expect(sectionedResults2.map { $0.key } == sectionKeys)
            o = sectionedResults2[0][0]
            #expect(o.stringCol == (ascending ? "apple" : "chalk"))

            let sectionedResults3 = results.sectioned(by: { String($0.stringCol.first!) },
                                                      sortDescriptors: [SortDescriptor.init(keyPath: "stringCol", ascending: ascending)])
            #expect(sectionedResults3.count == sectionCount)
            #expect(sectionedResults3.map { $0.key } == sectionKeys)
            o = sectionedResults3[0][0]
            #expect(o.stringCol == (ascending ? "apple" : "chalk"))
        }

        assert(ascending: true, sectionCount: 3, sectionKeys: ["a", "b", "c"])
        assert(ascending: false, sectionCount: 3, sectionKeys: ["c", "b", "a"])
    }

    @Test func testCreationFromList() throws {
        let realm = try createObjects()
        let list = realm.objects(ModernAllTypesProjection.self)[0].arrayString

        func assert(ascending: Bool, sectionCount: Int, sectionKeys: [String]) {
            let sectionedResults = list.sectioned(by: { String($0.first!) }, ascending: ascending)
            #expect(sectionedResults.count == sectionCount)
            #expect(sectionedResults.map { $0.key } == sectionKeys)
        }

        assert(ascending: true, sectionCount: 3, sectionKeys: ["a", "b", "c"])
        assert(ascending: false, sectionCount: 3, sectionKeys: ["c", "b", "a"])
    }

    @Test func testObservation() throws {
        let realm = try createObjects()
        let results = realm.objects(ModernAllTypesProjection.self)
        let sectionedResults = results.sectioned(by: \.firstLetter, ascending: true)
        var initial = 0
        let token = sectionedResults.observe { (changes: SectionedResultsChange) in
            switch changes {
            case .initial(let collection):
                #expect(collection.count == 3)
                initial += 1
            case .update:
                Issue.record("Shouldn't happen")
            }
        }
        #expect(initial == 1)

        // add a second notification and wait for it
        var second = 0
        let token2 = sectionedResults.observe { _ in
            second += 1
        }
        #expect(second == 1)

        // make a write and implicitly verify that only the unskipped
        // notification is called (the first would error on .update)
        try realm.write(withoutNotifying: [token]) {
            realm.delete(realm.objects(ModernAllTypesObject.self))
        }
        #expect(second == 2)
        token.invalidate()
        token2.invalidate()
    }

    @Test func testObserveOnQueue() throws {
        let realm = try createObjects()
        let results = realm.objects(ModernAllTypesProjection.self)
        let sectionedResults = results.sectioned(by: \.firstLetter, ascending: true)
        let sema = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "background")
        let firstRun = LockedValue(true)
        let failures = LockedValue<[String]>([])
        func check(_ ok: Bool, _ what: String) { if !ok { failures.value.append(what) } }
        let token = sectionedResults.observe(keyPaths: ["stringCol"],
                                             on: queue) { (changes: SectionedResultsChange) in
            switch changes {
            case .initial(let collection):
                check(collection.count == 3, "initial count")
            case let .update(collection, deletions: deletions, insertions: insertions, modifications: modifications,
                             sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete):
                if firstRun.value {
                    check(collection.count == 3, "count")
                    check(sectionsToDelete == [0], "sectionsToDelete \(sectionsToDelete)")
                    check(sectionsToInsert == [2], "sectionsToInsert \(sectionsToInsert)")
                    check(deletions.count == 2, "deletions count")
                    check(deletions == [IndexPath(item: 0, section: 1), IndexPath(item: 1, section: 1)], "deletions \(deletions)")
                    check(modifications.isEmpty, "modifications \(modifications)")
                    check(insertions.count == 2, "insertions count")
                    check(insertions == [IndexPath(item: 0, section: 0), IndexPath(item: 0, section: 2)], "insertions \(insertions)")
                } else {
                    check(collection.count == 3, "count")
                    check(sectionsToDelete.isEmpty, "sectionsToDelete")
                    check(sectionsToInsert.isEmpty, "sectionsToInsert")
                    check(deletions.isEmpty, "deletions \(deletions)")
                    check(insertions.isEmpty, "insertions \(insertions)")
                    check(modifications.count == 1, "modifications count")
                    check(modifications == [IndexPath(item: 0, section: 0)], "modifications \(modifications)")
                }
            }
            check(!Thread.isMainThread, "main thread")
            sema.signal()
        }
        sema.wait()

        try realm.write {
            realm.delete([results[2].rootObject, results[0].rootObject]) // banana, apple
            results[0].stringCol = "bog" // previously: box
            let o = ModernAllTypesObject()
            o.stringCol = "zebra"
            realm.add(o)
        }
        sema.wait()
        // Check modifications.
        firstRun.value = false
        try realm.write {
            results[0].stringCol = "bogg" // previously: bog
            results[1].intCol = 1 // should be ignored.
        }
        sema.wait()
        token.invalidate()
        #expect(failures.value.isEmpty, "\(failures.value)")
    }

    @Test func testObservationOnSection() throws {
        let realm = try createObjects()
        let results = realm.objects(ModernAllTypesProjection.self)
        let sectionedResults = results.sectioned(by: \.firstLetter, ascending: true)
        let section1 = sectionedResults[0]
        let section2 = sectionedResults[1]

        var firstRun = true
        var calls1 = 0, calls2 = 0
        // Only get notifications for key 'a'.
        let token1 = section1.observe(keyPaths: ["stringCol"]) { (changes: SectionedResultsChange) in
            calls1 += 1
            switch changes {
            case .initial(let collection):
                #expect(collection.count == 1)
            case let .update(collection, deletions: deletions, insertions: insertions, modifications: modifications,
                             sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete):
                if firstRun {
                    #expect(sectionsToDelete == [0])
                    #expect(sectionsToInsert.isEmpty)
                    #expect(deletions.isEmpty)
                    #expect(modifications.isEmpty)
                    #expect(insertions.isEmpty)
                } else {
                    #expect(collection.count == 1)
                    #expect(insertions == [IndexPath(item: 0, section: 0)])
                    #expect(sectionsToInsert == [0])
                }
            }
        }

        // Only get notifications for key 'b'.
        let token2 = section2.observe(keyPaths: ["stringCol"]) { (changes: SectionedResultsChange) in
            calls2 += 1
            switch changes {
            case .initial(let collection):
                if firstRun {
                    #expect(collection.count == 2)
                }
            case let .update(collection, deletions: deletions, insertions: insertions, modifications: modifications,
                             sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete):
                if firstRun {
                    #expect(collection.count == 1)
                    #expect(sectionsToDelete.isEmpty)
                    #expect(sectionsToInsert.isEmpty)
                    #expect(deletions == [IndexPath(item: 0, section: 1)])
                    #expect(modifications.isEmpty)
                    #expect(insertions.isEmpty)
                } else {
                    #expect(collection.count == 2)
                    #expect(sectionsToDelete.isEmpty)
                    #expect(sectionsToInsert.isEmpty)
                    #expect(deletions == [IndexPath(item: 0, section: 0)])
                    #expect(modifications.isEmpty)
                    #expect(insertions == [IndexPath(item: 0, section: 0), IndexPath(item: 1, section: 0)])
                }
            }
        }

        try realm.write {
            realm.delete([results[2].rootObject, results[0].rootObject]) // banana, apple
        }
        try realm.write {}
        firstRun = false
        try realm.write {
            results[0].stringCol = "bog" // previously: box
            let o = ModernAllTypesObject()
            o.stringCol = "bag"
            realm.add(o)
        }
        try realm.write {}
        try realm.write {
            let o = ModernAllTypesObject()
            o.stringCol = "app"
            realm.add(o)
        }
        try realm.write {}
        // initial + one update per commit that changed the section
        #expect(calls1 == 3)
        #expect(calls2 == 3)
        token1.invalidate()
        token2.invalidate()
    }

    @Test func testFrozenResults() throws {
        let realm = try createObjects()
        let frozenResults = realm.objects(ModernAllTypesProjection.self).freeze()
        #expect(frozenResults.isFrozen)
        try realm.write {
            let o = ModernAllTypesObject()
            o.stringCol = "z"
            realm.add(o)
        }

        func assert(ascending: Bool, sectionCount: Int, sectionKeys: [String]) {
            let sectionedResults = frozenResults.sectioned(by: \.firstLetter, ascending: ascending)

            #expect(sectionedResults.isFrozen)
            #expect(sectionedResults.count == sectionCount)
            #expect(sectionedResults.map { $0.key } == sectionKeys)
            guard let thawed = sectionedResults.thaw() else {
                Issue.record("Could not produce thawed sectioned results")
                return
            }
            #expect(!thawed.isFrozen)
            #expect(thawed.count == 4)
            #expect(thawed.map { $0.key } == (ascending ? sectionKeys + ["z"] : ["z"] + sectionKeys))
        }

        assert(ascending: true, sectionCount: 3, sectionKeys: ["a", "b", "c"])
        assert(ascending: false, sectionCount: 3, sectionKeys: ["c", "b", "a"])
    }

    @Test func testFastEnumeration() throws {
        let realm = try createObjects()
        let results = realm.objects(ModernAllTypesObject.self)
        let sectionedResults = results.sectioned(by: \.firstLetter, ascending: true)
        var keys = ["a", "b", "c"]
        var strs = ["apple", "banana", "box", "chalk"]
        for section in sectionedResults {
            #expect(section.key == keys.first!)
            for obj in section {
                #expect(obj.stringCol == strs.first!)
                strs = Array(strs.dropFirst())
            }
            keys = Array(keys.dropFirst())
        }
        #expect(keys.isEmpty)
        #expect(strs.isEmpty)
    }

    // MARK: Atoll

    @Test func sectionedProjectionsObservedByKeyPathsOfTheProjection() throws {
        let realm = try createObjects()
        let results = realm.objects(ModernAllTypesProjection.self)
        let sectionedResults = results.sectioned(by: \.firstLetter, ascending: true)
        var modifications: [[IndexPath]] = []
        let token = sectionedResults.observe(keyPaths: [\ModernAllTypesProjection.boolCol]) { change in
            if case .update(_, _, _, let m, _, _) = change { modifications.append(m) }
        }
        defer { token.invalidate() }
        let box = try #require(results.filter("stringCol == 'box'").first)
        try realm.write { box.intCol = 7 }          // not observed
        try realm.write { box.boolCol = true }      // observed: box is row 1 of section b
        #expect(modifications == [[IndexPath(item: 1, section: 1)]])
        #expect(sectionedResults[1][1] == box)
    }
}
