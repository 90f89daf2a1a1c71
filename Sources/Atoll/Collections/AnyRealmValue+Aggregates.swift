import AtollStorage

// min/max/sum/average over collections of AnyRealmValue, by realm-core's rules for mixed values
// (aggregate_ops.hpp):
// - min and max consider every value that is not nil and not a decimal NaN, ordered as
//   realm-core's `Mixed::compare` orders them (numbers of different types by value, otherwise by
//   type rank: bool, numbers, string, binary, date, objectId, uuid; the set order of
//   `StorageValue.setOrder`);
// - sum and average consider only the numbers (int, float, double, decimal128 other than NaN:
//   `Mixed::accumulate_numeric_to`) and add them up as decimals, so both return `.decimal128`; the sum of no numbers is decimal 0 and their
//   average is nil.

enum MixedAggregate {
    // An object (a link) is left out of min and max here; realm-core orders links after every
    // other type.
    static func min(_ values: some Sequence<AnyRealmValue>) -> AnyRealmValue? { extreme(values, below: true) { $0.storageValue ?? .null } }
    static func max(_ values: some Sequence<AnyRealmValue>) -> AnyRealmValue? { extreme(values, below: false) { $0.storageValue ?? .null } }

    /// The smallest (or largest) value that is neither null nor a decimal NaN, in realm-core's
    /// order for mixed values.
    static func extreme<S: Sequence>(_ values: S, below: Bool, stored: (S.Element) -> StorageValue) -> S.Element? {
        var best: (value: S.Element, stored: StorageValue)?
        for value in values {
            let v = stored(value)
            switch v {
            case .null: continue
            case .decimal128(let d) where d.isNaN: continue
            default: break
            }
            guard let current = best else { best = (value, v); continue }
            let order = StorageValue.setOrder(v, current.stored)
            if below ? order < 0 : order > 0 { best = (value, v) }
        }
        return best?.value
    }

    /// The numbers' total as a decimal and how many numbers there were.
    static func total(_ values: some Sequence<StorageValue>) -> (sum: Decimal128, count: Int) {
        var sum = Decimal128.zero
        var count = 0
        for value in values {
            switch value {
            case .int(let i): sum += Decimal128(i)
            case .float(let f): sum += Decimal128(Double(f))
            case .double(let d): sum += Decimal128(d)
            case .decimal128(let d) where !d.isNaN: sum += d
            default: continue
            }
            count += 1
        }
        return (sum, count)
    }

    /// The aggregate of stored mixed values: min/max as above, sum as a decimal, average as a
    /// decimal or null when there are no numbers; count of the non-null values.
    static func aggregate(_ values: [StorageValue], _ kind: ColumnAggregate) -> StorageValue {
        switch kind {
        case .min: return extreme(values, below: true) { $0 } ?? .null
        case .max: return extreme(values, below: false) { $0 } ?? .null
        case .sum: return .decimal128(total(values).sum)
        case .average:
            let t = total(values)
            return t.count == 0 ? .null : .decimal128(t.sum.divided(by: t.count))
        case .count: return .int(Int64(values.count(where: { !$0.isNull })))
        }
    }

    static func sum(_ values: some Sequence<AnyRealmValue>) -> AnyRealmValue { .decimal128(total(values.lazy.compactMap(\.storageValue)).sum) }

    static func average(_ values: some Sequence<AnyRealmValue>) -> AnyRealmValue? {
        let t = total(values.lazy.compactMap(\.storageValue))
        return t.count == 0 ? nil : .decimal128(t.sum.divided(by: t.count))
    }
}

extension List where Element == AnyRealmValue {
    /// The smallest value that is not `.none` (numbers compare by value across types, other types
    /// by realm-core's type order), or nil when there is none. O(n).
    public func min() -> AnyRealmValue? { MixedAggregate.min(self) }
    /// The largest value that is not `.none`, in the order `min()` uses, or nil when there is none. O(n).
    public func max() -> AnyRealmValue? { MixedAggregate.max(self) }
    /// The sum of the numeric values as `.decimal128` (other values are skipped; decimal 0 when
    /// there are no numbers), as realm-core sums mixed values. O(n).
    public func sum() -> AnyRealmValue { MixedAggregate.sum(self) }
    /// The mean of the numeric values as `.decimal128`, or nil when there are no numbers. O(n).
    public func average() -> AnyRealmValue? { MixedAggregate.average(self) }
}

extension MutableSet where Element == AnyRealmValue {
    /// The smallest value that is not `.none` (numbers compare by value across types, other types
    /// by realm-core's type order), or nil when there is none. O(n).
    public func min() -> AnyRealmValue? { MixedAggregate.min(self) }
    /// The largest value that is not `.none`, in the order `min()` uses, or nil when there is none. O(n).
    public func max() -> AnyRealmValue? { MixedAggregate.max(self) }
    /// The sum of the numeric values as `.decimal128` (other values are skipped; decimal 0 when
    /// there are no numbers), as realm-core sums mixed values. O(n).
    public func sum() -> AnyRealmValue { MixedAggregate.sum(self) }
    /// The mean of the numeric values as `.decimal128`, or nil when there are no numbers. O(n).
    public func average() -> AnyRealmValue? { MixedAggregate.average(self) }
}

extension Map where Value == AnyRealmValue {
    /// The smallest value that is not `.none` (numbers compare by value across types, other types
    /// by realm-core's type order), or nil when there is none. O(n).
    public func min() -> AnyRealmValue? { MixedAggregate.min(values) }
    /// The largest value that is not `.none`, in the order `min()` uses, or nil when there is none. O(n).
    public func max() -> AnyRealmValue? { MixedAggregate.max(values) }
    /// The sum of the numeric values as `.decimal128` (other values are skipped; decimal 0 when
    /// there are no numbers), as realm-core sums mixed values. O(n).
    public func sum() -> AnyRealmValue { MixedAggregate.sum(values) }
    /// The mean of the numeric values as `.decimal128`, or nil when there are no numbers. O(n).
    public func average() -> AnyRealmValue? { MixedAggregate.average(values) }
}
