import AtollStorage

/// An object during evaluation: its table and row.
struct ObjectRef {
    let table: Table
    let row: RowHandle
}

/// Evaluates comparisons that follow links, lists and linking objects, aggregates and
/// SUBQUERY counts, one object at a time.
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

    /// Every value `path` reaches from `start`. A to-one path through a nil link gives [nil].
    func values(of path: BoundKeyPath, from start: ObjectRef) throws -> [QueryValue] {
        if path.steps.isEmpty { return [.object(className: start.table.name, key: start.row.key.rawValue)] }
        var current = [start]
        var sawNil = false
        for (i, step) in path.steps.enumerated() {
            let last = i == path.steps.count - 1
            let p = step.property
            var next: [ObjectRef] = []
            var out: [QueryValue] = []
            for o in current {
                if let origin = p.linkingObjectsOrigin {
                    let originTable = try table(origin.className)
                    let keys = try o.table.backlinks(to: o.row.key, from: originTable.key, column: p.columnIndex)
                    if last { out += keys.map { .object(className: origin.className, key: $0.rawValue) } }
                    else { for k in keys { if let r = try object(originTable, k) { next.append(r) } } }
                } else if p.isList {
                    let list = try o.table.list(o.row, p.columnIndex)
                    if p.type == .object, let target = p.objectClassName {
                        let targetTable = try table(target)
                        for j in 0..<list.count {
                            guard case .link(let k) = list.value(at: j) else { continue }
                            if last { out.append(.object(className: target, key: k.rawValue)) }
                            else if let r = try object(targetTable, k) { next.append(r) }
                        }
                    } else {
                        for j in 0..<list.count { out.append(QueryValue(list.value(at: j), linkTarget: nil)) }
                    }
                } else if p.type == .object, let target = p.objectClassName {
                    guard let k = o.table.link(o.row, p.columnIndex) else {
                        if last { out.append(.null) } else { sawNil = true }
                        continue
                    }
                    if last { out.append(.object(className: target, key: k.rawValue)) }
                    else if let r = try object(try table(target), k) { next.append(r) }
                } else {
                    out.append(QueryValue(try o.table.value(o.row, p.columnIndex), linkTarget: nil))
                }
            }
            if last {
                if out.isEmpty && sawNil && !path.isToMany { return [.null] }
                return out
            }
            current = next
        }
        return []
    }

    /// The single value of a right-hand expression (constant, or an expression on `object`).
    func value(of expression: BoundExpression, on object: ObjectRef) throws -> QueryValue {
        switch expression {
        case .constant(let v): return v
        case .keyPath(let path): return try values(of: path, from: object).first ?? .null
        case .count(let path): return .int(Int64(try values(of: path, from: object).count))
        case .aggregate(let a): return try aggregate(a, on: object)
        case .subqueryCount(let s): return .int(Int64(try subqueryCount(s, on: object)))
        }
    }

    func aggregate(_ a: BoundAggregate, on object: ObjectRef) throws -> QueryValue {
        let values = try values(of: a.values, from: object).filter { !$0.isNull }
        switch a.function {
        case .min: return values.min { ValueComparison.compare($0, $1) < 0 } ?? .null
        case .max: return values.max { ValueComparison.compare($0, $1) < 0 } ?? .null
        case .sum:
            if a.resultType == .int {
                var total: Int64 = 0
                for v in values { if case .int(let i) = v { total = total &+ i } }
                return .int(total)
            }
            return .double(values.reduce(0) { $0 + (ValueComparison.numeric($1) ?? 0) })
        case .avg:
            guard !values.isEmpty else { return .null }
            return .double(values.reduce(0) { $0 + (ValueComparison.numeric($1) ?? 0) } / Double(values.count))
        }
    }

    func subqueryCount(_ s: BoundSubquery, on object: ObjectRef) throws -> Int {
        let elements = try values(of: s.collection, from: object)
        let elementTable = try table(s.elementClassName)
        let node = try Compiler(engine: engine).compile(s.predicate, className: s.elementClassName)
        var count = 0
        for e in elements {
            guard case .object(_, let key) = e, let o = try self.object(elementTable, ObjectKey(key)) else { continue }
            if try !engine.evaluate(node, leaf: o.row.leaf, table: elementTable, rows: [o.row.row]).isEmpty { count += 1 }
        }
        return count
    }

    /// Whether a compiled comparison holds for `object`.
    func holds(_ compiled: CompiledComparison, on object: ObjectRef) throws -> Bool {
        let c = compiled.comparison
        let rhs = try value(of: c.right, on: object)
        let lefts: [QueryValue]
        switch c.left {
        case .keyPath(let path): lefts = try values(of: path, from: object)
        default: lefts = [try value(of: c.left, on: object)]
        }
        switch c.quantifier {
        case .any: return lefts.contains { compiled.comparator.holds($0, rhs) }
        case .all: return lefts.allSatisfy { compiled.comparator.holds($0, rhs) }
        case .none: return !lefts.contains { compiled.comparator.holds($0, rhs) }
        }
    }
}
