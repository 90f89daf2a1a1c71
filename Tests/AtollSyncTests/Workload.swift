import AtollStorage
@testable import AtollSync
import Foundation
import AtollTestSupport


/// Random user transactions on the test schema, through the storage API (as the object layer or
/// another process would write), over a small key space so that nodes collide often.
enum Workload {
    static let itemIDs: ClosedRange<Int64> = 1...6
    static let people = ["ann", "bob", "cid", "dee"]

    /// One transaction of 1 to 5 random changes. Returns a description for failure reports.
    @discardableResult
    static func randomTransaction(_ db: Database, _ rng: inout SeededGenerator) throws -> String {
        try db.write { w in
            let items = try w.items(), persons = try w.people()
            var what: [String] = []
            let bags = try w.table(named: "Bag")
            let cards = try w.table(named: "Card")
            for _ in 0..<Int.random(in: 1...5, using: &rng) {
                if let bags, rng.chance(40) {
                    what.append(try bagChange(bags, persons, &rng))
                    continue
                }
                if let cards, rng.chance(40) {
                    what.append(try cardChange(w, cards, &rng))
                    continue
                }
                let id = Int64.random(in: itemIDs, using: &rng)
                let key = ObjectKey(primaryKey: id)
                let exists = try items.contains(key)
                let roll = Int.random(in: 0..<100, using: &rng)
                func person() throws -> ObjectKey? {
                    guard let name = rng.pick(people) else { return nil }
                    return try persons.find(primaryKey: .string(name))
                }
                if !exists {
                    if roll < 60 {
                        let k = try items.create(primaryKey: .int(id))
                        try items.set(k, TestSchema.Item.title, .string("t\(Int.random(in: 0..<100, using: &rng))"))
                        what.append("create \(id)")
                    } else {
                        guard let name = rng.pick(people) else { continue }
                        if let p = try persons.find(primaryKey: .string(name)) {
                            if rng.chance(50) { try persons.erase(p); what.append("erase person \(name)") } else {
                                try persons.set(p, 1, .int(Int64.random(in: 0..<99, using: &rng))); what.append("age \(name)")
                            }
                        } else {
                            try persons.create(primaryKey: .string(name)); what.append("create person \(name)")
                        }
                    }
                    continue
                }
                let tags = try items.listValues(key, TestSchema.Item.tags).count
                let friends = try items.listValues(key, TestSchema.Item.friends).count
                switch roll {
                case 0..<15:
                    try items.set(key, TestSchema.Item.title, .string("t\(Int.random(in: 0..<100, using: &rng))")); what.append("title \(id)")
                case 15..<25:
                    try items.set(key, TestSchema.Item.count, .int(Int64.random(in: -5...5, using: &rng))); what.append("count \(id)")
                case 25..<37:
                    try items.addInteger(key, TestSchema.Item.count, Int64.random(in: -3...3, using: &rng)); what.append("add \(id)")
                case 37..<42:
                    try items.set(key, TestSchema.Item.score, rng.chance(30) ? .null : .double(Double(Int.random(in: 0..<9, using: &rng))))
                    what.append("score \(id)")
                case 42..<50:
                    try items.set(key, TestSchema.Item.owner, try person().map { .link($0) } ?? .null); what.append("owner \(id)")
                case 50..<60:
                    try items.listInsert(key, TestSchema.Item.tags, at: Int.random(in: 0...tags, using: &rng), .string("g\(Int.random(in: 0..<50, using: &rng))"))
                    what.append("tag+ \(id)")
                case 60..<65 where tags > 0:
                    try items.listRemove(key, TestSchema.Item.tags, at: Int.random(in: 0..<tags, using: &rng)); what.append("tag- \(id)")
                case 65..<69 where tags > 0:
                    try items.listSet(key, TestSchema.Item.tags, at: Int.random(in: 0..<tags, using: &rng), .string("s\(Int.random(in: 0..<50, using: &rng))"))
                    what.append("tag= \(id)")
                case 69..<72 where tags > 1:
                    try items.listMove(key, TestSchema.Item.tags, from: Int.random(in: 0..<tags, using: &rng), to: Int.random(in: 0..<tags, using: &rng))
                    what.append("tag~ \(id)")
                case 72..<74:
                    try items.listClear(key, TestSchema.Item.tags); what.append("tag0 \(id)")
                case 74..<82:
                    if let p = try person() {
                        try items.listInsert(key, TestSchema.Item.friends, at: Int.random(in: 0...friends, using: &rng), .link(p)); what.append("friend+ \(id)")
                    }
                case 82..<86 where friends > 0:
                    try items.listRemove(key, TestSchema.Item.friends, at: Int.random(in: 0..<friends, using: &rng)); what.append("friend- \(id)")
                case 86..<94:
                    try items.erase(key); what.append("erase \(id)")
                default:
                    guard let name = rng.pick(people) else { continue }
                    if let p = try persons.find(primaryKey: .string(name)) {
                        try persons.erase(p); what.append("erase person \(name)")
                    } else {
                        try persons.create(primaryKey: .string(name)); what.append("create person \(name)")
                    }
                }
            }
            return what.joined(separator: ", ")
        }
    }

    static let cardIDs: ClosedRange<Int64> = 1...3

    /// One change of a Card (TestSchema.card): its Decimal128 or AnyRealmValue, its embedded
    /// Spot (replaced, removed or edited) and the Spot's embedded Pin, its list of embedded Pins
    /// (an insert, a removal, a move or an edit of an element), its map of embedded Pins (a new
    /// Pin, nil or a removal at a key, or an edit of the Pin there), or the card itself.
    static func cardChange(_ w: WriteTransaction, _ cards: Table, _ rng: inout SeededGenerator) throws -> String {
        let spots = try w.table(named: "Spot").unwrapped("Spot"), pins = try w.table(named: "Pin").unwrapped("Pin")
        let id = Int64.random(in: cardIDs, using: &rng)
        let key = ObjectKey(primaryKey: id)
        var created = ""
        if try !cards.contains(key) {
            _ = try cards.create(primaryKey: .int(id))
            created = "create card \(id), "
        }
        func spot() throws -> ObjectKey? {
            guard case .link(let s) = try cards.value(key, TestSchema.Card.place) else { return nil }
            return s
        }
        func newSpot() throws -> ObjectKey {
            let s = try spots.create()
            try cards.set(key, TestSchema.Card.place, .link(s))
            try spots.set(s, TestSchema.Spot.name, .string("s\(Int.random(in: 0..<9, using: &rng))"))
            return s
        }
        let what: String
        var roll = Int.random(in: 0..<100, using: &rng)
        // A third of the changes go to the trail (a list of embedded Pins).
        if rng.chance(33) {
            let count = try cards.listValues(key, TestSchema.Card.trail).count
            let x = Double(Int.random(in: 0..<9, using: &rng)) / 4
            roll = Int.random(in: 0..<100, using: &rng)
            if count == 0 || roll < 35 {
                let at = Int.random(in: 0...count, using: &rng)
                let p = try pins.create()
                try cards.listInsert(key, TestSchema.Card.trail, at: at, .link(p))
                try pins.set(p, 0, .double(x))
                return created + "trail insert \(id) at \(at) \(x)"
            }
            let i = Int.random(in: 0..<count, using: &rng)
            switch roll {
            case 35..<55:
                try cards.listRemove(key, TestSchema.Card.trail, at: i)
                return created + "trail remove \(id) at \(i)"
            case 55..<65:
                let to = Int.random(in: 0..<count, using: &rng)
                try cards.listMove(key, TestSchema.Card.trail, from: i, to: to)
                return created + "trail move \(id) \(i) to \(to)"
            default:
                guard case .link(let p) = try cards.listValues(key, TestSchema.Card.trail)[i] else {
                    throw AtollError(.typeMismatch, "a trail element is not a link")
                }
                try pins.set(p, 0, .double(x))
                return created + "trail x \(id) at \(i) \(x)"
            }
        }
        // Two fifths of the rest go to the hooks (a map of embedded Pins, keys a to c).
        if rng.chance(40) {
            let hook = ["a", "b", "c"][Int.random(in: 0..<3, using: &rng)]
            let x = Double(Int.random(in: 0..<9, using: &rng)) / 4
            roll = Int.random(in: 0..<100, using: &rng)
            let held = try cards.mapValue(key, TestSchema.Card.hooks, key: hook)
            switch roll {
            case 0..<15:
                try cards.mapSet(key, TestSchema.Card.hooks, key: hook, .null)
                return created + "hook nil \(id) \(hook)"
            case 15..<30:
                _ = try cards.mapRemove(key, TestSchema.Card.hooks, key: hook)
                return created + "hook remove \(id) \(hook)"
            case 30..<60:
                if case .link(let p)? = held {
                    try pins.set(p, 0, .double(x))
                    return created + "hook x \(id) \(hook) \(x)"
                }
                fallthrough
            default:
                let p = try pins.create()
                try cards.mapSet(key, TestSchema.Card.hooks, key: hook, .link(p))
                if x != 0 { try pins.set(p, 0, .double(x)) }
                return created + "hook put \(id) \(hook) \(x)"
            }
        }
        switch roll {
        case 0..<10:
            let v = "c\(Int.random(in: 0..<9, using: &rng))"
            try cards.set(key, TestSchema.Card.label, .string(v))
            what = "label \(id) \(v)"
        case 10..<20:
            let v = Decimal128(Double(Int64.random(in: -50..<50, using: &rng)) / 4)
            try cards.set(key, TestSchema.Card.amount, .decimal128(v))
            what = "amount \(id) \(v)"
        case 20..<30:
            let persons = try w.people()
            let v: StorageValue = switch Int.random(in: 0..<8, using: &rng) {
            case 0: .int(Int64.random(in: 0..<9, using: &rng))
            case 1: .string("a\(Int.random(in: 0..<9, using: &rng))")
            case 2: .double(Double(Int.random(in: 0..<9, using: &rng)) / 2)
            case 3: .bool(rng.chance(50))
            case 4: .decimal128(Decimal128(Int64.random(in: 0..<9, using: &rng)))
            // A typed link (AnyRealmValue.object) to a person, whose deletes and re-creations
            // other changes make.
            case 5, 6: try rng.pick(people).flatMap { try persons.find(primaryKey: .string($0)) }.map { StorageValue.typedLink(persons.key, $0) } ?? .null
            default: .null
            }
            try cards.set(key, TestSchema.Card.any, v)
            what = "any \(id) \(v)"
        case 30..<42:
            _ = try newSpot()
            what = "new spot \(id)"
        case 42..<48:
            try cards.set(key, TestSchema.Card.place, .null)
            what = "no spot \(id)"
        case 48..<64:
            let s = try spot() ?? newSpot()
            let n = Int64.random(in: 0..<9, using: &rng)
            try spots.set(s, TestSchema.Spot.n, .int(n))
            what = "spot n \(id) \(n)"
        case 64..<72:
            let s = try spot() ?? newSpot()
            let name = "s\(Int.random(in: 0..<9, using: &rng))"
            try spots.set(s, TestSchema.Spot.name, .string(name))
            what = "spot name \(id) \(name)"
        case 72..<80:
            let s = try spot() ?? newSpot()
            let p = try pins.create()
            try spots.set(s, TestSchema.Spot.pin, .link(p))
            try pins.set(p, 0, .double(Double(Int.random(in: 0..<9, using: &rng))))
            what = "new pin \(id)"
        case 80..<90:
            let s = try spot() ?? newSpot()
            let x = Double(Int.random(in: 0..<9, using: &rng)) / 4
            if case .link(let p) = try spots.value(s, TestSchema.Spot.pin) {
                try pins.set(p, 0, .double(x))
            } else {
                let p = try pins.create()
                try spots.set(s, TestSchema.Spot.pin, .link(p))
                try pins.set(p, 0, .double(x))
            }
            what = "pin x \(id) \(x)"
        case 90..<94:
            if let s = try spot() { try spots.set(s, TestSchema.Spot.pin, .null) }
            what = "no pin \(id)"
        default:
            try cards.erase(key)
            what = "erase card \(id)"
        }
        return created + what
    }

    static let bagIDs: ClosedRange<Int64> = 1...3
    static let labels = ["l0", "l1", "l2", "l3", "l4"]
    static let markKeys = ["k0", "k1", "k2", "k3"]

    /// One change of a Bag (TestSchema.bag): its sets and maps, or the object itself.
    static func bagChange(_ bags: Table, _ persons: Table, _ rng: inout SeededGenerator) throws -> String {
        let id = Int64.random(in: bagIDs, using: &rng)
        let key = ObjectKey(primaryKey: id)
        var created = ""
        if try !bags.contains(key) {
            _ = try bags.create(primaryKey: .int(id))
            created = "create bag \(id), "
        }
        return created + (try bagEdit(bags, persons, id, &rng))
    }

    private static func bagEdit(_ bags: Table, _ persons: Table, _ id: Int64, _ rng: inout SeededGenerator) throws -> String {
        let key = ObjectKey(primaryKey: id)
        func person() throws -> ObjectKey? {
            guard let name = rng.pick(people) else { return nil }
            return try persons.find(primaryKey: .string(name))
        }
        func label() -> String { rng.pick(labels) ?? "l0" }
        func markKey() -> String { rng.pick(markKeys) ?? "k0" }
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<20:
            let l = label()
            try bags.setInsert(key, TestSchema.Bag.labels, .string(l))
            return "label+ \(id) \(l)"
        case 20..<32:
            let l = label()
            try bags.setRemove(key, TestSchema.Bag.labels, .string(l))
            return "label- \(id) \(l)"
        case 32..<35:
            try bags.setClear(key, TestSchema.Bag.labels)
            return "label0 \(id)"
        case 35..<52:
            let k = markKey()
            let v: StorageValue = switch Int.random(in: 0..<5, using: &rng) {
            case 0: .int(Int64.random(in: 0..<9, using: &rng))
            case 1: .string("m\(Int.random(in: 0..<9, using: &rng))")
            case 2: .double(Double(Int.random(in: 0..<9, using: &rng)) / 2)
            // A typed link to a person (a map of mixed values).
            case 3: try person().map { StorageValue.typedLink(persons.key, $0) } ?? .null
            default: .null
            }
            try bags.mapSet(key, TestSchema.Bag.marks, key: k, v)
            return "mark= \(id) \(k) \(v)"
        case 52..<62:
            let k = markKey()
            try bags.mapRemove(key, TestSchema.Bag.marks, key: k)
            return "mark- \(id) \(k)"
        case 62..<64:
            try bags.mapClear(key, TestSchema.Bag.marks)
            return "mark0 \(id)"
        case 64..<74:
            guard let p = try person() else { return "no person" }
            try bags.setInsert(key, TestSchema.Bag.circle, .link(p))
            return "circle+ \(id)"
        case 74..<80:
            guard let p = try person() else { return "no person" }
            try bags.setRemove(key, TestSchema.Bag.circle, .link(p))
            return "circle- \(id)"
        case 80..<90:
            let k = markKey()
            try bags.mapSet(key, TestSchema.Bag.roles, key: k, try person().map { .link($0) } ?? .null)
            return "role= \(id) \(k)"
        case 90..<95:
            let k = markKey()
            try bags.mapRemove(key, TestSchema.Bag.roles, key: k)
            return "role- \(id) \(k)"
        default:
            try bags.erase(key)
            return "erase bag \(id)"
        }
    }

    /// A group transaction: `size` new people named `grp-<group>-<i>`, each with age `size`, in
    /// one transaction. Nothing else writes them, so every committed state of any node holds
    /// either all of a group or none of it (`groupViolations`).
    @discardableResult
    static func groupTransaction(_ db: Database, group: String, size: Int) throws -> String {
        try db.write { w in
            let persons = try w.people()
            for i in 0..<size {
                let k = try persons.create(primaryKey: .string("grp-\(group)-\(i)"))
                try persons.set(k, 1, .int(Int64(size)))
            }
        }
        return "group \(group) of \(size)"
    }

    /// The groups that the current state of `db` holds in part: each an explanation.
    static func groupViolations(_ db: Database) throws -> [String] {
        try db.read { r in
            let persons = try r.people()
            var groups: [String: (present: Int, size: Int64)] = [:]
            for k in try persons.objectKeys() {
                guard case .string(let name) = try persons.primaryKeyValue(k), name.hasPrefix("grp-"),
                      let dash = name.lastIndex(of: "-")
                else { continue }
                guard case .int(let size) = try persons.value(k, 1) else { continue }
                let group = String(name[..<dash])
                groups[group, default: (0, size)].present += 1
            }
            return groups.filter { Int64($0.value.present) != $0.value.size }.sorted { $0.key < $1.key }
                .map { "\($0.key): \($0.value.present) of \($0.value.size)" }
        }
    }
}
