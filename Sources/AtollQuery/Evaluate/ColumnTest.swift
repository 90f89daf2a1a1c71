import AtollStorage
import Foundation

/// `property <op> constant` for a property of the object itself, evaluated on a leaf's packed
/// columns in place: no value is built and nothing is allocated per row (strings are matched
/// on their UTF-8 bytes, except non-ASCII rows under [c]/[d], which StringMatcher folds).
///
/// Per leaf, ``prepare(_:table:)`` makes the column views once; ``select(_:from:into:)`` then
/// tests rows in a tight loop, and ``holds(_:row:)`` tests one row (SUBQUERY elements).
struct ColumnTest {
    let column: Int
    let type: QueryValueType
    let constant: QueryValue
    let comparator: Comparator
    /// The constant prepared for in-place comparison, when the column type allows it.
    private let operand: Operand

    /// The right side in the form the per-row loops compare with.
    private enum Operand {
        case int(IntOperand)
        case double(IntOperand)
        /// Strings and binary data: bytes to compare with (IN: several), nil for a nil constant.
        case bytes([UInt8]?)
        case bytesList([[UInt8]?])
        case timestamp(Timestamp?)
        case timestampList([Timestamp?])
        case fixed([UInt8]?)
        case fixedList([[UInt8]?])
        /// Compared through QueryValue (types and operators the loops do not cover).
        case value
    }

    init(column: Int, type: QueryValueType, constant: QueryValue, comparator: Comparator) {
        self.column = column
        self.type = type
        self.constant = constant
        self.comparator = comparator
        operand = Self.operand(type: type, constant: constant, comparator: comparator)
    }

    private static func operand(type: QueryValueType, constant: QueryValue, comparator: Comparator) -> Operand {
        func bytes(_ v: QueryValue) -> [UInt8]?? {
            switch v {
            case .null: .some(nil)
            case .string(let s) where type == .string: .some(Array(s.utf8))
            case .data(let d) where type == .data: .some(d)
            default: nil
            }
        }
        func timestamp(_ v: QueryValue) -> Timestamp?? {
            if v.isNull { return .some(nil) }
            return v.normalizedTimestamp.map { .some($0) }
        }
        func fixed(_ v: QueryValue) -> [UInt8]?? {
            switch v {
            case .null: .some(nil)
            case .uuid(let u) where type == .uuid: .some(withUnsafeBytes(of: u.uuid) { Array($0) })
            case .objectId(let o) where type == .objectId: .some(o.bytes)
            default: nil
            }
        }
        switch type {
        case .int, .bool, .object:
            if !comparator.isStringOperation, let rhs = intOperand(constant) { return .int(rhs) }
        case .double, .float:
            if !comparator.isStringOperation, let rhs = doubleOperand(constant) { return .double(rhs) }
        case .string, .data:
            // String operators and folded equality go through the prepared matchers; plain
            // equality, ordering and IN compare bytes here.
            if comparator.isStringOperation { return .bytes(nil) }
            if case .list(let items) = constant, comparator.op == .in {
                let all = items.map(bytes)
                if all.allSatisfy({ $0 != nil }) { return .bytesList(all.map { $0 ?? nil }) }
            } else if let b = bytes(constant) {
                return .bytes(b)
            }
        case .date:
            if case .list(let items) = constant, comparator.op == .in || comparator.op == .between {
                let all = items.map(timestamp)
                if all.allSatisfy({ $0 != nil }) { return .timestampList(all.map { $0 ?? nil }) }
            } else if let t = timestamp(constant) {
                return .timestamp(t)
            }
        case .decimal128, .mixed:
            break  // compared as values: equal decimals can differ in their bytes
        case .uuid, .objectId:
            if case .list(let items) = constant, comparator.op == .in || comparator.op == .between {
                let all = items.map(fixed)
                if all.allSatisfy({ $0 != nil }) { return .fixedList(all.map { $0 ?? nil }) }
            } else if let f = fixed(constant) {
                return .fixed(f)
            }
        }
        return .value
    }

    /// The column views of one leaf.
    enum Prepared {
        case int(IntColumn, nullable: Bool, IntOperand)
        case keyAlias(LeafRef, IntOperand)
        case double(Float64Column, IntOperand)
        case float(Float32Column, IntOperand)
        case bytes(BytesColumn, Table)
        case timestamp(seconds: IntColumn, nanoseconds: IntColumn)
        case fixed(FixedColumn)
        case value(LeafRef, Table, linkTarget: String?)
    }

    func prepare(_ leaf: LeafRef, table: Table) throws -> Prepared {
        guard column >= 0, column < table.spec.columns.count else {
            throw AtollError(.invalidQuery, "column \(column) does not exist in '\(table.name)'")
        }
        switch operand {
        case .int(let rhs):
            if table.isKeyAlias(column) { return .keyAlias(leaf, rhs) }
            return .int(leaf.intColumn(table.block(column)), nullable: table.spec.columns[column].isNullable, rhs)
        case .double(let rhs):
            if type == .float { return .float(leaf.float32Column(table.block(column)), rhs) }
            return .double(leaf.float64Column(table.block(column)), rhs)
        case .bytes, .bytesList:
            return .bytes(leaf.bytesColumn(table.block(column)), table)
        case .timestamp, .timestampList:
            let b = table.block(column)
            return .timestamp(seconds: leaf.intColumn(b), nanoseconds: leaf.intColumn(b + 1))
        case .fixed, .fixedList:
            return .fixed(leaf.fixedColumn(table.block(column)))
        case .value:
            return .value(leaf, table, linkTarget: table.spec.columns[column].linkTarget)
        }
    }

    /// Writes the rows of `input` (ascending) that pass to `output`; returns how many. Throws
    /// when a value stored outside the leaf (a long string or binary) cannot be read.
    func select(_ prepared: Prepared, from input: UnsafeBufferPointer<Int>, into output: UnsafeMutableBufferPointer<Int>) throws -> Int {
        var n = 0
        var i = 0
        let op = comparator.op
        // One loop per column kind, so the per-row work is a load and a compare.
        switch prepared {
        case .int(let values, let nullable, let rhs):
            if !nullable || values.nulls.bits == nil, let range = Self.intRange(op, rhs) {
                return values.values.select(in: range, from: input, into: output)
            }
            if nullable {
                while i < input.count {
                    let r = input[i]
                    if Self.compareInt(values[r], isNull: values.isNull(r), op, rhs) { output[n] = r; n += 1 }
                    i += 1
                }
            } else {
                while i < input.count {
                    let r = input[i]
                    if Self.compareInt(values[r], isNull: false, op, rhs) { output[n] = r; n += 1 }
                    i += 1
                }
            }
        case .double(let values, let rhs):
            while i < input.count {
                let r = input[i]
                if Self.compareDouble(values[r], isNull: values.isNull(r), op, rhs) { output[n] = r; n += 1 }
                i += 1
            }
        default:
            while i < input.count {
                let r = input[i]
                if try holds(prepared, row: r) { output[n] = r; n += 1 }
                i += 1
            }
        }
        return n
    }

    /// Whether row `r` of the prepared leaf passes. Throws when its value cannot be read: a
    /// value that cannot be read neither matches nor fails to match (README, "Failed reads").
    func holds(_ prepared: Prepared, row r: Int) throws -> Bool {
        let op = comparator.op
        switch prepared {
        case .int(let values, let nullable, let rhs):
            return Self.compareInt(values[r], isNull: nullable && values.isNull(r), op, rhs)
        case .keyAlias(let leaf, let rhs):
            return Self.compareInt(ObjectKey(leaf.key(r)).intPrimaryKey, isNull: false, op, rhs)
        case .double(let values, let rhs):
            return Self.compareDouble(values[r], isNull: values.isNull(r), op, rhs)
        case .float(let values, let rhs):
            return Self.compareDouble(Double(values[r]), isNull: values.isNull(r), op, rhs)
        case .bytes(let values, let table):
            if values.isNull(r) { return comparator.holds(.null, constant) }
            return holdsBytes(try table.bytes(of: values, row: r))
        case .timestamp(let seconds, let nanoseconds):
            let t: Timestamp? = seconds.isNull(r) ? nil : Timestamp(seconds: seconds[r], nanoseconds: Int32(truncatingIfNeeded: nanoseconds[r]))
            switch operand {
            case .timestamp(let c): return Self.compareOrdered(t, op, c)
            case .timestampList(let items): return Self.compareList(t, op, items)
            default: return false
            }
        case .fixed(let values):
            let b: UnsafeRawBufferPointer? = values.isNull(r) ? nil : values.bytes(r)
            switch operand {
            case .fixed(let c): return Self.compareFixed(b, op, c)
            case .fixedList(let items): return Self.compareFixedList(b, op, items)
            default: return false
            }
        case .value(let leaf, let table, let linkTarget):
            let h = RowHandle(leaf: leaf, row: r, key: ObjectKey(leaf.key(r)))
            return comparator.holds(QueryValue(try table.value(h, column), linkTarget: linkTarget, in: table), constant)
        }
    }

    /// A non-null string or binary value against the constant.
    private func holdsBytes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let op = comparator.op
        if comparator.isStringOperation {
            let matched: Bool
            if let m = comparator.stringMatcher { matched = m.matches(bytes) }
            else if let m = comparator.binaryMatcher { matched = m.matches(bytes) }
            else {
                // No matcher: the pattern is nil (see Comparator.nilPatternMatches).
                let nilMatched = comparator.nilPatternMatches(valueIsNull: false)
                return op == .notEqual ? !nilMatched : nilMatched
            }
            return op == .notEqual ? !matched : matched
        }
        switch operand {
        case .bytes(let pattern):
            guard let pattern else { return op == .notEqual }
            let c = pattern.withUnsafeBytes { StringOrdering.compare(bytes, $0) }
            switch op {
            case .equal: return c == 0
            case .notEqual: return c != 0
            case .less: return c < 0
            case .lessOrEqual: return c <= 0
            case .greater: return c > 0
            case .greaterOrEqual: return c >= 0
            default: return false
            }
        case .bytesList(let items):
            let matchers = comparator.listMatchers
            var i = 0
            if !matchers.isEmpty {
                while i < matchers.count {
                    if matchers[i].matches(bytes) { return true }
                    i += 1
                }
                return false
            }
            while i < items.count {
                if let item = items[i], item.withUnsafeBytes({ StringOrdering.compare(bytes, $0) }) == 0 { return true }
                i += 1
            }
            return false
        default:
            return false
        }
    }

    private static func compareOrdered<T: Comparable>(_ v: T?, _ op: ComparisonOperator, _ c: T?) -> Bool {
        switch op {
        case .equal: return v == c
        case .notEqual: return v != c
        default:
            guard let v, let c else { return false }
            switch op {
            case .less: return v < c
            case .lessOrEqual: return v <= c
            case .greater: return v > c
            case .greaterOrEqual: return v >= c
            default: return false
            }
        }
    }

    private static func compareList<T: Comparable>(_ v: T?, _ op: ComparisonOperator, _ items: [T?]) -> Bool {
        switch op {
        case .in: return items.contains { $0 == v }
        case .between:
            guard items.count == 2, let v, let lo = items[0], let hi = items[1] else { return false }
            return lo <= v && v <= hi
        default: return false
        }
    }

    private static func compareFixed(_ v: UnsafeRawBufferPointer?, _ op: ComparisonOperator, _ c: [UInt8]?) -> Bool {
        guard let v, let c else {
            switch op {
            case .equal: return v == nil && c == nil
            case .notEqual: return !(v == nil && c == nil)
            default: return false
            }
        }
        let order = c.withUnsafeBytes { StringOrdering.compare(v, $0) }
        switch op {
        case .equal: return order == 0
        case .notEqual: return order != 0
        case .less: return order < 0
        case .lessOrEqual: return order <= 0
        case .greater: return order > 0
        case .greaterOrEqual: return order >= 0
        default: return false
        }
    }

    private static func compareFixedList(_ v: UnsafeRawBufferPointer?, _ op: ComparisonOperator, _ items: [[UInt8]?]) -> Bool {
        switch op {
        case .in: return items.contains { compareFixed(v, .equal, $0) }
        case .between:
            guard items.count == 2 else { return false }
            return compareFixed(v, .greaterOrEqual, items[0]) && compareFixed(v, .lessOrEqual, items[1])
        default: return false
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
    /// For an int, bool or link test whose passing values are one range: ANDs into `bits` (one
    /// bit per row of `leaf`) whether each row passes. False (bits untouched) when the test is
    /// not of that kind or the leaf has nulls in the column; the caller then evaluates rows.
    func intersectRange(_ leaf: LeafRef, table: Table, bits: UnsafeMutablePointer<UInt64>) throws -> Bool {
        guard case .int(let rhs) = operand, let range = Self.intRange(comparator.op, rhs), !table.isKeyAlias(column),
              column >= 0, column < table.spec.columns.count else { return false }
        let values = leaf.intColumn(table.block(column))
        guard values.nulls.bits == nil else { return false }
        values.values.intersect(in: range, rowCount: leaf.count, bits: bits)
        return true
    }

    /// The values (not nil) that pass `op rhs`, as one range; nil when they are not one range.
    static func intRange(_ op: ComparisonOperator, _ rhs: IntOperand) -> ClosedRange<Int64>? {
        switch (op, rhs) {
        case (.equal, .int(let c)): return c...c
        case (.less, .int(let c)): return c == .min ? nil : Int64.min...(c - 1)
        case (.lessOrEqual, .int(let c)): return Int64.min...c
        case (.greater, .int(let c)): return c == .max ? nil : (c + 1)...Int64.max
        case (.greaterOrEqual, .int(let c)): return c...Int64.max
        case (.between, .list(let items)):
            guard items.count == 2, case .int(let a) = items[0], case .int(let b) = items[1], a <= b else { return nil }
            return a...b
        default: return nil
        }
    }

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
            case .in:
                var i = 0
                while i < items.count {
                    if compareInt(v, isNull: isNull, .equal, items[i]) { return true }
                    i += 1
                }
                return false
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
            case .in:
                var i = 0
                while i < items.count {
                    if compareDouble(v, isNull: isNull, .equal, items[i]) { return true }
                    i += 1
                }
                return false
            case .between:
                guard items.count == 2, !isNull else { return false }
                return compareDouble(v, isNull: false, .greaterOrEqual, items[0]) && compareDouble(v, isNull: false, .lessOrEqual, items[1])
            default: return false
            }
        }
    }
}
