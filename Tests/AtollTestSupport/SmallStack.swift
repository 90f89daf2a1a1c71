import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The stack size for tests that check a nesting limit by running its worst case on a small
/// thread stack: 512 KiB (Darwin's secondary-thread size, the smallest in common use), or 4 MiB
/// when the process runs under Thread Sanitizer, whose instrumentation makes every frame several
/// times larger (the recursion is not deeper: the same limits, on a stack scaled like the frames).
public enum SmallStack {
    /// 512 KiB, or 4 MiB under Thread Sanitizer.
    public static var bytes: Int { ThreadSanitizer.isActive ? 4 << 20 : 512 << 10 }
}

/// Whether this process runs under Thread Sanitizer (`swift test --sanitize=thread`).
public enum ThreadSanitizer {
    public static let isActive = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil

    /// The factor a test scales a deadline by: 10 under Thread Sanitizer, whose instrumentation
    /// makes a program 5 to 15 times slower (its child processes too, built alike), and 1
    /// otherwise, so that a normal run keeps the deadline as written.
    public static var slowdown: Double { isActive ? 10 : 1 }

    /// A deadline that only bounds a wait, times `slowdown`.
    public static func scaled(_ duration: Duration) -> Duration { duration * Int(slowdown) }

    /// A deadline in seconds that only bounds a wait, times `slowdown`.
    public static func scaled(_ seconds: Double) -> Double { seconds * slowdown }
}
