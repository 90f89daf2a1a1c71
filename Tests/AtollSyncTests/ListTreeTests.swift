import AtollStorage
@testable import AtollSync
import AtollTestSupport
import Testing

/// Collection of removed list elements (`ListTree.collect`, `ListRecord.collectRemoved`): what
/// goes, and that what stays keeps its order, its shape, and where later inserts land.
@Suite struct ListTreeTests {
    static let nodes = [NodeID(high: 1, low: 1), NodeID(high: 2, low: 2), NodeID(high: 3, low: 3)]

    /// A list built by inserts and removals the way nodes make them: every insert names a visible
    /// element (or the head) and takes a number above every number used so far.
    struct Model {
        var list = ListRecord()
        var counter: UInt64 = 0
        var freshNodes: UInt64 = 0

        /// Inserts after the `visible`-th visible element (nil: at the head); returns its id.
        @discardableResult
        mutating func insert(afterVisible visible: Int?, node: NodeID) throws -> ElementID {
            counter += 1
            let id = ElementID(lamport: counter, node: node)
            let parent = visible.flatMap { list.documentIndex(ofVisible: $0) }.map { list.elements[$0].id }
            try insert(id, after: parent)
            return id
        }

        mutating func insert(_ id: ElementID, after parent: ElementID?) throws {
            let (at, depth) = try list.insertionPoint(after: parent, id: id)
            let stamp = Stamp(hlc: id.lamport, node: id.node, index: 0)
            list.insert(ListRecord.Element(id: id, depth: depth, insertStamp: stamp, valueStamp: stamp, value: .value(.int(Int64(id.lamport)))), at: at)
        }

        mutating func remove(visible: Int) {
            guard let i = list.documentIndex(ofVisible: visible) else { return }
            list.elements[i].remove(at: counter)
        }

        var ids: [ElementID] { list.elements.map(\.id) }
        var visibleIDs: [ElementID] { list.elements.filter(\.isVisible).map(\.id) }
    }

    /// Each kept element's parent, from the depths (nil: the head).
    static func parents(_ l: ListRecord) throws -> [(ElementID, ElementID?)] {
        let parents = try #require(ListTree.parents(depths: l.elements.map(\.depth)))
        return zip(l.elements, parents).map { e, p in (e.id, p.map { l.elements[$0].id }) }
    }

    @Test func aQueueKeepsItsFirstRemovedElementWithTheLiveOnesHangingFromIt() throws {
        var m = Model()
        for i in 0..<8 { try m.insert(afterVisible: i == 0 ? nil : i - 1, node: Self.nodes[0]) }
        for _ in 0..<5 { m.remove(visible: 0) }
        let before = m.visibleIDs
        #expect(m.list.collectRemoved { _ in true }.count == 4)
        #expect(m.list.elements.count == 4)
        #expect(m.list.elements.map(\.depth) == [1, 2, 3, 4])
        #expect(m.list.elements[0].isDeleted && m.list.elements[0].id.lamport == 1)
        #expect(m.visibleIDs == before)
        #expect(m.list.shapeProblem() == nil)
        // The next round of the queue keeps the same first element.
        for i in 0..<3 { try m.insert(afterVisible: 2 + i, node: Self.nodes[1]) }
        for _ in 0..<4 { m.remove(visible: 0) }
        #expect(m.list.collectRemoved { _ in true }.count == 4)
        #expect(m.list.elements.count == 3 && m.list.elements[0].id.lamport == 1)
        // A queue that drains leaves nothing.
        for _ in 0..<2 { m.remove(visible: 0) }
        #expect(m.list.collectRemoved { _ in true }.count == 3)
        #expect(m.list.elements.isEmpty)
    }

    @Test func aRemovedRunKeepsItsFirstElementAndAnElementUnderAKeptOneStays() throws {
        // a <- b <- c <- d <- e, each after the one before; b, c and d removed.
        var m = Model()
        for i in 0..<5 { try m.insert(afterVisible: i == 0 ? nil : i - 1, node: Self.nodes[0]) }
        for _ in 0..<3 { m.remove(visible: 1) }
        #expect(m.list.collectRemoved { _ in true }.map(\.lamport) == [3, 4], "the ids that went, in document order")
        #expect(m.ids.map(\.lamport) == [1, 2, 5])
        #expect(m.list.elements.map(\.depth) == [1, 2, 3], "b stays under a (kept), e hangs from b")
        // What `collectible` refuses stays: d is not collectible, so c goes and d stays.
        var n = Model()
        for i in 0..<5 { try n.insert(afterVisible: i == 0 ? nil : i - 1, node: Self.nodes[0]) }
        for _ in 0..<3 { n.remove(visible: 1) }
        #expect(n.list.collectRemoved { $0.id.lamport != 4 }.count == 1)
        #expect(n.ids.map(\.lamport) == [1, 2, 4, 5])
        #expect(n.list.elements.map(\.depth) == [1, 2, 3, 4])
    }

    @Test func aLinkGoesOnlyWhenNoSiblingFallsBetweenItAndItsChildren() throws {
        // q (removed) has children s and y (removed); y has child c. The ids are chosen: y's
        // child c is numbered above s, so lifting c next to s would reorder them.
        func build(sibling: UInt64) throws -> ListRecord {
            var m = Model()
            let q = ElementID(lamport: 1, node: Self.nodes[0])
            let y = ElementID(lamport: 5, node: Self.nodes[0])
            let s = ElementID(lamport: sibling, node: Self.nodes[1])
            let c = ElementID(lamport: 7, node: Self.nodes[0])
            try m.insert(q, after: nil)
            try m.insert(y, after: q)
            try m.insert(s, after: q)
            try m.insert(c, after: y)
            for i in m.list.elements.indices where [q, y].contains(m.list.elements[i].id) { m.list.elements[i].remove(at: 1) }
            #expect(m.list.shapeProblem() == nil)
            return m.list
        }
        var between = try build(sibling: 6)
        #expect(between.collectRemoved { _ in true }.count == 0)
        var above = try build(sibling: 9)
        #expect(above.collectRemoved { _ in true }.count == 1)
        #expect(above.elements.map(\.id.lamport) == [1, 9, 7])
        #expect(above.elements.map(\.depth) == [1, 2, 2])
        #expect(above.shapeProblem() == nil)
    }

    /// Random lists: collecting keeps the document order and the tree's shape; a list rebuilt
    /// from what stays (each element sent with its parent, as a relay's snapshot does) has the
    /// same order; and later inserts and removals, made the way nodes make them, give the same
    /// list on a node that collects now and then as on one that never does. (What two nodes
    /// that collected at different times keep of the removed elements may differ; nothing
    /// visible does.)
    @Test func collectingChangesNothingALaterChangeCanSee() throws {
        for seed in 0..<UInt64(300) {
            var rng = SeededGenerator(seed: seed)
            var full = Model()
            for _ in 0..<Int.random(in: 1...80, using: &rng) { try Self.randomChange(&full, &rng) }
            var collected = full
            for _ in 0..<3 {
                let before = collected
                _ = collected.list.collectRemoved { _ in true }
                #expect(collected.list.shapeProblem() == nil, "seed \(seed)")
                #expect(collected.visibleIDs == full.visibleIDs, "seed \(seed)")
                let kept = Set(collected.ids)
                #expect(before.ids.filter(kept.contains) == collected.ids, "seed \(seed)")

                var rebuilt = Model()
                for (id, parent) in try Self.parents(collected.list).sorted(by: { $0.0 < $1.0 }) { try rebuilt.insert(id, after: parent) }
                #expect(rebuilt.ids == collected.ids, "seed \(seed)")

                for _ in 0..<Int.random(in: 1...40, using: &rng) {
                    var copy = rng
                    try Self.randomChange(&full, &rng)
                    try Self.randomChange(&collected, &copy)
                }
                #expect(collected.visibleIDs == full.visibleIDs, "seed \(seed)")
            }
        }
    }

    /// An insert after a random visible element or the head (more often after the last, as an
    /// append), or a removal (more often of the first, as a queue); now and then an insert at
    /// the head by a node that had merged nothing of the others (numbered from its own counter,
    /// so below numbers the others use).
    static func randomChange(_ m: inout Model, _ rng: inout SeededGenerator) throws {
        let visible = m.visibleIDs.count
        let node = rng.pick(nodes)!
        if rng.chance(5) {
            m.freshNodes += 1
            try m.insert(ElementID(lamport: UInt64.random(in: 1...max(1, m.counter), using: &rng), node: NodeID(high: 0xF0, low: m.freshNodes)), after: nil)
        } else if visible > 0, rng.chance(45) {
            m.remove(visible: rng.chance(50) ? 0 : Int.random(in: 0..<visible, using: &rng))
        } else if visible > 0, rng.chance(60) {
            try m.insert(afterVisible: visible - 1, node: node)
        } else {
            try m.insert(afterVisible: visible == 0 || rng.chance(20) ? nil : Int.random(in: 0..<visible, using: &rng), node: node)
        }
    }
}
