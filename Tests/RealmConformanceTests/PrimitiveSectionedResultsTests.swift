// Port of realm-swift's RealmSwift/Tests/SectionedResultsTests.swift, the sectioning of lists and
// sets of values: BasePrimitiveSectionedResultsTests and BaseOptionalPrimitiveSectionedResultsTests
// (run by realm-swift's PrimitiveSectionedResultsTests for each SectionedResultsTestData type),
// and SectionedResultsTests.testCreationFromList / testCreateFromMutableSet, with realm-swift's
// data and expected values.
//
// Ported (all pass): testCreationFromList, testCreationFromMutableSet, testFrozenFromParentCollection
// and testFrozen for Int, Bool, Float, Double, String, AnyRealmValue, Data, Date and Decimal128;
// testCreationFromListOptional, testCreationFromMutableSetOptional, testEquality,
// testFrozenFromParentCollection and testFrozen for their optionals.
// Adapted: the lists and sets live on `SectionedValuesObject` (realm-swift's ModernAllTypesObject
// cut down to them) so the shared ModernAllTypesObject stays as it is.
// Left out: testCreationFromResults(Optional) and testCreationFromAnyRealmCollection(Optional):
// Atoll's `Results` and `AnyRealmCollection` hold objects only (`arrayInt.sorted(ascending:)`
// is an array), so there is no `Results<Int>` to section.
// Then Atoll's own checks: sections of values are live and observable with section and row
// indices, as sections of objects are.

import Atoll
import Foundation
import Testing

/// The lists and sets of values realm-swift's primitive sectioning tests use.
final class SectionedValuesObject: Object {
    @Persisted var arrayInt: List<Int>
    @Persisted var setInt: MutableSet<Int>
    @Persisted var arrayOptInt: List<Int?>
    @Persisted var setOptInt: MutableSet<Int?>
    @Persisted var arrayBool: List<Bool>
    @Persisted var setBool: MutableSet<Bool>
    @Persisted var arrayOptBool: List<Bool?>
    @Persisted var setOptBool: MutableSet<Bool?>
    @Persisted var arrayFloat: List<Float>
    @Persisted var setFloat: MutableSet<Float>
    @Persisted var arrayOptFloat: List<Float?>
    @Persisted var setOptFloat: MutableSet<Float?>
    @Persisted var arrayDouble: List<Double>
    @Persisted var setDouble: MutableSet<Double>
    @Persisted var arrayOptDouble: List<Double?>
    @Persisted var setOptDouble: MutableSet<Double?>
    @Persisted var arrayString: List<String>
    @Persisted var setString: MutableSet<String>
    @Persisted var arrayOptString: List<String?>
    @Persisted var setOptString: MutableSet<String?>
    @Persisted var arrayAny: List<AnyRealmValue>
    @Persisted var setAny: MutableSet<AnyRealmValue>
    @Persisted var arrayBinary: List<Data>
    @Persisted var setBinary: MutableSet<Data>
    @Persisted var arrayOptBinary: List<Data?>
    @Persisted var setOptBinary: MutableSet<Data?>
    @Persisted var arrayDate: List<Date>
    @Persisted var setDate: MutableSet<Date>
    @Persisted var arrayOptDate: List<Date?>
    @Persisted var setOptDate: MutableSet<Date?>
    @Persisted var arrayDecimal: List<Decimal128>
    @Persisted var setDecimal: MutableSet<Decimal128>
    @Persisted var arrayOptDecimal: List<Decimal128?>
    @Persisted var setOptDecimal: MutableSet<Decimal128?>
}

/// realm-swift's SectionedResultsTestData and OptionalSectionedResultsTestData in one: for an
/// optional data set, `Element` is the optional type and the values include nil.
protocol SectionedValuesData {
    associatedtype Key: Hashable
    associatedtype Element: RealmCollectionValue

    static var expectedSectionedValues: [Key: [Element]] { get }
    static func orderedKeys(ascending: Bool) -> [Key]
    static func setupObject() -> SectionedValuesObject
    static func list(_ obj: SectionedValuesObject) -> List<Element>
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<Element>
    static func sectionBlock(_ element: Element) -> Key
}

// MARK: - The data sets (realm-swift's values and expectations)

enum SectionedDataInt: SectionedValuesData {
    static var values: [Int] { [5, 4, 3, 2, 1] }
    static var expectedSectionedValues: [Int: [Int]] { [1: [1, 3, 5], 0: [2, 4]] }
    static func orderedKeys(ascending: Bool) -> [Int] { [1, 0] }
    static func setupObject() -> SectionedValuesObject {
        let object = SectionedValuesObject()
        object.arrayInt.append(objectsIn: values)
        object.setInt.insert(objectsIn: values)
        return object
    }
    static func list(_ obj: SectionedValuesObject) -> List<Int> { obj.arrayInt }
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<Int> { obj.setInt }
    static func sectionBlock(_ element: Int) -> Int { element % 2 }
}

enum SectionedDataOptionalInt: SectionedValuesData {
    static var values: [Int?] { [5, 4, 3, 2, 1] }
    static var expectedSectionedValues: [Int?: [Int?]] { [1: [1, 3, 5], 0: [2, 4], nil: [nil]] }
    static func orderedKeys(ascending: Bool) -> [Int?] { ascending ? [nil, 1, 0] : [1, 0, nil] }
    static func setupObject() -> SectionedValuesObject {
        let object = SectionedValuesObject()
        object.arrayOptInt.append(objectsIn: values + [nil])
        object.setOptInt.insert(objectsIn: values + [nil])
        return object
    }
    static func list(_ obj: SectionedValuesObject) -> List<Int?> { obj.arrayOptInt }
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<Int?> { obj.setOptInt }
    static func sectionBlock(_ element: Int?) -> Int? { element.map { $0 % 2 } }
}

enum SectionedDataFloat: SectionedValuesData {
    static var values: [Float] { [5.5, 4.4, 3.3, 2.2, 1.1] }
    static var expectedSectionedValues: [String: [Float]] { ["small": [1.1, 2.2, 3.3, 4.4], "large": [5.5]] }
    static func orderedKeys(ascending: Bool) -> [String] { ascending ? ["small", "large"] : ["large", "small"] }
    static func setupObject() -> SectionedValuesObject {
        let object = SectionedValuesObject()
        object.arrayFloat.append(objectsIn: values)
        object.setFloat.insert(objectsIn: values)
        return object
    }
    static func list(_ obj: SectionedValuesObject) -> List<Float> { obj.arrayFloat }
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<Float> { obj.setFloat }
    static func sectionBlock(_ element: Float) -> String { (element >= 5.0) ? "large" : "small" }
}

enum SectionedDataOptionalFloat: SectionedValuesData {
    static var values: [Float?] { [5.5, 4.4, 3.3, 2.2, 1.1] }
    static var expectedSectionedValues: [Float?: [Float?]] { [0.0: [1.1, 2.2, 3.3, 4.4], 1.0: [5.5], nil: [nil]] }
    static func orderedKeys(ascending: Bool) -> [Float?] { ascending ? [nil, 0.0, 1.0] : [1.0, 0.0, nil] }
    static func setupObject() -> SectionedValuesObject {
        let object = SectionedValuesObject()
        object.arrayOptFloat.append(objectsIn: values + [nil])
        object.setOptFloat.insert(objectsIn: values + [nil])
        return object
    }
    static func list(_ obj: SectionedValuesObject) -> List<Float?> { obj.arrayOptFloat }
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<Float?> { obj.setOptFloat }
    static func sectionBlock(_ element: Float?) -> Float? { element.map { $0 >= 5.0 ? 1.0 : 0.0 } }
}

enum SectionedDataDouble: SectionedValuesData {
    static var values: [Double] { [5.5, 4.4, 3.3, 2.2, 1.1] }
    static var expectedSectionedValues: [String: [Double]] { ["small": [1.1, 2.2, 3.3, 4.4], "large": [5.5]] }
    static func orderedKeys(ascending: Bool) -> [String] { ascending ? ["small", "large"] : ["large", "small"] }
    static func setupObject() -> SectionedValuesObject {
        let object = SectionedValuesObject()
        object.arrayDouble.append(objectsIn: values)
        object.setDouble.insert(objectsIn: values)
        return object
    }
    static func list(_ obj: SectionedValuesObject) -> List<Double> { obj.arrayDouble }
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<Double> { obj.setDouble }
    static func sectionBlock(_ element: Double) -> String { (element >= 5.0) ? "large" : "small" }
}

enum SectionedDataOptionalDouble: SectionedValuesData {
    static var values: [Double?] { [5.5, 4.4, 3.3, 2.2, 1.1] }
    static var expectedSectionedValues: [Double?: [Double?]] { [0.0: [1.1, 2.2, 3.3, 4.4], 1.0: [5.5], nil: [nil]] }
    static func orderedKeys(ascending: Bool) -> [Double?] { ascending ? [nil, 0.0, 1.0] : [1.0, 0.0, nil] }
    static func setupObject() -> SectionedValuesObject {
        let object = SectionedValuesObject()
        object.arrayOptDouble.append(objectsIn: values + [nil])
        object.setOptDouble.insert(objectsIn: values + [nil])
        return object
    }
    static func list(_ obj: SectionedValuesObject) -> List<Double?> { obj.arrayOptDouble }
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<Double?> { obj.setOptDouble }
    static func sectionBlock(_ element: Double?) -> Double? { element.map { $0 >= 5.0 ? 1.0 : 0.0 } }
}

enum SectionedDataString: SectionedValuesData {
    static var values: [String] { ["apple", "banana", "any", "phone", "door"] }
    static var expectedSectionedValues: [String: [String]] { ["a": ["any", "apple"], "b": ["banana"], "d": ["door"], "p": ["phone"]] }
    static func orderedKeys(ascending: Bool) -> [String] { ascending ? ["a", "b", "d", "p"] : ["p", "d", "b", "a"] }
    static func setupObject() -> SectionedValuesObject {
        let object = SectionedValuesObject()
        object.arrayString.append(objectsIn: values)
        object.setString.insert(objectsIn: values)
        return object
    }
    static func list(_ obj: SectionedValuesObject) -> List<String> { obj.arrayString }
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<String> { obj.setString }
    static func sectionBlock(_ element: String) -> String { String(element.first!) }
}

enum SectionedDataOptionalString: SectionedValuesData {
    static var values: [String?] { ["apple", "banana", "any", "phone", "door"] }
    static var expectedSectionedValues: [String?: [String?]] {
        ["a": ["any", "apple"], "b": ["banana"], "d": ["door"], "p": ["phone"], nil: [nil]]
    }
    static func orderedKeys(ascending: Bool) -> [String?] { ascending ? [nil, "a", "b", "d", "p"] : ["p", "d", "b", "a", nil] }
    static func setupObject() -> SectionedValuesObject {
        let object = SectionedValuesObject()
        object.arrayOptString.append(objectsIn: values + [nil])
        object.setOptString.insert(objectsIn: values + [nil])
        return object
    }
    static func list(_ obj: SectionedValuesObject) -> List<String?> { obj.arrayOptString }
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<String?> { obj.setOptString }
    static func sectionBlock(_ element: String?) -> String? { element.map { String($0.first!) } }
}

enum SectionedDataAnyRealmValue: SectionedValuesData {
    static var values: [AnyRealmValue] { [.string("apple"), .int(2), .bool(true), .data(.init(repeating: 1, count: 1)), .decimal128(123.456)] }
    static var expectedSectionedValues: [String: [AnyRealmValue]] {
        ["alphanumeric": [.bool(true), .int(2), .decimal128(123.456), .string("apple")], "data": [.data(.init(repeating: 1, count: 1))]]
    }
    static func orderedKeys(ascending: Bool) -> [String] { ascending ? ["alphanumeric", "data"] : ["data", "alphanumeric"] }
    static func setupObject() -> SectionedValuesObject {
        let object = SectionedValuesObject()
        object.arrayAny.append(objectsIn: values)
        object.setAny.insert(objectsIn: values)
        return object
    }
    static func list(_ obj: SectionedValuesObject) -> List<AnyRealmValue> { obj.arrayAny }
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<AnyRealmValue> { obj.setAny }
    static func sectionBlock(_ element: AnyRealmValue) -> String {
        switch element {
        case .int, .bool, .string, .decimal128: "alphanumeric"
        case .data: "data"
        default: "unexpected \(element)"
        }
    }
}

enum SectionedDataBinary: SectionedValuesData {
    static var values: [Data] {
        [Data(base64Encoded: "more")!, Data(base64Encoded: "door")!, Data(base64Encoded: "absolute")!, Data(base64Encoded: "abstract")!]
    }
    static var expectedSectionedValues: [String: [Data]] {
        ["short": [Data(base64Encoded: "door")!, Data(base64Encoded: "more")!],
         "long": [Data(base64Encoded: "absolute")!, Data(base64Encoded: "abstract")!]]
    }
    static func orderedKeys(ascending: Bool) -> [String] { ascending ? ["long", "short"] : ["short", "long"] }
    static func setupObject() -> SectionedValuesObject {
        let object = SectionedValuesObject()
        object.arrayBinary.append(objectsIn: values)
        object.setBinary.insert(objectsIn: values)
        return object
    }
    static func list(_ obj: SectionedValuesObject) -> List<Data> { obj.arrayBinary }
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<Data> { obj.setBinary }
    static func sectionBlock(_ element: Data) -> String { element.base64EncodedString().count == 4 ? "short" : "long" }
}

enum SectionedDataOptionalBinary: SectionedValuesData {
    static var values: [Data?] {
        [Data(base64Encoded: "more")!, Data(base64Encoded: "door")!, Data(base64Encoded: "absolute")!, Data(base64Encoded: "abstract")!]
    }
    static var expectedSectionedValues: [String?: [Data?]] {
        ["short": [Data(base64Encoded: "door")!, Data(base64Encoded: "more")!],
         "long": [Data(base64Encoded: "absolute")!, Data(base64Encoded: "abstract")!],
         nil: [nil]]
    }
    static func orderedKeys(ascending: Bool) -> [String?] { ascending ? [nil, "long", "short"] : ["short", "long", nil] }
    static func setupObject() -> SectionedValuesObject {
        let object = SectionedValuesObject()
        object.arrayOptBinary.append(objectsIn: values + [nil])
        object.setOptBinary.insert(objectsIn: values + [nil])
        return object
    }
    static func list(_ obj: SectionedValuesObject) -> List<Data?> { obj.arrayOptBinary }
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<Data?> { obj.setOptBinary }
    static func sectionBlock(_ element: Data?) -> String? { element.map { $0.base64EncodedString().count == 4 ? "short" : "long" } }
}

/// The first instant of a date's month as realm-swift's block computes it (day 0: the last day
/// of the previous month, in UTC).
private func sectionMonth(_ date: Date) -> Date {
    var cal = Calendar(identifier: .gregorian)
    cal.timeZone = TimeZone(secondsFromGMT: 0)!
    let comps = cal.dateComponents([.month, .year], from: date)
    return cal.date(from: DateComponents(year: comps.year, month: comps.month, day: 0, hour: 0, minute: 0, second: 0))!
}

enum SectionedDataDate: SectionedValuesData {
    static var values: [Date] {
        [Date(timeIntervalSince1970: 1656547200), // 6-30-22
         Date(timeIntervalSince1970: 1653868800), // 5-30-22
         Date(timeIntervalSince1970: 1651276800), // 4-30-22
         Date(timeIntervalSince1970: 1650412800)] // 4-20-22
    }
    static var expectedSectionedValues: [Date: [Date]] {
        [Date(timeIntervalSince1970: 1653955200): [Date(timeIntervalSince1970: 1656547200)], // June
         Date(timeIntervalSince1970: 1651276800): [Date(timeIntervalSince1970: 1653868800)], // May
         Date(timeIntervalSince1970: 1648684800): [Date(timeIntervalSince1970: 1650412800), // April
                                                   Date(timeIntervalSince1970: 1651276800)]]
    }
    static func orderedKeys(ascending: Bool) -> [Date] {
        let keys = [Date(timeIntervalSince1970: 1648684800), Date(timeIntervalSince1970: 1651276800), Date(timeIntervalSince1970: 1653955200)]
        return ascending ? keys : keys.reversed()
    }
    static func setupObject() -> SectionedValuesObject {
        let object = SectionedValuesObject()
        object.arrayDate.append(objectsIn: values)
        object.setDate.insert(objectsIn: values)
        return object
    }
    static func list(_ obj: SectionedValuesObject) -> List<Date> { obj.arrayDate }
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<Date> { obj.setDate }
    static func sectionBlock(_ element: Date) -> Date { sectionMonth(element) }
}

enum SectionedDataOptionalDate: SectionedValuesData {
    static var values: [Date?] {
        [Date(timeIntervalSince1970: 1656547200), // 6-30-22
         Date(timeIntervalSince1970: 1653868800), // 5-30-22
         Date(timeIntervalSince1970: 1651276800), // 4-30-22
         Date(timeIntervalSince1970: 1650412800)] // 4-20-22
    }
    static var expectedSectionedValues: [Date?: [Date?]] {
        [nil: [nil],
         Date(timeIntervalSince1970: 1653955200): [Date(timeIntervalSince1970: 1656547200)], // June
         Date(timeIntervalSince1970: 1651276800): [Date(timeIntervalSince1970: 1653868800)], // May
         Date(timeIntervalSince1970: 1648684800): [Date(timeIntervalSince1970: 1650412800), // April
                                                   Date(timeIntervalSince1970: 1651276800)]]
    }
    static func orderedKeys(ascending: Bool) -> [Date?] {
        let keys = [nil, Date(timeIntervalSince1970: 1648684800), Date(timeIntervalSince1970: 1651276800), Date(timeIntervalSince1970: 1653955200)]
        return ascending ? keys : keys.reversed()
    }
    static func setupObject() -> SectionedValuesObject {
        let object = SectionedValuesObject()
        object.arrayOptDate.append(objectsIn: values + [nil])
        object.setOptDate.insert(objectsIn: values + [nil])
        return object
    }
    static func list(_ obj: SectionedValuesObject) -> List<Date?> { obj.arrayOptDate }
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<Date?> { obj.setOptDate }
    static func sectionBlock(_ element: Date?) -> Date? { element.map(sectionMonth) }
}

enum SectionedDataDecimal128: SectionedValuesData {
    static var values: [Decimal128] { [Decimal128(1.0), Decimal128(3.0), Decimal128(2.0), Decimal128(4.0)] }
    static var expectedSectionedValues: [Decimal128: [Decimal128]] {
        [Decimal128(1.0): [Decimal128(1.0), Decimal128(3.0)],
         Decimal128(2.0): [Decimal128(2.0), Decimal128(4.0)]]
    }
    static func orderedKeys(ascending: Bool) -> [Decimal128] {
        let keys = [Decimal128(1.0), Decimal128(2.0)]
        return ascending ? keys : keys.reversed()
    }
    static func setupObject() -> SectionedValuesObject {
        let object = SectionedValuesObject()
        object.arrayDecimal.append(objectsIn: values)
        object.setDecimal.insert(objectsIn: values)
        return object
    }
    static func list(_ obj: SectionedValuesObject) -> List<Decimal128> { obj.arrayDecimal }
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<Decimal128> { obj.setDecimal }
    static func sectionBlock(_ element: Decimal128) -> Decimal128 {
        element.doubleValue.truncatingRemainder(dividingBy: 2.0) == 0 ? Decimal128(2.0) : Decimal128(1.0)
    }
}

enum SectionedDataOptionalDecimal128: SectionedValuesData {
    static var values: [Decimal128?] { [Decimal128(1.0), Decimal128(3.0), Decimal128(2.0), Decimal128(4.000)] }
    static var expectedSectionedValues: [Decimal128?: [Decimal128?]] {
        [Decimal128(1.0): [Decimal128(1.0), Decimal128(3.0)],
         Decimal128(2.0): [Decimal128(2.0), Decimal128(4.0)],
         nil: [nil]]
    }
    static func orderedKeys(ascending: Bool) -> [Decimal128?] {
        let keys: [Decimal128?] = [nil, Decimal128(1.0), Decimal128(2.0)]
        return ascending ? keys : keys.reversed()
    }
    static func setupObject() -> SectionedValuesObject {
        let object = SectionedValuesObject()
        object.arrayOptDecimal.append(objectsIn: values + [nil])
        object.setOptDecimal.insert(objectsIn: values + [nil])
        return object
    }
    static func list(_ obj: SectionedValuesObject) -> List<Decimal128?> { obj.arrayOptDecimal }
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<Decimal128?> { obj.setOptDecimal }
    static func sectionBlock(_ element: Decimal128?) -> Decimal128? {
        element.map { $0.doubleValue.truncatingRemainder(dividingBy: 2.0) == 0 ? Decimal128(2.0) : Decimal128(1.0) }
    }
}

enum SectionedDataBool: SectionedValuesData {
    static var values: [Bool] { [true, false] }
    static var expectedSectionedValues: [Bool: [Bool]] { [false: [false], true: [true]] }
    static func orderedKeys(ascending: Bool) -> [Bool] { ascending ? [false, true] : [true, false] }
    static func setupObject() -> SectionedValuesObject {
        let object = SectionedValuesObject()
        object.arrayBool.append(objectsIn: values)
        object.setBool.insert(objectsIn: values)
        return object
    }
    static func list(_ obj: SectionedValuesObject) -> List<Bool> { obj.arrayBool }
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<Bool> { obj.setBool }
    static func sectionBlock(_ element: Bool) -> Bool { element }
}

enum SectionedDataOptionalBool: SectionedValuesData {
    static var values: [Bool?] { [true, false] }
    static var expectedSectionedValues: [Bool?: [Bool?]] { [false: [false], true: [true], nil: [nil]] }
    static func orderedKeys(ascending: Bool) -> [Bool?] { ascending ? [nil, false, true] : [true, false, nil] }
    static func setupObject() -> SectionedValuesObject {
        let object = SectionedValuesObject()
        object.arrayOptBool.append(objectsIn: values + [nil])
        object.setOptBool.insert(objectsIn: values + [nil])
        return object
    }
    static func list(_ obj: SectionedValuesObject) -> List<Bool?> { obj.arrayOptBool }
    static func mutableSet(_ obj: SectionedValuesObject) -> MutableSet<Bool?> { obj.setOptBool }
    static func sectionBlock(_ element: Bool?) -> Bool? { element }
}

// MARK: - The tests

@Suite struct PrimitiveSectionedResultsTests {
    let t = RealmTestCase()

    /// realm-swift's setUp: a realm holding the data set's object.
    private func setUp<D: SectionedValuesData>(_ data: D.Type) throws -> SectionedValuesObject {
        let realm = try t.inMemoryRealm("BasePrimitiveSectionedResultsTests")
        let obj = D.setupObject()
        try realm.write { realm.add(obj) }
        return obj
    }

    /// realm-swift's `assert(_:ascending:)`: sections in the expected key order, each holding
    /// the expected values in the expected order.
    private func check<D: SectionedValuesData>(_ data: D.Type, _ sectionedResults: SectionedResults<D.Key, D.Element>,
                                               ascending: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        var sectionCount = 0
        var elementCount = 0
        let keys = D.orderedKeys(ascending: ascending)
        for section in sectionedResults {
            guard sectionCount < keys.count else {
                Issue.record("unexpected section \(section.key)", sourceLocation: sourceLocation)
                return
            }
            #expect(section.key == keys[sectionCount], sourceLocation: sourceLocation)
            sectionCount += 1
            guard let expected = D.expectedSectionedValues[section.key] else {
                Issue.record("no values expected for section \(section.key)", sourceLocation: sourceLocation)
                continue
            }
            let expValues = ascending ? expected : expected.reversed()
            #expect(section.count == expValues.count, sourceLocation: sourceLocation)
            for (i, value) in expValues.enumerated() where i < section.count {
                #expect(section[i] == value, "section \(section.key) row \(i)", sourceLocation: sourceLocation)
                elementCount += 1
            }
        }
        #expect(sectionCount == D.expectedSectionedValues.keys.count, sourceLocation: sourceLocation)
        #expect(elementCount == D.expectedSectionedValues.values.flatMap { $0 }.count, sourceLocation: sourceLocation)
    }

    /// testCreationFromList, testCreationFromMutableSet, testFrozenFromParentCollection and
    /// testFrozen (and their Optional variants) for one data set.
    private func runAll<D: SectionedValuesData>(_ data: D.Type) throws {
        let obj = try setUp(data)
        // testCreationFromList
        let list = D.list(obj)
        check(data, list.sectioned(by: D.sectionBlock), ascending: true)
        check(data, list.sectioned(by: D.sectionBlock, ascending: false), ascending: false)
        // testCreationFromMutableSet
        let set = D.mutableSet(obj)
        check(data, set.sectioned(by: D.sectionBlock, ascending: true), ascending: true)
        check(data, set.sectioned(by: D.sectionBlock, ascending: false), ascending: false)
        // testFrozenFromParentCollection
        do {
            let sectionedResults = list.sectioned(by: D.sectionBlock)
            #expect(!sectionedResults.isFrozen)
            let frozenCollection = list.freeze()
            let frozenSectionedResults = frozenCollection.sectioned(by: D.sectionBlock)
            #expect(frozenSectionedResults.isFrozen)
            #expect(frozenSectionedResults.count == D.expectedSectionedValues.count)
            let thawedSectionedResults = try #require(frozenSectionedResults.thaw(), "Could not thaw sectioned results.")
            #expect(!thawedSectionedResults.isFrozen)
            #expect(thawedSectionedResults.count == D.expectedSectionedValues.count)
        }
        // testFrozen
        do {
            let sectionedResults = list.sectioned(by: D.sectionBlock)
            #expect(!sectionedResults.isFrozen)
            let frozenSectionedResults = sectionedResults.freeze()
            #expect(frozenSectionedResults.isFrozen)
            #expect(frozenSectionedResults.count == D.expectedSectionedValues.count)
            let thawedSectionedResults = try #require(frozenSectionedResults.thaw(), "Could not thaw sectioned results.")
            #expect(!thawedSectionedResults.isFrozen)
            #expect(thawedSectionedResults.count == D.expectedSectionedValues.count)
        }
    }

    /// BaseOptionalPrimitiveSectionedResultsTests.testEquality.
    private func equality<D: SectionedValuesData>(_ data: D.Type) throws {
        let collection = D.list(try setUp(data))
        let sectionedResults = collection.sectioned(by: D.sectionBlock)
        let sectionedResults2 = collection.sectioned(by: D.sectionBlock)
        #expect(sectionedResults == sectionedResults)
        #expect(sectionedResults != sectionedResults2)
    }

    @Test func int() throws { try runAll(SectionedDataInt.self) }
    @Test func bool() throws { try runAll(SectionedDataBool.self) }
    @Test func float() throws { try runAll(SectionedDataFloat.self) }
    @Test func double() throws { try runAll(SectionedDataDouble.self) }
    @Test func string() throws { try runAll(SectionedDataString.self) }
    @Test func anyRealmValue() throws { try runAll(SectionedDataAnyRealmValue.self) }
    @Test func binary() throws { try runAll(SectionedDataBinary.self) }
    @Test func date() throws { try runAll(SectionedDataDate.self) }
    @Test func decimal128() throws { try runAll(SectionedDataDecimal128.self) }

    @Test func optionalInt() throws {
        try runAll(SectionedDataOptionalInt.self)
        try equality(SectionedDataOptionalInt.self)
    }
    @Test func optionalBool() throws {
        try runAll(SectionedDataOptionalBool.self)
        try equality(SectionedDataOptionalBool.self)
    }
    @Test func optionalFloat() throws {
        try runAll(SectionedDataOptionalFloat.self)
        try equality(SectionedDataOptionalFloat.self)
    }
    @Test func optionalDouble() throws {
        try runAll(SectionedDataOptionalDouble.self)
        try equality(SectionedDataOptionalDouble.self)
    }
    @Test func optionalString() throws {
        try runAll(SectionedDataOptionalString.self)
        try equality(SectionedDataOptionalString.self)
    }
    @Test func optionalBinary() throws {
        try runAll(SectionedDataOptionalBinary.self)
        try equality(SectionedDataOptionalBinary.self)
    }
    @Test func optionalDate() throws {
        try runAll(SectionedDataOptionalDate.self)
        try equality(SectionedDataOptionalDate.self)
    }
    @Test func optionalDecimal128() throws {
        try runAll(SectionedDataOptionalDecimal128.self)
        try equality(SectionedDataOptionalDecimal128.self)
    }

    // MARK: SectionedResultsTests.testCreationFromList / testCreateFromMutableSet

    /// realm-swift's createObjects, for the list and set of strings of the first object.
    private func createStrings() throws -> SectionedValuesObject {
        let realm = try t.inMemoryRealm("sectioned results test")
        let o1 = SectionedValuesObject()
        o1.arrayString.append(objectsIn: ["banana", "box", "apple", "chalk"])
        o1.setString.insert(objectsIn: ["banana", "box", "apple", "chalk"])
        try realm.write { realm.add(o1) }
        return o1
    }

    @Test func testCreationFromList() throws {
        let list = try createStrings().arrayString

        func assert(ascending: Bool, sectionCount: Int, sectionKeys: [String]) {
            let sectionedResults = list.sectioned(by: { String($0.first!) }, ascending: ascending)
            #expect(sectionedResults.count == sectionCount)
            #expect(sectionedResults.map { $0.key } == sectionKeys)
        }

        assert(ascending: true, sectionCount: 3, sectionKeys: ["a", "b", "c"])
        assert(ascending: false, sectionCount: 3, sectionKeys: ["c", "b", "a"])
    }

    @Test func testCreateFromMutableSet() throws {
        let set = try createStrings().setString

        func assert(ascending: Bool, sectionCount: Int, sectionKeys: [String]) {
            let sectionedResults = set.sectioned(by: { String($0.first!) }, ascending: ascending)
            #expect(sectionedResults.count == sectionCount)
            #expect(sectionedResults.map { $0.key } == sectionKeys)
        }

        assert(ascending: true, sectionCount: 3, sectionKeys: ["a", "b", "c"])
        assert(ascending: false, sectionCount: 3, sectionKeys: ["c", "b", "a"])
    }

    // MARK: Atoll: sections of values are live and observable

    @Test func sectionsOfAListFollowItsChanges() throws {
        let obj = try createStrings()
        let realm = try #require(obj.realm)
        let sectioned = obj.arrayString.sectioned(by: { String($0.first!) }, ascending: true)
        #expect(sectioned.map { Array($0) } == [["apple"], ["banana", "box"], ["chalk"]])
        try realm.write {
            obj.arrayString.append("avocado")
            obj.arrayString.remove(at: 3) // chalk
        }
        #expect(sectioned.allKeys == ["a", "b"])
        #expect(sectioned.map { Array($0) } == [["apple", "avocado"], ["banana", "box"]])
        #expect(sectioned[IndexPath(item: 1, section: 0)] == "avocado")
        #expect(sectioned[key: "b"]?.count == 2)
        #expect(sectioned[key: "c"] == nil)
    }

    @Test func observingSectionsOfAListReportsSectionAndRowIndices() throws {
        let obj = try createStrings()
        let realm = try #require(obj.realm)
        let sectioned = obj.arrayString.sectioned(by: { String($0.first!) }, ascending: true)
        var changes: [String] = []
        let token = sectioned.observe { change in
            switch change {
            case .initial(let sections):
                changes.append("initial \(sections.allKeys)")
            case let .update(sections, deletions, insertions, modifications, sectionsToInsert, sectionsToDelete):
                func paths(_ p: [IndexPath]) -> String { p.map { "\($0.section).\($0.item)" }.joined(separator: ",") }
                changes.append("update \(sections.allKeys) d[\(paths(deletions))] i[\(paths(insertions))] m[\(paths(modifications))]"
                               + " +\(Array(sectionsToInsert)) -\(Array(sectionsToDelete))")
            }
        }
        defer { token.invalidate() }
        // [apple] [banana box] [chalk]: avocado joins section a after apple.
        try realm.write { obj.arrayString.append("avocado") }
        // A new section z; chalk's section goes.
        try realm.write {
            obj.arrayString.append("zebra")
            obj.arrayString.remove(at: 3) // chalk
        }
        // A second "box": duplicates are distinct rows.
        try realm.write { obj.arrayString.append("box") }
        // Replacing banana with blueberry: a deletion and an insertion in the same section.
        try realm.write { obj.arrayString[0] = "blueberry" }
        // A write that leaves the values as they were notifies nothing.
        try realm.write { obj.arrayString.move(from: 0, to: 1) }
        #expect(changes == [
            "initial [\"a\", \"b\", \"c\"]",
            "update [\"a\", \"b\", \"c\"] d[] i[0.1] m[] +[] -[]",
            "update [\"a\", \"b\", \"z\"] d[] i[2.0] m[] +[2] -[2]",
            "update [\"a\", \"b\", \"z\"] d[] i[1.2] m[] +[] -[]",
            "update [\"a\", \"b\", \"z\"] d[1.0] i[1.0] m[] +[] -[]",
        ])
    }

    @Test func observingSectionsOfASetOnAQueue() throws {
        let obj = try createStrings()
        let realm = try #require(obj.realm)
        let sectioned = obj.setString.sectioned(by: { String($0.first!) }, ascending: false)
        let queue = DispatchQueue(label: "sectioned set")
        let sema = DispatchSemaphore(value: 0)
        let log = LockedValue<[String]>([])
        let token = sectioned.observe(on: queue) { change in
            switch change {
            case .initial(let sections):
                log.value.append("initial \(sections.allKeys) \(sections.map { Array($0) })")
            case let .update(sections, deletions, insertions, _, sectionsToInsert, sectionsToDelete):
                log.value.append("update \(sections.allKeys) d\(deletions.map { [$0.section, $0.item] }) i\(insertions.map { [$0.section, $0.item] })"
                                 + " +\(Array(sectionsToInsert)) -\(Array(sectionsToDelete))")
            }
            sema.signal()
        }
        defer { token.invalidate() }
        sema.wait()
        try realm.write { obj.setString.insert("dune") }
        sema.wait()
        #expect(log.value == [
            "initial [\"c\", \"b\", \"a\"] [[\"chalk\"], [\"box\", \"banana\"], [\"apple\"]]",
            "update [\"d\", \"c\", \"b\", \"a\"] d[] i[[0, 0]] +[0] -[]",
        ])
    }
}
