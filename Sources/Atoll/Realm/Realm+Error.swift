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
            /// Any error without a more specific code.
            case fail = 1
            /// The file could not be read, written or mapped (an I/O error, a read-only realm written to).
            case fileAccess = 2
            /// The process may not open or create the file.
            case filePermissionDenied = 3
            /// The file exists where a new one was to be created.
            case fileExists = 4
            /// The file does not exist (a read-only open of a missing file).
            case fileNotFound = 5
            /// The file needs a format upgrade (RealmSwift; Atoll opens and upgrades older formats itself).
            case fileFormatUpgradeRequired = 6
            /// The lock file was made by an incompatible program (RealmSwift's code).
            case incompatibleLockFile = 8
            /// The file could not be mapped into memory (RealmSwift's code).
            case addressSpaceExhausted = 9
            /// The stored schema differs from the model classes, or needs a migration.
            case schemaMismatch = 10
            /// Another process holds the file in a way that excludes this open.
            case alreadyOpen = 12
            /// An argument, value, query or input file is invalid.
            case invalidInput = 13
            /// The disk is full (RealmSwift's code).
            case outOfDiskSpace = 14
            /// RealmSwift's code for a sync session mismatch.
            case incompatibleSession = 15
            /// The file was written by a newer format version than this build reads.
            case unsupportedFileFormatVersion = 16
            /// RealmSwift's code for a second sync agent on one file.
            case multipleSyncAgents = 17
            /// RealmSwift's code for a failed flexible-sync subscription.
            case subscriptionFailed = 18
            /// A file operation failed; an I/O error also matches this code.
            case fileOperationFailed = 19
            /// The file is not an Atoll file, is damaged, or is encrypted with another key.
            case invalidDatabase = 20
            /// RealmSwift's code for histories that cannot be merged.
            case incompatibleHistories = 21
            /// RealmSwift's code for a write outside a flexible-sync subscription.
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

        /// The code and the Atoll error, as `Realm.Error.fileNotFound (...)`.
        public var description: String { "Realm.Error.\(code) (\(underlying))" }

        /// ``Code/fail``, for `catch Realm.Error.fail`.
        public static let fail = Code.fail
        /// ``Code/fileAccess``, for `catch Realm.Error.fileAccess`.
        public static let fileAccess = Code.fileAccess
        /// ``Code/filePermissionDenied``, for `catch Realm.Error.filePermissionDenied`.
        public static let filePermissionDenied = Code.filePermissionDenied
        /// ``Code/fileExists``, for `catch Realm.Error.fileExists`.
        public static let fileExists = Code.fileExists
        /// ``Code/fileNotFound``, for `catch Realm.Error.fileNotFound`.
        public static let fileNotFound = Code.fileNotFound
        /// ``Code/fileFormatUpgradeRequired``, for `catch Realm.Error.fileFormatUpgradeRequired`.
        public static let fileFormatUpgradeRequired = Code.fileFormatUpgradeRequired
        /// ``Code/incompatibleLockFile``, for `catch Realm.Error.incompatibleLockFile`.
        public static let incompatibleLockFile = Code.incompatibleLockFile
        /// ``Code/addressSpaceExhausted``, for `catch Realm.Error.addressSpaceExhausted`.
        public static let addressSpaceExhausted = Code.addressSpaceExhausted
        /// ``Code/schemaMismatch``, for `catch Realm.Error.schemaMismatch`.
        public static let schemaMismatch = Code.schemaMismatch
        /// ``Code/alreadyOpen``, for `catch Realm.Error.alreadyOpen`.
        public static let alreadyOpen = Code.alreadyOpen
        /// ``Code/invalidInput``, for `catch Realm.Error.invalidInput`.
        public static let invalidInput = Code.invalidInput
        /// ``Code/outOfDiskSpace``, for `catch Realm.Error.outOfDiskSpace`.
        public static let outOfDiskSpace = Code.outOfDiskSpace
        /// ``Code/incompatibleSession``, for `catch Realm.Error.incompatibleSession`.
        public static let incompatibleSession = Code.incompatibleSession
        /// ``Code/unsupportedFileFormatVersion``, for `catch Realm.Error.unsupportedFileFormatVersion`.
        public static let unsupportedFileFormatVersion = Code.unsupportedFileFormatVersion
        /// ``Code/fileOperationFailed``, for `catch Realm.Error.fileOperationFailed`.
        public static let fileOperationFailed = Code.fileOperationFailed
        /// ``Code/invalidDatabase``, for `catch Realm.Error.invalidDatabase`.
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
