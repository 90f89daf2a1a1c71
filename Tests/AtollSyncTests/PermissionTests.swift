import AtollStorage
@testable import AtollSync
import Foundation
import Testing
import AtollTestSupport

/// The relay's permission rules (docs/AUTH.md): the file format, how patterns match identities,
/// and the relay core's enforcement at `hello` and at each upload, without I/O.
@Suite struct PermissionTests {
    static let example = """
        {"rules": [
          {"realm": "user/{sub}", "read": true, "write": true},
          {"realm": "team/{claims.team}", "read": true, "write": true, "writeClasses": ["Task"]},
          {"realm": "catalog", "read": true, "write": false}
        ]}
        """

    static func jwt(_ subject: String, claims: [String: String] = [:]) -> PeerIdentity {
        PeerIdentity(name: subject, method: .jwt, address: "127.0.0.1:1", claims: claims)
    }

    // MARK: the rules

    @Test func theFirstMatchingRuleDecidesAndNoMatchMeansNoAccess() throws {
        let rules = try AccessRules(json: Array(Self.example.utf8))
        let alice = Self.jwt("alice", claims: ["team": "red"])
        #expect(rules.permission(for: "user/alice", identity: alice) == .full)
        #expect(rules.permission(for: "user/bob", identity: alice) == .none)
        #expect(rules.permission(for: "team/red", identity: alice) == RealmPermission(read: true, write: true, writeClasses: ["Task"]))
        #expect(rules.permission(for: "team/blue", identity: alice) == .none)
        #expect(rules.permission(for: "catalog", identity: alice) == RealmPermission(read: true, write: false))
        #expect(rules.permission(for: "elsewhere", identity: alice) == .none)
        // Without the claim, the team rule matches nothing (not "team/").
        #expect(rules.permission(for: "team/", identity: Self.jwt("carol")) == .none)
        // A certificate's common name fills {sub}.
        let certificate = PeerIdentity(name: "node-a", method: .certificate, address: "x", alternativeNames: ["node-a.example"])
        #expect(rules.permission(for: "user/node-a", identity: certificate) == .full)
        // Order matters: an earlier read-only rule wins over a later read-write one.
        let ordered = try AccessRules(json: Array(#"{"rules": [{"realm": "catalog", "read": true}, {"realm": "catalog", "read": true, "write": true}]}"#.utf8))
        #expect(ordered.permission(for: "catalog", identity: alice) == RealmPermission(read: true, write: false))
        #expect(RealmPermission(read: true, write: true, writeClasses: ["Task"]).mayWrite("Task"))
        #expect(!RealmPermission(read: true, write: true, writeClasses: ["Task"]).mayWrite("Item"))
    }

    @Test func aMalformedRulesFileIsRefusedSayingWhatAndWhere() {
        let cases: [(json: String, message: String)] = [
            (#"{"rules": [{"realm": "a", "read": true, "owner": "x"}]}"#, "rule 1: unknown field 'owner'"),
            (#"{"rules": [], "extra": 1}"#, "unknown field 'extra'"),
            (#"{"rules": [{"read": true}]}"#, "'realm' is missing"),
            (#"{"rules": [{"realm": "a", "read": 1}]}"#, "must be true or false"),
            (#"{"rules": [{"realm": "a/{sub", "read": true}]}"#, "a '{' without '}'"),
            (#"{"rules": [{"realm": "a/{claims.}", "read": true}]}"#, "unknown placeholder"),
            (#"{"rules": [{"realm": "a", "write": true}]}"#, "'write' needs 'read'"),
            (#"{"rules": [{"realm": "a", "read": true, "writeClasses": ["T"]}]}"#, "'writeClasses' needs"),
            (#"{"rules": [{"realm": "a", "read": true"#, "not valid JSON"),
        ]
        for c in cases {
            do {
                _ = try AccessRules(json: Array(c.json.utf8))
                Issue.record("accepted \(c.json)")
            } catch let error as AtollError {
                #expect(error.kind == .invalidInput, "\(c.json): \(error)")
                #expect(error.message.contains(c.message), "\(c.json): \(error)")
            } catch {
                Issue.record("\(c.json): not an AtollError: \(error)")
            }
        }
    }

    // MARK: the wire

    @Test func aWelcomeCarriesThePermissionAndMalformedPermissionBytesAreAProtocolViolation() throws {
        let relay = NodeID(high: 1, low: 2)
        for permission in [RealmPermission(read: true, write: false), .full, RealmPermission(read: true, write: true, writeClasses: ["Task", "Note"]), nil] {
            let welcome = SyncMessage.welcome(.init(relayID: relay, uploadedThrough: 1, head: 5, start: 2, permission: permission))
            #expect(try SyncMessage(frame: welcome.frame) == welcome)
        }
        let error = SyncMessage.error(code: .permissionDenied, message: "no")
        #expect(try SyncMessage(frame: error.frame) == error)
        let good = SyncMessage.welcome(.init(relayID: relay, uploadedThrough: 1, head: 5, start: 2, permission: RealmPermission(read: true, write: true, writeClasses: ["T"]))).frame
        // Permission bits beyond the three defined, a class count past the bytes, a cut frame.
        var badBits = good
        badBits.payload[badBits.payload.count - 4] = 0xF0
        var badCount = good
        badCount.payload[badCount.payload.count - 3] = 200
        let cut = Frame(kind: good.kind, payload: Array(good.payload.dropLast(2)))
        for frame in [badBits, badCount, cut] {
            #expect(throws: AtollError.self) { try SyncMessage(frame: frame) }
            do { _ = try SyncMessage(frame: frame) } catch let e as AtollError { #expect(e.kind == .protocolViolation) }
        }
    }

    // MARK: the relay core

    /// A relay core on a store of `kind`: the rules are enforced in the core, the same for both.
    struct Relay {
        let location: RelayStoreLocation
        let core: RelayCore
        let fingerprint = [UInt8](repeating: 7, count: 16)

        init(_ kind: RelayStoreKind = .file, rules: String?) throws {
            location = try kind.makeLocation()
            core = try location.makeCore(configuration: RelayConfiguration())
            core.accessRules = try rules.map { try AccessRules(json: Array($0.utf8)) }
        }

        func hello(_ c: ConnectionID, _ identity: PeerIdentity, realm: String, node: NodeID, version: UInt32 = syncProtocolVersion) -> [SyncMessage] {
            _ = core.connected(c, identity: identity, now: 0)
            let hello = SyncMessage.hello(.init(protocolVersion: version, nodeID: node, realmID: realm, schemaFingerprint: fingerprint,
                                                cursor: .start, versionVector: VersionVector()))
            return Self.messages(core.receive(hello.frame, from: c, now: 0), to: c)
        }

        func upload(_ c: ConnectionID, node: NodeID, seq: UInt64, className: String) -> [SyncMessage] {
            Self.messages(uploadActions(c, node: node, seq: seq, className: className), to: c)
        }

        func uploadActions(_ c: ConnectionID, node: NodeID, seq: UInt64, className: String) -> [RelayAction] {
            let body = ChangesetContent(classes: [className], properties: ["n"], instructions: [
                .set(ObjectAddress(classIndex: 0, primaryKey: .string("k\(seq)")), property: 0, value: .value(.int(Int64(seq)))),
            ]).encode(origin: node)
            let hlc = HybridLogicalClock.reading(physical: UInt64(Date().timeIntervalSince1970 * 1000))
            return core.receive(SyncMessage.upload([Changeset(origin: node, seq: seq, hlc: hlc, body: body)]).frame, from: c, now: 0)
        }

        static func messages(_ actions: [RelayAction], to c: ConnectionID) -> [SyncMessage] {
            actions.compactMap { a in
                if case .send(let to, let f) = a, to == c { return try? SyncMessage(frame: f) }
                return nil
            }
        }

        func head(_ realm: String) throws -> UInt64? { try core.status().first { $0.realmID == realm }?.head }
    }

    @Test(arguments: RelayStoreKind.allCases)
    func aHelloForARealmTheIdentityMayNotReadIsRefusedWithoutTouchingTheStore(_ kind: RelayStoreKind) throws {
        let relay = try Relay(kind, rules: Self.example)
        let bob = NodeID(high: 2, low: 2)
        #expect(relay.hello(1, Self.jwt("bob"), realm: "user/bob", node: bob).first.map { if case .welcome = $0 { true } else { false } } == true)
        let mallory = NodeID(high: 3, low: 3)
        let existing = relay.hello(2, Self.jwt("mallory"), realm: "user/bob", node: mallory)
        let missing = relay.hello(3, Self.jwt("mallory"), realm: "user/zed", node: mallory)
        #expect(existing == [.error(code: .permissionDenied, message: "'mallory' may not sync realm 'user/bob'")])
        #expect(missing == [.error(code: .permissionDenied, message: "'mallory' may not sync realm 'user/zed'")])
        #expect(try relay.head("user/zed") == nil, "a refused hello created the realm")
        // A connection without an identity matches only literal patterns.
        _ = relay.core.connected(4, now: 0)
        let anonymous = SyncMessage.hello(.init(nodeID: mallory, realmID: "catalog", schemaFingerprint: relay.fingerprint, cursor: .start, versionVector: VersionVector()))
        let answer = Relay.messages(relay.core.receive(anonymous.frame, from: 4, now: 0), to: 4)
        #expect(answer.first.map { if case .welcome(let w) = $0 { w.permission == RealmPermission(read: true, write: false) } else { false } } == true)
    }

    @Test func theWelcomeTellsAVersion2NodeItsPermissionAndAVersion1NodeNothing() throws {
        let relay = try Relay(rules: Self.example)
        let v2 = relay.hello(1, Self.jwt("alice", claims: ["team": "red"]), realm: "team/red", node: NodeID(high: 1, low: 1), version: 2)
        let v1 = relay.hello(2, Self.jwt("alice", claims: ["team": "red"]), realm: "team/red", node: NodeID(high: 1, low: 2), version: 1)
        guard case .welcome(let w2)? = v2.first, case .welcome(let w1)? = v1.first else {
            Issue.record("no welcome: \(v2) \(v1)")
            return
        }
        #expect(w2.protocolVersion == 2)
        #expect(w2.permission == RealmPermission(read: true, write: true, writeClasses: ["Task"]))
        #expect(w1.protocolVersion == 1)
        #expect(w1.permission == nil)
        // Without rules, nobody is told anything (and everything is allowed).
        let open = try Relay(rules: nil)
        guard case .welcome(let w)? = open.hello(1, Self.jwt("x"), realm: "any", node: NodeID(high: 9, low: 9)).first else {
            Issue.record("no welcome")
            return
        }
        #expect(w.permission == nil)
    }

    @Test(arguments: RelayStoreKind.allCases)
    func anUploadChangingWhatTheIdentityMayNotWriteIsRefusedWholeAndNotForwarded(_ kind: RelayStoreKind) throws {
        let relay = try Relay(kind, rules: Self.example)
        let alice = NodeID(high: 1, low: 1), reader = NodeID(high: 5, low: 5)
        let identity = Self.jwt("alice", claims: ["team": "red"])
        _ = relay.hello(1, identity, realm: "team/red", node: alice)
        _ = relay.hello(2, Self.jwt("bob", claims: ["team": "red"]), realm: "team/red", node: reader)

        // A Task change is stored, acknowledged and forwarded to the other node.
        let allowedActions = relay.uploadActions(1, node: alice, seq: 1, className: "Task")
        #expect(Relay.messages(allowedActions, to: 1).contains(.uploadAck(through: 1, resend: false)), "\(allowedActions)")
        #expect(Relay.messages(allowedActions, to: 2).contains { if case .download(_, _, _, let cs) = $0 { cs.count == 1 } else { false } })
        #expect(try relay.head("team/red") == 1)
        // An Item change is outside writeClasses: refused whole, naming the changeset and class,
        // and the other node gets nothing.
        let refusedActions = relay.uploadActions(1, node: alice, seq: 2, className: "Item")
        #expect(Relay.messages(refusedActions, to: 2).isEmpty)
        #expect(refusedActions.last == .close(1))
        let refused = Relay.messages(refusedActions, to: 1)
        #expect(refused.count == 1)
        guard case .error(let code, let text)? = refused.first else {
            Issue.record("not refused: \(refused)")
            return
        }
        #expect(code == .permissionDenied)
        #expect(text.hasPrefix("changeset 2 was refused: it changes class 'Item', which 'alice' may not write in realm 'team/red' (writable: Task)"))
        #expect(try relay.head("team/red") == 1)

        // Read-only: the rules change while the session is open; the next upload is refused.
        relay.core.accessRules = try AccessRules(json: Array(#"{"rules": [{"realm": "team/{claims.team}", "read": true}]}"#.utf8))
        _ = relay.hello(3, identity, realm: "team/red", node: alice)
        let readOnly = relay.upload(3, node: alice, seq: 2, className: "Task")
        #expect(readOnly == [.error(code: .permissionDenied, message: "changeset 2 was refused: realm 'team/red' is read-only for 'alice'; nothing of this upload was stored")])
        #expect(try relay.head("team/red") == 1)
    }
}
