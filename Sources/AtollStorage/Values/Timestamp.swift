/// A point in time with nanosecond precision: seconds since 1970-01-01 00:00:00 UTC and a
/// nanosecond part in 0..<1_000_000_000 (for negative times the nanoseconds still count forward
/// from the whole second below). Covers every `Date` including `distantPast`/`distantFuture`.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var seconds: Int64
    public var nanoseconds: Int32

    public init(seconds: Int64, nanoseconds: Int32) {
        // Normalize so that 0 <= nanoseconds < 1e9.
        var s = seconds, n = Int64(nanoseconds)
        if n < 0 || n >= 1_000_000_000 {
            s += n / 1_000_000_000
            n %= 1_000_000_000
            if n < 0 { n += 1_000_000_000; s -= 1 }
        }
        self.seconds = s
        self.nanoseconds = Int32(n)
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool {
        (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
    }

    public var description: String { "T\(seconds):\(nanoseconds)" }
}
