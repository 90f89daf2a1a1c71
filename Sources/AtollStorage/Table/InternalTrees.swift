// Internal trees: named key-value B+trees that Atoll keeps for its own bookkeeping (sync
// metadata: stamps, tombstones, list element ids, the outgoing changeset log; the relay's
// changeset store). They live in the same file and commit atomically with the data.
//
//     catalog:  0x04 ++ UTF-8 tree name  ->  u32 root page of the tree (entry absent: empty tree)
//     tree:     a general B+tree (BTreeNode.swift): byte-string keys (at most 512 bytes) in
//               memcmp order, values of any length (long ones in blobs)
//
// Invariants and why they are not tables: an internal tree is invisible to everything a user
// sees by construction (it is not a table: no schema, no object API class, no CLI listing, no
// migration), and changing it appends nothing to the transaction log, so notifications and
// `atoll log` see only user changes and the history does not grow with bookkeeping. Every page
// of an internal tree is reachable from the catalog, so `verify`, `writeCopy` and tail
// relocation cover it like any other tree.

extension Transaction {
    /// The catalog key of an internal tree's root.
    static func internalTreeCatalogKey(_ name: String) -> [UInt8] { [4] + Array(name.utf8) }

    /// The root page of an internal tree (0 when empty or absent).
    package func internalTreeRoot(_ name: String) throws -> PageNumber {
        if let r = internalRoots[name] { return r }
        let key = Self.internalTreeCatalogKey(name)
        var r: PageNumber = 0
        if let v = try key.withUnsafeBytes({ try BTree.get(root: root.catalogRoot, key: $0, space: space) }) {
            guard v.count == 4 else { throw AtollError.corrupted("internal tree '\(name)' has a root entry of \(v.count) bytes") }
            r = v.loadUnaligned(as: UInt32.self).littleEndian
            guard r >= FileFormat.firstDataPage, r < space.pageCount else {
                throw AtollError.corrupted("internal tree '\(name)' names root page \(r), outside the file")
            }
        }
        internalRoots[name] = r
        return r
    }

    /// Calls `body` with the value stored under `key` in an internal tree, read in place (nil
    /// when absent). The buffer is valid only inside `body`. O(log n).
    package func withInternalValue<R>(_ tree: String, key: UnsafeRawBufferPointer,
                                      _ body: (UnsafeRawBufferPointer?) throws -> R) throws -> R
    {
        let r = try internalTreeRoot(tree)
        return try body(try BTree.get(root: r, key: key, space: space))
    }

    /// The value stored under `key` in an internal tree, copied. O(log n).
    package func internalValue(_ tree: String, key: [UInt8]) throws -> [UInt8]? {
        try key.withUnsafeBytes { k in try withInternalValue(tree, key: k) { $0.map { Array($0) } } }
    }

    /// Calls `body` with every entry of an internal tree whose key is >= `from` and starts with
    /// `prefix`, in key order, until `body` returns false. Keys and values are read in place and
    /// valid only inside `body`; the tree must not be changed during the scan.
    package func forEachInternalEntry(_ tree: String, from: [UInt8], prefix: [UInt8] = [],
                                      _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws
    {
        let r = try internalTreeRoot(tree)
        var cursor = BTreeCursor(root: r, space: space)
        let start = from.lexicographicallyPrecedes(prefix) ? prefix : from
        var more = try start.withUnsafeBytes { try cursor.seek($0) }
        while more {
            let k = try cursor.key()
            if !prefix.isEmpty {
                guard Self.hasPrefix(k, prefix) else { return }
            }
            guard try body(k, try cursor.value()) else { return }
            more = try cursor.next()
        }
    }

    /// The entry with the greatest key that starts with `prefix`, copied (nil when none).
    package func lastInternalEntry(_ tree: String, prefix: [UInt8]) throws -> (key: [UInt8], value: [UInt8])? {
        let r = try internalTreeRoot(tree)
        var cursor = BTreeCursor(root: r, space: space)
        // The greatest key with the prefix is the floor of the prefix followed by 0xFF bytes
        // (keys are at most 512 bytes long).
        let probe = prefix + [UInt8](repeating: 0xFF, count: BTreeNode.keyBytesMax + 1 - prefix.count)
        guard try probe.withUnsafeBytes({ try cursor.seekFloor($0) }) else { return nil }
        let k = try cursor.key()
        guard Self.hasPrefix(k, prefix) else { return nil }
        return (Array(k), Array(try cursor.value()))
    }

    static func hasPrefix(_ key: UnsafeRawBufferPointer, _ prefix: [UInt8]) -> Bool {
        guard key.count >= prefix.count else { return false }
        for i in prefix.indices where key[i] != prefix[i] { return false }
        return true
    }

    /// Names of every internal tree of this version.
    package func internalTreeNames() throws -> [String] { try internalTreeNames(catalogRoot: root.catalogRoot) }

    func internalTreeNames(catalogRoot: PageNumber) throws -> [String] {
        var names: [String] = []
        var cursor = BTreeCursor(root: catalogRoot, space: space)
        var more = try [UInt8(4)].withUnsafeBytes { try cursor.seek($0) }
        while more {
            let k = try cursor.key()
            guard k.first == 4 else { break }
            names.append(String(decoding: k.dropFirst(), as: UTF8.self))
            more = try cursor.next()
        }
        return names
    }
}

extension WriteTransaction {
    /// Stores `value` under `key` in an internal tree (replacing any value). Appends nothing to
    /// the transaction log. O(log n).
    package func putInternal(_ tree: String, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws {
        try checkOpen()
        guard let allocator else { throw AtollError(.invalidTransaction, "internal trees change only in write transactions") }
        var r = try internalTreeRoot(tree)
        try BTree.put(root: &r, key: key, value: value, allocator: allocator)
        internalRoots[tree] = r
        changedInternalTrees.insert(tree)
        noteMutation()
    }

    package func putInternal(_ tree: String, key: [UInt8], value: [UInt8]) throws {
        try key.withUnsafeBytes { k in try value.withUnsafeBytes { try putInternal(tree, key: k, value: $0) } }
    }

    /// Removes the entry under `key` from an internal tree. Returns whether it existed.
    @discardableResult
    package func deleteInternal(_ tree: String, key: UnsafeRawBufferPointer) throws -> Bool {
        try checkOpen()
        guard let allocator else { throw AtollError(.invalidTransaction, "internal trees change only in write transactions") }
        var r = try internalTreeRoot(tree)
        guard r != 0 else { return false }
        let found = try BTree.delete(root: &r, key: key, allocator: allocator)
        if found {
            internalRoots[tree] = r
            changedInternalTrees.insert(tree)
            noteMutation()
        }
        return found
    }

    @discardableResult
    package func deleteInternal(_ tree: String, key: [UInt8]) throws -> Bool {
        try key.withUnsafeBytes { try deleteInternal(tree, key: $0) }
    }

    /// Removes every entry of an internal tree, freeing its pages.
    package func dropInternalTree(_ tree: String) throws {
        try checkOpen()
        guard let allocator else { throw AtollError(.invalidTransaction, "internal trees change only in write transactions") }
        let r = try internalTreeRoot(tree)
        guard r != 0 else { return }
        try BTree.freeAll(root: r, allocator: allocator)
        internalRoots[tree] = 0
        changedInternalTrees.insert(tree)
        noteMutation()
    }

    /// Writes the roots of changed internal trees into the catalog (part of commit).
    func saveInternalTreeRoots(into catalog: inout PageNumber, allocator: PageAllocator) throws {
        for name in changedInternalTrees.sorted() {
            let key = Self.internalTreeCatalogKey(name)
            let r = internalRoots[name] ?? 0
            if r == 0 {
                _ = try key.withUnsafeBytes { try BTree.delete(root: &catalog, key: $0, allocator: allocator) }
            } else {
                var w = ByteWriter(capacity: 4)
                w.u32(r)
                try key.withUnsafeBytes { k in try w.bytes.withUnsafeBytes { try BTree.put(root: &catalog, key: k, value: $0, allocator: allocator) } }
            }
        }
    }
}
