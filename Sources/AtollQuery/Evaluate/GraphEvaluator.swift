import AtollStorage

/// An object during evaluation: its table and row.
struct ObjectRef {
    let table: Table
    let row: RowHandle
}

/// Evaluates comparisons that follow links, lists and linking objects, aggregates and
/// SUBQUERY counts, one object at a time.
///
/// Values are streamed to the comparison as the key path reaches them (no arrays of values or
/// objects), quantifiers stop at the first decisive value, and aggregates are folded as they
/// go. What still allocates per object: linking objects (the backlink entries are read into an
/// array), and string or binary values at the end of a path (built as String / [UInt8];
/// strings of up to 15 UTF-8 bytes are stored inline by Swift and do not allocate).
struct GraphEvaluator {
    let engine: QueryEngine

    private func table(_ name: String) throws -> Table {
        guard let t = try engine.transaction.table(named: name) else { throw AtollError(.invalidQuery, "class '\(name)' does not exist") }
        return t
    }

    private func object(_ table: Table, _ key: ObjectKey) throws -> ObjectRef? {
        guard let h = try table.locate(key) else { return nil }
        return ObjectRef(table: table, row: h)
    }

    /// Calls `body` with every value `path` reaches from `start`, in order, until it returns
    /// false. A to-one path through a nil link reaches one nil. Returns false if `body` stopped.
    @discardableResult
    func forEachValue(of path: BoundKeyPath, from start: ObjectRef, _ body: (QueryValue) throws -> Bool) throws -> Bool {
        if path.steps.isEmpty { return try body(.object(className: start.table.name, key: start.row.key.rawValue)) }
        return try visit(path, step: 0, from: start, body)
    }

    /// Walks `path` from step `i` on, from object `o`. To-one steps (links) are followed in a
    /// loop; each list or linking-objects step recurses once per element, so the stack grows
    /// with the number of to-many steps, never with the length of the path
    /// (``QueryLimits/keyPathComponentsMax`` bounds both).
    private func visit(_ path: BoundKeyPath, step first: Int, from start: ObjectRef, _ body: (QueryValue) throws -> Bool) throws -> Bool {
        var i = first
        var o = start
        while true {
            let p = path.steps[i].property
            let last = i == path.steps.count - 1
            if let origin = p.linkingObjectsOrigin {
                let originTable = try table(origin.className)
                let keys = try o.table.backlinks(to: o.row.key, from: originTable.key, column: p.columnIndex)
                var j = 0
                while j < keys.count {
                    let k = keys[j]
                    j += 1
                    if last {
                        if try !body(.object(className: origin.className, key: k.rawValue)) { return false }
                    } else if let r = try object(originTable, k) {
                        if try !visit(path, step: i + 1, from: r, body) { return false }
                    }
                }
                return true
            }
            if p.isList {
                // `map['key']`, `map.@keys`, `list[0][*]`: in a frame of their own, so that
                // this recursive frame stays as small as StackSafetyTests needs.
                if path.steps[i].mapAccess != nil { return try visitMap(path, step: i, from: o, body) }
                let list = try o.table.list(o.row, p.columnIndex)
                if p.type == .object, let target = p.objectClassName {
                    let targetTable = last ? nil : try table(target)
                    var j = 0
                    while j < list.count {
                        let element = list.value(at: j)
                        j += 1
                        guard case .link(let k) = element else { continue }
                        if let targetTable {
                            if let r = try object(targetTable, k), try !visit(path, step: i + 1, from: r, body) { return false }
                        } else if try !body(.object(className: target, key: k.rawValue)) {
                            return false
                        }
                    }
                } else {
                    var j = 0
                    while j < list.count {
                        if try !body(QueryValue(list.value(at: j), linkTarget: nil, in: o.table)) { return false }
                        j += 1
                    }
                }
                return true
            }
            if p.type == .object, let target = p.objectClassName {
                guard let k = o.table.link(o.row, p.columnIndex) else {
                    // A nil link ends the path: nil for the last step or a to-one path; nothing
                    // when the path reaches many values.
                    return last || !path.isToMany ? try body(.null) : true
                }
                if last { return try body(.object(className: target, key: k.rawValue)) }
                guard let r = try object(try table(target), k) else { return true }
                // The next step, without recursing.
                o = r
                i += 1
                continue
            }
            return try visitValue(path, step: i, from: o, body)
        }
    }

    /// The value of step `i`, a property that is no link or collection: in a frame of its own,
    /// as `visitMap`, so that the recursive `visit` frame stays small.
    @inline(never)
    private func visitValue(_ path: BoundKeyPath, step i: Int, from o: ObjectRef, _ body: (QueryValue) throws -> Bool) throws -> Bool {
        if !path.steps[i].mixedPath.isEmpty { return try visitMixed(path, step: i, from: o, body) }
        return try body(QueryValue(try o.table.value(o.row, path.steps[i].property.columnIndex), linkTarget: nil, in: o.table))
    }

    /// Step `i` of `path` is a map read by key (`map['key']`) or for its keys (`map.@keys`):
    /// calls `body` with the keys, or with the value under the key (nil when the map has no
    /// such key or a nil link under it, as for a nil to-one link), or walks on from the object
    /// under the key.
    @inline(never)
    private func visitMap(_ path: BoundKeyPath, step i: Int, from o: ObjectRef, _ body: (QueryValue) throws -> Bool) throws -> Bool {
        // A path into a list or map of mixed values (`list[0]['k']`): here, not in `visit`,
        // whose recursive frame must stay small.
        if !path.steps[i].mixedPath.isEmpty { return try visitMixed(path, step: i, from: o, body) }
        let p = path.steps[i].property
        let last = i == path.steps.count - 1
        let keys = try o.table.mapKeys(o.row, p.columnIndex)
        guard case .key(let key)? = path.steps[i].mapAccess else {
            for key in keys where try !body(.string(key)) { return false }
            return true
        }
        let (index, found) = SortedSearch.find(key: key, in: keys)
        let value = found ? try o.table.list(o.row, p.columnIndex).value(at: index) : .null
        guard p.type == .object, let target = p.objectClassName, case .link(let k) = value else {
            if value.isNull && !last { return path.isToMany ? true : try body(.null) }
            return try body(QueryValue(value, linkTarget: nil, in: o.table))
        }
        if last { return try body(.object(className: target, key: k.rawValue)) }
        guard let r = try object(try table(target), k) else { return true }
        return try visit(path, step: i + 1, from: r, body)
    }

    /// Step `i` of `path` reads into the collections nested in a mixed value (`value.key`,
    /// `value[0]`, `value[*]`, `value.@keys`): calls `body` with each value reached. A key or
    /// position that is not there, or a value that is no collection, reaches nil on a to-one path
    /// and nothing on a path through `[*]` (realm-core). The recursion is one frame per path
    /// element, which ``QueryLimits/keyPathComponentsMax`` bounds.
    @inline(never)
    private func visitMixed(_ path: BoundKeyPath, step i: Int, from o: ObjectRef, _ body: (QueryValue) throws -> Bool) throws -> Bool {
        let step = path.steps[i]
        let toMany = step.isToMany
        func walk(_ v: StorageValue, _ rest: ArraySlice<MixedPathElement>) throws -> Bool {
            guard let element = rest.first else { return try body(QueryValue(v, linkTarget: nil, in: o.table)) }
            switch (element, v) {
            case (.key(let k), .mixedMap(let m)):
                if let e = m[k] { return try walk(e, rest.dropFirst()) }
            case (.index(let n), .mixedList(let l)):
                let j = n < 0 ? l.count + n : n
                if j >= 0 && j < l.count { return try walk(l[j], rest.dropFirst()) }
            case (.all, .mixedList(let l)):
                for e in l where try !walk(e, rest.dropFirst()) { return false }
                return true
            case (.all, .mixedMap(let m)):
                for k in m.keys.sorted(by: StorageValue.mapKeyPrecedes) where try !walk(m[k]!, rest.dropFirst()) { return false }
                return true
            case (.keys, .mixedMap(let m)):
                for k in m.keys.sorted(by: StorageValue.mapKeyPrecedes) where try !body(.string(k)) { return false }
                return true
            case (.whole, .mixedList(let l)):
                return try body(.list(l.map { QueryValue($0, linkTarget: nil, in: o.table) }))
            case (.whole, .mixedMap(let m)):
                return try body(.list(m.keys.sorted(by: StorageValue.mapKeyPrecedes).map { QueryValue(m[$0]!, linkTarget: nil, in: o.table) }))
            case (.whole, _):
                return true
            default:
                break
            }
            return toMany ? true : try body(.null)
        }
        return try walk(try Self.mixedRoot(step.property, of: o), step.mixedPath[...])
    }

    /// The value a path into mixed values starts from: a mixed property's value; a list or map
    /// of mixed values read as one mixed list or dictionary (realm-core's paths on collection
    /// columns: `list[0]['k']`, `dict['a'][*]`).
    private static func mixedRoot(_ p: QueryProperty, of o: ObjectRef) throws -> StorageValue {
        guard p.isList else { return try o.table.value(o.row, p.columnIndex) }
        let values = try o.table.list(o.row, p.columnIndex).values
        guard p.isMap else { return .mixedList(values) }
        let keys = try o.table.mapKeys(o.row, p.columnIndex)
        guard keys.count == values.count else {
            throw AtollError(.fileCorrupted, "the map '\(p.name)' has \(keys.count) keys but \(values.count) values")
        }
        return .mixedMap(Dictionary(zip(keys, values), uniquingKeysWith: { a, _ in a }))
    }

    /// Every value `path` reaches from `start` (sorting and DISTINCT use the first).
    func firstValue(of path: BoundKeyPath, from start: ObjectRef) throws -> QueryValue {
        var first = QueryValue.null
        try forEachValue(of: path, from: start) { v in first = v; return false }
        return first
    }

    /// The single value of a right-hand expression (constant, or an expression on `object`).
    func value(of expression: BoundExpression, on object: ObjectRef, subquery: Node?) throws -> QueryValue {
        switch expression {
        case .constant(let v): return v
        case .keyPath(let path): return try firstValue(of: path, from: object)
        case .count(let path):
            if path.measuresLength {
                // A string's or binary value's length in bytes (realm-core's @size); nil for nil.
                switch try firstValue(of: path, from: object) {
                case .string(let string): return .int(Int64(string.utf8.count))
                case .data(let bytes): return .int(Int64(bytes.count))
                default: return .null
                }
            }
            var n: Int64 = 0
            try forEachValue(of: path, from: object) { _ in n += 1; return true }
            return .int(n)
        case .aggregate(let a): return try aggregate(a, on: object)
        case .subqueryCount(let s):
            guard let subquery else { throw AtollError(.invalidQuery, "SUBQUERY was not compiled") }
            return .int(Int64(try subqueryCount(s, node: subquery, on: object)))
        case .typeOf(let path): return .string(try firstValue(of: path, from: object).typeName)
        }
    }

    func aggregate(_ a: BoundAggregate, on object: ObjectRef) throws -> QueryValue {
        var best = QueryValue.null
        var intTotal: Int64 = 0
        var doubleTotal = 0.0
        var decimalTotal = Decimal128.zero
        var count = 0
        let mixed = a.values.valueType == .mixed
        try forEachValue(of: a.values, from: object) { v in
            if v.isNull { return true }
            // A NaN is not a value for any aggregate of a float, double or decimal collection
            // (realm-core's `valid_for_agg`).
            if !mixed {
                switch v {
                case .float(let f) where f.isNaN: return true
                case .double(let d) where d.isNaN: return true
                case .decimal128(let d) where d.isNaN: return true
                default: break
                }
            }
            // Mixed values, by realm-core's rules (aggregate_ops.hpp, Mixed::accumulate_numeric_to):
            // no aggregate takes a decimal NaN; @min and @max take every other value, in mixed
            // order (numbers by value across types, then types by rank: a string is larger than
            // any number); @sum and @avg take only the numbers, added up as decimals. Links are
            // left out of @min/@max, as the object API's min()/max() leave them out.
            if mixed {
                if case .decimal128(let d) = v, d.isNaN { return true }
                switch a.function {
                case .min, .max:
                    if case .object = v { return true }
                case .sum, .avg:
                    guard ValueComparison.numeric(v) != nil else { return true }
                    switch v {
                    case .int(let i): decimalTotal += Decimal128(i)
                    case .float(let f): decimalTotal += Decimal128(Double(f))
                    case .double(let d): decimalTotal += Decimal128(d)
                    default: break
                    }
                }
            }
            count += 1
            switch a.function {
            case .min: if best.isNull || ValueComparison.compare(v, best) < 0 { best = v }
            case .max: if best.isNull || ValueComparison.compare(v, best) > 0 { best = v }
            case .sum, .avg:
                if case .int(let i) = v { intTotal = intTotal &+ i }
                if case .decimal128(let d) = v { decimalTotal += d }
                doubleTotal += ValueComparison.numeric(v) ?? 0
            }
            return true
        }
        switch a.function {
        case .min, .max: return best
        case .sum where a.resultType == .decimal128: return .decimal128(decimalTotal)
        case .avg where a.resultType == .decimal128: return count == 0 ? .null : .decimal128(decimalTotal.divided(by: count))
        case .sum: return a.resultType == .int ? .int(intTotal) : .double(doubleTotal)
        case .avg: return count == 0 ? .null : .double(doubleTotal / Double(count))
        }
    }

    /// How many elements of the subquery's collection satisfy its compiled predicate.
    func subqueryCount(_ s: BoundSubquery, node: Node, on object: ObjectRef) throws -> Int {
        let elementTable = try table(s.elementClassName)
        var count = 0
        try forEachValue(of: s.collection, from: object) { e in
            guard case .object(_, let key) = e, let h = try elementTable.locate(ObjectKey(key)) else { return true }
            if try engine.matches(node, h, table: elementTable) { count += 1 }
            return true
        }
        return count
    }

    /// Whether a compiled comparison holds for `object`.
    func holds(_ compiled: CompiledComparison, on object: ObjectRef) throws -> Bool {
        let c = compiled.comparison
        let comparator = compiled.comparator
        let rhs = try value(of: c.right, on: object, subquery: compiled.rightSubquery)
        if case .typeOf(let path) = c.left { return try typesHold(compiled, path: path, rhs: rhs, on: object) }
        guard case .keyPath(let path) = c.left else {
            return comparator.holds(try value(of: c.left, on: object, subquery: compiled.leftSubquery), rhs)
        }
        switch c.quantifier {
        case .any, .none:
            var found = false
            try forEachValue(of: path, from: object) { v in
                if comparator.holds(v, rhs) { found = true; return false }
                return true
            }
            return c.quantifier == .any ? found : !found
        case .all:
            return try forEachValue(of: path, from: object) { v in comparator.holds(v, rhs) }
        }
    }

    /// `path.@type <op> rhs`: each value of the path is replaced by its type's name.
    @inline(never)
    private func typesHold(_ compiled: CompiledComparison, path: BoundKeyPath, rhs: QueryValue, on object: ObjectRef) throws -> Bool {
        let comparator = compiled.comparator
        switch compiled.comparison.quantifier {
        case .any, .none:
            var found = false
            try forEachValue(of: path, from: object) { v in
                if comparator.holds(.string(v.typeName), rhs) { found = true; return false }
                return true
            }
            return compiled.comparison.quantifier == .any ? found : !found
        case .all:
            return try forEachValue(of: path, from: object) { v in comparator.holds(.string(v.typeName), rhs) }
        }
    }
}
