#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import AtollStorage
import AtollTestSupport

/// A seeded run of varied commits on one file, with the expected contents of every version that
/// returned, checked against crash images of a SimulatedDisk.
///
/// Commits insert, update and delete objects (names indexed, lists, payloads that are inline or
/// blobs), grow the file by megabytes and delete most of it again (tail relocation and
/// truncation), create and remove a table, change metadata, keep readers pinned across commits
/// (free-list churn), retain and trim history, and now and then close and compact the file
/// (a copy renamed over it).
final class PowerLossWorkload {
    struct Item: Equatable, CustomStringConvertible {
        var name: String
        var n: Int64
        var payload: [UInt8]?
        var tags: [String]
        var description: String { "(\(name), \(n), payload \(payload.map { "\($0.count) bytes" } ?? "nil"), tags \(tags))" }

        /// Payloads compared with memcmp: element-wise comparison of megabytes is slow in debug builds.
        static func == (a: Item, b: Item) -> Bool {
            guard a.name == b.name, a.n == b.n, a.tags == b.tags else { return false }
            switch (a.payload, b.payload) {
            case (nil, nil): return true
            case (let x?, let y?):
                return x.count == y.count && x.withUnsafeBytes { p in y.withUnsafeBytes { q in p.count == 0 || memcmp(p.baseAddress!, q.baseAddress!, p.count) == 0 } }
            default: return false
            }
        }
    }

    /// Everything a version holds, as the engine's API returns it.
    struct Contents: Equatable {
        var hasItemTable = false
        var items: [Int64: Item] = [:]
        var notes: [Int64: String]?
        var step: [UInt8]?

        /// Where `other` differs from this (for failure messages).
        func difference(from other: Contents) -> String {
            if hasItemTable != other.hasItemTable { return "Item table present: \(other.hasItemTable), expected \(hasItemTable)" }
            if step != other.step { return "metadata step \(other.step ?? []), expected \(step ?? [])" }
            if (notes == nil) != (other.notes == nil) { return "Note table present: \(other.notes != nil), expected \(notes != nil)" }
            if let a = notes, let b = other.notes, a != b { return "notes differ: \(b.count) of \(a.count) expected" }
            for id in Set(items.keys).union(other.items.keys).sorted() where items[id] != other.items[id] {
                return "object \(id): \(other.items[id].map(\.description) ?? "missing"), expected \(items[id].map(\.description) ?? "none") (\(other.items.count) objects, \(items.count) expected)"
            }
            return "none"
        }
    }

    static let itemSpec = TableSpec(name: "Item", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "name", type: .string, isIndexed: true),
        ColumnSpec(name: "n", type: .int),
        ColumnSpec(name: "payload", type: .binary, isNullable: true),
        ColumnSpec(name: "tags", type: .string, isList: true),
    ], primaryKey: "id")

    static let noteSpec = TableSpec(name: "Note", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "text", type: .string),
    ], primaryKey: "id")

    let configuration: DatabaseConfiguration
    private(set) var database: Database?
    private var rng: SeededGenerator
    private var pinned: [ReadTransaction] = []
    private var nextId: Int64 = 0
    private var step = 0
    /// The contents now, and of every version that returned.
    private(set) var contents = Contents()
    private(set) var versions: [UInt64: Contents] = [:]
    private(set) var compactions = 0

    init(configuration: DatabaseConfiguration, seed: UInt64) {
        self.configuration = configuration
        rng = SeededGenerator(seed: seed ^ 0x5EED)
    }

    /// Opens (creating) the database; returns its first version.
    func open() throws -> UInt64 {
        let db = try Database.open(configuration)
        database = db
        versions[db.latestVersion] = contents
        return db.latestVersion
    }

    /// Closes the database (readers first).
    func close() {
        for r in pinned { r.close() }
        pinned.removeAll()
        database = nil
    }

    /// One operation: a commit, or (rarely) closing, compacting and reopening the file. Returns
    /// the version that now holds `contents`.
    func runStep() throws -> UInt64 {
        step += 1
        if step > 10 && rng.chance(4) {
            close()
            _ = try Database.compact(path: configuration.path ?? "", encryptionKey: configuration.encryptionKey)
            compactions += 1
            return try open()
        }
        guard let db = database else { throw AtollError(.invalidTransaction, "the workload's database is closed") }
        if rng.chance(15) { pinned.append(try db.beginRead()) }
        if !pinned.isEmpty && rng.chance(30) { pinned.removeFirst().close() }
        let w = try db.beginWrite()
        do {
            try mutate(w)
            let v = try w.commit()
            versions[v] = contents
            return v
        } catch {
            w.rollback()
            throw error
        }
    }

    private func mutate(_ w: WriteTransaction) throws {
        let items: Table
        if let t = try w.table(named: "Item") {
            items = t
        } else {
            items = try w.table(w.createTable(Self.itemSpec))
            contents.hasItemTable = true
        }
        let ids = contents.items.keys.sorted()
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<30:
            for _ in 0..<Int.random(in: 1...12, using: &rng) { try put(items, id: nextObjectId(), large: rng.chance(8)) }
        case 30..<52:
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                guard let id = rng.pick(ids) else { break }
                try put(items, id: id, large: rng.chance(8))
            }
        case 52..<66:
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                guard let id = rng.pick(Array(contents.items.keys)) else { break }
                try items.erase(ObjectKey(primaryKey: id))
                contents.items[id] = nil
            }
        case 66..<73:
            // Growth: megabytes of blobs in one commit.
            for _ in 0..<Int.random(in: 20...40, using: &rng) { try put(items, id: nextObjectId(), payloadBytes: Int.random(in: 30_000...60_000, using: &rng)) }
        case 73..<80:
            // Shrink: most of the file becomes free (tail relocation, then truncation).
            for id in ids where (contents.items[id]?.payload?.count ?? 0) > 4096 || rng.chance(50) {
                try items.erase(ObjectKey(primaryKey: id))
                contents.items[id] = nil
            }
        case 80..<88:
            if var notes = contents.notes, let table = try w.table(named: "Note") {
                if rng.chance(40) {
                    try w.removeTable(table.key)
                    contents.notes = nil
                } else {
                    for _ in 0..<Int.random(in: 1...20, using: &rng) {
                        let id = Int64.random(in: 0..<60, using: &rng)
                        let text = String(repeating: "note \(id) ", count: Int.random(in: 1...40, using: &rng))
                        let key = try table.find(primaryKey: .int(id)) ?? table.create(primaryKey: .int(id))
                        try table.set(key, 1, .string(text))
                        notes[id] = text
                    }
                    contents.notes = notes
                }
            } else {
                let table = try w.table(w.createTable(Self.noteSpec))
                var notes: [Int64: String] = [:]
                for id in 0..<Int64.random(in: 0...30, using: &rng) {
                    let text = "first note \(id)"
                    try table.set(try table.create(primaryKey: .int(id)), 1, .string(text))
                    notes[id] = text
                }
                contents.notes = notes
            }
        default:
            // Every object changes: copy-on-write of every leaf.
            for id in ids {
                try items.addInteger(ObjectKey(primaryKey: id), 2, 1)
                contents.items[id]?.n += 1
            }
        }
        // Every commit changes something, so every commit is a new version.
        let marker = [UInt8(step & 255), UInt8(step >> 8 & 255)]
        try w.setMetadata("step", marker)
        contents.step = marker
    }

    private func nextObjectId() -> Int64 {
        nextId += 1
        return nextId
    }

    /// Creates or overwrites object `id` with new values.
    private func put(_ items: Table, id: Int64, large: Bool = false, payloadBytes: Int? = nil) throws {
        let bytes = payloadBytes ?? (large ? Int.random(in: 1_500...20_000, using: &rng) : rng.chance(40) ? Int.random(in: 0...600, using: &rng) : -1)
        let payload: [UInt8]? = bytes < 0 ? nil : Self.pattern(bytes, seed: rng.next())
        let item = Item(name: "item \(id) v\(Int.random(in: 0..<1000, using: &rng))", n: Int64.random(in: -1_000_000...1_000_000, using: &rng),
                        payload: payload, tags: (0..<Int.random(in: 0...3, using: &rng)).map { "tag\($0)-\(id)" })
        let key = try items.find(primaryKey: .int(id)) ?? items.create(primaryKey: .int(id))
        try items.set(key, 1, .string(item.name))
        try items.set(key, 2, .int(item.n))
        try items.set(key, 3, payload.map { StorageValue.binary($0) } ?? .null)
        try items.setList(key, 4, item.tags.map { .string($0) })
        contents.items[id] = item
    }

    private static func pattern(_ count: Int, seed: UInt64) -> [UInt8] {
        var g = SeededGenerator(seed: seed)
        var bytes = [UInt8](repeating: 0, count: count)
        var i = 0
        while i < count {
            let word = g.next()
            for b in 0..<min(8, count - i) { bytes[i + b] = UInt8(truncatingIfNeeded: word >> UInt64(b * 8)) }
            i += 8
        }
        return bytes
    }

    /// Reads every object, value and list of the newest version (and looks each name up in the
    /// index).
    static func read(_ db: Database) throws -> (version: UInt64, contents: Contents) {
        let r = try db.beginRead()
        defer { r.close() }
        var c = Contents()
        if let t = try r.table(named: "Item") {
            c.hasItemTable = true
            for k in try t.objectKeys() {
                guard case .string(let name) = try t.value(k, 1), case .int(let n) = try t.value(k, 2) else {
                    throw AtollError(.typeMismatch, "object \(k.intPrimaryKey) has values of the wrong types")
                }
                var payload: [UInt8]?
                switch try t.value(k, 3) {
                case .binary(let b): payload = b
                case .null: payload = nil
                default: throw AtollError(.typeMismatch, "object \(k.intPrimaryKey) has a payload of the wrong type")
                }
                let tags = try t.listValues(k, 4).map { value -> String in
                    guard case .string(let s) = value else { throw AtollError(.typeMismatch, "a tag of the wrong type") }
                    return s
                }
                guard try t.findAll(indexed: 1, equalTo: .string(name)).contains(k) else {
                    throw AtollError(.fileCorrupted, "the name index lost object \(k.intPrimaryKey)")
                }
                c.items[k.intPrimaryKey] = Item(name: name, n: n, payload: payload, tags: tags)
            }
        }
        if let t = try r.table(named: "Note") {
            var notes: [Int64: String] = [:]
            for k in try t.objectKeys() {
                guard case .string(let text) = try t.value(k, 1) else { throw AtollError(.typeMismatch, "a note of the wrong type") }
                notes[k.intPrimaryKey] = text
            }
            c.notes = notes
        }
        c.step = try r.metadata("step")
        return (r.version, c)
    }
}
