import AtollStorage
public import Foundation

/// What a verified bearer token says about its holder.
public struct AuthenticatedToken: Sendable, Equatable {
    /// The token's subject (`sub`): the identity's name.
    public var subject: String
    /// The token's other claims as text (`PeerIdentity.claims`).
    public var claims: [String: String]
    /// When the token stops being valid; the relay closes the connection then (`.tokenExpired`).
    public var expires: Date?

    /// A verified token's identity: its subject, claims and expiry.
    public init(subject: String, claims: [String: String], expires: Date?) {
        self.subject = subject
        self.claims = claims
        self.expires = expires
    }
}

/// Verifies the bearer tokens nodes present (for example JSON Web Tokens, `AtollRelayAuth`).
///
/// Called once per connection with the token's bytes, before the connection is admitted. It
/// throws `AtollError(.tokenExpired)` for a token whose time is over (the node asks its token
/// provider for a fresh one) and `AtollError(.authenticationFailed)` for anything else it refuses,
/// with a message saying why (the node and the relay's log both get it).
public protocol BearerTokenAuthenticator: Sendable {
    func authenticate(_ token: [UInt8]) async throws -> AuthenticatedToken
}
