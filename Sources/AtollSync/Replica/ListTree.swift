/// Collection of removed elements from a replicated list's tree (`ListRecord`'s RGA), shared by
/// a node's list records and a relay's compacted history (`RelayBase`), which keep the same tree
/// in two shapes (document order with depths; parent pointers).
///
/// An element is *collectible* when it is removed and no changeset still to come can name it
/// (its earliest removal is below the deletion point: docs/SYNC.md, "The deletion point"). Two
/// rules drop collectible elements, and neither changes the document order of what stays, nor
/// where an insert still to come lands:
///
/// - **Leaves** go (no element kept follows them), children before parents: a leaf places
///   nothing, and an insert still to come names a kept element as its parent.
/// - **Links of a removed chain** go: an element `y` whose parent `q` is collectible too, and
///   that has children, is replaced by them (they become `q`'s children, in `y`'s place, one
///   level up with everything under them), when no other child of `q` has an id between `y`'s
///   and its children's (so `q`'s children stay in descending order, and a snapshot that sends
///   them with their new parent builds the same order). Nothing still to come names `q` (or
///   `y`), so nothing lands among `q`'s children and their order is all that must hold; an
///   insert naming an element under them or elsewhere skips the same kept elements as before.
///   A collectible element whose parent is the head or a kept element stays: an insert still to
///   come may name that parent, and could then land on the other side of the lifted children
///   (one made by a node that had merged nothing of the others, numbered from its own counter).
///
/// So a list used as a queue (appended at the end, removed at the front, each element following
/// the one before) keeps one removed element, the first, with the live ones hanging from it, and
/// a run of removed elements between live ones keeps only the run's first element.
enum ListTree {
    struct Element {
        var id: ElementID
        /// 1 for a child of the head.
        var depth: UInt32
        var collectible: Bool
    }

    /// The parent of each element of a tree in document order given by its depths: the index
    /// of the last element before it one level up (nil: the head). Nil for an element deeper
    /// than one level below the one before it (no such tree).
    static func parents(depths: [UInt32]) -> [Int?]? {
        var above: [Int] = []
        var parents: [Int?] = []
        parents.reserveCapacity(depths.count)
        for (i, depth) in depths.enumerated() {
            guard depth >= 1, Int(depth) - 1 <= above.count else { return nil }
            above.removeSubrange((Int(depth) - 1)...)
            parents.append(above.last)
            above.append(i)
        }
        return parents
    }

    /// What stays of `elements` (in document order): the indexes of the elements kept, in
    /// document order, each with its new depth.
    static func collect(_ elements: [Element]) -> [(index: Int, depth: UInt32)] {
        // Leaves, backward: `nextDepth` is the depth of the element kept right after (0: none),
        // which is deeper than this one exactly when it is this one's child.
        var dropped = [Bool](repeating: false, count: elements.count)
        var nextDepth: UInt32 = 0
        for i in elements.indices.reversed() {
            let e = elements[i]
            if e.collectible, nextDepth <= e.depth {
                dropped[i] = true
            } else {
                nextDepth = e.depth
            }
        }
        // Chains, forward. `path` holds the ancestors (in the tree left by the leaves) of the
        // element at hand: its depth there, its new depth, and whether the element its children
        // now hang from is collectible. `previous[d]` is the last element kept at new depth d
        // under the current ancestors (the previous sibling of the next one kept there).
        struct Ancestor { var depth: UInt32, newDepth: UInt32, collapsed: Bool, anchorCollectible: Bool }
        var path: [Ancestor] = []
        var previous: [ElementID?] = [nil]
        var kept: [(index: Int, depth: UInt32)] = []
        kept.reserveCapacity(elements.count)
        var next = 0
        for i in elements.indices where !dropped[i] {
            let e = elements[i]
            while let top = path.last, top.depth >= e.depth { path.removeLast() }
            let parent = path.last
            let depth = parent.map { $0.collapsed ? $0.newDepth : $0.newDepth + 1 } ?? 1
            // Its first child, if it has one: the next element kept by the leaves, if deeper.
            next = max(next, i + 1)
            while next < elements.count, dropped[next] { next += 1 }
            let firstChild = next < elements.count && elements[next].depth > e.depth ? elements[next].id : nil
            let sibling = Int(depth) < previous.count ? previous[Int(depth)] : nil
            if e.collectible, let firstChild, parent?.anchorCollectible ?? false, sibling.map({ $0 > firstChild }) ?? true {
                path.append(Ancestor(depth: e.depth, newDepth: depth, collapsed: true, anchorCollectible: true))
                continue
            }
            kept.append((i, depth))
            if previous.count > Int(depth) { previous.removeSubrange((Int(depth) + 1)...) } else {
                previous.append(contentsOf: [ElementID?](repeating: nil, count: Int(depth) + 1 - previous.count))
            }
            previous[Int(depth)] = e.id
            path.append(Ancestor(depth: e.depth, newDepth: depth, collapsed: false, anchorCollectible: e.collectible))
        }
        return kept
    }
}
