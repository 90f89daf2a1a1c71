import AtollStorage
import Foundation
import Synchronization
import Testing
@testable import AtollSync
import AtollTestSupport

/// Who may sync what (docs/AUTH.md), against `atoll-relay serve` run as a real process over TLS:
/// JSON Web Token, certificate and static-token identities, the rules file, SIGHUP reloads and
/// the token provider of a node whose token expires.
@Suite(.serialized, .timeLimit(.minutes(5 * Int(ThreadSanitizer.slowdown)))) struct AuthRelayTests {
    /// The issue's example rules.
    static let rules = """
        {"rules": [
          {"realm": "user/{sub}", "read": true, "write": true},
          {"realm": "team/{claims.team}", "read": true, "write": true, "writeClasses": ["Task"]},
          {"realm": "catalog", "read": true, "write": false}
        ]}
        """

    struct Setup {
        let pki: TestPKI
        let issuer: TestTokenIssuer
        let relay: RelayCommandTests.Relay
        let rulesPath: String

        func client(_ token: String) throws -> FrameClient {
            try FrameClient(host: "127.0.0.1", port: relay.port, tls: ClientTLSConfiguration(caPath: pki.ca, credentials: .token(token)),
                            configuration: transportConfiguration(LogCapture()))
        }

        func token(_ subject: String, _ kind: TestTokenIssuer.Kind = .es256, extra: [String: Any] = [:]) throws -> String {
            try issuer.token(kind, claims: TestTokenIssuer.claims(subject, extra: extra))
        }

        func stop() {
            relay.process.signal(SIGTERM)
            _ = relay.process.wait(timeout: 10)
        }

        /// The realms' heads from the status endpoint (what the relay has stored).
        func heads() throws -> [String: UInt64] {
            let port = try #require(relay.statusPort)
            let result = try RelayProcess.run(["status", "--status", "127.0.0.1:\(port)", "--json"], in: pki.directory)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            var heads: [String: UInt64] = [:]
            for realm in json["realms"] as? [[String: Any]] ?? [] {
                if let id = realm["id"] as? String, let head = realm["head"] as? NSNumber { heads[id] = head.uint64Value }
            }
            return heads
        }
    }

    /// A relay admitting JSON Web Tokens of every key kind (audience atoll-test, issuer
    /// test-issuer), with `rules` (nil: none).
    func startRelay(rules: String? = AuthRelayTests.rules, extra: [String] = []) throws -> Setup {
        let pki = try TestPKI()
        let issuer = try TestTokenIssuer()
        let keys = pki.directory.file("jwks.json")
        try issuer.keySetJSON().write(toFile: keys, atomically: true, encoding: .utf8)
        let rulesPath = pki.directory.file("rules.json")
        var arguments = ["--jwt-keys", keys, "--jwt-audience", "atoll-test", "--jwt-issuer", "test-issuer"] + extra
        if let rules {
            try rules.write(toFile: rulesPath, atomically: true, encoding: .utf8)
            arguments += ["--rules", rulesPath]
        }
        let relay = try RelayCommandTests().startRelay(pki, status: true, extra: arguments)
        return Setup(pki: pki, issuer: issuer, relay: relay, rulesPath: rulesPath)
    }

    /// Connects with `token`, says hello for `realm` as `node`, then sends `uploads` (sequence
    /// numbers) one at a time; returns every message the relay sent until it closed or until
    /// the last upload was answered.
    ///
    /// On a loaded machine this process may not get to send its hello within the relay's 10 s
    /// handshake deadline, and the relay closes the connection: such an attempt, which reached no
    /// welcome, is made again (at most 4 times; uploads are idempotent per node and sequence).
    func session(_ setup: Setup, token: String, realm: String, node: NodeID = .random(), uploads: [UInt64] = []) async throws -> [SyncMessage] {
        var attempt = 1
        while true {
            do {
                return try await sessionOnce(setup, token: token, realm: realm, node: node, uploads: uploads)
            } catch let error as AtollError where attempt < 4 && [.closed, .connectionFailed, .timeout].contains(error.kind) {
                attempt += 1
            }
        }
    }

    private func sessionOnce(_ setup: Setup, token: String, realm: String, node: NodeID, uploads: [UInt64]) async throws -> [SyncMessage] {
        let client = try setup.client(token)
        let sender = ProtocolNode(name: "n-\(node.description.prefix(6))", realm: realm, client: client, nodeID: node)
        let messages: [SyncMessage]
        do {
            messages = try await exchange(client, sender, uploads: uploads)
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
        return messages
    }

    /// Acknowledges a download. The relay may already have refused a later upload and closed
    /// the connection (a download can arrive after the acknowledgement of its upload): the
    /// refusal is still in the inbound frames, so a send to a closed connection is not an error.
    static func acknowledge(_ cursor: UInt64, on connection: FrameConnection) async throws {
        do {
            try await connection.send(SyncMessage.downloadAck(cursor: cursor, resend: false).frame)
        } catch let error as AtollError where error.kind == .closed {
            return
        }
    }

    private func exchange(_ client: FrameClient, _ sender: ProtocolNode, uploads: [UInt64]) async throws -> [SyncMessage] {
        try await client.connect { connection in
            var messages: [SyncMessage] = []
            var inbound = connection.inbound.makeAsyncIterator()
            func next() async throws -> SyncMessage? {
                while let frame = try await inbound.next() {
                    let message = try SyncMessage(frame: frame)
                    if case .download = message {
                        // Keep the relay's window open; downloads are not what these tests check.
                        if case .download(_, let to, _, _) = message { try await Self.acknowledge(to, on: connection) }
                        continue
                    }
                    messages.append(message)
                    return message
                }
                return nil
            }
            try await connection.send(sender.helloFrame())
            guard let first = try await next() else {
                throw AtollError(.closed, "the relay closed the connection before answering the hello")
            }
            guard case .welcome = first else { return messages }
            for seq in uploads {
                try await connection.send(sender.uploadFrame(seq: seq))
                guard case .uploadAck? = try await next() else { return messages }
            }
            return messages
        }
    }

    static func refusal(_ messages: [SyncMessage]) -> (code: SyncErrorCode, text: String)? {
        for case .error(let code, let text) in messages { return (code, text) }
        return nil
    }

    static func welcome(_ messages: [SyncMessage]) -> SyncMessage.Welcome? {
        for case .welcome(let w) in messages { return w }
        return nil
    }

    // MARK: identities

    @Test func eachKeyKindAdmitsItsTokenAndTheIdentityShowsInLogsAndStatus() async throws {
        let setup = try startRelay(rules: nil)
        defer { setup.stop() }
        for kind in TestTokenIssuer.Kind.allCases {
            let subject = "alice-\(kind.rawValue.lowercased())"
            let messages = try await session(setup, token: try setup.token(subject, kind, extra: ["team": "red"]), realm: "user/\(subject)", uploads: [1])
            #expect(Self.welcome(messages) != nil, "\(kind): \(messages)")
            #expect(messages.contains(.uploadAck(through: 1, resend: false)), "\(kind): \(messages)")
            #expect(setup.relay.process.stderr.contains("admitted \(subject) (jwt, 127.0.0.1:"), "\(kind)")
        }
        // A connected peer is listed with its claims.
        let client = try setup.client(try setup.token("carol", extra: ["team": "blue"]))
        var listed = ""
        try await client.connect { _ in
            let port = try #require(setup.relay.statusPort)
            let deadline = ContinuousClock.now + .seconds(8)
            repeat {
                listed = try await offPool { try RelayProcess.run(["status", "--status", "127.0.0.1:\(port)"], in: setup.pki.directory) }.stdout
                if listed.contains("jwt carol; claims") { break }
                try await Task.sleep(for: .milliseconds(200))
            } while ContinuousClock.now < deadline
        }
        try await client.shutdown()
        #expect(listed.contains("jwt carol; claims aud=atoll-test iss=test-issuer team=blue"), "\(listed)")
        #expect(setup.relay.process.stderr.contains("no --rules: every admitted peer may read and write every realm"))
    }

    @Test func forgedExpiredEarlyForeignUnsignedAndWrongKeyTokensAreRefusedAndLogged() async throws {
        let setup = try startRelay()
        defer { setup.stop() }
        let issuer = setup.issuer
        let now = Int(Date().timeIntervalSince1970)
        let base = TestTokenIssuer.claims("mallory")
        func with(_ changes: [String: Any], removing: [String] = []) -> [String: Any] {
            var claims = base
            for (k, v) in changes { claims[k] = v }
            for k in removing { claims[k] = nil }
            return claims
        }
        let cases: [(what: String, token: String, kind: AtollError.Kind, message: String)] = [
            ("forged", try issuer.token(.es256, claims: base, signWith: .eddsa), .authenticationFailed, "signature does not verify with key 'key-es256'"),
            ("expired", try issuer.token(.rs256, claims: with(["exp": now - 3600])), .tokenExpired, "the token expired at"),
            ("not yet valid", try issuer.token(.eddsa, claims: with(["nbf": now + 3600])), .authenticationFailed, "not valid before"),
            ("wrong audience", try issuer.token(.hs256, claims: with(["aud": "another-app"])), .authenticationFailed, "is for audience another-app, not 'atoll-test'"),
            ("wrong issuer", try issuer.token(.es256, claims: with(["iss": "someone-else"])), .authenticationFailed, "issued by 'someone-else', not 'test-issuer'"),
            ("no expiry", try issuer.token(.es256, claims: with([:], removing: ["exp"])), .authenticationFailed, "has no expiry (exp)"),
            ("alg none", try TestTokenIssuer.unsigned(claims: base, kid: TestTokenIssuer.Kind.es256.kid), .authenticationFailed, "unsigned (alg: none)"),
            ("unknown kid", try issuer.token(.es256, claims: base, header: ["kid": "key-unknown"]), .authenticationFailed, "key id (kid) 'key-unknown' is not in the relay's key set"),
            // The classic confusion: an HMAC token naming an RSA key.
            ("wrong key type", try issuer.token(.hs256, claims: base, header: ["kid": TestTokenIssuer.Kind.rs256.kid]), .authenticationFailed,
             "signed with HS256, but key 'key-rs256' is a RS256 key"),
            ("not a JWT", "just-some-text", .authenticationFailed, "not a JSON Web Token"),
        ]
        for c in cases {
            let client = try setup.client(c.token)
            do {
                try await client.connect { _ in }
                Issue.record("\(c.what): the token was admitted")
            } catch let error as AtollError {
                #expect(error.kind == c.kind, "\(c.what): \(error)")
                #expect(error.message.contains(c.message), "\(c.what): \(error)")
            }
            try await client.shutdown()
        }
        // Each refusal is one log line naming the reason; nothing was stored.
        let stderr = setup.relay.process.stderr
        for c in cases {
            #expect(stderr.split(separator: "\n").contains { $0.contains("refused connection from 127.0.0.1:") && $0.contains(c.message) }, "\(c.what): \(stderr)")
        }
        #expect(try setup.heads().isEmpty)
    }

    @Test func certificateAndStaticTokenIdentitiesFillSubInTheRules() async throws {
        let pki = try TestPKI()
        let rulesPath = pki.directory.file("rules.json")
        try #"{"rules": [{"realm": "user/{sub}", "read": true, "write": true}]}"#.write(toFile: rulesPath, atomically: true, encoding: .utf8)
        let relay = try RelayCommandTests().startRelay(pki, extra: ["--ca", pki.ca, "--rules", rulesPath])
        func hello(_ realm: String) async throws -> [SyncMessage] {
            let client = try FrameClient(host: "127.0.0.1", port: relay.port, tls: pki.client("node-a"), configuration: transportConfiguration(LogCapture()))
            let node = ProtocolNode(name: "a", realm: realm, client: client)
            let reply = try await client.connect { connection in
                try await connection.send(node.helloFrame())
                var inbound = connection.inbound.makeAsyncIterator()
                return try await inbound.next().map { try SyncMessage(frame: $0) }
            }
            try await client.shutdown()
            return reply.map { [$0] } ?? []
        }
        #expect(Self.welcome(try await hello("user/node-a"))?.permission == RealmPermission(read: true, write: true))
        #expect(Self.refusal(try await hello("user/node-b"))?.code == .permissionDenied)
        relay.process.signal(SIGTERM)
        #expect(relay.process.wait(timeout: 10) == 0)

        // Static tokens (development) are named by the token file.
        let tokens = pki.directory.file("tokens")
        try "dev tok-dev-123\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        let tokenRelay = try RelayCommandTests().startRelay(pki, extra: ["--tokens", tokens, "--rules", rulesPath])
        defer {
            tokenRelay.process.signal(SIGTERM)
            _ = tokenRelay.process.wait(timeout: 10)
        }
        let setup = Setup(pki: pki, issuer: try TestTokenIssuer(), relay: tokenRelay, rulesPath: rulesPath)
        #expect(Self.welcome(try await session(setup, token: "tok-dev-123", realm: "user/dev", uploads: [1])) != nil)
        let denied = Self.refusal(try await session(setup, token: "tok-dev-123", realm: "user/other"))
        #expect(denied?.code == .permissionDenied)
        #expect(denied?.text == "'dev' may not sync realm 'user/other'")
    }

    // MARK: permissions

    @Test func theRulesDecideWhoReadsAndWritesWhichRealmAndRefusalsStoreNothing() async throws {
        let setup = try startRelay()
        defer { setup.stop() }
        let alice = try setup.token("alice", extra: ["team": "red"])
        let bob = try setup.token("bob", .rs256, extra: ["team": "blue"])
        let bobNode = NodeID.random()

        // Own realm: read and write.
        let own = try await session(setup, token: alice, realm: "user/alice", uploads: [1, 2])
        #expect(Self.welcome(own)?.permission == RealmPermission(read: true, write: true))
        #expect(own.contains(.uploadAck(through: 2, resend: false)))
        #expect(Self.welcome(try await session(setup, token: bob, realm: "user/bob", node: bobNode, uploads: [1]))?.permission?.write == true)

        // Another user's realm: refused the same way whether or not it exists.
        let existing = Self.refusal(try await session(setup, token: alice, realm: "user/bob"))
        let missing = Self.refusal(try await session(setup, token: alice, realm: "user/nobody"))
        #expect(existing?.code == .permissionDenied)
        #expect(existing?.text == "'alice' may not sync realm 'user/bob'")
        #expect(missing?.text == "'alice' may not sync realm 'user/nobody'")
        // No rule matches: no access either.
        #expect(Self.refusal(try await session(setup, token: alice, realm: "elsewhere"))?.code == .permissionDenied)

        // Read-only: the handshake says so, and an upload is refused whole.
        let catalog = try await session(setup, token: alice, realm: "catalog", uploads: [1])
        #expect(Self.welcome(catalog)?.permission == RealmPermission(read: true, write: false))
        #expect(Self.refusal(catalog)?.code == .permissionDenied)
        #expect(Self.refusal(catalog)?.text == "changeset 1 was refused: realm 'catalog' is read-only for 'alice'; nothing of this upload was stored")

        // writeClasses: the team realm takes Task changes only; this node changes Item.
        let team = try await session(setup, token: alice, realm: "team/red", uploads: [1])
        #expect(Self.welcome(team)?.permission == RealmPermission(read: true, write: true, writeClasses: ["Task"]))
        #expect(Self.refusal(team)?.text.contains("changeset 1 was refused: it changes class 'Item', which 'alice' may not write in realm 'team/red'") == true)

        // Nothing of the refused uploads was stored; the other user's realm went on.
        let heads = try setup.heads()
        #expect(heads["catalog"] == 0 || heads["catalog"] == nil, "\(heads)")
        #expect(heads["team/red"] == 0 || heads["team/red"] == nil, "\(heads)")
        #expect(heads["user/alice"] == 2)
        #expect(heads["user/bob"] == 1)
        #expect(heads["user/nobody"] == nil, "a refused hello created realm user/nobody")
        let bobAgain = try await session(setup, token: bob, realm: "user/bob", node: bobNode, uploads: [2])
        #expect(bobAgain.contains(.uploadAck(through: 2, resend: false)), "\(bobAgain)")
        let stderr = setup.relay.process.stderr
        #expect(stderr.contains("refused alice (jwt, 127.0.0.1:"))
        #expect(stderr.contains("changeset 1 was refused: realm 'catalog' is read-only for 'alice'"))
    }

    @Test func sighupReloadsTheRulesAndARemovedWritePermissionAppliesAtTheNextUpload() async throws {
        let setup = try startRelay(rules: #"{"rules": [{"realm": "shared", "read": true, "write": true}]}"#)
        defer { setup.stop() }
        let token = try setup.token("alice")
        let client = try setup.client(token)
        let node = ProtocolNode(name: "a", realm: "shared", client: client)
        let messages: [SyncMessage] = try await client.connect { connection in
            var seen: [SyncMessage] = []
            var inbound = connection.inbound.makeAsyncIterator()
            func next() async throws -> SyncMessage? {
                while let frame = try await inbound.next() {
                    let m = try SyncMessage(frame: frame)
                    if case .download(_, let to, _, _) = m {
                        try await Self.acknowledge(to, on: connection)
                        continue
                    }
                    seen.append(m)
                    return m
                }
                return nil
            }
            try await connection.send(node.helloFrame())
            _ = try await next()
            try await connection.send(node.uploadFrame(seq: 1))
            _ = try await next()
            // The permission goes while the session is open.
            try #"{"rules": [{"realm": "shared", "read": true, "write": false}]}"#.write(toFile: setup.rulesPath, atomically: true, encoding: .utf8)
            setup.relay.process.signal(SIGHUP)
            let deadline = ContinuousClock.now + .seconds(10)
            while !setup.relay.process.stderr.contains("SIGHUP: reloaded"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            try await connection.send(node.uploadFrame(seq: 2))
            _ = try await next()
            return seen
        }
        try await client.shutdown()
        #expect(messages.contains(.uploadAck(through: 1, resend: false)), "\(messages)")
        #expect(Self.refusal(messages)?.text.hasPrefix("changeset 2 was refused: realm 'shared' is read-only") == true, "\(messages)")
        #expect(try setup.heads()["shared"] == 1)
        // The next handshake gets the new permission.
        #expect(Self.welcome(try await session(setup, token: token, realm: "shared"))?.permission == RealmPermission(read: true, write: false))

        // A rules file that no longer parses keeps the rules in force.
        try #"{"rules": [{"realm": "shared", "read": true, "admin": true}]}"#.write(toFile: setup.rulesPath, atomically: true, encoding: .utf8)
        setup.relay.process.signal(SIGHUP)
        let deadline = ContinuousClock.now + .seconds(10)
        while !setup.relay.process.stderr.contains("SIGHUP: kept the previous rules"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(setup.relay.process.stderr.contains("SIGHUP: kept the previous rules"))
        #expect(Self.welcome(try await session(setup, token: token, realm: "shared"))?.permission == RealmPermission(read: true, write: false))
    }

    @Test func aBadRulesOrKeyFileStopsTheRelayAtStartWithOneLine() throws {
        let pki = try TestPKI()
        let issuer = try TestTokenIssuer()
        let keys = pki.directory.file("jwks.json")
        try issuer.keySetJSON().write(toFile: keys, atomically: true, encoding: .utf8)
        let rules = pki.directory.file("rules.json")
        let base = ["serve", "--db", pki.directory.file("r.atoll"), "--listen", "127.0.0.1:0", "--cert", pki.directory.file("relay.pem"),
                    "--key", pki.directory.file("relay-key.pem"), "--jwt-keys", keys, "--jwt-audience", "atoll-test", "--rules", rules]
        let cases: [(rules: String, message: String)] = [
            (#"{"rules": [{"realm": "catalog", "read": true, "admin": true}]}"#, "rule 1: unknown field 'admin'"),
            (#"{"rules": [{"realm": "catalog", "read": true}], "version": 2}"#, "unknown field 'version'"),
            (#"{"rules": [{"realm": "catalog", "read": "yes"}]}"#, "must be true or false"),
            (#"{"rules": [{"realm": "user/{name}", "read": true}]}"#, "unknown placeholder '{name}'"),
            (#"{"rules": [{"realm": "catalog", "read": false, "write": true}]}"#, "'write' needs 'read'"),
            (#"{"rules": [{"realm": "catalog", "read": true"#, "not valid JSON"),
        ]
        for c in cases {
            try c.rules.write(toFile: rules, atomically: true, encoding: .utf8)
            let result = try RelayProcess.run(base, in: pki.directory)
            #expect(result.status == 1, "\(c.rules): \(result.stderr)")
            #expect(result.stderr.contains("rules file '\(rules)'"), "\(c.rules): \(result.stderr)")
            #expect(result.stderr.contains(c.message), "\(c.rules): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(c.rules): \(result.stderr)")
        }
        // A key set with a private key in it, or a key of an unknown type.
        try #"{"rules": []}"#.write(toFile: rules, atomically: true, encoding: .utf8)
        let keyCases: [(keys: String, message: String)] = [
            (#"{"keys": [{"kty": "EC", "kid": "k", "crv": "P-256", "x": "AA", "y": "AA", "d": "AA"}]}"#, "holds a private key"),
            (#"{"keys": [{"kty": "XYZ", "kid": "k"}]}"#, "key type 'XYZ' is not supported"),
            (#"{"keys": [{"kty": "oct", "kid": "k", "k": "c2hvcnQ"}]}"#, "at least 32 bytes"),
            (#"{"nokeys": 1}"#, "is not a JSON Web Key Set"),
        ]
        for c in keyCases {
            try c.keys.write(toFile: keys, atomically: true, encoding: .utf8)
            let result = try RelayProcess.run(base, in: pki.directory)
            #expect(result.status == 1, "\(c.keys): \(result.stderr)")
            #expect(result.stderr.contains(c.message), "\(c.keys): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(c.keys): \(result.stderr)")
        }
    }

    // MARK: expiry

    @Test func aConnectionIsClosedWhenItsTokenExpiresAndTheProviderIsAskedForAFreshOne() async throws {
        let setup = try startRelay(rules: nil, extra: ["--jwt-clock-skew-seconds", "0"])
        defer { setup.stop() }
        let asked = CallCounter()
        let issuer = setup.issuer
        let provider: TokenProvider = {
            // The first token lives 2 seconds; the ones after it an hour.
            let n = asked.increment()
            var claims = TestTokenIssuer.claims("alice")
            if n == 1 { claims["exp"] = Int(Date().timeIntervalSince1970) + 2 }
            return try issuer.token(.eddsa, claims: claims)
        }
        let client = try FrameClient(host: "127.0.0.1", port: setup.relay.port,
                                     tls: ClientTLSConfiguration(caPath: setup.pki.ca, credentials: .tokenProvider(provider)),
                                     configuration: transportConfiguration(LogCapture()))
        let events = EventLog()
        let task = Task {
            await client.run(reconnect: ReconnectPolicy(delayInitial: .milliseconds(50), delayMax: .milliseconds(200)), onEvent: { events.append($0) }) { connection in
                if events.connections >= 2 { return }
                for try await _ in connection.inbound {}
            }
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while events.connections < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        task.cancel()
        await task.value
        try await client.shutdown()
        #expect(events.connections >= 2, "\(events.all)")
        #expect(events.all.contains { if case .disconnected(let e?) = $0 { e.kind == .tokenExpired } else { false } }, "\(events.all)")
        #expect(asked.value >= 2)
        #expect(setup.relay.process.stderr.contains("the token of 'alice' expired"))
    }
}

final class CallCounter: Sendable {
    private let count = AtollLock(0)
    func increment() -> Int { count.withLock { $0 += 1; return $0 } }
    var value: Int { count.withLock { $0 } }
}

final class EventLog: Sendable {
    private let events = AtollLock<[ClientEvent]>([])
    func append(_ event: ClientEvent) { events.withLock { $0.append(event) } }
    var all: [ClientEvent] { events.withLock { $0 } }
    var connections: Int { all.filter { if case .connected = $0 { true } else { false } }.count }
}
