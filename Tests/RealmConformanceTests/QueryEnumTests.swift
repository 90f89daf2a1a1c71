// Type-safe queries on PersistableEnum properties (Atoll's own tests; realm-swift's enum cases of
// QueryTests run on models with types Atoll lacks). Each query is checked for its predicate
// text as RealmSwift's `Query` writes it and its result, and most against the same query through
// the string API.

import Atoll
import Foundation
import Testing

enum TQSize: Int, PersistableEnum {
    case small = 1, medium, large
}

enum TQColor: String, PersistableEnum {
    case red, green, rust
}

class TQEnumObject: Object {
    @Persisted var name = ""
    @Persisted var size: TQSize
    @Persisted var optSize: TQSize?
    @Persisted var color: TQColor
    @Persisted var sizes: List<TQSize>
    @Persisted var optSizes: List<TQSize?>
}

@Suite struct QueryEnumTests {
    let t = RealmTestCase()

    func populated() throws -> Realm {
        let realm = try t.realm()
        try realm.write {
            realm.create(TQEnumObject.self, value: ["name": "a", "size": TQSize.small, "color": TQColor.red,
                                                    "sizes": [TQSize.small, TQSize.large], "optSizes": [TQSize.medium, nil]])
            realm.create(TQEnumObject.self, value: ["name": "b", "size": TQSize.medium, "optSize": TQSize.large, "color": TQColor.green,
                                                    "sizes": [TQSize.medium]])
            realm.create(TQEnumObject.self, value: ["name": "c", "size": TQSize.large, "optSize": TQSize.small, "color": TQColor.rust,
                                                    "sizes": [] as [TQSize], "optSizes": [TQSize.large]])
        }
        return realm
    }

    @Test func enumQueriesMatchTheirStringForms() throws {
        let realm = try populated()
        let objects = realm.objects(TQEnumObject.self).sorted(byKeyPath: "name")
        func names(_ q: (Query<TQEnumObject>) -> Query<Bool>) -> [String] { objects.where(q).map(\.name) }
        func text(_ q: (Query<TQEnumObject>) -> Query<Bool>) -> String { q(Query<TQEnumObject>._constructForTesting())._constructPredicate().0 }

        #expect(text { $0.size == .large } == "(size == %@)")
        #expect(names { $0.size == .large } == ["c"])
        #expect(names { $0.size == .large } == objects.filter("size == %@", TQSize.large).map(\.name))

        #expect(text { $0.size != .small } == "(size != %@)")
        #expect(names { $0.size != .small } == ["b", "c"])

        #expect(text { $0.size.rawValue > 1 } == "(size > %@)")
        #expect(names { $0.size.rawValue > 1 } == objects.filter("size > 1").map(\.name))
        #expect(names { $0.size.rawValue > 1 } == ["b", "c"])

        #expect(text { $0.size.in([.small, .large]) } == "(size IN %@)")
        #expect(names { $0.size.in([.small, .large]) } == ["a", "c"])

        #expect(text { $0.optSize == nil } == "(optSize == %@)")
        #expect(names { $0.optSize == nil } == ["a"])
        #expect(names { $0.optSize.rawValue >= 2 } == ["b"])
        #expect(names { $0.optSize.rawValue >= 2 } == objects.filter("optSize >= 2").map(\.name))

        #expect(text { $0.color.rawValue.starts(with: "r") } == "(color BEGINSWITH %@)")
        #expect(names { $0.color.rawValue.starts(with: "r") } == ["a", "c"])
        #expect(names { $0.color.rawValue.starts(with: "r") } == objects.filter("color BEGINSWITH 'r'").map(\.name))

        #expect(text { $0.sizes.contains(.large) } == "(%@ IN sizes)")
        #expect(names { $0.sizes.contains(.large) } == ["a"])
        #expect(text { $0.sizes == .medium } == "(ANY sizes == %@)")
        #expect(names { $0.sizes == .medium } == ["b"])
        #expect(names { $0.sizes.containsAny(in: [.medium, .large]) } == ["a", "b"])

        #expect(text { $0.sizes.rawValue.max > 2 } == "(sizes.@max > %@)")
        #expect(names { $0.sizes.rawValue.max > 2 } == ["a"])
        #expect(names { $0.sizes.rawValue.max > 2 } == objects.filter("sizes.@max > 2").map(\.name))
        #expect(names { $0.sizes.count == 0 } == ["c"])

        #expect(text { $0.optSizes.rawValue.min == 3 } == "(optSizes.@min == %@)")
        #expect(names { $0.optSizes.rawValue.min == 3 } == ["c"])
        #expect(names { $0.optSizes.contains(nil) } == ["a"])
    }
}
