public import AtollStorage

extension StorageValue {
    /// The order a sort by `self` gives two stored values of a collection of values (a list or
    /// set of strings, numbers, dates, mixed values...): the query language's order, the one
    /// `sorted(byKeyPath:)` uses for properties (nil first, numbers by value across types,
    /// strings by `StringOrdering`). Negative, zero or positive, as `a` sorts before, with or
    /// after `b`.
    public static func sortOrder(_ a: StorageValue, _ b: StorageValue) -> Int {
        ValueComparison.compare(QueryValue(a, linkTarget: nil), QueryValue(b, linkTarget: nil))
    }
}
