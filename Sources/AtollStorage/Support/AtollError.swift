/// The one error type every Atoll API throws.
///
/// `kind` says what class of problem occurred, so callers can react to it; `message` says what
/// happened in words and, where there is one, what to do about it.
///
/// ```swift
/// do {
///     try realm.write { realm.add(dog) }
/// } catch let error as AtollError where error.kind == .primaryKeyExists {
///     print(error.message)
/// }
/// ```
public struct AtollError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        // Files
        case fileNotFound
        case fileAccessDenied
        case fileExists
        case fileCorrupted
        case notAnAtollFile
        case fileFormatTooNew
        case fileLocked
        case readOnly
        case ioError
        // Engine limits and lifecycle
        case limitExceeded
        case tooManyActiveVersions
        case tooManyReaders
        case invalidTransaction
        case invalidArgument
        case closed
        // Schema and data
        case schemaMismatch
        case migrationRequired
        case typeMismatch
        case requiredValueMissing
        case primaryKeyExists
        case primaryKeyMissing
        case objectNotFound
        case invalidatedObject
        case invalidQuery
        /// A schema file, data file or argument is malformed or names something that does not exist.
        case invalidInput
        case wrongThread
        // Encryption
        case invalidKey
        case fileEncrypted
        // Sync and network
        case protocolViolation
        case connectionFailed
        case authenticationFailed
        case timeout
        case cancelled
        /// A peer's clock is too far from this one's (sync refuses its stamps until it is right).
        case clockSkew
        /// The bearer token (a JSON Web Token) has expired: get a fresh one and connect again.
        case tokenExpired
        /// The identity may not do this (read a realm, write it, change a class): the relay's
        /// rules say so (docs/AUTH.md).
        case permissionDenied
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}

extension AtollError {
    /// An error built from a failed system call's errno, naming the operation and the path.
    static func posix(_ operation: String, path: String, errno code: Int32) -> AtollError {
        let reason = String(cString: strerror(code))
        let kind: Kind
        switch code {
        case ENOENT: kind = .fileNotFound
        case EACCES, EPERM, EROFS: kind = .fileAccessDenied
        case EEXIST: kind = .fileExists
        default: kind = .ioError
        }
        return AtollError(kind, "\(operation) '\(path)' failed: \(reason) (errno \(code))")
    }

    package static func corrupted(_ what: String) -> AtollError {
        AtollError(.fileCorrupted, "the database file is corrupted: \(what)")
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
