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
        return try BoundQuery(predicate, on: className, schema: QuerySchema.of(transaction), arguments: arguments)
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
            if let n = try exactRangeCount(query.predicate, table: table) { return n }
            if let n = try collectionIndexCount(query.predicate, table: table) { return n }
            if let plan = try indexPlan(query.predicate, table: table) {
                // The index answered the whole predicate: count its run (a range run is not
                // checked again when it is exact, QueryEngine+RangePlan.swift).
                if case .constant(true) = plan.remaining { return plan.keys.count }
                return try filter(table: table, predicate: query.predicate, candidates: nil, plan: plan).count
            }
            let node = try Compiler(engine: self).compile(query.predicate, className: query.className)
            var total = 0
            let scratch = RowScratch()
            let rangeTests = Self.rangeTests(node)
            try withUnsafeTemporaryAllocation(of: UInt64.self, capacity: Self.leafWordsMax) { words in
                guard let bits = words.baseAddress else { return }
                try table.forEachLeaf { leaf in
                    if let rangeTests, try count(rangeTests, leaf: leaf, table: table, bits: bits, into: &total) { return true }
                    total += try select(node, leaf: leaf, table: table, input: scratch.allRows(leaf.count),
                                        output: scratch.output(leaf.count), scratch: scratch, depth: 0)
                    return true
                }
            }
            return total
        }
        return try run(query, candidates: candidates).count
    }

    // MARK: filtering

    /// `plan`: the index plan of `predicate`, when the caller has made it already.
    func filter(table: Table, predicate: BoundPredicate, candidates: [ObjectKey]?, plan: IndexPlan? = nil) throws -> [ObjectKey] {
        if case .constant(true) = predicate, candidates == nil { return try table.objectKeys() }
        var selected = candidates
        var remaining = predicate
        if selected == nil, let plan = try plan ?? indexPlan(predicate, table: table) {
            // The index answered its term exactly: only the other terms are left to check.
            if case .constant(true) = plan.remaining { return plan.keys }
            selected = plan.keys
            remaining = plan.remaining
        }
        let node = try Compiler(engine: self).compile(remaining, className: table.name)
        if let selected {
            var result: [ObjectKey] = []
            var i = 0
            while i < selected.count {
                let key = selected[i]
                i += 1
                guard let h = try table.locate(key) else { continue }
                if try matches(node, h, table: table) { result.append(key) }
            }
            return result
        }
        var result: [ObjectKey] = []
        let scratch = RowScratch()
        try table.forEachLeaf { leaf in
            let output = scratch.output(leaf.count)
            let n = try select(node, leaf: leaf, table: table, input: scratch.allRows(leaf.count), output: output, scratch: scratch, depth: 0)
            var j = 0
            while j < n {
                result.append(ObjectKey(leaf.key(output[j])))
                j += 1
            }
            return true
        }
        return result
    }

    /// Objects selected through an index, and what the index did not check.
    struct IndexPlan {
        /// Exactly the objects matching the term the index answered (for a range that the
        /// index cannot answer exactly, candidates that `remaining`, then the whole predicate,
        /// checks), ascending.
        var keys: [ObjectKey]
        /// The other terms of the predicate (`.constant(true)` when none).
        var remaining: BoundPredicate
    }

    // MARK: counting with bitmaps

    /// Bitmap words for the rows of one leaf (leaves hold at most 1000 rows).
    static let leafWordsMax = 16

    /// The column tests of a predicate that is one test or an AND of tests (nil otherwise):
    /// candidates for counting with bitmaps.
    static func rangeTests(_ node: Node) -> [ColumnTest]? {
        switch node {
        case .column(let test): return [test]
        case .and(let children):
            var tests: [ColumnTest] = []
            for child in children {
                guard case .column(let test) = child else { return nil }
                tests.append(test)
            }
            return tests.isEmpty ? nil : tests
        default: return nil
        }
    }

    /// Counts the rows of `leaf` passing every test, one bitmap pass per test, when each is an
    /// integer range on a column without nulls in this leaf; false (nothing counted) otherwise.
    func count(_ tests: [ColumnTest], leaf: LeafRef, table: Table, bits: UnsafeMutablePointer<UInt64>, into total: inout Int) throws -> Bool {
        let rows = leaf.count
        let words = (rows + 63) >> 6
        guard words <= Self.leafWordsMax else { return false }
        bits.update(repeating: .max, count: words)
        if rows & 63 != 0 { bits[words - 1] = (1 << UInt64(rows & 63)) - 1 }
        for test in tests {
            guard try test.intersectRange(leaf, table: table, bits: bits) else { return false }
        }
        var n = 0
        for w in 0..<words { n += bits[w].nonzeroBitCount }
        total += n
        return true
    }

    /// The objects an index selects for the predicate (see `indexPlan`), or nil when it scans.
    func plannedCandidates(_ predicate: BoundPredicate, table: Table) throws -> [ObjectKey]? {
        try indexPlan(predicate, table: table)?.keys
    }

    /// Candidates from an index when the predicate is (or ANDs) an equality / IN on an indexed
    /// property of the object itself, compared exactly, or else a range on one
    /// (QueryEngine+RangePlan.swift). Throws when the index cannot be read
    /// (a damaged index is reported, not bypassed by a scan).
    func indexPlan(_ predicate: BoundPredicate, table: Table) throws -> IndexPlan? {
        let terms: [BoundPredicate]
        switch predicate {
        case .and(let operands): terms = operands
        case .comparison: terms = [predicate]
        default: return nil
        }
        var range: (comparison: BoundComparison, property: QueryProperty, column: Int, termIndex: Int)?
        for (termIndex, term) in terms.enumerated() {
            guard case .comparison(let c) = term, case .constant(let constant) = c.right,
                  let (property, column) = indexedProperty(c, table: table) else { continue }
            var values: [QueryValue]
            switch (c.operator, constant) {
            case (.equal, .list): continue
            case (.equal, _): values = [constant]
            case (.in, .list(let list)): values = list
            default:
                // A range: tried when no term is an equality (QueryEngine+RangePlan.swift).
                if range == nil { range = (c, property, column, termIndex) }
                continue
            }
            guard values.allSatisfy({ ValueComparison.numeric($0) == nil || Self.isExactType($0, property.type) }) else { continue }
            // An object compared with a mixed value is a typed link, which `storageValue` (a
            // bare link) does not express: scan.
            if property.type == .mixed, values.contains(where: { if case .object = $0 { true } else { false } }) { continue }
            var keys: [ObjectKey]
            do {
                if values.count == 1 {
                    guard let stored = values[0].storageValue else { return nil }
                    keys = try table.findAll(indexed: column, equalTo: stored)
                } else {
                    var union = Set<ObjectKey>()
                    for v in values {
                        guard let stored = v.storageValue else { return nil }
                        for k in try table.findAll(indexed: column, equalTo: stored) { union.insert(k) }
                    }
                    keys = union.sorted()
                }
            } catch let e as AtollError where e.kind == .invalidArgument {
                // The column has no index after all: scan. (A failed read of the index is not
                // caught: a damaged index is reported, not bypassed.)
                continue
            }
            var others = terms
            others.remove(at: termIndex)
            let remaining: BoundPredicate = others.isEmpty ? .constant(true) : others.count == 1 ? others[0] : .and(others)
            return IndexPlan(keys: keys, remaining: remaining)
        }
        // Elements of an indexed set or map (QueryEngine+CollectionIndexPlan.swift).
        if let plan = try collectionIndexPlan(terms, predicate: predicate, table: table) { return plan }
        if let range, let (keys, exact) = try rangeCandidates(range.comparison, property: range.property, column: range.column, table: table) {
            guard exact else { return IndexPlan(keys: keys, remaining: predicate) }
            var others = terms
            others.remove(at: range.termIndex)
            return IndexPlan(keys: keys, remaining: others.isEmpty ? .constant(true) : others.count == 1 ? others[0] : .and(others))
        }
        return nil
    }

    /// The property of the object itself that `c` compares, without modifiers, with a constant,
    /// and its column, when the column has an index (or is the primary key).
    func indexedProperty(_ c: BoundComparison, table: Table) -> (QueryProperty, Int)? {
        guard c.quantifier == .any, c.options.isEmpty, case .keyPath(let path) = c.left, path.steps.count == 1, !path.isToMany,
              path.steps[0].mapAccess == nil, path.steps[0].mixedPath.isEmpty, case .constant = c.right else { return nil }
        let property = path.steps[0].property
        let column = property.columnIndex
        guard column >= 0, column < table.spec.columns.count, property.isIndexed || table.spec.primaryKey == property.name,
              table.hasIndex(column) || table.isKeyAlias(column) || table.spec.primaryKey == property.name else { return nil }
        return (property, column)
    }

    private static func isExactType(_ v: QueryValue, _ t: QueryValueType) -> Bool {
        switch (v, t) {
        case (.int, .int), (.float, .float), (.double, .double): true
        default: false
        }
    }

    /// Writes the rows of `input` (rows of `leaf`, ascending) for which `node` holds to `output`
    /// (ascending) and returns how many. Buffers come from `scratch` (two per nesting level,
    /// reused for every leaf), so a scan allocates nothing per leaf or row; loops are explicit
    /// `while` loops for the same reason in unoptimized builds.
    func select(_ node: Node, leaf: LeafRef, table: Table, input: UnsafeBufferPointer<Int>,
                output: UnsafeMutableBufferPointer<Int>, scratch: RowScratch, depth: Int) throws -> Int
    {
        if input.isEmpty { return 0 }
        switch node {
        case .constant(let b):
            guard b else { return 0 }
            return Self.copy(input, to: output)
        case .column(let test):
            return try test.select(try test.prepare(leaf, table: table), from: input, into: output)
        case .general(let comparison):
            let graph = GraphEvaluator(engine: self)
            var n = 0, i = 0
            while i < input.count {
                let r = input[i]
                i += 1
                let object = ObjectRef(table: table, row: RowHandle(leaf: leaf, row: r, key: ObjectKey(leaf.key(r))))
                if try graph.holds(comparison, on: object) { output[n] = r; n += 1 }
            }
            return n
        case .and(let children):
            if children.isEmpty { return Self.copy(input, to: output) }
            let a = scratch.rows(depth: depth, slot: 0, capacity: input.count)
            let b = scratch.rows(depth: depth, slot: 1, capacity: input.count)
            var source = input
            var target = a
            var i = 0
            while i < children.count {
                let last = i == children.count - 1
                let n = try select(children[i], leaf: leaf, table: table, input: source, output: last ? output : target,
                                   scratch: scratch, depth: depth + 1)
                if last || n == 0 { return n }
                source = UnsafeBufferPointer(rebasing: target[0..<n])
                target = target.baseAddress == a.baseAddress ? b : a
                i += 1
            }
            return 0
        case .or(let children):
            let marks = scratch.marks(depth: depth, capacity: leaf.count)
            let remaining = scratch.rows(depth: depth, slot: 0, capacity: input.count)
            let hits = scratch.rows(depth: depth, slot: 1, capacity: input.count)
            var remainingCount = Self.copy(input, to: remaining)
            var i = 0
            while i < children.count && remainingCount > 0 {
                let n = try select(children[i], leaf: leaf, table: table, input: UnsafeBufferPointer(rebasing: remaining[0..<remainingCount]),
                                   output: hits, scratch: scratch, depth: depth + 1)
                var j = 0
                while j < n { marks[hits[j]] = true; j += 1 }
                var kept = 0
                j = 0
                while j < remainingCount {
                    let r = remaining[j]
                    if !marks[r] { remaining[kept] = r; kept += 1 }
                    j += 1
                }
                remainingCount = kept
                i += 1
            }
            var n = 0
            i = 0
            while i < input.count {
                let r = input[i]
                if marks[r] { output[n] = r; n += 1; marks[r] = false }
                i += 1
            }
            return n
        case .not(let child):
            let hits = scratch.rows(depth: depth, slot: 0, capacity: input.count)
            let h = try select(child, leaf: leaf, table: table, input: input, output: hits, scratch: scratch, depth: depth + 1)
            // input minus hits; both ascending.
            var n = 0, i = 0, j = 0
            while i < input.count {
                let r = input[i]
                i += 1
                if j < h && hits[j] == r { j += 1; continue }
                output[n] = r
                n += 1
            }
            return n
        }
    }

    /// Whether `node` holds for one object (candidates from an index or a list, SUBQUERY
    /// elements). Allocates nothing.
    func matches(_ node: Node, _ h: RowHandle, table: Table) throws -> Bool {
        switch node {
        case .constant(let b): return b
        case .column(let test): return try test.holds(try test.prepare(h.leaf, table: table), row: h.row)
        case .general(let comparison): return try GraphEvaluator(engine: self).holds(comparison, on: ObjectRef(table: table, row: h))
        case .and(let children):
            var i = 0
            while i < children.count {
                if try !matches(children[i], h, table: table) { return false }
                i += 1
            }
            return true
        case .or(let children):
            var i = 0
            while i < children.count {
                if try matches(children[i], h, table: table) { return true }
                i += 1
            }
            return false
        case .not(let child): return try !matches(child, h, table: table)
        }
    }

    private static func copy(_ input: UnsafeBufferPointer<Int>, to output: UnsafeMutableBufferPointer<Int>) -> Int {
        if let from = input.baseAddress, let to = output.baseAddress, input.count > 0 {
            to.update(from: from, count: input.count)
        }
        return input.count
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
        if sortKeys.count == 1, let sorted = try sortByOwnColumn(keys, table: table, sortKeys[0]) { return sorted }
        let graph = GraphEvaluator(engine: self)
        var rows: [(index: Int, key: ObjectKey, values: [QueryValue])] = []
        rows.reserveCapacity(keys.count)
        for (i, key) in keys.enumerated() {
            guard let h = try table.locate(key) else { continue }
            let object = ObjectRef(table: table, row: h)
            var values: [QueryValue] = []
            for s in sortKeys { values.append(try graph.firstValue(of: s.keyPath, from: object)) }
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

    /// The common case of `sort`: one key, a scalar property of the object itself. Values are
    /// read typed from each row (strings as bytes in place), with the same order as
    /// `ValueComparison.compare`: nil first, numbers by value, strings by StringOrdering, ties
    /// in the original order. Nil for the other cases.
    private func sortByOwnColumn(_ keys: [ObjectKey], table: Table, _ sortKey: BoundSortKey) throws -> [ObjectKey]? {
        guard sortKey.keyPath.steps.count == 1, !sortKey.keyPath.isToMany, sortKey.keyPath.steps[0].mapAccess == nil,
              sortKey.keyPath.steps[0].mixedPath.isEmpty else { return nil }
        let p = sortKey.keyPath.steps[0].property
        let c = p.columnIndex
        guard p.linkingObjectsOrigin == nil, !p.isList, c >= 0, c < table.spec.columns.count else { return nil }
        let ascending = sortKey.ascending
        switch p.type {
        case .int, .bool:
            return try sortedByOrderKey(keys, table: table, ascending: ascending) { h in
                table.isNull(h, c) ? 0 : OrderKey.int(table.int(h, c))
            }
        case .double:
            return try sortedByOrderKey(keys, table: table, ascending: ascending) { h in
                table.isNull(h, c) ? 0 : OrderKey.double(table.double(h, c))
            }
        case .float:
            return try sortedByOrderKey(keys, table: table, ascending: ascending) { h in
                table.isNull(h, c) ? 0 : OrderKey.double(Double(table.float(h, c)))
            }
        case .string:
            return try sorted(keys, table: table, ascending: ascending, read: { try table.bytes($0, c) },
                              compare: { StringOrdering.compare($0, $1) })
        default:
            return nil
        }
    }

    /// Numbers mapped to unsigned integers in the same order, so that sorting compares plain
    /// integers: 0 is nil (first), values from 1 up. Nil for NaN, which `ValueComparison`
    /// orders as equal to everything (those sorts take the general path).
    enum OrderKey {
        @inline(__always)
        static func int(_ v: Int64) -> UInt64? {
            // Sign flipped: order as unsigned; nil's 0 stays below by shifting values up one,
            // which needs one bit: Int64.min maps to 1... as long as no value maps to UInt64.max.
            let u = UInt64(bitPattern: v) ^ (1 << 63)
            return u == .max ? nil : u &+ 1
        }

        @inline(__always)
        static func double(_ v: Double) -> UInt64? {
            if v.isNaN { return nil }
            let v = v == 0 ? 0 : v // -0 and 0 are equal
            let bits = v.bitPattern
            let u = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
            return u == .max ? nil : u &+ 1
        }
    }

    /// Sorts by an order key per object (nil from `read`: take the general path); stable.
    private func sortedByOrderKey(_ keys: [ObjectKey], table: Table, ascending: Bool,
                                  _ read: (RowHandle) -> UInt64?) throws -> [ObjectKey]?
    {
        var entries: [(order: UInt64, index: Int)] = []
        entries.reserveCapacity(keys.count)
        for (i, key) in keys.enumerated() {
            guard let h = try table.locate(key) else { continue }
            guard let order = read(h) else { return nil }
            // Descending: the complement reverses the order of values (nil then last), and
            // ties still keep their original order.
            entries.append((ascending ? order : ~order, i))
        }
        entries.sort { $0.order != $1.order ? $0.order < $1.order : $0.index < $1.index }
        return entries.map { keys[$0.index] }
    }

    private func sorted<V>(_ keys: [ObjectKey], table: Table, ascending: Bool, read: (RowHandle) throws -> V?,
                           compare: (V, V) -> Int) throws -> [ObjectKey]
    {
        var entries: [(value: V?, index: Int, key: ObjectKey)] = []
        entries.reserveCapacity(keys.count)
        for (i, key) in keys.enumerated() {
            guard let h = try table.locate(key) else { continue }
            entries.append((try read(h), i, key))
        }
        entries.sort { a, b in
            let c: Int
            switch (a.value, b.value) {
            case (nil, nil): c = 0
            case (nil, _): c = -1
            case (_, nil): c = 1
            case let (x?, y?): c = compare(x, y)
            }
            if c != 0 { return ascending ? c < 0 : c > 0 }
            return a.index < b.index
        }
        return entries.map(\.key)
    }

    func distinct(_ keys: [ObjectKey], table: Table, by paths: [BoundKeyPath]) throws -> [ObjectKey] {
        let graph = GraphEvaluator(engine: self)
        var seen = Set<[QueryValue]>()
        var result: [ObjectKey] = []
        keys: for key in keys {
            guard let h = try table.locate(key) else { continue }
            let object = ObjectRef(table: table, row: h)
            var values: [QueryValue] = []
            for p in paths {
                // As in Realm, an object whose path breaks at a nil link is left out.
                if try hasNilLinkBeforeEnd(p, from: object) { continue keys }
                values.append(try graph.firstValue(of: p, from: object))
            }
            if seen.insert(values.map(Self.distinctKey)).inserted { result.append(key) }
        }
        return result
    }

    /// Whether a to-one link before the last step of `path` is nil from `start`.
    private func hasNilLinkBeforeEnd(_ path: BoundKeyPath, from start: ObjectRef) throws -> Bool {
        var o = start
        for step in path.steps.dropLast() {
            let p = step.property
            guard p.linkingObjectsOrigin == nil, !p.isList, p.type == .object, let target = p.objectClassName else { return false }
            guard let k = o.table.link(o.row, p.columnIndex) else { return true }
            guard let t = try transaction.table(named: target), let h = try t.locate(k) else { return true }
            o = ObjectRef(table: t, row: h)
        }
        return false
    }

    /// Values equal under ValueComparison map to one key (numbers as doubles).
    private static func distinctKey(_ v: QueryValue) -> QueryValue {
        if let d = ValueComparison.numeric(v) { return .double(d) }
        if let t = v.normalizedTimestamp { return .timestamp(seconds: t.seconds, nanoseconds: t.nanoseconds) }
        return v
    }
}
