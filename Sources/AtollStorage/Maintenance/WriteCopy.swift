#if canImport(Glibc)
import Glibc
#endif

// writeCopy: a compacted copy of one version in a new file. Rows are appended in key order, so
// leaves and index pages come out full and the copy has no free pages; table and object keys
// are kept, so links stay valid. Internal trees (sync metadata) are copied entry by entry. The
// history is not copied, except the logs sync still needs (versions >= the root record's
// syncHistoryRetainedFrom): those are local changes not yet turned into changesets, and a
// compaction must not lose them. The copy's own commit stores no log.
// The copy is encrypted with the key given (or not at all), independently of the source: copying
// encrypts, decrypts or re-keys a file. Its pages are sealed with the copy's own keys, derived
// from its new file id.

extension Transaction {
    /// Writes a compacted copy of this version to a new file at `path` (which must not exist),
    /// encrypted like the source (with the same key, or not at all).
    public func writeCopy(to path: String) throws {
        try writeCopy(to: path, encryptionKey: database.configuration.encryptionKey)
    }

    /// Writes a compacted copy of this version to a new file at `path` (which must not exist),
    /// encrypted with `encryptionKey`, or unencrypted when it is nil.
    public func writeCopy(to path: String, encryptionKey: EncryptionKey?) throws {
        try Database.createFile(path: path, initialVersion: version, encryptionKey: encryptionKey)
        let target = try Database.open(DatabaseConfiguration(path: path, durability: .unsafe, createIfMissing: false,
                                                             encryptionKey: encryptionKey))
        let w = try target.beginWrite()
        do {
            for key in tableKeys {
                guard let spec = spec(of: key) else { continue }
                _ = try w.createTable(spec, key: key)
            }
            for (name, value) in try allMetadata() { try w.setMetadata(name, value) }
            for key in tableKeys { try w.table(key).copyRows(from: try table(key)) }
            for key in tableKeys { try w.table(key).copyBacklinks(from: try table(key)) }
            for name in try internalTreeNames() {
                try forEachInternalEntry(name, from: []) { k, v in
                    try w.putInternal(name, key: k, value: v)
                    return true
                }
            }
            if root.syncHistoryRetainedFrom != 0 {
                try w.copySyncHistory(from: self)
            }
            w.discardsLog = true
            // The copy is synced whole before it is renamed into place: its record needs no
            // page list, and without one every damaged page of it is reported as damage.
            w.listsPages = false
            try w.commit()
            // A copy has no free space: drop the growth reserve at its end.
            try target.store.trim(to: try target.newestRoot().pageCount)
            try target.file.sync()
            try DirectorySync.syncDirectory(containing: path)
        } catch {
            w.rollback()
            unlink(path)
            unlink(DatabaseConfiguration.lockPath(for: path))
            throw error
        }
    }

    /// Every metadata entry of the catalog.
    public func allMetadata() throws -> [(String, [UInt8])] {
        var result: [(String, [UInt8])] = []
        var cursor = BTreeCursor(root: root.catalogRoot, space: space)
        var more = try [UInt8(3)].withUnsafeBytes { try cursor.seek($0) }
        while more {
            let k = try cursor.key()
            guard k.first == 3 else { break }
            result.append((String(decoding: k.dropFirst(), as: UTF8.self), Array(try cursor.value())))
            more = try cursor.next()
        }
        return result
    }
}

extension Table {
    /// Appends every row of `source` (same spec, another file) with the same keys.
    func copyRows(from source: Table) throws {
        guard let cluster else { throw AtollError(.invalidTransaction, "copying needs a write transaction") }
        let sourceSpace = source.transaction.space
        try source.forEachLeaf { leaf in
            for r in 0..<leaf.count {
                let key = leaf.key(r)
                let (m, row) = try cluster.insert(key)
                for (b, spec) in layout.blocks.enumerated() {
                    let target = m.blocks[b]
                    switch spec.kind {
                    case .ints:
                        let c = leaf.intColumn(b); target.setInt(row, c[r]); target.setNull(row, c.isNull(r))
                    case .float32:
                        let c = leaf.float32Column(b); target.values.pointer.setU32(row * 4, c[r].bitPattern); target.setNull(row, c.isNull(r))
                    case .float64:
                        let c = leaf.float64Column(b); target.values.pointer.setU64(row * 8, c[r].bitPattern); target.setNull(row, c.isNull(r))
                    case .fixed(let k):
                        let c = leaf.fixedColumn(b)
                        if let src = c.bytes(r).baseAddress { (target.values.pointer + row * k).copyMemory(from: src, byteCount: k) }
                        target.setNull(row, c.isNull(r))
                    case .bytes:
                        let c = leaf.bytesColumn(b)
                        try placeBytes(try c.value(r, space: sourceSpace), block: b, leaf: m, row: row)
                        target.setNull(row, c.isNull(r))
                    }
                }
                try cluster.fit(key)
                let h = RowHandle(leaf: leaf, row: r, key: ObjectKey(key))
                for c in spec.columns.indices where needsIndex(c) && !isKeyAlias(c) {
                    for k in try source.allIndexKeys(h, c) { pendingIndex[c, default: PendingIndexChanges()].add(k, key) }
                }
            }
            return true
        }
        roots.objectCount = source.roots.objectCount
        roots.nextKey = source.roots.nextKey
        isChanged = true
    }

    /// Recreates in the link targets the backlinks of this table's links.
    func copyBacklinks(from source: Table) throws {
        let linkColumns = spec.columns.indices.filter { spec.columns[$0].type == .link }
        let mixedColumns = spec.columns.indices.filter { spec.columns[$0].type == .mixed }
        guard !linkColumns.isEmpty || !mixedColumns.isEmpty else { return }
        try source.forEachLeaf { leaf in
            for r in 0..<leaf.count {
                let origin = ObjectKey(leaf.key(r))
                let h = RowHandle(leaf: leaf, row: r, key: origin)
                for c in linkColumns {
                    let target = try linkTargetTable(spec.columns[c])
                    if spec.columns[c].isList {
                        for v in try source.list(h, c).values { if case .link(let k) = v { try target.adjustBacklink(to: k, from: key, column: c, origin: origin, delta: 1) } }
                    } else if let k = source.link(h, c) {
                        try target.adjustBacklink(to: k, from: key, column: c, origin: origin, delta: 1)
                    }
                }
                // Typed links in mixed values, whose target table is part of the value.
                for c in mixedColumns {
                    for v in spec.columns[c].isList ? try source.list(h, c).values : [try source.value(h, c)] {
                        for (t, k) in v.typedLinks {
                            try transaction.table(t).adjustBacklink(to: k, from: key, column: c, origin: origin, delta: 1)
                        }
                    }
                }
            }
            return true
        }
    }
}

extension Database {
    /// Writes a compacted copy of the newest version to `path`, encrypted like this database.
    public func writeCopy(to path: String) throws {
        let r = try beginRead()
        defer { r.close() }
        try r.writeCopy(to: path)
    }

    /// Writes a compacted copy of the newest version to `path`, encrypted with `encryptionKey`
    /// (nil: unencrypted). Encrypts, decrypts or re-keys a file.
    public func writeCopy(to path: String, encryptionKey: EncryptionKey?) throws {
        let r = try beginRead()
        defer { r.close() }
        try r.writeCopy(to: path, encryptionKey: encryptionKey)
    }

    /// Compacts the file at `path` in place: writes a compacted copy and renames it over the
    /// original, while holding the file exclusively. Fails with `.fileLocked` while another
    /// process, or another part of this one, has it open. An encrypted file needs its key and
    /// stays encrypted with it.
    public static func compact(path: String, encryptionKey: EncryptionKey? = nil) throws -> (before: Int, after: Int) {
        guard access(path, F_OK) == 0 else { throw AtollError(.fileNotFound, "no database at '\(path)'") }
        if isOpen(path: path) {
            throw AtollError(.fileLocked, "'\(path)' is open in this process; close every Realm on it before compacting")
        }
        let temporary = path + ".compacting"
        unlink(temporary)
        unlink(DatabaseConfiguration.lockPath(for: temporary))
        let db = try Database.open(DatabaseConfiguration(path: path, createIfMissing: false, encryptionKey: encryptionKey))
        guard db.lock.upgradeToExclusiveUsage() else {
            throw AtollError(.fileLocked, "'\(path)' is open in another process; close it there before compacting")
        }
        defer { db.lock.downgradeUsage() }
        let before = db.file.fileSizeBytes
        do {
            try db.writeCopy(to: temporary)
        } catch {
            unlink(temporary)
            unlink(DatabaseConfiguration.lockPath(for: temporary))
            throw error
        }
        unlink(DatabaseConfiguration.lockPath(for: temporary))
        var st = stat()
        let after = stat(temporary, &st) == 0 ? Int(st.st_size) : 0
        guard rename(temporary, path) == 0 else {
            let e = errno
            unlink(temporary)
            throw AtollError.posix("replacing", path: path, errno: e)
        }
        DurabilitySeam.observer(for: path)?.didRename(from: temporary, to: path)
        // The lock file described the old file's commits: the copy's are complete (it was synced
        // whole) and its newest version is not yet known durable under this name.
        db.lock.setRootsChecked(rejecting: nil)
        db.lock.setDurable(version: 0)
        db.lock.setReturnedRecord(nil)
        // Until the directory is synced, a power failure may bring the old file back, and with it
        // lose every commit made to the compacted one.
        try DirectorySync.syncDirectory(containing: path)
        return (before, after)
    }
}
