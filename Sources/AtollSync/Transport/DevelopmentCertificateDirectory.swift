import AtollStorage
import Foundation

/// The files `atoll-relay certs --out DIR [--node NAME]...` maintains:
///
///   DIR/ca.pem, DIR/ca-key.pem         the development CA (kept, reused by later runs)
///   DIR/relay.pem, DIR/relay-key.pem   the relay's pair, valid for localhost, 127.0.0.1 and ::1
///   DIR/NAME.pem, DIR/NAME-key.pem     one pair per node, common name NAME
///
/// Existing files are never overwritten: running the command again with a new `--node` issues
/// that node's pair from the existing CA. Key files are created with mode 0600.
public enum DevelopmentCertificateDirectory {
    /// What `create(at:nodes:)` wrote and what it found already there.
    public struct Outcome: Sendable, Equatable {
        /// Paths written by this run.
        public var written: [String] = []
        /// Paths that already existed and were left as they were.
        public var kept: [String] = []
    }

    /// The relay certificate's common name.
    public static let relayCommonName = "atoll-relay"
    static let nodeNameBytesMax = 64

    /// Creates a CA and the relay's pair in `directory` unless present, and a pair for each
    /// node that lacks one; never overwrites.
    ///
    /// - Throws: `.invalidArgument` for a bad node name; an I/O error when a file cannot be written.
    public static func create(at directory: String, nodes: [String]) throws -> Outcome {
        for name in nodes { try validateNodeName(name) }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw AtollError(.fileExists, "'\(directory)' exists and is not a directory")
            }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw AtollError(.fileAccessDenied, "cannot create directory '\(directory)': \(error.localizedDescription)")
            }
        }
        let path = { (file: String) in (directory as NSString).appendingPathComponent(file) }
        var outcome = Outcome()

        let authority: DevelopmentCertificateAuthority
        switch try pairState(path("ca.pem"), path("ca-key.pem")) {
        case .present:
            authority = try DevelopmentCertificateAuthority(
                certificatePEM: try readText(path("ca.pem")), privateKeyPEM: try readText(path("ca-key.pem")))
            outcome.kept += [path("ca.pem"), path("ca-key.pem")]
        case .absent:
            let issuedBefore = (["relay"] + nodes).filter { FileManager.default.fileExists(atPath: path("\($0).pem")) }
            guard issuedBefore.isEmpty else {
                throw AtollError(.fileExists, "'\(path(issuedBefore[0] + ".pem"))' exists but its CA (ca.pem, ca-key.pem) does not; use an empty directory or restore the CA files")
            }
            authority = try DevelopmentCertificateAuthority()
            try writeNew(path("ca-key.pem"), try authority.privateKeyPEM, mode: 0o600)
            try writeNew(path("ca.pem"), try authority.certificatePEM, mode: 0o644)
            outcome.written += [path("ca.pem"), path("ca-key.pem")]
        }

        let leaves: [(file: String, commonName: String, role: DevelopmentCertificateAuthority.Role, dns: [String], ip: [String])] =
            [("relay", relayCommonName, .server, ["localhost"], ["127.0.0.1", "::1"])]
            + nodes.map { ($0, $0, .client, [], []) }
        for leaf in leaves {
            let certificatePath = path(leaf.file + ".pem")
            let keyPath = path(leaf.file + "-key.pem")
            if try pairState(certificatePath, keyPath) == .present {
                outcome.kept += [certificatePath, keyPath]
                continue
            }
            let issued = try authority.issue(commonName: leaf.commonName, role: leaf.role, dnsNames: leaf.dns, ipAddresses: leaf.ip)
            try writeNew(keyPath, issued.privateKeyPEM, mode: 0o600)
            try writeNew(certificatePath, issued.certificatePEM, mode: 0o644)
            outcome.written += [certificatePath, keyPath]
        }
        return outcome
    }

    /// Node names become file names and certificate common names.
    static func validateNodeName(_ name: String) throws {
        let allowed = name.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ".")
        }
        guard allowed, !name.isEmpty, name.utf8.count <= nodeNameBytesMax, name.first != ".", name.first != "-" else {
            throw AtollError(.invalidArgument, "node name '\(name)' must be 1 to \(nodeNameBytesMax) letters, digits, '.', '_' or '-', not starting with '.' or '-'")
        }
        guard name != "ca", name != "relay", !name.hasSuffix("-key") else {
            throw AtollError(.invalidArgument, "node name '\(name)' is reserved (it would clash with ca.pem, relay.pem or a key file)")
        }
    }

    private enum PairState { case present, absent }

    private static func pairState(_ certificate: String, _ key: String) throws -> PairState {
        let fm = FileManager.default
        switch (fm.fileExists(atPath: certificate), fm.fileExists(atPath: key)) {
        case (true, true): return .present
        case (false, false): return .absent
        case (true, false): throw AtollError(.fileNotFound, "'\(certificate)' exists but its key '\(key)' does not; remove it or restore the key")
        case (false, true): throw AtollError(.fileNotFound, "'\(key)' exists but its certificate '\(certificate)' does not; remove it or restore the certificate")
        }
    }

    static func readText(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AtollError(FileManager.default.fileExists(atPath: path) ? .fileAccessDenied : .fileNotFound, "cannot read '\(path)'")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Creates `path` (which must not exist) with `mode` and writes `text` durably.
    private static func writeNew(_ path: String, _ text: String, mode: mode_t) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else {
            let code = errno
            throw AtollError(code == EEXIST ? .fileExists : .fileAccessDenied, "cannot create '\(path)': \(String(cString: strerror(code)))")
        }
        defer { close(fd) }
        // The umask can only remove bits; fchmod makes the mode exact (0600 for keys).
        _ = fchmod(fd, mode)
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let code = errno
                unlink(path)
                throw AtollError(.ioError, "cannot write '\(path)': \(String(cString: strerror(code)))")
            }
            offset += n
        }
        guard fsync(fd) == 0 else {
            let code = errno
            unlink(path)
            throw AtollError(.ioError, "cannot sync '\(path)': \(String(cString: strerror(code)))")
        }
    }
}
