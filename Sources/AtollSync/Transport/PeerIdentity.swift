/// Who is at the other end of an authenticated connection.
public struct PeerIdentity: Sendable, Equatable, Hashable, CustomStringConvertible {
    public enum Method: String, Sendable, Equatable, Hashable {
        /// The peer presented a certificate issued by the configured CA; `name` is its common name.
        case certificate
        /// The peer presented a bearer token; `name` is the name the token was configured with.
        case token
    }

    /// The certificate's common name, or the token's configured name.
    public var name: String
    public var method: Method
    /// The peer's address and port, for logs ("127.0.0.1:50312").
    public var address: String

    public init(name: String, method: Method, address: String) {
        self.name = name
        self.method = method
        self.address = address
    }

    public var description: String { "\(name) (\(method.rawValue), \(address))" }
}
