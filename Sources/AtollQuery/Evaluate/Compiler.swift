import AtollStorage

/// A predicate prepared for evaluation.
indirect enum Node {
    case constant(Bool)
    case and([Node])
    case or([Node])
    case not(Node)
    /// A property of the object itself against a constant: evaluated on packed columns.
    case column(ColumnTest)
    /// Anything else: evaluated by following the object graph, row by row.
    case general(CompiledComparison)
}

struct CompiledComparison {
    let comparison: BoundComparison
    let comparator: Comparator
    /// The predicates of SUBQUERY counts on either side, compiled once for every object.
    var leftSubquery: Node?
    var rightSubquery: Node?
}

struct Compiler {
    let engine: QueryEngine

    func compile(_ p: BoundPredicate, className: String) throws -> Node {
        switch p {
        case .constant(let b): return .constant(b)
        case .and(let ops): return .and(try ops.map { try compile($0, className: className) })
        case .or(let ops): return .or(try ops.map { try compile($0, className: className) })
        case .not(let op): return .not(try compile(op, className: className))
        case .comparison(let c):
            var constant: QueryValue?
            if case .constant(let v) = c.right { constant = v }
            let comparator = Comparator(op: c.operator, options: c.options, valueType: c.valueType, constant: constant)
            if let constant, c.quantifier == .any, case .keyPath(let path) = c.left, path.steps.count == 1, !path.isToMany, path.steps[0].mapAccess == nil,
               path.steps[0].mixedPath.isEmpty {
                let property = path.steps[0].property
                return .column(ColumnTest(column: property.columnIndex, type: property.type, constant: constant, comparator: comparator))
            }
            var compiled = CompiledComparison(comparison: c, comparator: comparator)
            if case .subqueryCount(let sub) = c.left { compiled.leftSubquery = try compile(sub.predicate, className: sub.elementClassName) }
            if case .subqueryCount(let sub) = c.right { compiled.rightSubquery = try compile(sub.predicate, className: sub.elementClassName) }
            return .general(compiled)
        }
    }
}
