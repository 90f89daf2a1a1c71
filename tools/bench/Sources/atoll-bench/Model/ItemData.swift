/// The benchmark model, the same for every engine and suite: `Item` with an int primary key
/// `id`, an indexed `name` of 12 characters drawn from a pool of 10,000 names, `age` in 0..<100,
/// a double `score` and a bool `active`.
///
/// Values are generated up front from a fixed seed, so generating them costs nothing inside a
/// timed interval and every engine stores exactly the same objects.
struct ItemData: Sendable {
    static let namePoolCount = 10_000

    /// The name pool: "Oliver-00042" (a six-letter stem, a dash, the pool index).
    static let namePool: [String] = {
        let stems = ["Oliver", "Amelia", "George", "Isabel", "Harvey", "Sophia", "Arthur", "Evelyn", "Joshua", "Imogen",
                     "Reuben", "Elodie", "Tobias", "Maisie", "Callum", "Hannah", "Ingrid", "Aurora",
                     "Jasper", "Violet"]
        return (0..<namePoolCount).map { i in
            let digits = String(i)
            return stems[i % stems.count] + "-" + String(repeating: "0", count: 5 - digits.count) + digits
        }
    }()

    let count: Int
    /// Index into `namePool` of each object's name.
    let nameIndexes: [Int32]
    let ages: [Int64]
    let scores: [Double]
    let actives: [Bool]

    /// Objects have ids 0..<count.
    init(count: Int, seed: UInt64 = 0xA7011) {
        self.count = count
        var rng = SplitMix64(seed: seed)
        var names = [Int32](), ages = [Int64](), scores = [Double](), actives = [Bool]()
        names.reserveCapacity(count); ages.reserveCapacity(count); scores.reserveCapacity(count); actives.reserveCapacity(count)
        for _ in 0..<count {
            names.append(Int32(rng.next() % UInt64(Self.namePoolCount)))
            ages.append(Int64(rng.next() % 100))
            scores.append(rng.nextUnitDouble() * 1000)
            actives.append(rng.next() & 1 == 1)
        }
        nameIndexes = names; self.ages = ages; self.scores = scores; self.actives = actives
    }

    @inline(__always) func id(_ i: Int) -> Int64 { Int64(i) }
    @inline(__always) func name(_ i: Int) -> String { Self.namePool[Int(nameIndexes[i])] }

    /// `count` ids drawn uniformly from the stored objects (with repeats), for lookups.
    func randomIds(_ count: Int, seed: UInt64) -> [Int64] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in Int64(rng.next() % UInt64(self.count)) }
    }

    /// `count` distinct ids in random order (count ≤ self.count), for updates.
    func distinctRandomIds(_ count: Int, seed: UInt64) -> [Int64] {
        var rng = SplitMix64(seed: seed)
        var all = (0..<Int64(self.count)).map { $0 }
        // Partial Fisher-Yates: the first `count` slots become a uniform sample.
        for i in 0..<min(count, all.count) {
            let j = i + Int(rng.next() % UInt64(all.count - i))
            all.swapAt(i, j)
        }
        return Array(all.prefix(count))
    }

    /// `count` names drawn from the pool, for index lookups.
    func randomNames(_ count: Int, seed: UInt64) -> [String] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in Self.namePool[Int(rng.next() % UInt64(Self.namePoolCount))] }
    }

    /// `count` new scores, for updates.
    func randomScores(_ count: Int, seed: UInt64) -> [Double] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in rng.nextUnitDouble() * 1000 }
    }
}

/// A small, fast, seedable generator (Steele, Lea and Flood's SplitMix64), so runs are repeatable.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double in [0, 1) with 53 random bits.
    mutating func nextUnitDouble() -> Double { Double(next() >> 11) * 0x1p-53 }
}
