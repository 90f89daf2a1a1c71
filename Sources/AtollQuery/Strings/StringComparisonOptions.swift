/// The modifiers written after a string operator: `[c]`, `[d]` or `[cd]`.
///
/// ```swift
/// // name BEGINSWITH[cd] 'e'
/// let options: StringComparisonOptions = [.caseInsensitive, .diacriticInsensitive]
/// ```
///
/// See ``UnicodeFolding`` for exactly what each option folds, and ``BinaryMatcher`` for what
/// they mean on binary data.
public struct StringComparisonOptions: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `[c]`: full Unicode case folding ('ß' matches "SS", 'Σ' matches 'ς').
    public static let caseInsensitive = StringComparisonOptions(rawValue: 1 << 0)
    /// `[d]`: combining diacritical marks are ignored after canonical decomposition ('é' matches 'e').
    public static let diacriticInsensitive = StringComparisonOptions(rawValue: 1 << 1)

    /// The modifier as written in a query: "", "[c]", "[d]" or "[cd]".
    public var description: String {
        switch (contains(.caseInsensitive), contains(.diacriticInsensitive)) {
        case (false, false): ""
        case (true, false): "[c]"
        case (false, true): "[d]"
        case (true, true): "[cd]"
        }
    }
}

/// The string operators an evaluator runs per row through ``StringMatcher`` and ``BinaryMatcher``.
///
/// `!=` is the negation of ``equal``; relational operators on strings use ``StringOrdering``.
public enum StringOperation: String, Sendable, Hashable, CaseIterable {
    case equal = "=="
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
}
