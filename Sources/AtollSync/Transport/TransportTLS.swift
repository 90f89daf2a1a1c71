import AtollStorage
import Crypto
import Foundation
import NIOCore
import NIOSSL
import X509

/// How a server admits clients.
public enum ClientAdmission: Sendable {
    /// Mutual TLS (the default): a client must present a certificate issued by the CA in `caPath`.
    case mutualTLS(caPath: String)
    /// Server-only TLS plus a bearer token: a client presents no certificate and sends a token as
    /// its first frame. `tokens` maps each accepted token to the peer name it stands for.
    case bearerToken(tokens: [String: String])
    /// Server-only TLS plus a bearer token verified by `authenticator` (JSON Web Tokens,
    /// docs/AUTH.md); a token equal to one in `staticTokens` (token -> peer name, for
    /// development) is admitted without asking it.
    case verifiedToken(authenticator: any BearerTokenAuthenticator, staticTokens: [String: String] = [:])
}

/// The server's TLS identity and how it admits clients. TLS 1.3 only.
public struct ServerTLSConfiguration: Sendable {
    /// PEM certificate chain of the server (leaf first).
    public var certificatePath: String
    /// PEM private key of the server.
    public var keyPath: String
    /// How clients are admitted (certificates from a CA, tokens, or JWTs).
    public var admission: ClientAdmission

    /// A server configuration from PEM files.
    public init(certificatePath: String, keyPath: String, admission: ClientAdmission) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        self.admission = admission
    }

    /// Mutual TLS with certificates issued by the CA in `caPath`.
    public static func mutualTLS(certificatePath: String, keyPath: String, caPath: String) -> ServerTLSConfiguration {
        ServerTLSConfiguration(certificatePath: certificatePath, keyPath: keyPath, admission: .mutualTLS(caPath: caPath))
    }
}

/// How a client proves who it is.
public enum ClientCredentials: Sendable {
    /// A certificate and key issued by the CA the server trusts (mutual TLS, the default).
    case certificate(certificatePath: String, keyPath: String)
    /// A bearer token (the server must be in token mode).
    case token(String)
    /// A bearer token asked for when connecting: once, then again after the relay said the last
    /// one expired (`AtollError(.tokenExpired)`). An error it throws ends that connection attempt
    /// and is reported; the client retries with backoff.
    case tokenProvider(TokenProvider)
    /// Nothing (only useful to check that a server refuses such a client).
    case none
}

/// Gives a client its bearer token (for example a JSON Web Token from the app's identity provider).
public typealias TokenProvider = @Sendable () async throws -> String

/// What a client trusts and presents. TLS 1.3 only; the server certificate must be issued by the
/// CA in `caPath` and valid for the host connected to (or `serverName`).
public struct ClientTLSConfiguration: Sendable {
    /// PEM certificate of the CA that issued the server's certificate.
    public var caPath: String
    /// How the client proves who it is (a certificate, or a bearer token).
    public var credentials: ClientCredentials
    /// The name the server's certificate must carry; nil to use the host connected to.
    public var serverName: String?

    /// A client configuration; `serverName` overrides the name checked in the server's certificate.
    public init(caPath: String, credentials: ClientCredentials, serverName: String? = nil) {
        self.caPath = caPath
        self.credentials = credentials
        self.serverName = serverName
    }

    /// Mutual TLS with a certificate issued by the CA in `caPath`.
    public static func mutualTLS(certificatePath: String, keyPath: String, caPath: String) -> ClientTLSConfiguration {
        ClientTLSConfiguration(caPath: caPath, credentials: .certificate(certificatePath: certificatePath, keyPath: keyPath))
    }
}

/// Loaded, checked TLS material: what the handlers need at connection time.
struct ServerTLSContext: Sendable {
    let context: NIOSSLContext
    /// nil: mutual TLS.
    let tokens: TokenAdmission?
}

/// How a server in token mode checks a token: the static table first, then the authenticator.
struct TokenAdmission: Sendable {
    let table: TokenVerifier?
    let authenticator: (any BearerTokenAuthenticator)?
}

/// Where a client's bearer token comes from.
enum ClientToken: Sendable {
    case fixed(String)
    case provider(TokenProvider)
}

struct ClientTLSContext: Sendable {
    let context: NIOSSLContext
    let token: ClientToken?
    let serverName: String?
}

enum TLSMaterial {
    static func makeServerContext(_ configuration: ServerTLSConfiguration) throws -> ServerTLSContext {
        let chain = try loadCertificates(configuration.certificatePath, role: "server certificate")
        let key = try loadPrivateKey(configuration.keyPath)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        tls.minimumTLSVersion = .tlsv13
        tls.maximumTLSVersion = .tlsv13
        var tokens: TokenAdmission?
        switch configuration.admission {
        case .mutualTLS(let caPath):
            tls.trustRoots = .certificates(try loadCertificates(caPath, role: "CA certificate"))
            // Client certificates are checked against the CA; clients have no host name to match.
            tls.certificateVerification = .noHostnameVerification
        case .bearerToken(let table):
            guard !table.isEmpty else {
                throw AtollError(.invalidArgument, "token mode needs at least one token")
            }
            tokens = TokenAdmission(table: try TokenVerifier(table), authenticator: nil)
            tls.certificateVerification = .none
        case .verifiedToken(let authenticator, let table):
            tokens = TokenAdmission(table: table.isEmpty ? nil : try TokenVerifier(table), authenticator: authenticator)
            tls.certificateVerification = .none
        }
        return ServerTLSContext(context: try makeContext(tls), tokens: tokens)
    }

    static func makeClientContext(_ configuration: ClientTLSConfiguration) throws -> ClientTLSContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv13
        tls.maximumTLSVersion = .tlsv13
        tls.trustRoots = .certificates(try loadCertificates(configuration.caPath, role: "CA certificate"))
        tls.certificateVerification = .fullVerification
        var token: ClientToken?
        switch configuration.credentials {
        case .certificate(let certificatePath, let keyPath):
            tls.certificateChain = try loadCertificates(certificatePath, role: "client certificate").map { .certificate($0) }
            tls.privateKey = .privateKey(try loadPrivateKey(keyPath))
        case .token(let value):
            guard !value.isEmpty, value.utf8.count <= Goodbye.tokenBytesMax else {
                throw AtollError(.invalidArgument, "a bearer token must be 1 to \(Goodbye.tokenBytesMax) bytes")
            }
            token = .fixed(value)
        case .tokenProvider(let provider):
            token = .provider(provider)
        case .none:
            break
        }
        return ClientTLSContext(context: try makeContext(tls), token: token, serverName: configuration.serverName)
    }

    /// How long a closing side waits for the peer's TLS close_notify. A live peer answers within a
    /// round trip; a dead one never does, and NIOSSL's default of 5 s would hold its resources.
    static let shutdownTimeout = TimeAmount.seconds(1)

    private static func makeContext(_ tls: TLSConfiguration) throws -> NIOSSLContext {
        var tls = tls
        tls.shutdownTimeout = shutdownTimeout
        do {
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw AtollError(.invalidArgument, "the TLS certificate and key do not form a usable configuration: \(error)")
        }
    }

    static func loadCertificates(_ path: String, role: String) throws -> [NIOSSLCertificate] {
        let pem = try readPEM(path, role: role)
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
        } catch {
            throw AtollError(.invalidArgument, "\(role) '\(path)' is not a PEM certificate: \(error)")
        }
        guard !certificates.isEmpty else {
            throw AtollError(.invalidArgument, "\(role) '\(path)' contains no PEM certificate")
        }
        return certificates
    }

    static func loadPrivateKey(_ path: String) throws -> NIOSSLPrivateKey {
        let pem = try readPEM(path, role: "private key")
        do {
            return try NIOSSLPrivateKey(bytes: Array(pem.utf8), format: .pem)
        } catch {
            throw AtollError(.invalidArgument, "private key '\(path)' is not a PEM private key: \(error)")
        }
    }

    private static func readPEM(_ path: String, role: String) throws -> String {
        guard FileManager.default.fileExists(atPath: path) else {
            throw AtollError(.fileNotFound, "\(role) '\(path)' does not exist")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AtollError(.fileAccessDenied, "\(role) '\(path)' cannot be read")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The common name of a peer certificate (or its first DNS name) and its subject alternative
    /// names, for `PeerIdentity`. A certificate that does not parse (BoringSSL has already
    /// verified it) is named "unknown"; one with neither a common name nor a DNS name "unnamed".
    static func peerNames(_ certificate: NIOSSLCertificate?) -> (name: String, alternativeNames: [String]) {
        guard let certificate, let der = try? certificate.toDERBytes(), let parsed = try? Certificate(derEncoded: der) else {
            return ("unknown", [])
        }
        var alternativeNames: [String] = []
        var firstDNSName: String?
        if let names = try? parsed.extensions.subjectAlternativeNames {
            for name in names {
                switch name {
                case .dnsName(let text):
                    alternativeNames.append(text)
                    firstDNSName = firstDNSName ?? text
                case .rfc822Name(let text), .uniformResourceIdentifier(let text):
                    alternativeNames.append(text)
                default:
                    break
                }
            }
        }
        for rdn in parsed.subject {
            for attribute in rdn where attribute.type == .RDNAttributeType.commonName {
                if let name = String(attribute.value) { return (name, alternativeNames) }
            }
        }
        return (firstDNSName ?? "unnamed", alternativeNames)
    }
}

/// Checks bearer tokens without revealing through timing which bytes matched: each candidate is
/// hashed and compared with every configured token's hash in constant time.
struct TokenVerifier: Sendable {
    private let entries: [(digest: [UInt8], name: String)]

    init(_ table: [String: String]) throws {
        var entries: [(digest: [UInt8], name: String)] = []
        for (token, name) in table {
            guard !token.isEmpty, token.utf8.count <= Goodbye.tokenBytesMax else {
                throw AtollError(.invalidArgument, "a bearer token must be 1 to \(Goodbye.tokenBytesMax) bytes")
            }
            entries.append((Array(SHA256.hash(data: Array(token.utf8))), name))
        }
        self.entries = entries
    }

    /// The name of the peer `token` stands for, or nil.
    func name(for token: [UInt8]) -> String? {
        let digest = Array(SHA256.hash(data: token))
        var found: String?
        for entry in entries {
            var difference: UInt8 = 0
            for i in 0..<digest.count { difference |= digest[i] ^ entry.digest[i] }
            if difference == 0 { found = entry.name }
        }
        return found
    }
}
