/// A 64-byte key that encrypts and authenticates a data file (docs/FORMAT.md, "Encryption").
///
/// Bytes 0..<32 are the AES-256 key material, bytes 32..<64 the HMAC-SHA256 key material; each
/// file derives its own page keys from them with HKDF and its random file id, so one key can
/// protect many files without two files ever sharing a keystream.
///
/// ```swift
/// let key = try EncryptionKey(bytes: keyBytesFromTheKeychain)   // exactly 64 bytes
/// let db = try Database.open(DatabaseConfiguration(path: "app.atoll", encryptionKey: key))
/// ```
///
/// The key is never printed: `description` and `debugDescription` are redacted.
public struct EncryptionKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public static let byteCount = 64

    /// The raw key bytes.
    public let bytes: [UInt8]

    /// Fails with `.invalidKey` unless `bytes` holds exactly 64 bytes.
    public init(bytes: some Collection<UInt8>) throws {
        let array = Array(bytes)
        guard array.count == Self.byteCount else {
            throw AtollError(.invalidKey, "an encryption key must be \(Self.byteCount) bytes long; this one has \(array.count)")
        }
        self.bytes = array
    }

    /// A random key from the system's secure generator (for tests and new files).
    public static func random() -> EncryptionKey {
        var rng = SystemRandomNumberGenerator()
        // A 64-element array cannot fail the length check.
        return EncryptionKey(unchecked: (0..<byteCount).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    public var description: String { "EncryptionKey(64 bytes, redacted)" }
    public var debugDescription: String { description }

    /// Constant-time comparison, so comparing keys leaks nothing through timing.
    public static func == (a: EncryptionKey, b: EncryptionKey) -> Bool {
        guard a.bytes.count == b.bytes.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.bytes.count { difference |= a.bytes[i] ^ b.bytes[i] }
        return difference == 0
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}
