#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The documented, total order of strings (and binary data) used by SORT, by `<`, `<=`, `>`, `>=`
/// and BETWEEN on strings, and by DISTINCT's tie-breaking.
///
/// Strings are ordered by their Unicode scalar values, compared one by one, a shorter string
/// first when it is a prefix of the longer: the order of code points. For valid UTF-8 this is
/// exactly the order of the UTF-8 bytes, so rows compare with `memcmp` and never decode. It is
/// not a linguistic collation ('Z' < 'a' < 'é'), but it is total, stable across machines and
/// locales, and consistent with `==` without modifiers. nil sorts before every string.
///
/// ```swift
/// StringOrdering.compare(aBytes, bBytes) < 0      // a sorts before b
/// StringOrdering.compare(nil, someBytes) < 0      // nil first
/// ```
public enum StringOrdering {
    /// Negative if `a` sorts before `b`, zero if equal, positive if after. O(min(n, m)).
    @inline(__always)
    public static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let shared = min(a.count, b.count)
        if shared > 0, let aBase = a.baseAddress, let bBase = b.baseAddress {
            let result = memcmp(aBase, bBase, shared)
            if result != 0 { return Int(result) }
        }
        return a.count - b.count
    }

    /// As ``compare(_:_:)-(UnsafeRawBufferPointer,UnsafeRawBufferPointer)``, with nil before every value.
    @inline(__always)
    public static func compare(_ a: UnsafeRawBufferPointer?, _ b: UnsafeRawBufferPointer?) -> Int {
        switch (a, b) {
        case (nil, nil): 0
        case (nil, _): -1
        case (_, nil): 1
        case let (a?, b?): compare(a, b)
        }
    }

    /// Convenience for tests and tools: the same order on Swift strings.
    public static func compare(_ a: String, _ b: String) -> Int {
        var a = a, b = b
        return a.withUTF8 { aBytes in b.withUTF8 { bBytes in compare(UnsafeRawBufferPointer(aBytes), UnsafeRawBufferPointer(bBytes)) } }
    }
}
