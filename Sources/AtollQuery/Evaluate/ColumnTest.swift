import AtollStorage

/// `property <op> constant` for a property of the object itself, evaluated on a leaf's packed
/// columns: ints, floats and strings are tested in place without building values; other types
/// go through QueryValue.
struct ColumnTest {
    let column: Int
    let type: QueryValueType
    let constant: QueryValue
    let comparator: Comparator

    /// A per-row test for one leaf.
    func tester(for leaf: LeafRef, table: Table) throws -> (Int) -> Bool {
        guard column >= 0, column < table.spec.columns.count else {
            throw AtollError(.invalidQuery, "column \(column) does not exist in '\(table.name)'")
        }
        let op = comparator.op
        let nullable = table.spec.columns[column].isNullable
        // Integers, booleans and links: compare Int64 values in place.
        if (type == .int || type == .bool || type == .object), !comparator.isStringOperation, let rhs = Self.intOperand(constant) {
            if table.isKeyAlias(column) {
                return { r in Self.compareInt(ObjectKey(leaf.key(r)).intPrimaryKey, isNull: false, op, rhs) }
            }
            let values = leaf.intColumn(table.block(column))
            if !nullable { return { r in Self.compareInt(values[r], isNull: false, op, rhs) } }
            return { r in Self.compareInt(values[r], isNull: values.isNull(r), op, rhs) }
        }
        if type == .double, !comparator.isStringOperation, let rhs = Self.doubleOperand(constant) {
            let values = leaf.float64Column(table.block(column))
            return { r in Self.compareDouble(values[r], isNull: values.isNull(r), op, rhs) }
        }
        if type == .float, !comparator.isStringOperation, let rhs = Self.doubleOperand(constant) {
            let values = leaf.float32Column(table.block(column))
            return { r in Self.compareDouble(Double(values[r]), isNull: values.isNull(r), op, rhs) }
        }
        if type == .string, case .string(let s) = constant {
            let values = leaf.bytesColumn(table.block(column))
            let pattern = Array(s.utf8)
            let comparator = self.comparator
            return { r in
                if values.isNull(r) { return comparator.holds(.null, .string(s)) }
                guard let bytes = try? table.bytes(of: values, row: r) else { return false }
                if comparator.isStringOperation, let m = comparator.stringMatcher {
                    let matched = m.matches(bytes)
                    return op == .notEqual ? !matched : matched
                }
                switch op {
                case .equal: return Self.bytesEqual(bytes, pattern)
                case .notEqual: return !Self.bytesEqual(bytes, pattern)
                default:
                    let c = pattern.withUnsafeBytes { StringOrdering.compare(bytes, $0) }
                    switch op {
                    case .less: return c < 0
                    case .lessOrEqual: return c <= 0
                    case .greater: return c > 0
                    case .greaterOrEqual: return c >= 0
                    default: return comparator.holds(.string(String(decoding: bytes, as: UTF8.self)), .string(s))
                    }
                }
            }
        }
        // Everything else: build the value and compare.
        let comparator = self.comparator, constant = self.constant
        let target = table.spec.columns[column].linkTarget
        return { r in
            let h = RowHandle(leaf: leaf, row: r, key: ObjectKey(leaf.key(r)))
            guard let stored = try? table.value(h, column) else { return false }
            return comparator.holds(QueryValue(stored, linkTarget: target), constant)
        }
    }

    private static func bytesEqual(_ a: UnsafeRawBufferPointer, _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return b.withUnsafeBytes { bb in
            guard let pa = a.baseAddress, let pb = bb.baseAddress else { return true }
            return memcmp(pa, pb, a.count) == 0
        }
    }

    enum IntOperand {
        case null
        case int(Int64)
        case double(Double)
        case list([IntOperand])
    }

    static func intOperand(_ v: QueryValue) -> IntOperand? {
        switch v {
        case .null: .null
        case .int(let i): .int(i)
        case .bool(let b): .int(b ? 1 : 0)
        case .double(let d): .double(d)
        case .float(let f): .double(Double(f))
        case .object(_, let key): .int(Int64(bitPattern: key))
        case .list(let items):
            items.allSatisfy { intOperand($0) != nil } ? .list(items.compactMap(intOperand)) : nil
        default: nil
        }
    }

    static func doubleOperand(_ v: QueryValue) -> IntOperand? {
        switch v {
        case .null: .null
        case .int(let i): .double(Double(i))
        case .double(let d): .double(d)
        case .float(let f): .double(Double(f))
        case .list(let items):
            items.allSatisfy { doubleOperand($0) != nil } ? .list(items.compactMap(doubleOperand)) : nil
        default: nil
        }
    }

    @inline(__always)
    static func compareInt(_ v: Int64, isNull: Bool, _ op: ComparisonOperator, _ rhs: IntOperand) -> Bool {
        switch rhs {
        case .null:
            switch op {
            case .equal: return isNull
            case .notEqual: return !isNull
            default: return false
            }
        case .int(let c):
            switch op {
            case .equal: return !isNull && v == c
            case .notEqual: return isNull || v != c
            case .less: return !isNull && v < c
            case .lessOrEqual: return !isNull && v <= c
            case .greater: return !isNull && v > c
            case .greaterOrEqual: return !isNull && v >= c
            default: return false
            }
        case .double(let c):
            return compareDouble(Double(v), isNull: isNull, op, .double(c))
        case .list(let items):
            switch op {
            case .in: return items.contains { compareInt(v, isNull: isNull, .equal, $0) }
            case .between:
                guard items.count == 2, !isNull else { return false }
                return compareInt(v, isNull: false, .greaterOrEqual, items[0]) && compareInt(v, isNull: false, .lessOrEqual, items[1])
            default: return false
            }
        }
    }

    @inline(__always)
    static func compareDouble(_ v: Double, isNull: Bool, _ op: ComparisonOperator, _ rhs: IntOperand) -> Bool {
        switch rhs {
        case .null:
            switch op {
            case .equal: return isNull
            case .notEqual: return !isNull
            default: return false
            }
        case .int(let i): return compareDouble(v, isNull: isNull, op, .double(Double(i)))
        case .double(let c):
            switch op {
            case .equal: return !isNull && v == c
            case .notEqual: return isNull || v != c
            case .less: return !isNull && v < c
            case .lessOrEqual: return !isNull && v <= c
            case .greater: return !isNull && v > c
            case .greaterOrEqual: return !isNull && v >= c
            default: return false
            }
        case .list(let items):
            switch op {
            case .in: return items.contains { compareDouble(v, isNull: isNull, .equal, $0) }
            case .between:
                guard items.count == 2, !isNull else { return false }
                return compareDouble(v, isNull: false, .greaterOrEqual, items[0]) && compareDouble(v, isNull: false, .lessOrEqual, items[1])
            default: return false
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
