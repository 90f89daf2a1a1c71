import AtollStorage
@testable import AtollSync
import Foundation
import Testing

@Suite struct ChangesetCodingTests {
    let origin = NodeID(high: 0xAABB, low: 0xCCDD)
    let other = NodeID(high: 7, low: 9)
    let uuid = UUID()

    var sample: ChangesetContent {
        let item = ObjectAddress(classIndex: 0, primaryKey: .int(42))
        let person = ObjectAddress(classIndex: 1, primaryKey: .string("ann"))
        return ChangesetContent(classes: ["Item", "Person"], properties: ["title", "count", "tags", "owner", "friends"], instructions: [
            .create(item),
            .set(item, property: 0, value: .value(.string("hello"))),
            .set(item, property: 3, value: .link(primaryKey: .string("ann"))),
            .set(item, property: 3, value: .null),
            .addInteger(item, property: 1, delta: -5),
            .listInsert(item, property: 2, after: nil, lamport: 1, value: .value(.string("a"))),
            .listInsert(item, property: 2, after: ElementID(lamport: 1, node: origin), lamport: 2, value: .value(.string("b"))),
            .listInsert(item, property: 4, after: ElementID(lamport: 3, node: other), lamport: 4, value: .link(primaryKey: .string("bob"))),
            .listSet(item, property: 2, element: ElementID(lamport: 9, node: other), value: .value(.string("c"))),
            .listErase(item, property: 2, element: ElementID(lamport: 2, node: origin)),
            .erase(person),
            .create(ObjectAddress(classIndex: 1, primaryKey: .null)),
            .set(ObjectAddress(classIndex: 0, primaryKey: .int(-1)), property: 0, value: .value(.timestamp(Timestamp(seconds: -3, nanoseconds: 5)))),
            .set(ObjectAddress(classIndex: 0, primaryKey: .uuid(uuid)), property: 0, value: .value(.binary([1, 2, 3]))),
        ])
    }

    @Test func contentRoundTrips() throws {
        let body = sample.encode(origin: origin)
        #expect(try ChangesetContent.decode(body, origin: origin) == sample)
    }

    /// A name table that repeats a name is malformed: no encoder writes one, and its second
    /// index could not be written back (found by the changeset fuzz target).
    @Test func aBodyNamingAPropertyTwiceIsRefused() throws {
        let item = ObjectAddress(classIndex: 0, primaryKey: .int(1))
        var body = ChangesetContent(classes: ["Item"], properties: ["aa", "bb"], instructions: [
            .set(item, property: 1, value: .value(.int(7))),
        ]).encode(origin: origin)
        let at = try #require(body.indices.first { body[$0] == UInt8(ascii: "b") && body[$0 + 1] == UInt8(ascii: "b") })
        body[at] = UInt8(ascii: "a")
        body[at + 1] = UInt8(ascii: "a")
        #expect { try ChangesetContent.decode(body, origin: origin) } throws: { error in
            (error as? AtollError)?.kind == .protocolViolation && "\(error)".contains("names the property 'aa' twice")
        }
    }

    @Test func batchRoundTripsWithDeltaHeaders() throws {
        let body = sample.encode(origin: origin)
        let changesets = [
            Changeset(origin: origin, seq: 1, hlc: 1 << 40, body: body),
            Changeset(origin: other, seq: 7, hlc: (1 << 40) - 3, flags: Changeset.continuesFlag, body: []),
            Changeset(origin: origin, seq: 2, hlc: (1 << 40) + 1, body: body),
            Changeset(origin: other, seq: 9, hlc: 5, body: [1]),
        ]
        #expect(try ChangesetBatch.decode(ChangesetBatch.encode(changesets)) == changesets)
        #expect(try ChangesetBatch.decode(ChangesetBatch.encode([Changeset]())) == [])
    }

    @Test func aSmallFieldUpdateIsSmall() {
        let item = ObjectAddress(classIndex: 0, primaryKey: .int(1234))
        let content = ChangesetContent(classes: ["Item"], properties: ["count"], instructions: [.set(item, property: 0, value: .value(.int(77)))])
        let body = content.encode(origin: origin)
        // The instruction itself: op, class, key, property and value.
        var encoder = ChangesetBodyEncoder(origin: origin)
        _ = encoder.classIndex("Item"); _ = encoder.propertyIndex("count")
        encoder.append(content.instructions[0])
        #expect(encoder.instructionBytes == 9)
        // Plus the header and the two names, once per changeset.
        #expect(body.count == 16 + 9)
    }

    @Test func malformedBodiesThrowProtocolViolationAndNeverTrap() throws {
        let body = sample.encode(origin: origin)
        // Every truncation.
        for n in 0..<body.count {
            #expect(throws: AtollError.self) { try ChangesetContent.decode(Array(body.prefix(n)), origin: origin) }
        }
        // Trailing garbage.
        #expect(throws: AtollError.self) { try ChangesetContent.decode(body + [0], origin: origin) }
        // Random corruption: whatever happens, it is a clean result or an AtollError.
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var b = body
            for _ in 0..<Int.random(in: 1...4, using: &rng) { b[Int.random(in: 0..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            do { _ = try ChangesetContent.decode(b, origin: origin) } catch let e as AtollError { #expect(e.kind == .protocolViolation) }
        }
        // Specific hostile cases.
        let hostile: [[UInt8]] = [
            [2], // unknown format
            [1, 0, 0, 0, 1, 3, 0, 3, 2], // instruction naming class 0 of none
            [1, 0, 1, 1, 65, 0, 1, 1, 0, 11, 5], // primary key that is a link
            [1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F], // huge node count
            [1, 0, 1, 0x80, 0x80, 0x80, 0x80, 0x10], // huge name length
        ]
        for h in hostile {
            #expect(throws: AtollError.self) { try ChangesetContent.decode(h, origin: origin) }
        }
    }

    @Test func malformedBatchesThrowProtocolViolation() throws {
        let good = ChangesetBatch.encode([Changeset(origin: origin, seq: 3, hlc: 100, body: [1, 2, 3])])
        for n in 0..<good.count {
            #expect(throws: AtollError.self) { try ChangesetBatch.decode(Array(good.prefix(n))) }
        }
        // A sequence that does not increase within the batch.
        let twice = ChangesetBatch.encode([Changeset(origin: origin, seq: 3, hlc: 100, body: []), Changeset(origin: origin, seq: 4, hlc: 100, body: [])])
        var bad = twice
        // The second changeset's seq delta byte follows its origin index: find and zero it.
        bad[bad.count - 4] = 0
        #expect(throws: AtollError.self) { try ChangesetBatch.decode(bad) }
        // Too many changesets declared.
        var w = [UInt8]()
        w += [1] + origin.bytes + [0xE9, 0x07] // 1001 changesets
        #expect(throws: AtollError.self) { try ChangesetBatch.decode(w) }
    }
}
