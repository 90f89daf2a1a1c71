#if canImport(Glibc)
import Glibc
#endif

/// Monotonic time in nanoseconds (`CLOCK_MONOTONIC`: not affected by wall-clock changes).
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Measures one interval: start it right before the work, read `elapsedNanoseconds` right after.
struct Stopwatch {
    let startNanoseconds = monotonicNanoseconds()

    var elapsedNanoseconds: UInt64 { monotonicNanoseconds() - startNanoseconds }
}

/// Keeps a computed value alive so the optimizer cannot drop the work that produced it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
