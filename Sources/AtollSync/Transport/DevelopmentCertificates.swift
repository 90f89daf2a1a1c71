import AtollStorage
import Crypto
import Foundation
import X509

/// A development certificate authority and the certificates it issues, for running a relay and
/// nodes with mutual TLS without an external PKI (`atoll-relay certs`).
///
/// Keys are P-256 ECDSA. The CA certificate carries the CA basic constraint and the key-cert-sign
/// usage, which TLS libraries require of a trust anchor. Leaf certificates name their holder in
/// the subject's common name, which the relay reports as the peer's identity.
///
/// ```swift
/// let ca = try DevelopmentCertificateAuthority(commonName: "Atoll development CA")
/// let relay = try ca.issue(commonName: "atoll-relay", role: .server, dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"])
/// let node = try ca.issue(commonName: "node-a", role: .client)
/// ```
public struct DevelopmentCertificateAuthority: Sendable {
    /// What an issued certificate may be used for (its extended key usage).
    public enum Role: Sendable {
        /// A TLS server (the relay). Also allowed as a client, so a relay can connect to another.
        case server
        /// A TLS client (a node).
        case client
    }

    let certificate: Certificate
    private let privateKey: Certificate.PrivateKey

    /// How long certificates stay valid. Generous, since these are for development.
    public static let authorityValidityDays = 3650
    /// How long the relay's and nodes' certificates stay valid.
    public static let leafValidityDays = 825

    /// Creates a new self-signed authority with a fresh key.
    public init(commonName: String = "Atoll development CA") throws {
        let signingKey = Certificate.PrivateKey(P256.Signing.PrivateKey())
        privateKey = signingKey
        let name = try DistinguishedName {
            OrganizationName("Atoll")
            CommonName(commonName)
        }
        let now = Date()
        do {
            certificate = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: signingKey.publicKey,
                notValidBefore: now.addingTimeInterval(-3600),
                notValidAfter: now.addingTimeInterval(Double(Self.authorityValidityDays) * 86400),
                issuer: name,
                subject: name,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    SubjectKeyIdentifier(hash: signingKey.publicKey)
                },
                issuerPrivateKey: signingKey
            )
        } catch {
            throw AtollError(.invalidArgument, "could not create the development CA certificate: \(error)")
        }
    }

    /// Loads an authority from its certificate and private key in PEM.
    public init(certificatePEM: String, privateKeyPEM: String) throws {
        do {
            certificate = try Certificate(pemEncoded: certificatePEM)
            privateKey = try Certificate.PrivateKey(pemEncoded: privateKeyPEM)
        } catch {
            throw AtollError(.invalidArgument, "not a PEM certificate and private key: \(error)")
        }
        guard privateKey.publicKey == certificate.publicKey else {
            throw AtollError(.invalidArgument, "the CA private key does not belong to the CA certificate")
        }
        guard case .isCertificateAuthority = try? certificate.extensions.basicConstraints else {
            throw AtollError(.invalidArgument, "the certificate is not a certificate authority (no CA basic constraint)")
        }
    }

    /// The CA's certificate, PEM.
    public var certificatePEM: String { get throws { try certificate.serializeAsPEM().pemString } }
    /// The CA's private key, PEM.
    public var privateKeyPEM: String { get throws { try privateKey.serializeAsPEM().pemString } }

    /// Issues a certificate for `commonName`, valid for the given host names and IP addresses
    /// (subject alternative names; a client certificate may have none).
    public func issue(
        commonName: String, role: Role, dnsNames: [String] = [], ipAddresses: [String] = []
    ) throws -> IssuedCertificate {
        let leafKey = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let issuerKey = privateKey
        var names: [GeneralName] = dnsNames.map { .dnsName($0) }
        for address in ipAddresses {
            guard let bytes = IPAddressBytes.parse(address) else {
                throw AtollError(.invalidArgument, "'\(address)' is not an IPv4 or IPv6 address")
            }
            names.append(.ipAddress(.init(contentBytes: bytes[...])))
        }
        let subject = try DistinguishedName {
            OrganizationName("Atoll")
            CommonName(commonName)
        }
        let usages: [ExtendedKeyUsage.Usage] = role == .server ? [.serverAuth, .clientAuth] : [.clientAuth]
        let now = Date()
        do {
            let certificate = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: leafKey.publicKey,
                notValidBefore: now.addingTimeInterval(-3600),
                notValidAfter: now.addingTimeInterval(Double(Self.leafValidityDays) * 86400),
                issuer: self.certificate.subject,
                subject: subject,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage(usages)
                    SubjectKeyIdentifier(hash: leafKey.publicKey)
                    AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: issuerKey.publicKey).keyIdentifier)
                    if !names.isEmpty { SubjectAlternativeNames(names) }
                },
                issuerPrivateKey: issuerKey
            )
            return IssuedCertificate(
                certificatePEM: try certificate.serializeAsPEM().pemString,
                privateKeyPEM: try leafKey.serializeAsPEM().pemString
            )
        } catch {
            throw AtollError(.invalidArgument, "could not issue a certificate for '\(commonName)': \(error)")
        }
    }
}

/// A certificate and its private key, both PEM.
public struct IssuedCertificate: Sendable, Equatable {
    /// The certificate, PEM.
    public let certificatePEM: String
    /// Its private key, PEM.
    public let privateKeyPEM: String
}

enum IPAddressBytes {
    /// The network-order bytes of a textual IPv4 or IPv6 address.
    static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
