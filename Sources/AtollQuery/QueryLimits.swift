/// Limits on query input, so that no query string can exhaust the stack or memory.
///
/// Exceeding one is an ordinary `.invalidQuery` error that names the limit.
public enum QueryLimits {
    /// The longest query string accepted, in UTF-8 bytes.
    public static let queryBytesMax = 1 << 20
    /// The deepest nesting of parentheses, NOT, `{…}` lists and SUBQUERY (see
    /// ``subqueryNestingCost``).
    ///
    /// Parsing, binding, evaluating and releasing a query tree all recurse once per level, on
    /// whatever thread the caller uses. The limit is chosen so that the worst case fits with room
    /// to spare in a 512 KiB stack (the smallest common thread stack: Darwin's secondary threads)
    /// even in unoptimized debug builds, where a level costs up to ~4 KiB. Real queries nest a
    /// handful of levels; flat AND/OR chains of any length do not nest at all.
    public static let nestingDepthMax = 100
    /// How many levels of ``nestingDepthMax`` one SUBQUERY uses: a SUBQUERY nests a whole
    /// predicate inside an operand and costs about four times the stack of a parenthesis.
    public static let subqueryNestingCost = 4
    /// The most components of one key path (`owner.dogs.@count` has three), `%K` arguments
    /// expanded. Evaluation walks a key path one step per component: to-one steps in a loop,
    /// each list or linking-objects step one level deeper on the stack, so this bounds both the
    /// work per object and (with ``nestingDepthMax``) the stack. Real key paths have a handful.
    public static let keyPathComponentsMax = 64
    /// The highest argument index (`$n`) accepted.
    public static let argumentIndexMax = 1 << 20
}
