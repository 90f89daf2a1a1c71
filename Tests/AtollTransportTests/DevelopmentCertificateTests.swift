import AtollStorage
import Foundation
import NIOSSL
import Testing
import X509
@testable import AtollSync
import AtollTestSupport

@Suite struct DevelopmentCertificateTests {
    func certificate(_ path: String) throws -> Certificate {
        try Certificate(pemEncoded: String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self))
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func theDirectoryHoldsACAARelayPairAndNodePairsWithPrivateKeys() throws {
        let dir = TemporaryDirectory()
        let outcome = try DevelopmentCertificateDirectory.create(at: dir.path, nodes: ["node-a", "node-b"])
        let names = ["ca.pem", "ca-key.pem", "relay.pem", "relay-key.pem", "node-a.pem", "node-a-key.pem", "node-b.pem", "node-b-key.pem"]
        #expect(Set(outcome.written) == Set(names.map(dir.file)))
        #expect(outcome.kept.isEmpty)
        for key in ["ca-key.pem", "relay-key.pem", "node-a-key.pem", "node-b-key.pem"] {
            #expect(try mode(dir.file(key)) == 0o600, "\(key)")
        }
        #expect(try mode(dir.file("relay.pem")) == 0o644)

        let ca = try certificate(dir.file("ca.pem"))
        #expect(try ca.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(try ca.extensions.keyUsage?.keyCertSign == true)
        let relay = try certificate(dir.file("relay.pem"))
        let sans = try #require(try relay.extensions.subjectAlternativeNames)
        #expect(sans.contains(.dnsName("localhost")))
        #expect(sans.contains(.ipAddress(.init(contentBytes: [127, 0, 0, 1]))))
        #expect(relay.issuer == ca.subject)
        #expect(ca.publicKey.isValidSignature(relay.signature, for: relay))
        let node = try certificate(dir.file("node-a.pem"))
        #expect(node.subject.description.contains("CN=node-a"))
        #expect(try node.extensions.extendedKeyUsage?.contains(.clientAuth) == true)
        #expect(ca.publicKey.isValidSignature(node.signature, for: node))
    }

    @Test func theFilesLoadIntoNIOSSL() throws {
        let dir = TemporaryDirectory()
        _ = try DevelopmentCertificateDirectory.create(at: dir.path, nodes: ["n1"])
        for name in ["ca", "relay", "n1"] {
            #expect(try NIOSSLCertificate.fromPEMFile(dir.file("\(name).pem")).count == 1)
        }
        for name in ["relay", "n1"] {
            _ = try NIOSSLPrivateKey(file: dir.file("\(name)-key.pem"), format: .pem)
        }
        _ = try TLSMaterial.makeServerContext(.mutualTLS(certificatePath: dir.file("relay.pem"), keyPath: dir.file("relay-key.pem"), caPath: dir.file("ca.pem")))
        _ = try TLSMaterial.makeClientContext(.mutualTLS(certificatePath: dir.file("n1.pem"), keyPath: dir.file("n1-key.pem"), caPath: dir.file("ca.pem")))
    }

    @Test func aLaterRunReusesTheCAAndNeverOverwrites() throws {
        let dir = TemporaryDirectory()
        _ = try DevelopmentCertificateDirectory.create(at: dir.path, nodes: ["a"])
        let caBefore = FileManager.default.contents(atPath: dir.file("ca.pem"))
        let aBefore = FileManager.default.contents(atPath: dir.file("a.pem"))
        let outcome = try DevelopmentCertificateDirectory.create(at: dir.path, nodes: ["a", "c"])
        #expect(Set(outcome.written) == [dir.file("c.pem"), dir.file("c-key.pem")])
        #expect(outcome.kept.contains(dir.file("ca.pem")) && outcome.kept.contains(dir.file("a.pem")))
        #expect(FileManager.default.contents(atPath: dir.file("ca.pem")) == caBefore)
        #expect(FileManager.default.contents(atPath: dir.file("a.pem")) == aBefore)
        let ca = try certificate(dir.file("ca.pem"))
        let c = try certificate(dir.file("c.pem"))
        #expect(ca.publicKey.isValidSignature(c.signature, for: c))
    }

    @Test func badNodeNamesAndInconsistentDirectoriesAreRefused() throws {
        let dir = TemporaryDirectory()
        for name in ["", "ca", "relay", "x-key", "../evil", "a b", ".hidden", "-flag", String(repeating: "n", count: 65)] {
            #expect(throws: AtollError.self, "\(name)") { try DevelopmentCertificateDirectory.create(at: dir.path, nodes: [name]) }
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("ca.pem")), "nothing written for a refused name")

        _ = try DevelopmentCertificateDirectory.create(at: dir.path, nodes: [])
        try FileManager.default.removeItem(atPath: dir.file("ca-key.pem"))
        do {
            _ = try DevelopmentCertificateDirectory.create(at: dir.path, nodes: [])
            Issue.record("a CA without its key was accepted")
        } catch let error as AtollError {
            #expect(error.message.contains("ca-key.pem"))
        }
        let file = dir.file("plain-file")
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        #expect(throws: AtollError.self) { try DevelopmentCertificateDirectory.create(at: file, nodes: []) }
    }
}
