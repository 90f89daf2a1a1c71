// atoll-demo: Atoll's main job, run locally.
//
// Creates a database in a temporary directory, writes objects through the object API, runs live
// queries with notifications, and prints the engine's statistics.

import Atoll
import Foundation

final class Task: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var owner = ""
    @Persisted var title = ""
    @Persisted var priority = 0
    @Persisted var done = false
    @Persisted var created = Date()
}

@main
struct AtollDemo {
    static func main() {
        do {
            try run()
        } catch {
            FileHandle.standardError.write(Data("atoll-demo: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("atoll-demo-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = Realm.Configuration(fileURL: dir.appendingPathComponent("demo.atoll"), objectTypes: [Task.self])
        let realm = try Realm(configuration: config)
        print("Opened \(config.fileURL?.path ?? "?")")

        let urgent = realm.objects(Task.self).filter("done == false AND priority >= 3").sorted(byKeyPath: "priority", ascending: false)
        let token = urgent.observe { change in
            switch change {
            case .initial(let r): print("live query: \(r.count) urgent open tasks")
            case .update(let r, let d, let i, let m):
                func show(_ x: [Int]) -> String { x.count <= 6 ? "\(x)" : "\(x.count) rows" }
                print("live query: \(r.count) urgent open tasks (deleted \(show(d)), inserted \(show(i)), modified \(show(m)))")
            case .error(let e): print("live query error: \(e)")
            }
        }
        defer { token.invalidate() }

        let owners = ["ana", "bo", "chen", "dee"]
        try realm.write {
            for i in 0..<10_000 {
                realm.create(Task.self, value: ["id": i, "owner": owners[i % 4], "title": "task \(i)", "priority": i % 5])
            }
        }
        try realm.write {
            for t in realm.objects(Task.self).filter("owner == 'bo' AND priority == 4") { t.done = true }
        }
        try realm.write {
            realm.create(Task.self, value: ["id": 10_000, "owner": "ana", "title": "ship it", "priority": 5])
        }
        let avg: Double? = realm.objects(Task.self).average(ofProperty: "priority")
        print("tasks: \(realm.objects(Task.self).count), average priority \(String(format: "%.2f", avg ?? 0))")
        print("first urgent: \(urgent.first?.title ?? "none")")
        let db = try Database.open(DatabaseConfiguration(path: config.fileURL?.path ?? ""))
        print("--- statistics ---")
        print(try db.stats().description, terminator: "")
        print("verify: \(try db.verify())")
    }
}
