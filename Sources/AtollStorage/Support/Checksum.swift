import CAtollShims

/// CRC32C (Castagnoli), hardware-accelerated on x86-64 with SSE4.2.
/// Every page and header slot in the data file, and every sync frame, carries one.
public enum CRC32C {
    public static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        return atoll_crc32c(crc, base, bytes.count)
    }

    public static func checksum(_ pointer: UnsafeRawPointer, count: Int, continuing crc: UInt32 = 0) -> UInt32 {
        count > 0 ? atoll_crc32c(crc, pointer, count) : crc
    }

    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        let array = Array(bytes)
        return array.withUnsafeBytes { checksum($0) }
    }
}
