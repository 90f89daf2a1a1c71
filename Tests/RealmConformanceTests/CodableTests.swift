// Port of realm-swift's RealmSwift/Tests/CodableTests.swift, for the types Atoll has: models
// whose `@Persisted` properties decode and encode as their values through Swift's synthesized
// Codable. Expected values are realm-swift's, with the properties of missing types taken out
// of the model and of the expected JSON.
//
// Not ported:
// - testBool, testInt, testFloat, testDouble, testNullableRealmProperty, testObject,
//   testLegacyObjectOptionalNotRequired: need RealmOptional/RealmProperty (legacy API) and the
//   legacy CodableObject with MutableSet and Map properties.
// - testDecimal: needs Decimal128.
// - ModernCodableObject's decimal, embedded object, MutableSet and Map properties (and their
//   lines in testModernObject, testModernObjectNil, testModernObjectOptionalNotRequired,
//   testCustomDateEncoding, testCustomDataEncoding, testKeyEncodingStrategy): need Decimal128,
//   EmbeddedObject, MutableSet and Map.

import Atoll
import AtollTestSupport
import Foundation
import Testing

final class ModernCodableObject: Object, Codable {
    @Persisted var string: String
    @Persisted var data: Data
    @Persisted var date: Date
    @Persisted var int: Int
    @Persisted var int8: Int8
    @Persisted var int16: Int16
    @Persisted var int32: Int32
    @Persisted var int64: Int64
    @Persisted var float: Float
    @Persisted var double: Double
    @Persisted var bool: Bool
    @Persisted var objectId: ObjectId
    @Persisted var uuid: UUID

    @Persisted var stringOpt: String?
    @Persisted var dataOpt: Data?
    @Persisted var dateOpt: Date?
    @Persisted var objectIdOpt: ObjectId?
    @Persisted var intOpt: Int?
    @Persisted var int8Opt: Int8?
    @Persisted var int16Opt: Int16?
    @Persisted var int32Opt: Int32?
    @Persisted var int64Opt: Int64?
    @Persisted var floatOpt: Float?
    @Persisted var doubleOpt: Double?
    @Persisted var boolOpt: Bool?
    @Persisted var uuidOpt: UUID?
    @Persisted var objectOpt: CodableTopLevelObject?

    @Persisted var boolList: List<Bool>
    @Persisted var intList: List<Int>
    @Persisted var int8List: List<Int8>
    @Persisted var int16List: List<Int16>
    @Persisted var int32List: List<Int32>
    @Persisted var int64List: List<Int64>
    @Persisted var floatList: List<Float>
    @Persisted var doubleList: List<Double>
    @Persisted var stringList: List<String>
    @Persisted var dataList: List<Data>
    @Persisted var dateList: List<Date>
    @Persisted var objectIdList: List<ObjectId>
    @Persisted var uuidList: List<UUID>
    @Persisted var objectList: List<CodableTopLevelObject>

    @Persisted var boolOptList: List<Bool?>
    @Persisted var intOptList: List<Int?>
    @Persisted var int8OptList: List<Int8?>
    @Persisted var int16OptList: List<Int16?>
    @Persisted var int32OptList: List<Int32?>
    @Persisted var int64OptList: List<Int64?>
    @Persisted var floatOptList: List<Float?>
    @Persisted var doubleOptList: List<Double?>
    @Persisted var stringOptList: List<String?>
    @Persisted var dataOptList: List<Data?>
    @Persisted var dateOptList: List<Date?>
    @Persisted var objectIdOptList: List<ObjectId?>
    @Persisted var uuidOptList: List<UUID?>
}

final class CodableTopLevelObject: Object, Codable {
    @Persisted var value: Int
}

@Suite struct CodableTests {
    /// realm-swift's testModernObject input (its macOS 15 form, which swift-foundation on Linux
    /// produces too), without the properties of missing types: exactly what JSONEncoder
    /// produces with [.prettyPrinted, .sortedKeys], so it round-trips.
    static let modernObjectJSON = """
    {
      "bool" : true,
      "boolList" : [
        true
      ],
      "boolOpt" : true,
      "boolOptList" : [
        true
      ],
      "data" : "ZGVm",
      "dataList" : [
        "ZGVm"
      ],
      "dataOpt" : "ZGVm",
      "dataOptList" : [
        "ZGVm"
      ],
      "date" : 2.5,
      "dateList" : [
        2.5
      ],
      "dateOpt" : 2.5,
      "dateOptList" : [
        2.5
      ],
      "double" : 2.5,
      "doubleList" : [
        2.5
      ],
      "doubleOpt" : 2.5,
      "doubleOptList" : [
        2.5
      ],
      "float" : 2.5,
      "floatList" : [
        2.5
      ],
      "floatOpt" : 2.5,
      "floatOptList" : [
        2.5
      ],
      "int" : 123,
      "int16" : 123,
      "int16List" : [
        123
      ],
      "int16Opt" : 123,
      "int16OptList" : [
        123
      ],
      "int32" : 123,
      "int32List" : [
        123
      ],
      "int32Opt" : 123,
      "int32OptList" : [
        123
      ],
      "int64" : 123,
      "int64List" : [
        123
      ],
      "int64Opt" : 123,
      "int64OptList" : [
        123
      ],
      "int8" : 123,
      "int8List" : [
        123
      ],
      "int8Opt" : 123,
      "int8OptList" : [
        123
      ],
      "intList" : [
        123
      ],
      "intOpt" : 123,
      "intOptList" : [
        123
      ],
      "objectId" : "1234567890abcdef12345678",
      "objectIdList" : [
        "1234567890abcdef12345678"
      ],
      "objectIdOpt" : "1234567890abcdef12345678",
      "objectIdOptList" : [
        "1234567890abcdef12345678"
      ],
      "objectList" : [
        {
          "value" : 7
        }
      ],
      "objectOpt" : {
        "value" : 5
      },
      "string" : "abc",
      "stringList" : [
        "abc"
      ],
      "stringOpt" : "abc",
      "stringOptList" : [
        "abc"
      ],
      "uuid" : "00000000-0000-0000-0000-000000000000",
      "uuidList" : [
        "00000000-0000-0000-0000-000000000000"
      ],
      "uuidOpt" : "00000000-0000-0000-0000-000000000000",
      "uuidOptList" : [
        "00000000-0000-0000-0000-000000000000"
      ]
    }
    """

    @Test func testModernObject() throws {
        let obj = try JSONDecoder().decode(ModernCodableObject.self, from: Data(Self.modernObjectJSON.utf8))
        #expect(obj.bool == true)
        #expect(obj.int == 123)
        #expect(obj.int8 == 123)
        #expect(obj.int16 == 123)
        #expect(obj.int32 == 123)
        #expect(obj.int64 == 123)
        #expect(obj.float == 2.5)
        #expect(obj.double == 2.5)
        #expect(obj.string == "abc")
        #expect(obj.date == Date(timeIntervalSinceReferenceDate: 2.5))
        #expect(obj.data == Data("def".utf8))
        #expect(obj.objectId == ObjectId("1234567890abcdef12345678"))
        #expect(obj.uuid == UUID(uuidString: "00000000-0000-0000-0000-000000000000"))

        #expect(obj.boolOpt == true)
        #expect(obj.intOpt == 123)
        #expect(obj.int8Opt == 123)
        #expect(obj.int16Opt == 123)
        #expect(obj.int32Opt == 123)
        #expect(obj.int64Opt == 123)
        #expect(obj.floatOpt == 2.5)
        #expect(obj.doubleOpt == 2.5)
        #expect(obj.stringOpt == "abc")
        #expect(obj.dateOpt == Date(timeIntervalSinceReferenceDate: 2.5))
        #expect(obj.dataOpt == Data("def".utf8))
        #expect(obj.objectIdOpt == ObjectId("1234567890abcdef12345678"))
        #expect(obj.uuidOpt == UUID(uuidString: "00000000-0000-0000-0000-000000000000"))

        #expect(obj.boolList.first == true)
        #expect(obj.intList.first == 123)
        #expect(obj.int8List.first == 123)
        #expect(obj.int16List.first == 123)
        #expect(obj.int32List.first == 123)
        #expect(obj.int64List.first == 123)
        #expect(obj.floatList.first == 2.5)
        #expect(obj.doubleList.first == 2.5)
        #expect(obj.stringList.first == "abc")
        #expect(obj.dateList.first == Date(timeIntervalSinceReferenceDate: 2.5))
        #expect(obj.dataList.first == Data("def".utf8))
        #expect(obj.objectIdList.first == ObjectId("1234567890abcdef12345678"))
        #expect(obj.uuidList.first == UUID(uuidString: "00000000-0000-0000-0000-000000000000"))

        #expect(obj.boolOptList.first == true)
        #expect(obj.intOptList.first == 123)
        #expect(obj.int8OptList.first == 123)
        #expect(obj.int16OptList.first == 123)
        #expect(obj.int32OptList.first == 123)
        #expect(obj.int64OptList.first == 123)
        #expect(obj.floatOptList.first == 2.5)
        #expect(obj.doubleOptList.first == 2.5)
        #expect(obj.stringOptList.first == "abc")
        #expect(obj.dateOptList.first == Date(timeIntervalSinceReferenceDate: 2.5))
        #expect(obj.dataOptList.first == Data("def".utf8))
        #expect(obj.objectIdOptList.first == ObjectId("1234567890abcdef12345678"))

        #expect(obj.objectOpt?.value == 5)
        #expect(obj.objectList.first?.value == 7)

        // Encodes to exactly the original string.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let actual = try #require(String(data: encoder.encode(obj), encoding: .utf8))
        #expect(Self.modernObjectJSON == actual)

        let t = RealmTestCase()
        let realm = try t.realm()
        try realm.write { realm.add(obj) }
        #expect(throws: EncodingError.self) { try encoder.encode(obj) }
        // The managed object still reads what was decoded.
        #expect(realm.objects(ModernCodableObject.self).first?.objectList.first?.value == 7)
    }

    @Test func testModernObjectNil() throws {
        // Optional properties missing from the input decode as nil (the lists as empty when given).
        let json = """
        {"bool": true, "string": "abc", "data": "ZGVm", "date": 2.5, "int": 1, "int8": 1, "int16": 1, "int32": 1,
         "int64": 1, "float": 1, "double": 1, "objectId": "1234567890abcdef12345678",
         "uuid": "00000000-0000-0000-0000-000000000000",
         "boolList": [], "intList": [], "int8List": [], "int16List": [], "int32List": [], "int64List": [],
         "floatList": [], "doubleList": [], "stringList": [], "dataList": [], "dateList": [], "objectIdList": [],
         "uuidList": [], "objectList": [], "boolOptList": [], "intOptList": [], "int8OptList": [], "int16OptList": [],
         "int32OptList": [], "int64OptList": [], "floatOptList": [], "doubleOptList": [], "stringOptList": [],
         "dataOptList": [], "dateOptList": [], "objectIdOptList": [], "uuidOptList": []}
        """
        let obj = try JSONDecoder().decode(ModernCodableObject.self, from: Data(json.utf8))
        #expect(obj.boolOpt == nil)
        #expect(obj.intOpt == nil)
        #expect(obj.int8Opt == nil)
        #expect(obj.int16Opt == nil)
        #expect(obj.int32Opt == nil)
        #expect(obj.int64Opt == nil)
        #expect(obj.floatOpt == nil)
        #expect(obj.doubleOpt == nil)
        #expect(obj.stringOpt == nil)
        #expect(obj.dateOpt == nil)
        #expect(obj.dataOpt == nil)
        #expect(obj.objectIdOpt == nil)
        #expect(obj.objectOpt == nil)
        #expect(obj.string == "abc")
    }

    @Test func testCustomDateEncoding() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            try "custom: \(date.timeIntervalSince1970)".encode(to: encoder)
        }
        let obj = ModernCodableObject()
        obj.date = Date(timeIntervalSince1970: 1)
        obj.dateOpt = Date(timeIntervalSince1970: 2)
        obj.dateList.append(Date(timeIntervalSince1970: 3))
        obj.dateOptList.append(Date(timeIntervalSince1970: 4))
        let encoded = try encoder.encode(obj)
        let dict = try #require(try JSONSerialization.jsonObject(with: encoded, options: []) as? [String: Any])
        #expect(dict["date"] as? String == "custom: 1.0")
        #expect(dict["dateOpt"] as? String == "custom: 2.0")
        #expect(dict["dateList"] as? [String] == ["custom: 3.0"])
        #expect(dict["dateOptList"] as? [String] == ["custom: 4.0"])
    }

    @Test func testCustomDataEncoding() throws {
        let encoder = JSONEncoder()
        encoder.dataEncodingStrategy = .custom { data, encoder in
            try "length: \(data.count)".encode(to: encoder)
        }
        let obj = ModernCodableObject()
        obj.data = Data(repeating: 0, count: 1)
        obj.dataOpt = Data(repeating: 0, count: 2)
        obj.dataList.append(Data(repeating: 0, count: 3))
        obj.dataOptList.append(Data(repeating: 0, count: 4))
        let encoded = try encoder.encode(obj)
        let dict = try #require(try JSONSerialization.jsonObject(with: encoded, options: []) as? [String: Any])
        #expect(dict["data"] as? String == "length: 1")
        #expect(dict["dataOpt"] as? String == "length: 2")
        #expect(dict["dataList"] as? [String] == ["length: 3"])
        #expect(dict["dataOptList"] as? [String] == ["length: 4"])
    }

    @Test func testKeyEncodingStrategy() throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys]
        let obj = ModernCodableObject()
        obj.objectId = ObjectId("1234567890abcdef12345678")
        obj.uuid = try #require(UUID(uuidString: "00000000-0000-0000-0000-000000000000"))
        obj.date = Date(timeIntervalSince1970: 0)
        let actual = try #require(String(data: encoder.encode(obj), encoding: .utf8))
        let expected = #"{"bool":false,"bool_list":[],"bool_opt":null,"bool_opt_list":[],"data":"","data_list":[],"data_opt":null,"data_opt_list":[],"date":-978307200,"date_list":[],"date_opt":null,"date_opt_list":[],"double":0,"double_list":[],"double_opt":null,"double_opt_list":[],"float":0,"float_list":[],"float_opt":null,"float_opt_list":[],"int":0,"int16":0,"int16_list":[],"int16_opt":null,"int16_opt_list":[],"int32":0,"int32_list":[],"int32_opt":null,"int32_opt_list":[],"int64":0,"int64_list":[],"int64_opt":null,"int64_opt_list":[],"int8":0,"int8_list":[],"int8_opt":null,"int8_opt_list":[],"int_list":[],"int_opt":null,"int_opt_list":[],"object_id":"1234567890abcdef12345678","object_id_list":[],"object_id_opt":null,"object_id_opt_list":[],"object_list":[],"object_opt":null,"string":"","string_list":[],"string_opt":null,"string_opt_list":[],"uuid":"00000000-0000-0000-0000-000000000000","uuid_list":[],"uuid_opt":null,"uuid_opt_list":[]}"#
        #expect(expected == actual)
    }

    // Atoll: Results and lists of Codable objects encode as arrays; a decoded object graph can be
    // added to a realm.
    @Test func collectionsEncodeAsArrays() throws {
        let t = RealmTestCase()
        let realm = try t.realm()
        try realm.write {
            realm.add(CodableTopLevelObject(value: [1]))
            realm.add(CodableTopLevelObject(value: [2]))
        }
        let results = realm.objects(CodableTopLevelObject.self)
        // Managed objects do not encode (as in RealmSwift); unmanaged copies do.
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(results) }
        let list = List<CodableTopLevelObject>()
        list.append(objectsIn: [CodableTopLevelObject(value: [3]), CodableTopLevelObject(value: [4])])
        #expect(String(decoding: try JSONEncoder().encode(list), as: UTF8.self) == #"[{"value":3},{"value":4}]"#)
        let decoded = try JSONDecoder().decode([CodableTopLevelObject].self, from: Data(#"[{"value":5},{"value":6}]"#.utf8))
        #expect(decoded.map(\.value) == [5, 6])
    }
}
