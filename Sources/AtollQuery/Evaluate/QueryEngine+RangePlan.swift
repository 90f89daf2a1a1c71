import AtollStorage

// Range terms on an indexed int, date or decimal128 property (`price BETWEEN {a, b}`,
// `age > 40`): the index's order is the value order (IndexKey), so the objects in the range are
// one run of the index. The run is a superset of the matches (a decimal NaN keys after every
// number, and bounds are inclusive), so the whole predicate is checked again on each candidate.
// A range holding more than a quarter of the objects is left to the scan, which tests packed
// columns faster than candidates are located one by one.

extension QueryEngine {
    /// Candidates for the range comparison `c` from `table`'s index of its property, or nil when
    /// it is not a range on an index ordered by value, or the range is too large to pay.
    func rangeCandidates(_ c: BoundComparison, property: QueryProperty, column: Int, table: Table) throws -> [ObjectKey]? {
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
        let low: StorageValue?, high: StorageValue?
        switch (c.operator, constant) {
        case (.between, .list(let pair)) where pair.count == 2:
            guard let l = bound(pair[0]), let h = bound(pair[1]) else { return nil }
            low = l; high = h
        case (.greater, _), (.greaterOrEqual, _):
            guard let l = bound(constant) else { return nil }
            low = l; high = nil
        case (.less, _), (.lessOrEqual, _):
            guard let h = bound(constant) else { return nil }
            low = nil; high = h
        default:
            return nil
        }
        do {
            return try table.findAll(indexed: column, from: low, through: high, keysMax: max(64, table.count / 4))
        } catch let e as AtollError where e.kind == .invalidArgument {
            // No usable index after all: scan. (A failed read of the index is not caught.)
            return nil
        }
    }
}
