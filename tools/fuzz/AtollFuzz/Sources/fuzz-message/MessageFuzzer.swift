import AtollStorage
@testable import AtollSync
import Foundation
import FuzzSupport
import SyncFuzzSupport

// Every sync message decoder: input byte 0 is the frame kind, the rest its (decompressed)
// payload, as `SyncMessage(frame:)` receives it from the wire layer. A decoded upload or
// download has its changeset bodies decoded too (the relay validates every body before it
// stores one), and a snapshot its body of stamped instructions. Kinds 0xF0... go to the
// transport's own decoders (goodbye, token).
//
// Checked: outcomes are messages or `.protocolViolation`; a decoded message encodes to a frame
// that decodes again, and from then on the round trip is exact (the first decode may normalise,
// e.g. repair invalid UTF-8 in a string).

private let outcome = Outcome(target: "fuzz-message", allowedKinds: [.protocolViolation])
private let verifier = try! TokenVerifier(["secret-token": "node-a"])

@main
enum MessageFuzzMain {
    static func main() {
        FuzzDriver.run(seeds: MessageSeeds.all, fuzzMessage)
    }
}

func fuzzMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard let kind = input.first else { return 0 }
    let frame = Frame(kind: kind, payload: Array(input.dropFirst()))
    if frame.isTransportControl {
        if kind == TransportFrameKind.goodbye { _ = Goodbye.error(from: frame.payload) }
        if kind == TransportFrameKind.token { _ = verifier.name(for: frame.payload) }
        return 0
    }
    guard let message = outcome.check("decode kind \(kind)", { try SyncMessage(frame: frame) }) else { return 0 }
    let strict = Outcome(target: "fuzz-message", allowedKinds: [])
    // Decoding repairs invalid UTF-8 (U+FFFD takes 3 bytes), which may push a string over its
    // limit when encoded again: only then may the first round trip fail.
    let repaired: Bool = switch message {
    case .hello(let h): h.realmID.contains("\u{FFFD}")
    case .error(_, let text): text.contains("\u{FFFD}")
    default: false
    }
    let again = repaired ? outcome.check("re-decode \(message.kind)", { try SyncMessage(frame: message.frame) })
        : strict.check("re-decode \(message.kind)", { try SyncMessage(frame: message.frame) })
    if let again {
        // Compared as bytes: values such as NaN are not equal to themselves.
        if !repaired { outcome.require(again.frame == message.frame, "a \(message.kind) message encodes differently after a round trip") }
        let third = strict.check("re-decode twice \(message.kind)", { try SyncMessage(frame: again.frame) })
        outcome.require(third?.frame == again.frame, "a \(message.kind) message does not survive a second encode/decode round trip")
    }
    switch message {
    case .upload(let changesets), .download(_, _, _, let changesets):
        for c in changesets {
            BodyCheck.changeset(c.body, origin: c.origin, outcome)
        }
    case .snapshot(_, _, _, _, let body):
        BodyCheck.snapshot(body, relay: .zero, outcome)
    default:
        break
    }
    return 0
}

enum MessageSeeds {
    static func all() throws -> [(name: String, bytes: [UInt8])] {
        let node = NodeID(high: 1, low: 2)
        let other = NodeID(high: 3, low: 4)
        let address = ObjectAddress(classIndex: 0, primaryKey: .string("a"))
        let body = ChangesetContent(classes: ["Item"], properties: ["title", "count", "tags", "owner"], instructions: [
            .create(address),
            .set(address, property: 0, value: .value(.string("milk"))),
            .addInteger(address, property: 1, delta: -3),
            .listInsert(address, property: 2, after: nil, lamport: 1, value: .value(.string("x"))),
            .listInsert(address, property: 2, after: ElementID(lamport: 1, node: other), lamport: 2, value: .value(.null)),
            .listSet(address, property: 2, element: ElementID(lamport: 1, node: node), value: .value(.double(2.5))),
            .listErase(address, property: 2, element: ElementID(lamport: 2, node: node)),
            .set(address, property: 3, value: .link(primaryKey: .int(7))),
            .erase(ObjectAddress(classIndex: 0, primaryKey: .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))))),
        ]).encode(origin: node)
        var snapshot = ChangesetBodyEncoder(origin: node, explicitStamps: true)
        snapshot.append(.create(address), stamp: Stamp(hlc: 9, node: other, index: 0))
        snapshot.append(.listInsert(address, property: 2, after: nil, lamport: 3, value: .value(.int(5))), stamp: Stamp(hlc: 10, node: node, index: 1),
                        elementNode: other, elementErased: true)
        let changesets = [Changeset(origin: node, seq: 1, hlc: 1 << 30, body: body), Changeset(origin: other, seq: 7, hlc: 1 << 31, flags: 1, body: body)]
        let messages: [SyncMessage] = [
            .hello(.init(nodeID: node, realmID: "shop", schemaFingerprint: [1, 2, 3, 4], cursor: DownloadCursor(relayID: other, seq: 3),
                         versionVector: VersionVector([node: 3, other: 9]))),
            .welcome(.init(relayID: other, uploadedThrough: 3, head: 10, start: 4, snapshotFollows: true)),
            .welcome(.init(relayID: other, uploadedThrough: 3, head: 10, start: 4, permission: RealmPermission(read: true, write: true, writeClasses: ["Task"]))),
            .error(code: .permissionDenied, message: "'mallory' may not sync realm 'user/bob'"),
            .error(code: .clockAhead, message: "the node's clock is ahead"),
            .upload(changesets),
            .uploadAck(through: 9, resend: true),
            .download(from: 1, to: 5, head: 6, changesets: changesets),
            .downloadAck(cursor: 5, resend: false),
            .markRequest(id: 42),
            .markReply(id: 42, head: 6),
            .snapshot(index: 0, final: true, through: 6, versionVector: VersionVector([other: 2]), body: snapshot.finish()),
            .snapshotAck(next: 1, resend: false),
            // Protocol 5: a welcome with every optional part (digest, the relay's schema
            // history, an expired peer), the clock floor and the stability point.
            .welcome(.init(relayID: other, uploadedThrough: 3, head: 10, start: 4, uploadedThroughDigest: 0xABCD_0123_4567_89EF,
                           schemaHistory: SyncSchemaDescription(classes: [
                               .init(name: "Item", primaryKey: "id", properties: [
                                   .init(name: "id", type: ColumnType.int.rawValue, isNullable: false, isList: false, intBits: 64, linkTarget: nil),
                                   .init(name: "owner", type: ColumnType.link.rawValue, isNullable: true, isList: false, intBits: 0, linkTarget: "Person"),
                                   .init(name: "tags", type: ColumnType.string.rawValue, isNullable: false, isList: false, intBits: 0, linkTarget: nil, isSet: true),
                               ]),
                           ]),
                           expired: true)),
            .clockFloor(1 << 40),
            .stabilityPoint(point: 1 << 39, through: 8),
            .appliedFloor(17),
            .deletionPoint(point: 1 << 38, through: 7),
        ]
        var seeds = messages.enumerated().map { i, m in (name: "message-\(i)", bytes: [m.frame.kind] + m.frame.payload) }
        let goodbye = Goodbye.frame(for: AtollError(.schemaMismatch, "schemas differ"))
        seeds.append((name: "goodbye", bytes: [goodbye.kind] + goodbye.payload))
        seeds.append((name: "token", bytes: [TransportFrameKind.token] + Array("secret-token".utf8)))
        return seeds
    }
}
