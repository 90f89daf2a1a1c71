import AtollStorage

/// Limits on nested input, so that no value or file decides how deep the stack grows.
///
/// Creating an object from a value recurses once per linked object given in place (a
/// dictionary, an array or an unmanaged object inside another); parsing JSON recurses once per
/// array or object. Input nested deeper is refused with an `AtollError` of kind
/// `.limitExceeded` naming the limit, never with a crash. Both limits fit in a 512 KiB thread
/// stack (the smallest in common use) in unoptimized builds, where a level of `create` takes
/// about 5 KiB (≈260 KiB at the limit) and a level of JSON about 2.7 KiB (≈350 KiB); optimized
/// builds take a fraction of that (NestedInputTests runs both at the limit on such a stack).
/// `atoll import` follows nested objects with a work list, not recursion.
public enum InputLimits {
    /// The deepest chain of linked objects created or added in one operation: `create(_:value:)`,
    /// `add(_:)` of an unmanaged graph, `Object(value:)`, `dynamicCreate` and `atoll import`.
    /// Objects that link to each other by primary key (or to managed objects) do not nest.
    public static let objectNestingDepthMax = 50

    /// The deepest nesting of arrays and objects in a JSON document (schema and data files,
    /// query arguments).
    public static let jsonNestingDepthMax = 128

    static func objectNestingExceeded(_ className: String) -> AtollError {
        AtollError(.limitExceeded, "objects are nested more than \(objectNestingDepthMax) levels deep (at a '\(className)'); "
            + "create the deepest objects first and link to them by primary key or as managed objects")
    }
}
