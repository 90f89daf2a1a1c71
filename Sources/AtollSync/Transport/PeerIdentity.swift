import Foundation

/// Who is at the other end of an authenticated connection.
///
/// Every session at the relay carries one: the permission rules (docs/AUTH.md) fill their
/// placeholders from it (`{sub}` from `subject`, `{claims.X}` from `claims`), and `atoll-relay
/// status` and the relay's log lines show it.
public struct PeerIdentity: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// How the peer proved its identity.
    public enum Method: String, Sendable, Equatable, Hashable {
        /// The peer presented a certificate issued by the configured CA; `name` is its common name.
        case certificate
        /// The peer presented a static bearer token; `name` is the name the token was configured with.
        case token
        /// The peer presented a JSON Web Token the relay verified; `name` is its `sub` claim.
        case jwt
    }

    /// The certificate's common name, the token's configured name, or the JWT's `sub`.
    public var name: String
    /// How it was proved.
    public var method: Method
    /// The peer's address and port, for logs ("127.0.0.1:50312").
    public var address: String
    /// The JWT's other claims as text (a number or a boolean as JSON writes it, a list of strings
    /// joined by commas); empty for other methods.
    public var claims: [String: String]
    /// A certificate's subject alternative names (DNS names, email addresses, URIs); empty for
    /// other methods.
    public var alternativeNames: [String]
    /// When a JWT expires (the relay closes the connection then, with `.tokenExpired`).
    public var expires: Date?

    /// An identity.
    public init(name: String, method: Method, address: String, claims: [String: String] = [:], alternativeNames: [String] = [],
                expires: Date? = nil)
    {
        self.name = name
        self.method = method
        self.address = address
        self.claims = claims
        self.alternativeNames = alternativeNames
        self.expires = expires
    }

    /// `sub` for a JWT, the common name for a certificate, the configured name for a static token.
    public var subject: String { name }

    public var description: String { "\(name) (\(method.rawValue), \(address))" }

    /// The identity for a status report or a log line: method, subject, then claims or
    /// alternative names in name order.
    public var details: String {
        var parts = ["\(method.rawValue) \(name)"]
        if !claims.isEmpty {
            parts.append("claims " + claims.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        }
        if !alternativeNames.isEmpty { parts.append("names " + alternativeNames.joined(separator: ",")) }
        return parts.joined(separator: "; ")
    }
}
