// realm-swift's test models for MutableSet and Map (RealmSwift/Tests/SwiftTestObjects.swift),
// without their Decimal128, AnyRealmValue and embedded-object properties.

import Atoll
import Foundation

final class SwiftMutableSetPropertyObject: Object {
    @Persisted var name = ""
    @Persisted var set: MutableSet<SwiftStringObject>
    @Persisted var intSet: MutableSet<SwiftIntObject>
}

final class SwiftMutableSetOfSwiftObject: Object {
    @Persisted var set: MutableSet<SwiftObject>
}

final class SwiftMutableSetObject: Object {
    @Persisted var int: MutableSet<Int>
    @Persisted var int8: MutableSet<Int8>
    @Persisted var int16: MutableSet<Int16>
    @Persisted var int32: MutableSet<Int32>
    @Persisted var int64: MutableSet<Int64>
    @Persisted var float: MutableSet<Float>
    @Persisted var double: MutableSet<Double>
    @Persisted var string: MutableSet<String>
    @Persisted var data: MutableSet<Data>
    @Persisted var date: MutableSet<Date>
    @Persisted var objectId: MutableSet<ObjectId>
    @Persisted var uuid: MutableSet<UUID>

    @Persisted var intOpt: MutableSet<Int?>
    @Persisted var int8Opt: MutableSet<Int8?>
    @Persisted var int16Opt: MutableSet<Int16?>
    @Persisted var int32Opt: MutableSet<Int32?>
    @Persisted var int64Opt: MutableSet<Int64?>
    @Persisted var floatOpt: MutableSet<Float?>
    @Persisted var doubleOpt: MutableSet<Double?>
    @Persisted var stringOpt: MutableSet<String?>
    @Persisted var dataOpt: MutableSet<Data?>
    @Persisted var dateOpt: MutableSet<Date?>
    @Persisted var objectIdOpt: MutableSet<ObjectId?>
    @Persisted var uuidOpt: MutableSet<UUID?>
}

final class SwiftMapPropertyObject: Object {
    @Persisted var name = ""
    @Persisted var map: Map<String, SwiftStringObject?>
    @Persisted var intMap: Map<String, SwiftIntObject?>
}

final class SwiftMapOfSwiftObject: Object {
    @Persisted var map: Map<String, SwiftObject?>
}

final class SwiftMapObject: Object {
    @Persisted var int: Map<String, Int>
    @Persisted var int8: Map<String, Int8>
    @Persisted var int16: Map<String, Int16>
    @Persisted var int32: Map<String, Int32>
    @Persisted var int64: Map<String, Int64>
    @Persisted var float: Map<String, Float>
    @Persisted var double: Map<String, Double>
    @Persisted var string: Map<String, String>
    @Persisted var data: Map<String, Data>
    @Persisted var date: Map<String, Date>
    @Persisted var objectId: Map<String, ObjectId>
    @Persisted var uuid: Map<String, UUID>
    @Persisted var object: Map<String, SwiftStringObject?>

    @Persisted var intOpt: Map<String, Int?>
    @Persisted var int8Opt: Map<String, Int8?>
    @Persisted var int16Opt: Map<String, Int16?>
    @Persisted var int32Opt: Map<String, Int32?>
    @Persisted var int64Opt: Map<String, Int64?>
    @Persisted var floatOpt: Map<String, Float?>
    @Persisted var doubleOpt: Map<String, Double?>
    @Persisted var stringOpt: Map<String, String?>
    @Persisted var dataOpt: Map<String, Data?>
    @Persisted var dateOpt: Map<String, Date?>
    @Persisted var objectIdOpt: Map<String, ObjectId?>
    @Persisted var uuidOpt: Map<String, UUID?>
}
