import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads a child process's output pipe line by line, waiting at most a given time for each line.
public final class LineReader {
    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Reads from `fileDescriptor` (a pipe's read end, which must stay open while reading).
    public init(fileDescriptor: Int32) { fd = fileDescriptor }

    /// The next line, or nil at the end of the output or after `timeout` seconds.
    public func readLine(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeFirst(nl + 1)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32(min(remaining, 1) * 1000)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }
}
