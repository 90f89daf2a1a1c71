// Port of realm-swift's RealmSwift/Tests/ObjectIdTests.swift (all 6 tests), expected values
// unchanged.

import Atoll
import Foundation
import Testing

@Suite struct ObjectIdTests {
    let value = "000123450000ffbeef91906c"
    let value2 = "000123450000ffbeef91906d"

    @Test func testObjectIdInitialization() throws {
        let objectId = try ObjectId(string: value)
        #expect(objectId.stringValue == value)
        #expect(value == objectId.stringValue)

        let now = Date()
        let objectId2 = ObjectId(timestamp: now, machineId: 10, processId: 20)
        #expect(Int(now.timeIntervalSince1970) == Int(objectId2.timestamp.timeIntervalSince1970))
    }

    @Test func testObjectIdComparision() throws {
        let objectId = try ObjectId(string: value)
        let objectId2 = try ObjectId(string: value2)
        let objectId3 = try ObjectId(string: value)
        #expect(objectId != objectId2)
        #expect(objectId == objectId3)
    }

    @Test func testObjectIdGreaterThan() throws {
        let objectId = try ObjectId(string: value)
        let objectId2 = try ObjectId(string: value2)
        let objectId3 = try ObjectId(string: value)
        #expect(objectId2 > objectId)
        #expect(!(objectId > objectId3))
    }

    @Test func testObjectIdGreaterThanOrEqualTo() throws {
        let objectId = try ObjectId(string: value)
        let objectId2 = try ObjectId(string: value2)
        let objectId3 = try ObjectId(string: value)
        #expect(objectId2 >= objectId)
        #expect(objectId >= objectId3)
    }

    @Test func testObjectIdLessThan() throws {
        let objectId = try ObjectId(string: value)
        let objectId2 = try ObjectId(string: value2)
        let objectId3 = try ObjectId(string: value)
        #expect(objectId < objectId2)
        #expect(!(objectId < objectId3))
    }

    @Test func testObjectIdLessThanOrEqualTo() throws {
        let objectId = try ObjectId(string: value)
        let objectId2 = try ObjectId(string: value2)
        let objectId3 = try ObjectId(string: value)
        #expect(objectId <= objectId2)
        #expect(objectId <= objectId3)
    }

    // Atoll additions of RealmSwift API the file does not cover.
    @Test func generateAndStaticStringLiteral() {
        #expect(ObjectId.generate() != ObjectId.generate())
        #expect(ObjectId("1234567890abcdef12345678").stringValue == "1234567890abcdef12345678")
    }
}
