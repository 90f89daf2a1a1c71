/// The objects of the `values` suite, generated once per run from a fixed seed: each has an id,
/// a set of `tagsPerObject` distinct tags drawn from a pool of `tagPoolCount` strings, a map of
/// `attributesPerObject` entries ("k0" ... "k9" to integers 0..<`attributeValueMax`), and a
/// price in cents (0 ..< 1,000,000.00), stored as Decimal128 by Atoll.
struct ValueData: Sendable {
    static let tagsPerObject = 10
    static let tagPoolCount = 1_000
    static let attributesPerObject = 10
    static let attributeValueMax: Int64 = 1_000
    static let priceCentsMax: Int64 = 100_000_000

    /// "tag-000" ... "tag-999".
    static let tagPool: [String] = (0..<tagPoolCount).map { i in
        let digits = String(i)
        return "tag-" + String(repeating: "0", count: 3 - digits.count) + digits
    }
    static let attributeKeys: [String] = (0..<attributesPerObject).map { "k\($0)" }

    let count: Int
    /// `tagsPerObject` pool indexes per object, flattened.
    let tagIndexes: [Int32]
    /// `attributesPerObject` values per object, flattened.
    let attributeValues: [Int64]
    let priceCents: [Int64]

    init(count: Int, seed: UInt64 = 20261127) {
        self.count = count
        var rng = SplitMix64(seed: seed)
        var tags = [Int32](), values = [Int64](), prices = [Int64]()
        tags.reserveCapacity(count * Self.tagsPerObject)
        values.reserveCapacity(count * Self.attributesPerObject)
        prices.reserveCapacity(count)
        var chosen = Set<Int32>()
        for _ in 0..<count {
            chosen.removeAll(keepingCapacity: true)
            while chosen.count < Self.tagsPerObject {
                let t = Int32(rng.next() % UInt64(Self.tagPoolCount))
                if chosen.insert(t).inserted { tags.append(t) }
            }
            for _ in 0..<Self.attributesPerObject { values.append(Int64(rng.next() % UInt64(Self.attributeValueMax))) }
            prices.append(Int64(rng.next() % UInt64(Self.priceCentsMax)))
        }
        tagIndexes = tags
        attributeValues = values
        priceCents = prices
    }

    @inline(__always) func id(_ i: Int) -> Int64 { Int64(i) }
    @inline(__always) func tag(_ i: Int, _ j: Int) -> String { Self.tagPool[Int(tagIndexes[i * Self.tagsPerObject + j])] }
    @inline(__always) func attribute(_ i: Int, _ j: Int) -> Int64 { attributeValues[i * Self.attributesPerObject + j] }

    /// A price as decimal text: "1234.56".
    static func priceText(cents: Int64) -> String {
        let fraction = String(cents % 100)
        return String(cents / 100) + "." + (fraction.count == 1 ? "0" : "") + fraction
    }

    /// A price as fixed-width text ("0001234.56"), whose text order is its numeric order: the
    /// SQLite side's column, so that an index and BETWEEN work on it.
    static func sortablePriceText(cents: Int64) -> String {
        let text = priceText(cents: cents)
        return String(repeating: "0", count: max(0, 10 - text.count)) + text
    }

    /// The V2 probes: `count` tags of the pool.
    func probeTags(_ count: Int, seed: UInt64) -> [String] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in Self.tagPool[Int(rng.next() % UInt64(Self.tagPoolCount))] }
    }

    /// The V3 probes: (key, threshold) pairs; each matches about 2% of the objects.
    func probeAttributes(_ count: Int, seed: UInt64) -> [(key: String, threshold: Int64)] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            (Self.attributeKeys[Int(rng.next() % UInt64(Self.attributesPerObject))],
             Self.attributeValueMax - 21 - Int64(rng.next() % 3))
        }
    }

    /// The V4 probes: [low, high] price ranges in cents, each about 1% of the price range.
    func probePriceRanges(_ count: Int, seed: UInt64) -> [(low: Int64, high: Int64)] {
        var rng = SplitMix64(seed: seed)
        let width = Self.priceCentsMax / 100
        return (0..<count).map { _ in
            let low = Int64(rng.next() % UInt64(Self.priceCentsMax - width))
            return (low, low + width)
        }
    }
}
