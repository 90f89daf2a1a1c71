// Port of realm-swift's QueryTests.testMapSubscriptObject (RealmSwift/Tests/QueryTests.swift),
// with realm-swift's reason. RealmSwift raises an exception when such a query is built, which
// an XCTest catches with assertThrows. A closure building a query cannot throw in Swift, so Atoll
// keeps the refused query marked invalid and reports it when the query is used:
// `whereThrowing(_:)` throws `AtollError.invalidQuery` with RealmSwift's reason (and `where {}`
// stops the program with it, as for every invalid query). Then Atoll's own checks of the other
// queries RealmSwift refuses as they are built.

import Atoll
import Foundation
import Testing

/// realm-swift's ModernCollectionObject, with its map of objects.
final class ModernMapOfObjectsObject: Object {
    @Persisted var list: List<ModernAllTypesObject>
    @Persisted var map: Map<String, ModernAllTypesObject?>
}

@Suite struct QueryRefusedTests {
    let t = RealmTestCase()

    /// The reason of the `AtollError` `body` throws; nil (recorded as an issue) if it throws none.
    private func refusal(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        do {
            try body()
            Issue.record("expected the query to be refused", sourceLocation: sourceLocation)
            return nil
        } catch let error as AtollError {
            #expect(error.kind == .invalidQuery, sourceLocation: sourceLocation)
            return error.message
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test func testMapSubscriptObject() throws {
        let realm = try t.inMemoryRealm("map subscript")
        let objects = realm.objects(ModernMapOfObjectsObject.self)
        let reason = refusal { _ = try objects.whereThrowing({ $0.map["foo"].objectCol.intCol == 5 }) }
        #expect(reason == "Cannot apply key path to Map subscripts.")
    }

    @Test func aKeyPathAfterAMapSubscriptIsRefusedInsideCompoundQueries() throws {
        let realm = try t.inMemoryRealm("map subscript compound")
        let objects = realm.objects(ModernMapOfObjectsObject.self)
        let compound = refusal { _ = try objects.whereThrowing({ $0.list.count == 0 && $0.map["k"].stringCol == "a" }) }
        #expect(compound == "Cannot apply key path to Map subscripts.")
        let negated = refusal { _ = try objects.whereThrowing({ !($0.map["k"].intCol > 1) || $0.list.count > 2 }) }
        #expect(negated == "Cannot apply key path to Map subscripts.")
    }

    @Test func theSameQueriesWithoutTheMistakeAreAccepted() throws {
        let realm = try t.inMemoryRealm("map subscript accepted")
        let holder = ModernMapOfObjectsObject()
        let target = ModernAllTypesObject()
        target.intCol = 5
        try realm.write {
            realm.add(holder)
            holder.map["foo"] = target
        }
        let objects = realm.objects(ModernMapOfObjectsObject.self)
        #expect(try objects.whereThrowing({ $0.map["foo"] == target }).count == 1)
        #expect(try objects.whereThrowing({ $0.map["bar"] == target }).count == 0)
        #expect(objects.where { $0.map.count == 1 }.count == 1)
    }

    @Test func comparingTwoCollectionsIsRefusedWithRealmSwiftsReason() throws {
        let realm = try t.inMemoryRealm("two collections")
        let reason = refusal {
            _ = try realm.objects(ModernAllTypesObject.self).whereThrowing({ $0.arrayInt == $0.arrayInt })
        }
        #expect(reason == "Comparing two collection columns is not permitted.")
    }

    @Test func aSubqueryThroughNoCollectionIsRefusedWithRealmSwiftsReason() throws {
        let realm = try t.inMemoryRealm("subquery")
        let reason = refusal {
            _ = try realm.objects(ModernAllTypesObject.self).whereThrowing({ ($0.intCol > 1).count > 0 })
        }
        #expect(reason == "Subqueries must contain a keypath starting with a collection.")
    }

    @Test func anAnyRealmValueSubscriptInASubqueryIsRefusedWithRealmSwiftsReason() throws {
        let realm = try t.inMemoryRealm("mixed subscript subquery")
        let objects = realm.objects(LinkToModernSetMapMixedObject.self)
        let reason = refusal { _ = try objects.whereThrowing({ ($0.list.anyCol[0] == .int(1)).count > 0 }) }
        #expect(reason == "Subqueries do not support AnyRealmValue subscripts.")
        // Outside a subquery the same path is an ANY comparison through the list.
        let (text, arguments) = Query<LinkToModernSetMapMixedObject>._constructForTesting().list.anyCol[0]["k"].any._constructPredicate()
        #expect(text == "list.anyCol[%@][%@][%K]")
        #expect(arguments.count == 3 && arguments[0] as? Int == 0 && arguments[1] as? String == "k" && arguments[2] as? String == "#any")
        #expect(try objects.whereThrowing({ $0.list.anyCol[0] == .int(1) }).count == 0)
    }
}
