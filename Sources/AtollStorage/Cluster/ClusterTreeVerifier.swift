/// Walks a cluster tree and checks its invariants: node types, key order within and across
/// leaves, first keys as lower bounds, row counts, leaf block extents, equal leaf depth and blob
/// references of external values.
struct ClusterTreeVerifier {
    let space: PageSpace
    let layout: LeafLayout
    var visit: (PageNumber, Int) throws -> Void = { _, _ in }

    /// Returns the number of rows.
    func verify(root: PageNumber, name: String) throws -> Int {
        guard root != 0 else { return 0 }
        var previous: UInt64?
        var leafDepth: Int?
        return Int(try walk(root, depth: 1, lower: nil, previous: &previous, leafDepth: &leafDepth, name: name))
    }

    private func walk(_ n: PageNumber, depth: Int, lower: UInt64?, previous: inout UInt64?, leafDepth: inout Int?,
                      name: String) throws -> UInt64
    {
        guard depth <= ClusterTreeView.depthMax else { throw AtollError.corrupted("\(name): cluster tree too deep") }
        let p = try space.page(n)
        try visit(n, 1)
        if p.u8(PageHeader.typeOffset) == PageType.clusterInner.rawValue {
            try ClusterInner.validate(p, page: n)
            var total: UInt64 = 0
            for i in 0..<ClusterInner.count(p) {
                let fk = ClusterInner.firstKey(p, i)
                if i > 0 && fk <= ClusterInner.firstKey(p, i - 1) {
                    throw AtollError.corrupted("\(name): inner node \(n) first keys out of order")
                }
                let rows = try walk(ClusterInner.child(p, i), depth: depth + 1, lower: i == 0 ? lower : fk,
                                    previous: &previous, leafDepth: &leafDepth, name: name)
                guard rows == ClusterInner.rows(p, i) else {
                    throw AtollError.corrupted("\(name): inner node \(n) says \(ClusterInner.rows(p, i)) rows under child \(i), found \(rows)")
                }
                total += rows
            }
            return total
        }
        let leaf = try ClusterLeafPage(p, page: n, layout: layout)
        if let d = leafDepth, d != depth { throw AtollError.corrupted("\(name): leaves at depths \(d) and \(depth)") }
        leafDepth = depth
        guard leaf.rowCount > 0 else { throw AtollError.corrupted("\(name): empty leaf \(n)") }
        for r in 0..<leaf.rowCount {
            let k = leaf.key(r)
            if let prev = previous, k <= prev { throw AtollError.corrupted("\(name): keys out of order in leaf \(n)") }
            if let lower, k < lower { throw AtollError.corrupted("\(name): key below its node's first key in leaf \(n)") }
            previous = k
        }
        for (b, spec) in layout.blocks.enumerated() where spec.kind == .bytes {
            let c = leaf.bytesColumn(b)
            for r in 0..<leaf.rowCount {
                if c.external.isMarked(r) {
                    guard let (first, length) = c.externalReference(r) else { throw AtollError.corrupted("\(name): bad external value in leaf \(n)") }
                    _ = try space.blob(first, length: length)
                    try visit(first, Blob.pagesNeeded(forLength: length))
                } else if c.stored(r).count == 0 && !c.isNull(r) {
                    // Empty values are fine; check offsets monotonic instead.
                    let s = c.offsets[r], e = c.offsets[r + 1]
                    guard s <= e else { throw AtollError.corrupted("\(name): offsets decrease in leaf \(n)") }
                }
            }
        }
        return UInt64(leaf.rowCount)
    }
}
