/// A string operator with its right-hand operand prepared once per query, applied to one row's
/// UTF-8 bytes at a time.
///
/// ```swift
/// let matcher = StringMatcher(.beginsWith, pattern: "É", options: [.caseInsensitive, .diacriticInsensitive])
/// "eclair".utf8.withContiguousStorageIfAvailable { matcher.matches(UnsafeRawBufferPointer($0)) } // true
/// matcher.matches("Éclair")                                                                     // true
/// ```
///
/// Semantics (the contract the evaluator relies on):
/// - Without options, `==`, BEGINSWITH, ENDSWITH and CONTAINS compare bytes, like Realm; two
///   canonically equivalent spellings ('é' and "e\u{301}") are different strings.
/// - With `[c]`, `[d]` or `[cd]` both sides are compared in their ``UnicodeFolding`` form, and a
///   match never splits a character: "Éclair" does not BEGINSWITH[c] "e" (it begins with "é").
/// - `BEGINSWITH`, `ENDSWITH` and `CONTAINS` with an empty pattern match every (non-nil) value,
///   as in realm-core (every string begins with, ends with and contains the empty string).
/// - `LIKE`: `*` matches any run of characters, `?` exactly one character, where a character is a
///   Unicode scalar together with the combining marks (canonical combining class ≠ 0) that follow
///   it, so `'caf?' LIKE` matches both spellings of "café"; a literal pattern character matches
///   a whole character, so "e*" does not match "é…". There is no escape character, as in Realm:
///   `*` and `?` in a pattern are always wildcards.
///
/// Cost per row: O(n) for `==`, BEGINSWITH, ENDSWITH; O(n·m) worst case for CONTAINS and LIKE.
/// When the row's bytes are ASCII and the folded pattern is ASCII (the common case) matching
/// reads the bytes in place and allocates nothing; otherwise the row is folded into a scalar
/// array first.
public struct StringMatcher: Sendable {
    public let operation: StringOperation
    public let options: StringComparisonOptions
    /// The pattern's UTF-8 bytes, as given.
    private let patternBytes: [UInt8]
    /// The folded pattern when it is pure ASCII (lowercased under `[c]`); nil otherwise.
    private let foldedASCIIPattern: [UInt8]?
    /// The folded pattern as scalars, for rows that are not ASCII.
    private let foldedPattern: [Unicode.Scalar]

    /// A matcher for `operation` with the right-hand operand `pattern`.
    public init(_ operation: StringOperation, pattern: String, options: StringComparisonOptions = []) {
        self.operation = operation
        self.options = options
        patternBytes = Array(pattern.utf8)
        foldedPattern = UnicodeFolding.foldedScalars(of: pattern, options: options)
        if foldedPattern.allSatisfy({ $0.isASCII }) {
            foldedASCIIPattern = foldedPattern.map { UInt8(truncatingIfNeeded: $0.value) }
        } else {
            foldedASCIIPattern = nil
        }
    }

    /// A matcher whose pattern is given as UTF-8 bytes (invalid sequences become U+FFFD).
    public init(_ operation: StringOperation, utf8 pattern: UnsafeRawBufferPointer, options: StringComparisonOptions = []) {
        self.init(operation, pattern: String(decoding: pattern.bindMemoryAssumingUInt8(), as: UTF8.self), options: options)
    }

    /// Whether the row value whose UTF-8 bytes are `text` satisfies `text <operation> pattern`.
    public func matches(_ text: UnsafeRawBufferPointer) -> Bool {
        if patternBytes.isEmpty && operation.isSubstringSearch { return true }
        if options.isEmpty {
            return matchesExactly(text)
        }
        guard let asciiPattern = foldedASCIIPattern else {
            // Folding maps ASCII to ASCII, so an ASCII row cannot match non-ASCII pattern text
            // (wildcards are ASCII, so this holds for LIKE as well).
            if ASCII.isASCII(text) { return false }
            return matchesFolded(text)
        }
        guard ASCII.isASCII(text) else { return matchesFolded(text) }
        if options.contains(.caseInsensitive) {
            return Self.run(operation, text.lazy.map(ASCII.lowercased), asciiPattern)
        }
        // `[d]` alone: ASCII has no diacritic marks, so the bytes are already folded.
        return asciiPattern.withUnsafeBytes { ExactByteMatching.run(operation, text, $0) ?? Self.run(operation, text, $0) }
    }

    /// Convenience for tests and tools: matches a Swift string.
    public func matches(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { matches(UnsafeRawBufferPointer($0)) }
    }

    private func matchesExactly(_ text: UnsafeRawBufferPointer) -> Bool {
        if operation == .like && !ASCII.isASCII(text) {
            // LIKE works on characters (`?` is one character, a literal does not match half of
            // one), so decode the row into scalars.
            let scalars = UnicodeFolding.foldedScalars(ofUTF8: text, options: [])
            return SequenceMatching.like(scalars, foldedPattern)
        }
        return patternBytes.withUnsafeBytes { ExactByteMatching.run(operation, text, $0) ?? Self.run(operation, text, $0) }
    }

    private func matchesFolded(_ text: UnsafeRawBufferPointer) -> Bool {
        let scalars = UnicodeFolding.foldedScalars(ofUTF8: text, options: options)
        return Self.run(operation, scalars, foldedPattern)
    }

    @inline(__always)
    static func run<Text: RandomAccessCollection<E>, Pattern: RandomAccessCollection<E>, E: WildcardElement>(
        _ operation: StringOperation, _ text: Text, _ pattern: Pattern
    ) -> Bool where Text.Index == Int, Pattern.Index == Int {
        switch operation {
        case .equal: SequenceMatching.equal(text, pattern)
        case .beginsWith: SequenceMatching.hasPrefix(text, pattern)
        case .endsWith: SequenceMatching.hasSuffix(text, pattern)
        case .contains: SequenceMatching.contains(text, pattern)
        case .like: SequenceMatching.like(text, pattern)
        }
    }
}

extension StringOperation {
    /// BEGINSWITH, ENDSWITH and CONTAINS, which every value satisfies with an empty pattern.
    var isSubstringSearch: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains: true
        case .equal, .like: false
        }
    }
}
