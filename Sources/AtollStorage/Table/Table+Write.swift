import struct Foundation.UUID

// Table mutations. Every change validates its input first (typed errors, nothing changed on
// failure), then updates the row, indexes and backlinks, and appends an instruction to the
// transaction's log.

extension Table {
    /// Values longer than this are stored in a blob rather than inline in the leaf.
    static let inlineValueBytesMax = 1024
    /// Inline bytes one row may use across its string/binary/list columns before its largest
    /// values move to blobs, so that every row fits a leaf page with room to spare.
    static let rowInlineBytesMax = 1200

    var writeTransaction: WriteTransaction? { transaction as? WriteTransaction }

    private func writer() throws -> (WriteTransaction, ClusterTreeWriter) {
        guard let txn = writeTransaction, let cluster else {
            throw AtollError(.invalidTransaction, "cannot modify '\(name)' outside a write transaction")
        }
        try txn.checkOpen()
        return (txn, cluster)
    }

    func column(_ c: Int) throws -> ColumnSpec {
        guard c >= 0, c < spec.columns.count else { throw AtollError(.invalidArgument, "'\(name)' has no column \(c)") }
        return spec.columns[c]
    }

    // MARK: validation

    /// Checks that `value` may be stored in column `c` (a scalar; lists check their elements).
    func validate(_ value: StorageValue, column c: Int, element: Bool = false) throws {
        guard c >= 0, c < columnInfo.count else { throw AtollError(.invalidArgument, "'\(name)' has no column \(c)") }
        let info = columnInfo[c]
        // Built only when an error is thrown (this runs for every value written).
        var label: String { "'\(name).\(spec.columns[c].name)'" }
        if value.isNull {
            guard info.isNullable else {
                throw AtollError(.requiredValueMissing, "\(label) is required\(element ? " in its elements" : ""); nil is not allowed")
            }
            return
        }
        guard value.matches(info.type) else {
            let col = spec.columns[c]
            throw AtollError(.typeMismatch, "\(label) holds \(col.type == .link ? "links to \(col.linkTarget ?? "?")" : col.type.description) values; got \(value.typeName) \(value)")
        }
        switch value {
        case .int(let v) where info.intBits < 64:
            let lo = -(Int64(1) << (info.intBits - 1)), hi = (Int64(1) << (info.intBits - 1)) - 1
            guard v >= lo && v <= hi else {
                throw AtollError(.typeMismatch, "\(label) holds \(info.intBits)-bit integers; \(v) is out of range")
            }
        case .string(let s):
            guard s.utf8.count <= SchemaLimits.valueBytesMax else {
                throw AtollError(.limitExceeded, "a string of \(s.utf8.count) bytes for \(label) exceeds the 16 MiB limit")
            }
        case .binary(let b):
            guard b.count <= SchemaLimits.valueBytesMax else {
                throw AtollError(.limitExceeded, "a value of \(b.count) bytes for \(label) exceeds the 16 MiB limit")
            }
        case .link(let target):
            let col = spec.columns[c]
            let targetTable = try linkTargetTable(col)
            guard try targetTable.contains(target) else {
                throw AtollError(.objectNotFound, "\(label) cannot link to object \(target.rawValue): it does not exist in '\(targetTable.name)'")
            }
        case .typedLink(let t, let target):
            guard transaction.schema.specs[t] != nil else {
                throw AtollError(.objectNotFound, "\(label) cannot link to an object of table \(t.rawValue): there is no such table")
            }
            let targetTable = try transaction.table(t)
            guard !targetTable.spec.isEmbedded else {
                throw AtollError(.typeMismatch, "\(label) cannot hold an embedded object of '\(targetTable.name)' (as in Realm, a mixed value links only top-level objects)")
            }
            guard try targetTable.contains(target) else {
                throw AtollError(.objectNotFound, "\(label) cannot link to object \(target.rawValue): it does not exist in '\(targetTable.name)'")
            }
        case .mixedList, .mixedMap:
            // Realm nests collections in mixed properties, lists and map values, not in sets.
            guard !spec.columns[c].isSet else {
                throw AtollError(.typeMismatch, "\(label) is a set; a set of mixed values cannot hold a nested list or dictionary (as in Realm)")
            }
            try value.validateNesting(label)
            for (t, k) in value.typedLinks { try validate(.typedLink(t, k), column: c, element: true) }
            let bytes = value.mixedBytes.count
            guard bytes <= SchemaLimits.valueBytesMax else {
                throw AtollError(.limitExceeded, "a nested collection of \(bytes) bytes for \(label) exceeds the 16 MiB limit")
            }
        default: break
        }
    }

    func linkTargetTable(_ col: ColumnSpec) throws -> Table {
        guard let targetName = col.linkTarget, let t = try transaction.table(named: targetName) else {
            throw AtollError(.schemaMismatch, "link target '\(col.linkTarget ?? "")' of '\(name).\(col.name)' does not exist")
        }
        return t
    }

    // MARK: objects

    /// Creates an object with default values (zero, empty, or nil for optional columns).
    /// Tables with a primary key need `primaryKey`; it must be unique.
    @discardableResult
    public func create(primaryKey: StorageValue = .null) throws -> ObjectKey {
        try insertObject(primaryKey: primaryKey).key
    }

    /// `create(primaryKey:)`, returning where the new row is as well.
    private func insertObject(primaryKey: StorageValue) throws -> (txn: WriteTransaction, cluster: ClusterTreeWriter, key: ObjectKey, leaf: MutableLeaf, row: Int) {
        let (txn, cluster) = try writer()
        let key: ObjectKey
        if let pk = primaryKeyColumn {
            try validate(primaryKey, column: pk)
            if keyIsPrimaryKey {
                guard case .int(let v) = primaryKey else {
                    throw AtollError(.typeMismatch, "primary key '\(name).\(spec.columns[pk].name)' is an int")
                }
                key = ObjectKey(primaryKey: v)
            } else {
                if try !findAll(indexed: pk, equalTo: primaryKey).isEmpty {
                    throw AtollError(.primaryKeyExists, "an object of '\(name)' with primary key \(primaryKey) already exists")
                }
                key = ObjectKey(roots.nextKey)
                roots.nextKey += 1
            }
        } else {
            guard primaryKey.isNull else { throw AtollError(.invalidArgument, "'\(name)' has no primary key") }
            key = ObjectKey(roots.nextKey)
            roots.nextKey += 1
        }
        let (leaf, row): (MutableLeaf, Int)
        do {
            (leaf, row) = try cluster.insert(key.rawValue)
        } catch let e as AtollError where e.kind == .primaryKeyExists {
            throw AtollError(.primaryKeyExists, "an object of '\(name)' with primary key \(primaryKey) already exists")
        }
        roots.objectCount += 1
        isChanged = true
        if spec.isEmbedded { txn.newEmbeddedRows.append((self.key, key)) }
        // Defaults: nil for optional scalars; index entries for the defaults.
        for (c, info) in columnInfo.enumerated() where !info.isList && info.isNullable {
            let b = layout.firstBlock[c]
            if b >= 0 { leaf.blocks[b].setNull(row, true) }
        }
        // A new object has no index entry, unless an object with the same key was deleted
        // earlier in this transaction: then the index still holds that one's value.
        // (Indexed sets and maps too: a new object's collections are empty.)
        for (c, info) in columnInfo.enumerated() where info.needsIndex && !isKeyAlias(c) && indexTouched[c]?[key.rawValue] == nil {
            indexTouched[c, default: [:]][key.rawValue] = IndexedValue.none
        }
        if let pk = primaryKeyColumn, !keyIsPrimaryKey {
            try store(primaryKey, column: pk, leaf: leaf, row: row, key: key)
        }
        txn.log.append(.createObject(self.key, key, primaryKey: primaryKey))
        txn.noteMutation()
        return (txn, cluster, key, leaf, row)
    }

    /// Creates an object and sets its columns in one step: `values[c]` is the value of column
    /// `c` (nil, or a missing trailing entry: the default). Validates every value first, so on
    /// error nothing changes. The object is found, changed and checked for a split once, and
    /// the log records the same instructions as `create` followed by one `set` per value.
    @discardableResult
    public func create(primaryKey: StorageValue = .null, values: [StorageValue?]) throws -> ObjectKey {
        guard values.count <= columnInfo.count else {
            throw AtollError(.invalidArgument, "\(values.count) values for the \(columnInfo.count) columns of '\(name)'")
        }
        for (c, value) in values.enumerated() {
            guard let value else { continue }
            guard !columnInfo[c].isList else { throw AtollError(.typeMismatch, "'\(name).\(spec.columns[c].name)' is a list; use the list operations") }
            guard c != primaryKeyColumn else {
                throw AtollError(.invalidArgument, "the primary key '\(name).\(spec.columns[c].name)' is given as `primaryKey`, not as a value")
            }
            try validate(value, column: c)
            if case .link(let target) = value, try linksToEmbedded(c) { try requireNoOwner(target, linkedFrom: c) }
        }
        let (txn, cluster, key, leaf, row) = try insertObject(primaryKey: primaryKey)
        for (c, value) in values.enumerated() {
            guard let value else { continue }
            try store(value, column: c, leaf: leaf, row: row, key: key)
            txn.log.append(.set(self.key, key, column: c, value: value, implicit: false))
        }
        if ClusterTreeWriter.needsSplit(leaf) { try cluster.fit(key.rawValue) }
        txn.noteMutation()
        return key
    }

    /// Sets a scalar column.
    public func set(_ key: ObjectKey, _ c: Int, _ value: StorageValue) throws {
        try set(key, c, value, implicit: false)
    }

    /// Sets a scalar column of the object the caller found at `row` in the current state (a
    /// managed object's cached position): a fixed-width value then skips the second lookup.
    package func set(_ key: ObjectKey, _ c: Int, _ value: StorageValue, foundAt row: RowHandle?) throws {
        try set(key, c, value, implicit: false, hint: row)
    }

    func set(_ key: ObjectKey, _ c: Int, _ value: StorageValue, implicit: Bool, hint: RowHandle? = nil) throws {
        let (txn, cluster) = try writer()
        guard c >= 0, c < columnInfo.count else { throw AtollError(.invalidArgument, "'\(name)' has no column \(c)") }
        guard !columnInfo[c].isList else { throw AtollError(.typeMismatch, "'\(name).\(spec.columns[c].name)' is a list; use the list operations") }
        if c == primaryKeyColumn {
            if try value == primaryKeyValue(key) { return }
            throw AtollError(.invalidArgument, "the primary key '\(name).\(spec.columns[c].name)' of an existing object cannot be changed")
        }
        try validate(value, column: c)
        if case .link(let target) = value, try linksToEmbedded(c), try self.value(key, c) != value {
            try requireNoOwner(target, linkedFrom: c)
        }
        if layout.firstBlock[c] >= 0, Self.isPatchable(value, kind: layout.blocks[layout.firstBlock[c]].kind) {
            // A fixed-width value replaces another of the same width: the leaf keeps its
            // encoding, so a snapshot leaf is patched as a page (no decode, no encode).
            let found: (page: ClusterLeafPage, row: Int)? = if let hint, hint.key == key, let p = hint.leaf.page { (p, hint.row) } else { nil }
            switch try cluster.modifyInPlace(key.rawValue, hint: found) {
            case nil:
                throw AtollError(.objectNotFound, "no object with key \(key.rawValue) in '\(name)'")
            case .leaf(let leaf, let row):
                try store(value, column: c, leaf: leaf, row: row, key: key)
            case .page(let page, let p, let row):
                try patch(value, column: c, page: page, writable: p, row: row, key: key)
            }
        } else {
            guard let (leaf, row) = try cluster.modify(key.rawValue) else {
                throw AtollError(.objectNotFound, "no object with key \(key.rawValue) in '\(name)'")
            }
            try store(value, column: c, leaf: leaf, row: row, key: key)
            if ClusterTreeWriter.needsSplit(leaf) { try cluster.fit(key.rawValue) }
        }
        isChanged = true
        txn.log.append(.set(self.key, key, column: c, value: value, implicit: implicit))
        txn.noteMutation()
        try eraseOrphansIfAny()
    }

    /// Adds `delta` to an int column (a counter: sync merges increments additively).
    public func addInteger(_ key: ObjectKey, _ c: Int, _ delta: Int64) throws {
        let (txn, cluster) = try writer()
        let col = try column(c)
        guard col.type == .int, !col.isList, c != spec.primaryKeyIndex else {
            throw AtollError(.typeMismatch, "'\(name).\(col.name)' is not an int column that can be incremented")
        }
        guard let h = try locate(key) else { throw AtollError(.objectNotFound, "no object with key \(key.rawValue) in '\(name)'") }
        guard !isNull(h, c) else { throw AtollError(.invalidArgument, "cannot increment '\(name).\(col.name)': it is nil") }
        let (sum, overflow) = int(h, c).addingReportingOverflow(delta)
        guard !overflow else { throw AtollError(.limitExceeded, "incrementing '\(name).\(col.name)' by \(delta) overflows") }
        try validate(.int(sum), column: c)
        guard let (leaf, row) = try cluster.modify(key.rawValue) else { return }
        try store(.int(sum), column: c, leaf: leaf, row: row, key: key)
        // A wider value can make the leaf outgrow its page, as in `set`.
        if ClusterTreeWriter.needsSplit(leaf) { try cluster.fit(key.rawValue) }
        isChanged = true
        txn.log.append(.addInteger(self.key, key, column: c, delta: delta))
        txn.noteMutation()
    }

    /// Whether `value` overwrites a value of a `kind` block in place: a non-null value whose
    /// encoding has the block's fixed width (a float, double, UUID or object id).
    @inline(__always)
    static func isPatchable(_ value: StorageValue, kind: PhysicalKind) -> Bool {
        switch (value, kind) {
        case (.double, .float64), (.float, .float32), (.uuid, .fixed(16)), (.objectId, .fixed(12)), (.decimal128, .fixed(16)): true
        default: false
        }
    }

    /// Writes a fixed-width value (`isPatchable`) at `at`.
    @inline(__always)
    private static func storeFixed(_ value: StorageValue, at: UnsafeMutableRawPointer) {
        switch value {
        case .float(let v): at.setU32(0, v.bitPattern)
        case .double(let v): at.setU64(0, v.bitPattern)
        case .uuid(let u): withUnsafeBytes(of: u.uuid) { if let src = $0.baseAddress { at.copyMemory(from: src, byteCount: 16) } }
        case .objectId(let o): o.store(to: at)
        case .decimal128(let d): d.store(to: at)
        default: break
        }
    }

    /// Writes a validated fixed-width, non-null value (`isPatchable`) into row `r` of a leaf
    /// page this transaction owns, maintaining the index: the value's bytes and the row's null
    /// bit, the only bytes of the page that depend on it.
    private func patch(_ value: StorageValue, column c: Int, page: ClusterLeafPage, writable p: UnsafeMutableRawPointer,
                       row r: Int, key: ObjectKey) throws {
        let b = layout.firstBlock[c]
        guard b >= 0, r >= 0, r < page.rowCount else { return }
        if needsIndex(c), indexTouched[c]?[key.rawValue] == nil {
            indexTouched[c, default: [:]][key.rawValue] = .value(try indexKey(RowHandle(leaf: .page(page), row: r, key: key), c))
        }
        // The block's extent was validated with the page (ClusterLeafPage.init); its width byte
        // equals the layout's (BlockCodec.end), so the row's bytes lie inside it.
        let s = page.blockStart(b + 1)
        let width = Int(p.u8(s))
        Self.storeFixed(value, at: p + s + 2 + r * width)
        if p.u8(s + 1) & 1 != 0 {
            let bit = s + 2 + width * page.rowCount + (r >> 3)
            p.setU8(bit, p.u8(bit) & ~(UInt8(1) << UInt8(r & 7)))
        }
    }

    /// Writes a validated value into the row, maintaining the index, backlinks and blobs.
    private func store(_ value: StorageValue, column c: Int, leaf m: MutableLeaf, row r: Int, key: ObjectKey) throws {
        let info = columnInfo[c]
        let b = layout.firstBlock[c]
        guard b >= 0 else { return }
        let h = RowHandle(leaf: .mutable(m), row: r, key: key)
        if needsIndex(c), indexTouched[c]?[key.rawValue] == nil {
            indexTouched[c, default: [:]][key.rawValue] = .value(try indexKey(h, c))
        }
        if info.type == .link {
            let old = link(h, c)
            let new: ObjectKey? = if case .link(let k) = value { k } else { nil }
            if old != new {
                let target = try linkTargetTable(spec.columns[c])
                if let old {
                    try target.adjustBacklink(to: old, from: self.key, column: c, origin: key, delta: -1)
                    target.noteLinkRemoved(to: old)
                }
                if let new { try target.adjustBacklink(to: new, from: self.key, column: c, origin: key, delta: 1) }
            }
        }
        if info.type == .mixed {
            let old = try self.value(h, c)
            if old != value {
                try typedLinkChanged(c, key, old: old, new: value)
            }
        }
        let block = m.blocks[b]
        block.setNull(r, value.isNull)
        if info.type == .mixed, !value.isNull {
            try value.mixedBytes.withUnsafeBytes { try placeBytes($0, block: b, leaf: m, row: r) }
            return
        }
        switch value {
        case .null:
            if block.spec.kind == .bytes { try placeBytes(UnsafeRawBufferPointer(start: nil, count: 0), block: b, leaf: m, row: r) }
            else if block.spec.kind == .ints { block.setInt(r, 0); if info.type == .timestamp { m.blocks[b + 1].setInt(r, 0) } }
        case .bool(let v): block.setInt(r, v ? 1 : 0)
        case .int(let v): block.setInt(r, v)
        case .link(let k): block.setInt(r, Int64(bitPattern: k.rawValue))
        case .timestamp(let t): block.setInt(r, t.seconds); m.blocks[b + 1].setInt(r, Int64(t.nanoseconds))
        case .float, .double, .uuid, .objectId, .decimal128: Self.storeFixed(value, at: block.values.pointer + r * block.stride)
        case .string(var s): try s.withUTF8 { try placeBytes(UnsafeRawBufferPointer($0), block: b, leaf: m, row: r) }
        case .binary(let d): try d.withUnsafeBytes { try placeBytes($0, block: b, leaf: m, row: r) }
        case .typedLink, .mixedList, .mixedMap: preconditionFailure("a typed link or nested collection reached a column that is not mixed (validate refuses it)")
        }
    }

    /// Stores variable-length bytes in a row: inline, or in a blob when long or when the row's
    /// inline bytes would exceed its budget. Frees the blob of the value it replaces.
    func placeBytes(_ bytes: UnsafeRawBufferPointer, block b: Int, leaf m: MutableLeaf, row r: Int) throws {
        guard let allocator = transaction.allocator else { return }
        let column = m.bytesColumn(b)
        if let (first, length) = column.externalReference(r) { allocator.freeBlob(first, length: length) }
        let block = m.blocks[b]
        if bytes.count > Self.inlineValueBytesMax {
            try storeExternal(bytes, block: block, row: r, allocator: allocator)
            return
        }
        block.setBytes(r, bytes, external: false)
        // Keep the row within its inline budget by moving its largest inline values out.
        while true {
            var total = 0
            var largest: (block: Int, size: Int)? = nil
            for (i, other) in m.blocks.enumerated() where other.spec.kind == .bytes {
                let c = m.bytesColumn(i)
                guard !c.external.isMarked(r) else { total += 8; continue }
                let size = c.stored(r).count
                total += size
                if size > (largest?.size ?? 16) { largest = (i, size) }
            }
            guard total > Self.rowInlineBytesMax, let (i, _) = largest else { break }
            let value = Array(m.bytesColumn(i).stored(r))
            try value.withUnsafeBytes { try storeExternal($0, block: m.blocks[i], row: r, allocator: allocator) }
        }
    }

    private func storeExternal(_ bytes: UnsafeRawBufferPointer, block: MutableBlock, row r: Int, allocator: PageAllocator) throws {
        let first = try allocator.writeBlob(bytes)
        var reference = ByteWriter(capacity: 8)
        reference.u32(first)
        reference.u32(UInt32(bytes.count))
        reference.bytes.withUnsafeBytes { block.setBytes(r, $0, external: true) }
    }

    func adjustBacklink(to target: ObjectKey, from origin: TableKey, column: Int, origin originKey: ObjectKey, delta: Int) throws {
        guard let allocator = transaction.allocator else { return }
        try Backlinks.adjust(root: &roots.backlinkRoot, target: target, originTable: origin, originColumn: column,
                             origin: originKey, delta: delta, allocator: allocator)
        isChanged = true
    }

    /// Deletes an object: links to it become nil, lists drop it, its own links, index entries
    /// and blobs go with it.
    public func erase(_ key: ObjectKey) throws {
        let (txn, cluster) = try writer()
        guard let h = try locate(key) else { throw AtollError(.objectNotFound, "no object with key \(key.rawValue) in '\(name)'") }
        let pkValue = try primaryKeyValue(h)
        // Orphans (embedded rows) are erased once this object is gone, not while it is erased.
        let erasesOrphans = !txn.isErasingOrphans
        txn.isErasingOrphans = true
        defer { if erasesOrphans { txn.isErasingOrphans = false } }
        // 1. Links into this object.
        // A mixed column links with a typed link; realm-core treats it like a link column:
        // removed from lists and sets, nil in maps and properties.
        for entry in try Backlinks.all(root: roots.backlinkRoot, target: key, space: transaction.space) {
            let origin = try transaction.table(entry.originTable)
            let originColumn = origin.spec.columns[entry.originColumn]
            let link: StorageValue = originColumn.type == .mixed ? .typedLink(self.key, key) : .link(key)
            if originColumn.isMap {
                try origin.mapNullifyLinks(entry.originKey, entry.originColumn, to: link)
            } else if originColumn.isSet {
                _ = try origin.setRemove(entry.originKey, entry.originColumn, link, implicit: true)
            } else if originColumn.isList {
                let values = try origin.listValues(entry.originKey, entry.originColumn)
                for i in values.indices.reversed() where values[i] == link {
                    try origin.listRemove(entry.originKey, entry.originColumn, at: i, implicit: true)
                }
            } else if originColumn.type == .mixed, try origin.value(entry.originKey, entry.originColumn).isNestedCollection {
                // The link is inside a nested collection of the property.
                if origin.key != self.key || entry.originKey != key {
                    let v = try origin.value(entry.originKey, entry.originColumn)
                    try origin.set(entry.originKey, entry.originColumn, v.removingTypedLink(link), implicit: true)
                }
            } else if origin.key != self.key || entry.originKey != key {
                try origin.set(entry.originKey, entry.originColumn, .null, implicit: true)
            }
            if originColumn.type == .mixed, originColumn.isList || originColumn.isMap {
                try origin.removeNestedTypedLinks(entry.originKey, entry.originColumn, link)
            }
        }
        // 2. This object's own links, index entries and blobs.
        guard let h2 = try locate(key) else { return }
        for (c, col) in spec.columns.enumerated() {
            if col.type == .link {
                let target = try linkTargetTable(col)
                if col.isList {
                    for v in try list(h2, c).values {
                        if case .link(let k) = v {
                            try target.adjustBacklink(to: k, from: self.key, column: c, origin: key, delta: -1)
                            target.noteLinkRemoved(to: k)
                        }
                    }
                } else if let k = link(h2, c) {
                    try target.adjustBacklink(to: k, from: self.key, column: c, origin: key, delta: -1)
                    target.noteLinkRemoved(to: k)
                }
            } else if col.type == .mixed {
                for v in col.isList ? try list(h2, c).values : [try value(h2, c)] {
                    try typedLinkChanged(c, key, old: v, new: nil)
                }
            }
            if needsIndex(c) && !isKeyAlias(c) && !col.isList, indexTouched[c]?[key.rawValue] == nil {
                indexTouched[c, default: [:]][key.rawValue] = .value(IndexKey.encode(try value(h2, c), mixed: col.type == .mixed).bytes)
            } else if hasCollectionIndex(c), indexTouched[c]?[key.rawValue] == nil {
                indexTouched[c, default: [:]][key.rawValue] = .values(try collectionIndexKeys(h2, c))
            }
            if layout.firstBlock[c] >= 0, layout.blocks[layout.firstBlock[c]].kind == .bytes,
               let (first, length) = h2.leaf.bytesColumn(layout.firstBlock[c]).externalReference(h2.row) {
                transaction.allocator?.freeBlob(first, length: length)
            }
            dirtyLists[ListSlot(key: key.rawValue, column: c)] = nil
            dirtyMapKeys[ListSlot(key: key.rawValue, column: c)] = nil
        }
        try cluster.remove(key.rawValue)
        roots.objectCount -= 1
        isChanged = true
        txn.log.append(.eraseObject(self.key, key, primaryKey: pkValue))
        txn.noteMutation()
        if erasesOrphans {
            txn.isErasingOrphans = false
            try eraseOrphansIfAny()
        }
    }

    /// Deletes every object of the table.
    public func clear() throws {
        let (txn, cluster) = try writer()
        guard roots.objectCount > 0 else { return }
        let hasLinks = spec.columns.contains { $0.type == .link || $0.type == .mixed }
        if roots.backlinkRoot != 0 || hasLinks || txn.logsEveryErase {
            // Links in or out, or sync needing per-object erases: delete one by one.
            for k in try objectKeys() { try erase(k) }
            return
        }
        try cluster.freeAll { leaf in
            for (b, spec) in layout.blocks.enumerated() where spec.kind == .bytes {
                let c = leaf.bytesColumn(b)
                for r in 0..<leaf.count { if let (first, length) = c.externalReference(r) { transaction.allocator?.freeBlob(first, length: length) } }
            }
        }
        if let allocator = transaction.allocator {
            for c in roots.indexRoots.indices where roots.indexRoots[c] != 0 {
                try BTree.freeAll(root: roots.indexRoots[c], allocator: allocator)
                roots.indexRoots[c] = 0
            }
        }
        pendingIndex.removeAll()
        indexTouched.removeAll()
        dirtyLists.removeAll()
        dirtyMapKeys.removeAll()
        roots.clusterRoot = 0
        roots.objectCount = 0
        isChanged = true
        txn.log.append(.clearTable(self.key))
        txn.noteMutation()
    }

    // MARK: lists

    func listColumn(_ c: Int) throws -> ColumnSpec {
        let col = try column(c)
        guard col.isList, !col.isSet, !col.isMap else {
            throw AtollError(.typeMismatch, "'\(name).\(col.name)' is not a list\(col.isSet ? "; it is a set" : col.isMap ? "; it is a map" : "")")
        }
        return col
    }

    /// The list's current values, decoded and cached for this transaction.
    func mutableList(_ key: ObjectKey, _ c: Int) throws -> [StorageValue] {
        let slot = ListSlot(key: key.rawValue, column: c)
        if let v = dirtyLists[slot] { return v }
        guard let h = try locate(key) else { throw AtollError(.objectNotFound, "no object with key \(key.rawValue) in '\(name)'") }
        return try list(h, c).values
    }

    private func commitListChange(_ key: ObjectKey, _ c: Int, _ values: [StorageValue], _ instruction: LogInstruction) throws {
        try commitListChange(key, c, values, CollectionOfOne(instruction))
    }

    /// Stores a list's new values, logging the instructions that lead to them (one list write).
    func commitListChange<I: Sequence<LogInstruction>>(_ key: ObjectKey, _ c: Int, _ values: [StorageValue], _ instructions: I) throws {
        let (txn, cluster) = try writer()
        guard try cluster.modify(key.rawValue) != nil else { throw AtollError(.objectNotFound, "no object with key \(key.rawValue) in '\(name)'") }
        if hasCollectionIndex(c) { try noteCollectionIndexChange(key, c) }
        dirtyLists[ListSlot(key: key.rawValue, column: c)] = values
        isChanged = true
        for instruction in instructions { txn.log.append(instruction) }
        txn.noteMutation()
        try eraseOrphansIfAny()
    }

    /// The number of elements of a list: O(1), nothing decoded.
    func listCount(_ key: ObjectKey, _ c: Int) throws -> Int {
        guard let h = try locate(key) else { throw AtollError(.objectNotFound, "no object with key \(key.rawValue) in '\(name)'") }
        return try list(h, c).count
    }

    /// One element of a list (index in bounds): O(1), nothing else decoded.
    func listElement(_ key: ObjectKey, _ c: Int, _ index: Int) throws -> StorageValue {
        guard let h = try locate(key) else { throw AtollError(.objectNotFound, "no object with key \(key.rawValue) in '\(name)'") }
        return try list(h, c).value(at: index)
    }

    /// Changes a list's values in place and logs `instruction` (one list write). The values of
    /// a list already changed in this transaction are taken out of `dirtyLists` while `change`
    /// runs, so that they are changed without a copy: k edits of a list of n in one
    /// transaction cost O(n + k) for appends, not O(n k). `change` cannot throw, so the values
    /// are always put back.
    func changeList(_ key: ObjectKey, _ c: Int, _ instruction: LogInstruction, _ change: (inout [StorageValue]) -> Void) throws {
        let (txn, cluster) = try writer()
        guard try cluster.modify(key.rawValue) != nil else { throw AtollError(.objectNotFound, "no object with key \(key.rawValue) in '\(name)'") }
        let slot = ListSlot(key: key.rawValue, column: c)
        var values: [StorageValue]
        if let dirty = dirtyLists.removeValue(forKey: slot) { values = dirty } else { values = try mutableList(key, c) }
        change(&values)
        dirtyLists[slot] = values
        isChanged = true
        txn.log.append(instruction)
        txn.noteMutation()
        try eraseOrphansIfAny()
    }

    /// The encoding of a changed list, set or map (a map's keys from `dirtyMapKeys`).
    func encodedCollection(_ slot: ListSlot, _ values: [StorageValue]) -> [UInt8] {
        let column = spec.columns[slot.column]
        return ListCodec.encode(values, keys: column.isMap ? dirtyMapKeys[slot] ?? [] : [], column: column)
    }

    func validateElement(_ value: StorageValue, _ c: Int) throws {
        try validate(value, column: c, element: true)
    }

    func linkElementChanged(_ col: ColumnSpec, _ c: Int, _ key: ObjectKey, old: StorageValue?, new: StorageValue?) throws {
        if col.type == .mixed { return try typedLinkChanged(c, key, old: old, new: new) }
        guard col.type == .link else { return }
        let target = try linkTargetTable(col)
        if case .link(let k)? = new, old != new { try requireNoOwner(k, linkedFrom: c) }
        if case .link(let k)? = old {
            try target.adjustBacklink(to: k, from: self.key, column: c, origin: key, delta: -1)
            target.noteLinkRemoved(to: k)
        }
        if case .link(let k)? = new { try target.adjustBacklink(to: k, from: self.key, column: c, origin: key, delta: 1) }
    }

    /// Keeps the backlinks of a mixed value's typed link exact: the target of the `old` value
    /// (if it is a typed link) loses one from this object's column `c`, that of `new` gains one.
    /// Removes `link` from the nested collections held by the elements (map values) of a mixed
    /// list (map) column, as a deletion of its target does.
    func removeNestedTypedLinks(_ key: ObjectKey, _ c: Int, _ link: StorageValue) throws {
        guard try contains(key) else { return }
        if spec.columns[c].isMap {
            for (k, v) in try mapEntries(key, c) where v.isNestedCollection {
                let nv = v.removingTypedLink(link)
                if nv != v { try mapSet(key, c, key: k, nv) }
            }
        } else {
            let values = try listValues(key, c)
            for (i, v) in values.enumerated() where v.isNestedCollection {
                let nv = v.removingTypedLink(link)
                if nv != v { try listSet(key, c, at: i, nv) }
            }
        }
    }

    /// Typed links inside nested collections count one each, as realm-core's do.
    func typedLinkChanged(_ c: Int, _ key: ObjectKey, old: StorageValue?, new: StorageValue?) throws {
        for (t, k) in old?.typedLinks ?? [] {
            try transaction.table(t).adjustBacklink(to: k, from: self.key, column: c, origin: key, delta: -1)
        }
        for (t, k) in new?.typedLinks ?? [] {
            try transaction.table(t).adjustBacklink(to: k, from: self.key, column: c, origin: key, delta: 1)
        }
    }

    public func listInsert(_ key: ObjectKey, _ c: Int, at index: Int, _ value: StorageValue) throws {
        let col = try listColumn(c)
        try validateElement(value, c)
        let count = try listCount(key, c)
        guard index >= 0, index <= count else {
            throw AtollError(.invalidArgument, "index \(index) is out of bounds for '\(name).\(col.name)' with \(count) elements")
        }
        try linkElementChanged(col, c, key, old: nil, new: value)
        try changeList(key, c, .listInsert(self.key, key, column: c, index: index, value: value)) { $0.insert(value, at: index) }
    }

    /// Appends an element: O(1) amortized within a write transaction (the list is encoded once,
    /// at commit).
    public func listAppend(_ key: ObjectKey, _ c: Int, _ value: StorageValue) throws {
        try listInsert(key, c, at: try listCount(key, c), value)
    }

    public func listSet(_ key: ObjectKey, _ c: Int, at index: Int, _ value: StorageValue) throws {
        let col = try listColumn(c)
        try validateElement(value, c)
        let count = try listCount(key, c)
        guard index >= 0, index < count else {
            throw AtollError(.invalidArgument, "index \(index) is out of bounds for '\(name).\(col.name)' with \(count) elements")
        }
        try linkElementChanged(col, c, key, old: try listElement(key, c, index), new: value)
        try changeList(key, c, .listSet(self.key, key, column: c, index: index, value: value)) { $0[index] = value }
    }

    public func listRemove(_ key: ObjectKey, _ c: Int, at index: Int) throws {
        try listRemove(key, c, at: index, implicit: false)
    }

    func listRemove(_ key: ObjectKey, _ c: Int, at index: Int, implicit: Bool) throws {
        let col = try listColumn(c)
        let count = try listCount(key, c)
        guard index >= 0, index < count else {
            throw AtollError(.invalidArgument, "index \(index) is out of bounds for '\(name).\(col.name)' with \(count) elements")
        }
        try linkElementChanged(col, c, key, old: try listElement(key, c, index), new: nil)
        try changeList(key, c, .listErase(self.key, key, column: c, index: index, implicit: implicit)) { $0.remove(at: index) }
    }

    public func listMove(_ key: ObjectKey, _ c: Int, from: Int, to: Int) throws {
        let col = try listColumn(c)
        let count = try listCount(key, c)
        guard from >= 0, from < count, to >= 0, to < count else {
            throw AtollError(.invalidArgument, "cannot move from \(from) to \(to) in '\(name).\(col.name)' with \(count) elements")
        }
        try changeList(key, c, .listMove(self.key, key, column: c, from: from, to: to)) { $0.insert($0.remove(at: from), at: to) }
    }

    public func listClear(_ key: ObjectKey, _ c: Int) throws {
        let col = try listColumn(c)
        let values = try mutableList(key, c)
        guard !values.isEmpty else { return }
        for v in values { try linkElementChanged(col, c, key, old: v, new: nil) }
        try commitListChange(key, c, [], .listClear(self.key, key, column: c))
    }

    /// Replaces a list's contents (logged as clear + inserts).
    public func setList(_ key: ObjectKey, _ c: Int, _ newValues: [StorageValue]) throws {
        _ = try listColumn(c)
        for v in newValues { try validateElement(v, c) }
        try deferringOrphans {
            try listClear(key, c)
            for (i, v) in newValues.enumerated() { try listInsert(key, c, at: i, v) }
        }
    }

    // MARK: indexes

    /// The index key of column `c` of a row (strings encoded from their bytes in place).
    func indexKey(_ h: RowHandle, _ c: Int) throws -> [UInt8] {
        if columnInfo[c].type == .string, !isNull(h, c), let bytes = try bytes(h, c) {
            return IndexKey.encodeString(bytes)
        }
        return IndexKey.encode(try value(h, c), mixed: columnInfo[c].type == .mixed).bytes
    }

    private static func isSingleValue(_ v: IndexedValue) -> Bool {
        if case .value = v { return true }
        return false
    }

    /// Brings the indexes up to date with the objects changed since the last flush.
    func flushIndexes() throws {
        guard let allocator = transaction.allocator else { return }
        // A column where one object changed and nothing else is buffered (a one-object commit)
        // goes to its tree directly: no per-value buffer, sorting or netting.
        var direct: [(column: Int, key: UInt64, old: [UInt8]?, new: [UInt8]?)] = []
        for (c, touched) in indexTouched {
            if touched.count == 1, pendingIndex[c]?.isEmpty ?? true, !hasCollectionIndex(c), let (key, old) = touched.first,
               old == .none || Self.isSingleValue(old) {
                var oldBytes: [UInt8]?
                if case .value(let o) = old { oldBytes = o }
                var newBytes: [UInt8]?
                if let h = try locate(ObjectKey(key)) { newBytes = try indexKey(h, c) }
                if oldBytes != newBytes { direct.append((c, key, oldBytes, newBytes)) }
                continue
            }
            var pending = pendingIndex[c] ?? PendingIndexChanges()
            let isCollection = hasCollectionIndex(c)
            // In key order, so that most rows are found in the leaf of the previous one: a bulk
            // load touches every row, and a descent per row in hash order visits the whole
            // tree at random (cache misses dominated commits of large loads).
            var leaf: LeafRef?
            var lowest: UInt64 = 1, highest: UInt64 = 0
            for (key, old) in touched.sorted(by: { $0.key < $1.key }) {
                var h: RowHandle?
                if let l = leaf, key >= lowest, key <= highest {
                    let r = l.find(key)
                    if r >= 0 { h = RowHandle(leaf: l, row: r, key: ObjectKey(key)) }
                } else if let found = try locate(ObjectKey(key)) {
                    h = found
                    leaf = found.leaf
                    lowest = found.leaf.key(0)
                    highest = found.leaf.key(found.leaf.count - 1)
                }
                if isCollection {
                    // An indexed set or map: the difference between its keys then and now.
                    let new = try h.map { try collectionIndexKeys($0, c) } ?? []
                    let oldKeys: [[UInt8]] = if case .values(let o) = old { o } else { [] }
                    Self.addDifference(old: oldKeys, new: new, key: key, to: &pending)
                    continue
                }
                var new = IndexedValue.none
                if let h { new = .value(try indexKey(h, c)) }
                guard old != new else { continue }
                if case .value(let o) = old { pending.remove(o, key) }
                if case .value(let n) = new { pending.add(n, key) }
            }
            pendingIndex[c] = pending
        }
        indexTouched.removeAll()
        for d in direct.sorted(by: { $0.column < $1.column }) {
            var root = roots.indexRoots[d.column]
            try PostingsIndex.apply(key: d.key, old: d.old, new: d.new, root: &root, allocator: allocator)
            roots.indexRoots[d.column] = root
            isChanged = true
        }
        for (c, pending) in pendingIndex.sorted(by: { $0.key < $1.key }) where !pending.isEmpty {
            var root = roots.indexRoots[c]
            try PostingsIndex.apply(pending, root: &root, allocator: allocator)
            roots.indexRoots[c] = root
            isChanged = true
        }
        pendingIndex.removeAll()
    }

    // MARK: commit

    /// Writes this table's buffered changes (lists, indexes, leaves) and returns its roots.
    func finishWrites() throws {
        guard let allocator = transaction.allocator, let cluster else { return }
        // Dirty lists go into their cells.
        for (slot, values) in dirtyLists.sorted(by: { ($0.key.key, $0.key.column) < ($1.key.key, $1.key.column) }) {
            guard let (leaf, row) = try cluster.modify(slot.key) else { continue }
            let bytes = encodedCollection(slot, values)
            try bytes.withUnsafeBytes { try placeBytes($0, block: layout.firstBlock[slot.column], leaf: leaf, row: row) }
            try cluster.fit(slot.key)
        }
        dirtyLists.removeAll()
        dirtyMapKeys.removeAll()
        try flushIndexes()
        _ = allocator
        try cluster.finish()
        roots.clusterRoot = cluster.root
    }
}
