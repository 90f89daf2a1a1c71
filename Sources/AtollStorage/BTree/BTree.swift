// BTree: lookups and copy-on-write mutation of the general B+tree (format in BTreeNode.swift).
//
// Mutation descends from the root, *touching* every page on the path: a page the transaction
// does not own yet is copied to a new page (PageAllocator.touch) and the parent is pointed at
// the copy. Pages of the committed version are therefore never written, and a commit writes
// only the pages on the paths it changed. Splits and merges happen on owned pages only.

enum BTree {
    /// Trees deeper than this are treated as corrupted (a 4 KiB-page tree of depth 32 would hold
    /// far more than 2^32 pages).
    static let depthMax = 32

    private static func checkKey(_ key: UnsafeRawBufferPointer) throws {
        guard key.count <= BTreeNode.keyBytesMax else {
            throw AtollError(.limitExceeded, "B+tree key of \(key.count) bytes exceeds \(BTreeNode.keyBytesMax)")
        }
    }

    private static func nodePointer(_ space: PageSpace, _ n: PageNumber) throws -> UnsafeRawPointer {
        let p = try space.page(n)
        let t = p.u8(PageHeader.typeOffset)
        guard t == PageType.btreeLeaf.rawValue || t == PageType.btreeInner.rawValue else {
            throw AtollError.corrupted("page \(n) should be a B+tree node but has type \(t)")
        }
        return p
    }

    // MARK: reading

    /// The value stored under `key`, read in place from the map.
    static func get(root: PageNumber, key: UnsafeRawBufferPointer, space: PageSpace) throws -> UnsafeRawBufferPointer? {
        guard root != 0 else { return nil }
        var p = try nodePointer(space, root)
        var depth = 0
        while !BTreeNode.isLeaf(p) {
            depth += 1
            guard depth <= depthMax else { throw AtollError.corrupted("B+tree deeper than \(depthMax)") }
            p = try nodePointer(space, try BTreeNode.child(p, try BTreeNode.childIndex(p, key)))
        }
        let (i, exact) = try BTreeNode.lowerBound(p, key)
        guard exact else { return nil }
        return try resolve(BTreeNode.value(p, i), space: space)
    }

    static func resolve(_ location: BTreeNode.ValueLocation, space: PageSpace) throws -> UnsafeRawBufferPointer {
        switch location {
        case .inline(let b): return b
        case .blob(let first, let length): return try space.blob(first, length: length)
        }
    }

    // MARK: writing

    /// Descends to the leaf for `key`, copying every page on the way. Returns the leaf and the
    /// path of (inner page, child index) above it.
    private static func touchPath(root: inout PageNumber, key: UnsafeRawBufferPointer, allocator a: PageAllocator)
        throws -> (leaf: PageNumber, path: [(PageNumber, Int)])
    {
        var current = try a.touch(root)
        root = current
        var path: [(PageNumber, Int)] = []
        while true {
            let p = a.space.writablePage(current)
            _ = try nodePointer(a.space, current)
            if BTreeNode.isLeaf(UnsafeRawPointer(p)) { return (current, path) }
            guard path.count < depthMax else { throw AtollError.corrupted("B+tree deeper than \(depthMax)") }
            let idx = try BTreeNode.childIndex(UnsafeRawPointer(p), key)
            let child = try BTreeNode.child(UnsafeRawPointer(p), idx)
            let owned = try a.touch(child)
            if owned != child { try BTreeNode.setChild(p, idx, owned) }
            path.append((current, idx))
            current = owned
        }
    }

    /// Inserts or replaces the value under `key`.
    static func put(root: inout PageNumber, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, allocator a: PageAllocator) throws {
        try checkKey(key)
        let cell: [UInt8]
        if 4 + key.count + value.count <= BTreeNode.cellBytesMax {
            cell = BTreeNode.leafCell(key: key, inlineValue: value)
        } else {
            let blob = try a.writeBlob(value)
            cell = BTreeNode.overflowCell(key: key, blob: blob, length: value.count)
        }
        if root == 0 {
            let n = try a.allocate()
            let p = a.space.writablePage(n)
            BTreeNode.initialize(p, leaf: true)
            _ = cell.withUnsafeBytes { BTreeNode.insertCell(p, at: 0, $0) }
            root = n
            return
        }
        var (leaf, path) = try touchPath(root: &root, key: key, allocator: a)
        let p = a.space.writablePage(leaf)
        let (i, exact) = try BTreeNode.lowerBound(UnsafeRawPointer(p), key)
        if exact {
            try freeValue(p, i, allocator: a)
            BTreeNode.removeCell(p, at: i)
        }
        if cell.withUnsafeBytes({ BTreeNode.insertCell(p, at: i, $0) }) { return }

        var (separator, right) = try split(leaf, inserting: cell, at: i, redirect: nil, allocator: a)
        var left = leaf
        while let (parent, idx) = path.popLast() {
            let pp = a.space.writablePage(parent)
            let inner = separator.withUnsafeBytes { BTreeNode.innerCell(key: $0, child: left) }
            if inner.withUnsafeBytes({ BTreeNode.insertCell(pp, at: idx, $0) }) {
                try BTreeNode.setChild(pp, idx + 1, right)
                return
            }
            (separator, right) = try split(parent, inserting: inner, at: idx, redirect: right, allocator: a)
            left = parent
        }
        let newRoot = try a.allocate()
        let rp = a.space.writablePage(newRoot)
        BTreeNode.initialize(rp, leaf: false)
        let inner = separator.withUnsafeBytes { BTreeNode.innerCell(key: $0, child: left) }
        _ = inner.withUnsafeBytes { BTreeNode.insertCell(rp, at: 0, $0) }
        rp.setU32(12, right)
        root = newRoot
    }

    /// Splits the full node `page` while inserting `cell` at slot `i`. For inner nodes,
    /// `redirect` is the page the pointer after the inserted cell must name. The node keeps the
    /// lower half; returns the separator key and the new right page.
    private static func split(_ page: PageNumber, inserting cell: [UInt8], at i: Int, redirect: PageNumber?,
                              allocator a: PageAllocator) throws -> ([UInt8], PageNumber)
    {
        let p = a.space.writablePage(page)
        let leaf = BTreeNode.isLeaf(UnsafeRawPointer(p))
        let n = BTreeNode.count(UnsafeRawPointer(p))
        var cells: [[UInt8]] = []
        cells.reserveCapacity(n + 1)
        for j in 0..<n { cells.append(try BTreeNode.cellBytes(UnsafeRawPointer(p), j)) }
        cells.insert(cell, at: i)
        var rightChild = BTreeNode.rightChild(UnsafeRawPointer(p))
        if let redirect {
            if i + 1 < cells.count {
                cells[i + 1].withUnsafeMutableBytes { $0.baseAddress?.setU32(2, redirect) }
            } else {
                rightChild = redirect
            }
        }
        // Choose the split point: appends keep the old node full (sequential keys fill pages);
        // otherwise split by bytes.
        var m: Int
        if i == n && n >= 2 {
            m = leaf ? n : n - 1
        } else {
            let total = cells.reduce(0) { $0 + $1.count + 2 }
            var acc = 0
            m = 0
            while m < cells.count - 1 && acc + cells[m].count + 2 <= total / 2 { acc += cells[m].count + 2; m += 1 }
            m = max(1, min(m, cells.count - (leaf ? 1 : 2)))
        }
        let newPage = try a.allocate()
        let np = a.space.writablePage(newPage)
        if leaf {
            BTreeNode.rebuild(p, leaf: true, cells: cells[0..<m], rightChild: 0)
            BTreeNode.rebuild(np, leaf: true, cells: cells[m...], rightChild: 0)
            return (Array(BTreeNode.keyOfCell(cells[m], leaf: true)), newPage)
        }
        let middle = cells[m]
        let middleChild = PageNumber(middle[2]) | PageNumber(middle[3]) << 8 | PageNumber(middle[4]) << 16 | PageNumber(middle[5]) << 24
        BTreeNode.rebuild(p, leaf: false, cells: cells[0..<m], rightChild: middleChild)
        BTreeNode.rebuild(np, leaf: false, cells: cells[(m + 1)...], rightChild: rightChild)
        return (Array(BTreeNode.keyOfCell(middle, leaf: false)), newPage)
    }

    private static func freeValue(_ p: UnsafeMutableRawPointer, _ i: Int, allocator a: PageAllocator) throws {
        if case .blob(let first, let length) = try BTreeNode.value(UnsafeRawPointer(p), i) {
            a.freeBlob(first, length: length)
        }
    }

    /// Removes `key`. Returns whether it was present.
    @discardableResult
    static func delete(root: inout PageNumber, key: UnsafeRawBufferPointer, allocator a: PageAllocator) throws -> Bool {
        guard root != 0, try get(root: root, key: key, space: a.space) != nil else { return false }
        var (leaf, path) = try touchPath(root: &root, key: key, allocator: a)
        let p = a.space.writablePage(leaf)
        let (i, exact) = try BTreeNode.lowerBound(UnsafeRawPointer(p), key)
        guard exact else { return false }
        try freeValue(p, i, allocator: a)
        BTreeNode.removeCell(p, at: i)
        try rebalance(node: leaf, path: &path, root: &root, allocator: a)
        return true
    }

    /// Restores the fill invariants after a removal from `node`: empty nodes are removed,
    /// underfull nodes are merged with a sibling when the two fit in one page.
    private static func rebalance(node start: PageNumber, path: inout [(PageNumber, Int)], root: inout PageNumber,
                                  allocator a: PageAllocator) throws
    {
        var node = start
        var nodeIsGone = false // node has no children/cells left and must be unlinked
        while let (parent, idx) = path.popLast() {
            let pp = a.space.writablePage(parent)
            let p = UnsafeRawPointer(a.space.writablePage(node))
            let empty = nodeIsGone || (BTreeNode.isLeaf(p) && BTreeNode.count(p) == 0)
            if empty {
                a.free(node)
                let pc = BTreeNode.count(UnsafeRawPointer(pp))
                if pc == 0 {
                    // The parent's only child vanished: the parent vanishes too.
                    nodeIsGone = true
                    node = parent
                    continue
                }
                if idx < pc {
                    BTreeNode.removeCell(pp, at: idx)
                } else {
                    let newRight = try BTreeNode.child(UnsafeRawPointer(pp), pc - 1)
                    pp.setU32(12, newRight)
                    BTreeNode.removeCell(pp, at: pc - 1)
                }
            } else if BTreeNode.usedBytes(p) < BTreeNode.pageBytes / 4 {
                // Includes an inner node left with a single child: it is merged into a sibling
                // when they fit, and otherwise kept. Linking the child in its place would put
                // leaves at different depths; only the root may shrink the tree's height.
                try mergeIfPossible(parent: parent, childIndex: idx, allocator: a)
            }
            nodeIsGone = false
            node = parent
        }
        // node is the root now.
        if nodeIsGone {
            a.free(node)
            root = 0
            return
        }
        let rp = UnsafeRawPointer(a.space.writablePage(node))
        if BTreeNode.count(rp) == 0 {
            if BTreeNode.isLeaf(rp) {
                a.free(node)
                root = 0
            } else {
                root = BTreeNode.rightChild(rp)
                a.free(node)
            }
        }
    }

    /// Merges child `idx` of `parent` with an adjacent sibling when both fit in one page.
    private static func mergeIfPossible(parent: PageNumber, childIndex idx: Int, allocator a: PageAllocator) throws {
        let pp = a.space.writablePage(parent)
        let pc = BTreeNode.count(UnsafeRawPointer(pp))
        guard pc >= 1 else { return }
        let j = idx < pc ? idx : idx - 1 // merge children j and j+1, separated by key j
        let leftNumber = try BTreeNode.child(UnsafeRawPointer(pp), j)
        let rightNumber = try BTreeNode.child(UnsafeRawPointer(pp), j + 1)
        let lp0 = try nodePointer(a.space, leftNumber)
        let rp0 = try nodePointer(a.space, rightNumber)
        guard BTreeNode.isLeaf(lp0) == BTreeNode.isLeaf(rp0) else { throw AtollError.corrupted("B+tree siblings at different depths") }
        let leaf = BTreeNode.isLeaf(lp0)
        let separator = Array(try BTreeNode.key(UnsafeRawPointer(pp), j))
        let extra = leaf ? 0 : 6 + separator.count + 2
        guard BTreeNode.usedBytes(lp0) + BTreeNode.usedBytes(rp0) + extra <= BTreeNode.pageBytes - BTreeNode.headerBytes else { return }
        let left = try a.touch(leftNumber)
        if left != leftNumber { try BTreeNode.setChild(pp, j, left) }
        let lp = a.space.writablePage(left)
        let rp = try nodePointer(a.space, rightNumber)
        var cells: [[UInt8]] = []
        for k in 0..<BTreeNode.count(UnsafeRawPointer(lp)) { cells.append(try BTreeNode.cellBytes(UnsafeRawPointer(lp), k)) }
        var rightChild: PageNumber = 0
        if !leaf {
            cells.append(separator.withUnsafeBytes { BTreeNode.innerCell(key: $0, child: BTreeNode.rightChild(UnsafeRawPointer(lp))) })
            rightChild = BTreeNode.rightChild(rp)
        }
        for k in 0..<BTreeNode.count(rp) { cells.append(try BTreeNode.cellBytes(rp, k)) }
        BTreeNode.rebuild(lp, leaf: leaf, cells: cells[...], rightChild: rightChild)
        // The pointer that named the right sibling now names the merged node; drop separator j.
        try BTreeNode.setChild(pp, j + 1, left)
        BTreeNode.removeCell(pp, at: j)
        a.free(rightNumber)
    }

    /// Gives write access to the inline value under `key` (which must exist and be inline),
    /// without changing its size. Used to fill reserved free-list entries.
    static func withWritableInlineValue(root: PageNumber, key: UnsafeRawBufferPointer, allocator a: PageAllocator,
                                        _ body: (UnsafeMutableRawBufferPointer) throws -> Void) throws
    {
        var root = root
        let before = root
        let (leaf, _) = try touchPath(root: &root, key: key, allocator: a)
        guard root == before else { throw AtollError(.invalidTransaction, "reserved value is not on owned pages") }
        let p = a.space.writablePage(leaf)
        let (i, exact) = try BTreeNode.lowerBound(UnsafeRawPointer(p), key)
        guard exact, case .inline(let v) = try BTreeNode.value(UnsafeRawPointer(p), i), let start = v.baseAddress else {
            throw AtollError(.invalidTransaction, "reserved value is missing")
        }
        try body(UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(mutating: start), count: v.count))
    }

    /// Frees every page of the tree (and its blobs).
    static func freeAll(root: PageNumber, allocator a: PageAllocator) throws {
        guard root != 0 else { return }
        try freeAll(root, depth: 0, allocator: a)
    }

    private static func freeAll(_ n: PageNumber, depth: Int, allocator a: PageAllocator) throws {
        guard depth <= depthMax else { throw AtollError.corrupted("B+tree deeper than \(depthMax)") }
        let p = try nodePointer(a.space, n)
        let count = BTreeNode.count(p)
        if BTreeNode.isLeaf(p) {
            for i in 0..<count {
                if case .blob(let first, let length) = try BTreeNode.value(p, i) { a.freeBlob(first, length: length) }
            }
        } else {
            for i in 0...count { try freeAll(try BTreeNode.child(p, i), depth: depth + 1, allocator: a) }
        }
        a.free(n)
    }
}

#if canImport(Glibc)
import Glibc
#endif
