import Testing
@testable import AtollStorage

@Suite struct ChecksumTests {
    @Test func crc32cMatchesKnownVectors() {
        // RFC 3720 B.4 test vectors.
        #expect(CRC32C.checksum(Array(repeating: UInt8(0), count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum(Array(repeating: UInt8(0xFF), count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum(Array(UInt8(0)..<32)) == 0x46DD_794E)
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    }

    @Test func crc32cContinues() {
        let a = Array("hello, ".utf8), b = Array("world".utf8)
        let whole = CRC32C.checksum(a + b)
        let first = CRC32C.checksum(a)
        let second = b.withUnsafeBytes { CRC32C.checksum($0, continuing: first) }
        #expect(whole == second)
    }
}
