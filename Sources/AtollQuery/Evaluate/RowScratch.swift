/// Row-number buffers for evaluating one predicate leaf by leaf: the rows of a whole leaf, the
/// output, and per nesting level two row lists and one mark per row. Allocated on first use,
/// grown when a leaf is larger, and reused for every leaf, so a scan allocates per query, not
/// per leaf or row. Owned by one evaluation on one thread.
final class RowScratch {
    private var identity = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    private var out = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    private var levels: [UnsafeMutableBufferPointer<Int>] = []
    private var markLevels: [UnsafeMutableBufferPointer<Bool>] = []

    init() {}

    deinit {
        identity.deallocate()
        out.deallocate()
        for b in levels { b.deallocate() }
        for m in markLevels { m.deallocate() }
    }

    private static func ensure(_ buffer: inout UnsafeMutableBufferPointer<Int>, _ capacity: Int) {
        guard buffer.count < capacity else { return }
        buffer.deallocate()
        buffer = .allocate(capacity: max(capacity, 1024))
    }

    /// 0, 1, …, count-1.
    func allRows(_ count: Int) -> UnsafeBufferPointer<Int> {
        if identity.count < count {
            Self.ensure(&identity, count)
            var i = 0
            while i < identity.count { identity[i] = i; i += 1 }
        }
        return UnsafeBufferPointer(rebasing: identity[0..<count])
    }

    /// The buffer a whole leaf's result goes to.
    func output(_ capacity: Int) -> UnsafeMutableBufferPointer<Int> {
        Self.ensure(&out, capacity)
        return out
    }

    /// Row list `slot` (0 or 1) of nesting level `depth`.
    func rows(depth: Int, slot: Int, capacity: Int) -> UnsafeMutableBufferPointer<Int> {
        let index = 2 * depth + slot
        while levels.count <= index { levels.append(UnsafeMutableBufferPointer(start: nil, count: 0)) }
        Self.ensure(&levels[index], capacity)
        return levels[index]
    }

    /// One flag per row of the leaf for level `depth`, all false (users reset what they set).
    func marks(depth: Int, capacity: Int) -> UnsafeMutableBufferPointer<Bool> {
        while markLevels.count <= depth { markLevels.append(UnsafeMutableBufferPointer(start: nil, count: 0)) }
        if markLevels[depth].count < capacity {
            markLevels[depth].deallocate()
            markLevels[depth] = .allocate(capacity: max(capacity, 1024))
            markLevels[depth].initialize(repeating: false)
        }
        return markLevels[depth]
    }
}
