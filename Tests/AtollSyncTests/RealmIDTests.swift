import AtollStorage
@testable import AtollSync
import Foundation
import Testing
import AtollTestSupport

/// Realm ids name realms on the relay: malformed ones are refused with a clear error frame, and
/// no two byte-different ids can name one realm.
@Suite struct RealmIDTests {
    static let fingerprint: [UInt8] = Array(0..<16)

    /// A hello for `realm` given as raw bytes (the encoder only writes valid strings).
    static func hello(realmBytes: [UInt8], node: NodeID = NodeID(high: 7, low: 7)) -> Frame {
        var w = ByteWriter()
        w.varint(UInt64(syncProtocolVersion))
        w.append(node.bytes)
        w.blob(realmBytes)
        w.blob(fingerprint)
        w.append(NodeID.zero.bytes)
        w.varint(0)
        w.varint(0)
        return Frame(kind: SyncMessage.Kind.hello.rawValue, payload: w.bytes)
    }

    /// What the relay answers a connection that sends `frame`: the error code and message it
    /// sends, or nil when it welcomes it; and whether it closes the connection.
    static func answer(_ relay: RelayCore, _ frame: Frame, connection c: ConnectionID) -> (error: (SyncErrorCode, String)?, closed: Bool) {
        _ = relay.connected(c, now: 0)
        let actions = relay.receive(frame, from: c, now: 0)
        var error: (SyncErrorCode, String)?
        for case .send(_, let sent) in actions {
            if case .error(let code, let message)? = try? SyncMessage(frame: sent) { error = (code, message) }
        }
        return (error, actions.contains(.close(c)))
    }

    @Test func theAllowedFormIsNFCPrintableUTF8UpTo256Bytes() {
        for good in ["shop", "a", "Ünïcödé-realm/2026", "東京", String(repeating: "x", count: RealmID.bytesMax), "two words"] {
            #expect(RealmID.problem(good) == nil, "\(good)")
        }
        let cases: [(String, String)] = [
            ("", "empty"),
            (String(repeating: "x", count: RealmID.bytesMax + 1), "257 bytes long, over the limit of 256"),
            (String(repeating: "é", count: 129), "258 bytes long"),
            ("shop\u{0}", "U+0000"),
            ("shop\n", "U+000A"),
            ("sh\u{7F}op", "U+007F"),
            ("sh\u{200B}op", "U+200B"),
            ("shop\u{202E}", "U+202E"),
            ("\u{2028}", "U+2028"),
            ("\u{E000}", "U+E000"),
            (" shop", "starts with white space"),
            ("shop\u{3000}", "ends with white space"),
            ("cafe\u{301}", "normalization form C"),
        ]
        for (bad, reason) in cases {
            let problem = RealmID.problem(bad)
            #expect(problem?.contains(reason) == true, "\(bad.unicodeScalars.map { $0.value }): \(problem ?? "accepted")")
        }
        #expect(throws: AtollError(.invalidArgument, "the realm id contains the character U+0000 (a control character); use printable characters ('shopU+0000')")) {
            try RealmID.validate("shop\u{0}")
        }
    }

    @Test(arguments: RelayStoreKind.allCases) func aHelloWithAMalformedRealmIDIsRefusedWithAClearErrorFrame(store: RelayStoreKind) throws {
        let relay = try store.makeLocation().makeCore()
        var c: ConnectionID = 0
        func refused(_ realm: [UInt8], _ code: SyncErrorCode, _ text: String) {
            c += 1
            let (error, closed) = Self.answer(relay, Self.hello(realmBytes: realm), connection: c)
            #expect(error?.0 == code, "\(realm): \(String(describing: error))")
            #expect(error?.1.contains(text) == true, "\(realm): \(String(describing: error))")
            #expect(error?.1.contains("corrupted") == false)
            #expect(closed)
        }
        // Not UTF-8 at all: refused while decoding, never repaired into replacement characters.
        refused([0x73, 0x68, 0xFF, 0x70], .malformed, "the realm id is not valid UTF-8 (bytes 73 68 FF 70)")
        refused([0xC3], .malformed, "not valid UTF-8")
        refused([0xED, 0xA0, 0x80], .malformed, "not valid UTF-8")  // an encoded surrogate
        refused(Array(repeating: 0x61, count: RealmID.bytesMax + 1), .malformed, "257 bytes long, over the limit of 256 (realmIDBytesMax)")
        refused([], .invalidRealm, "the realm id is empty")
        refused(Array("shop\u{0}".utf8), .invalidRealm, "U+0000")
        refused(Array("cafe\u{301}".utf8), .invalidRealm, "normalization form C")
        #expect(try relay.status().isEmpty, "no realm was created")

        // At the limit: 256 bytes is a realm.
        c += 1
        let (error, closed) = Self.answer(relay, Self.hello(realmBytes: Array(repeating: 0x61, count: RealmID.bytesMax)), connection: c)
        #expect(error == nil && !closed)
        #expect(try relay.status().map(\.realmID) == [String(repeating: "a", count: RealmID.bytesMax)])
    }

    @Test(arguments: RelayStoreKind.allCases) func byteDifferentIDsThatReadTheSameNeverShareARealm(store: RelayStoreKind) throws {
        let relay = try store.makeLocation().makeCore()
        let composed = Array("caf\u{E9}".utf8)       // é as one scalar (NFC)
        let decomposed = Array("cafe\u{301}".utf8)   // e + combining acute: equal as Swift strings
        #expect(composed != decomposed)
        #expect(String(decoding: composed, as: UTF8.self) == String(decoding: decomposed, as: UTF8.self))
        #expect(Self.answer(relay, Self.hello(realmBytes: composed, node: NodeID(high: 1, low: 1)), connection: 1).error == nil)
        let second = Self.answer(relay, Self.hello(realmBytes: decomposed, node: NodeID(high: 2, low: 2)), connection: 2)
        #expect(second.error?.0 == .invalidRealm)
        // And bytes that are not UTF-8 are not repaired into an id that exists.
        _ = Self.answer(relay, Self.hello(realmBytes: Array("shop\u{FFFD}".utf8), node: NodeID(high: 3, low: 3)), connection: 3)
        let repaired = Self.answer(relay, Self.hello(realmBytes: Array("shop".utf8) + [0xFF], node: NodeID(high: 4, low: 4)), connection: 4)
        #expect(repaired.error?.0 == .malformed)
        #expect(try relay.status().map(\.realmID).sorted() == ["caf\u{E9}", "shop\u{FFFD}"])
        #expect(try relay.status().first { $0.realmID == "shop\u{FFFD}" }?.peers.count == 1)
    }

    @Test func malformedNetworkInputIsAProtocolViolationNotACorruptedFile() throws {
        // Every truncation of valid messages: the error is the peer's, and says nothing of files.
        let node = NodeID(high: 9, low: 9)
        let body = ChangesetContent(classes: ["Item"], properties: ["n"], instructions: [
            .set(ObjectAddress(classIndex: 0, primaryKey: .string("k")), property: 0, value: .value(.int(1))),
        ]).encode(origin: node)
        let frames = [
            Self.hello(realmBytes: Array("shop".utf8)),
            SyncMessage.upload([Changeset(origin: node, seq: 1, hlc: 1, body: body)]).frame,
            SyncMessage.error(code: .malformed, message: "x").frame,
        ]
        for frame in frames {
            for n in 0..<frame.payload.count {
                do {
                    _ = try SyncMessage(frame: Frame(kind: frame.kind, payload: Array(frame.payload.prefix(n))))
                } catch let error as AtollError {
                    #expect(error.kind == .protocolViolation)
                    #expect(!error.message.contains("corrupted"), "\(error)")
                    #expect(!error.message.contains("database"), "\(error)")
                }
            }
        }
        for n in 0..<body.count {
            do {
                _ = try ChangesetContent.decode(Array(body.prefix(n)), origin: node)
            } catch let error as AtollError {
                #expect(error.kind == .protocolViolation)
                #expect(!error.message.contains("corrupted"), "\(error)")
            }
        }
        // A class name that is not UTF-8 is refused, not repaired.
        var damaged = body
        if let at = damaged.firstIndex(of: UInt8(ascii: "I")) { damaged[at] = 0xFF }
        #expect { try ChangesetContent.decode(damaged, origin: node) } throws: { error in
            (error as? AtollError)?.kind == .protocolViolation && "\(error)".contains("UTF-8")
        }
    }

    @Test func aNodeRefusesAMalformedRealmIDInItsConfiguration() throws {
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: "node-\(UUID())"))
        #expect { try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "cafe\u{301}")) } throws: { error in
            (error as? AtollError)?.kind == .invalidArgument && "\(error)".contains("normalization form C")
        }
        #expect { try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "")) } throws: { error in
            (error as? AtollError)?.kind == .invalidArgument && "\(error)".contains("empty")
        }
    }
}
