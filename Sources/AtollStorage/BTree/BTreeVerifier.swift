/// Walks a B+tree and checks its invariants: page types, key order within and across nodes,
/// equal leaf depth, cell bounds, blob references. Used by `verify` and by the property tests.
struct BTreeVerifier {
    let space: PageSpace
    /// Every page reached, so the caller can check that no page is referenced twice.
    var visit: (PageNumber, Int) throws -> Void = { _, _ in }

    struct Summary { var entries = 0; var depth = 0; var pages = 0 }

    func verify(root: PageNumber, name: String) throws -> Summary {
        var summary = Summary()
        guard root != 0 else { return summary }
        var leafDepth: Int?
        try walk(root, depth: 1, lower: nil, upper: nil, leafDepth: &leafDepth, summary: &summary, name: name)
        summary.depth = leafDepth ?? 0
        return summary
    }

    private func walk(_ n: PageNumber, depth: Int, lower: [UInt8]?, upper: [UInt8]?, leafDepth: inout Int?,
                      summary: inout Summary, name: String) throws
    {
        guard depth <= BTree.depthMax else { throw AtollError.corrupted("\(name): deeper than \(BTree.depthMax)") }
        let p = try space.page(n)
        try visit(n, 1)
        summary.pages += 1
        let t = p.u8(PageHeader.typeOffset)
        guard t == PageType.btreeLeaf.rawValue || t == PageType.btreeInner.rawValue else {
            throw AtollError.corrupted("\(name): page \(n) has type \(t), expected a B+tree node")
        }
        let count = BTreeNode.count(p)
        let heap = BTreeNode.heapStart(p)
        guard BTreeNode.headerBytes + 2 * count <= heap, heap <= BTreeNode.pageBytes else {
            throw AtollError.corrupted("\(name): page \(n) slot array overlaps its heap")
        }
        var previous: [UInt8]? = lower
        for i in 0..<count {
            let o = try BTreeNode.cellOffset(p, i)
            guard o >= heap, o + BTreeNode.cellSize(p, at: o) <= BTreeNode.pageBytes else {
                throw AtollError.corrupted("\(name): page \(n) cell \(i) lies outside the heap")
            }
            let k = Array(try BTreeNode.key(p, i))
            if let prev = previous {
                let c = prev.withUnsafeBytes { a in k.withUnsafeBytes { b in BTreeNode.compare(a, b) } }
                // Leaf keys strictly increase; the first key may equal the inherited lower bound.
                if c > 0 || (c == 0 && !(i == 0 && previous == lower)) {
                    throw AtollError.corrupted("\(name): page \(n) keys out of order at cell \(i)")
                }
            }
            if let upper {
                let c = k.withUnsafeBytes { a in upper.withUnsafeBytes { b in BTreeNode.compare(a, b) } }
                guard c < 0 else { throw AtollError.corrupted("\(name): page \(n) key above its parent's bound") }
            }
            previous = k
        }
        if BTreeNode.isLeaf(p) {
            if let d = leafDepth, d != depth { throw AtollError.corrupted("\(name): leaves at depths \(d) and \(depth)") }
            leafDepth = depth
            summary.entries += count
            for i in 0..<count {
                if case .blob(let first, let length) = try BTreeNode.value(p, i) {
                    _ = try space.blob(first, length: length)
                    try visit(first, Blob.pagesNeeded(forLength: length))
                }
            }
            return
        }
        var lo = lower
        for i in 0...count {
            let hi: [UInt8]? = i < count ? Array(try BTreeNode.key(p, i)) : upper
            try walk(try BTreeNode.child(p, i), depth: depth + 1, lower: lo, upper: hi, leafDepth: &leafDepth,
                     summary: &summary, name: name)
            lo = hi
        }
    }
}
