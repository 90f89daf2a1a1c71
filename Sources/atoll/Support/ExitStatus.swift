import Atoll

/// The exit statuses of `atoll` (sysexits.h values where one fits), listed in `atoll --help`.
struct ExitStatus: Equatable {
    let rawValue: Int32

    static let damaged = ExitStatus(rawValue: 1)
    static let usage = ExitStatus(rawValue: 64)
    static let badInput = ExitStatus(rawValue: 65)
    static let noInput = ExitStatus(rawValue: 66)
    static let internalError = ExitStatus(rawValue: 70)
    static let outputExists = ExitStatus(rawValue: 73)
    static let ioError = ExitStatus(rawValue: 74)
    static let busy = ExitStatus(rawValue: 75)
    static let permission = ExitStatus(rawValue: 77)

    init(rawValue: Int32) { self.rawValue = rawValue }

    /// The status of an Atoll error, by its kind.
    init(_ error: AtollError) {
        switch error.kind {
        case .fileCorrupted, .notAnAtollFile, .fileFormatTooNew, .fileEncrypted, .invalidKey:
            self = .damaged
        case .invalidInput, .invalidQuery, .invalidArgument, .typeMismatch, .requiredValueMissing, .primaryKeyExists,
             .primaryKeyMissing, .objectNotFound, .schemaMismatch, .migrationRequired, .limitExceeded, .invalidatedObject:
            self = .badInput
        case .fileNotFound:
            self = .noInput
        case .fileExists:
            self = .outputExists
        case .ioError:
            self = .ioError
        case .fileLocked, .tooManyActiveVersions, .tooManyReaders, .timeout:
            self = .busy
        case .fileAccessDenied, .readOnly, .permissionDenied:
            self = .permission
        default:
            self = .internalError
        }
    }
}

/// A failure the tool itself detects (not from the library).
struct CLIFailure: Error {
    let message: String
    let status: ExitStatus

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}
