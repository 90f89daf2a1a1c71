#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte-exact `==`, BEGINSWITH, ENDSWITH and CONTAINS on raw memory with `memcmp` and `memchr`,
/// for strings without modifiers and for binary data. Never allocates.
enum ExactByteMatching {
    /// The result of `operation` (not LIKE) on the bytes, or nil for LIKE.
    @inline(__always)
    static func run(_ operation: StringOperation, _ text: UnsafeRawBufferPointer, _ pattern: UnsafeRawBufferPointer) -> Bool? {
        switch operation {
        case .equal:
            return text.count == pattern.count && same(text.baseAddress, pattern.baseAddress, pattern.count)
        case .beginsWith:
            return text.count >= pattern.count && same(text.baseAddress, pattern.baseAddress, pattern.count)
        case .endsWith:
            return text.count >= pattern.count && same(text.baseAddress.map { $0 + (text.count - pattern.count) }, pattern.baseAddress, pattern.count)
        case .contains:
            return contains(text, pattern)
        case .like:
            return nil
        }
    }

    @inline(__always)
    private static func same(_ a: UnsafeRawPointer?, _ b: UnsafeRawPointer?, _ count: Int) -> Bool {
        guard count > 0, let a, let b else { return true }
        return memcmp(a, b, count) == 0
    }

    /// `memchr` for the pattern's first byte, then `memcmp` for the rest. O(n·m) worst case.
    private static func contains(_ text: UnsafeRawBufferPointer, _ pattern: UnsafeRawBufferPointer) -> Bool {
        guard let patternBase = pattern.baseAddress, pattern.count > 0 else { return true }
        guard let textBase = text.baseAddress, text.count >= pattern.count else { return false }
        let first = Int32(patternBase.load(as: UInt8.self))
        var start = textBase
        let lastStart = textBase + (text.count - pattern.count)
        while start <= lastStart {
            guard let found = memchr(start, first, lastStart - start + 1) else { return false }
            let candidate = UnsafeRawPointer(found)
            if memcmp(candidate, patternBase, pattern.count) == 0 { return true }
            start = candidate + 1
        }
        return false
    }
}
