/// A position in a B+tree of one snapshot, for ordered scans. Keys and values are read in place
/// from the map and stay valid as long as the snapshot does.
///
/// ```swift
/// var cursor = BTreeCursor(root: root, space: space)
/// var more = try cursor.seek(prefix)
/// while more, try cursor.key().starts(with: prefix) { ...; more = try cursor.next() }
/// ```
struct BTreeCursor {
    let root: PageNumber
    let space: PageSpace
    private var stack: [(page: UnsafeRawPointer, index: Int)] = []

    init(root: PageNumber, space: PageSpace) {
        self.root = root
        self.space = space
    }

    var isValid: Bool {
        guard let top = stack.last else { return false }
        return top.index < BTreeNode.count(top.page)
    }

    private func node(_ n: PageNumber) throws -> UnsafeRawPointer {
        let p = try space.page(n)
        let t = p.u8(PageHeader.typeOffset)
        guard t == PageType.btreeLeaf.rawValue || t == PageType.btreeInner.rawValue else {
            throw AtollError.corrupted("page \(n) should be a B+tree node but has type \(t)")
        }
        return p
    }

    private mutating func descendLeftmost(from n: PageNumber) throws {
        var p = try node(n)
        while !BTreeNode.isLeaf(p) {
            guard stack.count < BTree.depthMax else { throw AtollError.corrupted("B+tree deeper than \(BTree.depthMax)") }
            stack.append((p, 0))
            p = try node(try BTreeNode.child(p, 0))
        }
        stack.append((p, 0))
    }

    /// Moves to the first entry. Returns false for an empty tree.
    mutating func first() throws -> Bool {
        stack.removeAll(keepingCapacity: true)
        guard root != 0 else { return false }
        try descendLeftmost(from: root)
        return try settle()
    }

    /// Moves to the first entry with a key >= `key`.
    mutating func seek(_ key: UnsafeRawBufferPointer) throws -> Bool {
        stack.removeAll(keepingCapacity: true)
        guard root != 0 else { return false }
        var p = try node(root)
        while !BTreeNode.isLeaf(p) {
            guard stack.count < BTree.depthMax else { throw AtollError.corrupted("B+tree deeper than \(BTree.depthMax)") }
            let idx = try BTreeNode.childIndex(p, key)
            stack.append((p, idx))
            p = try node(try BTreeNode.child(p, idx))
        }
        let (i, _) = try BTreeNode.lowerBound(p, key)
        stack.append((p, i))
        return try settle()
    }

    /// Moves to the first entry with a key > `key`.
    mutating func seek(after key: UnsafeRawBufferPointer) throws -> Bool {
        guard try seek(key) else { return false }
        if BTreeNode.compare(try self.key(), key) == 0 { return try next() }
        return true
    }

    /// Moves to the next entry. Returns false past the end.
    mutating func next() throws -> Bool {
        guard var top = stack.popLast() else { return false }
        top.index += 1
        stack.append(top)
        return try settle()
    }

    /// Moves to the entry with the greatest key <= `key`. Returns false when there is none.
    mutating func seekFloor(_ key: UnsafeRawBufferPointer) throws -> Bool {
        stack.removeAll(keepingCapacity: true)
        guard root != 0 else { return false }
        var p = try node(root)
        while !BTreeNode.isLeaf(p) {
            guard stack.count < BTree.depthMax else { throw AtollError.corrupted("B+tree deeper than \(BTree.depthMax)") }
            let idx = try BTreeNode.childIndex(p, key)
            stack.append((p, idx))
            p = try node(try BTreeNode.child(p, idx))
        }
        let (i, exact) = try BTreeNode.lowerBound(p, key)
        stack.append((p, exact ? i : i - 1))
        if exact { return true }
        return try settleBackward()
    }

    /// Moves to the previous entry. Returns false before the start.
    mutating func previous() throws -> Bool {
        guard var top = stack.popLast() else { return false }
        top.index -= 1
        stack.append(top)
        return try settleBackward()
    }

    /// If the leaf position is before its first entry, climbs to the previous subtree's last entry.
    private mutating func settleBackward() throws -> Bool {
        while let top = stack.last, top.index < 0 {
            stack.removeLast()
            var found = false
            while var parent = stack.popLast() {
                if parent.index > 0 {
                    parent.index -= 1
                    stack.append(parent)
                    var p = try node(try BTreeNode.child(parent.page, parent.index))
                    while !BTreeNode.isLeaf(p) {
                        guard stack.count < BTree.depthMax else { throw AtollError.corrupted("B+tree deeper than \(BTree.depthMax)") }
                        let last = BTreeNode.count(p)
                        stack.append((p, last))
                        p = try node(try BTreeNode.child(p, last))
                    }
                    stack.append((p, BTreeNode.count(p) - 1))
                    found = true
                    break
                }
            }
            if !found { stack.removeAll(); return false }
        }
        return !stack.isEmpty
    }

    /// If the leaf position is past its last entry, climbs to the next subtree.
    private mutating func settle() throws -> Bool {
        while let top = stack.last, top.index >= BTreeNode.count(top.page) {
            stack.removeLast()
            // Climb until an inner node has a next child.
            while var parent = stack.popLast() {
                if parent.index < BTreeNode.count(parent.page) {
                    parent.index += 1
                    stack.append(parent)
                    try descendLeftmost(from: try BTreeNode.child(parent.page, parent.index))
                    break
                }
            }
            if stack.isEmpty { return false }
        }
        return !stack.isEmpty
    }

    func key() throws -> UnsafeRawBufferPointer {
        guard let top = stack.last else { throw AtollError(.invalidArgument, "cursor is not on an entry") }
        return try BTreeNode.key(top.page, top.index)
    }

    func value() throws -> UnsafeRawBufferPointer {
        guard let top = stack.last else { throw AtollError(.invalidArgument, "cursor is not on an entry") }
        return try BTree.resolve(BTreeNode.value(top.page, top.index), space: space)
    }
}
