public import AtollStorage

/// Runs bound queries against one transaction.
///
/// Plan: an equality or IN on an indexed property (or the primary key) at the top of the
/// predicate selects candidates from the index; otherwise the table is scanned leaf by leaf.
/// Comparisons of a property of the object itself with constants are evaluated on the packed
/// columns of each leaf, without materializing objects; other comparisons (through links,
/// lists, aggregates, SUBQUERY) follow the object graph row by row.
///
/// ```swift
/// let engine = QueryEngine(transaction: txn)
/// let query = try engine.bind("age > $0 SORT(name ASC)", on: "Dog", arguments: [2])
/// let keys = try engine.run(query)
/// ```
public struct QueryEngine {
    public let transaction: Transaction

    public init(transaction: Transaction) {
        self.transaction = transaction
    }

    /// Parses and binds a predicate (with optional SORT/DISTINCT/LIMIT) for `className`.
    ///
    /// - Parameter dataFileArguments: also accept arguments written as in data files (a link
    ///   compared with the target's primary key, UUIDs and ObjectIds as strings); see
    ///   ``DataFileArgumentSchema``.
    public func bind(_ predicate: String, on className: String, arguments: [Any] = [], dataFileArguments: Bool = false) throws -> BoundQuery {
        if dataFileArguments {
            return try BoundQuery(predicate, on: className, schema: DataFileArgumentSchema(transaction: transaction), arguments: arguments)
        }
        return try BoundQuery(predicate, on: className, schema: QuerySchema(transaction: transaction), arguments: arguments)
    }

    private func table(of className: String) throws -> Table {
        guard let t = try transaction.table(named: className) else {
            throw AtollError(.invalidQuery, "class '\(className)' does not exist in the realm")
        }
        return t
    }

    /// The objects matching the query, in order: table key order (or `candidates` order), then
    /// the query's SORT / DISTINCT / LIMIT clauses.
    public func run(_ query: BoundQuery, candidates: [ObjectKey]? = nil) throws -> [ObjectKey] {
        let table = try table(of: query.className)
        var keys = try filter(table: table, predicate: query.predicate, candidates: candidates)
        keys = try applyClauses(query.clauses, to: keys, table: table)
        return keys
    }

    /// Number of matching objects (without clauses; LIMIT applied when present).
    public func count(_ query: BoundQuery, candidates: [ObjectKey]? = nil) throws -> Int {
        if query.clauses.isEmpty, candidates == nil {
            let table = try table(of: query.className)
            if case .constant(true) = query.predicate { return table.count }
            let node = try Compiler(engine: self).compile(query.predicate, className: query.className)
            if plannedCandidates(query.predicate, table: table) == nil {
                var total = 0
                try table.forEachLeaf { leaf in
                    total += try evaluate(node, leaf: leaf, table: table, rows: Array(0..<leaf.count)).count
                    return true
                }
                return total
            }
        }
        return try run(query, candidates: candidates).count
    }

    // MARK: filtering

    func filter(table: Table, predicate: BoundPredicate, candidates: [ObjectKey]?) throws -> [ObjectKey] {
        if case .constant(true) = predicate, candidates == nil { return try table.objectKeys() }
        let node = try Compiler(engine: self).compile(predicate, className: table.name)
        if let selected = candidates ?? plannedCandidates(predicate, table: table) {
            var result: [ObjectKey] = []
            for key in selected {
                guard let h = try table.locate(key) else { continue }
                if try !evaluate(node, leaf: h.leaf, table: table, rows: [h.row]).isEmpty { result.append(key) }
            }
            return result
        }
        var result: [ObjectKey] = []
        try table.forEachLeaf { leaf in
            for r in try evaluate(node, leaf: leaf, table: table, rows: Array(0..<leaf.count)) {
                result.append(ObjectKey(leaf.key(r)))
            }
            return true
        }
        return result
    }

    /// Candidates from an index when the predicate is (or ANDs) an equality / IN on an indexed
    /// property of the object itself, compared exactly.
    func plannedCandidates(_ predicate: BoundPredicate, table: Table) -> [ObjectKey]? {
        let terms: [BoundPredicate]
        switch predicate {
        case .and(let operands): terms = operands
        case .comparison: terms = [predicate]
        default: return nil
        }
        for term in terms {
            guard case .comparison(let c) = term, c.quantifier == .any, c.options.isEmpty,
                  case .keyPath(let path) = c.left, path.steps.count == 1, !path.isToMany,
                  case .constant(let constant) = c.right else { continue }
            let property = path.steps[0].property
            let column = property.columnIndex
            guard column >= 0, column < table.spec.columns.count, property.isIndexed || table.spec.primaryKey == property.name,
                  table.hasIndex(column) || table.isKeyAlias(column) || table.spec.primaryKey == property.name else { continue }
            var values: [QueryValue]
            switch (c.operator, constant) {
            case (.equal, .list): continue
            case (.equal, _): values = [constant]
            case (.in, .list(let list)): values = list
            default: continue
            }
            guard values.allSatisfy({ ValueComparison.numeric($0) == nil || Self.isExactType($0, property.type) }) else { continue }
            var keys = Set<ObjectKey>()
            do {
                for v in values {
                    guard let stored = v.storageValue else { return nil }
                    for k in try table.findAll(indexed: column, equalTo: stored) { keys.insert(k) }
                }
            } catch { continue }
            return keys.sorted()
        }
        return nil
    }

    private static func isExactType(_ v: QueryValue, _ t: QueryValueType) -> Bool {
        switch (v, t) {
        case (.int, .int), (.float, .float), (.double, .double): true
        default: false
        }
    }

    /// The rows of `leaf` (from `rows`, ascending) for which `node` holds.
    func evaluate(_ node: Node, leaf: LeafRef, table: Table, rows: [Int]) throws -> [Int] {
        if rows.isEmpty { return rows }
        switch node {
        case .constant(let b): return b ? rows : []
        case .and(let children):
            var current = rows
            for child in children {
                current = try evaluate(child, leaf: leaf, table: table, rows: current)
                if current.isEmpty { break }
            }
            return current
        case .or(let children):
            var selected = [Bool](repeating: false, count: leaf.count)
            var remaining = rows
            for child in children {
                for r in try evaluate(child, leaf: leaf, table: table, rows: remaining) { selected[r] = true }
                remaining = remaining.filter { !selected[$0] }
                if remaining.isEmpty { break }
            }
            return rows.filter { selected[$0] }
        case .not(let child):
            let matched = try evaluate(child, leaf: leaf, table: table, rows: rows)
            if matched.isEmpty { return rows }
            var set = [Bool](repeating: false, count: leaf.count)
            for r in matched { set[r] = true }
            return rows.filter { !set[$0] }
        case .column(let test):
            let tester = try test.tester(for: leaf, table: table)
            return rows.filter(tester)
        case .general(let comparison):
            var result: [Int] = []
            for r in rows {
                let object = ObjectRef(table: table, row: RowHandle(leaf: leaf, row: r, key: ObjectKey(leaf.key(r))))
                if try GraphEvaluator(engine: self).holds(comparison, on: object) { result.append(r) }
            }
            return result
        }
    }

    // MARK: SORT / DISTINCT / LIMIT

    func applyClauses(_ clauses: [BoundResultClause], to keys: [ObjectKey], table: Table) throws -> [ObjectKey] {
        var keys = keys
        for clause in clauses {
            switch clause {
            case .sort(let sortKeys): keys = try sort(keys, table: table, by: sortKeys)
            case .distinct(let paths): keys = try distinct(keys, table: table, by: paths)
            case .limit(let n): keys = Array(keys.prefix(max(0, n)))
            }
        }
        return keys
    }

    /// Stable sort of `keys` by to-one key paths (nil first when ascending).
    public func sort(_ keys: [ObjectKey], table: Table, by sortKeys: [BoundSortKey]) throws -> [ObjectKey] {
        guard !sortKeys.isEmpty, keys.count > 1 else { return keys }
        let graph = GraphEvaluator(engine: self)
        var rows: [(index: Int, key: ObjectKey, values: [QueryValue])] = []
        rows.reserveCapacity(keys.count)
        for (i, key) in keys.enumerated() {
            guard let h = try table.locate(key) else { continue }
            let object = ObjectRef(table: table, row: h)
            var values: [QueryValue] = []
            for s in sortKeys { values.append(try graph.values(of: s.keyPath, from: object).first ?? .null) }
            rows.append((i, key, values))
        }
        rows.sort { a, b in
            for (i, s) in sortKeys.enumerated() {
                let c = ValueComparison.compare(a.values[i], b.values[i])
                if c != 0 { return s.ascending ? c < 0 : c > 0 }
            }
            return a.index < b.index
        }
        return rows.map(\.key)
    }

    func distinct(_ keys: [ObjectKey], table: Table, by paths: [BoundKeyPath]) throws -> [ObjectKey] {
        let graph = GraphEvaluator(engine: self)
        var seen = Set<[QueryValue]>()
        var result: [ObjectKey] = []
        for key in keys {
            guard let h = try table.locate(key) else { continue }
            let object = ObjectRef(table: table, row: h)
            var values: [QueryValue] = []
            for p in paths { values.append(try graph.values(of: p, from: object).first ?? .null) }
            if seen.insert(values.map(Self.distinctKey)).inserted { result.append(key) }
        }
        return result
    }

    /// Values equal under ValueComparison map to one key (numbers as doubles).
    private static func distinctKey(_ v: QueryValue) -> QueryValue {
        if let d = ValueComparison.numeric(v) { return .double(d) }
        if let t = v.normalizedTimestamp { return .timestamp(seconds: t.seconds, nanoseconds: t.nanoseconds) }
        return v
    }
}
