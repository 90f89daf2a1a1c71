import ArgumentParser
import Atoll

/// `--key-file PATH`: the 64-byte encryption key of an encrypted database, read from a file so
/// that it never appears on the command line (where `ps` and shell history would show it).
struct KeyFileOption: ParsableArguments {
    @Option(name: .customLong("key-file"), help: ArgumentHelp(
        "The database's encryption key: a file holding 64 raw bytes or 128 hexadecimal characters. Keep it readable by you only.",
        valueName: "path"))
    var path: String?

    /// The key, or nil without the option.
    func key() throws -> EncryptionKey? {
        guard let path else { return nil }
        return try Self.parse(try DatabaseAccess.readFile(path, what: "key file"), path: path)
    }

    /// 64 bytes are the raw key; otherwise, surrounding whitespace aside, 128 hex digits.
    static func parse(_ bytes: [UInt8], path: String) throws -> EncryptionKey {
        if bytes.count == EncryptionKey.byteCount { return try EncryptionKey(bytes: bytes) }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) }
        let digits = bytes.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        let invalid = CLIFailure(.badInput, "the key file '\(path)' must hold 64 raw bytes or 128 hexadecimal characters (it has \(bytes.count) bytes)")
        guard digits.count == 2 * EncryptionKey.byteCount else { throw invalid }
        var key: [UInt8] = []
        key.reserveCapacity(EncryptionKey.byteCount)
        var high: UInt8?
        for c in digits {
            let nibble: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = c - UInt8(ascii: "A") + 10
            default: throw invalid
            }
            if let h = high { key.append(h << 4 | nibble); high = nil } else { high = nibble }
        }
        return try EncryptionKey(bytes: key)
    }
}
