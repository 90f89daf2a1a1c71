import Atoll
import Foundation
import Testing

// min/max/sum/average over List, MutableSet and Map of AnyRealmValue.
// Ported from realm-swift RealmSwift/Tests/AnyRealmValueTests.swift: MinMaxAnyRealmValueListTests,
// AddableAnyRealmValueListTests and their MutableSet and Map counterparts, with realm-swift's values
// (TestValueFactory.swift: ints 1, 2, 3; floats and doubles 1.1, 2.2, 3.3; decimals 1, 2, 3; dates
// now, +10 s, +20 s; sum compared as a double to 0.1, average = sum / 3). Each runs unmanaged and
// managed, as realm-swift's Unmanaged/Managed suites do.
// One difference: realm-swift's unmanaged `sum()` of an empty list is `.int(0)`, its managed one a
// decimal 0 (`intValue == nil`); Atoll follows realm-core for both (a decimal).

final class AnyAggregateObject: Object {
    @Persisted var name = ""
    @Persisted var value: AnyRealmValue
    @Persisted var anyList: List<AnyRealmValue>
    @Persisted var anySet: MutableSet<AnyRealmValue>
    @Persisted var anyMap: Map<String, AnyRealmValue>
}

@Suite struct AnyRealmValueAggregateTests {
    static let date = Date(timeIntervalSince1970: 1_700_000_000)
    /// realm-swift's MinMax value types: Int, Float, Double, Date, Decimal128 (ascending).
    static let ordered: [[AnyRealmValue]] = [
        [.int(1), .int(2), .int(3)],
        [.float(1.1), .float(2.2), .float(3.3)],
        [.double(1.1), .double(2.2), .double(3.3)],
        [.date(date), .date(date.addingTimeInterval(10)), .date(date.addingTimeInterval(20))],
        [.decimal128(Decimal128(number: 1)), .decimal128(Decimal128(number: 2)), .decimal128(Decimal128(number: 3))],
    ]
    /// realm-swift's Addable value types with their sums.
    static let addable: [([AnyRealmValue], Double)] = [
        ([.int(1), .int(2), .int(3)], 6),
        ([.float(1.1), .float(2.2), .float(3.3)], 6.6),
        ([.double(1.1), .double(2.2), .double(3.3)], 6.6),
        ([.decimal128(Decimal128(number: 1)), .decimal128(Decimal128(number: 2)), .decimal128(Decimal128(number: 3))], 6),
    ]

    /// realm-swift's `doubleValue(_:)`: a sum or average is a double or a decimal.
    static func doubleValue(_ value: AnyRealmValue?) -> Double? {
        switch value {
        case .double(let d)?: d
        case .decimal128(let d)?: d.doubleValue
        default: nil
        }
    }

    /// A fresh object, unmanaged or added to a realm inside an open write (realm-swift's
    /// ManagedObjectFactory leaves the write open).
    static func object(managed: Bool) throws -> (AnyAggregateObject, Realm?) {
        let o = AnyAggregateObject()
        guard managed else { return (o, nil) }
        let realm = try Realm(configuration: freshConfiguration([AnyAggregateObject.self]))
        realm.beginWrite()
        realm.add(o)
        return (o, realm)
    }

    @Test(arguments: ordered, [false, true]) func minMax(_ values: [AnyRealmValue], managed: Bool) throws {
        let (o, realm) = try Self.object(managed: managed)
        defer { realm?.cancelWrite() }
        #expect(o.anyList.min() == nil)
        #expect(o.anyList.max() == nil)
        #expect(o.anySet.min() == nil)
        #expect(o.anyMap.max() == nil)
        o.anyList.append(objectsIn: values.reversed())
        #expect(o.anyList.min() == values.first)
        #expect(o.anyList.max() == values.last)
        o.anySet.insert(objectsIn: values.reversed())
        #expect(o.anySet.min() == values.first)
        #expect(o.anySet.max() == values.last)
        for (i, v) in values.reversed().enumerated() { o.anyMap["k\(i)"] = v }
        #expect(o.anyMap.min() == values.first)
        #expect(o.anyMap.max() == values.last)
    }

    @Test(arguments: addable, [false, true]) func sumAndAverage(_ test: ([AnyRealmValue], Double), managed: Bool) throws {
        let (values, sum) = test
        let (o, realm) = try Self.object(managed: managed)
        defer { realm?.cancelWrite() }
        #expect(o.anyList.sum().intValue == nil)
        #expect(Self.doubleValue(o.anyList.sum()) == 0)
        #expect(o.anyList.average() == nil)
        #expect(o.anySet.average() == nil)
        #expect(o.anyMap.average() == nil)
        o.anyList.append(objectsIn: values)
        o.anySet.insert(objectsIn: values)
        for (i, v) in values.enumerated() { o.anyMap["k\(i)"] = v }
        for (s, a) in [(o.anyList.sum(), o.anyList.average()), (o.anySet.sum(), o.anySet.average()), (o.anyMap.sum(), o.anyMap.average())] {
            let total = try #require(Self.doubleValue(s)), mean = try #require(Self.doubleValue(a))
            #expect(abs(total - sum) < 0.1)
            #expect(abs(mean - sum / 3) < 0.1)
        }
    }

    // realm-core's rules for mixed values (aggregate_ops.hpp): min/max take every non-null value
    // in Mixed order (numbers by value across types, then string after numbers, date after
    // binary); sum and average take only the numbers, as decimals.
    @Test func mixedKindsFollowRealmCore() throws {
        let (o, realm) = try Self.object(managed: true)
        defer { realm?.cancelWrite() }
        o.anyList.append(objectsIn: [.none, .string("b"), .int(7), .double(2.5), .bool(true), .date(Self.date), .decimal128(Decimal128(number: 1)), .float(-3)])
        #expect(o.anyList.min() == .bool(true))
        #expect(o.anyList.max() == .date(Self.date))
        #expect(o.anyList.sum() == .decimal128(Decimal128(number: 7.5)))
        #expect(o.anyList.average() == .decimal128(Decimal128(number: 1.875)))

        // Numbers of different types compare by value.
        o.anySet.insert(objectsIn: [.int(5), .double(4.5), .decimal128(Decimal128(number: 6)), .float(-1), .none])
        #expect(o.anySet.min() == .float(-1))
        #expect(o.anySet.max() == .decimal128(Decimal128(number: 6)))

        // No numbers: sum is decimal 0, average nil; a decimal NaN is not a value for min/max.
        o.anyMap["a"] = .string("x")
        o.anyMap["b"] = .decimal128(Decimal128.nan)
        o.anyMap["c"] = AnyRealmValue.none
        #expect(o.anyMap.min() == .string("x"))
        #expect(o.anyMap.max() == .string("x"))
        o.anyMap["b"] = .data(Data([1]))
        #expect(o.anyMap.sum() == .decimal128(Decimal128(number: 0)))
        #expect(o.anyMap.average() == nil)
        #expect(o.anyMap.max() == .data(Data([1])))
    }

    // The query language's @min/@max over mixed collections by the same rules as min()/max()
    // (realm-core's query expressions use the same aggregate operators): every value but a
    // decimal NaN, in mixed order, not only the numbers.
    @Test func queryAggregatesOverMixedCollectionsFollowRealmCore() throws {
        let realm = try Realm(configuration: freshConfiguration([AnyAggregateObject.self]))
        try realm.write {
            let a = AnyAggregateObject()
            a.name = "a"
            a.anyList.append(objectsIn: [.none, .string("b"), .int(7), .double(2.5), .bool(true), .date(Self.date), .decimal128(Decimal128(number: 1)), .float(-3)])
            a.anySet.insert(objectsIn: [.int(5), .double(4.5), .decimal128(Decimal128(number: 6)), .float(-1), .none])
            a.anyMap["a"] = .string("x")
            a.anyMap["b"] = .decimal128(Decimal128.nan)
            realm.add(a)
            let b = AnyAggregateObject()
            b.name = "b"
            b.anyList.append(objectsIn: [.int(1), .int(9)])
            b.anyMap["a"] = .int(3)
            realm.add(b)
        }
        let all = realm.objects(AnyAggregateObject.self)
        func names(_ predicate: String, _ argument: Any? = nil) -> [String] {
            let matching = argument.map { all.filter(predicate, $0) } ?? all.filter(predicate)
            return matching.map(\.name).sorted()
        }
        #expect(names("anyList.@min == true") == ["a"])
        #expect(names("anyList.@max == %@", Self.date) == ["a"])
        // A string is larger than any number: "a"'s largest is its date, never the 7.
        #expect(names("anyList.@max == 7").isEmpty)
        #expect(names("anyList.@max == 9") == ["b"])
        #expect(names("anyList.@min == 1") == ["b"])
        #expect(names("anySet.@min == -1") == ["a"])
        #expect(names("anySet.@max == 6") == ["a"])
        // The decimal NaN is not a value for @min/@max; "x" is both.
        #expect(names("anyMap.@max == 'x'") == ["a"])
        #expect(names("anyMap.@min == 'x'") == ["a"])
        #expect(names("anyMap.@max == 3") == ["b"])
        // @sum and @avg still take only the numbers.
        #expect(names("anyList.@sum == 7.5") == ["a"])
        #expect(names("anyMap.@sum == 0") == ["a"])
        // The query agrees with min()/max() of the collections themselves.
        for o in all {
            #expect(all.filter("name == %@ AND anyList.@max == %@", o.name, o.anyList.max() ?? .none).count == (o.anyList.max() == nil ? 0 : 1))
        }
    }

    // Results over an AnyRealmValue property (realm-swift: AnyRealmValue is MinMaxType and
    // AddableType), with and without a query, by the same rules.
    @Test func resultsOverAMixedProperty() throws {
        let realm = try Realm(configuration: freshConfiguration([AnyAggregateObject.self]))
        let all = realm.objects(AnyAggregateObject.self)
        #expect(all.min(ofProperty: "value") as AnyRealmValue? == nil)
        #expect(all.sum(ofProperty: "value") == .decimal128(Decimal128(number: 0)))
        #expect(all.average(ofProperty: "value") as AnyRealmValue? == nil)
        let values: [AnyRealmValue] = [.int(4), .double(0.5), .string("zz"), .none, .decimal128(Decimal128(number: 10)), .float(1.5)]
        try realm.write {
            for (i, v) in values.enumerated() {
                let o = AnyAggregateObject()
                o.name = "o\(i)"
                o.value = v
                realm.add(o)
            }
        }
        #expect(all.min(ofProperty: "value") as AnyRealmValue? == .double(0.5))
        #expect(all.max(ofProperty: "value") as AnyRealmValue? == .string("zz"))
        #expect(all.sum(ofProperty: "value") == .decimal128(Decimal128(number: 16)))
        #expect(all.average(ofProperty: "value") as AnyRealmValue? == .decimal128(Decimal128(number: 4)))
        #expect(all.average(ofProperty: "value") as Double? == 4)
        #expect(all.sum(ofProperty: "value") as Double == 16)

        let some = all.filter("name IN {'o0', 'o2', 'o3'}")
        #expect(some.min(ofProperty: "value") as AnyRealmValue? == .int(4))
        #expect(some.max(ofProperty: "value") as AnyRealmValue? == .string("zz"))
        #expect(some.sum(ofProperty: "value") == .decimal128(Decimal128(number: 4)))
        #expect(all.filter("name == 'o2'").average(ofProperty: "value") as AnyRealmValue? == nil)
    }
}
