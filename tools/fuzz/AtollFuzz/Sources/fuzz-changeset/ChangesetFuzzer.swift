import AtollStorage
@testable import AtollSync
import Foundation
import FuzzSupport
import SyncFuzzSupport

// The changeset decoders: byte 0 chooses what the rest is: bit 0 clear, a changeset body
// (format 1, instructions addressed by class, primary key and property); bit 0 set, a snapshot
// body (format 2, each instruction with its own stamp); bit 1 set, first a changeset batch
// (origins, sequence numbers, clocks, bodies) whose bodies are then decoded.
//
// Checked: outcomes are content or `.protocolViolation`; decoded content survives an
// encode/decode round trip (BodyCheck).

private let outcome = Outcome(target: "fuzz-changeset", allowedKinds: [.protocolViolation])
private let origin = NodeID(high: 0x0102_0304_0506_0708, low: 0x090A_0B0C_0D0E_0F10)

@main
enum ChangesetFuzzMain {
    static func main() {
        FuzzDriver.run(seeds: ChangesetSeeds.all, fuzzChangeset)
    }
}

func fuzzChangeset(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard let mode = input.first else { return 0 }
    let rest = Array(input.dropFirst())
    if mode & 2 != 0 {
        guard let batch = outcome.check("batch", { try ChangesetBatch.decode(rest) }) else { return 0 }
        outcome.require(batch.count <= SyncLimits.batchChangesetsMax, "a batch of \(batch.count) changesets passed batchChangesetsMax")
        let again = Outcome(target: "fuzz-changeset", allowedKinds: []).check("batch round trip", { try ChangesetBatch.decode(ChangesetBatch.encode(batch)) })
        outcome.require(again == batch, "a changeset batch does not survive an encode/decode round trip")
        for c in batch {
            if mode & 1 != 0 { BodyCheck.snapshot(c.body, relay: c.origin, outcome) } else { BodyCheck.changeset(c.body, origin: c.origin, outcome) }
        }
    } else if mode & 1 != 0 {
        BodyCheck.snapshot(rest, relay: origin, outcome)
    } else {
        BodyCheck.changeset(rest, origin: origin, outcome)
    }
    return 0
}

enum ChangesetSeeds {
    static func all() throws -> [(name: String, bytes: [UInt8])] {
        let other = NodeID(high: 7, low: 8)
        let uuid = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
        let a = ObjectAddress(classIndex: 0, primaryKey: .string("a"))
        let b = ObjectAddress(classIndex: 1, primaryKey: .int(-5))
        let c = ObjectAddress(classIndex: 1, primaryKey: .uuid(uuid))
        let d = ObjectAddress(classIndex: 0, primaryKey: .null)
        let e = ObjectAddress(classIndex: 1, primaryKey: .objectId(ObjectId(bytes: [UInt8](repeating: 9, count: 12)) ?? ObjectId()))
        let instructions: [SyncInstruction] = [
            .create(a), .create(b), .erase(c), .create(d), .create(e),
            .set(a, property: 0, value: .value(.string("milk"))),
            .set(a, property: 1, value: .value(.int(Int64.min))),
            .set(b, property: 2, value: .value(.double(-0.0))),
            .set(b, property: 3, value: .value(.float(1.5))),
            .set(b, property: 4, value: .value(.timestamp(Timestamp(seconds: -5, nanoseconds: 999_999_999)))),
            .set(b, property: 5, value: .value(.binary([0, 255]))),
            .set(b, property: 6, value: .value(.bool(true))),
            .set(b, property: 7, value: .link(primaryKey: .string("a"))),
            .set(b, property: 7, value: .value(.null)),
            .set(e, property: 1, value: .value(.uuid(uuid))),
            .addInteger(a, property: 1, delta: 3),
            .listInsert(a, property: 8, after: nil, lamport: 1, value: .value(.string("x"))),
            .listInsert(a, property: 8, after: ElementID(lamport: 1, node: origin), lamport: 2, value: .value(.string("y"))),
            .listInsert(a, property: 9, after: ElementID(lamport: 4, node: other), lamport: 5, value: .link(primaryKey: .int(-5))),
            .listSet(a, property: 8, element: ElementID(lamport: 2, node: origin), value: .value(.string("z"))),
            .listErase(a, property: 8, element: ElementID(lamport: 1, node: origin)),
        ]
        let content = ChangesetContent(classes: ["Item", "Person"],
                                       properties: ["title", "count", "score", "ratio", "when", "photo", "done", "owner", "tags", "friends"],
                                       instructions: instructions)
        let body = content.encode(origin: origin)
        var snapshot = ChangesetBodyEncoder(origin: origin, explicitStamps: true)
        for c in content.classes { _ = snapshot.classIndex(c) }
        for p in content.properties { _ = snapshot.propertyIndex(p) }
        for (i, instruction) in instructions.enumerated() {
            snapshot.append(instruction, stamp: Stamp(hlc: UInt64(i) << 16, node: i % 2 == 0 ? origin : other, index: UInt32(i)),
                            elementNode: i % 3 == 0 ? other : nil, elementErased: i % 2 == 1)
        }
        let snapshotBody = snapshot.finish()
        let small = ChangesetContent(classes: ["Item"], properties: ["title"], instructions: [.set(a, property: 0, value: .value(.string("t")))]).encode(origin: origin)
        // Format 5: typed links (mixed values that link an object) by class and primary key.
        let typed = ChangesetContent(classes: ["Holder", "Person"], properties: ["value", "items"], instructions: [
            .set(a, property: 0, value: .typedLink(className: "Person", primaryKey: .string("ann"))),
            .listInsert(a, property: 1, after: nil, lamport: 1, value: .typedLink(className: "Holder", primaryKey: .int(3))),
        ]).encode(origin: origin)
        let batch = ChangesetBatch.encode([
            Changeset(origin: origin, seq: 1, hlc: 100, body: body),
            Changeset(origin: other, seq: 4, hlc: 90, flags: Changeset.continuesFlag, body: small),
            Changeset(origin: origin, seq: 2, hlc: 120, body: small),
        ])
        let snapshotBatch = ChangesetBatch.encode([Changeset(origin: origin, seq: 1, hlc: 1, body: snapshotBody)])
        return [
            (name: "body", bytes: [0] + body),
            (name: "body-small", bytes: [0] + small),
            (name: "body-empty", bytes: [0] + ChangesetContent().encode(origin: origin)),
            (name: "body-typed-link", bytes: [0] + typed),
            (name: "snapshot", bytes: [1] + snapshotBody),
            (name: "batch", bytes: [2] + batch),
            (name: "batch-snapshot", bytes: [3] + snapshotBatch),
        ]
    }
}
