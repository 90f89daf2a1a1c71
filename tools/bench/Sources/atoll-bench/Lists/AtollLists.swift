import Atoll
import Foundation

// The Atoll side of the `lists` suite, through the object API: one object owning a List<Int>.

final class ListOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var values: List<Int>
}

struct AtollLists {
    static func configuration(_ path: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [ListOwner.self])
    }

    /// A fresh file with one owner whose list holds `elements` (untimed set-up: one list write).
    static func build(path: String, elements: [Int]) throws -> Realm {
        ScratchDirectory.removeDatabase(path)
        let realm = try Realm(configuration: configuration(path))
        try realm.write {
            let owner = ListOwner()
            owner.id = 1
            realm.add(owner)
            owner.values.append(objectsIn: elements)
        }
        return realm
    }

    static func owner(_ realm: Realm) throws -> ListOwner {
        guard let o = realm.object(ofType: ListOwner.self, forPrimaryKey: 1) else { throw BenchError("atoll: no list owner") }
        return o
    }

    /// L1: `list.append` once per element, in one write transaction (timed, commit included).
    func timedAppend(path: String, count: Int) throws -> UInt64 {
        let realm = try Self.build(path: path, elements: [])
        let list = try Self.owner(realm).values
        let watch = Stopwatch()
        try realm.write {
            for i in 0..<count { list.append(ListData.value(i)) }
        }
        let ns = watch.elapsedNanoseconds
        guard list.count == count else { throw BenchError("atoll L1: \(list.count) elements, expected \(count)") }
        return ns
    }

    /// L2: `list[i]` for each position; returns the sum of the elements read.
    func sumAt(_ realm: Realm, _ positions: [Int]) throws -> Int {
        let list = try Self.owner(realm).values
        var sum = 0
        for p in positions { sum &+= list[p] }
        return sum
    }

    /// L3: each insert its own write transaction (timed); the list's checksum after the last
    /// one through `checksum`.
    func timedInserts(path: String, data: ListData, positions: [Int], checksum: inout Int) throws -> UInt64 {
        let realm = try Self.build(path: path, elements: ListData.values(data.count))
        let list = try Self.owner(realm).values
        let watch = Stopwatch()
        for (k, p) in positions.enumerated() {
            try realm.write { list.insert(-k - 1, at: p) }
        }
        let ns = watch.elapsedNanoseconds
        checksum = ListData.checksum(list)
        return ns
    }

    /// L4: iterates the list, summing its elements.
    func sumAll(_ realm: Realm) throws -> Int {
        let list = try Self.owner(realm).values
        var sum = 0
        for e in list { sum &+= e }
        return sum
    }
}
