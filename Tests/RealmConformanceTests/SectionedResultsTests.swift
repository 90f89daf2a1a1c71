// Port of realm-swift's RealmSwift/Tests/SectionedResultsTests.swift (class SectionedResultsTests,
// objects sectioned by a key path or a block), with realm-swift's expected values. XCTest
// expectations become counters: Atoll delivers a realm's own commits to observers on its thread
// when the write commits, and queue observers are awaited with semaphores as in realm-swift.
//
// Ported (12, all pass): testCreationFromResults, testAllKeys, testSubscript, testObservation,
// testObserveWithKeyPathFilter, testObserveWithKeyPathFilterOnSection, testObserveOnQueue,
// testObservationOnSection, testObservationOnSectionOnQueue, testFrozenResults, testFrozen,
// testFrozenSection.
// Left out: testCreationFromList and the primitive suites (BasePrimitiveSectionedResultsTests,
// BaseOptionalPrimitiveSectionedResultsTests, testFastEnumeration): Atoll sections collections
// of objects only, as its Results hold objects only; testCreateFromMutableSet, the
// AnyRealmCollection and MutableSet creation tests (no such types yet); and
// SectionedResultsProjectionTests (projections are not built yet).

import Atoll
import Foundation
import Testing

extension ModernAllTypesObject {
    var firstLetter: String? {
        stringCol.first.map { String($0) }
    }
}

@Suite struct SectionedResultsTests {
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
        let results = realm.objects(ModernAllTypesObject.self)

        func assert(ascending: Bool, sectionCount: Int, sectionKeys: [String]) {
            let sectionedResults = results.sectioned(by: \.firstLetter, ascending: ascending)
            #expect(sectionedResults.count == sectionCount)
            #expect(sectionedResults.map { $0.key } == sectionKeys)

            let sectionedResults2 = results.sectioned(by: \.firstLetter,
                                                      sortDescriptors: [SortDescriptor.init(keyPath: "stringCol", ascending: ascending)])
            #expect(sectionedResults2.count == sectionCount)
            #expect(sectionedResults2.map { $0.key } == sectionKeys)
            let sectionedResults3 = results.sectioned(by: { String($0.stringCol.first!) },
                                                      sortDescriptors: [SortDescriptor.init(keyPath: "stringCol", ascending: ascending)])
            #expect(sectionedResults3.count == sectionCount)
            #expect(sectionedResults3.map { $0.key } == sectionKeys)
        }

        assert(ascending: true, sectionCount: 3, sectionKeys: ["a", "b", "c"])
        assert(ascending: false, sectionCount: 3, sectionKeys: ["c", "b", "a"])
    }

    @Test func testAllKeys() throws {
        let realm = try createObjects()
        let results = realm.objects(ModernAllTypesObject.self)
        let sectionedResults = results.sectioned(by: \.firstLetter, ascending: true)
        #expect(sectionedResults.allKeys == ["a", "b", "c"])
    }

    @Test func testSubscript() throws {
        let realm = try createObjects()
        let results = realm.objects(ModernAllTypesObject.self)
        let sectionedResults = results.sectioned(by: \.firstLetter, ascending: true)
        let section = sectionedResults[0]
        #expect(section.count == 1)
        var obj = section[0]
        #expect(obj.stringCol == "apple")
        obj = sectionedResults[IndexPath(item: 0, section: 0)]
        #expect(obj.stringCol == "apple")
        // Atoll addition: a section by key.
        #expect(sectionedResults[key: "b"]?.map(\.stringCol) == ["banana", "box"])
        #expect(sectionedResults[key: "z"] == nil)
    }

    @Test func testObservation() throws {
        let realm = try createObjects()
        let results = realm.objects(ModernAllTypesObject.self)
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
            realm.delete(results)
        }
        #expect(second == 2)
        token.invalidate()
        token2.invalidate()
    }

    @Test func testObserveWithKeyPathFilter() throws {
        let realm = try createObjects()
        let results = realm.objects(ModernAllTypesObject.self)
        let sectionedResults = results.sectioned(by: \.firstLetter, ascending: true)

        var calls = 0
        let token = sectionedResults.observe(keyPaths: [\.boolCol]) { _ in
            calls += 1
        }

        let obj = results.where { $0.stringCol.starts(with: "a") }[0]
        // Expect notification as changing sections.
        try realm.write {
            obj.stringCol = "box"
        }
        // Expect notification as the observed property is modified.
        try realm.write {
            obj.boolCol = true
        }
        #expect(calls == 3)

        var realmCalls = 0
        let realmToken = realm.observe { _, _ in
            realmCalls += 1
        }
        // Expect no notification as the object will not change sections.
        try realm.write {
            obj.stringCol = "box"
        }
        try realm.write {
            obj.stringCol = "box"
        }
        #expect(realmCalls == 2)
        #expect(calls == 3)

        token.invalidate()
        realmToken.invalidate()
    }

    @Test func testObserveWithKeyPathFilterOnSection() throws {
        let realm = try createObjects()
        let results = realm.objects(ModernAllTypesObject.self)
        let sectionedResults = results.sectioned(by: \.firstLetter, ascending: true)[0]

        var calls = 0
        let token = sectionedResults.observe(keyPaths: [\.boolCol]) { _ in
            calls += 1
        }

        let obj = results.where { $0.stringCol.starts(with: "a") }[0]
        try realm.write {
            obj.boolCol = false
        }
        #expect(calls == 2)

        var realmCalls = 0
        let realmToken = realm.observe { _, _ in
            realmCalls += 1
        }
        // Expect no notification as the object will not change sections.
        try realm.write {
            obj.intCol = 123
        }
        try realm.write {
            obj.intCol = 456
        }
        #expect(realmCalls == 2)
        #expect(calls == 2)

        token.invalidate()
        realmToken.invalidate()
    }

    @Test func testObserveOnQueue() throws {
        let realm = try createObjects()
        let results = realm.objects(ModernAllTypesObject.self)
        let sectionedResults = results.sectioned(by: \.firstLetter, ascending: true)
        let sema = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "background")
        let firstRun = LockedValue(true)
        let failures = LockedValue<[String]>([])
        func check(_ ok: Bool, _ what: String) { if !ok { failures.value.append(what) } }
        let token = sectionedResults.observe(keyPaths: [\.stringCol],
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
                    check(deletions == [IndexPath(item: 0, section: 1), IndexPath(item: 1, section: 1)], "deletions \(deletions)")
                    check(modifications.isEmpty, "modifications \(modifications)")
                    check(insertions == [IndexPath(item: 0, section: 0), IndexPath(item: 0, section: 2)], "insertions \(insertions)")
                } else {
                    check(collection.count == 3, "count")
                    check(sectionsToDelete.isEmpty && sectionsToInsert.isEmpty, "sections")
                    check(deletions.isEmpty && insertions.isEmpty, "rows \(deletions) \(insertions)")
                    check(modifications == [IndexPath(item: 0, section: 0)], "modifications \(modifications)")
                }
            }
            check(!Thread.isMainThread, "main thread")
            sema.signal()
        }
        sema.wait()

        try realm.write {
            realm.delete([results[2], results[0]]) // banana, apple
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
        let results = realm.objects(ModernAllTypesObject.self)
        let sectionedResults = results.sectioned(by: \.firstLetter, ascending: true)
        let section1 = sectionedResults[0]
        let section2 = sectionedResults[1]

        var firstRun = true
        var calls1 = 0, calls2 = 0
        // Only get notifications for key 'a'.
        let token1 = section1.observe(keyPaths: [\.stringCol]) { (changes: SectionedResultsChange) in
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
        let token2 = section2.observe(keyPaths: [\.stringCol]) { (changes: SectionedResultsChange) in
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
            realm.delete([results[2], results[0]]) // banana, apple
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

    @Test func testObservationOnSectionOnQueue() throws {
        let realm = try createObjects()
        let results = realm.objects(ModernAllTypesObject.self)
        let sectionedResults = results.sectioned(by: \.firstLetter, ascending: true)
        let section1 = sectionedResults[0]
        let section2 = sectionedResults[1]

        let sema1 = DispatchSemaphore(value: 0)
        let sema2 = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "background")
        let firstRun = LockedValue(true)
        let failures = LockedValue<[String]>([])
        func check(_ ok: Bool, _ what: String) { if !ok { failures.value.append(what) } }
        // Only get notifications for key 'a'.
        let token1 = section1.observe(keyPaths: [\.stringCol],
                                      on: queue) { (changes: SectionedResultsChange) in
            switch changes {
            case .initial(let collection):
                check(collection.count == 1, "1 initial")
            case let .update(collection, deletions: deletions, insertions: insertions, modifications: modifications,
                             sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete):
                if firstRun.value {
                    check(sectionsToDelete == [0] && sectionsToInsert.isEmpty, "1 sections")
                    check(deletions.isEmpty && modifications.isEmpty && insertions.isEmpty, "1 rows")
                } else {
                    check(collection.count == 1, "1 count")
                    check(insertions == [IndexPath(item: 0, section: 0)], "1 insertions \(insertions)")
                    check(sectionsToInsert == [0], "1 sectionsToInsert")
                }
            }
            check(!Thread.isMainThread, "main thread")
            sema1.signal()
        }
        sema1.wait()
        // Only get notifications for key 'b'.
        let token2 = section2.observe(keyPaths: [\.stringCol],
                                      on: queue) { (changes: SectionedResultsChange) in
            switch changes {
            case .initial(let collection):
                if firstRun.value {
                    check(collection.count == 2, "2 initial")
                }
            case let .update(collection, deletions: deletions, insertions: insertions, modifications: modifications,
                             sectionsToInsert: sectionsToInsert, sectionsToDelete: sectionsToDelete):
                if firstRun.value {
                    check(collection.count == 1, "2 count")
                    check(sectionsToDelete.isEmpty && sectionsToInsert.isEmpty, "2 sections")
                    check(deletions == [IndexPath(item: 0, section: 1)], "2 deletions \(deletions)")
                    check(modifications.isEmpty && insertions.isEmpty, "2 rows")
                } else {
                    check(collection.count == 2, "2 count")
                    check(sectionsToDelete.isEmpty && sectionsToInsert.isEmpty, "2 sections")
                    check(deletions == [IndexPath(item: 0, section: 0)], "2 deletions \(deletions)")
                    check(modifications.isEmpty, "2 modifications")
                    check(insertions == [IndexPath(item: 0, section: 0), IndexPath(item: 1, section: 0)], "2 insertions \(insertions)")
                }
            }
            check(!Thread.isMainThread, "main thread")
            sema2.signal()
        }
        sema2.wait()

        try realm.write {
            realm.delete([results[2], results[0]]) // banana, apple
        }
        sema1.wait()
        sema2.wait()
        firstRun.value = false
        try realm.write {
            results[0].stringCol = "bog" // previously: box
            let o = ModernAllTypesObject()
            o.stringCol = "bag"
            realm.add(o)
        }
        sema2.wait()
        try realm.write {
            let o = ModernAllTypesObject()
            o.stringCol = "app"
            realm.add(o)
        }
        sema1.wait()
        token1.invalidate()
        token2.invalidate()
        #expect(failures.value.isEmpty, "\(failures.value)")
    }

    @Test func testFrozenResults() throws {
        let realm = try createObjects()
        let frozenResults = realm.objects(ModernAllTypesObject.self).freeze()
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

    @Test func testFrozen() throws {
        let realm = try createObjects()
        let results = realm.objects(ModernAllTypesObject.self)
        #expect(!results.isFrozen)

        func assert(ascending: Bool, sectionCount: Int, sectionKeys: [String], newSection: String) throws {
            let frozenSectionedResults = results.sectioned(by: \.firstLetter, ascending: ascending).freeze()
            try realm.write {
                let o = ModernAllTypesObject()
                o.stringCol = newSection
                realm.add(o)
            }
            #expect(frozenSectionedResults.isFrozen)
            #expect(frozenSectionedResults.count == sectionCount)
            #expect(frozenSectionedResults.map { $0.key } == sectionKeys)
            guard let thawed = frozenSectionedResults.thaw() else {
                Issue.record("Could not produce thawed sectioned results")
                return
            }
            #expect(!thawed.isFrozen)
            #expect(thawed.count == sectionCount + 1)
            #expect(thawed.map { $0.key } == (ascending ? sectionKeys + [newSection] : [newSection] + sectionKeys))
        }

        try assert(ascending: true, sectionCount: 3, sectionKeys: ["a", "b", "c"], newSection: "d")
        try assert(ascending: false, sectionCount: 4, sectionKeys: ["d", "c", "b", "a"], newSection: "e")
    }

    @Test func testFrozenSection() throws {
        let realm = try createObjects()
        let results = realm.objects(ModernAllTypesObject.self)
        #expect(!results.isFrozen)

        func assert(ascending: Bool, beforeCount: Int, afterCount: Int, sectionKey: String) throws {
            let frozenSection = results.sectioned(by: \.firstLetter, ascending: ascending)[0].freeze()
            try realm.write {
                let o = ModernAllTypesObject()
                o.stringCol = sectionKey
                realm.add(o)
            }
            #expect(frozenSection.isFrozen)
            #expect(frozenSection.count == 1)
            #expect(frozenSection.key == sectionKey)
            guard let thawed = frozenSection.thaw() else {
                Issue.record("Could not produce thawed sectioned results")
                return
            }
            #expect(!thawed.isFrozen)
            #expect(thawed.count == 2)
            #expect(thawed.key == sectionKey)
        }

        try assert(ascending: true, beforeCount: 1, afterCount: 2, sectionKey: "a")
        try assert(ascending: false, beforeCount: 1, afterCount: 2, sectionKey: "c")
    }
}
