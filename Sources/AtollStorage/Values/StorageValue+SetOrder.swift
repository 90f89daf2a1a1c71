import struct Foundation.UUID

// The order of a set's elements, which is also how uniqueness is decided: two elements are the
// same element when neither orders before the other. This is realm-core's order for sets
// (`SetElementLessThan`): null first, then values of the element type in their natural order,
// strings and binary values by their bytes (unsigned), UUIDs and ObjectIds bytewise, and NaN
// before every other float or double (all NaNs are one element).
//
// Values of different types meet only in a set of mixed values (AnyRealmValue). There, as in
// realm-core's `Mixed::compare`, numbers of different types compare by value (int 1, double 1.0
// and decimal 1 are one element; NaN first), and otherwise types order by realm-core's sorting
// rank: bool, numbers, string, binary, timestamp, objectId, uuid, link.

extension StorageValue {
    /// Three-way comparison in set order: negative, zero (the same element) or positive.
    /// Values of different types (never mixed in one column) order by their type tag.
    package static func setOrder(_ a: StorageValue, _ b: StorageValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.int(let x), .int(let y)): return three(x, y)
        case (.float(let x), .float(let y)): return floating(Double(x), Double(y))
        case (.double(let x), .double(let y)): return floating(x, y)
        case (.string(let x), .string(let y)): return x.utf8.elementsEqual(y.utf8) ? 0 : (x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1)
        case (.binary(let x), .binary(let y)): return bytewise(x, y)
        case (.timestamp(let x), .timestamp(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.uuid(let x), .uuid(let y)):
            return withUnsafeBytes(of: x.uuid) { xb in withUnsafeBytes(of: y.uuid) { yb in bytewise(Array(xb), Array(yb)) } }
        case (.objectId(let x), .objectId(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.link(let x), .link(let y)): return three(x.rawValue, y.rawValue)
        case (.typedLink(let xt, let xk), .typedLink(let yt, let yk)):
            return xt == yt ? three(xk.rawValue, yk.rawValue) : three(xt.rawValue, yt.rawValue)
        // Numerically, NaN first: 1.5 and 1.50 are one element (as realm-core compares them).
        case (.decimal128(let x), .decimal128(let y)): return x.compare(y)
        // Nested collections (never set elements; this orders them for sorting): element by element,
        // maps by their keys in stored order, then by the values.
        case (.mixedList(let x), .mixedList(let y)):
            for (p, q) in zip(x, y) { let c = setOrder(p, q); if c != 0 { return c } }
            return three(x.count, y.count)
        case (.mixedMap(let x), .mixedMap(let y)):
            let xk = x.keys.sorted(by: mapKeyPrecedes), yk = y.keys.sorted(by: mapKeyPrecedes)
            for (p, q) in zip(xk, yk) where p != q { return mapKeyPrecedes(p, q) ? -1 : 1 }
            if xk.count != yk.count { return three(xk.count, yk.count) }
            for k in xk { let c = setOrder(x[k]!, y[k]!); if c != 0 { return c } }
            return 0
        default:
            if let x = a.exactDecimal, let y = b.exactDecimal { return x.compare(y) }
            return three(a.typeRank, b.typeRank)
        }
    }

    /// A number as a decimal, exactly (34 digits), for comparing numbers of different types.
    private var exactDecimal: Decimal128? {
        switch self {
        case .int(let x): Decimal128(x)
        case .float(let x): Decimal128(exactly: Double(x))
        case .double(let x): Decimal128(exactly: x)
        case .decimal128(let x): x
        default: nil
        }
    }

    /// realm-core's sorting rank of a type (mixed.cpp `sorting_rank`): all numbers share one.
    private var typeRank: Int {
        switch self {
        case .null: -1
        case .bool: 0
        case .int, .float, .double, .decimal128: 1
        case .string: 2
        case .binary: 3
        case .timestamp: 4
        case .objectId: 5
        case .uuid: 6
        case .link, .typedLink: 8
        case .mixedList: 9
        case .mixedMap: 10
        }
    }

    private static func three<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }

    private static func floating(_ x: Double, _ y: Double) -> Int {
        switch (x.isNaN, y.isNaN) {
        case (true, true): return 0
        case (true, false): return -1
        case (false, true): return 1
        case (false, false): return three(x, y)
        }
    }

    private static func bytewise(_ x: [UInt8], _ y: [UInt8]) -> Int {
        for (p, q) in zip(x, y) where p != q { return p < q ? -1 : 1 }
        return three(x.count, y.count)
    }
}

/// Binary search in values sorted by `StorageValue.setOrder` (sets) or keys sorted by UTF-8
/// bytes (maps): the index of `value` and whether it is present, or where it would be inserted.
package enum SortedSearch {
    package static func find(_ value: StorageValue, in sorted: [StorageValue]) -> (index: Int, found: Bool) {
        var lo = 0, hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            let c = StorageValue.setOrder(sorted[mid], value)
            if c == 0 { return (mid, true) }
            if c < 0 { lo = mid + 1 } else { hi = mid }
        }
        return (lo, false)
    }

    /// `values` as a set holds them: sorted in set order, one of each.
    package static func sortedUnique(_ values: [StorageValue]) -> [StorageValue] {
        var result: [StorageValue] = []
        for v in values.sorted(by: { StorageValue.setOrder($0, $1) < 0 }) where result.last.map({ StorageValue.setOrder($0, v) != 0 }) ?? true {
            result.append(v)
        }
        return result
    }

    package static func find(key: String, in sorted: [String]) -> (index: Int, found: Bool) {
        var lo = 0, hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sorted[mid].utf8.elementsEqual(key.utf8) { return (mid, true) }
            if sorted[mid].utf8.lexicographicallyPrecedes(key.utf8) { lo = mid + 1 } else { hi = mid }
        }
        return (lo, false)
    }
}
