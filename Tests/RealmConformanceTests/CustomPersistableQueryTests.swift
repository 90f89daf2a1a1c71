// CustomPersistable and FailableCustomPersistable (issue 14). Two parts:
// - `CustomPersistableQueryTests`: the custom-persistable cases of realm-swift's type-safe query
//   tests (RealmSwift/Tests/QueryTests.swift: testEquals, testNumericComparisons,
//   testStringComparisons, testCollectionContainsElement), taken mechanically with their setUp
//   values, expected counts and predicate texts; each case also runs the predicate text through
//   the string API and checks it selects the same objects.
// - `CustomPersistableTests`: reading and writing custom values in properties, optionals and
//   collections, key-value coding, persistence across reopen, sorting, and the failable rules of
//   realm-swift's ModernObjectAccessorTests.setAndTestFailableCustomMappings.
// Left out: realm-swift's wrappers persisted as an EmbeddedObject (EmbeddedObjectWrapper,
// testEqualMappedToEmbeddedObject and friends): Atoll cannot map a custom type to an embedded
// object yet.

import Atoll
import Foundation
import Testing

// MARK: realm-swift's test types (CustomPersistableTestObjects.swift, without the embedded ones)

protocol TrivialCustomPersistable: CustomPersistable {
    var value: PersistedType { get set }
    init(value: PersistedType)
}

extension TrivialCustomPersistable {
    init(persistedValue: PersistedType) {
        self.init(value: persistedValue)
    }
    var persistableValue: PersistedType { value }
}

struct BoolWrapper: TrivialCustomPersistable {
    typealias PersistedType = Bool
    var value: Bool
}
struct IntWrapper: TrivialCustomPersistable {
    typealias PersistedType = Int
    var value: Int
}
struct Int8Wrapper: TrivialCustomPersistable {
    typealias PersistedType = Int8
    var value: Int8
}
struct Int16Wrapper: TrivialCustomPersistable {
    typealias PersistedType = Int16
    var value: Int16
}
struct Int32Wrapper: TrivialCustomPersistable {
    typealias PersistedType = Int32
    var value: Int32
}
struct Int64Wrapper: TrivialCustomPersistable {
    typealias PersistedType = Int64
    var value: Int64
}
struct FloatWrapper: TrivialCustomPersistable {
    typealias PersistedType = Float
    var value: Float
}
struct DoubleWrapper: TrivialCustomPersistable {
    typealias PersistedType = Double
    var value: Double
}
struct StringWrapper: TrivialCustomPersistable {
    typealias PersistedType = String
    var value: String
}
struct DataWrapper: TrivialCustomPersistable {
    typealias PersistedType = Data
    var value: Data
}
struct DateWrapper: TrivialCustomPersistable {
    typealias PersistedType = Date
    var value: Date
}
struct Decimal128Wrapper: TrivialCustomPersistable {
    typealias PersistedType = Decimal128
    var value: Decimal128
}
struct ObjectIdWrapper: TrivialCustomPersistable {
    typealias PersistedType = ObjectId
    var value: ObjectId
}
struct UUIDWrapper: TrivialCustomPersistable {
    typealias PersistedType = UUID
    var value: UUID
}

struct IntFailableWrapper: FailableCustomPersistable {
    typealias PersistedType = Int
    init?(persistedValue: Int) {
        if persistedValue == 1 {
            return nil
        }
        self.persistableValue = persistedValue
    }
    let persistableValue: Int
}

class AllCustomPersistableTypes: Object {
    @Persisted var bool: BoolWrapper
    @Persisted var int: IntWrapper
    @Persisted var int8: Int8Wrapper
    @Persisted var int16: Int16Wrapper
    @Persisted var int32: Int32Wrapper
    @Persisted var int64: Int64Wrapper
    @Persisted var float: FloatWrapper
    @Persisted var double: DoubleWrapper
    @Persisted var string: StringWrapper
    @Persisted var binary: DataWrapper
    @Persisted var date: DateWrapper
    @Persisted var decimal: Decimal128Wrapper
    @Persisted var objectId: ObjectIdWrapper
    @Persisted var uuid: UUIDWrapper

    @Persisted var optBool: BoolWrapper?
    @Persisted var optInt: IntWrapper?
    @Persisted var optInt8: Int8Wrapper?
    @Persisted var optInt16: Int16Wrapper?
    @Persisted var optInt32: Int32Wrapper?
    @Persisted var optInt64: Int64Wrapper?
    @Persisted var optFloat: FloatWrapper?
    @Persisted var optDouble: DoubleWrapper?
    @Persisted var optString: StringWrapper?
    @Persisted var optBinary: DataWrapper?
    @Persisted var optDate: DateWrapper?
    @Persisted var optDecimal: Decimal128Wrapper?
    @Persisted var optObjectId: ObjectIdWrapper?
    @Persisted var optUuid: UUIDWrapper?
}

class CustomPersistableCollections: Object {
    @Persisted var listBool: List<BoolWrapper>
    @Persisted var listInt: List<IntWrapper>
    @Persisted var listInt8: List<Int8Wrapper>
    @Persisted var listInt16: List<Int16Wrapper>
    @Persisted var listInt32: List<Int32Wrapper>
    @Persisted var listInt64: List<Int64Wrapper>
    @Persisted var listFloat: List<FloatWrapper>
    @Persisted var listDouble: List<DoubleWrapper>
    @Persisted var listString: List<StringWrapper>
    @Persisted var listBinary: List<DataWrapper>
    @Persisted var listDate: List<DateWrapper>
    @Persisted var listDecimal: List<Decimal128Wrapper>
    @Persisted var listUuid: List<UUIDWrapper>
    @Persisted var listObjectId: List<ObjectIdWrapper>

    @Persisted var listOptBool: List<BoolWrapper?>
    @Persisted var listOptInt: List<IntWrapper?>
    @Persisted var listOptInt8: List<Int8Wrapper?>
    @Persisted var listOptInt16: List<Int16Wrapper?>
    @Persisted var listOptInt32: List<Int32Wrapper?>
    @Persisted var listOptInt64: List<Int64Wrapper?>
    @Persisted var listOptFloat: List<FloatWrapper?>
    @Persisted var listOptDouble: List<DoubleWrapper?>
    @Persisted var listOptString: List<StringWrapper?>
    @Persisted var listOptBinary: List<DataWrapper?>
    @Persisted var listOptDate: List<DateWrapper?>
    @Persisted var listOptDecimal: List<Decimal128Wrapper?>
    @Persisted var listOptUuid: List<UUIDWrapper?>
    @Persisted var listOptObjectId: List<ObjectIdWrapper?>

    @Persisted var setBool: MutableSet<BoolWrapper>
    @Persisted var setInt: MutableSet<IntWrapper>
    @Persisted var setInt8: MutableSet<Int8Wrapper>
    @Persisted var setInt16: MutableSet<Int16Wrapper>
    @Persisted var setInt32: MutableSet<Int32Wrapper>
    @Persisted var setInt64: MutableSet<Int64Wrapper>
    @Persisted var setFloat: MutableSet<FloatWrapper>
    @Persisted var setDouble: MutableSet<DoubleWrapper>
    @Persisted var setString: MutableSet<StringWrapper>
    @Persisted var setBinary: MutableSet<DataWrapper>
    @Persisted var setDate: MutableSet<DateWrapper>
    @Persisted var setDecimal: MutableSet<Decimal128Wrapper>
    @Persisted var setUuid: MutableSet<UUIDWrapper>
    @Persisted var setObjectId: MutableSet<ObjectIdWrapper>

    @Persisted var setOptBool: MutableSet<BoolWrapper?>
    @Persisted var setOptInt: MutableSet<IntWrapper?>
    @Persisted var setOptInt8: MutableSet<Int8Wrapper?>
    @Persisted var setOptInt16: MutableSet<Int16Wrapper?>
    @Persisted var setOptInt32: MutableSet<Int32Wrapper?>
    @Persisted var setOptInt64: MutableSet<Int64Wrapper?>
    @Persisted var setOptFloat: MutableSet<FloatWrapper?>
    @Persisted var setOptDouble: MutableSet<DoubleWrapper?>
    @Persisted var setOptString: MutableSet<StringWrapper?>
    @Persisted var setOptBinary: MutableSet<DataWrapper?>
    @Persisted var setOptDate: MutableSet<DateWrapper?>
    @Persisted var setOptDecimal: MutableSet<Decimal128Wrapper?>
    @Persisted var setOptUuid: MutableSet<UUIDWrapper?>
    @Persisted var setOptObjectId: MutableSet<ObjectIdWrapper?>

    @Persisted var mapBool: Map<String, BoolWrapper>
    @Persisted var mapInt: Map<String, IntWrapper>
    @Persisted var mapInt8: Map<String, Int8Wrapper>
    @Persisted var mapInt16: Map<String, Int16Wrapper>
    @Persisted var mapInt32: Map<String, Int32Wrapper>
    @Persisted var mapInt64: Map<String, Int64Wrapper>
    @Persisted var mapFloat: Map<String, FloatWrapper>
    @Persisted var mapDouble: Map<String, DoubleWrapper>
    @Persisted var mapString: Map<String, StringWrapper>
    @Persisted var mapBinary: Map<String, DataWrapper>
    @Persisted var mapDate: Map<String, DateWrapper>
    @Persisted var mapDecimal: Map<String, Decimal128Wrapper>
    @Persisted var mapUuid: Map<String, UUIDWrapper>
    @Persisted var mapObjectId: Map<String, ObjectIdWrapper>

    @Persisted var mapOptBool: Map<String, BoolWrapper?>
    @Persisted var mapOptInt: Map<String, IntWrapper?>
    @Persisted var mapOptInt8: Map<String, Int8Wrapper?>
    @Persisted var mapOptInt16: Map<String, Int16Wrapper?>
    @Persisted var mapOptInt32: Map<String, Int32Wrapper?>
    @Persisted var mapOptInt64: Map<String, Int64Wrapper?>
    @Persisted var mapOptFloat: Map<String, FloatWrapper?>
    @Persisted var mapOptDouble: Map<String, DoubleWrapper?>
    @Persisted var mapOptString: Map<String, StringWrapper?>
    @Persisted var mapOptBinary: Map<String, DataWrapper?>
    @Persisted var mapOptDate: Map<String, DateWrapper?>
    @Persisted var mapOptDecimal: Map<String, Decimal128Wrapper?>
    @Persisted var mapOptUuid: Map<String, UUIDWrapper?>
    @Persisted var mapOptObjectId: Map<String, ObjectIdWrapper?>
}

class FailableCustomObject: Object {
    @Persisted var int: IntFailableWrapper
    @Persisted var optInt: IntFailableWrapper?
    @Persisted var listInt: List<IntFailableWrapper>
    @Persisted var optListInt: List<IntFailableWrapper?>
    @Persisted var setInt: MutableSet<IntFailableWrapper>
    @Persisted var optSetInt: MutableSet<IntFailableWrapper?>
    @Persisted var mapInt: Map<String, IntFailableWrapper>
    @Persisted var optMapInt: Map<String, IntFailableWrapper?>
}

// realm-swift's QueryValue values for the wrappers (QueryTests.swift: `X.queryValues().map(XWrapper.init)`).
private protocol CustomQueryValue {
    static func queryValues() -> [Self]
}
extension BoolWrapper: CustomQueryValue {
    static func queryValues() -> [BoolWrapper] {
        let values: [Bool] = [true, true, false]
        return values.map(BoolWrapper.init(persistedValue:))
    }
}
extension IntWrapper: CustomQueryValue {
    static func queryValues() -> [IntWrapper] {
        let values: [Int] = [1, 3, 5]
        return values.map(IntWrapper.init(persistedValue:))
    }
}
extension Int8Wrapper: CustomQueryValue {
    static func queryValues() -> [Int8Wrapper] {
        let values: [Int8] = [Int8(8), Int8(9), Int8(10)]
        return values.map(Int8Wrapper.init(persistedValue:))
    }
}
extension Int16Wrapper: CustomQueryValue {
    static func queryValues() -> [Int16Wrapper] {
        let values: [Int16] = [Int16(16), Int16(17), Int16(18)]
        return values.map(Int16Wrapper.init(persistedValue:))
    }
}
extension Int32Wrapper: CustomQueryValue {
    static func queryValues() -> [Int32Wrapper] {
        let values: [Int32] = [Int32(32), Int32(33), Int32(34)]
        return values.map(Int32Wrapper.init(persistedValue:))
    }
}
extension Int64Wrapper: CustomQueryValue {
    static func queryValues() -> [Int64Wrapper] {
        let values: [Int64] = [Int64(64), Int64(65), Int64(66)]
        return values.map(Int64Wrapper.init(persistedValue:))
    }
}
extension FloatWrapper: CustomQueryValue {
    static func queryValues() -> [FloatWrapper] {
        let values: [Float] = [Float(5.55444333), Float(6.55444333), Float(7.55444333)]
        return values.map(FloatWrapper.init(persistedValue:))
    }
}
extension DoubleWrapper: CustomQueryValue {
    static func queryValues() -> [DoubleWrapper] {
        let values: [Double] = [123.456, 234.567, 345.678]
        return values.map(DoubleWrapper.init(persistedValue:))
    }
}
extension StringWrapper: CustomQueryValue {
    static func queryValues() -> [StringWrapper] {
        let values: [String] = ["Foo", "Foó", "foo"]
        return values.map(StringWrapper.init(persistedValue:))
    }
}
extension DataWrapper: CustomQueryValue {
    static func queryValues() -> [DataWrapper] {
        let values: [Data] = [Data(count: 64), Data(count: 128), Data(count: 256)]
        return values.map(DataWrapper.init(persistedValue:))
    }
}
extension DateWrapper: CustomQueryValue {
    static func queryValues() -> [DateWrapper] {
        let values: [Date] = [Date(timeIntervalSince1970: 1000000), Date(timeIntervalSince1970: 2000000), Date(timeIntervalSince1970: 3000000)]
        return values.map(DateWrapper.init(persistedValue:))
    }
}
extension Decimal128Wrapper: CustomQueryValue {
    static func queryValues() -> [Decimal128Wrapper] {
        let values: [Decimal128] = [Decimal128(123.456), Decimal128(234.567), Decimal128(345.678)]
        return values.map(Decimal128Wrapper.init(persistedValue:))
    }
}
extension ObjectIdWrapper: CustomQueryValue {
    static func queryValues() -> [ObjectIdWrapper] {
        let values: [ObjectId] = [ObjectId("61184062c1d8f096a3695046"), ObjectId("61184062c1d8f096a3695045"), ObjectId("61184062c1d8f096a3695044")]
        return values.map(ObjectIdWrapper.init(persistedValue:))
    }
}
extension UUIDWrapper: CustomQueryValue {
    static func queryValues() -> [UUIDWrapper] {
        let values: [UUID] = [UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!, UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!, UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d08e")!]
        return values.map(UUIDWrapper.init(persistedValue:))
    }
}
extension Optional: CustomQueryValue where Wrapped: CustomQueryValue {
    static func queryValues() -> [Self] {
        return Wrapped.queryValues().map { Optional($0) }
    }
}

@Suite struct CustomPersistableQueryTests {
    let t = RealmTestCase()
    let realm: Realm

    init() throws {
        realm = try t.inMemoryRealm("CustomPersistableQueryTests")
        try realm.write {
                let objCustomPersistableCollections = CustomPersistableCollections()
                let objAllCustomPersistableTypes = AllCustomPersistableTypes()
                objAllCustomPersistableTypes.bool = BoolWrapper(persistedValue: false)
                objAllCustomPersistableTypes.int = IntWrapper(persistedValue: 3)
                objAllCustomPersistableTypes.int8 = Int8Wrapper(persistedValue: Int8(9))
                objAllCustomPersistableTypes.int16 = Int16Wrapper(persistedValue: Int16(17))
                objAllCustomPersistableTypes.int32 = Int32Wrapper(persistedValue: Int32(33))
                objAllCustomPersistableTypes.int64 = Int64Wrapper(persistedValue: Int64(65))
                objAllCustomPersistableTypes.float = FloatWrapper(persistedValue: Float(6.55444333))
                objAllCustomPersistableTypes.double = DoubleWrapper(persistedValue: 234.567)
                objAllCustomPersistableTypes.string = StringWrapper(persistedValue: "Foó")
                objAllCustomPersistableTypes.binary = DataWrapper(persistedValue: Data(count: 128))
                objAllCustomPersistableTypes.date = DateWrapper(persistedValue: Date(timeIntervalSince1970: 2000000))
                objAllCustomPersistableTypes.decimal = Decimal128Wrapper(persistedValue: Decimal128(234.567))
                objAllCustomPersistableTypes.objectId = ObjectIdWrapper(persistedValue: ObjectId("61184062c1d8f096a3695045"))
                objAllCustomPersistableTypes.uuid = UUIDWrapper(persistedValue: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!)
                objAllCustomPersistableTypes.optBool = BoolWrapper(persistedValue: false)
                objAllCustomPersistableTypes.optInt = IntWrapper(persistedValue: 3)
                objAllCustomPersistableTypes.optInt8 = Int8Wrapper(persistedValue: Int8(9))
                objAllCustomPersistableTypes.optInt16 = Int16Wrapper(persistedValue: Int16(17))
                objAllCustomPersistableTypes.optInt32 = Int32Wrapper(persistedValue: Int32(33))
                objAllCustomPersistableTypes.optInt64 = Int64Wrapper(persistedValue: Int64(65))
                objAllCustomPersistableTypes.optFloat = FloatWrapper(persistedValue: Float(6.55444333))
                objAllCustomPersistableTypes.optDouble = DoubleWrapper(persistedValue: 234.567)
                objAllCustomPersistableTypes.optString = StringWrapper(persistedValue: "Foó")
                objAllCustomPersistableTypes.optBinary = DataWrapper(persistedValue: Data(count: 128))
                objAllCustomPersistableTypes.optDate = DateWrapper(persistedValue: Date(timeIntervalSince1970: 2000000))
                objAllCustomPersistableTypes.optDecimal = Decimal128Wrapper(persistedValue: Decimal128(234.567))
                objAllCustomPersistableTypes.optObjectId = ObjectIdWrapper(persistedValue: ObjectId("61184062c1d8f096a3695045"))
                objAllCustomPersistableTypes.optUuid = UUIDWrapper(persistedValue: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!)
                objCustomPersistableCollections.listBool.append(objectsIn: [BoolWrapper(persistedValue: true), BoolWrapper(persistedValue: true)])
                objCustomPersistableCollections.listInt.append(objectsIn: [IntWrapper(persistedValue: 1), IntWrapper(persistedValue: 3)])
                objCustomPersistableCollections.listInt8.append(objectsIn: [Int8Wrapper(persistedValue: Int8(8)), Int8Wrapper(persistedValue: Int8(9))])
                objCustomPersistableCollections.listInt16.append(objectsIn: [Int16Wrapper(persistedValue: Int16(16)), Int16Wrapper(persistedValue: Int16(17))])
                objCustomPersistableCollections.listInt32.append(objectsIn: [Int32Wrapper(persistedValue: Int32(32)), Int32Wrapper(persistedValue: Int32(33))])
                objCustomPersistableCollections.listInt64.append(objectsIn: [Int64Wrapper(persistedValue: Int64(64)), Int64Wrapper(persistedValue: Int64(65))])
                objCustomPersistableCollections.listFloat.append(objectsIn: [FloatWrapper(persistedValue: Float(5.55444333)), FloatWrapper(persistedValue: Float(6.55444333))])
                objCustomPersistableCollections.listDouble.append(objectsIn: [DoubleWrapper(persistedValue: 123.456), DoubleWrapper(persistedValue: 234.567)])
                objCustomPersistableCollections.listString.append(objectsIn: [StringWrapper(persistedValue: "Foo"), StringWrapper(persistedValue: "Foó")])
                objCustomPersistableCollections.listBinary.append(objectsIn: [DataWrapper(persistedValue: Data(count: 64)), DataWrapper(persistedValue: Data(count: 128))])
                objCustomPersistableCollections.listDate.append(objectsIn: [DateWrapper(persistedValue: Date(timeIntervalSince1970: 1000000)), DateWrapper(persistedValue: Date(timeIntervalSince1970: 2000000))])
                objCustomPersistableCollections.listDecimal.append(objectsIn: [Decimal128Wrapper(persistedValue: Decimal128(123.456)), Decimal128Wrapper(persistedValue: Decimal128(234.567))])
                objCustomPersistableCollections.listObjectId.append(objectsIn: [ObjectIdWrapper(persistedValue: ObjectId("61184062c1d8f096a3695046")), ObjectIdWrapper(persistedValue: ObjectId("61184062c1d8f096a3695045"))])
                objCustomPersistableCollections.listUuid.append(objectsIn: [UUIDWrapper(persistedValue: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!), UUIDWrapper(persistedValue: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!)])
                objCustomPersistableCollections.listOptBool.append(objectsIn: [BoolWrapper(persistedValue: true), BoolWrapper(persistedValue: true)])
                objCustomPersistableCollections.listOptInt.append(objectsIn: [IntWrapper(persistedValue: 1), IntWrapper(persistedValue: 3)])
                objCustomPersistableCollections.listOptInt8.append(objectsIn: [Int8Wrapper(persistedValue: Int8(8)), Int8Wrapper(persistedValue: Int8(9))])
                objCustomPersistableCollections.listOptInt16.append(objectsIn: [Int16Wrapper(persistedValue: Int16(16)), Int16Wrapper(persistedValue: Int16(17))])
                objCustomPersistableCollections.listOptInt32.append(objectsIn: [Int32Wrapper(persistedValue: Int32(32)), Int32Wrapper(persistedValue: Int32(33))])
                objCustomPersistableCollections.listOptInt64.append(objectsIn: [Int64Wrapper(persistedValue: Int64(64)), Int64Wrapper(persistedValue: Int64(65))])
                objCustomPersistableCollections.listOptFloat.append(objectsIn: [FloatWrapper(persistedValue: Float(5.55444333)), FloatWrapper(persistedValue: Float(6.55444333))])
                objCustomPersistableCollections.listOptDouble.append(objectsIn: [DoubleWrapper(persistedValue: 123.456), DoubleWrapper(persistedValue: 234.567)])
                objCustomPersistableCollections.listOptString.append(objectsIn: [StringWrapper(persistedValue: "Foo"), StringWrapper(persistedValue: "Foó")])
                objCustomPersistableCollections.listOptBinary.append(objectsIn: [DataWrapper(persistedValue: Data(count: 64)), DataWrapper(persistedValue: Data(count: 128))])
                objCustomPersistableCollections.listOptDate.append(objectsIn: [DateWrapper(persistedValue: Date(timeIntervalSince1970: 1000000)), DateWrapper(persistedValue: Date(timeIntervalSince1970: 2000000))])
                objCustomPersistableCollections.listOptDecimal.append(objectsIn: [Decimal128Wrapper(persistedValue: Decimal128(123.456)), Decimal128Wrapper(persistedValue: Decimal128(234.567))])
                objCustomPersistableCollections.listOptObjectId.append(objectsIn: [ObjectIdWrapper(persistedValue: ObjectId("61184062c1d8f096a3695046")), ObjectIdWrapper(persistedValue: ObjectId("61184062c1d8f096a3695045"))])
                objCustomPersistableCollections.listOptUuid.append(objectsIn: [UUIDWrapper(persistedValue: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!), UUIDWrapper(persistedValue: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!)])
                objCustomPersistableCollections.setBool.insert(objectsIn: [BoolWrapper(persistedValue: true), BoolWrapper(persistedValue: true)])
                objCustomPersistableCollections.setInt.insert(objectsIn: [IntWrapper(persistedValue: 1), IntWrapper(persistedValue: 3)])
                objCustomPersistableCollections.setInt8.insert(objectsIn: [Int8Wrapper(persistedValue: Int8(8)), Int8Wrapper(persistedValue: Int8(9))])
                objCustomPersistableCollections.setInt16.insert(objectsIn: [Int16Wrapper(persistedValue: Int16(16)), Int16Wrapper(persistedValue: Int16(17))])
                objCustomPersistableCollections.setInt32.insert(objectsIn: [Int32Wrapper(persistedValue: Int32(32)), Int32Wrapper(persistedValue: Int32(33))])
                objCustomPersistableCollections.setInt64.insert(objectsIn: [Int64Wrapper(persistedValue: Int64(64)), Int64Wrapper(persistedValue: Int64(65))])
                objCustomPersistableCollections.setFloat.insert(objectsIn: [FloatWrapper(persistedValue: Float(5.55444333)), FloatWrapper(persistedValue: Float(6.55444333))])
                objCustomPersistableCollections.setDouble.insert(objectsIn: [DoubleWrapper(persistedValue: 123.456), DoubleWrapper(persistedValue: 234.567)])
                objCustomPersistableCollections.setString.insert(objectsIn: [StringWrapper(persistedValue: "Foo"), StringWrapper(persistedValue: "Foó")])
                objCustomPersistableCollections.setBinary.insert(objectsIn: [DataWrapper(persistedValue: Data(count: 64)), DataWrapper(persistedValue: Data(count: 128))])
                objCustomPersistableCollections.setDate.insert(objectsIn: [DateWrapper(persistedValue: Date(timeIntervalSince1970: 1000000)), DateWrapper(persistedValue: Date(timeIntervalSince1970: 2000000))])
                objCustomPersistableCollections.setDecimal.insert(objectsIn: [Decimal128Wrapper(persistedValue: Decimal128(123.456)), Decimal128Wrapper(persistedValue: Decimal128(234.567))])
                objCustomPersistableCollections.setObjectId.insert(objectsIn: [ObjectIdWrapper(persistedValue: ObjectId("61184062c1d8f096a3695046")), ObjectIdWrapper(persistedValue: ObjectId("61184062c1d8f096a3695045"))])
                objCustomPersistableCollections.setUuid.insert(objectsIn: [UUIDWrapper(persistedValue: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!), UUIDWrapper(persistedValue: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!)])
                objCustomPersistableCollections.setOptBool.insert(objectsIn: [BoolWrapper(persistedValue: true), BoolWrapper(persistedValue: true)])
                objCustomPersistableCollections.setOptInt.insert(objectsIn: [IntWrapper(persistedValue: 1), IntWrapper(persistedValue: 3)])
                objCustomPersistableCollections.setOptInt8.insert(objectsIn: [Int8Wrapper(persistedValue: Int8(8)), Int8Wrapper(persistedValue: Int8(9))])
                objCustomPersistableCollections.setOptInt16.insert(objectsIn: [Int16Wrapper(persistedValue: Int16(16)), Int16Wrapper(persistedValue: Int16(17))])
                objCustomPersistableCollections.setOptInt32.insert(objectsIn: [Int32Wrapper(persistedValue: Int32(32)), Int32Wrapper(persistedValue: Int32(33))])
                objCustomPersistableCollections.setOptInt64.insert(objectsIn: [Int64Wrapper(persistedValue: Int64(64)), Int64Wrapper(persistedValue: Int64(65))])
                objCustomPersistableCollections.setOptFloat.insert(objectsIn: [FloatWrapper(persistedValue: Float(5.55444333)), FloatWrapper(persistedValue: Float(6.55444333))])
                objCustomPersistableCollections.setOptDouble.insert(objectsIn: [DoubleWrapper(persistedValue: 123.456), DoubleWrapper(persistedValue: 234.567)])
                objCustomPersistableCollections.setOptString.insert(objectsIn: [StringWrapper(persistedValue: "Foo"), StringWrapper(persistedValue: "Foó")])
                objCustomPersistableCollections.setOptBinary.insert(objectsIn: [DataWrapper(persistedValue: Data(count: 64)), DataWrapper(persistedValue: Data(count: 128))])
                objCustomPersistableCollections.setOptDate.insert(objectsIn: [DateWrapper(persistedValue: Date(timeIntervalSince1970: 1000000)), DateWrapper(persistedValue: Date(timeIntervalSince1970: 2000000))])
                objCustomPersistableCollections.setOptDecimal.insert(objectsIn: [Decimal128Wrapper(persistedValue: Decimal128(123.456)), Decimal128Wrapper(persistedValue: Decimal128(234.567))])
                objCustomPersistableCollections.setOptObjectId.insert(objectsIn: [ObjectIdWrapper(persistedValue: ObjectId("61184062c1d8f096a3695046")), ObjectIdWrapper(persistedValue: ObjectId("61184062c1d8f096a3695045"))])
                objCustomPersistableCollections.setOptUuid.insert(objectsIn: [UUIDWrapper(persistedValue: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!), UUIDWrapper(persistedValue: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!)])
                objCustomPersistableCollections.mapBool["foo"] = BoolWrapper(persistedValue: true)
                objCustomPersistableCollections.mapBool["bar"] = BoolWrapper(persistedValue: true)
                objCustomPersistableCollections.mapInt["foo"] = IntWrapper(persistedValue: 1)
                objCustomPersistableCollections.mapInt["bar"] = IntWrapper(persistedValue: 3)
                objCustomPersistableCollections.mapInt8["foo"] = Int8Wrapper(persistedValue: Int8(8))
                objCustomPersistableCollections.mapInt8["bar"] = Int8Wrapper(persistedValue: Int8(9))
                objCustomPersistableCollections.mapInt16["foo"] = Int16Wrapper(persistedValue: Int16(16))
                objCustomPersistableCollections.mapInt16["bar"] = Int16Wrapper(persistedValue: Int16(17))
                objCustomPersistableCollections.mapInt32["foo"] = Int32Wrapper(persistedValue: Int32(32))
                objCustomPersistableCollections.mapInt32["bar"] = Int32Wrapper(persistedValue: Int32(33))
                objCustomPersistableCollections.mapInt64["foo"] = Int64Wrapper(persistedValue: Int64(64))
                objCustomPersistableCollections.mapInt64["bar"] = Int64Wrapper(persistedValue: Int64(65))
                objCustomPersistableCollections.mapFloat["foo"] = FloatWrapper(persistedValue: Float(5.55444333))
                objCustomPersistableCollections.mapFloat["bar"] = FloatWrapper(persistedValue: Float(6.55444333))
                objCustomPersistableCollections.mapDouble["foo"] = DoubleWrapper(persistedValue: 123.456)
                objCustomPersistableCollections.mapDouble["bar"] = DoubleWrapper(persistedValue: 234.567)
                objCustomPersistableCollections.mapString["foo"] = StringWrapper(persistedValue: "Foo")
                objCustomPersistableCollections.mapString["bar"] = StringWrapper(persistedValue: "Foó")
                objCustomPersistableCollections.mapBinary["foo"] = DataWrapper(persistedValue: Data(count: 64))
                objCustomPersistableCollections.mapBinary["bar"] = DataWrapper(persistedValue: Data(count: 128))
                objCustomPersistableCollections.mapDate["foo"] = DateWrapper(persistedValue: Date(timeIntervalSince1970: 1000000))
                objCustomPersistableCollections.mapDate["bar"] = DateWrapper(persistedValue: Date(timeIntervalSince1970: 2000000))
                objCustomPersistableCollections.mapDecimal["foo"] = Decimal128Wrapper(persistedValue: Decimal128(123.456))
                objCustomPersistableCollections.mapDecimal["bar"] = Decimal128Wrapper(persistedValue: Decimal128(234.567))
                objCustomPersistableCollections.mapObjectId["foo"] = ObjectIdWrapper(persistedValue: ObjectId("61184062c1d8f096a3695046"))
                objCustomPersistableCollections.mapObjectId["bar"] = ObjectIdWrapper(persistedValue: ObjectId("61184062c1d8f096a3695045"))
                objCustomPersistableCollections.mapUuid["foo"] = UUIDWrapper(persistedValue: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!)
                objCustomPersistableCollections.mapUuid["bar"] = UUIDWrapper(persistedValue: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!)
                objCustomPersistableCollections.mapOptBool["foo"] = BoolWrapper(persistedValue: true)
                objCustomPersistableCollections.mapOptBool["bar"] = BoolWrapper(persistedValue: true)
                objCustomPersistableCollections.mapOptInt["foo"] = IntWrapper(persistedValue: 1)
                objCustomPersistableCollections.mapOptInt["bar"] = IntWrapper(persistedValue: 3)
                objCustomPersistableCollections.mapOptInt8["foo"] = Int8Wrapper(persistedValue: Int8(8))
                objCustomPersistableCollections.mapOptInt8["bar"] = Int8Wrapper(persistedValue: Int8(9))
                objCustomPersistableCollections.mapOptInt16["foo"] = Int16Wrapper(persistedValue: Int16(16))
                objCustomPersistableCollections.mapOptInt16["bar"] = Int16Wrapper(persistedValue: Int16(17))
                objCustomPersistableCollections.mapOptInt32["foo"] = Int32Wrapper(persistedValue: Int32(32))
                objCustomPersistableCollections.mapOptInt32["bar"] = Int32Wrapper(persistedValue: Int32(33))
                objCustomPersistableCollections.mapOptInt64["foo"] = Int64Wrapper(persistedValue: Int64(64))
                objCustomPersistableCollections.mapOptInt64["bar"] = Int64Wrapper(persistedValue: Int64(65))
                objCustomPersistableCollections.mapOptFloat["foo"] = FloatWrapper(persistedValue: Float(5.55444333))
                objCustomPersistableCollections.mapOptFloat["bar"] = FloatWrapper(persistedValue: Float(6.55444333))
                objCustomPersistableCollections.mapOptDouble["foo"] = DoubleWrapper(persistedValue: 123.456)
                objCustomPersistableCollections.mapOptDouble["bar"] = DoubleWrapper(persistedValue: 234.567)
                objCustomPersistableCollections.mapOptString["foo"] = StringWrapper(persistedValue: "Foo")
                objCustomPersistableCollections.mapOptString["bar"] = StringWrapper(persistedValue: "Foó")
                objCustomPersistableCollections.mapOptBinary["foo"] = DataWrapper(persistedValue: Data(count: 64))
                objCustomPersistableCollections.mapOptBinary["bar"] = DataWrapper(persistedValue: Data(count: 128))
                objCustomPersistableCollections.mapOptDate["foo"] = DateWrapper(persistedValue: Date(timeIntervalSince1970: 1000000))
                objCustomPersistableCollections.mapOptDate["bar"] = DateWrapper(persistedValue: Date(timeIntervalSince1970: 2000000))
                objCustomPersistableCollections.mapOptDecimal["foo"] = Decimal128Wrapper(persistedValue: Decimal128(123.456))
                objCustomPersistableCollections.mapOptDecimal["bar"] = Decimal128Wrapper(persistedValue: Decimal128(234.567))
                objCustomPersistableCollections.mapOptObjectId["foo"] = ObjectIdWrapper(persistedValue: ObjectId("61184062c1d8f096a3695046"))
                objCustomPersistableCollections.mapOptObjectId["bar"] = ObjectIdWrapper(persistedValue: ObjectId("61184062c1d8f096a3695045"))
                objCustomPersistableCollections.mapOptUuid["foo"] = UUIDWrapper(persistedValue: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09e")!)
                objCustomPersistableCollections.mapOptUuid["bar"] = UUIDWrapper(persistedValue: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!)
                realm.add(objAllCustomPersistableTypes)
                realm.add(objCustomPersistableCollections)
        }
    }

    // MARK: helpers (realm-swift's, for Swift Testing)

    private func assertCount<T: Object>(_ expectedCount: Int,
                                        sourceLocation: SourceLocation = #_sourceLocation,
                                        _ query: ((Query<T>) -> Query<Bool>)) {
        let results = realm.objects(T.self).where(query)
        #expect(results.count == expectedCount, sourceLocation: sourceLocation)
    }

    private func assertPredicate<T: Object>(
            _ predicate: String, _ values: [Any],
            sourceLocation: SourceLocation = #_sourceLocation,
            _ query: ((Query<T>) -> Query<Bool>)) {
        let (queryStr, constructedValues) = query(Query<T>._constructForTesting())._constructPredicate()
        #expect(queryStr == predicate, sourceLocation: sourceLocation)
        #expect(constructedValues.count == values.count, sourceLocation: sourceLocation)
        let typed = Array(realm.objects(T.self).where(query))
        let string = Array(stringFiltered(realm.objects(T.self), predicate, values))
        #expect(typed.count == string.count && zip(typed, string).allSatisfy { $0.isSameObject(as: $1) },
                "the string form \(predicate) selects other objects", sourceLocation: sourceLocation)
    }

    private func assertQuery<T: Object>(_ type: T.Type,
                                        _ predicate: String, _ value: Any,
                                        count expectedCount: Int,
                                        sourceLocation: SourceLocation = #_sourceLocation,
                                        _ query: ((Query<T>) -> Query<Bool>)) {
        assertCount(expectedCount, sourceLocation: sourceLocation, query)
        assertPredicate(predicate, [value], sourceLocation: sourceLocation, query)
    }

    func validateEquals<Root: Object, T>(
            _ name: String, _ lhs: (Query<Root>) -> Query<T>, _ value: T,
            equalCount: Int = 1, notEqualCount: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) {
        assertQuery(Root.self, "(\(name) == %@)", value, count: equalCount, sourceLocation: sourceLocation) {
            lhs($0) == value
        }
        assertQuery(Root.self, "(\(name) != %@)", value, count: notEqualCount, sourceLocation: sourceLocation) {
            lhs($0) != value
        }
    }

    func validateEqualsNil<Root: Object, T: ExpressibleByNilLiteral>(
            _ name: String, _ lhs: (Query<Root>) -> Query<T>, sourceLocation: SourceLocation = #_sourceLocation) {
        assertQuery(Root.self, "(\(name) == %@)", NSNull(), count: 0, sourceLocation: sourceLocation) {
            lhs($0) == nil
        }
        assertQuery(Root.self, "(\(name) != %@)", NSNull(), count: 1, sourceLocation: sourceLocation) {
            lhs($0) != nil
        }
    }

    func validateNumericComparisons<Root: Object, T: _CustomPersistable>(
            _ name: String, _ lhs: (Query<Root>) -> Query<T>,
            _ value: T, count: Int = 1, ltCount: Int = 0, gtCount: Int = 0,
            sourceLocation: SourceLocation = #_sourceLocation) where T.PersistedType: Comparable {
        assertQuery(Root.self, "(\(name) > %@)", value, count: gtCount, sourceLocation: sourceLocation) { lhs($0) > value }
        assertQuery(Root.self, "(\(name) >= %@)", value, count: count, sourceLocation: sourceLocation) { lhs($0) >= value }
        assertQuery(Root.self, "(\(name) < %@)", value, count: ltCount, sourceLocation: sourceLocation) { lhs($0) < value }
        assertQuery(Root.self, "(\(name) <= %@)", value, count: count, sourceLocation: sourceLocation) { lhs($0) <= value }
    }

    func validateNumericComparisons<Root: Object, T: _CustomPersistable>(
            _ name: String, _ lhs: (Query<Root>) -> Query<T?>,
            _ value: T?, count: Int = 1, ltCount: Int = 0, gtCount: Int = 0,
            sourceLocation: SourceLocation = #_sourceLocation) where T.PersistedType: Comparable {
        assertQuery(Root.self, "(\(name) > %@)", value as Any, count: gtCount, sourceLocation: sourceLocation) { lhs($0) > value }
        assertQuery(Root.self, "(\(name) >= %@)", value as Any, count: count, sourceLocation: sourceLocation) { lhs($0) >= value }
        assertQuery(Root.self, "(\(name) < %@)", value as Any, count: ltCount, sourceLocation: sourceLocation) { lhs($0) < value }
        assertQuery(Root.self, "(\(name) <= %@)", value as Any, count: count, sourceLocation: sourceLocation) { lhs($0) <= value }
    }

    func validateStringComparisons<Root: Object, T: _CustomPersistable>(
            _ name: String, _ lhs: (Query<Root>) -> Query<T>,
            _ value: T, letCount: Int = 1, getCount: Int = 1, ltCount: Int = 0, gtCount: Int = 0,
            sourceLocation: SourceLocation = #_sourceLocation) where T.PersistedType == String {
        assertQuery(Root.self, "(\(name) > %@)", value, count: gtCount, sourceLocation: sourceLocation) { lhs($0) > value }
        assertQuery(Root.self, "(\(name) >= %@)", value, count: getCount, sourceLocation: sourceLocation) { lhs($0) >= value }
        assertQuery(Root.self, "(\(name) < %@)", value, count: ltCount, sourceLocation: sourceLocation) { lhs($0) < value }
        assertQuery(Root.self, "(\(name) <= %@)", value, count: letCount, sourceLocation: sourceLocation) { lhs($0) <= value }
    }

    func validateStringComparisons<Root: Object, T: _CustomPersistable>(
            _ name: String, _ lhs: (Query<Root>) -> Query<T?>,
            _ value: T?, letCount: Int = 1, getCount: Int = 1, ltCount: Int = 0, gtCount: Int = 0,
            sourceLocation: SourceLocation = #_sourceLocation) where T.PersistedType == String {
        assertQuery(Root.self, "(\(name) > %@)", value as Any, count: gtCount, sourceLocation: sourceLocation) { lhs($0) > value }
        assertQuery(Root.self, "(\(name) >= %@)", value as Any, count: getCount, sourceLocation: sourceLocation) { lhs($0) >= value }
        assertQuery(Root.self, "(\(name) < %@)", value as Any, count: ltCount, sourceLocation: sourceLocation) { lhs($0) < value }
        assertQuery(Root.self, "(\(name) <= %@)", value as Any, count: letCount, sourceLocation: sourceLocation) { lhs($0) <= value }
    }

    private func validateCollectionContains<Root: Object, T: _QueryCollection>(
            _ name: String, _ lhs: (Query<Root>) -> Query<T>, sourceLocation: SourceLocation = #_sourceLocation)
            where T.Element: CustomQueryValue {
        let values = T.Element.queryValues()
        assertQuery(Root.self, "(%@ IN \(name))", values[0], count: 1, sourceLocation: sourceLocation) { lhs($0).contains(values[0]) }
        assertQuery(Root.self, "(%@ IN \(name))", values[2], count: 0, sourceLocation: sourceLocation) { lhs($0).contains(values[2]) }
        assertQuery(Root.self, "(NOT %@ IN \(name))", values[0], count: 0, sourceLocation: sourceLocation) { !lhs($0).contains(values[0]) }
        assertQuery(Root.self, "(NOT %@ IN \(name))", values[2], count: 1, sourceLocation: sourceLocation) { !lhs($0).contains(values[2]) }
    }

    private func validateCollectionContainsNil<Root: Object, T: _QueryCollection>(
            _ name: String, _ lhs: (Query<Root>) -> Query<T>, sourceLocation: SourceLocation = #_sourceLocation)
            where T.Element: CustomQueryValue & ExpressibleByNilLiteral {
        assertQuery(Root.self, "(%@ IN \(name))", NSNull(), count: 0, sourceLocation: sourceLocation) { lhs($0).contains(nil) }
        assertQuery(Root.self, "(NOT %@ IN \(name))", NSNull(), count: 1, sourceLocation: sourceLocation) { !lhs($0).contains(nil) }
    }

    private func validateCollectionContains<Root: Object, T: _QueryKeyedCollection>(
            _ name: String, _ lhs: (Query<Root>) -> Query<T>, sourceLocation: SourceLocation = #_sourceLocation)
            where T.Value: CustomQueryValue {
        let values = T.Value.queryValues()
        assertQuery(Root.self, "(%@ IN \(name))", values[0], count: 1, sourceLocation: sourceLocation) { lhs($0).contains(values[0]) }
        assertQuery(Root.self, "(%@ IN \(name))", values[2], count: 0, sourceLocation: sourceLocation) { lhs($0).contains(values[2]) }
        assertQuery(Root.self, "(NOT %@ IN \(name))", values[0], count: 0, sourceLocation: sourceLocation) { !lhs($0).contains(values[0]) }
        assertQuery(Root.self, "(NOT %@ IN \(name))", values[2], count: 1, sourceLocation: sourceLocation) { !lhs($0).contains(values[2]) }
    }

    private func validateCollectionContainsNil<Root: Object, T: _QueryKeyedCollection>(
            _ name: String, _ lhs: (Query<Root>) -> Query<T>, sourceLocation: SourceLocation = #_sourceLocation)
            where T.Value: CustomQueryValue & ExpressibleByNilLiteral {
        assertQuery(Root.self, "(%@ IN \(name))", NSNull(), count: 0, sourceLocation: sourceLocation) { lhs($0).contains(nil) }
        assertQuery(Root.self, "(NOT %@ IN \(name))", NSNull(), count: 1, sourceLocation: sourceLocation) { !lhs($0).contains(nil) }
    }

    @Test func testEquals() {
        validateEquals("bool", \Query<AllCustomPersistableTypes>.bool, BoolWrapper(persistedValue: false))
        validateEquals("int", \Query<AllCustomPersistableTypes>.int, IntWrapper(persistedValue: 3))
        validateEquals("int8", \Query<AllCustomPersistableTypes>.int8, Int8Wrapper(persistedValue: Int8(9)))
        validateEquals("int16", \Query<AllCustomPersistableTypes>.int16, Int16Wrapper(persistedValue: Int16(17)))
        validateEquals("int32", \Query<AllCustomPersistableTypes>.int32, Int32Wrapper(persistedValue: Int32(33)))
        validateEquals("int64", \Query<AllCustomPersistableTypes>.int64, Int64Wrapper(persistedValue: Int64(65)))
        validateEquals("float", \Query<AllCustomPersistableTypes>.float, FloatWrapper(persistedValue: Float(6.55444333)))
        validateEquals("double", \Query<AllCustomPersistableTypes>.double, DoubleWrapper(persistedValue: 234.567))
        validateEquals("string", \Query<AllCustomPersistableTypes>.string, StringWrapper(persistedValue: "Foó"))
        validateEquals("binary", \Query<AllCustomPersistableTypes>.binary, DataWrapper(persistedValue: Data(count: 128)))
        validateEquals("date", \Query<AllCustomPersistableTypes>.date, DateWrapper(persistedValue: Date(timeIntervalSince1970: 2000000)))
        validateEquals("decimal", \Query<AllCustomPersistableTypes>.decimal, Decimal128Wrapper(persistedValue: Decimal128(234.567)))
        validateEquals("objectId", \Query<AllCustomPersistableTypes>.objectId, ObjectIdWrapper(persistedValue: ObjectId("61184062c1d8f096a3695045")))
        validateEquals("uuid", \Query<AllCustomPersistableTypes>.uuid, UUIDWrapper(persistedValue: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!))
        validateEquals("optBool", \Query<AllCustomPersistableTypes>.optBool, BoolWrapper(persistedValue: false))
        validateEquals("optInt", \Query<AllCustomPersistableTypes>.optInt, IntWrapper(persistedValue: 3))
        validateEquals("optInt8", \Query<AllCustomPersistableTypes>.optInt8, Int8Wrapper(persistedValue: Int8(9)))
        validateEquals("optInt16", \Query<AllCustomPersistableTypes>.optInt16, Int16Wrapper(persistedValue: Int16(17)))
        validateEquals("optInt32", \Query<AllCustomPersistableTypes>.optInt32, Int32Wrapper(persistedValue: Int32(33)))
        validateEquals("optInt64", \Query<AllCustomPersistableTypes>.optInt64, Int64Wrapper(persistedValue: Int64(65)))
        validateEquals("optFloat", \Query<AllCustomPersistableTypes>.optFloat, FloatWrapper(persistedValue: Float(6.55444333)))
        validateEquals("optDouble", \Query<AllCustomPersistableTypes>.optDouble, DoubleWrapper(persistedValue: 234.567))
        validateEquals("optString", \Query<AllCustomPersistableTypes>.optString, StringWrapper(persistedValue: "Foó"))
        validateEquals("optBinary", \Query<AllCustomPersistableTypes>.optBinary, DataWrapper(persistedValue: Data(count: 128)))
        validateEquals("optDate", \Query<AllCustomPersistableTypes>.optDate, DateWrapper(persistedValue: Date(timeIntervalSince1970: 2000000)))
        validateEquals("optDecimal", \Query<AllCustomPersistableTypes>.optDecimal, Decimal128Wrapper(persistedValue: Decimal128(234.567)))
        validateEquals("optObjectId", \Query<AllCustomPersistableTypes>.optObjectId, ObjectIdWrapper(persistedValue: ObjectId("61184062c1d8f096a3695045")))
        validateEquals("optUuid", \Query<AllCustomPersistableTypes>.optUuid, UUIDWrapper(persistedValue: UUID(uuidString: "33041937-05b2-464a-98ad-3910cbe0d09f")!))
        validateEqualsNil("optBool", \Query<AllCustomPersistableTypes>.optBool)
        validateEqualsNil("optInt", \Query<AllCustomPersistableTypes>.optInt)
        validateEqualsNil("optInt8", \Query<AllCustomPersistableTypes>.optInt8)
        validateEqualsNil("optInt16", \Query<AllCustomPersistableTypes>.optInt16)
        validateEqualsNil("optInt32", \Query<AllCustomPersistableTypes>.optInt32)
        validateEqualsNil("optInt64", \Query<AllCustomPersistableTypes>.optInt64)
        validateEqualsNil("optFloat", \Query<AllCustomPersistableTypes>.optFloat)
        validateEqualsNil("optDouble", \Query<AllCustomPersistableTypes>.optDouble)
        validateEqualsNil("optString", \Query<AllCustomPersistableTypes>.optString)
        validateEqualsNil("optBinary", \Query<AllCustomPersistableTypes>.optBinary)
        validateEqualsNil("optDate", \Query<AllCustomPersistableTypes>.optDate)
        validateEqualsNil("optDecimal", \Query<AllCustomPersistableTypes>.optDecimal)
        validateEqualsNil("optObjectId", \Query<AllCustomPersistableTypes>.optObjectId)
        validateEqualsNil("optUuid", \Query<AllCustomPersistableTypes>.optUuid)
    }

    @Test func testNumericComparisons() {
        validateNumericComparisons("int", \Query<AllCustomPersistableTypes>.int, IntWrapper(persistedValue: 3))
        validateNumericComparisons("int8", \Query<AllCustomPersistableTypes>.int8, Int8Wrapper(persistedValue: Int8(9)))
        validateNumericComparisons("int16", \Query<AllCustomPersistableTypes>.int16, Int16Wrapper(persistedValue: Int16(17)))
        validateNumericComparisons("int32", \Query<AllCustomPersistableTypes>.int32, Int32Wrapper(persistedValue: Int32(33)))
        validateNumericComparisons("int64", \Query<AllCustomPersistableTypes>.int64, Int64Wrapper(persistedValue: Int64(65)))
        validateNumericComparisons("float", \Query<AllCustomPersistableTypes>.float, FloatWrapper(persistedValue: Float(6.55444333)))
        validateNumericComparisons("double", \Query<AllCustomPersistableTypes>.double, DoubleWrapper(persistedValue: 234.567))
        validateNumericComparisons("date", \Query<AllCustomPersistableTypes>.date, DateWrapper(persistedValue: Date(timeIntervalSince1970: 2000000)))
        validateNumericComparisons("decimal", \Query<AllCustomPersistableTypes>.decimal, Decimal128Wrapper(persistedValue: Decimal128(234.567)))
        validateNumericComparisons("optInt", \Query<AllCustomPersistableTypes>.optInt, IntWrapper(persistedValue: 3))
        validateNumericComparisons("optInt8", \Query<AllCustomPersistableTypes>.optInt8, Int8Wrapper(persistedValue: Int8(9)))
        validateNumericComparisons("optInt16", \Query<AllCustomPersistableTypes>.optInt16, Int16Wrapper(persistedValue: Int16(17)))
        validateNumericComparisons("optInt32", \Query<AllCustomPersistableTypes>.optInt32, Int32Wrapper(persistedValue: Int32(33)))
        validateNumericComparisons("optInt64", \Query<AllCustomPersistableTypes>.optInt64, Int64Wrapper(persistedValue: Int64(65)))
        validateNumericComparisons("optFloat", \Query<AllCustomPersistableTypes>.optFloat, FloatWrapper(persistedValue: Float(6.55444333)))
        validateNumericComparisons("optDouble", \Query<AllCustomPersistableTypes>.optDouble, DoubleWrapper(persistedValue: 234.567))
        validateNumericComparisons("optDate", \Query<AllCustomPersistableTypes>.optDate, DateWrapper(persistedValue: Date(timeIntervalSince1970: 2000000)))
        validateNumericComparisons("optDecimal", \Query<AllCustomPersistableTypes>.optDecimal, Decimal128Wrapper(persistedValue: Decimal128(234.567)))
        validateNumericComparisons("optInt", \Query<AllCustomPersistableTypes>.optInt, nil, count: 0)
        validateNumericComparisons("optInt8", \Query<AllCustomPersistableTypes>.optInt8, nil, count: 0)
        validateNumericComparisons("optInt16", \Query<AllCustomPersistableTypes>.optInt16, nil, count: 0)
        validateNumericComparisons("optInt32", \Query<AllCustomPersistableTypes>.optInt32, nil, count: 0)
        validateNumericComparisons("optInt64", \Query<AllCustomPersistableTypes>.optInt64, nil, count: 0)
        validateNumericComparisons("optFloat", \Query<AllCustomPersistableTypes>.optFloat, nil, count: 0)
        validateNumericComparisons("optDouble", \Query<AllCustomPersistableTypes>.optDouble, nil, count: 0)
        validateNumericComparisons("optDate", \Query<AllCustomPersistableTypes>.optDate, nil, count: 0)
        validateNumericComparisons("optDecimal", \Query<AllCustomPersistableTypes>.optDecimal, nil, count: 0)
    }

    @Test func testStringComparisons() {
        validateStringComparisons("string", \Query<AllCustomPersistableTypes>.string, StringWrapper(persistedValue: "Foó"))
        validateStringComparisons("optString", \Query<AllCustomPersistableTypes>.optString, StringWrapper(persistedValue: "Foó"))
        validateStringComparisons("optString", \Query<AllCustomPersistableTypes>.optString, nil, letCount: 0, gtCount: 1)
    }

    @Test func testCollectionContainsElement() {
        validateCollectionContains("listBool", \Query<CustomPersistableCollections>.listBool)
        validateCollectionContains("listInt", \Query<CustomPersistableCollections>.listInt)
        validateCollectionContains("listInt8", \Query<CustomPersistableCollections>.listInt8)
        validateCollectionContains("listInt16", \Query<CustomPersistableCollections>.listInt16)
        validateCollectionContains("listInt32", \Query<CustomPersistableCollections>.listInt32)
        validateCollectionContains("listInt64", \Query<CustomPersistableCollections>.listInt64)
        validateCollectionContains("listFloat", \Query<CustomPersistableCollections>.listFloat)
        validateCollectionContains("listDouble", \Query<CustomPersistableCollections>.listDouble)
        validateCollectionContains("listString", \Query<CustomPersistableCollections>.listString)
        validateCollectionContains("listBinary", \Query<CustomPersistableCollections>.listBinary)
        validateCollectionContains("listDate", \Query<CustomPersistableCollections>.listDate)
        validateCollectionContains("listDecimal", \Query<CustomPersistableCollections>.listDecimal)
        validateCollectionContains("listObjectId", \Query<CustomPersistableCollections>.listObjectId)
        validateCollectionContains("listUuid", \Query<CustomPersistableCollections>.listUuid)
        validateCollectionContains("listOptBool", \Query<CustomPersistableCollections>.listOptBool)
        validateCollectionContains("listOptInt", \Query<CustomPersistableCollections>.listOptInt)
        validateCollectionContains("listOptInt8", \Query<CustomPersistableCollections>.listOptInt8)
        validateCollectionContains("listOptInt16", \Query<CustomPersistableCollections>.listOptInt16)
        validateCollectionContains("listOptInt32", \Query<CustomPersistableCollections>.listOptInt32)
        validateCollectionContains("listOptInt64", \Query<CustomPersistableCollections>.listOptInt64)
        validateCollectionContains("listOptFloat", \Query<CustomPersistableCollections>.listOptFloat)
        validateCollectionContains("listOptDouble", \Query<CustomPersistableCollections>.listOptDouble)
        validateCollectionContains("listOptString", \Query<CustomPersistableCollections>.listOptString)
        validateCollectionContains("listOptBinary", \Query<CustomPersistableCollections>.listOptBinary)
        validateCollectionContains("listOptDate", \Query<CustomPersistableCollections>.listOptDate)
        validateCollectionContains("listOptDecimal", \Query<CustomPersistableCollections>.listOptDecimal)
        validateCollectionContains("listOptObjectId", \Query<CustomPersistableCollections>.listOptObjectId)
        validateCollectionContains("listOptUuid", \Query<CustomPersistableCollections>.listOptUuid)
        validateCollectionContains("setBool", \Query<CustomPersistableCollections>.setBool)
        validateCollectionContains("setInt", \Query<CustomPersistableCollections>.setInt)
        validateCollectionContains("setInt8", \Query<CustomPersistableCollections>.setInt8)
        validateCollectionContains("setInt16", \Query<CustomPersistableCollections>.setInt16)
        validateCollectionContains("setInt32", \Query<CustomPersistableCollections>.setInt32)
        validateCollectionContains("setInt64", \Query<CustomPersistableCollections>.setInt64)
        validateCollectionContains("setFloat", \Query<CustomPersistableCollections>.setFloat)
        validateCollectionContains("setDouble", \Query<CustomPersistableCollections>.setDouble)
        validateCollectionContains("setString", \Query<CustomPersistableCollections>.setString)
        validateCollectionContains("setBinary", \Query<CustomPersistableCollections>.setBinary)
        validateCollectionContains("setDate", \Query<CustomPersistableCollections>.setDate)
        validateCollectionContains("setDecimal", \Query<CustomPersistableCollections>.setDecimal)
        validateCollectionContains("setObjectId", \Query<CustomPersistableCollections>.setObjectId)
        validateCollectionContains("setUuid", \Query<CustomPersistableCollections>.setUuid)
        validateCollectionContains("setOptBool", \Query<CustomPersistableCollections>.setOptBool)
        validateCollectionContains("setOptInt", \Query<CustomPersistableCollections>.setOptInt)
        validateCollectionContains("setOptInt8", \Query<CustomPersistableCollections>.setOptInt8)
        validateCollectionContains("setOptInt16", \Query<CustomPersistableCollections>.setOptInt16)
        validateCollectionContains("setOptInt32", \Query<CustomPersistableCollections>.setOptInt32)
        validateCollectionContains("setOptInt64", \Query<CustomPersistableCollections>.setOptInt64)
        validateCollectionContains("setOptFloat", \Query<CustomPersistableCollections>.setOptFloat)
        validateCollectionContains("setOptDouble", \Query<CustomPersistableCollections>.setOptDouble)
        validateCollectionContains("setOptString", \Query<CustomPersistableCollections>.setOptString)
        validateCollectionContains("setOptBinary", \Query<CustomPersistableCollections>.setOptBinary)
        validateCollectionContains("setOptDate", \Query<CustomPersistableCollections>.setOptDate)
        validateCollectionContains("setOptDecimal", \Query<CustomPersistableCollections>.setOptDecimal)
        validateCollectionContains("setOptObjectId", \Query<CustomPersistableCollections>.setOptObjectId)
        validateCollectionContains("setOptUuid", \Query<CustomPersistableCollections>.setOptUuid)
        validateCollectionContains("mapBool", \Query<CustomPersistableCollections>.mapBool)
        validateCollectionContains("mapInt", \Query<CustomPersistableCollections>.mapInt)
        validateCollectionContains("mapInt8", \Query<CustomPersistableCollections>.mapInt8)
        validateCollectionContains("mapInt16", \Query<CustomPersistableCollections>.mapInt16)
        validateCollectionContains("mapInt32", \Query<CustomPersistableCollections>.mapInt32)
        validateCollectionContains("mapInt64", \Query<CustomPersistableCollections>.mapInt64)
        validateCollectionContains("mapFloat", \Query<CustomPersistableCollections>.mapFloat)
        validateCollectionContains("mapDouble", \Query<CustomPersistableCollections>.mapDouble)
        validateCollectionContains("mapString", \Query<CustomPersistableCollections>.mapString)
        validateCollectionContains("mapBinary", \Query<CustomPersistableCollections>.mapBinary)
        validateCollectionContains("mapDate", \Query<CustomPersistableCollections>.mapDate)
        validateCollectionContains("mapDecimal", \Query<CustomPersistableCollections>.mapDecimal)
        validateCollectionContains("mapObjectId", \Query<CustomPersistableCollections>.mapObjectId)
        validateCollectionContains("mapUuid", \Query<CustomPersistableCollections>.mapUuid)
        validateCollectionContains("mapOptBool", \Query<CustomPersistableCollections>.mapOptBool)
        validateCollectionContains("mapOptInt", \Query<CustomPersistableCollections>.mapOptInt)
        validateCollectionContains("mapOptInt8", \Query<CustomPersistableCollections>.mapOptInt8)
        validateCollectionContains("mapOptInt16", \Query<CustomPersistableCollections>.mapOptInt16)
        validateCollectionContains("mapOptInt32", \Query<CustomPersistableCollections>.mapOptInt32)
        validateCollectionContains("mapOptInt64", \Query<CustomPersistableCollections>.mapOptInt64)
        validateCollectionContains("mapOptFloat", \Query<CustomPersistableCollections>.mapOptFloat)
        validateCollectionContains("mapOptDouble", \Query<CustomPersistableCollections>.mapOptDouble)
        validateCollectionContains("mapOptString", \Query<CustomPersistableCollections>.mapOptString)
        validateCollectionContains("mapOptBinary", \Query<CustomPersistableCollections>.mapOptBinary)
        validateCollectionContains("mapOptDate", \Query<CustomPersistableCollections>.mapOptDate)
        validateCollectionContains("mapOptDecimal", \Query<CustomPersistableCollections>.mapOptDecimal)
        validateCollectionContains("mapOptObjectId", \Query<CustomPersistableCollections>.mapOptObjectId)
        validateCollectionContains("mapOptUuid", \Query<CustomPersistableCollections>.mapOptUuid)
        validateCollectionContainsNil("listOptBool", \Query<CustomPersistableCollections>.listOptBool)
        validateCollectionContainsNil("listOptInt", \Query<CustomPersistableCollections>.listOptInt)
        validateCollectionContainsNil("listOptInt8", \Query<CustomPersistableCollections>.listOptInt8)
        validateCollectionContainsNil("listOptInt16", \Query<CustomPersistableCollections>.listOptInt16)
        validateCollectionContainsNil("listOptInt32", \Query<CustomPersistableCollections>.listOptInt32)
        validateCollectionContainsNil("listOptInt64", \Query<CustomPersistableCollections>.listOptInt64)
        validateCollectionContainsNil("listOptFloat", \Query<CustomPersistableCollections>.listOptFloat)
        validateCollectionContainsNil("listOptDouble", \Query<CustomPersistableCollections>.listOptDouble)
        validateCollectionContainsNil("listOptString", \Query<CustomPersistableCollections>.listOptString)
        validateCollectionContainsNil("listOptBinary", \Query<CustomPersistableCollections>.listOptBinary)
        validateCollectionContainsNil("listOptDate", \Query<CustomPersistableCollections>.listOptDate)
        validateCollectionContainsNil("listOptDecimal", \Query<CustomPersistableCollections>.listOptDecimal)
        validateCollectionContainsNil("listOptObjectId", \Query<CustomPersistableCollections>.listOptObjectId)
        validateCollectionContainsNil("listOptUuid", \Query<CustomPersistableCollections>.listOptUuid)
        validateCollectionContainsNil("setOptBool", \Query<CustomPersistableCollections>.setOptBool)
        validateCollectionContainsNil("setOptInt", \Query<CustomPersistableCollections>.setOptInt)
        validateCollectionContainsNil("setOptInt8", \Query<CustomPersistableCollections>.setOptInt8)
        validateCollectionContainsNil("setOptInt16", \Query<CustomPersistableCollections>.setOptInt16)
        validateCollectionContainsNil("setOptInt32", \Query<CustomPersistableCollections>.setOptInt32)
        validateCollectionContainsNil("setOptInt64", \Query<CustomPersistableCollections>.setOptInt64)
        validateCollectionContainsNil("setOptFloat", \Query<CustomPersistableCollections>.setOptFloat)
        validateCollectionContainsNil("setOptDouble", \Query<CustomPersistableCollections>.setOptDouble)
        validateCollectionContainsNil("setOptString", \Query<CustomPersistableCollections>.setOptString)
        validateCollectionContainsNil("setOptBinary", \Query<CustomPersistableCollections>.setOptBinary)
        validateCollectionContainsNil("setOptDate", \Query<CustomPersistableCollections>.setOptDate)
        validateCollectionContainsNil("setOptDecimal", \Query<CustomPersistableCollections>.setOptDecimal)
        validateCollectionContainsNil("setOptObjectId", \Query<CustomPersistableCollections>.setOptObjectId)
        validateCollectionContainsNil("setOptUuid", \Query<CustomPersistableCollections>.setOptUuid)
        validateCollectionContainsNil("mapOptBool", \Query<CustomPersistableCollections>.mapOptBool)
        validateCollectionContainsNil("mapOptInt", \Query<CustomPersistableCollections>.mapOptInt)
        validateCollectionContainsNil("mapOptInt8", \Query<CustomPersistableCollections>.mapOptInt8)
        validateCollectionContainsNil("mapOptInt16", \Query<CustomPersistableCollections>.mapOptInt16)
        validateCollectionContainsNil("mapOptInt32", \Query<CustomPersistableCollections>.mapOptInt32)
        validateCollectionContainsNil("mapOptInt64", \Query<CustomPersistableCollections>.mapOptInt64)
        validateCollectionContainsNil("mapOptFloat", \Query<CustomPersistableCollections>.mapOptFloat)
        validateCollectionContainsNil("mapOptDouble", \Query<CustomPersistableCollections>.mapOptDouble)
        validateCollectionContainsNil("mapOptString", \Query<CustomPersistableCollections>.mapOptString)
        validateCollectionContainsNil("mapOptBinary", \Query<CustomPersistableCollections>.mapOptBinary)
        validateCollectionContainsNil("mapOptDate", \Query<CustomPersistableCollections>.mapOptDate)
        validateCollectionContainsNil("mapOptDecimal", \Query<CustomPersistableCollections>.mapOptDecimal)
        validateCollectionContainsNil("mapOptObjectId", \Query<CustomPersistableCollections>.mapOptObjectId)
        validateCollectionContainsNil("mapOptUuid", \Query<CustomPersistableCollections>.mapOptUuid)
    }
}
