// verify: walks every tree of the newest version and checks everything the format promises:
// that the file holds every page of the version, page checksums (recomputed for every page in
// use, whatever this process checked before; in format 2 they bind page number and file id, so
// pages swapped or copied from elsewhere fail), in an encrypted file every page's HMAC, node
// invariants (BTreeVerifier, ClusterTreeVerifier), index and row counts, and that every page
// below the page count is used exactly once or free, and (format 3) that the version's commit page
// list matches its pages, and that each object of an embedded table has exactly one owner
// (VerifyEmbedded.swift). The pages that the free list *names* are
// free: their bytes mean nothing and are not checked; the free list's own pages are.

/// What `verify` found in a healthy file.
public struct VerifyReport: Sendable, CustomStringConvertible {
    public var version: UInt64
    public var pageCount: Int
    public var freePages: Int
    public var pagesChecked: Int
    public var tables: [(name: String, objects: Int)]
    public var historyEntries: Int
    /// The version of a newer root record that open left out because the pages of its commit
    /// did not all hold what its page list says (format 3, docs/FORMAT.md "Commit and
    /// recovery"): a commit a power failure interrupted, or, indistinguishably, damage to a page
    /// of the newest commit. The file holds the version verified. Nil: nothing was left out.
    public var incompleteCommitLeftOut: UInt64?

    public var description: String {
        let t = tables.map { "\($0.name): \($0.objects)" }.joined(separator: ", ")
        let leftOut = incompleteCommitLeftOut.map { "; the newer record of version \($0) was left out: its commit is incomplete (interrupted by a power failure, or its pages damaged)" } ?? ""
        return "version \(version): \(pageCount) pages (\(freePages) free), \(pagesChecked) checked; tables: \(t.isEmpty ? "none" : t); history: \(historyEntries) entries\(leftOut)"
    }
}

extension Database {
    /// Checks the whole file. Throws `.fileCorrupted` describing the first problem found.
    public func verify() throws -> VerifyReport {
        let r = try beginRead()
        defer { r.close() }
        return try r.verify()
    }
}

extension Transaction {
    public func verify() throws -> VerifyReport {
        try verify(onPages: { _, _ in })
    }

    /// `verify`, telling `onPages` every page or blob run in use (first page, page count) after
    /// it passed its checks.
    func verify(onPages: @escaping (PageNumber, Int) -> Void) throws -> VerifyReport {
        let space = self.space
        let root = self.root
        let base = UnsafeRawPointer(space.fileBase)
        _ = try FileHeader.read(from: base, fileBytes: database.file.fileSizeBytes, path: database.displayName)
        // A file cut short under the map would fault on the first page past its end.
        let needed = database.store.physicalBytes(pageCount: root.pageCount)
        let size = try database.file.currentSizeBytes()
        guard size >= needed else {
            throw AtollError.corrupted("'\(database.displayName)' is truncated: version \(version) needs \(needed) bytes, the file has \(size)")
        }
        let checksum = database.store.checksum
        // Format 3: the version's commit page list, if its slot still holds it (a newer commit
        // may have reused the slot; the pages it lists are pinned by this transaction).
        let fileBase = try database.file.mapping(covering: size)
        for slotPage in FileFormat.firstSlotPage..<FileFormat.firstDataPage {
            let slot = UnsafeRawPointer(fileBase + Int(slotPage) * FileFormat.pageSize)
            guard RootRecord.read(from: slot, cipher: database.cipher) == root else { continue }
            if let problem = try CommitPageList.problem(with: root, slot: slot, fileBase: fileBase, fileBytes: size, store: database.store) {
                throw AtollError.corrupted("'\(database.displayName)': \(problem)")
            }
        }

        final class Marks {
            var owner: [UInt8]
            var checked = 0
            init(_ n: Int) { owner = [UInt8](repeating: 0, count: n) }
        }
        let marks = Marks(Int(root.pageCount))
        var context = "catalog"
        let visit: (PageNumber, Int) throws -> Void = { first, count in
            guard Int(first) + count <= marks.owner.count, first >= FileFormat.firstDataPage else {
                throw AtollError.corrupted("\(context): pages \(first)..<\(Int(first) + count) lie outside the file")
            }
            for i in 0..<count {
                let n = Int(first) + i
                guard marks.owner[n] == 0 else { throw AtollError.corrupted("\(context): page \(n) is used twice") }
                marks.owner[n] = 1
            }
            if let cache = space.cache {
                for i in 0..<count { try cache.authenticate(first + PageNumber(i), space: space) }
            }
            // Recomputed even when this process checked the page before (VerifiedPages).
            let p = try space.page(first)
            try VerifiedPages.checkRun(p, number: first, pageCount: space.pageCount)
            let stored = p.u32(PageHeader.checksumOffset), computed = checksum.any(p, number: first)
            guard stored == computed else {
                throw AtollError.corrupted("\(context): " + VerifiedPages.failure(first, stored: stored, computed: computed, bindsPlace: checksum.bindsPlace))
            }
            marks.checked += count
            onPages(first, count)
        }
        var bt = BTreeVerifier(space: space)
        bt.visit = visit
        _ = try bt.verify(root: root.catalogRoot, name: "catalog")

        var tables: [(String, Int)] = []
        for key in tableKeys {
            let t = try table(key)
            context = "table '\(t.name)'"
            var cv = ClusterTreeVerifier(space: space, layout: t.layout)
            cv.visit = visit
            let rows = try cv.verify(root: t.roots.clusterRoot, name: context)
            guard rows == t.count else { throw AtollError.corrupted("\(context) holds \(rows) rows but records \(t.count)") }
            try verifyLists(t)
            for (c, indexRoot) in t.roots.indexRoots.enumerated() where indexRoot != 0 {
                context = "index '\(t.name).\(c < t.spec.columns.count ? t.spec.columns[c].name : "#\(c)")'"
                _ = try bt.verify(root: indexRoot, name: context)
                if c < t.spec.columns.count, t.hasCollectionIndex(c) {
                    try Self.verifyCollectionIndex(t, column: c, root: indexRoot, space: space, context: context)
                    continue
                }
                let entries = try Self.countPostings(root: indexRoot, space: space)
                guard entries == t.count else { throw AtollError.corrupted("\(context) has \(entries) entries for \(t.count) objects") }
            }
            if t.roots.backlinkRoot != 0 {
                context = "backlinks of '\(t.name)'"
                _ = try bt.verify(root: t.roots.backlinkRoot, name: context)
            }
            if t.spec.isEmbedded {
                context = "table '\(t.name)'"
                try verifyOwners(t)
            }
            tables.append((t.name, rows))
        }
        for name in try internalTreeNames() {
            context = "internal tree '\(name)'"
            _ = try bt.verify(root: try internalTreeRoot(name), name: context)
        }
        context = "history"
        let history = try bt.verify(root: root.historyRoot, name: "history")
        context = "free list"
        _ = try bt.verify(root: root.freeListRoot, name: "free list")
        var free = 0
        var cursor = BTreeCursor(root: root.freeListRoot, space: space)
        var more = try cursor.first()
        while more {
            let v = try cursor.value()
            for i in 0..<(v.count / 4) {
                let n = Int(v.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self).littleEndian)
                if n == 0 { continue }
                guard n >= Int(FileFormat.firstDataPage), n < marks.owner.count else { throw AtollError.corrupted("free list names page \(n), outside the file") }
                guard marks.owner[n] == 0 else { throw AtollError.corrupted("page \(n) is both free and in use") }
                marks.owner[n] = 2
                free += 1
            }
            more = try cursor.next()
        }
        guard free == Int(root.freePageCount) else {
            throw AtollError.corrupted("the free list holds \(free) pages but the root record says \(root.freePageCount)")
        }
        for n in Int(FileFormat.firstDataPage)..<marks.owner.count where marks.owner[n] == 0 {
            throw AtollError.corrupted("page \(n) is neither in use nor free (leaked)")
        }
        return VerifyReport(version: version, pageCount: Int(root.pageCount), freePages: free, pagesChecked: marks.checked,
                            tables: tables, historyEntries: history.entries,
                            incompleteCommitLeftOut: database.lock.rejectedRecord.map(\.version))
    }

    /// An index on a set's elements or a map's entries holds exactly the keys of every
    /// object's collection (CollectionIndex.swift): compared entry by entry.
    private static func verifyCollectionIndex(_ t: Table, column c: Int, root: PageNumber, space: PageSpace, context: String) throws {
        var expected: [(value: [UInt8], key: UInt64)] = []
        try t.forEachLeaf { leaf in
            for r in 0..<leaf.count {
                let h = RowHandle(leaf: leaf, row: r, key: ObjectKey(leaf.key(r)))
                for k in try t.collectionIndexKeys(h, c) { expected.append((k, h.key.rawValue)) }
            }
            return true
        }
        var found: [(value: [UInt8], key: UInt64)] = []
        var cursor = BTreeCursor(root: root, space: space)
        var more = try cursor.first()
        while more {
            let key = try cursor.key()
            guard key.count > 8 else { throw AtollError.corrupted("index key of \(key.count) bytes") }
            let value = Array(key[..<(key.count - 8)])
            let first = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: key.count - 8, as: UInt64.self))
            for k in try PostingsChunk.decode(try cursor.value(), firstKey: first) { found.append((value, k)) }
            more = try cursor.next()
        }
        func precedes(_ a: (value: [UInt8], key: UInt64), _ b: (value: [UInt8], key: UInt64)) -> Bool {
            a.value == b.value ? a.key < b.key : a.value.lexicographicallyPrecedes(b.value)
        }
        expected.sort(by: precedes)
        found.sort(by: precedes)
        guard found.count == expected.count else {
            throw AtollError.corrupted("\(context) has \(found.count) entries for \(expected.count) elements")
        }
        for (f, e) in zip(found, expected) where f.value != e.value || f.key != e.key {
            throw AtollError.corrupted("\(context) has an entry for object \(f.key) where the data has one for object \(e.key)")
        }
    }

    private static func countPostings(root: PageNumber, space: PageSpace) throws -> Int {
        var total = 0
        var cursor = BTreeCursor(root: root, space: space)
        var more = try cursor.first()
        while more {
            let key = try cursor.key()
            guard key.count > 8 else { throw AtollError.corrupted("index key of \(key.count) bytes") }
            let first = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: key.count - 8, as: UInt64.self))
            total += try PostingsChunk.decode(try cursor.value(), firstKey: first).count
            more = try cursor.next()
        }
        return total
    }

    /// Decodes every list value, so a corrupted list is found by verify rather than by a reader.
    private func verifyLists(_ t: Table) throws {
        let listColumns = t.spec.columns.indices.filter { t.spec.columns[$0].isList }
        // Mixed properties: each value decodes (one tag, one whole value; nested collections
        // within the depth limit, their map keys valid, unique and in order).
        let mixedColumns = t.spec.columns.indices.filter { t.spec.columns[$0].type == .mixed && !t.spec.columns[$0].isList }
        guard !listColumns.isEmpty || !mixedColumns.isEmpty else { return }
        try t.forEachLeaf { leaf in
            for r in 0..<leaf.count {
                let h = RowHandle(leaf: leaf, row: r, key: ObjectKey(leaf.key(r)))
                for c in mixedColumns { _ = try t.value(h, c) }
                for c in listColumns {
                    let values = try t.list(h, c).values
                    let col = t.spec.columns[c]
                    // Sets: unique and in set order; maps: keys unique and sorted by their bytes.
                    if col.isSet, zip(values, values.dropFirst()).contains(where: { StorageValue.setOrder($0, $1) >= 0 }) {
                        throw AtollError.corrupted("set '\(t.name).\(col.name)' of object \(h.key.rawValue) is not sorted and unique")
                    }
                    if col.isSet, values.contains(where: \.isNestedCollection) {
                        throw AtollError.corrupted("set '\(t.name).\(col.name)' of object \(h.key.rawValue) holds a nested collection")
                    }
                    if col.isMap {
                        let keys = try t.mapKeys(h, c)
                        if keys.contains(where: \.isEmpty) || zip(keys, keys.dropFirst()).contains(where: { !$0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                            throw AtollError.corrupted("map '\(t.name).\(col.name)' of object \(h.key.rawValue) has keys out of order")
                        }
                    }
                }
            }
            return true
        }
    }
}
