import AtollStorage

/// One list property of one object as a replicated sequence (RGA, Roh et al. 2011, in its tree
/// form): every element ever inserted, in document order, with deleted elements kept as
/// tombstones so that inserts made concurrently after them still find their place (until no
/// changeset still to come can name them: `collectRemoved`).
///
/// Each element is a child of the element it was inserted after (`depth` = parent's depth + 1;
/// the head has depth 0), children are ordered by descending id, and the document order is the
/// pre-order of that tree. Because the order depends only on the set of (parent, id) pairs, every
/// node that has the same elements has the same order, whatever order they arrived in. A node
/// inserting takes a Lamport number above every number in the list, so its element lands right
/// after its parent, where the user put it.
///
/// The table's list is the projection of the visible elements (neither deleted nor hidden; an
/// element is hidden while it links to a deleted object, and comes back with the object).
///
/// Encoding:
///
///     varint max lamport, varint element count, per element in document order:
///         varint lamport, varint node index, varint depth,
///         u8 flags (1: deleted, 2: hidden, 4: value stamp = insert stamp,
///                   8: removal reading present; absent in records written before it was kept),
///         varint insert hlc, varint insert index (the insert stamp's node is the element's),
///         if deleted: [varint removal reading]
///         unless deleted: [value stamp], value (SyncValue tagged encoding)
struct ListRecord {
    struct Element {
        var id: ElementID
        var depth: UInt32
        /// The stamp of the insert (its node is the element's node).
        var insertStamp: Stamp
        var isDeleted = false
        var isHidden = false
        /// Of a removed element: the clock reading of the earliest removal known (of the element,
        /// or a delete of its holder); nil when not known (removed in a relay's snapshot, or in
        /// a record written before it was kept). Removed elements below the deletion point may
        /// be collected (`SyncWriter.collectRemovedElements`).
        var removedHLC: UInt64?
        var valueStamp: Stamp
        var value: SyncValue

        var isVisible: Bool { !isDeleted && !isHidden }

        /// Marks the element removed (its value goes) by a removal, or a delete of its holder,
        /// at clock reading `hlc` (nil: not known); the earliest known reading is kept.
        mutating func remove(at hlc: UInt64?) {
            if isDeleted {
                if let hlc, let known = removedHLC, hlc < known { removedHLC = hlc }
                return
            }
            isDeleted = true
            isHidden = false
            value = .null
            removedHLC = hlc
        }
    }

    var maxLamport: UInt64 = 0
    var elements: [Element] = []
    /// Element id -> document index, built on demand. Only the entries of the first
    /// `positionsValid` elements are sure to be right: an insert moves the elements after it,
    /// so it lowers the mark to its index, and a lookup that finds no sure entry indexes the
    /// elements from the mark on. Appending keeps the mark at the end, so a run of appends
    /// (the common edit) costs one entry each, not a rebuild each.
    private var positions: [ElementID: Int] = [:]
    private var positionsValid = 0

    /// Whether a removed element has a known removal reading (collection may drop it once the
    /// deletion point passes it).
    var hasRemovalsToCollect: Bool { elements.contains { $0.isDeleted && $0.removedHLC != nil } }

    var visibleCount: Int { elements.reduce(0) { $0 + ($1.isVisible ? 1 : 0) } }

    /// The document index of `id`, if the list has it.
    mutating func index(of id: ElementID) -> Int? {
        if elements.count <= 16 {
            return elements.firstIndex { $0.id == id }
        }
        if let p = positions[id], p < positionsValid { return p }
        guard positionsValid < elements.count else { return nil }
        positions.reserveCapacity(elements.count)
        for i in positionsValid..<elements.count { positions[elements[i].id] = i }
        positionsValid = elements.count
        return positions[id]
    }

    /// The document index of the `visible`-th visible element.
    func documentIndex(ofVisible visible: Int) -> Int? {
        var seen = 0
        for (i, e) in elements.enumerated() where e.isVisible {
            if seen == visible { return i }
            seen += 1
        }
        return nil
    }

    /// How many visible elements precede document index `i`.
    func visibleIndex(before i: Int) -> Int {
        var n = 0
        for j in 0..<i where elements[j].isVisible { n += 1 }
        return n
    }

    /// Where an element `id` inserted after `parent` (nil: the head) goes in document order.
    /// Throws when the parent is unknown (the changesets were delivered out of causal order).
    mutating func insertionPoint(after parent: ElementID?, id: ElementID) throws -> (index: Int, depth: UInt32) {
        var i = 0
        var parentDepth: UInt32 = 0
        if let parent {
            guard let p = index(of: parent) else {
                throw AtollError(.protocolViolation, "a list insert follows element \(parent), which this node does not have")
            }
            i = p + 1
            parentDepth = elements[p].depth
        }
        // Skip the parent's subtree down to the first child with a smaller id.
        while i < elements.count, elements[i].depth > parentDepth {
            if elements[i].depth == parentDepth + 1, elements[i].id < id { break }
            i += 1
        }
        return (i, parentDepth + 1)
    }

    /// Drops the removed elements `collectible` accepts (no changeset still to come names
    /// them) that are leaves of the tree, or links of a removed chain (`ListTree.collect`).
    /// What stays keeps its document order, and an insert still to come lands where it would
    /// have. Returns the ids of those that went.
    mutating func collectRemoved(where collectible: (Element) -> Bool) -> [ElementID] {
        let kept = ListTree.collect(elements.map { ListTree.Element(id: $0.id, depth: $0.depth, collectible: $0.isDeleted && collectible($0)) })
        guard kept.count < elements.count else { return [] }
        var dropped: [ElementID] = []
        dropped.reserveCapacity(elements.count - kept.count)
        var next = 0
        for k in kept {
            while next < k.index { dropped.append(elements[next].id); next += 1 }
            next = k.index + 1
        }
        while next < elements.count { dropped.append(elements[next].id); next += 1 }
        elements = kept.map { k in
            var e = elements[k.index]
            e.depth = k.depth
            return e
        }
        positions = [:]
        positionsValid = 0
        return dropped
    }

    /// What is wrong with the tree's shape, if anything: the first element is a child of the
    /// head, every element is at most one level deeper than the one before it, and children
    /// follow one another by descending id.
    func shapeProblem() -> String? {
        // `last[d]`: the previous child at depth d of the current ancestors.
        var last: [ElementID?] = [nil]
        for (i, e) in elements.enumerated() {
            let d = Int(e.depth)
            guard d >= 1, d <= last.count else { return "element \(i) is at depth \(d) after one at depth \(last.count - 1)" }
            if d < last.count {
                if let previous = last[d], previous <= e.id { return "element \(i) (\(e.id)) follows its sibling \(previous)" }
                last.removeSubrange((d + 1)...)
                last[d] = e.id
            } else {
                last.append(e.id)
            }
        }
        return nil
    }

    mutating func insert(_ e: Element, at i: Int) {
        elements.insert(e, at: i)
        maxLamport = max(maxLamport, e.id.lamport)
        if i == elements.count - 1, positionsValid == i {
            positions[e.id] = i
            positionsValid = elements.count
        } else {
            positionsValid = min(positionsValid, i) // the elements from i on moved
        }
    }

    func encode(_ nodes: inout NodeTable) -> [UInt8] {
        var w = ByteWriter(capacity: 8 + elements.count * 12)
        w.varint(maxLamport)
        w.varint(UInt64(elements.count))
        for e in elements {
            w.varint(e.id.lamport)
            w.varint(UInt64(nodes.index(of: e.id.node)))
            w.varint(UInt64(e.depth))
            let same = e.valueStamp == e.insertStamp
            let removal = e.isDeleted ? e.removedHLC : nil
            w.u8((e.isDeleted ? 1 : 0) | (e.isHidden ? 2 : 0) | (same ? 4 : 0) | (removal != nil ? 8 : 0))
            w.varint(e.insertStamp.hlc)
            w.varint(UInt64(e.insertStamp.index))
            if let removal { w.varint(removal) }
            if !e.isDeleted {
                if !same { w.stamp(e.valueStamp, &nodes) }
                e.value.encode(into: &w)
            }
        }
        return w.bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, _ nodes: NodeTable) throws -> ListRecord {
        var r = ByteReader(bytes, context: "sync list record")
        var l = ListRecord()
        l.maxLamport = try r.varint()
        let n = try r.length(max: r.remaining / 5)
        l.elements.reserveCapacity(n)
        for _ in 0..<n {
            let lamport = try r.varint()
            let node = try nodes.node(at: try r.length(max: Int(UInt32.max)))
            let depth = try r.length(max: Int(UInt32.max))
            let flags = try r.u8()
            let hlc = try r.varint()
            let inserted = Stamp(hlc: hlc, node: node, index: UInt32(try r.length(max: Int(UInt32.max))))
            let id = ElementID(lamport: lamport, node: node)
            var e = Element(id: id, depth: UInt32(depth), insertStamp: inserted, isDeleted: flags & 1 != 0, isHidden: flags & 2 != 0,
                            valueStamp: inserted, value: .null)
            if flags & 8 != 0 {
                guard e.isDeleted else { throw AtollError.corrupted("sync list record: a removal reading for an element not removed") }
                e.removedHLC = try r.varint()
            }
            if !e.isDeleted {
                if flags & 4 == 0 { e.valueStamp = try r.stamp(nodes) }
                e.value = try SyncValue.decode(from: &r)
            }
            l.elements.append(e)
        }
        return l
    }
}
