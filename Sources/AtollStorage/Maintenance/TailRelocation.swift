// Tail relocation: how the file shrinks without a full compaction.
//
// Allocation prefers low pages, but pages a transaction never touches stay where they are, so a
// few live pages near the end of the file can keep a mostly free file from shrinking. When free
// space dominates, a commit moves every page (and blob) at or above a limit just above the live
// data to free pages below it, updating the references to them. The old pages are freed at the
// new version; once no reader can see them they form a free tail, and the next commit that finds
// free space dominating truncates it (PageAllocator.saveFreeList(shrink:)).

struct TailRelocator {
    let allocator: PageAllocator
    let limit: PageNumber

    private var space: PageSpace { allocator.space }

    /// Relocates a B+tree; returns its (possibly new) root.
    func relocateBTree(_ root: PageNumber) throws -> PageNumber {
        guard root != 0 else { return 0 }
        return try relocateBTreeNode(root, depth: 0)
    }

    private func relocateBTreeNode(_ n: PageNumber, depth: Int) throws -> PageNumber {
        guard depth <= BTree.depthMax else { throw AtollError.corrupted("B+tree deeper than \(BTree.depthMax)") }
        var node = try allocator.relocate(n, below: limit)
        let p = try space.page(node)
        let count = BTreeNode.count(p)
        if BTreeNode.isLeaf(p) {
            for i in 0..<count {
                guard case .blob(let first, let length) = try BTreeNode.value(space.page(node), i) else { continue }
                let moved = try allocator.relocateBlob(first, length: length, below: limit)
                if moved != first {
                    node = try allocator.touch(node)
                    let o = try BTreeNode.cellOffset(try space.page(node), i)
                    let keyLength = Int(space.writablePage(node).u16(o))
                    space.writablePage(node).setU32(o + 4 + keyLength, moved)
                }
            }
            return node
        }
        for i in 0...count {
            let child = try BTreeNode.child(try space.page(node), i)
            let moved = try relocateBTreeNode(child, depth: depth + 1)
            if moved != child {
                node = try allocator.touch(node)
                try BTreeNode.setChild(space.writablePage(node), i, moved)
            }
        }
        return node
    }

    /// Relocates a cluster tree (and the blobs of its external values).
    func relocateCluster(_ root: PageNumber, layout: LeafLayout) throws -> PageNumber {
        guard root != 0 else { return 0 }
        return try relocateClusterNode(root, layout: layout, depth: 0)
    }

    private func relocateClusterNode(_ n: PageNumber, layout: LeafLayout, depth: Int) throws -> PageNumber {
        guard depth <= ClusterTreeView.depthMax else { throw AtollError.corrupted("cluster tree too deep") }
        var node = try allocator.relocate(n, below: limit)
        let p = try space.page(node)
        if p.u8(PageHeader.typeOffset) == PageType.clusterInner.rawValue {
            try ClusterInner.validate(p, page: node)
            for i in 0..<ClusterInner.count(p) {
                let child = ClusterInner.child(try space.page(node), i)
                let moved = try relocateClusterNode(child, layout: layout, depth: depth + 1)
                if moved != child {
                    node = try allocator.touch(node)
                    ClusterInner.setChild(space.writablePage(node), i, moved)
                }
            }
            return node
        }
        let leaf = try ClusterLeafPage(p, page: node, layout: layout)
        for (b, spec) in layout.blocks.enumerated() where spec.kind == .bytes {
            for r in 0..<leaf.rowCount {
                let column = try ClusterLeafPage(try space.page(node), page: node, layout: layout).bytesColumn(b)
                guard let (first, length) = column.externalReference(r) else { continue }
                let moved = try allocator.relocateBlob(first, length: length, below: limit)
                guard moved != first else { continue }
                node = try allocator.touch(node)
                // The reference is 8 bytes in the heap: rewrite its page number in place.
                let owned = try ClusterLeafPage(try space.page(node), page: node, layout: layout).bytesColumn(b)
                guard let at = owned.stored(r).baseAddress else { continue }
                UnsafeMutableRawPointer(mutating: at).setU32(0, moved)
            }
        }
        return node
    }
}

extension WriteTransaction {
    /// The page count below which live data should fit, or nil when shrinking is not worth it.
    static func relocationLimit(root: RootRecord) -> PageNumber? {
        guard root.pageCount > 512, root.freePageCount > root.pageCount / 2 else { return nil }
        let used = root.pageCount - root.freePageCount
        return FileFormat.firstDataPage + used + used / 4 + 64
    }
}
