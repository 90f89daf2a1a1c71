/// Aggregates over a whole column, computed leaf by leaf from the packed columns without
/// materializing objects.
public enum ColumnAggregate: Sendable {
    case sum, min, max, average, count
}

extension Table {
    /// Aggregates column `c` over every object (nulls are skipped; `count` counts non-null
    /// values). Returns .null for min/max/average of no values. O(n), reading only that column.
    public func aggregate(_ c: Int, _ kind: ColumnAggregate) throws -> StorageValue {
        let col = spec.columns[c]
        guard !col.isList else { throw AtollError(.typeMismatch, "cannot aggregate the list '\(name).\(col.name)'") }
        let b = layout.firstBlock[c]
        var count = 0
        switch col.type {
        case .int, .bool:
            var sum: Int64 = 0, lo = Int64.max, hi = Int64.min
            var overflow = false
            try forEachLeaf { leaf in
                if b < 0 {
                    for r in 0..<leaf.count {
                        let v = ObjectKey(leaf.key(r)).intPrimaryKey
                        let (s, o) = sum.addingReportingOverflow(v); sum = s; overflow = overflow || o
                        lo = Swift.min(lo, v); hi = Swift.max(hi, v)
                    }
                    count += leaf.count
                    return true
                }
                let column = leaf.intColumn(b)
                for r in 0..<leaf.count where !column.isNull(r) {
                    let v = column[r]
                    let (s, o) = sum.addingReportingOverflow(v); sum = s; overflow = overflow || o
                    if v < lo { lo = v }
                    if v > hi { hi = v }
                    count += 1
                }
                return true
            }
            switch kind {
            case .sum:
                guard !overflow else { throw AtollError(.limitExceeded, "the sum of '\(name).\(col.name)' overflows 64 bits") }
                return .int(sum)
            case .min: return count == 0 ? .null : .int(lo)
            case .max: return count == 0 ? .null : .int(hi)
            case .average: return count == 0 ? .null : .double(Double(sum) / Double(count))
            case .count: return .int(Int64(count))
            }
        case .float, .double:
            var sum = 0.0, lo = Double.infinity, hi = -Double.infinity
            try forEachLeaf { leaf in
                if col.type == .double {
                    let column = leaf.float64Column(b)
                    for r in 0..<leaf.count where !column.isNull(r) {
                        let v = column[r]
                        sum += v
                        if v < lo { lo = v }
                        if v > hi { hi = v }
                        count += 1
                    }
                } else {
                    let column = leaf.float32Column(b)
                    for r in 0..<leaf.count where !column.isNull(r) {
                        let v = Double(column[r])
                        sum += v
                        if v < lo { lo = v }
                        if v > hi { hi = v }
                        count += 1
                    }
                }
                return true
            }
            let wrap: (Double) -> StorageValue = { col.type == .double ? .double($0) : .float(Float($0)) }
            switch kind {
            case .sum: return wrap(sum)
            case .min: return count == 0 ? .null : wrap(lo)
            case .max: return count == 0 ? .null : wrap(hi)
            case .average: return count == 0 ? .null : .double(sum / Double(count))
            case .count: return .int(Int64(count))
            }
        case .timestamp:
            var lo: Timestamp?, hi: Timestamp?
            try forEachLeaf { leaf in
                let s = leaf.intColumn(b), n = leaf.intColumn(b + 1)
                for r in 0..<leaf.count where !s.isNull(r) {
                    let t = Timestamp(seconds: s[r], nanoseconds: Int32(truncatingIfNeeded: n[r]))
                    if lo.map({ t < $0 }) ?? true { lo = t }
                    if hi.map({ t > $0 }) ?? true { hi = t }
                    count += 1
                }
                return true
            }
            switch kind {
            case .min: return lo.map { .timestamp($0) } ?? .null
            case .max: return hi.map { .timestamp($0) } ?? .null
            case .count: return .int(Int64(count))
            case .sum, .average: throw AtollError(.typeMismatch, "cannot sum or average the dates of '\(name).\(col.name)'")
            }
        case .decimal128:
            // Exact comparison and decimal arithmetic (Decimal128+Arithmetic): a sum of prices
            // stays a decimal, as in Realm.
            var sum = Decimal128.zero
            var lo: Decimal128?, hi: Decimal128?
            try forEachLeaf { leaf in
                let column = leaf.fixedColumn(b)
                for r in 0..<leaf.count where !column.isNull(r) {
                    let v = Decimal128(littleEndianBytes: column.bytes(r))
                    sum += v
                    if lo.map({ v < $0 }) ?? true { lo = v }
                    if hi.map({ v > $0 }) ?? true { hi = v }
                    count += 1
                }
                return true
            }
            switch kind {
            case .sum: return .decimal128(sum)
            case .min: return lo.map { .decimal128($0) } ?? .null
            case .max: return hi.map { .decimal128($0) } ?? .null
            case .average: return count == 0 ? .null : .decimal128(sum.divided(by: count))
            case .count: return .int(Int64(count))
            }
        default:
            guard kind == .count else { throw AtollError(.typeMismatch, "cannot aggregate '\(name).\(col.name)' of type \(col.type)") }
            try forEachLeaf { leaf in
                for r in 0..<leaf.count where !isNull(RowHandle(leaf: leaf, row: r, key: ObjectKey(leaf.key(r))), c) { count += 1 }
                return true
            }
            return .int(Int64(count))
        }
    }
}
