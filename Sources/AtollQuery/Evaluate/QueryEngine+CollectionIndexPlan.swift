import AtollStorage

// Terms answered by the index of a set's elements or a map's entries (AtollStorage
// CollectionIndex.swift):
//
// - `ANY tags == x`, `x IN tags`, `tags CONTAINS x`, `ANY tags IN {x, y}` on an indexed set: the
//   objects under x's key (a union for several values). Exact: an object is under a key once.
// - `attributes['k'] == v` (or IN {…}) on an indexed map: the objects under (k, v). Nil is not
//   looked up: `attributes['k'] == nil` also holds for maps without 'k', which the index does
//   not list.
// - `attributes['k'] op v` with <, <=, >, >=, BETWEEN on a map of ints, dates or decimals: a run
//   inside k's entries, exact or a superset as for scalar ranges (QueryEngine+RangePlan.swift).
//
// Compared values must be the property's exact type (a double compared with an int set is
// scanned), and string options ([c], [d]) are scanned: the index keys bytes. Unlike scalar
// ranges, every run is read from the index, however large: a scan decodes each object's
// collection, which costs more than locating the candidates.

extension QueryEngine {
    /// A comparison that an index on a set's elements or a map's entries answers.
    struct CollectionIndexTerm {
        enum Lookup {
            case setContains([StorageValue])
            case mapEquals(key: String, values: [StorageValue])
            case mapRange(key: String, run: RangeRun)
        }

        var column: Int
        var lookup: Lookup

        /// Whether the objects found are exactly the comparison's matches.
        var isExact: Bool {
            if case .mapRange(_, let run) = lookup { return run.exact }
            return true
        }
    }

    /// The collection index term of `c`, when the index can answer it.
    func collectionIndexTerm(_ c: BoundComparison, table: Table) -> CollectionIndexTerm? {
        guard c.quantifier == .any, c.options.isEmpty, case .keyPath(let path) = c.left, path.steps.count == 1,
              case .constant(let constant) = c.right else { return nil }
        let step = path.steps[0]
        let property = step.property
        let column = property.columnIndex
        guard step.mixedPath.isEmpty, property.isList, property.isIndexed, property.linkingObjectsOrigin == nil, column >= 0, column < table.spec.columns.count,
              table.hasIndex(column) else { return nil }
        let spec = table.spec.columns[column]
        let values: [QueryValue]
        switch (c.operator, constant) {
        case (.equal, .list): values = []
        case (.equal, _): values = [constant]
        case (.in, .list(let list)): values = list
        default:
            guard spec.isMap, case .key(let key)? = step.mapAccess,
                  let run = rangeRun(c, property: property, column: column, table: table) else { return nil }
            return CollectionIndexTerm(column: column, lookup: .mapRange(key: key, run: run))
        }
        guard !values.isEmpty, values.allSatisfy({ Self.isIndexExact($0, property.type) }) else { return nil }
        var stored: [StorageValue] = []
        for v in values {
            guard let s = v.storageValue else { return nil }
            stored.append(s)
        }
        if spec.isSet, step.mapAccess == nil {
            return CollectionIndexTerm(column: column, lookup: .setContains(stored))
        }
        if spec.isMap, case .key(let key)? = step.mapAccess, !stored.contains(where: \.isNull) {
            return CollectionIndexTerm(column: column, lookup: .mapEquals(key: key, values: stored))
        }
        return nil
    }

    /// Whether an index lookup of `v` finds exactly the values of a property of type `t` that
    /// equal it: of numbers, ints in an int collection only (as for scalar indexes: ints,
    /// doubles and decimals that compare equal key differently), and no objects in mixed
    /// collections (typed links).
    private static func isIndexExact(_ v: QueryValue, _ t: QueryValueType) -> Bool {
        if case .object = v { return false }
        guard ValueComparison.numeric(v) != nil else { return true }
        if case .int = v, t == .int { return true }
        return false
    }

    /// The objects the term selects, ascending; nil when the index cannot tell (a key too long
    /// for it), or it has no index after all.
    func collectionIndexKeys(_ term: CollectionIndexTerm, table: Table) throws -> [ObjectKey]? {
        do {
            switch term.lookup {
            case .setContains(let values):
                if values.count == 1 { return try table.findAll(setIndexed: term.column, containing: values[0]) }
                var union = Set<ObjectKey>()
                for v in values { union.formUnion(try table.findAll(setIndexed: term.column, containing: v)) }
                return union.sorted()
            case .mapEquals(let key, let values):
                var union = Set<ObjectKey>()
                for v in values {
                    guard let keys = try table.findAll(mapIndexed: term.column, key: key, equalTo: v) else { return nil }
                    if values.count == 1 { return keys }
                    union.formUnion(keys)
                }
                return union.sorted()
            case .mapRange(let key, let run):
                if run.empty { return [] }
                return try table.findAll(mapIndexed: term.column, key: key, from: run.low, through: run.high)
            }
        } catch let e as AtollError where e.kind == .invalidArgument {
            // No usable index after all: scan. (A failed read of the index is not caught.)
            return nil
        }
    }

    /// An index plan from the first AND term a collection index answers.
    func collectionIndexPlan(_ terms: [BoundPredicate], predicate: BoundPredicate, table: Table) throws -> IndexPlan? {
        for (termIndex, term) in terms.enumerated() {
            guard case .comparison(let c) = term, let indexTerm = collectionIndexTerm(c, table: table),
                  let keys = try collectionIndexKeys(indexTerm, table: table) else { continue }
            guard indexTerm.isExact else { return IndexPlan(keys: keys, remaining: predicate) }
            var others = terms
            others.remove(at: termIndex)
            return IndexPlan(keys: keys, remaining: others.isEmpty ? .constant(true) : others.count == 1 ? others[0] : .and(others))
        }
        return nil
    }

    /// The number of matches of a predicate that is one comparison a collection index answers
    /// exactly with one lookup, from the postings headers; nil otherwise.
    func collectionIndexCount(_ predicate: BoundPredicate, table: Table) throws -> Int? {
        guard case .comparison(let c) = predicate, let term = collectionIndexTerm(c, table: table), term.isExact else { return nil }
        do {
            switch term.lookup {
            case .setContains(let values):
                guard values.count == 1 else { return nil }
                return try table.countAll(setIndexed: term.column, containing: values[0])
            case .mapEquals(let key, let values):
                guard values.count == 1 else { return nil }
                return try table.countAll(mapIndexed: term.column, key: key, equalTo: values[0])
            case .mapRange(let key, let run):
                if run.empty { return 0 }
                return try table.countAll(mapIndexed: term.column, key: key, from: run.low, through: run.high)
            }
        } catch let e as AtollError where e.kind == .invalidArgument {
            return nil
        }
    }
}
