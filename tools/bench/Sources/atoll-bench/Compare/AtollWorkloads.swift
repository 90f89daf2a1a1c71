import Atoll
import Foundation

// The Atoll side of the compare suite, written the way an application uses Atoll: the object
// API (`Realm`, `Object`, `Results`, the query language). The storage suite measures the engine
// beneath it (AtollItemStore).

final class Item: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var name = ""
    @Persisted var age = 0
    @Persisted var score = 0.0
    @Persisted var active = false
}

enum AtollObjects {
    /// `encryptionKey`: the encrypted variant (the `encryption` suite); nil everywhere else.
    static func configuration(_ path: String, syncWrites: Bool = true, encryptionKey: Data? = nil) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), encryptionKey: encryptionKey, objectTypes: [Item.self], syncWrites: syncWrites)
    }

    static func fill(_ realm: Realm, _ data: ItemData, _ range: Range<Int>) {
        for i in range {
            let item = Item()
            item.id = Int(data.id(i))
            item.name = data.name(i)
            item.age = Int(data.ages[i])
            item.score = data.scores[i]
            item.active = data.actives[i]
            realm.add(item)
        }
    }

    /// Cold open in a fresh process: open, find one object, read two fields.
    static func timedOpenAndRead(path: String, id: Int64) throws -> UInt64 {
        let watch = Stopwatch()
        let realm = try Realm(configuration: configuration(path))
        guard let item = realm.object(ofType: Item.self, forPrimaryKey: Int(id)) else { throw BenchError("atoll: object \(id) is missing") }
        let check = item.name.utf8.count + item.age
        let ns = watch.elapsedNanoseconds
        if check < 0 { print(check) }
        return ns
    }
}

extension AtollObjects {
    /// W11's observer child: watches every object through `Results.observe(on:)` and reports
    /// each update until it has seen `count` objects.
    static func observeCommits(path: String, until count: Int) throws {
        let realm = try Realm(configuration: configuration(path))
        let queue = DispatchQueue(label: "atoll-bench.w11")
        let done = DispatchSemaphore(value: 0)
        let token = realm.objects(Item.self).observe(on: queue) { change in
            switch change {
            case .initial: LiveNotifications.say("ready")
            case .update(let results, _, _, _):
                let n = results.count
                LiveNotifications.report(objects: n)
                if n >= count { done.signal() }
            case .error(let error):
                writeStandardError("atoll observer: \(error)\n")
                done.signal()
            }
        }
        done.wait()
        token.invalidate()
        withExtendedLifetime(realm) {}
    }
}

struct AtollWorkloads: CompareEngine {
    let name = "atoll"
    let fileExtension = "atoll"
    /// Set by the `encryption` suite only: every file is then encrypted with this key.
    var encryptionKey: Data?

    private func configuration(_ path: String) -> Realm.Configuration {
        AtollObjects.configuration(path, encryptionKey: encryptionKey)
    }

    private func freshRealm(_ path: String) throws -> Realm {
        ScratchDirectory.removeDatabase(path)
        return try Realm(configuration: configuration(path))
    }

    func timedInsertAll(path: String, data: ItemData) throws -> UInt64 {
        let realm = try freshRealm(path)
        let watch = Stopwatch()
        try realm.write { AtollObjects.fill(realm, data, 0..<data.count) }
        return watch.elapsedNanoseconds
    }

    func timedSingleObjectCommits(path: String, data: ItemData, count: Int) throws -> UInt64 {
        let realm = try freshRealm(path)
        let watch = Stopwatch()
        for i in 0..<count { try realm.write { AtollObjects.fill(realm, data, i..<(i + 1)) } }
        return watch.elapsedNanoseconds
    }

    func liveNotificationLatencies(path: String, data: ItemData, count: Int) throws -> [UInt64] {
        // The observer child opens the file without a key.
        guard encryptionKey == nil else { throw BenchError("W11 runs on unencrypted files only") }
        let realm = try freshRealm(path)
        return try LiveNotifications.latencies(engine: name, path: path, count: count) { i in
            try realm.write { AtollObjects.fill(realm, data, i..<(i + 1)) }
        }
    }

    func timedUpdateScores(path: String, ids: [Int64], scores: [Double]) throws -> UInt64 {
        let realm = try Realm(configuration: configuration(path))
        let watch = Stopwatch()
        try realm.write {
            for (id, score) in zip(ids, scores) {
                realm.object(ofType: Item.self, forPrimaryKey: Int(id))?.score = score
            }
        }
        return watch.elapsedNanoseconds
    }

    func timedDeleteAll(path: String) throws -> UInt64 {
        let realm = try Realm(configuration: configuration(path))
        let watch = Stopwatch()
        try realm.write { realm.deleteAll() }
        return watch.elapsedNanoseconds
    }

    func build(path: String, data: ItemData) throws {
        try AtollItemStore.build(path: path, data: data)
    }

    func fileBytes(path: String) -> Int { ScratchDirectory.fileBytes(path) }

    func objectCount(path: String) throws -> Int {
        try Realm(configuration: configuration(path)).objects(Item.self).count
    }

    func openReader(path: String) throws -> any CompareReader { try AtollReader(configuration: configuration(path)) }
}

/// The read workloads on one realm (one version, as each SQLite call is one `read`).
final class AtollReader: CompareReader {
    private var realm: Realm?

    init(configuration: Realm.Configuration) throws {
        realm = try Realm(configuration: configuration)
    }

    private func open() throws -> Realm {
        guard let realm else { throw BenchError("atoll: the reader is closed") }
        return realm
    }

    func lookups(_ ids: [Int64]) throws -> Int {
        let realm = try open()
        var check = 0
        for id in ids {
            guard let item = realm.object(ofType: Item.self, forPrimaryKey: Int(id)) else { continue }
            check &+= item.name.utf8.count
            check &+= item.age
        }
        return check
    }

    func countOlderThan40Active() throws -> Int {
        try open().objects(Item.self).filter("age > 40 AND active == true").count
    }

    func namesSortedByAge(_ names: [String]) throws -> Int {
        let items = try open().objects(Item.self)
        var hash = 0
        for name in names {
            for item in items.filter("name == %@", name).sorted(byKeyPath: "age") { mixIntoHash(&hash, Int64(item.id)) }
        }
        return hash
    }

    func countOlderThan40ActiveTypeSafe() throws -> Int {
        try open().objects(Item.self).where { $0.age > 40 && $0.active == true }.count
    }

    func namesSortedByAgeTypeSafe(_ names: [String]) throws -> Int {
        let items = try open().objects(Item.self)
        var hash = 0
        for name in names {
            for item in items.where({ $0.name == name }).sorted(by: \.age) { mixIntoHash(&hash, Int64(item.id)) }
        }
        return hash
    }

    func enumerateSumOfScores() throws -> Double {
        var sum = 0.0
        for item in try open().objects(Item.self) { sum += item.score }
        return sum
    }

    func aggregateSumOfScores() throws -> Double {
        try open().objects(Item.self).sum(ofProperty: "score")
    }

    func close() { realm = nil }
}
