import Atoll
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Opening databases and reading input files, with the tool's errors.
enum DatabaseAccess {
    /// Fails unless `path` is an existing file, so that no command but `import` creates one
    /// (opening would otherwise create it, and its directory).
    static func requireExisting(_ path: String) throws {
        var st = stat()
        guard stat(path, &st) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw CLIFailure(.noInput, "no database at '\(path)'") }
            throw CLIFailure(errno == EACCES ? .permission : .ioError, "cannot open '\(path)': \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw CLIFailure(.noInput, "'\(path)' is not a database file") }
    }

    static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    /// A realm on an existing database for the dynamic API (its own classes, no models).
    /// `key`: the encryption key of an encrypted database (`--key-file`).
    static func openRealm(_ path: String, readOnly: Bool, key: EncryptionKey?, queue: DispatchQueue? = nil) throws -> Realm {
        try requireExisting(path)
        return try Realm(configuration: dynamicConfiguration(path, readOnly: readOnly, key: key), dynamicSchema: nil, queue: queue)
    }

    /// `configuration` at the file's own schema version: the dynamic API takes the file as it
    /// is, so a file an app migrated to version N opens instead of being refused as newer.
    static func dynamicConfiguration(_ path: String, readOnly: Bool, key: EncryptionKey?) throws -> Realm.Configuration {
        var c = configuration(path, readOnly: readOnly, key: key)
        if exists(path) { c.schemaVersion = try schemaVersionAtURL(URL(fileURLWithPath: path), encryptionKey: key.map { Data($0.bytes) }) }
        return c
    }

    static func configuration(_ path: String, readOnly: Bool, key: EncryptionKey?) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), encryptionKey: key.map { Data($0.bytes) }, readOnly: readOnly, objectTypes: [])
    }

    /// The storage engine's view of an existing database, read-only (stats, verify, log).
    static func openDatabase(_ path: String, key: EncryptionKey?) throws -> Database {
        try requireExisting(path)
        return try Database.open(DatabaseConfiguration(path: path, readOnly: true, createIfMissing: false, encryptionKey: key))
    }

    /// The bytes of an input file (schema, data).
    static func readFile(_ path: String, what: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            let status: ExitStatus = e == ENOENT || e == ENOTDIR ? .noInput : e == EACCES ? .permission : .ioError
            throw CLIFailure(status, "cannot read the \(what) '\(path)': \(String(cString: strerror(e)))")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                let status: ExitStatus = errno == EISDIR ? .noInput : .ioError
                throw CLIFailure(status, "cannot read the \(what) '\(path)': \(String(cString: strerror(errno)))")
            }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }
}
