import AtollStorage
import Foundation

/// Where the relay's PostgreSQL database is: `postgresql://USER@HOST:PORT/DBNAME`.
///
/// The URL carries no password (a password on a command line is visible to every user of the
/// machine in `ps`): it comes from `PGPASSWORD` or from a file (`--postgres-password-file`), as
/// `libpq` reads it. A host that begins with `/` is a directory holding the server's Unix socket
/// (`postgresql://USER@%2Fvar%2Frun%2Fpostgresql:5432/DB`, percent-encoded as in libpq).
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public var user: String
    public var host: String
    public var port: Int
    public var database: String
    public var password: String?

    public init(user: String, host: String, port: Int = 5432, database: String, password: String? = nil) {
        self.user = user
        self.host = host
        self.port = port
        self.database = database
        self.password = password
    }

    /// Parses `postgresql://USER@HOST[:PORT]/DBNAME` (or `postgres://`). A password in the URL
    /// is refused, with where to put it instead.
    ///
    /// - Throws: `.invalidArgument` naming what is wrong.
    public init(url text: String) throws {
        func bad(_ why: String) -> AtollError {
            AtollError(.invalidArgument, "--postgres '\(Self.redacted(text))': \(why); expected postgresql://USER@HOST:PORT/DBNAME")
        }
        guard let schemeEnd = text.range(of: "://") else { throw bad("no scheme") }
        let scheme = text[..<schemeEnd.lowerBound]
        guard scheme == "postgresql" || scheme == "postgres" else { throw bad("the scheme must be postgresql") }
        var rest = Substring(text[schemeEnd.upperBound...])
        if let query = rest.firstIndex(of: "?") {
            throw bad("parameters ('\(rest[query...])') are not supported")
        }
        guard let at = rest.lastIndex(of: "@") else { throw bad("no user (USER@)") }
        let userInfo = rest[..<at]
        if userInfo.contains(":") {
            throw bad("a password does not belong in the URL (every user of the machine can read a command line); set PGPASSWORD or give --postgres-password-file")
        }
        guard !userInfo.isEmpty, let user = String(userInfo).removingPercentEncoding else { throw bad("no user (USER@)") }
        rest = rest[rest.index(after: at)...]
        guard let slash = rest.firstIndex(of: "/") else { throw bad("no database name (/DBNAME)") }
        let hostPort = rest[..<slash]
        guard let database = String(rest[rest.index(after: slash)...]).removingPercentEncoding, !database.isEmpty, !database.contains("/") else {
            throw bad("no database name (/DBNAME)")
        }
        var host = String(hostPort)
        var port = 5432
        if let colon = hostPort.lastIndex(of: ":"), !hostPort.hasSuffix("]") {
            guard let p = Int(hostPort[hostPort.index(after: colon)...]), (1...65535).contains(p) else { throw bad("the port must be 1 to 65535") }
            port = p
            host = String(hostPort[..<colon])
        }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let decoded = host.removingPercentEncoding, !decoded.isEmpty else { throw bad("no host") }
        self.init(user: user, host: decoded, port: port, database: database)
    }

    /// Takes the password from `passwordFile` (its first line) if given, else from `PGPASSWORD`.
    ///
    /// - Throws: `.fileNotFound` or `.fileAccessDenied` for an unreadable file.
    public mutating func readPassword(file passwordFile: String?, environment: [String: String]? = nil) throws {
        let environment = environment ?? ProcessInfo.processInfo.environment
        if let passwordFile {
            guard let data = FileManager.default.contents(atPath: passwordFile) else {
                throw AtollError(FileManager.default.fileExists(atPath: passwordFile) ? .fileAccessDenied : .fileNotFound,
                                 "--postgres-password-file '\(passwordFile)' cannot be read")
            }
            let text = String(decoding: data, as: UTF8.self)
            password = String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        } else if let fromEnvironment = environment["PGPASSWORD"], !fromEnvironment.isEmpty {
            password = fromEnvironment
        }
    }

    /// Whether `host` names a Unix socket directory.
    public var isSocketDirectory: Bool { host.hasPrefix("/") }

    /// The URL without any password, for logs and errors.
    public var description: String {
        let hostText = isSocketDirectory ? host.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? host : host
        return "postgresql://\(user)@\(hostText):\(port)/\(database)"
    }

    private static func redacted(_ text: String) -> String {
        // user:secret@host -> user:***@host, so an error line never repeats a password.
        guard let schemeEnd = text.range(of: "://"), let at = text[schemeEnd.upperBound...].lastIndex(of: "@") else { return text }
        let userInfo = text[schemeEnd.upperBound..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }
}
