#if canImport(Glibc)
import Glibc
#endif

/// A one-line progress bar on stderr, redrawn at most 10 times a second. Shown only when stderr
/// is a terminal, so pipes and logs never see it.
final class ProgressBar {
    private let label: String
    private var lastDraw: UInt64 = 0
    private var drawn = false
    private static let width = 30

    /// A bar, or nil when stderr is not a terminal.
    static func forTerminal(label: String) -> ProgressBar? {
        isatty(2) == 1 ? ProgressBar(label: label) : nil
    }

    private init(label: String) { self.label = label }

    /// Redraws the bar (throttled): `phase` names the step, `completed` of `total` units.
    func update(_ phase: String, completed: Int, total: Int) {
        let now = Self.nanoseconds()
        guard now - lastDraw >= 100_000_000 || completed >= total else { return }
        lastDraw = now
        let fraction = total > 0 ? min(1, Double(completed) / Double(total)) : 1
        let filled = Int(fraction * Double(Self.width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: Self.width - filled)
        let percent = Int(fraction * 100)
        let text = "\r\u{1B}[K\(label) [\(bar)] \(percent)% \(phase)"
        Output.writeAll(2, Array(text.utf8))
        drawn = true
    }

    /// Erases the bar.
    func finish() {
        if drawn { Output.writeAll(2, Array("\r\u{1B}[K".utf8)) }
        drawn = false
    }

    private static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
