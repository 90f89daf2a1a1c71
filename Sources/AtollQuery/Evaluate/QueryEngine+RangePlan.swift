import AtollStorage

// Range terms on an indexed int, date or decimal128 property (`price BETWEEN {a, b}`,
// `age > 40`): the index's order is the value order (IndexKey), so the objects in the range are
// one run of the index. Null has a key tag of its own, outside every run.
//
// The run is exactly the matches for BETWEEN, `>=` and `<=`, and for `>` and `<` on ints (whose
// bound moves by one): then no candidate is checked again, and a count is the run's length. It
// is a superset otherwise, when the whole predicate is checked again on each candidate: a
// strict bound on a date or decimal includes the objects equal to it, and a decimal NaN keys
// after every number, so `>=` alone on a decimal reaches the NaNs, which no range matches.
// A range holding more than a quarter of the objects is left to the scan, which tests packed
// columns faster than candidates are located one by one.

extension QueryEngine {
    /// The run of an index that a range comparison reads: its bounds (nil: unbounded; the run is
    /// empty when `empty`), and whether the run is exactly the comparison's matches.
    struct RangeRun {
        var low: StorageValue?
        var high: StorageValue?
        var empty = false
        var exact: Bool
    }

    /// The index run for the range comparison `c` on `property`, or nil when it is not a range
    /// an index ordered by value can answer.
    func rangeRun(_ c: BoundComparison, property: QueryProperty, column: Int, table: Table) -> RangeRun? {
        guard case .constant(let constant) = c.right, table.hasIndex(column) else { return nil }
        let type = property.type
        guard type == .int || type == .date || type == .decimal128 else { return nil }
        /// A bound of the property's own type (nil: the range cannot come from the index).
        func bound(_ v: QueryValue) -> StorageValue? {
            switch (type, v) {
            case (.int, .int), (.date, .timestamp): return v.storageValue
            case (.decimal128, .decimal128(let d)) where !d.isNaN: return v.storageValue
            default: return nil
            }
        }
        switch (c.operator, constant) {
        case (.between, .list(let pair)) where pair.count == 2:
            guard let l = bound(pair[0]), let h = bound(pair[1]) else { return nil }
            return RangeRun(low: l, high: h, exact: true)
        case (.greater, _), (.greaterOrEqual, _):
            guard let l = bound(constant) else { return nil }
            if c.operator == .greater, case .int(let v) = l {
                return v < .max ? RangeRun(low: .int(v + 1), high: nil, exact: true) : RangeRun(empty: true, exact: true)
            }
            return RangeRun(low: l, high: nil, exact: c.operator == .greaterOrEqual && type != .decimal128)
        case (.less, _), (.lessOrEqual, _):
            guard let h = bound(constant) else { return nil }
            if c.operator == .less, case .int(let v) = h {
                return v > .min ? RangeRun(low: nil, high: .int(v - 1), exact: true) : RangeRun(empty: true, exact: true)
            }
            return RangeRun(low: nil, high: h, exact: c.operator == .lessOrEqual)
        default:
            return nil
        }
    }

    /// The most objects a range is read from its index for; a wider one is scanned.
    private func rangeObjectsMax(_ table: Table) -> Int { max(64, table.count / 4) }

    /// Candidates for the range comparison `c` from `table`'s index of its property, and whether
    /// they are exactly its matches; nil when it is not a range on an index ordered by value, or
    /// the range is too large to pay.
    func rangeCandidates(_ c: BoundComparison, property: QueryProperty, column: Int, table: Table) throws -> (keys: [ObjectKey], exact: Bool)? {
        guard let run = rangeRun(c, property: property, column: column, table: table) else { return nil }
        if run.empty { return ([], true) }
        do {
            guard let keys = try table.findAll(indexed: column, from: run.low, through: run.high, keysMax: rangeObjectsMax(table)) else { return nil }
            return (keys, run.exact)
        } catch let e as AtollError where e.kind == .invalidArgument {
            // No usable index after all: scan. (A failed read of the index is not caught.)
            return nil
        }
    }

    /// The number of matches of a predicate that is one range comparison the index answers
    /// exactly, counted in the index without listing the objects; nil otherwise, or when the
    /// range is too large to pay.
    func exactRangeCount(_ predicate: BoundPredicate, table: Table) throws -> Int? {
        guard case .comparison(let c) = predicate, let (property, column) = indexedProperty(c, table: table),
              let run = rangeRun(c, property: property, column: column, table: table), run.exact else { return nil }
        if run.empty { return 0 }
        do {
            return try table.countAll(indexed: column, from: run.low, through: run.high, countMax: rangeObjectsMax(table))
        } catch let e as AtollError where e.kind == .invalidArgument {
            return nil
        }
    }
}
