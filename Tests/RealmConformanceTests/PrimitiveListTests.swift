// Port of realm-swift's RealmSwift/Tests/PrimitiveListTests.swift: PrimitiveListTests,
// MinMaxPrimitiveListTests, AddablePrimitiveListTests and SortablePrimitiveListTests, for
// unmanaged and managed lists (UnmanagedObjectFactory, ManagedObjectFactory), with the value
// sets of realm-swift's TestValueFactory. Each test runs per value type as a generic check.
//
// Not ported:
// - Decimal128, AnyRealmValue, the custom-persistable wrappers (IntWrapper...) and
//   EmbeddedObjectWrapper value types: need Decimal128, AnyRealmValue, CustomPersistable and
//   EmbeddedObject.
// - testValueForKey: `value(forKey: "self")` on lists of values bridges through NSArray.
// - `assertThrows` lines (out-of-bounds indices): Atoll makes the write fail on a managed list
//   and stops the program on an unmanaged one (README, Differences); checked once per kind in
//   `outOfBoundsFailsTheWrite`.
// - disabled_testIndexMatching: disabled in realm-swift.
// Lists of PersistableEnum values run on Atoll's own model (enum lists are not in the shared
// SwiftListObject).

import Atoll
import AtollTestSupport
import Foundation
import Testing

enum CompatColor: Int, PersistableEnum {
    case red = 1, green, blue
}

enum CompatSize: String, PersistableEnum {
    case small = "s", large = "l"
}

final class CompatEnumListObject: Object {
    @Persisted var colors: List<CompatColor>
    @Persisted var optColors: List<CompatColor?>
    @Persisted var sizes: List<CompatSize>
}

/// One list under test: an object of the factory's kind, its list, and the values.
final class PrimitiveListFixture<Root: Object, V: RealmCollectionValue> {
    let t = RealmTestCase()
    let realm: Realm?
    let obj: Root
    let array: List<V>
    let values: [V]

    init(managed: Bool, _ keyPath: KeyPath<Root, List<V>>, _ values: [V]) throws {
        obj = Root()
        if managed {
            let realm = try t.inMemoryRealm("test")
            realm.beginWrite()
            realm.add(obj)
            self.realm = realm
        } else {
            realm = nil
        }
        array = obj[keyPath: keyPath]
        self.values = values
    }

    deinit { if realm?.isInWriteTransaction == true { realm?.cancelWrite() } }
}

/// The generic bodies of realm-swift's PrimitiveListTests.
enum PrimitiveListChecks {
    static func all<Root: Object, V: RealmCollectionValue>(_ keyPath: KeyPath<Root, List<V>>, _ values: [V], managed: Bool) throws {
        func fixture() throws -> PrimitiveListFixture<Root, V> { try PrimitiveListFixture(managed: managed, keyPath, values) }
        try testInvalidated(fixture())
        try testIndexOf(fixture())
        try testSubscript(fixture())
        try testFirst(fixture())
        try testLast(fixture())
        try testObjectsAtIndexes(fixture())
        try testInsert(fixture())
        try testRemove(fixture())
        try testRemoveLast(fixture())
        try testRemoveAll(fixture())
        try testReplace(fixture())
        try testReplaceRange(fixture())
        try testMove(fixture())
        try testSwap(fixture())
    }

    static func testInvalidated<Root, V>(_ f: PrimitiveListFixture<Root, V>) {
        #expect(!f.array.isInvalidated)
        if let realm = f.obj.realm {
            realm.delete(f.obj)
            #expect(f.array.isInvalidated)
        }
    }

    static func testIndexOf<Root, V>(_ f: PrimitiveListFixture<Root, V>) {
        let (array, values) = (f.array, f.values)
        #expect(array.index(of: values[0]) == nil)
        array.append(values[0])
        #expect(0 == array.index(of: values[0]))
        array.append(values[1])
        #expect(0 == array.index(of: values[0]))
        #expect(1 == array.index(of: values[1]))
    }

    static func testSubscript<Root, V>(_ f: PrimitiveListFixture<Root, V>) {
        f.array.append(objectsIn: f.values)
        for i in 0..<f.values.count { #expect(f.array[i] == f.values[i]) }
    }

    static func testFirst<Root, V>(_ f: PrimitiveListFixture<Root, V>) {
        f.array.append(objectsIn: f.values)
        #expect(f.array.first == f.values.first)
        f.array.removeAll()
        #expect(f.array.first == nil)
    }

    static func testLast<Root, V>(_ f: PrimitiveListFixture<Root, V>) {
        f.array.append(objectsIn: f.values)
        #expect(f.array.last == f.values.last)
        f.array.removeAll()
        #expect(f.array.last == nil)
    }

    static func testObjectsAtIndexes<Root, V>(_ f: PrimitiveListFixture<Root, V>) {
        f.array.append(objectsIn: f.values)
        let objs = f.array.objects(at: [2, 1])
        #expect(f.values[1] == objs.first)
        #expect(f.values[2] == objs.last)
    }

    static func testInsert<Root, V>(_ f: PrimitiveListFixture<Root, V>) {
        let (array, values) = (f.array, f.values)
        #expect(0 == array.count)
        array.insert(values[0], at: 0)
        #expect(1 == array.count)
        #expect(values[0] == array[0])
        array.insert(values[1], at: 0)
        #expect(2 == array.count)
        #expect(values[1] == array[0])
        #expect(values[0] == array[1])
        array.insert(values[2], at: 2)
        #expect(3 == array.count)
        #expect(values[1] == array[0])
        #expect(values[0] == array[1])
        #expect(values[2] == array[2])
    }

    static func testRemove<Root, V>(_ f: PrimitiveListFixture<Root, V>) {
        let (array, values) = (f.array, f.values)
        array.append(objectsIn: values)
        #expect(values[0] == array[0])
        #expect(values[1] == array[1])
        #expect(values[2] == array[2])
        array.remove(at: 0)
        #expect(values[1] == array[0])
        #expect(values[2] == array[1])
        array.remove(at: 1)
        #expect(values[1] == array[0])
        #expect(array.count == 1)
    }

    static func testRemoveLast<Root, V>(_ f: PrimitiveListFixture<Root, V>) {
        let (array, values) = (f.array, f.values)
        array.append(objectsIn: values)
        array.removeLast()
        #expect(array.count == 2)
        #expect(values[0] == array[0])
        #expect(values[1] == array[1])
        array.removeLast(2)
        #expect(array.count == 0)
    }

    static func testRemoveAll<Root, V>(_ f: PrimitiveListFixture<Root, V>) {
        f.array.removeAll()
        f.array.append(objectsIn: f.values)
        f.array.removeAll()
        #expect(f.array.count == 0)
    }

    static func testReplace<Root, V>(_ f: PrimitiveListFixture<Root, V>) {
        let (array, values) = (f.array, f.values)
        array.append(objectsIn: values)
        array.replace(index: 1, object: values[0])
        #expect(array[0] == values[0])
        #expect(array[1] == values[0])
        #expect(array[2] == values[2])
    }

    static func testReplaceRange<Root, V>(_ f: PrimitiveListFixture<Root, V>) {
        let (array, values) = (f.array, f.values)
        array.replaceSubrange(0..<0, with: [])
        array.replaceSubrange(0..<0, with: [values[0]])
        #expect(array.count == 1)
        #expect(array[0] == values[0])
        array.replaceSubrange(0..<1, with: values)
        #expect(array.count == 3)
        array.replaceSubrange(1..<2, with: [])
        #expect(array.count == 2)
        #expect(array[0] == values[0])
        #expect(array[1] == values[2])
    }

    static func testMove<Root, V>(_ f: PrimitiveListFixture<Root, V>) {
        let (array, values) = (f.array, f.values)
        array.append(objectsIn: values)
        array.move(from: 2, to: 0)
        #expect(array[0] == values[2])
        #expect(array[1] == values[0])
        #expect(array[2] == values[1])
    }

    static func testSwap<Root, V>(_ f: PrimitiveListFixture<Root, V>) {
        let (array, values) = (f.array, f.values)
        array.append(objectsIn: values)
        array.swapAt(0, 2)
        #expect(array[0] == values[2])
        #expect(array[1] == values[1])
        #expect(array[2] == values[0])
    }

    // MinMaxPrimitiveListTests
    static func minMax<Root: Object, V: RealmCollectionValue & Comparable>(_ keyPath: KeyPath<Root, List<V>>, _ values: [V], managed: Bool) throws {
        var f = try PrimitiveListFixture(managed: managed, keyPath, values)
        #expect(f.array.min() == nil)
        f.array.append(objectsIn: values.reversed())
        #expect(f.array.min() == values.first)
        f = try PrimitiveListFixture(managed: managed, keyPath, values)
        #expect(f.array.max() == nil)
        f.array.append(objectsIn: values.reversed())
        #expect(f.array.max() == values.last)
    }

    static func minMaxOptional<Root: Object, W: RealmCollectionValue & Comparable>(_ keyPath: KeyPath<Root, List<W?>>, _ values: [W?], managed: Bool) throws {
        let f = try PrimitiveListFixture(managed: managed, keyPath, values)
        #expect(f.array.min() == nil)
        #expect(f.array.max() == nil)
        f.array.append(objectsIn: values.reversed())
        #expect(f.array.min() == values.compactMap { $0 }.first)
        #expect(f.array.max() == values.compactMap { $0 }.last)
    }

    // AddablePrimitiveListTests (sum, then average of the three values)
    static func addable<Root: Object, V: RealmCollectionValue & Numeric>(_ keyPath: KeyPath<Root, List<V>>, _ values: [V], managed: Bool,
                                                                       double: (V) -> Double, average: (List<V>) -> Double?) throws {
        let f = try PrimitiveListFixture(managed: managed, keyPath, values)
        #expect(f.array.sum() == .zero)
        #expect(average(f.array) == nil)
        f.array.append(objectsIn: values)
        let expectedSum = values.map(double).reduce(0, +)
        #expect(abs(double(f.array.sum()) - expectedSum) < 0.01)
        #expect(abs(average(f.array)! - expectedSum / 3) < 0.01)
    }

    // SortablePrimitiveListTests
    static func sortable<Root: Object, V: RealmCollectionValue & Comparable>(_ keyPath: KeyPath<Root, List<V>>, _ values: [V], managed: Bool) throws {
        var f = try PrimitiveListFixture(managed: managed, keyPath, values)
        f.array.append(objectsIn: Array(values.dropFirst()) + [values[0]])
        #expect(Array(f.array.sorted(ascending: true)) == values)
        #expect(Array(f.array.sorted(ascending: false)) == values.reversed())
        f = try PrimitiveListFixture(managed: managed, keyPath, values)
        f.array.append(objectsIn: values)
        f.array.append(objectsIn: values)
        #expect(Array(f.array.distinct()) == values)
    }
}

/// realm-swift's Optional value factory: the values without the second, nil first.
func optionalValues<W>(_ values: [W]) -> [W?] {
    var v = values.map { Optional($0) }
    v.remove(at: 1)
    v.insert(nil, at: 0)
    return v
}

@Suite struct PrimitiveListTests {
    static let dates = [Date(timeIntervalSince1970: 1), Date(timeIntervalSince1970: 2), Date(timeIntervalSince1970: 3)]
    static let strings = ["a", "b", "c"]
    static let datas = [Data("a".utf8), Data("b".utf8), Data("c".utf8)]
    static let objectIds = [ObjectId("1234567890ab1234567890ab"), ObjectId("234567890ab1234567890ab1"), ObjectId("34567890ab1234567890ab12")]
    static let uuids = ["33041937-05b2-464a-98ad-3910cbe0d09e", "b9d325b0-3058-4838-8473-8f1aaae410db", "85d4fbee-6ec6-47df-bfa1-615931903d7e"].map { UUID(uuidString: $0)! }

    @Test(arguments: [false, true]) func plainTypes(_ managed: Bool) throws {
        try PrimitiveListChecks.all(\SwiftListObject.int, [1, 2, 3], managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.int8, [1, 2, 3], managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.int16, [1, 2, 3], managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.int32, [1, 2, 3], managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.int64, [1, 2, 3], managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.float, [1.1, 2.2, 3.3], managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.double, [1.1, 2.2, 3.3], managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.string, Self.strings, managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.data, Self.datas, managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.date, Self.dates, managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.objectId, Self.objectIds, managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.uuid, Self.uuids, managed: managed)
    }

    @Test(arguments: [false, true]) func optionalTypes(_ managed: Bool) throws {
        try PrimitiveListChecks.all(\SwiftListObject.intOpt, optionalValues([1, 2, 3]), managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.int8Opt, optionalValues([1, 2, 3]), managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.int16Opt, optionalValues([1, 2, 3]), managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.int32Opt, optionalValues([1, 2, 3]), managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.int64Opt, optionalValues([1, 2, 3]), managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.floatOpt, optionalValues([1.1, 2.2, 3.3]), managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.doubleOpt, optionalValues([1.1, 2.2, 3.3]), managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.stringOpt, optionalValues(Self.strings), managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.dataOpt, optionalValues(Self.datas), managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.dateOpt, optionalValues(Self.dates), managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.objectIdOpt, optionalValues(Self.objectIds), managed: managed)
        try PrimitiveListChecks.all(\SwiftListObject.uuidOpt, optionalValues(Self.uuids), managed: managed)
    }

    @Test(arguments: [false, true]) func enumTypes(_ managed: Bool) throws {
        try PrimitiveListChecks.all(\CompatEnumListObject.colors, CompatColor.allCases, managed: managed)
        try PrimitiveListChecks.all(\CompatEnumListObject.optColors, optionalValues(CompatColor.allCases), managed: managed)
    }

    @Test(arguments: [false, true]) func minMax(_ managed: Bool) throws {
        try PrimitiveListChecks.minMax(\SwiftListObject.int, [1, 2, 3], managed: managed)
        try PrimitiveListChecks.minMax(\SwiftListObject.int8, [1, 2, 3], managed: managed)
        try PrimitiveListChecks.minMax(\SwiftListObject.int16, [1, 2, 3], managed: managed)
        try PrimitiveListChecks.minMax(\SwiftListObject.int32, [1, 2, 3], managed: managed)
        try PrimitiveListChecks.minMax(\SwiftListObject.int64, [1, 2, 3], managed: managed)
        try PrimitiveListChecks.minMax(\SwiftListObject.float, [1.1, 2.2, 3.3], managed: managed)
        try PrimitiveListChecks.minMax(\SwiftListObject.double, [1.1, 2.2, 3.3], managed: managed)
        try PrimitiveListChecks.minMax(\SwiftListObject.date, Self.dates, managed: managed)
        try PrimitiveListChecks.minMaxOptional(\SwiftListObject.intOpt, optionalValues([1, 2, 3]), managed: managed)
        try PrimitiveListChecks.minMaxOptional(\SwiftListObject.int8Opt, optionalValues([1, 2, 3]), managed: managed)
        try PrimitiveListChecks.minMaxOptional(\SwiftListObject.floatOpt, optionalValues([1.1, 2.2, 3.3]), managed: managed)
        try PrimitiveListChecks.minMaxOptional(\SwiftListObject.doubleOpt, optionalValues([1.1, 2.2, 3.3]), managed: managed)
        try PrimitiveListChecks.minMaxOptional(\SwiftListObject.dateOpt, optionalValues(Self.dates), managed: managed)
    }

    @Test(arguments: [false, true]) func addable(_ managed: Bool) throws {
        try PrimitiveListChecks.addable(\SwiftListObject.int, [1, 2, 3], managed: managed, double: Double.init, average: { $0.average() })
        try PrimitiveListChecks.addable(\SwiftListObject.int8, [1, 2, 3], managed: managed, double: Double.init, average: { $0.average() })
        try PrimitiveListChecks.addable(\SwiftListObject.int16, [1, 2, 3], managed: managed, double: Double.init, average: { $0.average() })
        try PrimitiveListChecks.addable(\SwiftListObject.int32, [1, 2, 3], managed: managed, double: Double.init, average: { $0.average() })
        try PrimitiveListChecks.addable(\SwiftListObject.int64, [1, 2, 3], managed: managed, double: Double.init, average: { $0.average() })
        try PrimitiveListChecks.addable(\SwiftListObject.float, [1.1, 2.2, 3.3], managed: managed, double: Double.init, average: { $0.average() })
        try PrimitiveListChecks.addable(\SwiftListObject.double, [1.1, 2.2, 3.3], managed: managed, double: { $0 }, average: { $0.average() })
        // Optionals: the sum and average of the non-nil values (realm-swift: sum() / 2).
        let f = try PrimitiveListFixture(managed: managed, \SwiftListObject.intOpt, optionalValues([1, 2, 3]))
        #expect(f.array.sum() == 0)
        #expect(f.array.average() == nil)
        f.array.append(objectsIn: f.values)
        #expect(f.array.sum() == 4)
        #expect(f.array.average() == 2)
    }

    @Test func sortable() throws {
        // realm-swift runs these on managed lists.
        try PrimitiveListChecks.sortable(\SwiftListObject.int, [1, 2, 3], managed: true)
        try PrimitiveListChecks.sortable(\SwiftListObject.int8, [1, 2, 3], managed: true)
        try PrimitiveListChecks.sortable(\SwiftListObject.int16, [1, 2, 3], managed: true)
        try PrimitiveListChecks.sortable(\SwiftListObject.int32, [1, 2, 3], managed: true)
        try PrimitiveListChecks.sortable(\SwiftListObject.int64, [1, 2, 3], managed: true)
        try PrimitiveListChecks.sortable(\SwiftListObject.float, [1.1, 2.2, 3.3], managed: true)
        try PrimitiveListChecks.sortable(\SwiftListObject.double, [1.1, 2.2, 3.3], managed: true)
        try PrimitiveListChecks.sortable(\SwiftListObject.string, Self.strings, managed: true)
        try PrimitiveListChecks.sortable(\SwiftListObject.date, Self.dates, managed: true)
    }

    @Test func outOfBoundsFailsTheWrite() throws {
        let f = try PrimitiveListFixture(managed: true, \SwiftListObject.int, [1, 2, 3])
        f.array.insert(1, at: 4)
        #expect(throws: AtollError.self) { try f.realm?.commitWrite() }
    }
}
