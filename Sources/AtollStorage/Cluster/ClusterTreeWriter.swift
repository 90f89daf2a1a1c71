// ClusterTreeWriter: copy-on-write changes to one table's cluster tree inside a write transaction.
//
// Inner nodes are copied (PageAllocator.touch) and changed in place in their new pages. A leaf
// is decoded into a MutableLeaf the first time the transaction changes it; it gets a new page
// number at once (so its parent can point to it) but its page is written only in `finish`, at
// commit. Until then readers in the same transaction find it in `dirty`.
//
// Invariants after every operation: inner entries are ordered by first key and their row
// counts equal the rows below them; no leaf or inner node is empty; every leaf's encoded size
// fits a page (MutableLeaf.estimatedEncodedBytes is an upper bound).

final class ClusterTreeWriter {
    // The mutable state below is used by the one write transaction's thread, one access at a
    // time (no access is held across a call that can reach the writer again), so the
    // per-access dynamic exclusivity checks are skipped (as for Table's write state).
    @exclusivity(unchecked) private(set) var root: PageNumber
    let layout: LeafLayout
    let allocator: PageAllocator
    @exclusivity(unchecked) private(set) var dirty: [PageNumber: MutableLeaf] = [:]

    /// Where the last insert or modify left its row.
    @exclusivity(unchecked) private var resultLeaf: MutableLeaf?
    @exclusivity(unchecked) private var resultRow = 0

    /// Where leaves of the last commit stay decoded (CommittedLeafCache.swift), and this tree's
    /// table there; nil for trees that neither use nor feed it (rebuilds).
    private let committedLeaves: AtollLock<CommittedLeafCache>?
    private let table: TableKey
    /// The leaves `finish` encoded that the commit leaves in `committedLeaves` once it returns.
    @exclusivity(unchecked) private(set) var leavesToKeep: [CommittedLeaf] = []

    init(root: PageNumber, layout: LeafLayout, allocator: PageAllocator,
         committedLeaves: AtollLock<CommittedLeafCache>? = nil, table: TableKey = TableKey(0)) {
        self.root = root
        self.layout = layout
        self.allocator = allocator
        self.committedLeaves = committedLeaves
        self.table = table
    }

    var view: ClusterTreeView {
        ClusterTreeView(root: root, layout: layout, space: allocator.space, dirty: dirty)
    }

    /// `fitAppended`: `fit` after a row was appended at the end of the rightmost leaf, which
    /// then splits off its last row rather than its second half, so that sequential inserts
    /// leave full leaves behind.
    /// `patch`: copy-on-write of the path to the leaf of `key`, the leaf included, as pages
    /// (the leaf is not decoded; see `modifyInPlace`).
    private enum Operation { case insert, modify, patch, fit, fitAppended, remove }

    private struct Piece {
        var page: PageNumber
        var firstKey: UInt64
        var rows: UInt64
    }

    private struct Outcome {
        var page: PageNumber
        var delta: Int
        var emptied = false
        var splits: [Piece] = []
    }

    /// Inserts a row with default contents for `key`. Throws `.primaryKeyExists` if present.
    func insert(_ key: UInt64) throws -> (MutableLeaf, Int) {
        // Appending after the largest key (sequential keys, int primary keys in order): add the
        // row to the rightmost leaf and count it on the path, without a descent.
        if let leaf = appendLeaf, appendGeneration == structureGeneration, leaf.count > 0,
           key > leaf.key(leaf.count - 1), leaf.count < ClusterLeafPage.rowCountMax {
            leaf.insertRow(at: leaf.count, key: key)
            for inner in appendPath {
                let p = allocator.space.writablePage(inner)
                let last = ClusterInner.count(UnsafeRawPointer(p)) - 1
                ClusterInner.setRows(p, last, ClusterInner.rows(UnsafeRawPointer(p), last) + 1)
            }
            if !Self.needsSplit(leaf) {
                remember(leaf)
                return (leaf, leaf.count - 1)
            }
            try run(.fitAppended, key)
            guard let (found, row) = try view.locate(key), let m = found.mutableLeaf else {
                throw AtollError(.ioError, "internal error: appended row lost")
            }
            remember(m)
            return (m, row)
        }
        if root == 0 {
            let page = try allocator.allocate()
            let leaf = MutableLeaf(specs: layout.blocks)
            dirty[page] = leaf
            root = page
        }
        try run(.insert, key)
        guard let leaf = resultLeaf else { throw AtollError(.ioError, "internal error: insert lost its row") }
        remember(leaf)
        if resultRow == leaf.count - 1 { try rememberAppendPath(to: leaf) }
        return (leaf, resultRow)
    }

    /// The rightmost path, when it consists of pages this transaction owns and ends at `leaf`.
    @exclusivity(unchecked) private var appendPath: [PageNumber] = []
    @exclusivity(unchecked) private var appendLeaf: MutableLeaf?
    @exclusivity(unchecked) private var appendGeneration: UInt64 = .max

    private func rememberAppendPath(to leaf: MutableLeaf) throws {
        appendLeaf = nil
        var path: [PageNumber] = []
        var n = root
        while dirty[n] == nil {
            let p = try allocator.space.page(n)
            guard p.u8(PageHeader.typeOffset) == PageType.clusterInner.rawValue, allocator.isFresh(n), path.count < ClusterTreeView.depthMax else { return }
            path.append(n)
            n = ClusterInner.child(p, ClusterInner.count(p) - 1)
        }
        guard dirty[n] === leaf else { return }
        appendPath = path
        appendLeaf = leaf
        appendGeneration = structureGeneration
    }

    /// The writable leaf and row of `key`, or nil when there is no such row.
    func modify(_ key: UInt64) throws -> (MutableLeaf, Int)? {
        // Consecutive changes to one object (setting its properties) find it in the last leaf.
        if let last = lastLeaf, structureGeneration == lastGeneration {
            let r = last.find(key)
            if r >= 0 { return (last, r) }
        }
        guard let (leaf, row) = try view.locate(key) else { return nil }
        if let m = leaf.mutableLeaf { remember(m); return (m, row) }
        try run(.modify, key)
        guard let leaf = resultLeaf else { return nil }
        remember(leaf)
        return (leaf, resultRow)
    }

    /// Where a change to a fixed-width value of an existing row goes (`modifyInPlace`).
    enum WritableRow {
        /// A leaf this transaction keeps decoded.
        case leaf(MutableLeaf, Int)
        /// A leaf page this transaction owns (a copy of the snapshot's page, reachable from the
        /// root through pages it owns too), to be patched in place. It stays a valid page:
        /// commit checksums (and encrypts) it like every page the transaction wrote.
        case page(ClusterLeafPage, UnsafeMutableRawPointer, Int)
    }

    /// Like `modify`, for a change that keeps the leaf's encoding as it is (a fixed-width value
    /// overwritten): a leaf of the snapshot is copied as a page and patched rather than decoded
    /// and encoded again at commit. Updates spread over many leaves (one or two values per
    /// leaf) then cost a 4 KiB copy per leaf instead of a decode and an encode. nil: no row.
    ///
    /// `hint`: where the caller found the row in a page of the tree's current state (an object
    /// that just looked itself up), which saves the lookup when that page is already patched.
    /// It is checked (this tree's patched page, holding `key` at that row), never trusted.
    func modifyInPlace(_ key: UInt64, hint: (page: ClusterLeafPage, row: Int)? = nil) throws -> WritableRow? {
        if let (page, row) = hint, row >= 0, row < page.rowCount, page.key(row) == key,
           let number = pageNumber(of: page), patched.contains(number) {
            return .page(page, allocator.space.writablePage(number), row)
        }
        if let last = lastLeaf, structureGeneration == lastGeneration {
            let r = last.find(key)
            if r >= 0 { return .leaf(last, r) }
        }
        guard let (leaf, row) = try view.locate(key) else { return nil }
        guard let page = leaf.page else {
            guard let m = leaf.mutableLeaf else { return nil }
            remember(m)
            return .leaf(m, row)
        }
        // A patched leaf is reached only through pages this transaction owns (the copy-on-write
        // descent that made it touched its whole path): patch it where it is.
        if let number = pageNumber(of: page), patched.contains(number) {
            return .page(page, allocator.space.writablePage(number), row)
        }
        resultPage = 0
        try run(.patch, key)
        guard resultPage != 0 else { throw AtollError(.ioError, "internal error: patched leaf lost") }
        let owned = try ClusterLeafPage(try allocator.space.page(resultPage), page: resultPage, layout: layout)
        guard owned.rowCount == page.rowCount, owned.key(row) == key else {
            throw AtollError(.ioError, "internal error: patched leaf does not hold its row")
        }
        return .page(owned, allocator.space.writablePage(resultPage), row)
    }

    /// The leaf page `run(.patch, _)` copied.
    @exclusivity(unchecked) private var resultPage: PageNumber = 0
    /// Leaves of this tree held as pages the transaction owns (copied by `run(.patch, _)`),
    /// until a change decodes them (`ownedLeaf`) or the tree is freed.
    @exclusivity(unchecked) private var patched = PageBitmap()

    /// The number of a page of the writer's space, from a pointer into it.
    @inline(__always)
    private func pageNumber(of page: ClusterLeafPage) -> PageNumber? {
        let offset = page.p - UnsafeRawPointer(allocator.space.base)
        guard offset >= 0, offset & (FileFormat.pageSize - 1) == 0 else { return nil }
        let n = offset >> FileFormat.pageShift
        guard n < Int(allocator.space.pageCount) else { return nil }
        return PageNumber(n)
    }

    /// The last leaf found by `modify` or `insert`, valid while no row moved between leaves.
    @exclusivity(unchecked) private var lastLeaf: MutableLeaf?
    @exclusivity(unchecked) private var lastGeneration: UInt64 = 0
    /// Incremented whenever rows move between leaves or leaves leave the tree.
    @exclusivity(unchecked) private var structureGeneration: UInt64 = 0

    private func remember(_ leaf: MutableLeaf) {
        lastLeaf = leaf
        lastGeneration = structureGeneration
    }

    /// Splits the leaf of `key` if a change made it outgrow its page.
    func fit(_ key: UInt64) throws {
        guard let (leaf, _) = try view.locate(key), let m = leaf.mutableLeaf, Self.needsSplit(m) else { return }
        // The row just appended to the rightmost leaf (an insert, then its values set): the
        // leaf splits off that row, as `insert` does, so sequential loads leave full leaves.
        let appended = m === appendLeaf && appendGeneration == structureGeneration && m.count > 0 && m.key(m.count - 1) == key
        try run(appended ? .fitAppended : .fit, key)
    }

    /// Removes the row of `key`. Returns false if there was none.
    @discardableResult
    func remove(_ key: UInt64) throws -> Bool {
        guard try view.locate(key) != nil else { return false }
        try run(.remove, key)
        return true
    }

    private func run(_ op: Operation, _ key: UInt64) throws {
        resultLeaf = nil
        if op != .modify && op != .patch { structureGeneration &+= 1 }
        let outcome = try descend(root, key: key, op: op, depth: 0)
        root = outcome.page
        if outcome.emptied {
            root = 0
            return
        }
        if !outcome.splits.isEmpty {
            var pieces = [Piece(page: outcome.page, firstKey: try firstKey(of: outcome.page), rows: try rows(of: outcome.page))]
            pieces += outcome.splits
            root = try buildInnerLevel(pieces)
        }
        // Collapse inner roots with a single child.
        while true {
            let p = try allocator.space.page(root)
            guard dirty[root] == nil, p.u8(PageHeader.typeOffset) == PageType.clusterInner.rawValue,
                  ClusterInner.count(p) == 1 else { break }
            let child = ClusterInner.child(p, 0)
            allocator.free(root)
            root = child
        }
    }

    /// Builds inner nodes over `pieces` (at least two) until one node remains; returns its page.
    private func buildInnerLevel(_ pieces: [Piece]) throws -> PageNumber {
        var level = pieces
        repeat {
            var next: [Piece] = []
            var i = 0
            while i < level.count {
                let chunk = level[i..<min(i + ClusterInner.capacity, level.count)]
                let page = try allocator.allocate()
                let p = allocator.space.writablePage(page)
                ClusterInner.initialize(p)
                for (j, c) in chunk.enumerated() { ClusterInner.setEntry(p, j, firstKey: c.firstKey, child: c.page, rows: c.rows) }
                ClusterInner.setCount(p, chunk.count)
                next.append(Piece(page: page, firstKey: chunk.first?.firstKey ?? 0, rows: chunk.reduce(0) { $0 + $1.rows }))
                i += ClusterInner.capacity
            }
            level = next
        } while level.count > 1
        return level[0].page
    }

    private func firstKey(of page: PageNumber) throws -> UInt64 {
        if let m = dirty[page] { return m.count > 0 ? m.key(0) : 0 }
        let p = try allocator.space.page(page)
        if p.u8(PageHeader.typeOffset) == PageType.clusterInner.rawValue { return ClusterInner.firstKey(p, 0) }
        return try ClusterLeafPage(p, page: page, layout: layout).key(0)
    }

    private func rows(of page: PageNumber) throws -> UInt64 {
        if let m = dirty[page] { return UInt64(m.count) }
        let p = try allocator.space.page(page)
        if p.u8(PageHeader.typeOffset) == PageType.clusterInner.rawValue { return ClusterInner.totalRows(p) }
        return UInt64(try ClusterLeafPage(p, page: page, layout: layout).rowCount)
    }

    static func needsSplit(_ m: MutableLeaf) -> Bool {
        m.count > ClusterLeafPage.rowCountMax || m.estimatedEncodedBytes > FileFormat.pageSize
    }

    /// The leaf at `page` as a MutableLeaf owned by this transaction, and its (new) page.
    private func ownedLeaf(_ page: PageNumber) throws -> (MutableLeaf, PageNumber) {
        if let m = dirty[page] { return (m, page) }
        patched.remove(page)
        let bytes = try allocator.space.page(page)
        let leaf: MutableLeaf
        if let committedLeaves, let kept = committedLeaves.withLock({ [table, layout] in
            $0.take(table: table, page: page, layout: layout, bytes: bytes)
        }) {
            // The page holds what the last commit encoded from this leaf: no decode.
            leaf = kept.leaf
        } else {
            leaf = try ClusterLeafPage(bytes, page: page, layout: layout).decode(layout: layout)
        }
        let fresh = try allocator.allocate()
        allocator.free(page)
        dirty[fresh] = leaf
        return (leaf, fresh)
    }

    private func descend(_ page: PageNumber, key: UInt64, op: Operation, depth: Int) throws -> Outcome {
        guard depth <= ClusterTreeView.depthMax else { throw AtollError.corrupted("cluster tree deeper than \(ClusterTreeView.depthMax)") }
        if dirty[page] != nil { return try descendLeaf(page, key: key, op: op) }
        guard try allocator.space.page(page).u8(PageHeader.typeOffset) == PageType.clusterInner.rawValue else {
            return try descendLeaf(page, key: key, op: op)
        }

        try ClusterInner.validate(try allocator.space.page(page), page: page)
        let owned = try allocator.touch(page)
        let p = allocator.space.writablePage(owned)
        let idx = ClusterInner.childIndex(UnsafeRawPointer(p), key)
        let child = ClusterInner.child(UnsafeRawPointer(p), idx)
        let outcome = try descend(child, key: key, op: op, depth: depth + 1)
        let p2 = allocator.space.writablePage(owned) // the base may have moved if the file grew
        var result = Outcome(page: owned, delta: outcome.delta)
        if outcome.emptied {
            ClusterInner.removeEntry(p2, at: idx)
            if ClusterInner.count(UnsafeRawPointer(p2)) == 0 {
                allocator.free(owned)
                result.emptied = true
                return result
            }
        } else {
            ClusterInner.setChild(p2, idx, outcome.page)
            let splitRows = outcome.splits.reduce(UInt64(0)) { $0 + $1.rows }
            let rows = Int64(ClusterInner.rows(UnsafeRawPointer(p2), idx)) + Int64(outcome.delta) - Int64(splitRows)
            ClusterInner.setRows(p2, idx, UInt64(max(0, rows)))
            if key < ClusterInner.firstKey(UnsafeRawPointer(p2), idx) && op == .insert { ClusterInner.setFirstKey(p2, idx, key) }
            if op == .remove { try mergeSmallLeaf(parent: owned, index: idx) }
            if !outcome.splits.isEmpty {
                result.splits = try insertEntries(outcome.splits, after: idx, in: owned)
            }
        }
        return result
    }

    /// Inserts `pieces` after entry `idx` of inner node `page`. When they do not fit, the node
    /// keeps the first entries and the rest move to new inner nodes, returned as pieces for
    /// the parent. Entries never exceed a page, not even transiently.
    private func insertEntries(_ pieces: [Piece], after idx: Int, in page: PageNumber) throws -> [Piece] {
        let p = allocator.space.writablePage(page)
        let n = ClusterInner.count(UnsafeRawPointer(p))
        if n + pieces.count <= ClusterInner.capacity {
            for (j, s) in pieces.enumerated() {
                ClusterInner.insertEntry(p, at: idx + 1 + j, firstKey: s.firstKey, child: s.page, rows: s.rows)
            }
            return []
        }
        var entries: [Piece] = (0..<n).map {
            Piece(page: ClusterInner.child(UnsafeRawPointer(p), $0), firstKey: ClusterInner.firstKey(UnsafeRawPointer(p), $0),
                  rows: ClusterInner.rows(UnsafeRawPointer(p), $0))
        }
        entries.insert(contentsOf: pieces, at: idx + 1)
        // Split into nodes of about equal size.
        let nodes = (entries.count + ClusterInner.capacity - 1) / ClusterInner.capacity
        let per = (entries.count + nodes - 1) / nodes
        var result: [Piece] = []
        var start = 0
        var target = page
        while start < entries.count {
            let chunk = entries[start..<min(start + per, entries.count)]
            if start > 0 { target = try allocator.allocate() }
            let tp = allocator.space.writablePage(target)
            if start > 0 { ClusterInner.initialize(tp) }
            for (j, e) in chunk.enumerated() { ClusterInner.setEntry(tp, j, firstKey: e.firstKey, child: e.page, rows: e.rows) }
            ClusterInner.setCount(tp, chunk.count)
            if start > 0 {
                result.append(Piece(page: target, firstKey: chunk.first?.firstKey ?? 0, rows: chunk.reduce(0) { $0 + $1.rows }))
            }
            start += per
        }
        return result
    }

    private func descendLeaf(_ page: PageNumber, key: UInt64, op: Operation) throws -> Outcome {
        if op == .patch {
            // modifyInPlace found a page, so `page` is not in `dirty`: copy it as it is.
            guard dirty[page] == nil else { return Outcome(page: page, delta: 0) }
            let owned = try allocator.touch(page)
            resultPage = owned
            patched.insert(owned)
            return Outcome(page: owned, delta: 0)
        }
        let (leaf, owned) = try ownedLeaf(page)
        var outcome = Outcome(page: owned, delta: 0)
        let r = leaf.find(key)
        var appended = false
        switch op {
        case .insert:
            guard r < 0 else { throw AtollError(.primaryKeyExists, "an object with key \(key) already exists") }
            let at = -(r + 1)
            appended = at == leaf.count
            leaf.insertRow(at: at, key: key)
            outcome.delta = 1
            resultLeaf = leaf
            resultRow = at
        case .modify:
            guard r >= 0 else { return outcome }
            resultLeaf = leaf
            resultRow = r
        case .fit, .patch:
            break
        case .fitAppended:
            appended = r == leaf.count - 1
        case .remove:
            guard r >= 0 else { return outcome }
            leaf.removeRow(at: r)
            outcome.delta = -1
            if leaf.count == 0 {
                dirty[owned] = nil
                allocator.free(owned)
                outcome.emptied = true
                return outcome
            }
        }
        if Self.needsSplit(leaf) {
            var pieces = [leaf]
            while let i = pieces.firstIndex(where: Self.needsSplit) {
                let piece = pieces[i]
                // Appends (ascending keys) leave full leaves behind; other changes split evenly.
                let at = (appended && i == pieces.count - 1 && piece.count > 1) ? piece.count - 1 : max(1, piece.count / 2)
                pieces.insert(piece.split(at: at), at: i + 1)
            }
            for piece in pieces.dropFirst() {
                let newPage = try allocator.allocate()
                dirty[newPage] = piece
                outcome.splits.append(Piece(page: newPage, firstKey: piece.key(0), rows: UInt64(piece.count)))
            }
            if op == .insert || op == .modify, let found = pieces.first(where: { $0.find(key) >= 0 }) {
                resultLeaf = found
                resultRow = found.find(key)
            }
        }
        return outcome
    }

    /// After a removal under entry `index` of `parent`, merges that leaf with a neighbour when
    /// both are small, so that deletes do not leave a trail of nearly empty pages.
    private func mergeSmallLeaf(parent: PageNumber, index: Int) throws {
        let p = allocator.space.writablePage(parent)
        let n = ClusterInner.count(UnsafeRawPointer(p))
        guard n >= 2, index < n else { return }
        let childPage = ClusterInner.child(UnsafeRawPointer(p), index)
        guard let leaf = dirty[childPage], leaf.estimatedEncodedBytes < FileFormat.pageSize / 4 else { return }
        let j = index + 1 < n ? index + 1 : index - 1
        let siblingPage = ClusterInner.child(UnsafeRawPointer(p), j)
        if dirty[siblingPage] == nil {
            guard try allocator.space.page(siblingPage).u8(PageHeader.typeOffset) == PageType.clusterLeaf.rawValue else { return }
        }
        let (sibling, ownedSibling) = try ownedLeaf(siblingPage)
        ClusterInner.setChild(p, j, ownedSibling)
        guard leaf.estimatedEncodedBytes + sibling.estimatedEncodedBytes <= FileFormat.pageSize * 3 / 4,
              leaf.count + sibling.count <= ClusterLeafPage.rowCountMax else { return }
        let (left, right, leftIndex) = j > index ? (leaf, sibling, index) : (sibling, leaf, j)
        for r in 0..<right.count { left.appendRow(from: right, row: r) }
        for b in left.blocks { b.recomputeStatistics(rows: left.count) }
        let rightPage = ClusterInner.child(UnsafeRawPointer(p), leftIndex + 1)
        dirty[rightPage] = nil
        allocator.free(rightPage)
        let rows = ClusterInner.rows(UnsafeRawPointer(p), leftIndex) + ClusterInner.rows(UnsafeRawPointer(p), leftIndex + 1)
        ClusterInner.setRows(p, leftIndex, rows)
        ClusterInner.removeEntry(p, at: leftIndex + 1)
    }

    /// Encodes every changed leaf into its page. Called once, at commit.
    func finish() throws {
        structureGeneration &+= 1
        lastLeaf = nil
        appendLeaf = nil
        resultLeaf = nil
        // Kept for the next commit: every leaf when there are few, else the rightmost one (the
        // one appends go to). Each with its page image as encoded, before anything else this
        // commit does can touch the page (a later change to it then makes the image differ).
        let keepsAll = dirty.count <= CommittedLeafCache.entriesMax
        var rightmost: (page: PageNumber, leaf: MutableLeaf)?
        leavesToKeep = []
        for (page, leaf) in dirty {
            let p = allocator.space.writablePage(page)
            try ClusterLeafPage.encode(leaf, into: p, settling: committedLeaves != nil)
            guard committedLeaves != nil, leaf.count > 0 else { continue }
            if keepsAll {
                keep(leaf, page: page, image: p)
            } else if rightmost.map({ leaf.key(0) > $0.leaf.key(0) }) ?? true {
                rightmost = (page, leaf)
            }
        }
        if let rightmost { keep(rightmost.leaf, page: rightmost.page, image: allocator.space.writablePage(rightmost.page)) }
        dirty.removeAll()
        patched = PageBitmap()
    }

    private func keep(_ leaf: MutableLeaf, page: PageNumber, image: UnsafeMutableRawPointer) {
        leavesToKeep.append(CommittedLeaf(table: table, page: page, layout: layout, leaf: leaf,
                                          image: Array(UnsafeRawBufferPointer(start: image, count: FileFormat.pageSize))))
    }

    /// Frees every page of the tree (and external values). Used by clear and table removal.
    func freeAll(freeExternal: (LeafRef) throws -> Void) throws {
        structureGeneration &+= 1
        lastLeaf = nil
        guard root != 0 else { return }
        try freePages(root, depth: 0, freeExternal: freeExternal)
        dirty.removeAll()
        patched = PageBitmap()
        root = 0
    }

    private func freePages(_ page: PageNumber, depth: Int, freeExternal: (LeafRef) throws -> Void) throws {
        guard depth <= ClusterTreeView.depthMax else { throw AtollError.corrupted("cluster tree too deep") }
        if let m = dirty[page] {
            try freeExternal(.mutable(m))
        } else {
            let p = try allocator.space.page(page)
            if p.u8(PageHeader.typeOffset) == PageType.clusterInner.rawValue {
                try ClusterInner.validate(p, page: page)
                for i in 0..<ClusterInner.count(p) { try freePages(ClusterInner.child(p, i), depth: depth + 1, freeExternal: freeExternal) }
            } else {
                try freeExternal(.page(try ClusterLeafPage(p, page: page, layout: layout)))
            }
        }
        allocator.free(page)
    }
}
