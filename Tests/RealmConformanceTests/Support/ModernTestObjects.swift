// The @Persisted models of realm-swift's tests (RealmSwift/Tests/ModernTestObjects.swift), with
// their realm-swift names.
//
// Left out until Atoll has the types: properties of type Decimal128, AnyRealmValue, MutableSet,
// Map and PersistableEnum (ModernIntEnum, ModernStringEnum), the classes built on them
// (ModernPrimaryIntEnumObject, ModernIndexed*IntEnumObject, ModernCollectionsOfEnums,
// ModernListAnyRealmValueObject), embedded objects, `@objc(name)` renames and projections.
//
// Add models here; do not rename or change existing ones: other suites rely on them.

import Atoll
import Foundation

/// Without `decimalCol`, `anyCol`, `intEnumCol`, `stringEnumCol`, their optional and
/// collection forms, and every `MutableSet` and `Map` property.
class ModernAllTypesObject: Object {
    @Persisted(primaryKey: true) var pk: ObjectId
    var ignored: Int = 1

    @Persisted var boolCol: Bool
    @Persisted var intCol: Int
    @Persisted var int8Col: Int8 = 1
    @Persisted var int16Col: Int16 = 2
    @Persisted var int32Col: Int32 = 3
    @Persisted var int64Col: Int64 = 4
    @Persisted var floatCol: Float = 5
    @Persisted var doubleCol: Double = 6
    @Persisted var stringCol: String
    @Persisted var binaryCol: Data
    @Persisted var dateCol: Date
    @Persisted var objectIdCol: ObjectId
    @Persisted var objectCol: ModernAllTypesObject?
    @Persisted var arrayCol: List<ModernAllTypesObject>
    @Persisted var uuidCol: UUID

    @Persisted var optIntCol: Int?
    @Persisted var optInt8Col: Int8?
    @Persisted var optInt16Col: Int16?
    @Persisted var optInt32Col: Int32?
    @Persisted var optInt64Col: Int64?
    @Persisted var optFloatCol: Float?
    @Persisted var optDoubleCol: Double?
    @Persisted var optBoolCol: Bool?
    @Persisted var optStringCol: String?
    @Persisted var optBinaryCol: Data?
    @Persisted var optDateCol: Date?
    @Persisted var optObjectIdCol: ObjectId?
    @Persisted var optUuidCol: UUID?

    @Persisted var arrayBool: List<Bool>
    @Persisted var arrayInt: List<Int>
    @Persisted var arrayInt8: List<Int8>
    @Persisted var arrayInt16: List<Int16>
    @Persisted var arrayInt32: List<Int32>
    @Persisted var arrayInt64: List<Int64>
    @Persisted var arrayFloat: List<Float>
    @Persisted var arrayDouble: List<Double>
    @Persisted var arrayString: List<String>
    @Persisted var arrayBinary: List<Data>
    @Persisted var arrayDate: List<Date>
    @Persisted var arrayObjectId: List<ObjectId>
    @Persisted var arrayUuid: List<UUID>

    @Persisted var arrayOptBool: List<Bool?>
    @Persisted var arrayOptInt: List<Int?>
    @Persisted var arrayOptInt8: List<Int8?>
    @Persisted var arrayOptInt16: List<Int16?>
    @Persisted var arrayOptInt32: List<Int32?>
    @Persisted var arrayOptInt64: List<Int64?>
    @Persisted var arrayOptFloat: List<Float?>
    @Persisted var arrayOptDouble: List<Double?>
    @Persisted var arrayOptString: List<String?>
    @Persisted var arrayOptBinary: List<Data?>
    @Persisted var arrayOptDate: List<Date?>
    @Persisted var arrayOptObjectId: List<ObjectId?>
    @Persisted var arrayOptUuid: List<UUID?>

    @Persisted(originProperty: "objectCol")
    var linkingObjects: LinkingObjects<ModernAllTypesObject>
}

/// Without `set` (MutableSet) and `map` (Map).
class LinkToModernAllTypesObject: Object {
    @Persisted var object: ModernAllTypesObject?
    @Persisted var list: List<ModernAllTypesObject>
}

/// Without `optDecimalCol`.
class ModernImplicitlyUnwrappedOptionalObject: Object {
    @Persisted var optStringCol: String!
    @Persisted var optBinaryCol: Data!
    @Persisted var optDateCol: Date!
    @Persisted var optObjectIdCol: ObjectId!
    @Persisted var optObjectCol: ModernImplicitlyUnwrappedOptionalObject!
    @Persisted var optUuidCol: UUID!
}

class ModernLinkToPrimaryStringObject: Object {
    @Persisted var pk = ""
    @Persisted var object: ModernPrimaryStringObject?
    @Persisted var objects: List<ModernPrimaryStringObject>

    override class func primaryKey() -> String? { "pk" }
}

class ModernUTF8Object: Object {
    // swiftlint:disable:next identifier_name
    @Persisted var 柱колоéнǢкƱаم👍 = "值значен™👍☞⎠‱௹♣︎☐▼❒∑⨌⧭иеمرحبا"
}

protocol ModernPrimaryKeyObject: Object {
    associatedtype PrimaryKey: Equatable
    var pk: PrimaryKey { get set }
}

class ModernPrimaryStringObject: Object, ModernPrimaryKeyObject {
    @Persisted(primaryKey: true) var pk: String
}

class ModernPrimaryOptionalStringObject: Object, ModernPrimaryKeyObject {
    @Persisted(primaryKey: true) var pk: String?
}

class ModernPrimaryIntObject: Object, ModernPrimaryKeyObject {
    @Persisted(primaryKey: true) var pk: Int
}

class ModernPrimaryOptionalIntObject: Object, ModernPrimaryKeyObject {
    @Persisted(primaryKey: true) var pk: Int?
}

class ModernPrimaryInt8Object: Object, ModernPrimaryKeyObject {
    @Persisted(primaryKey: true) var pk: Int8
}

class ModernPrimaryOptionalInt8Object: Object, ModernPrimaryKeyObject {
    @Persisted(primaryKey: true) var pk: Int8?
}

class ModernPrimaryInt16Object: Object, ModernPrimaryKeyObject {
    @Persisted(primaryKey: true) var pk: Int16
}

class ModernPrimaryOptionalInt16Object: Object, ModernPrimaryKeyObject {
    @Persisted(primaryKey: true) var pk: Int16?
}

class ModernPrimaryInt32Object: Object, ModernPrimaryKeyObject {
    @Persisted(primaryKey: true) var pk: Int32
}

class ModernPrimaryOptionalInt32Object: Object, ModernPrimaryKeyObject {
    @Persisted(primaryKey: true) var pk: Int32?
}

class ModernPrimaryInt64Object: Object, ModernPrimaryKeyObject {
    @Persisted(primaryKey: true) var pk: Int64
}

class ModernPrimaryOptionalInt64Object: Object, ModernPrimaryKeyObject {
    @Persisted(primaryKey: true) var pk: Int64?
}

class ModernPrimaryUUIDObject: Object, ModernPrimaryKeyObject {
    @Persisted(primaryKey: true) var pk: UUID
}

class ModernPrimaryOptionalUUIDObject: Object, ModernPrimaryKeyObject {
    @Persisted(primaryKey: true) var pk: UUID?
}

class ModernPrimaryObjectIdObject: Object, ModernPrimaryKeyObject {
    @Persisted(primaryKey: true) var pk: ObjectId
}

class ModernPrimaryOptionalObjectIdObject: Object, ModernPrimaryKeyObject {
    @Persisted(primaryKey: true) var pk: ObjectId?
}

class ModernCustomInitializerObject: Object {
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

class ModernConvenienceInitializerObject: Object {
    @Persisted var stringCol = ""

    convenience init(stringCol: String) {
        self.init()
        self.stringCol = stringCol
    }
}

class ModernIntAndStringObject: Object {
    @Persisted var intCol: Int
    @Persisted var optIntCol: Int?
    @Persisted var stringCol: String
    @Persisted var optStringCol: String?
}

/// Without `set` (MutableSet) and `map` (Map).
class ModernCollectionObject: Object {
    @Persisted var list: List<ModernAllTypesObject>
}

class ModernCircleObject: Object {
    @Persisted var obj: ModernCircleObject?
    @Persisted var array: List<ModernCircleObject>
}

class SetterObservers: Object {
    @Persisted var value: Int {
        willSet { willSetCallback?() }
        didSet { didSetCallback?() }
    }

    var willSetCallback: (() -> Void)?
    var didSetCallback: (() -> Void)?
}

class ObjectWithArcMethodCategoryNames: Object {
    @Persisted var newValue: String
    @Persisted var allocValue: String
    @Persisted var copyValue: String
    @Persisted var mutableCopyValue: String
    @Persisted var initValue: String
}

/// Without `intEnumCol`, `stringEnumCol` and their optional forms.
class ModernAllIndexableTypesObject: Object {
    @Persisted(indexed: true) var boolCol: Bool
    @Persisted(indexed: true) var intCol: Int
    @Persisted(indexed: true) var int8Col: Int8 = 1
    @Persisted(indexed: true) var int16Col: Int16 = 2
    @Persisted(indexed: true) var int32Col: Int32 = 3
    @Persisted(indexed: true) var int64Col: Int64 = 4
    @Persisted(indexed: true) var stringCol: String
    @Persisted(indexed: true) var dateCol: Date
    @Persisted(indexed: true) var uuidCol: UUID
    @Persisted(indexed: true) var objectIdCol: ObjectId

    @Persisted(indexed: true) var optIntCol: Int?
    @Persisted(indexed: true) var optInt8Col: Int8?
    @Persisted(indexed: true) var optInt16Col: Int16?
    @Persisted(indexed: true) var optInt32Col: Int32?
    @Persisted(indexed: true) var optInt64Col: Int64?
    @Persisted(indexed: true) var optBoolCol: Bool?
    @Persisted(indexed: true) var optStringCol: String?
    @Persisted(indexed: true) var optDateCol: Date?
    @Persisted(indexed: true) var optUuidCol: UUID?
    @Persisted(indexed: true) var optObjectIdCol: ObjectId?
}

/// Without `intEnumCol`, `stringEnumCol` and their optional forms.
class ModernAllIndexableButNotIndexedObject: Object {
    @Persisted(indexed: false) var boolCol: Bool
    @Persisted(indexed: false) var intCol: Int
    @Persisted(indexed: false) var int8Col: Int8 = 1
    @Persisted(indexed: false) var int16Col: Int16 = 2
    @Persisted(indexed: false) var int32Col: Int32 = 3
    @Persisted(indexed: false) var int64Col: Int64 = 4
    @Persisted(indexed: false) var stringCol: String
    @Persisted(indexed: false) var dateCol: Date
    @Persisted(indexed: false) var uuidCol: UUID
    @Persisted(indexed: false) var objectIdCol: ObjectId

    @Persisted(indexed: false) var optIntCol: Int?
    @Persisted(indexed: false) var optInt8Col: Int8?
    @Persisted(indexed: false) var optInt16Col: Int16?
    @Persisted(indexed: false) var optInt32Col: Int32?
    @Persisted(indexed: false) var optInt64Col: Int64?
    @Persisted(indexed: false) var optBoolCol: Bool?
    @Persisted(indexed: false) var optStringCol: String?
    @Persisted(indexed: false) var optDateCol: Date?
    @Persisted(indexed: false) var optUuidCol: UUID?
    @Persisted(indexed: false) var optObjectIdCol: ObjectId?
}
