// Checks shared by the ported suites (realm-swift keeps them as private helpers of each file).

import Atoll
import Foundation
import Testing

/// A number given to a model as `Any` (Int, Float, Double or NSNumber), as a Float: realm-swift
/// reads these with `as! NSNumber`, which needs Objective-C bridging on Linux.
func floatValue(_ value: Any?) -> Float? {
    switch value {
    case let f as Float: f
    case let d as Double: Float(d)
    case let i as Int: Float(i)
    case let n as NSNumber: n.floatValue
    default: nil
    }
}

/// Like `floatValue` for Double.
func doubleValue(_ value: Any?) -> Double? {
    switch value {
    case let d as Double: d
    case let f as Float: Double(f)
    case let i as Int: Double(i)
    case let n as NSNumber: n.doubleValue
    default: nil
    }
}

/// Like `floatValue` for integers of any width.
func int64Value(_ value: Any?) -> Int64? {
    switch value {
    case let i as any BinaryInteger: Int64(i)
    case let n as NSNumber: n.int64Value
    default: nil
    }
}

/// realm-swift's `verifySwiftObjectWithDictionaryLiteral` (ObjectCreationTests), without the
/// properties SwiftObject lacks here (decimalCol, setCol, mapCol).
func verifySwiftObjectWithDictionaryLiteral(_ object: SwiftObject, dictionary: [String: Any], boolObjectValue: Bool,
                                            boolObjectListValues: [Bool], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(object.boolCol == (dictionary["boolCol"] as? Bool), sourceLocation: sourceLocation)
    #expect(Int64(object.intCol) == int64Value(dictionary["intCol"]), sourceLocation: sourceLocation)
    #expect(Int64(object.int8Col) == int64Value(dictionary["int8Col"]), sourceLocation: sourceLocation)
    #expect(Int64(object.int16Col) == int64Value(dictionary["int16Col"]), sourceLocation: sourceLocation)
    #expect(Int64(object.int32Col) == int64Value(dictionary["int32Col"]), sourceLocation: sourceLocation)
    #expect(object.int64Col == int64Value(dictionary["int64Col"]), sourceLocation: sourceLocation)
    #expect(object.floatCol == floatValue(dictionary["floatCol"]), sourceLocation: sourceLocation)
    #expect(object.doubleCol == doubleValue(dictionary["doubleCol"]), sourceLocation: sourceLocation)
    #expect(object.stringCol == (dictionary["stringCol"] as? String), sourceLocation: sourceLocation)
    #expect(object.binaryCol == (dictionary["binaryCol"] as? Data), sourceLocation: sourceLocation)
    #expect(object.dateCol == (dictionary["dateCol"] as? Date), sourceLocation: sourceLocation)
    #expect(object.objectIdCol == (dictionary["objectIdCol"] as? ObjectId), sourceLocation: sourceLocation)
    #expect(object.objectCol?.boolCol == boolObjectValue, sourceLocation: sourceLocation)
    #expect(object.arrayCol.count == boolObjectListValues.count, sourceLocation: sourceLocation)
    for i in 0..<min(boolObjectListValues.count, object.arrayCol.count) {
        #expect(object.arrayCol[i].boolCol == boolObjectListValues[i], sourceLocation: sourceLocation)
    }
}

/// The property order of SwiftObject's array literal here: realm-swift's without intEnumCol,
/// decimalCol, anyCol, setCol and mapCol.
let swiftObjectArrayProperties = ["boolCol", "intCol", "int8Col", "int16Col", "int32Col", "int64Col", "floatCol", "doubleCol",
                                  "stringCol", "binaryCol", "dateCol", "objectIdCol", "objectCol", "uuidCol", "arrayCol"]

/// realm-swift's `verifySwiftObjectWithArrayLiteral` for that order.
func verifySwiftObjectWithArrayLiteral(_ object: SwiftObject, array: [Any], boolObjectValue: Bool, boolObjectListValues: [Bool],
                                       sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(object.boolCol == (array[0] as? Bool), sourceLocation: sourceLocation)
    #expect(Int64(object.intCol) == int64Value(array[1]), sourceLocation: sourceLocation)
    #expect(Int64(object.int8Col) == int64Value(array[2]), sourceLocation: sourceLocation)
    #expect(Int64(object.int16Col) == int64Value(array[3]), sourceLocation: sourceLocation)
    #expect(Int64(object.int32Col) == int64Value(array[4]), sourceLocation: sourceLocation)
    #expect(object.int64Col == int64Value(array[5]), sourceLocation: sourceLocation)
    #expect(object.floatCol == floatValue(array[6]), sourceLocation: sourceLocation)
    #expect(object.doubleCol == doubleValue(array[7]), sourceLocation: sourceLocation)
    #expect(object.stringCol == (array[8] as? String), sourceLocation: sourceLocation)
    #expect(object.binaryCol == (array[9] as? Data), sourceLocation: sourceLocation)
    #expect(object.dateCol == (array[10] as? Date), sourceLocation: sourceLocation)
    #expect(object.objectIdCol == (array[11] as? ObjectId), sourceLocation: sourceLocation)
    #expect(object.objectCol?.boolCol == boolObjectValue, sourceLocation: sourceLocation)
    #expect(object.uuidCol == (array[13] as? UUID), sourceLocation: sourceLocation)
    #expect(object.arrayCol.count == boolObjectListValues.count, sourceLocation: sourceLocation)
    for i in 0..<min(boolObjectListValues.count, object.arrayCol.count) {
        #expect(object.arrayCol[i].boolCol == boolObjectListValues[i], sourceLocation: sourceLocation)
    }
}

/// realm-swift's `verifySwiftOptionalObjectWithDictionaryLiteral`, without optNSStringCol and
/// optDecimalCol.
func verifySwiftOptionalObjectWithDictionaryLiteral(_ object: SwiftOptionalDefaultValuesObject, dictionary: [String: Any],
                                                    boolObjectValue: Bool?, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(object.optBoolCol == (dictionary["optBoolCol"] as? Bool), sourceLocation: sourceLocation)
    #expect(object.optIntCol.map { Int64($0) } == int64Value(dictionary["optIntCol"]), sourceLocation: sourceLocation)
    #expect(object.optInt8Col.map { Int64($0) } == int64Value(dictionary["optInt8Col"]), sourceLocation: sourceLocation)
    #expect(object.optInt16Col.map { Int64($0) } == int64Value(dictionary["optInt16Col"]), sourceLocation: sourceLocation)
    #expect(object.optInt32Col.map { Int64($0) } == int64Value(dictionary["optInt32Col"]), sourceLocation: sourceLocation)
    #expect(object.optInt64Col == int64Value(dictionary["optInt64Col"]), sourceLocation: sourceLocation)
    #expect(object.optFloatCol == floatValue(dictionary["optFloatCol"]), sourceLocation: sourceLocation)
    #expect(object.optDoubleCol == doubleValue(dictionary["optDoubleCol"]), sourceLocation: sourceLocation)
    #expect(object.optStringCol == (dictionary["optStringCol"] as? String), sourceLocation: sourceLocation)
    #expect(object.optBinaryCol == (dictionary["optBinaryCol"] as? Data), sourceLocation: sourceLocation)
    #expect(object.optDateCol == (dictionary["optDateCol"] as? Date), sourceLocation: sourceLocation)
    #expect(object.optObjectIdCol == (dictionary["optObjectIdCol"] as? ObjectId), sourceLocation: sourceLocation)
    #expect(object.optObjectCol?.boolCol == boolObjectValue, sourceLocation: sourceLocation)
    #expect(object.optUuidCol == (dictionary["optUuidCol"] as? UUID), sourceLocation: sourceLocation)
}

/// realm-swift's `defaultSwiftObjectValuesWithReplacements`.
func defaultSwiftObjectValuesWithReplacements(_ replace: [String: Any]) -> [String: Any] {
    var valueDict = SwiftObject.defaultValues()
    for (key, value) in replace { valueDict[key] = value }
    return valueDict
}
