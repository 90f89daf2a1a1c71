/// A string operator applied to binary data, byte by byte, with its operand prepared once.
///
/// ```swift
/// let matcher = BinaryMatcher(.beginsWith, pattern: Array("GIF8".utf8))
/// matcher.matches([0x47, 0x49, 0x46, 0x38, 0x39, 0x61])   // true
/// ```
///
/// Semantics: the same operators as ``StringMatcher`` on bytes. `?` matches one byte and `*` any
/// run of bytes. Folding has no meaning for arbitrary bytes, so `[c]` compares bytes
/// ASCII-case-insensitively (useful for ASCII text stored as data) and `[d]` is ignored.
/// BEGINSWITH, ENDSWITH and CONTAINS with an empty pattern match every value (realm-core).
///
/// Cost per row: O(n), or O(n·m) worst case for CONTAINS and LIKE; never allocates.
public struct BinaryMatcher: Sendable {
    public let operation: StringOperation
    public let options: StringComparisonOptions
    /// The pattern, ASCII-lowercased under `[c]`.
    private let pattern: [UInt8]

    public init(_ operation: StringOperation, pattern: [UInt8], options: StringComparisonOptions = []) {
        self.operation = operation
        self.options = options
        self.pattern = options.contains(.caseInsensitive) ? pattern.map(ASCII.lowercased) : pattern
    }

    /// Whether the row value `bytes` satisfies `bytes <operation> pattern`.
    public func matches(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if pattern.isEmpty && operation.isSubstringSearch { return true }
        if options.contains(.caseInsensitive) {
            return StringMatcher.run(operation, bytes.lazy.map(ASCII.lowercased), pattern)
        }
        return pattern.withUnsafeBytes { ExactByteMatching.run(operation, bytes, $0) ?? StringMatcher.run(operation, bytes, $0) }
    }

    /// Convenience for tests and tools.
    public func matches(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { matches($0) }
    }
}
