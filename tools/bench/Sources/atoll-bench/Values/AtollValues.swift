import Atoll
import Foundation

// The Atoll side of the `values` suite, through the object API: an indexed MutableSet of strings,
// an indexed Map of integers and an indexed Decimal128 per object (the set and map indexes are
// an Atoll addition: RealmSwift cannot index collections).

final class ValueItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var tags: MutableSet<String>
    @Persisted(indexed: true) var attributes: Map<String, Int>
    @Persisted(indexed: true) var price: Decimal128
}

struct AtollValues {
    let name = "atoll"

    static func configuration(_ path: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [ValueItem.self])
    }

    /// The prices as Decimal128, made before any timed part.
    static func prices(_ data: ValueData) throws -> [Decimal128] {
        try data.priceCents.map { try Decimal128(string: ValueData.priceText(cents: $0)) }
    }

    /// V1: a fresh file (untimed), then every object inserted in one write transaction (timed,
    /// commit included; full durability).
    func timedInsertAll(path: String, data: ValueData, prices: [Decimal128]) throws -> UInt64 {
        ScratchDirectory.removeDatabase(path)
        let realm = try Realm(configuration: Self.configuration(path))
        let watch = Stopwatch()
        try realm.write {
            for i in 0..<data.count {
                let item = ValueItem()
                item.id = Int(data.id(i))
                for j in 0..<ValueData.tagsPerObject { item.tags.insert(data.tag(i, j)) }
                for j in 0..<ValueData.attributesPerObject { item.attributes[ValueData.attributeKeys[j]] = Int(data.attribute(i, j)) }
                item.price = prices[i]
                realm.add(item)
            }
        }
        return watch.elapsedNanoseconds
    }

    func openReader(path: String) throws -> AtollValuesReader { try AtollValuesReader(configuration: Self.configuration(path)) }
}

/// The read workloads on one realm; each returns the sum of the match counts, which the suite
/// compares with SQLite's.
final class AtollValuesReader {
    private let realm: Realm

    init(configuration: Realm.Configuration) throws {
        realm = try Realm(configuration: configuration)
    }

    /// V2: `ANY tags == tag`, counted, for each probe.
    func countWithTag(_ tags: [String]) -> Int {
        let items = realm.objects(ValueItem.self)
        var total = 0
        for tag in tags { total += items.filter("ANY tags == %@", tag).count }
        return total
    }

    /// V3: `attributes[key] > threshold`, counted, for each probe.
    func countAttributeAbove(_ probes: [(key: String, threshold: Int64)]) -> Int {
        let items = realm.objects(ValueItem.self)
        var total = 0
        for p in probes { total += items.filter("attributes['\(p.key)'] > %@", Int(p.threshold)).count }
        return total
    }

    /// V4: `price BETWEEN {low, high}`, counted, for each probe.
    func countPriceBetween(_ ranges: [(low: Decimal128, high: Decimal128)]) -> Int {
        let items = realm.objects(ValueItem.self)
        var total = 0
        for r in ranges { total += items.filter("price BETWEEN {%@, %@}", r.low, r.high).count }
        return total
    }
}
