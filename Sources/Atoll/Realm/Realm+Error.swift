public import AtollStorage

extension Realm {
    /// RealmSwift's error codes, so that RealmSwift's `catch` clauses work unchanged:
    ///
    /// ```swift
    /// do {
    ///     let realm = try Realm(configuration: config)
    /// } catch Realm.Error.fileNotFound {
    ///     print("no such file")
    /// } catch {
    ///     print(error)          // an AtollError, with its kind and message
    /// }
    /// ```
    /// Atoll throws `AtollError`; `Realm.Error.Code` patterns match it through its kind
    /// (`AtollError.code`), and `Realm.Error(error)` wraps one with its RealmSwift code.
    public struct Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        /// RealmSwift's codes, with their raw values.
        public enum Code: Int, Sendable, CaseIterable {
            case fail = 1
            case fileAccess = 2
            case filePermissionDenied = 3
            case fileExists = 4
            case fileNotFound = 5
            case fileFormatUpgradeRequired = 6
            case incompatibleLockFile = 8
            case addressSpaceExhausted = 9
            case schemaMismatch = 10
            case alreadyOpen = 12
            case invalidInput = 13
            case outOfDiskSpace = 14
            case incompatibleSession = 15
            case unsupportedFileFormatVersion = 16
            case multipleSyncAgents = 17
            case subscriptionFailed = 18
            case fileOperationFailed = 19
            case invalidDatabase = 20
            case incompatibleHistories = 21
            case noSubscriptionForWrite = 22
        }

        /// The RealmSwift code.
        public let code: Code
        /// The Atoll error behind it.
        public let underlying: AtollError

        /// `error` with its RealmSwift code.
        public init(_ error: AtollError) {
            underlying = error
            code = error.code
        }

        public var description: String { "Realm.Error.\(code) (\(underlying))" }

        public static let fail = Code.fail
        public static let fileAccess = Code.fileAccess
        public static let filePermissionDenied = Code.filePermissionDenied
        public static let fileExists = Code.fileExists
        public static let fileNotFound = Code.fileNotFound
        public static let fileFormatUpgradeRequired = Code.fileFormatUpgradeRequired
        public static let incompatibleLockFile = Code.incompatibleLockFile
        public static let addressSpaceExhausted = Code.addressSpaceExhausted
        public static let schemaMismatch = Code.schemaMismatch
        public static let alreadyOpen = Code.alreadyOpen
        public static let invalidInput = Code.invalidInput
        public static let outOfDiskSpace = Code.outOfDiskSpace
        public static let incompatibleSession = Code.incompatibleSession
        public static let unsupportedFileFormatVersion = Code.unsupportedFileFormatVersion
        public static let fileOperationFailed = Code.fileOperationFailed
        public static let invalidDatabase = Code.invalidDatabase
    }
}

extension AtollError {
    /// The RealmSwift error code of this error's kind (`Realm.Error.Code`).
    public var code: Realm.Error.Code {
        switch kind {
        case .fileNotFound: .fileNotFound
        case .fileAccessDenied: .filePermissionDenied
        case .fileExists: .fileExists
        case .fileCorrupted, .notAnAtollFile, .fileEncrypted, .invalidKey: .invalidDatabase
        case .fileFormatTooNew: .unsupportedFileFormatVersion
        case .fileLocked: .alreadyOpen
        case .readOnly, .ioError: .fileAccess
        case .schemaMismatch, .migrationRequired: .schemaMismatch
        case .invalidArgument, .typeMismatch, .requiredValueMissing, .primaryKeyMissing, .invalidQuery, .invalidInput: .invalidInput
        default: .fail
        }
    }
}

/// Matches an error thrown by Atoll against a RealmSwift code: `catch Realm.Error.fileNotFound`.
/// An I/O error (`.ioError`, code `.fileAccess`) also matches `.fileOperationFailed`: RealmSwift
/// reports a failed file operation with either code (a path through a file that is not a
/// directory is `.fileOperationFailed`, a file that cannot be mapped `.fileAccess`), which the
/// system error alone does not tell apart.
public func ~= (pattern: Realm.Error.Code, error: any Error) -> Bool {
    let code: Realm.Error.Code
    if let e = error as? AtollError { code = e.code } else if let e = error as? Realm.Error { code = e.code } else { return false }
    return code == pattern || (code == .fileAccess && pattern == .fileOperationFailed)
}
