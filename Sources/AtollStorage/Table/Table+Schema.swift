// Schema changes on a table with data: a new column layout means new leaves, so the table is
// rebuilt row by row into a new cluster tree (keys, and therefore links to its objects, stay
// the same). Schema changes are rare (migrations); their cost is linear in the table.

extension Table {
    /// Encodes buffered list changes and applies buffered index changes now.
    func flushBuffers() throws {
        guard let allocator = transaction.allocator, let cluster else { return }
        for (slot, values) in dirtyLists {
            guard let (leaf, row) = try cluster.modify(slot.key) else { continue }
            let bytes = encodedCollection(slot, values)
            try bytes.withUnsafeBytes { try placeBytes($0, block: layout.firstBlock[slot.column], leaf: leaf, row: row) }
            try cluster.fit(slot.key)
        }
        dirtyLists.removeAll()
        dirtyMapKeys.removeAll()
        _ = allocator
        try flushIndexes()
    }

    /// Rebuilds the table with `newSpec`. `sources[i]` is the old column whose values new
    /// column i takes, or nil for a new column (default values).
    func rebuild(to newSpec: TableSpec, sources: [Int?]) throws {
        guard let allocator = transaction.allocator, let old = cluster else {
            throw AtollError(.invalidTransaction, "schema changes need a write transaction")
        }
        try flushBuffers()
        let oldSpec = spec, oldLayout = layout
        let newLayout = LeafLayout(newSpec)
        let rebuilt = ClusterTreeWriter(root: 0, layout: newLayout, allocator: allocator)
        let keptColumns = Set(sources.compactMap { $0 })

        // Backlinks of link columns whose index changes or which disappear.
        var linkMoves: [(old: Int, new: Int?)] = []
        for (oc, col) in oldSpec.columns.enumerated() where col.type == .link || col.type == .mixed {
            let nc = sources.firstIndex(of: oc)
            if nc != oc { linkMoves.append((oc, nc)) }
        }

        try old.view.forEachLeaf { leaf in
            for r in 0..<leaf.count {
                let key = leaf.key(r)
                let (m, row) = try rebuilt.insert(key)
                for (nc, source) in sources.enumerated() {
                    let nb = newLayout.firstBlock[nc]
                    guard nb >= 0 else { continue }
                    let newColumn = newSpec.columns[nc]
                    guard let oc = source else {
                        if newColumn.isNullable && !newColumn.isList { m.blocks[nb].setNull(row, true) }
                        continue
                    }
                    let ob = oldLayout.firstBlock[oc]
                    if ob < 0 {
                        // The old int primary key was the object key.
                        m.blocks[nb].setInt(row, ObjectKey(key).intPrimaryKey)
                        continue
                    }
                    for i in 0..<newColumn.blockCount { Self.copyCell(from: leaf, block: ob + i, row: r, to: m.blocks[nb + i], row: row) }
                }
                // Values of dropped columns: free their blobs.
                for (oc, _) in oldSpec.columns.enumerated() where !keptColumns.contains(oc) {
                    let ob = oldLayout.firstBlock[oc]
                    if ob >= 0, oldLayout.blocks[ob].kind == .bytes, let (first, length) = leaf.bytesColumn(ob).externalReference(r) {
                        allocator.freeBlob(first, length: length)
                    }
                }
                try rebuilt.fit(key)
            }
            return true
        }

        // Move or drop the backlinks of link columns that changed position.
        // A mixed column's typed links name their target table in the value.
        for move in linkMoves {
            let col = oldSpec.columns[move.old]
            let linkTarget: Table?
            if col.type == .mixed {
                linkTarget = nil
            } else {
                guard let targetName = col.linkTarget, let target = try transaction.table(named: targetName) else { continue }
                linkTarget = target
            }
            try old.view.forEachLeaf { leaf in
                for r in 0..<leaf.count {
                    let origin = ObjectKey(leaf.key(r))
                    let h = RowHandle(leaf: leaf, row: r, key: origin)
                    var values: [StorageValue] = []
                    if col.isList {
                        let bytes = try leaf.bytesColumn(oldLayout.firstBlock[move.old]).value(r, space: transaction.space)
                        values = try ListView(bytes, column: col).values
                    } else if col.type == .mixed {
                        let bytes = try leaf.bytesColumn(oldLayout.firstBlock[move.old]).value(r, space: transaction.space)
                        values = [try StorageValue.mixed(from: bytes)]
                    } else if let k = self.link(h, move.old) {
                        values = [.link(k)]
                    }
                    for v in values.flatMap({ v -> [StorageValue] in v.isNestedCollection ? v.typedLinks.map { .typedLink($0.table, $0.key) } : [v] }) {
                        let target: Table, t: ObjectKey
                        switch v {
                        case .link(let k):
                            guard let linkTarget else { continue }
                            target = linkTarget; t = k
                        case .typedLink(let table, let k): target = try transaction.table(table); t = k
                        default: continue
                        }
                        try target.adjustBacklink(to: t, from: self.key, column: move.old, origin: origin, delta: -1)
                        if let nc = move.new { try target.adjustBacklink(to: t, from: self.key, column: nc, origin: origin, delta: 1) }
                        else { target.noteLinkRemoved(to: t) }
                    }
                }
                return true
            }
        }

        try old.freeAll { _ in }
        var indexRoots: [PageNumber] = []
        for (nc, source) in sources.enumerated() {
            indexRoots.append(source.map { roots.indexRoots[$0] } ?? 0)
            _ = nc
        }
        for oc in oldSpec.columns.indices where !keptColumns.contains(oc) && roots.indexRoots[oc] != 0 {
            try BTree.freeAll(root: roots.indexRoots[oc], allocator: allocator)
        }
        roots.indexRoots = indexRoots
        replaceSchema(newSpec)
        cluster = rebuilt
        roots.clusterRoot = rebuilt.root
        isChanged = true
        // Indexes the new schema needs and the old did not have.
        for c in newSpec.columns.indices where needsIndex(c) && !isKeyAlias(c) && roots.indexRoots[c] == 0 {
            try buildIndex(c)
        }
    }

    private static func copyCell(from leaf: LeafRef, block ob: Int, row r: Int, to target: MutableBlock, row tr: Int) {
        switch target.spec.kind {
        case .ints:
            let c = leaf.intColumn(ob)
            target.setInt(tr, c[r])
            target.setNull(tr, c.isNull(r))
        case .float32:
            let c = leaf.float32Column(ob)
            target.values.pointer.setU32(tr * 4, c[r].bitPattern)
            target.setNull(tr, c.isNull(r))
        case .float64:
            let c = leaf.float64Column(ob)
            target.values.pointer.setU64(tr * 8, c[r].bitPattern)
            target.setNull(tr, c.isNull(r))
        case .fixed(let k):
            let c = leaf.fixedColumn(ob)
            if let src = c.bytes(r).baseAddress { (target.values.pointer + tr * k).copyMemory(from: src, byteCount: k) }
            target.setNull(tr, c.isNull(r))
        case .bytes:
            let c = leaf.bytesColumn(ob)
            target.setBytes(tr, c.stored(r), external: c.external.isMarked(r))
            target.setNull(tr, c.isNull(r))
        }
    }

    /// Adds index entries for every object (a newly indexed column).
    private func buildIndex(_ c: Int) throws {
        var pending = PendingIndexChanges()
        try forEachLeaf { leaf in
            for r in 0..<leaf.count {
                let h = RowHandle(leaf: leaf, row: r, key: ObjectKey(leaf.key(r)))
                for k in try allIndexKeys(h, c) { pending.add(k, h.key.rawValue) }
            }
            return true
        }
        pendingIndex[c] = pending
    }

    /// Applies a change of `isIndexed` on column c.
    func changeIndex(to newSpec: TableSpec, column c: Int) throws {
        guard let allocator = transaction.allocator else { return }
        try flushBuffers()
        let wasNeeded = needsIndex(c)
        replaceSchema(newSpec)
        isChanged = true
        if needsIndex(c) && !wasNeeded && !isKeyAlias(c) {
            try buildIndex(c)
        } else if !needsIndex(c) && roots.indexRoots[c] != 0 {
            try BTree.freeAll(root: roots.indexRoots[c], allocator: allocator)
            roots.indexRoots[c] = 0
        }
    }

    /// Frees every page the table uses (its removal). Links from it to other tables are
    /// removed first so their backlinks stay exact.
    func freeEverything() throws {
        guard let allocator = transaction.allocator, let cluster else { return }
        // Objects with links or mixed values (typed links), or that mixed values link to (their
        // backlinks: those values become nil), are erased one by one.
        if roots.backlinkRoot != 0 || spec.columns.contains(where: { $0.type == .link || $0.type == .mixed }) {
            for k in try objectKeys() { try erase(k) }
        }
        try cluster.freeAll { leaf in
            for (b, s) in layout.blocks.enumerated() where s.kind == .bytes {
                let c = leaf.bytesColumn(b)
                for r in 0..<leaf.count { if let (first, length) = c.externalReference(r) { allocator.freeBlob(first, length: length) } }
            }
        }
        for r in roots.indexRoots where r != 0 { try BTree.freeAll(root: r, allocator: allocator) }
        if roots.backlinkRoot != 0 { try BTree.freeAll(root: roots.backlinkRoot, allocator: allocator) }
        roots = TableRoots()
        pendingIndex.removeAll()
        indexTouched.removeAll()
        dirtyLists.removeAll()
        dirtyMapKeys.removeAll()
    }
}
