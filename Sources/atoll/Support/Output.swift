#if canImport(Glibc)
import Glibc
#endif

/// Buffered standard output written with write(2): no Foundation exceptions on a closed pipe,
/// and `flush()` after each line where a reader waits for it (`watch`).
final class Output {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private static let chunkBytes = 1 << 16

    /// Standard output. Each command makes its own and flushes it when done.
    init(fd: Int32 = 1) { self.fd = fd }

    deinit { try? flush() }

    func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.chunkBytes { try flush() }
    }

    func line(_ text: String) throws { try write(text + "\n") }

    func write(bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.chunkBytes { try flush() }
    }

    func flush() throws {
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        guard Self.writeAll(fd, buffer) else {
            throw CLIFailure(.ioError, "cannot write the output: \(String(cString: strerror(errno)))")
        }
    }

    /// Writes every byte, retrying after interrupts. Returns false on an error.
    @discardableResult
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return true }
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, base + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
    }

    static var stderrIsTerminal: Bool { isatty(2) == 1 }
}
