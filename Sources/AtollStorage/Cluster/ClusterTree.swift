// ClusterTree: a table's rows, keyed by object key, in columnar leaves (ClusterLeafPage) under
// inner nodes with row counts (ClusterInner). This file is the read side; ClusterTreeWriter
// changes trees inside a write transaction.

import CAtollShims

/// The cluster pages of one table in one read-only snapshot that have passed validation
/// (`ClusterLeafPage.init` against the table's layout, or `ClusterInner.validate`), one bit per
/// page number. Pages of a snapshot never change while it is read and a read-only table's
/// layout is fixed, so a page is validated once per table and snapshot instead of once per
/// visit (random lookups validated every leaf's block extents again: ~7% of a lookup).
/// A bit set means "this page passed the validation its own type byte calls for"; readers
/// still check the type byte. Frozen snapshots are read by several threads: bits are set and
/// read with relaxed atomics (a lost race only means validating again).
final class ValidatedPages {
    let words: UnsafeMutablePointer<UInt64>
    let pageCount: UInt32

    init(pageCount: UInt32) {
        self.pageCount = pageCount
        let n = (Int(pageCount) + 63) / 64
        words = .allocate(capacity: Swift.max(n, 1))
        words.initialize(repeating: 0, count: Swift.max(n, 1))
    }

    deinit { words.deallocate() }

    /// The set as the tree views of its table see it (the table keeps the set alive).
    var view: ValidatedPagesView { ValidatedPagesView(words: words, pageCount: pageCount) }
}

/// An unretained view of a table's `ValidatedPages`, carried by tree views.
struct ValidatedPagesView {
    let words: UnsafeMutablePointer<UInt64>
    let pageCount: UInt32

    @inline(__always)
    func contains(_ n: PageNumber) -> Bool {
        guard n < pageCount else { return false }
        return atoll_load_relaxed_u64(words + Int(n >> 6)) & (1 << UInt64(n & 63)) != 0
    }

    @inline(__always)
    func insert(_ n: PageNumber) {
        guard n < pageCount else { return }
        atoll_fetch_or_relaxed_u64(words + Int(n >> 6), 1 << UInt64(n & 63))
    }
}

/// A leaf as a reader sees it: a page of the snapshot, or a leaf the current write transaction
/// has changed and keeps decoded. Column views read either form the same way.
@usableFromInline package struct LeafRef {
    @usableFromInline
    enum Storage {
        case page(ClusterLeafPage)
        case mutable(MutableLeaf)
    }

    @usableFromInline let storage: Storage

    @inlinable init(storage: Storage) { self.storage = storage }

    static func mutable(_ m: MutableLeaf) -> LeafRef { LeafRef(storage: .mutable(m)) }

    var mutableLeaf: MutableLeaf? { if case .mutable(let m) = storage { m } else { nil } }

    /// The snapshot page, when the leaf is one (not changed by the open write transaction).
    @inlinable package var page: ClusterLeafPage? { if case .page(let p) = storage { p } else { nil } }

    @inlinable package static func page(_ p: ClusterLeafPage) -> LeafRef { LeafRef(storage: .page(p)) }

    @inlinable @inline(__always) package var count: Int {
        switch storage {
        case .page(let p): p.rowCount
        case .mutable(let m): m.count
        }
    }

    @inlinable @inline(__always) package func key(_ row: Int) -> UInt64 {
        switch storage {
        case .page(let p): p.key(row)
        case .mutable(let m): m.key(row)
        }
    }

    /// The largest key of the leaf (nil when empty).
    @inlinable package var lastKey: UInt64? { count > 0 ? key(count - 1) : nil }

    @inlinable package var keys: PackedInts {
        switch storage {
        case .page(let p): p.keys
        case .mutable(let m): m.keyView
        }
    }

    @inlinable @inline(__always) package func find(_ key: UInt64) -> Int {
        switch storage {
        case .page(let p): p.find(key)
        case .mutable(let m): m.find(key)
        }
    }

    @inlinable @inline(__always) package func intColumn(_ block: Int) -> IntColumn {
        switch storage {
        case .page(let p): p.intColumn(block)
        case .mutable(let m): m.intColumn(block)
        }
    }

    @inlinable @inline(__always) package func float32Column(_ block: Int) -> Float32Column {
        switch storage {
        case .page(let p): p.float32Column(block)
        case .mutable(let m): m.float32Column(block)
        }
    }

    @inlinable @inline(__always) package func float64Column(_ block: Int) -> Float64Column {
        switch storage {
        case .page(let p): p.float64Column(block)
        case .mutable(let m): m.float64Column(block)
        }
    }

    @inlinable @inline(__always) package func fixedColumn(_ block: Int) -> FixedColumn {
        switch storage {
        case .page(let p): p.fixedColumn(block)
        case .mutable(let m): m.fixedColumn(block)
        }
    }

    @inlinable @inline(__always) package func bytesColumn(_ block: Int) -> BytesColumn {
        switch storage {
        case .page(let p): p.bytesColumn(block)
        case .mutable(let m): m.bytesColumn(block)
        }
    }
}

/// Read access to one cluster tree.
struct ClusterTreeView {
    let root: PageNumber
    let layout: LeafLayout
    let space: PageSpace
    /// Leaves changed by the current write transaction, by page number (nil in read-only views).
    let dirty: [PageNumber: MutableLeaf]?
    /// Read-only snapshots: pages already validated (nil: validate every visit).
    var validated: ValidatedPagesView? = nil

    static let depthMax = 16

    @inline(__always)
    func leaf(at n: PageNumber) throws -> LeafRef {
        if let dirty, let m = dirty[n] { return .mutable(m) }
        let p = try space.page(n)
        if let validated {
            if validated.contains(n), p.u8(PageHeader.typeOffset) == PageType.clusterLeaf.rawValue {
                return .page(ClusterLeafPage(validated: p))
            }
            let leaf = try ClusterLeafPage(p, page: n, layout: layout)
            validated.insert(n)
            return .page(leaf)
        }
        return .page(try ClusterLeafPage(p, page: n, layout: layout))
    }

    @inline(__always)
    private func isInner(_ n: PageNumber) throws -> UnsafeRawPointer? {
        if let dirty, dirty[n] != nil { return nil }
        let p = try space.page(n)
        if p.u8(PageHeader.typeOffset) == PageType.clusterInner.rawValue {
            if let validated {
                if !validated.contains(n) {
                    try ClusterInner.validate(p, page: n)
                    validated.insert(n)
                }
            } else {
                try ClusterInner.validate(p, page: n)
            }
            return p
        }
        return nil
    }

    /// The leaf and row holding `key`, or nil.
    func locate(_ key: UInt64) throws -> (LeafRef, Int)? {
        guard root != 0 else { return nil }
        var n = root
        var depth = 0
        while let p = try isInner(n) {
            depth += 1
            guard depth <= Self.depthMax else { throw AtollError.corrupted("cluster tree deeper than \(Self.depthMax)") }
            n = ClusterInner.child(p, ClusterInner.childIndex(p, key))
        }
        let leaf = try self.leaf(at: n)
        let row = leaf.find(key)
        return row >= 0 ? (leaf, row) : nil
    }

    /// The leaf and row at position `position` in key order.
    func locate(position: Int) throws -> (LeafRef, Int)? {
        guard root != 0, position >= 0 else { return nil }
        var n = root
        var remaining = UInt64(position)
        var depth = 0
        while let p = try isInner(n) {
            depth += 1
            guard depth <= Self.depthMax else { throw AtollError.corrupted("cluster tree deeper than \(Self.depthMax)") }
            var i = 0
            let c = ClusterInner.count(p)
            while i < c - 1 && remaining >= ClusterInner.rows(p, i) { remaining -= ClusterInner.rows(p, i); i += 1 }
            n = ClusterInner.child(p, i)
        }
        let leaf = try self.leaf(at: n)
        return Int(remaining) < leaf.count ? (leaf, Int(remaining)) : nil
    }

    /// Position in key order of `key` (the number of keys before it), whether present or not.
    func position(of key: UInt64) throws -> Int {
        guard root != 0 else { return 0 }
        var n = root
        var before: UInt64 = 0
        var depth = 0
        while let p = try isInner(n) {
            depth += 1
            guard depth <= Self.depthMax else { throw AtollError.corrupted("cluster tree deeper than \(Self.depthMax)") }
            let idx = ClusterInner.childIndex(p, key)
            for i in 0..<idx {
                // Row counts come from the file: a damaged node may claim more rows than any
                // file holds, which must be reported, not trap in the sum or the Int conversion.
                let (sum, overflow) = before.addingReportingOverflow(ClusterInner.rows(p, i))
                guard !overflow, sum <= ClusterInner.rowsMax else {
                    throw AtollError.corrupted("cluster tree inner node \(n) counts more rows than a file can hold")
                }
                before = sum
            }
            n = ClusterInner.child(p, idx)
        }
        let leaf = try self.leaf(at: n)
        let r = leaf.find(key)
        return Int(before) + (r >= 0 ? r : -(r + 1))
    }

    /// Calls `body` with every leaf in key order until it returns false.
    func forEachLeaf(_ body: (LeafRef) throws -> Bool) throws {
        guard root != 0 else { return }
        _ = try visit(root, depth: 0, body)
    }

    private func visit(_ n: PageNumber, depth: Int, _ body: (LeafRef) throws -> Bool) throws -> Bool {
        guard depth <= Self.depthMax else { throw AtollError.corrupted("cluster tree deeper than \(Self.depthMax)") }
        if let p = try isInner(n) {
            for i in 0..<ClusterInner.count(p) {
                if try !visit(ClusterInner.child(p, i), depth: depth + 1, body) { return false }
            }
            return true
        }
        return try body(try leaf(at: n))
    }

    /// Total rows (sum over the root's entries).
    func rowCount() throws -> Int {
        guard root != 0 else { return 0 }
        if let p = try isInner(root) { return Int(ClusterInner.totalRows(p)) }
        return try leaf(at: root).count
    }
}
