/// The inputs of the `lists` suite, made before any timed part: the element values and the
/// random positions, from fixed seeds so that both engines and every run see the same ones.
struct ListData {
    /// Elements appended by L1 and read by L2; also the length of L3's list.
    let count: Int
    /// Elements of the list L4 iterates.
    let iterateCount: Int
    /// Inserts of L3.
    let insertCount: Int

    init(count: Int, iterateCount: Int, insertCount: Int) {
        self.count = count
        self.iterateCount = iterateCount
        self.insertCount = insertCount
    }

    /// The element at position `i` of a freshly built list (a cheap scrambled value, so sums
    /// catch an element read from the wrong position).
    static func value(_ i: Int) -> Int { Int(truncatingIfNeeded: (UInt64(i) &* 0x9E37_79B9_7F4A_7C15) >> 34) }

    /// The elements of a list of `n`.
    static func values(_ n: Int) -> [Int] { (0..<n).map(value) }

    /// `n` positions in `0..<bound`.
    static func randomPositions(_ n: Int, below bound: Int, seed: UInt64) -> [Int] {
        var rng = SplitMix64(seed: seed)
        return (0..<n).map { _ in Int(rng.next() % UInt64(bound)) }
    }

    /// L3's inserts: the k-th goes to a random position of the list as it is then (100k + k
    /// elements), with value -k-1.
    func insertPositions(seed: UInt64) -> [Int] {
        var rng = SplitMix64(seed: seed)
        return (0..<insertCount).map { k in Int(rng.next() % UInt64(count + k + 1)) }
    }

    /// A checksum of a whole list that depends on every element and its position.
    static func checksum<S: Sequence<Int>>(_ elements: S) -> Int {
        var sum = 0
        for (i, e) in elements.enumerated() { sum = sum &* 31 &+ e &* (i + 1) }
        return sum
    }
}
