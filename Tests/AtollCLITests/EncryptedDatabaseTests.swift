import Foundation
import Testing

/// `--key-file PATH` on every command that opens a database: 64 raw bytes or 128 hex digits,
/// never a key on the command line.
@Suite struct EncryptedDatabaseTests {
    static func randomKey() -> [UInt8] {
        var rng = SystemRandomNumberGenerator()
        return (0..<64).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    /// A sandbox with an encrypted `pets.atoll`, its key as hex (`key.hex`) and raw (`key.bin`).
    func sandbox() throws -> CLISandbox {
        let s = CLISandbox()
        let key = Self.randomKey()
        try s.write("schema.json", Fixtures.schema)
        try s.write("data.json", Fixtures.data)
        try s.write("key.hex", key.map { String(format: "%02X", $0) }.joined() + "\n")
        try Data(key).write(to: URL(fileURLWithPath: s.file("key.bin")))
        try Data(Self.randomKey()).write(to: URL(fileURLWithPath: s.file("other.bin")))
        let r = try s.atoll("import", "pets.atoll", "--schema", "schema.json", "--data", "data.json", "--key-file", "key.hex")
        #expect(r.status == 0, "\(r)")
        return s
    }

    @Test func everyCommandOpensAnEncryptedDatabaseWithItsKeyFile() throws {
        let s = try sandbox()
        #expect(try Data(s.read("pets.atoll")).range(of: Data("Fido".utf8)) == nil, "no plaintext in the file")
        let query = try s.atoll("query", "pets.atoll", "Dog", "name == 'Fido'", "--json", "--key-file", "key.bin")
        #expect(query.status == 0 && query.stdout.contains("\"Fido\""), "\(query)")
        for command in [["schema"], ["stats"], ["verify"], ["log"], ["dump"]] {
            let r = try s.run(command + ["pets.atoll", "--key-file", "key.hex"])
            #expect(r.status == 0, "\(command): \(r)")
        }
        let delete = try s.atoll("delete", "pets.atoll", "Dog", "id == 3", "--key-file", "key.bin")
        #expect(delete.status == 0, "\(delete)")
        let compact = try s.atoll("compact", "pets.atoll", "--key-file", "key.bin")
        #expect(compact.status == 0, "\(compact)")
        let copy = try s.atoll("compact", "pets.atoll", "--out", "copy.atoll", "--key-file", "key.bin")
        #expect(copy.status == 0, "\(copy)")
        for db in ["pets.atoll", "copy.atoll"] {
            let verify = try s.atoll("verify", db, "--key-file", "key.hex")
            #expect(verify.status == 0 && verify.stdout.contains("Dog 2"), "\(db): \(verify)")
        }
    }

    @Test func aMissingWrongOrMalformedKeyIsOneClearError() throws {
        let s = try sandbox()
        func failure(_ args: String...) throws -> (Int32, String) {
            let r = try s.run(args)
            #expect(r.stdout == "" && r.errorLines.count == 1 && r.stderr.hasPrefix("atoll: "), "\(r)")
            return (r.status, r.stderr)
        }
        let (noKey, noKeyMessage) = try failure("query", "pets.atoll", "Dog")
        #expect(noKey == 1 && noKeyMessage.contains("is encrypted"), "\(noKeyMessage)")
        let (wrong, wrongMessage) = try failure("verify", "pets.atoll", "--key-file", "other.bin")
        #expect(wrong == 1 && wrongMessage.contains("does not open"), "\(wrongMessage)")
        try s.write("short.hex", "00112233")
        let (short, shortMessage) = try failure("stats", "pets.atoll", "--key-file", "short.hex")
        #expect(short == 65 && shortMessage.contains("64 raw bytes or 128 hexadecimal characters"), "\(shortMessage)")
        try s.write("bad.hex", String(repeating: "zz", count: 64))
        #expect(try failure("stats", "pets.atoll", "--key-file", "bad.hex").0 == 65)
        let (missing, missingMessage) = try failure("stats", "pets.atoll", "--key-file", "nowhere.key")
        #expect(missing == 66 && missingMessage.contains("key file"), "\(missingMessage)")
        // An unencrypted database with a key is refused too.
        #expect(try s.atoll("import", "plain.atoll", "--schema", "schema.json").status == 0)
        let (plain, plainMessage) = try failure("query", "plain.atoll", "Dog", "--key-file", "key.bin")
        #expect(plain == 1 && plainMessage.contains("not encrypted"), "\(plainMessage)")
    }
}
