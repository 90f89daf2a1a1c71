import AtollStorage
public import AtollSync
import Foundation
import JWTKit
import Synchronization

/// Verifies JSON Web Tokens (RFC 7519) against a JSON Web Key Set file: the relay's
/// `--jwt-keys`, `--jwt-audience`, `--jwt-issuer` (docs/AUTH.md).
///
/// Each key in the set has a `kid` and one algorithm, fixed by its type: `RSA` keys verify
/// RS256, `EC` P-256 keys ES256, `OKP` Ed25519 keys EdDSA, `oct` secrets HS256 (for
/// development). Before any signature is checked the header must name a known `kid` (a set of
/// one key may omit it) and exactly that key's algorithm: `alg: none`, an unknown `kid` and a
/// token made for another kind of key are refused there. jwt-kit then checks the signature, and
/// this type checks the claims with its own clear messages: `exp` (required), `nbf`, `aud` (must
/// contain the configured audience) and `iss` (when configured); `exp` and `nbf` with
/// `clockSkewSeconds` of leeway. An admitted connection is closed when its token expires
/// (`AuthenticatedToken.expires`: `exp` plus the leeway, the moment a handshake would refuse it).
///
/// `reload()` reads the key file again (SIGHUP): tokens are verified with the new set from
/// then on; a file that does not load leaves the old set in force.
public final class JWTAuthenticator: BearerTokenAuthenticator {
    /// The default leeway for `exp` and `nbf` against clocks that differ a little.
    public static let clockSkewSecondsDefault: Double = 30
    /// Most keys one set may hold.
    public static let keysMax = 256

    public let keySetPath: String
    public let audience: String
    public let issuer: String?
    /// Leeway for `exp` and `nbf`, in seconds.
    public let clockSkewSeconds: Double
    private let now: @Sendable () -> Date
    /// The set in force. Swapped whole by `reload()`; a verification in progress keeps the set
    /// it started with.
    private let keySet: AtollLock<KeySet>

    /// The loaded keys: jwt-kit's collection and, per `kid`, the one algorithm it verifies.
    struct KeySet: Sendable {
        let collection: JWTKeyCollection
        let algorithms: [String: String]
    }

    /// Loads and checks the key set now, so a bad file stops the relay at start with one line.
    ///
    /// - Throws: `AtollError(.fileNotFound / .fileAccessDenied)` for an unreadable file,
    ///   `.invalidInput` naming the key and the problem for a malformed one.
    public init(keySetPath: String, audience: String, issuer: String? = nil, clockSkewSeconds: Double = JWTAuthenticator.clockSkewSecondsDefault,
                now: @escaping @Sendable () -> Date = { Date() }) async throws
    {
        guard !audience.isEmpty else { throw AtollError(.invalidArgument, "--jwt-audience must not be empty") }
        guard clockSkewSeconds >= 0, clockSkewSeconds <= 3600 else {
            throw AtollError(.invalidArgument, "the clock skew allowed for tokens must be 0 to 3600 seconds, not \(clockSkewSeconds)")
        }
        self.clockSkewSeconds = clockSkewSeconds
        self.keySetPath = keySetPath
        self.audience = audience
        self.issuer = issuer
        self.now = now
        keySet = AtollLock(try await Self.load(keySetPath))
    }

    /// Reads the key file again. On failure the old set stays in force and the error says why.
    public func reload() async throws {
        let fresh = try await Self.load(keySetPath)
        keySet.withLock { $0 = fresh }
    }

    /// The number of keys in force, per algorithm ("ES256": 1), for the relay's start line.
    public var algorithmsInForce: [String: Int] {
        keySet.withLock { set in set.algorithms.values.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 } }
    }

    // MARK: verifying

    public func authenticate(_ token: [UInt8]) async throws -> AuthenticatedToken {
        let set = keySet.withLock { $0 }
        let text = String(decoding: token, as: UTF8.self)
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
              let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any]
        else {
            throw refused("the bearer token is not a JSON Web Token (header.payload.signature, base64url)")
        }
        guard let alg = header["alg"] as? String else { throw refused("the token's header names no algorithm (alg)") }
        guard alg.lowercased() != "none" else { throw refused("the token is unsigned (alg: none); only signed tokens are accepted") }
        let kid: String
        if let named = header["kid"] {
            guard let named = named as? String, set.algorithms[named] != nil else {
                throw refused("the token's key id (kid) \(Self.quoted(header["kid"])) is not in the relay's key set")
            }
            kid = named
        } else if set.algorithms.count == 1, let only = set.algorithms.keys.first {
            kid = only
        } else {
            throw refused("the token names no key id (kid), and the relay's key set holds \(set.algorithms.count) keys")
        }
        let expected = set.algorithms[kid] ?? ""
        guard alg == expected else {
            throw refused("the token is signed with \(alg), but key '\(kid)' is a \(expected) key (a token made for another kind of key)")
        }
        let claims: ClaimSet
        do {
            // The header's kid selects the signer; for a set of one key the default is that key.
            claims = try await set.collection.verify(text, as: ClaimSet.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw refused("the token's signature does not verify with key '\(kid)' (forged, or signed with another key)")
        } catch {
            throw refused("the token was not accepted: \(error)")
        }
        return try check(claims)
    }

    /// The registered claims' checks, in the order a person would look: expired, not yet valid,
    /// for another audience, from another issuer, no subject.
    private func check(_ claims: ClaimSet) throws -> AuthenticatedToken {
        let nowSeconds = now().timeIntervalSince1970
        guard let exp = claims.number("exp") else {
            throw refused("the token has no expiry (exp); the relay accepts only tokens that expire")
        }
        guard nowSeconds < exp + clockSkewSeconds else {
            throw AtollError(.tokenExpired, "the token expired at \(Date(timeIntervalSince1970: exp)); get a fresh one")
        }
        if let nbf = claims.number("nbf"), nowSeconds + clockSkewSeconds < nbf {
            throw refused("the token is not valid before \(Date(timeIntervalSince1970: nbf)) (nbf)")
        }
        let audiences = claims.strings("aud")
        guard audiences.contains(audience) else {
            throw refused("the token is for audience \(audiences.isEmpty ? "(none)" : audiences.joined(separator: ", ")), not '\(audience)' (aud)")
        }
        if let issuer {
            var given: String?
            if case .string(let s)? = claims.values["iss"] { given = s }
            guard given == issuer else { throw refused("the token was issued by '\(given ?? "(nobody)")', not '\(issuer)' (iss)") }
        }
        guard case .string(let subject)? = claims.values["sub"], !subject.isEmpty else {
            throw refused("the token has no subject (sub)")
        }
        var text: [String: String] = [:]
        for (name, value) in claims.values where !["sub", "exp", "nbf", "iat"].contains(name) {
            if let rendered = value.text { text[name] = rendered }
        }
        return AuthenticatedToken(subject: subject, claims: text, expires: Date(timeIntervalSince1970: exp + clockSkewSeconds))
    }

    private func refused(_ message: String) -> AtollError { AtollError(.authenticationFailed, message) }

    private static func quoted(_ value: Any?) -> String {
        if let s = value as? String { return "'\(s)'" }
        return "\(value ?? "nil")"
    }

    // MARK: loading

    private static func load(_ path: String) async throws -> KeySet {
        guard FileManager.default.fileExists(atPath: path) else {
            throw AtollError(.fileNotFound, "--jwt-keys '\(path)' does not exist")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AtollError(.fileAccessDenied, "--jwt-keys '\(path)' cannot be read")
        }
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let keys = root["keys"] as? [Any] else {
            throw AtollError(.invalidInput, "--jwt-keys '\(path)' is not a JSON Web Key Set ({\"keys\": [...]})")
        }
        guard !keys.isEmpty, keys.count <= keysMax else {
            throw AtollError(.invalidInput, "--jwt-keys '\(path)' holds \(keys.count) keys; give 1 to \(keysMax)")
        }
        let collection = JWTKeyCollection()
        var algorithms: [String: String] = [:]
        for (index, entry) in keys.enumerated() {
            guard let key = entry as? [String: Any] else {
                throw AtollError(.invalidInput, "--jwt-keys '\(path)' key \(index + 1) is not a JSON object")
            }
            let (kid, alg) = try await add(key, index: index, path: path, to: collection)
            guard algorithms[kid] == nil else {
                throw AtollError(.invalidInput, "--jwt-keys '\(path)' names key id '\(kid)' twice")
            }
            algorithms[kid] = alg
        }
        return KeySet(collection: collection, algorithms: algorithms)
    }

    /// Adds one JWK to `collection`; returns its kid and the algorithm it verifies.
    private static func add(_ key: [String: Any], index: Int, path: String, to collection: JWTKeyCollection) async throws -> (String, String) {
        func problem(_ text: String) -> AtollError {
            AtollError(.invalidInput, "--jwt-keys '\(path)' key \(index + 1)\((key["kid"] as? String).map { " ('\($0)')" } ?? ""): \(text)")
        }
        func field(_ name: String) throws -> String {
            guard let value = key[name] as? String, !value.isEmpty else { throw problem("'\(name)' is missing") }
            return value
        }
        let kid = try field("kid")
        let kty = try field("kty")
        let identifier = JWKIdentifier(string: kid)
        let alg: String
        switch kty {
        case "RSA": alg = "RS256"
        case "EC": alg = "ES256"
        case "OKP": alg = "EdDSA"
        case "oct": alg = "HS256"
        default: throw problem("key type '\(kty)' is not supported (RSA, EC, OKP or oct)")
        }
        if let given = key["alg"] {
            guard let given = given as? String, given == alg else {
                throw problem("a \(kty) key verifies \(alg) here, not \(quoted(key["alg"]))")
            }
        }
        if kty != "oct", key["d"] != nil {
            throw problem("holds a private key ('d'); give the relay public keys only")
        }
        do {
            switch kty {
            case "RSA":
                try await collection.add(jwk: .rsa(.rs256, identifier: identifier, modulus: try field("n"), exponent: try field("e")))
            case "EC":
                guard try field("crv") == "P-256" else { throw problem("an EC key must be on curve P-256 (ES256)") }
                try await collection.add(jwk: .ecdsa(.es256, identifier: identifier, x: try field("x"), y: try field("y"), curve: .p256))
            case "OKP":
                guard try field("crv") == "Ed25519" else { throw problem("an OKP key must be on curve Ed25519 (EdDSA)") }
                try await collection.add(jwk: .octetKeyPair(.eddsa, identifier: identifier, x: try field("x"), y: nil, curve: .ed25519))
            default:
                guard let secret = Base64URL.decode(Substring(try field("k"))) else { throw problem("'k' is not base64url") }
                guard secret.count >= 32 else { throw problem("an HS256 secret must be at least 32 bytes, not \(secret.count)") }
                await collection.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: identifier)
            }
        } catch let error as AtollError {
            throw error
        } catch {
            throw problem("not a usable \(alg) key: \(error)")
        }
        return (kid, alg)
    }
}

/// Every claim of a token, kept as JSON values (jwt-kit checks the signature; `JWTAuthenticator`
/// checks the claims after, so that each refusal has its own message).
struct ClaimSet: JWTPayload {
    enum Value: Sendable, Equatable {
        case string(String)
        case number(Double)
        case bool(Bool)
        case strings([String])
        /// An object, null or a mixed list: kept out of `PeerIdentity.claims`.
        case other

        var text: String? {
            switch self {
            case .string(let s): s
            case .number(let n): n.rounded() == n && abs(n) < 1e15 ? String(Int64(n)) : String(n)
            case .bool(let b): b ? "true" : "false"
            case .strings(let list): list.joined(separator: ",")
            case .other: nil
            }
        }
    }

    var values: [String: Value]

    func number(_ name: String) -> Double? {
        if case .number(let n)? = values[name] { return n }
        return nil
    }

    /// A claim that is a string or a list of strings (`aud` may be either).
    func strings(_ name: String) -> [String] {
        switch values[name] {
        case .string(let s)?: [s]
        case .strings(let list)?: list
        default: []
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        var values: [String: Value] = [:]
        for key in container.allKeys {
            if let s = try? container.decode(String.self, forKey: key) {
                values[key.stringValue] = .string(s)
            } else if let b = try? container.decode(Bool.self, forKey: key) {
                values[key.stringValue] = .bool(b)
            } else if let n = try? container.decode(Double.self, forKey: key) {
                values[key.stringValue] = .number(n)
            } else if let list = try? container.decode([String].self, forKey: key) {
                values[key.stringValue] = .strings(list)
            } else {
                values[key.stringValue] = .other
            }
        }
        self.values = values
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (name, value) in values {
            let key = Key(stringValue: name)
            switch value {
            case .string(let s): try container.encode(s, forKey: key)
            case .number(let n): try container.encode(n, forKey: key)
            case .bool(let b): try container.encode(b, forKey: key)
            case .strings(let list): try container.encode(list, forKey: key)
            case .other: try container.encodeNil(forKey: key)
            }
        }
    }

    /// The registered claims are checked by `JWTAuthenticator.check` after verification, each with
    /// its own message and error kind (an expired token is `.tokenExpired`); nothing to do here.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Base64url without padding (RFC 7515, section 2).
enum Base64URL {
    static func decode(_ text: Substring) -> [UInt8]? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s.append("=") }
        return Data(base64Encoded: s).map { [UInt8]($0) }
    }

    static func encode(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
