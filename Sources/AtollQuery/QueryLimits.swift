/// Limits on query input, so that no query string can exhaust the stack or memory.
///
/// Exceeding one is an ordinary `.invalidQuery` error that names the limit.
public enum QueryLimits {
    /// The longest query string accepted, in UTF-8 bytes.
    public static let queryBytesMax = 1 << 20
    /// The deepest nesting of parentheses, NOT, SUBQUERY and `{…}` lists. Parsing and binding
    /// recurse once per level, so this bounds their stack use.
    public static let nestingDepthMax = 1_000
    /// The highest argument index (`$n`) accepted.
    public static let argumentIndexMax = 1 << 20
}
