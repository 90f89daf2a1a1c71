import AtollStorage
import Foundation
import Testing

@Suite struct ObjectIdTests {
    @Test func roundTripsThroughItsHexForm() throws {
        let id = ObjectId()
        let text = id.description
        #expect(text.count == 24)
        #expect(text.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(try ObjectId(string: text) == id)
        #expect(try ObjectId(string: text.uppercased()) == id)
    }

    @Test func parsesAKnownIdAndExposesItsTimestamp() throws {
        let id = try ObjectId(string: "507f1f77bcf86cd799439011")
        #expect(id.bytes == [0x50, 0x7F, 0x1F, 0x77, 0xBC, 0xF8, 0x6C, 0xD7, 0x99, 0x43, 0x90, 0x11])
        #expect(id.timestamp == Date(timeIntervalSince1970: 0x507F_1F77))
        #expect(id.description == "507f1f77bcf86cd799439011")
    }

    @Test func isStampedWithTheCurrentTime() {
        let before = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let id = ObjectId()
        #expect(id.timestamp >= before)
        #expect(id.timestamp <= Date())
    }

    @Test func consecutiveIdsAreUniqueAndShareTheProcessRandomBytes() {
        let ids = (0..<10_000).map { _ in ObjectId() }
        #expect(Set(ids).count == ids.count)
        let first = ids[0].bytes, second = ids[1].bytes
        #expect(first[4..<9] == second[4..<9])
        let counter = { (bytes: [UInt8]) in Int(bytes[9]) << 16 | Int(bytes[10]) << 8 | Int(bytes[11]) }
        // Other tests may generate ids concurrently, so the counter advanced by at least one.
        let step = (counter(second) - counter(first) + (1 << 24)) % (1 << 24)
        #expect(step >= 1 && step < 1 << 20)
    }

    @Test func comparesBytewise() throws {
        let a = try ObjectId(string: "000000000000000000000001")
        let b = try ObjectId(string: "000000000000000000000100")
        let c = try ObjectId(string: "0100000000000000000000ff")
        let d = try ObjectId(string: "ff0000000000000000000000")
        #expect([d, b, c, a].sorted() == [a, b, c, d])
        #expect(!(a < a))
    }

    @Test(arguments: ["", "507f1f77bcf86cd79943901", "507f1f77bcf86cd7994390111", "507f1f77bcf86cd79943901g", "507f1f77-cf86cd799439011", "ééééééééééé"])
    func rejectsMalformedStrings(_ text: String) {
        #expect(throws: AtollError.self) { try ObjectId(string: text) }
        do {
            _ = try ObjectId(string: text)
        } catch let error as AtollError {
            #expect(error.kind == .invalidArgument)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func buildsFromExactlyTwelveBytes() {
        let bytes: [UInt8] = Array(1...12)
        #expect(ObjectId(bytes: bytes)?.bytes == bytes)
        #expect(ObjectId(bytes: bytes.dropLast()) == nil)
        #expect(ObjectId(bytes: bytes + [13]) == nil)
    }

    @Test func idsFromManyThreadsAreUnique() async {
        let ids = await withTaskGroup(of: [ObjectId].self) { group in
            for _ in 0..<8 { group.addTask { (0..<2_000).map { _ in ObjectId() } } }
            var all: [ObjectId] = []
            for await batch in group { all += batch }
            return all
        }
        #expect(Set(ids).count == 16_000)
    }
}
