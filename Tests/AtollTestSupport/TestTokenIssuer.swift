public import Crypto
public import _CryptoExtras
public import Foundation

/// An identity provider for tests: one key of each kind the relay verifies, made with
/// swift-crypto, their public JSON Web Key Set, and tokens signed by hand (RFC 7515 compact
/// serialization), so the relay's verifier is checked against an independent signer.
public struct TestTokenIssuer: Sendable {
    public enum Kind: String, CaseIterable, Sendable {
        case rs256 = "RS256", es256 = "ES256", eddsa = "EdDSA", hs256 = "HS256"

        public var kid: String { "key-\(rawValue.lowercased())" }
    }

    public let rsa: _RSA.Signing.PrivateKey
    public let p256 = P256.Signing.PrivateKey()
    public let ed25519 = Curve25519.Signing.PrivateKey()
    public let secret = SymmetricKey(size: .bits256)

    public init() throws {
        rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    /// The public key set (and the HS256 secret) as the relay's `--jwt-keys` file.
    public func keySetJSON(kinds: [Kind] = Kind.allCases) throws -> String {
        var keys: [[String: String]] = []
        for kind in kinds {
            switch kind {
            case .rs256:
                let primitives = try rsa.publicKey.getKeyPrimitives()
                keys.append(["kty": "RSA", "kid": kind.kid, "alg": "RS256", "n": Self.b64(primitives.modulus), "e": Self.b64(primitives.publicExponent)])
            case .es256:
                let point = p256.publicKey.x963Representation  // 0x04 || x || y
                keys.append(["kty": "EC", "kid": kind.kid, "crv": "P-256", "x": Self.b64(point[1..<33]), "y": Self.b64(point[33..<65])])
            case .eddsa:
                keys.append(["kty": "OKP", "kid": kind.kid, "crv": "Ed25519", "x": Self.b64(ed25519.publicKey.rawRepresentation)])
            case .hs256:
                keys.append(["kty": "oct", "kid": kind.kid, "k": Self.b64(secret.withUnsafeBytes { Data($0) })])
            }
        }
        let data = try JSONSerialization.data(withJSONObject: ["keys": keys], options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// Claims for `subject`, valid from a minute ago for an hour, for audience `atoll-test`.
    public static func claims(_ subject: String, extra: [String: Any] = [:]) -> [String: Any] {
        let now = Date().timeIntervalSince1970
        var claims: [String: Any] = ["sub": subject, "aud": "atoll-test", "iss": "test-issuer", "iat": Int(now) - 60, "nbf": Int(now) - 60,
                                     "exp": Int(now) + 3600]
        for (name, value) in extra { claims[name] = value }
        return claims
    }

    /// A token signed with `kind`'s key. `header` entries replace the defaults (alg and kid of
    /// `kind`); `signWith` signs with another kind's key while keeping the header.
    public func token(_ kind: Kind, claims: [String: Any], header: [String: Any] = [:], signWith: Kind? = nil) throws -> String {
        var head: [String: Any] = ["alg": kind.rawValue, "kid": kind.kid, "typ": "JWT"]
        for (name, value) in header { head[name] = value }
        let input = Self.b64(try JSONSerialization.data(withJSONObject: head, options: [.sortedKeys])) + "."
            + Self.b64(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        return input + "." + Self.b64(try signature(signWith ?? kind, Data(input.utf8)))
    }

    public func signature(_ kind: Kind, _ data: Data) throws -> Data {
        switch kind {
        case .rs256: try rsa.signature(for: data, padding: .insecurePKCS1v1_5).rawRepresentation
        case .es256: try p256.signature(for: data).rawRepresentation
        case .eddsa: try ed25519.signature(for: data)
        case .hs256: Data(HMAC<SHA256>.authenticationCode(for: data, using: secret))
        }
    }

    /// An unsigned token (`alg: none`, empty signature).
    public static func unsigned(claims: [String: Any], kid: String) throws -> String {
        b64(try JSONSerialization.data(withJSONObject: ["alg": "none", "kid": kid], options: [.sortedKeys])) + "."
            + b64(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])) + "."
    }

    public static func b64(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
