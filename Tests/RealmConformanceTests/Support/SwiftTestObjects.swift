// The shared models of realm-swift's tests (RealmSwift/Tests/SwiftTestObjects.swift), with their
// realm-swift names and property names, declared with @Persisted (Atoll has no `@objc dynamic`).
// `RealmOptional<T>` and `RealmProperty<T?>` become `@Persisted var x: T?`; `let x = List<T>()`
// becomes `@Persisted var x: List<T>`; `LinkingObjects(fromType:property:)` becomes
// `@Persisted(originProperty:)`.
//
// Left out until Atoll has the types (the tests that need them say so): properties of type
// Decimal128, AnyRealmValue, MutableSet, Map, NSString/NSDate/NSData, RealmEnum/PersistableEnum
// (`intEnumCol`, `optEnumCol`), and the classes built on them (SwiftMutableSetObject,
// SwiftMapObject, *SetPropertyObject, *MapPropertyObject, *MutableSetOf*, *MapOf*, embedded
// objects, SwiftObjectiveCTypesObject), `@objc(name)` renames and `propertiesMapping()`
// (SwiftObjcRenamedObject, SwiftRenamedProperties1/2, LinkToSwiftRenamedProperties1/2) and
// projections (ModernSwiftStringProjection).
//
// Add models here; do not rename or change existing ones: other suites rely on them.

import Atoll
import Foundation

/// `ObjectId("1234567890ab1234567890ab")` of realm-swift, for constants in models and tests.
func objectId(_ hex: String) -> ObjectId {
    do { return try ObjectId(string: hex) } catch { preconditionFailure("invalid ObjectId literal \(hex)") }
}

final class SwiftStringObject: Object {
    @Persisted var stringCol = ""

    convenience init(stringCol: String) {
        self.init()
        self.stringCol = stringCol
    }
}

class ModernSwiftStringObject: Object {
    @Persisted var stringCol = ""
}

class SwiftBoolObject: Object {
    @Persisted var boolCol = false
}

class SwiftIntObject: Object {
    @Persisted var intCol = 0
}

class SwiftInt8Object: Object {
    @Persisted var int8Col = 0
}

class SwiftInt16Object: Object {
    @Persisted var int16Col = 0
}

class SwiftInt32Object: Object {
    @Persisted var int32Col = 0
}

class SwiftInt64Object: Object {
    @Persisted var int64Col = 0
}

class SwiftLongObject: Object {
    @Persisted var longCol: Int64 = 0
}

/// Without `intEnumCol` (PersistableEnum), `decimalCol` (Decimal128), `anyCol` (AnyRealmValue),
/// `setCol` (MutableSet) and `mapCol` (Map).
class SwiftObject: Object {
    @Persisted var boolCol = false
    @Persisted var intCol = 123
    @Persisted var int8Col: Int8 = 123
    @Persisted var int16Col: Int16 = 123
    @Persisted var int32Col: Int32 = 123
    @Persisted var int64Col: Int64 = 123
    @Persisted var floatCol = 1.23 as Float
    @Persisted var doubleCol = 12.3
    @Persisted var stringCol = "a"
    @Persisted var binaryCol = Data("a".utf8)
    @Persisted var dateCol = Date(timeIntervalSince1970: 1)
    @Persisted var objectIdCol = objectId("1234567890ab1234567890ab")
    @Persisted var objectCol: SwiftBoolObject? = SwiftBoolObject()
    @Persisted var uuidCol: UUID = UUID(uuidString: "137decc8-b300-4954-a233-f89909f4fd89")!

    @Persisted var arrayCol: List<SwiftBoolObject>

    class func defaultValues() -> [String: Any] {
        [
            "boolCol": false,
            "intCol": 123,
            "int8Col": 123 as Int8,
            "int16Col": 123 as Int16,
            "int32Col": 123 as Int32,
            "int64Col": 123 as Int64,
            "floatCol": 1.23 as Float,
            "doubleCol": 12.3,
            "stringCol": "a",
            "binaryCol": Data("a".utf8),
            "dateCol": Date(timeIntervalSince1970: 1),
            "objectIdCol": objectId("1234567890ab1234567890ab"),
            "objectCol": [false],
            "uuidCol": UUID(uuidString: "137decc8-b300-4954-a233-f89909f4fd89")!,
        ]
    }
}

/// Without `optNSStringCol`, `optDecimalCol` and `optEnumCol`.
class SwiftOptionalObject: Object {
    @Persisted var optStringCol: String?
    @Persisted var optBinaryCol: Data?
    @Persisted var optDateCol: Date?
    @Persisted var optObjectIdCol: ObjectId?
    @Persisted var optUuidCol: UUID?
    @Persisted var optIntCol: Int?
    @Persisted var optInt8Col: Int8?
    @Persisted var optInt16Col: Int16?
    @Persisted var optInt32Col: Int32?
    @Persisted var optInt64Col: Int64?
    @Persisted var optFloatCol: Float?
    @Persisted var optDoubleCol: Double?
    @Persisted var optBoolCol: Bool?
    @Persisted var otherIntCol: Int?
    @Persisted var optObjectCol: SwiftBoolObject?
}

class SwiftOptionalPrimaryObject: SwiftOptionalObject {
    @Persisted var id: Int?

    override class func primaryKey() -> String? { "id" }
}

/// Without `decimal`, `decimalOpt` and `any`.
class SwiftListObject: Object {
    @Persisted var int: List<Int>
    @Persisted var int8: List<Int8>
    @Persisted var int16: List<Int16>
    @Persisted var int32: List<Int32>
    @Persisted var int64: List<Int64>
    @Persisted var float: List<Float>
    @Persisted var double: List<Double>
    @Persisted var string: List<String>
    @Persisted var data: List<Data>
    @Persisted var date: List<Date>
    @Persisted var objectId: List<ObjectId>
    @Persisted var uuid: List<UUID>

    @Persisted var intOpt: List<Int?>
    @Persisted var int8Opt: List<Int8?>
    @Persisted var int16Opt: List<Int16?>
    @Persisted var int32Opt: List<Int32?>
    @Persisted var int64Opt: List<Int64?>
    @Persisted var floatOpt: List<Float?>
    @Persisted var doubleOpt: List<Double?>
    @Persisted var stringOpt: List<String?>
    @Persisted var dataOpt: List<Data?>
    @Persisted var dateOpt: List<Date?>
    @Persisted var objectIdOpt: List<ObjectId?>
    @Persisted var uuidOpt: List<UUID?>
}

/// Without `optNSStringCol` and `optDecimalCol`.
class SwiftImplicitlyUnwrappedOptionalObject: Object {
    @Persisted var optStringCol: String!
    @Persisted var optBinaryCol: Data!
    @Persisted var optDateCol: Date!
    @Persisted var optObjectIdCol: ObjectId!
    @Persisted var optObjectCol: SwiftBoolObject!
    @Persisted var optUuidCol: UUID!
}

/// Without `optNSStringCol` and `optDecimalCol`.
class SwiftOptionalDefaultValuesObject: Object {
    @Persisted var optStringCol: String? = "B"
    @Persisted var optBinaryCol: Data? = Data("C".utf8)
    @Persisted var optDateCol: Date? = Date(timeIntervalSince1970: 10)
    @Persisted var optObjectIdCol: ObjectId? = objectId("1234567890ab1234567890ab")
    @Persisted var optUuidCol: UUID? = UUID(uuidString: "00000000-0000-0000-0000-000000000000")
    @Persisted var optIntCol: Int? = 1
    @Persisted var optInt8Col: Int8? = 1
    @Persisted var optInt16Col: Int16? = 1
    @Persisted var optInt32Col: Int32? = 1
    @Persisted var optInt64Col: Int64? = 1
    @Persisted var optFloatCol: Float? = 2.2
    @Persisted var optDoubleCol: Double? = 3.3
    @Persisted var optBoolCol: Bool? = true
    @Persisted var optObjectCol: SwiftBoolObject? = SwiftBoolObject(value: [true])

    class func defaultValues() -> [String: Any] {
        [
            "optStringCol": "B",
            "optBinaryCol": Data("C".utf8),
            "optDateCol": Date(timeIntervalSince1970: 10),
            "optObjectIdCol": objectId("1234567890ab1234567890ab"),
            "optIntCol": 1,
            "optInt8Col": Int8(1),
            "optInt16Col": Int16(1),
            "optInt32Col": Int32(1),
            "optInt64Col": Int64(1),
            "optFloatCol": 2.2 as Float,
            "optDoubleCol": 3.3,
            "optBoolCol": true,
            "optUuidCol": UUID(uuidString: "00000000-0000-0000-0000-000000000000")!,
        ]
    }
}

/// Without `optNSStringCol` and `optDecimalCol`.
class SwiftOptionalIgnoredPropertiesObject: Object {
    @Persisted var id = 0

    @Persisted var optStringCol: String? = "B"
    @Persisted var optBinaryCol: Data? = Data("C".utf8)
    @Persisted var optDateCol: Date? = Date(timeIntervalSince1970: 10)
    @Persisted var optObjectIdCol: ObjectId? = objectId("1234567890ab1234567890ab")
    @Persisted var optObjectCol: SwiftBoolObject? = SwiftBoolObject(value: [true])

    override class func ignoredProperties() -> [String] {
        ["optStringCol", "optBinaryCol", "optDateCol", "optObjectIdCol", "optObjectCol"]
    }
}

class SwiftDogObject: Object {
    @Persisted var dogName = ""
    @Persisted(originProperty: "dog") var owners: LinkingObjects<SwiftOwnerObject>
}

class SwiftOwnerObject: Object {
    @Persisted var name = ""
    @Persisted var dog: SwiftDogObject? = SwiftDogObject()
}

/// Without `decimalCol`.
class SwiftAggregateObject: Object {
    @Persisted var intCol = 0
    @Persisted var int8Col: Int8 = 0
    @Persisted var int16Col: Int16 = 0
    @Persisted var int32Col: Int32 = 0
    @Persisted var int64Col: Int64 = 0
    @Persisted var floatCol = 0 as Float
    @Persisted var doubleCol = 0.0
    @Persisted var boolCol = false
    @Persisted var dateCol = Date()
    @Persisted var trueCol = true
    @Persisted var stringListCol: List<SwiftStringObject>
}

class SwiftAllIntSizesObject: Object {
    @Persisted var int8: Int8 = 0
    @Persisted var int16: Int16 = 0
    @Persisted var int32: Int32 = 0
    @Persisted var int64: Int64 = 0
}

class SwiftEmployeeObject: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var hired = false
}

/// Without `employeeSet` (MutableSet) and `employeeMap` (Map).
class SwiftCompanyObject: Object {
    @Persisted var name = ""
    @Persisted var employees: List<SwiftEmployeeObject>
}

class SwiftArrayPropertyObject: Object {
    @Persisted var name = ""
    @Persisted var array: List<SwiftStringObject>
    @Persisted var intArray: List<SwiftIntObject>
    @Persisted var swiftObjArray: List<SwiftObject>
}

class SwiftDoubleListOfSwiftObject: Object {
    @Persisted var array: List<SwiftListOfSwiftObject>
}

class SwiftListOfSwiftObject: Object {
    @Persisted var array: List<SwiftObject>
}

class SwiftListOfSwiftOptionalObject: Object {
    @Persisted var array: List<SwiftOptionalObject>
}

class SwiftArrayPropertySubclassObject: SwiftArrayPropertyObject {
    @Persisted var boolArray: List<SwiftBoolObject>
}

class SwiftLinkToPrimaryStringObject: Object {
    @Persisted var pk = ""
    @Persisted var object: SwiftPrimaryStringObject?
    @Persisted var objects: List<SwiftPrimaryStringObject>

    override class func primaryKey() -> String? { "pk" }
}

class SwiftUTF8Object: Object {
    // swiftlint:disable:next identifier_name
    @Persisted var 柱колоéнǢкƱаم👍 = "值значен™👍☞⎠‱௹♣︎☐▼❒∑⨌⧭иеمرحبا"
}

/// `runtimeProperty` (an `AnyObject?`, which cannot be persisted) is a plain property here;
/// `runtimeDefaultProperty` is an ignored `@Persisted` one.
class SwiftIgnoredPropertiesObject: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    var runtimeProperty: AnyObject?
    @Persisted var runtimeDefaultProperty = "property"
    var readOnlyProperty: Int { 0 }

    override class func ignoredProperties() -> [String] {
        ["runtimeProperty", "runtimeDefaultProperty"]
    }
}

/// Without `objectSet` (MutableSet).
class SwiftRecursiveObject: Object {
    @Persisted var objects: List<SwiftRecursiveObject>
}

protocol SwiftPrimaryKeyObjectType {
    associatedtype PrimaryKey
    static func primaryKey() -> String?
}

class SwiftPrimaryStringObject: Object, SwiftPrimaryKeyObjectType {
    @Persisted var stringCol = ""
    @Persisted var intCol = 0

    typealias PrimaryKey = String
    override class func primaryKey() -> String? { "stringCol" }
}

class SwiftPrimaryOptionalStringObject: Object, SwiftPrimaryKeyObjectType {
    @Persisted var stringCol: String? = ""
    @Persisted var intCol = 0

    typealias PrimaryKey = String?
    override class func primaryKey() -> String? { "stringCol" }
}

class SwiftPrimaryIntObject: Object, SwiftPrimaryKeyObjectType {
    @Persisted var stringCol = ""
    @Persisted var intCol = 0

    typealias PrimaryKey = Int
    override class func primaryKey() -> String? { "intCol" }
}

class SwiftPrimaryOptionalIntObject: Object, SwiftPrimaryKeyObjectType {
    @Persisted var stringCol = ""
    @Persisted var intCol: Int?

    typealias PrimaryKey = Int?
    override class func primaryKey() -> String? { "intCol" }
}

class SwiftPrimaryInt8Object: Object, SwiftPrimaryKeyObjectType {
    @Persisted var stringCol = ""
    @Persisted var int8Col: Int8 = 0

    typealias PrimaryKey = Int8
    override class func primaryKey() -> String? { "int8Col" }
}

class SwiftPrimaryOptionalInt8Object: Object, SwiftPrimaryKeyObjectType {
    @Persisted var stringCol = ""
    @Persisted var int8Col: Int8?

    typealias PrimaryKey = Int8?
    override class func primaryKey() -> String? { "int8Col" }
}

class SwiftPrimaryInt16Object: Object, SwiftPrimaryKeyObjectType {
    @Persisted var stringCol = ""
    @Persisted var int16Col: Int16 = 0

    typealias PrimaryKey = Int16
    override class func primaryKey() -> String? { "int16Col" }
}

class SwiftPrimaryOptionalInt16Object: Object, SwiftPrimaryKeyObjectType {
    @Persisted var stringCol = ""
    @Persisted var int16Col: Int16?

    typealias PrimaryKey = Int16?
    override class func primaryKey() -> String? { "int16Col" }
}

class SwiftPrimaryInt32Object: Object, SwiftPrimaryKeyObjectType {
    @Persisted var stringCol = ""
    @Persisted var int32Col: Int32 = 0

    typealias PrimaryKey = Int32
    override class func primaryKey() -> String? { "int32Col" }
}

class SwiftPrimaryOptionalInt32Object: Object, SwiftPrimaryKeyObjectType {
    @Persisted var stringCol = ""
    @Persisted var int32Col: Int32?

    typealias PrimaryKey = Int32?
    override class func primaryKey() -> String? { "int32Col" }
}

class SwiftPrimaryInt64Object: Object, SwiftPrimaryKeyObjectType {
    @Persisted var stringCol = ""
    @Persisted var int64Col: Int64 = 0

    typealias PrimaryKey = Int64
    override class func primaryKey() -> String? { "int64Col" }
}

class SwiftPrimaryOptionalInt64Object: Object, SwiftPrimaryKeyObjectType {
    @Persisted var stringCol = ""
    @Persisted var int64Col: Int64?

    typealias PrimaryKey = Int64?
    override class func primaryKey() -> String? { "int64Col" }
}

class SwiftPrimaryUUIDObject: Object, SwiftPrimaryKeyObjectType {
    @Persisted var uuidCol: UUID = UUID(uuidString: "85d4fbee-6ec6-47df-bfa1-615931903d7e")!
    @Persisted var stringCol = ""

    typealias PrimaryKey = Int64
    override class func primaryKey() -> String? { "uuidCol" }
}

class SwiftPrimaryObjectIdObject: Object, SwiftPrimaryKeyObjectType {
    @Persisted var objectIdCol: ObjectId = ObjectId()
    @Persisted var intCol = 0

    typealias PrimaryKey = Int64
    override class func primaryKey() -> String? { "objectIdCol" }
}

/// Without `anyCol`.
class SwiftIndexedPropertiesObject: Object {
    @Persisted var stringCol = ""
    @Persisted var intCol = 0
    @Persisted var int8Col: Int8 = 0
    @Persisted var int16Col: Int16 = 0
    @Persisted var int32Col: Int32 = 0
    @Persisted var int64Col: Int64 = 0
    @Persisted var boolCol = false
    @Persisted var dateCol = Date()
    @Persisted var uuidCol = UUID(uuidString: "85d4fbee-6ec6-47df-bfa1-615931903d7e")!

    @Persisted var floatCol: Float = 0.0
    @Persisted var doubleCol: Double = 0.0
    @Persisted var dataCol = Data()

    override class func indexedProperties() -> [String] {
        ["stringCol", "intCol", "int8Col", "int16Col", "int32Col", "int64Col", "boolCol", "dateCol", "uuidCol"]
    }
}

class SwiftIndexedOptionalPropertiesObject: Object {
    @Persisted var optionalStringCol: String? = ""
    @Persisted var optionalIntCol: Int?
    @Persisted var optionalInt8Col: Int8?
    @Persisted var optionalInt16Col: Int16?
    @Persisted var optionalInt32Col: Int32?
    @Persisted var optionalInt64Col: Int64?
    @Persisted var optionalBoolCol: Bool?
    @Persisted var optionalDateCol: Date? = Date()
    @Persisted var optionalUUIDCol: UUID? = UUID(uuidString: "85d4fbee-6ec6-47df-bfa1-615931903d7e")

    @Persisted var optionalFloatCol: Float?
    @Persisted var optionalDoubleCol: Double?
    @Persisted var optionalDataCol: Data? = Data()

    override class func indexedProperties() -> [String] {
        ["optionalStringCol", "optionalIntCol", "optionalInt8Col", "optionalInt16Col",
         "optionalInt32Col", "optionalInt64Col", "optionalBoolCol", "optionalDateCol", "optionalUUIDCol"]
    }
}

class SwiftCustomInitializerObject: Object {
    @Persisted var stringCol: String

    init(stringVal: String) {
        stringCol = stringVal
        super.init()
    }

    required init() {
        stringCol = ""
        super.init()
    }
}

class SwiftConvenienceInitializerObject: Object {
    @Persisted var stringCol = ""

    convenience init(stringCol: String) {
        self.init()
        self.stringCol = stringCol
    }
}

class SwiftComputedPropertyNotIgnoredObject: Object {
    @Persisted var _urlBacking = ""

    var dynamicURL: URL? {
        get { URL(string: _urlBacking) }
        set { _urlBacking = newValue?.absoluteString ?? "" }
    }

    var url: URL? {
        get { URL(string: _urlBacking) }
        set { _urlBacking = newValue?.absoluteString ?? "" }
    }
}

class SwiftCircleObject: Object {
    @Persisted var obj: SwiftCircleObject?
    @Persisted var array: List<SwiftCircleObject>
}

/// A superclass to `SwiftGenericPropsOrderingObject`. Without `parentFirstSet` (MutableSet).
class SwiftGenericPropsOrderingParent: Object {
    var implicitlyIgnoredComputedProperty: Int { 0 }
    let implicitlyIgnoredReadOnlyProperty: Int = 1
    @Persisted var parentFirstList: List<SwiftIntObject>
    @Persisted var parentFirstNumber = 0
    func parentFunction() -> Int { parentFirstNumber + 1 }
    @Persisted var parentSecondNumber = 1
    var parentComputedProp: String { "hello world" }
}

/// Checks that properties are found and ordered as declared, the superclass's first. Without
/// `firstSet` and `secondSet` (MutableSet); `dynamicIgnored` and `dynamicLazyIgnored` are
/// plain properties (no `@objc dynamic`).
class SwiftGenericPropsOrderingObject: SwiftGenericPropsOrderingParent {
    func myFunction() -> Int { firstNumber + secondNumber + thirdNumber }
    var dynamicComputed: Int { 999 }
    var firstIgnored = 999
    var dynamicIgnored = 999
    @Persisted var firstNumber = 0                       // Managed property
    class func myClassFunction(x: Int, y: Int) -> Int { x + y }
    var secondIgnored = 999
    lazy var lazyIgnored = 999
    @Persisted var firstArray: List<SwiftStringObject>   // Managed property
    @Persisted var secondNumber = 0                      // Managed property
    var computedProp: String { "\(firstNumber), \(secondNumber), and \(thirdNumber)" }
    @Persisted var secondArray: List<SwiftStringObject>  // Managed property
    override class func ignoredProperties() -> [String] {
        ["firstIgnored", "dynamicIgnored", "secondIgnored", "thirdIgnored", "lazyIgnored", "dynamicLazyIgnored"]
    }
    @Persisted var firstOptionalNumber: Int?             // Managed property
    var thirdIgnored = 999
    lazy var dynamicLazyIgnored = 999
    @Persisted(originProperty: "first") var firstLinking: LinkingObjects<SwiftGenericPropsOrderingHelper>
    @Persisted(originProperty: "second") var secondLinking: LinkingObjects<SwiftGenericPropsOrderingHelper>
    @Persisted var thirdNumber = 0                       // Managed property
    @Persisted var secondOptionalNumber: Int?            // Managed property
}

/// Only exists for the linking objects of `SwiftGenericPropsOrderingObject`.
class SwiftGenericPropsOrderingHelper: Object {
    @Persisted var first: SwiftGenericPropsOrderingObject?
    @Persisted var second: SwiftGenericPropsOrderingObject?
}

class LinkToOnlyComputed: Object {
    @Persisted var value: Int = 0
    @Persisted var link: OnlyComputedProps?
}

class OnlyComputedProps: Object {
    @Persisted(originProperty: "link") var backlinks: LinkingObjects<LinkToOnlyComputed>
}
