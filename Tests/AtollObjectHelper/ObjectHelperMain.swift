// atoll-object-helper: a child process for the object API's multi-process and misuse tests.
// Misuse commands stop the process with Atoll's message on stderr, which the parent checks.

import Atoll
import AtollTestSupport
import Foundation

/// The model the parent observes (Tests/AtollTests/ProcessNotificationTests.swift declares
/// the same class).
final class Note: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
    @Persisted var rank = 0
}

/// Models of the conformance misuse cases.
/// A nested collection in an AnyRealmValue, for the misuse scenario that changes one outside a write.
final class MixedNote: Object {
    @Persisted var value: AnyRealmValue
}

final class NoteTag: Object {
    @Persisted var label = ""
}

final class TaggedNote: Object {
    @Persisted var tags: List<NoteTag>
}

@main
struct AtollObjectHelper {
    static func say(_ line: String) {
        print(line)
        fflush(nil)
    }

    static func main() {
        let args = CommandLine.arguments
        guard args.count >= 2 else {
            FileHandle.standardError.write(Data("usage: AtollObjectHelper COMMAND [ARGS]\n".utf8))
            exit(2)
        }
        do {
            switch args[1] {
            case "write-notes":
                // write-notes PATH OPS: one transaction per op: +ID:RANK inserts, -ID deletes,
                // ~ID:TEXT renames.
                let realm = try Realm(configuration: .init(fileURL: URL(fileURLWithPath: args[2]), objectTypes: [Note.self]))
                for op in args[3...] {
                    let body = op.dropFirst()
                    let parts = body.split(separator: ":", maxSplits: 1).map(String.init)
                    let id = Int(parts[0]) ?? 0
                    try realm.write {
                        switch op.first {
                        case "+": realm.create(Note.self, value: ["id": id, "rank": Int(parts.count > 1 ? parts[1] : "0") ?? 0])
                        case "-": if let n = realm.object(ofType: Note.self, forPrimaryKey: id) { realm.delete(n) }
                        case "~": realm.object(ofType: Note.self, forPrimaryKey: id)?.text = parts.count > 1 ? parts[1] : ""
                        default: break
                        }
                    }
                }
                say("done")
            case "basket":
                // basket PATH OPS: opens a multi-node Cluster file with the Basket model (a set
                // and a map of values, a set and a map of Items) and runs one transaction per op:
                // +ID:LABEL / -ID:LABEL insert or remove a label, =ID:KEY:VALUE sets a score (an
                // int when VALUE is one, else a string), xID:KEY removes a score, &ID:ITEM adds an
                // Item to the set, @ID:KEY:ITEM puts one in the map, !ID deletes the basket.
                let realm = try Realm(configuration: .init(fileURL: URL(fileURLWithPath: args[2]), objectTypes: [Basket.self, BasketItem.self]))
                for op in args[3...] {
                    let parts = op.dropFirst().split(separator: ":", maxSplits: 2).map(String.init)
                    let id = Int(parts[0]) ?? 0
                    try realm.write {
                        if op.first == "!" {
                            if let b = realm.object(ofType: Basket.self, forPrimaryKey: id) { realm.delete(b) }
                            return
                        }
                        let b = realm.object(ofType: Basket.self, forPrimaryKey: id) ?? realm.create(Basket.self, value: ["id": id])
                        let arg = parts.count > 1 ? parts[1] : ""
                        switch op.first {
                        case "+": b.labels.insert(arg)
                        case "-": b.labels.remove(arg)
                        case "=":
                            let value = parts.count > 2 ? parts[2] : ""
                            b.scores[arg] = Int(value).map { AnyRealmValue.int($0) } ?? .string(value)
                        case "x": b.scores.removeObject(for: arg)
                        case "&": if let item = realm.object(ofType: BasketItem.self, forPrimaryKey: arg) { b.items.insert(item) }
                        case "@": b.picks[arg] = parts.count > 2 ? realm.object(ofType: BasketItem.self, forPrimaryKey: parts[2]) : nil
                        default: break
                        }
                    }
                }
                say("done")
            case "shop":
                // shop PATH OPS: opens a multi-node Cluster file with the Shop model (every newer
                // type: Decimal128, AnyRealmValue, MutableSet, Map, PersistableEnum, an embedded
                // address holding an embedded geo) and runs one transaction per op:
                // $ID:DEC revenue, ?ID:VALUE extra (an int when VALUE is one, else a string),
                // +ID:TAG a tag, =ID:KEY:INT a price, kID:KIND the kind, sID:STREET the address's
                // street (an address is made when there is none), gID:LAT its geo's lat (likewise),
                // aID:STREET a new address replacing the old, 0ID no address, !ID deletes the shop,
                // @ID:OTHER extra links shop OTHER (AnyRealmValue.object; made when missing),
                // bID:KEY:STREET a new branch address at KEY of the map of embedded addresses,
                // BID:KEY:STREET the street of the branch at KEY (made when there is none),
                // xID:KEY removes the key.
                let realm = try Realm(configuration: .init(fileURL: URL(fileURLWithPath: args[2]), objectTypes: [Shop.self, ShopAddress.self, ShopGeo.self]))
                for op in args[3...] {
                    let parts = op.dropFirst().split(separator: ":", maxSplits: 2).map(String.init)
                    let id = Int(parts[0]) ?? 0
                    try realm.write {
                        if op.first == "!" {
                            if let shop = realm.object(ofType: Shop.self, forPrimaryKey: id) { realm.delete(shop) }
                            return
                        }
                        let shop = realm.object(ofType: Shop.self, forPrimaryKey: id) ?? realm.create(Shop.self, value: ["id": id])
                        let arg = parts.count > 1 ? parts[1] : ""
                        func address() -> ShopAddress {
                            if let a = shop.address { return a }
                            shop.address = ShopAddress()
                            return shop.address ?? ShopAddress()
                        }
                        switch op.first {
                        case "$": shop.revenue = try Decimal128(string: arg)
                        case "?": shop.extra = Int(arg).map { AnyRealmValue.int($0) } ?? .string(arg)
                        case "+": shop.tags.insert(arg)
                        case "=": shop.prices[arg] = Int(parts.count > 2 ? parts[2] : "") ?? 0
                        case "k": shop.kind = ShopKind(rawValue: arg) ?? .kiosk
                        case "s": address().street = arg
                        case "g":
                            let a = address()
                            if a.geo == nil { a.geo = ShopGeo() }
                            a.geo?.lat = Double(arg) ?? 0
                        case "a":
                            let a = ShopAddress()
                            a.street = arg
                            shop.address = a
                        case "0": shop.address = nil
                        case "b", "B":
                            let street = parts.count > 2 ? parts[2] : ""
                            if op.first == "B", let branch = shop.branches[arg] ?? nil {
                                branch.street = street
                            } else {
                                let branch = ShopAddress()
                                branch.street = street
                                shop.branches[arg] = branch
                            }
                        case "x": shop.branches.removeObject(for: arg)
                        case "@":
                            let other = Int(arg) ?? 0
                            shop.extra = .object(realm.object(ofType: Shop.self, forPrimaryKey: other) ?? realm.create(Shop.self, value: ["id": other]))
                        default: break
                        }
                    }
                }
                say("done")
            case "dump-shops":
                // dump-shops PATH: one line per shop in id order, every collection sorted.
                let realm = try Realm(configuration: .init(fileURL: URL(fileURLWithPath: args[2]), objectTypes: [Shop.self, ShopAddress.self, ShopGeo.self]))
                for shop in realm.objects(Shop.self).sorted(byKeyPath: "id") {
                    let extra: String = switch shop.extra {
                    case .int(let i): "\(i)"
                    case .string(let s): s
                    case .none: "none"
                    case .object: "->\(shop.extra.object(Shop.self).map { "\($0.id)" } ?? "?")"
                    default: "\(shop.extra)"
                    }
                    let prices = shop.prices.keys.sorted().map { k in "\(k):\(shop.prices[k] ?? -1)" }
                    var address = "nil"
                    if let a = shop.address {
                        address = "{\(a.street) geo=\(a.geo.map { "\($0.lat)" } ?? "nil")}"
                    }
                    let branches = shop.branches.keys.sorted().map { k in "\(k):\((shop.branches[k] ?? nil).map { $0.street } ?? "nil")" }
                    say("\(shop.id) revenue=\(shop.revenue) extra=\(extra) tags=[\(shop.tags.sorted().joined(separator: ","))] "
                        + "prices={\(prices.joined(separator: ","))} kind=\(shop.kind.rawValue) address=\(address) branches={\(branches.joined(separator: ","))}")
                }
                say("done")
            case "dump-baskets":
                // dump-baskets PATH: one line per basket in id order, every collection sorted.
                let realm = try Realm(configuration: .init(fileURL: URL(fileURLWithPath: args[2]), objectTypes: [Basket.self, BasketItem.self]))
                for b in realm.objects(Basket.self).sorted(byKeyPath: "id") {
                    func show(_ v: AnyRealmValue?) -> String {
                        switch v {
                        case .int(let i)?: "\(i)"
                        case .string(let s)?: s
                        case let other?: "\(other)"
                        case nil: "none"
                        }
                    }
                    let scores = b.scores.keys.sorted().map { k in "\(k):\(show(b.scores[k]))" }
                    let picks = b.picks.keys.sorted().map { k in "\(k):\(b.picks[k]??.id ?? "nil")" }
                    say("\(b.id) labels=[\(b.labels.sorted().joined(separator: ","))] scores={\(scores.joined(separator: ","))} "
                        + "items=[\(b.items.map(\.id).sorted().joined(separator: ","))] picks={\(picks.joined(separator: ","))}")
                }
                say("done")
            case "read-off-thread":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [Note.self]))
                let note = try realm.write { realm.create(Note.self, value: ["id": 1, "text": "x"]) }
                let handoff = Handoff(note)
                let thread = Thread { say("read \(handoff.value.text)") }
                thread.start()
                sleep(10)
            case "set-outside-write":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [Note.self]))
                let note = try realm.write { realm.create(Note.self, value: ["id": 1]) }
                note.text = "no write transaction"
            case "set-frozen":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [Note.self]))
                let note = try realm.write { realm.create(Note.self, value: ["id": 1]) }
                let frozen = note.freeze()
                try realm.write { frozen.text = "frozen" }
            case "observe-in-write":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [Note.self]))
                try realm.write {
                    let token = realm.objects(Note.self).observe { _ in }
                    token.invalidate()
                }
            case "read-deleted":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [Note.self]))
                let note = try realm.write { realm.create(Note.self, value: ["id": 1]) }
                try realm.write { realm.delete(note) }
                say("read \(note.text)")
            case "unmanaged-nested":
                // unmanaged-nested LEVELS: Object(value:) with a chain of LEVELS linked objects.
                var value: [String: Any] = ["id": 0]
                for i in 1..<(Int(args[2]) ?? 1) { value = ["id": i, "best": value] }
                var levels = 0
                var link: Chain? = Chain(value: value)
                while let l = link { levels += 1; link = l.best }
                // On stderr, where the parent reads a stop's message too.
                FileHandle.standardError.write(Data("levels \(levels)\n".utf8))
            case "read-damaged":
                // read-damaged HOW PATH: reads a damaged file through an accessor that cannot
                // throw, which must stop the process (README, "Failed reads").
                let realm = try Realm(configuration: try makeDamagedFile(args[3]))
                let hounds = realm.objects(Hound.self)
                switch args[2] {
                case "iterate": say("read \(hounds.reduce(0) { $0 + $1.age })")
                case "filter-count": say("read \(hounds.filter("age > 3").count)")
                case "primary-key": say("read \(realm.object(ofType: Hound.self, forPrimaryKey: 1500)?.name ?? "nil")")
                case "subscript": say("read \(hounds[1500].name)")
                case "sum": say("read \(hounds.sum(ofProperty: "age") as Int)")
                case "sorted-first": say("read \(hounds.sorted(byKeyPath: "name").first?.name ?? "nil")")
                case "list-element": say("read \(realm.object(ofType: Keeper.self, forPrimaryKey: "k")?.hounds[0].name ?? "nil")")
                case "list-filter": say("read \(realm.object(ofType: Keeper.self, forPrimaryKey: "k")?.hounds.filter("age > 1").count ?? -1)")
                default: say("unknown read \(args[2])")
                }
            case "upgrade-synced-schema":
                // upgrade-synced-schema PATH: opens a synced node's file (made with the multi-node
                // Cluster schema) with schema version 1 of the models below, which add
                // 'Item.color' and the class 'Tag'. The migration block writes 'note' of every
                // Item that has none (an ordinary write, which syncs) and creates a Tag.
                let config = Realm.Configuration(fileURL: URL(fileURLWithPath: args[2]), schemaVersion: 1, migrationBlock: { migration, oldVersion in
                    guard oldVersion < 1 else { return }
                    migration.enumerateObjects(ofType: "Item") { _, item in
                        if let item, (item["note"] as? String) == nil { item["note"] = "migrated" }
                    }
                    migration.create("Tag", value: ["name": "from-migration", "weight": 1])
                }, objectTypes: [UpgradedItem.self, UpgradedShared.self, UpgradedTag.self])
                let realm = try Realm(configuration: config)
                say("upgraded \(realm.objects(UpgradedItem.self).count) items")
            // Misuse that RealmSwift raises for (Tests/RealmConformanceTests).
            case "conformance-create-outside-write":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [Note.self]))
                realm.create(Note.self, value: ["id": 1])
            case "conformance-cancel-write-outside-write":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [Note.self]))
                realm.cancelWrite()
            case "conformance-objects-of-object":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [Note.self]))
                say("count \(realm.objects(Object.self).count)")
            case "conformance-dynamic-objects-of-object":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [Note.self]))
                say("count \(realm.dynamicObjects("Object").count)")
            case "conformance-dynamic-list-unknown-property":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [TaggedNote.self, NoteTag.self]))
                let note = try realm.write { realm.create(TaggedNote.self) }
                say("count \(note.dynamicList("noSuchList").count)")
            case "conformance-observe-unknown-key-path":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [Note.self]))
                let token = realm.objects(Note.self).observe(keyPaths: ["nonexistent"]) { _ in }
                token.invalidate()
            case "conformance-freeze-unmanaged":
                _ = Note().freeze()
            case "conformance-thaw-unmanaged":
                _ = Note().thaw()
            case "conformance-nested-mixed-write-outside-transaction":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [MixedNote.self]))
                let note = try realm.write { realm.create(MixedNote.self, value: ["value": AnyRealmValue.fromArray([.int(1)])]) }
                note.value.listValue?.append(.int(2))
            case "conformance-observe-unmanaged":
                let token = Note().observe { (_: ObjectChange<Note>) in }
                token.invalidate()
            case "conformance-observe-unknown-key-path-through-list":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [TaggedNote.self, NoteTag.self]))
                let note = try realm.write { realm.create(TaggedNote.self) }
                let token = note.observe(keyPaths: ["tags.alsoNotAProperty"]) { (_: ObjectChange<TaggedNote>) in }
                token.invalidate()
            case "conformance-observe-object-unknown-key-path":
                let realm = try Realm(configuration: .init(inMemoryIdentifier: "misuse", objectTypes: [Note.self]))
                let note = try realm.write { realm.create(Note.self, value: ["id": 1]) }
                let token = note.observe(keyPaths: ["nonexistent"]) { (_: ObjectChange<Note>) in }
                token.invalidate()
            default:
                FileHandle.standardError.write(Data("unknown command \(args[1])\n".utf8))
                exit(2)
            }
        } catch {
            say("error \(error)")
            exit(1)
        }
    }
}

/// Version 1 of the multi-node tests' schema (Tests/AtollMultiNodeTests/Support/Cluster.swift)
/// The model of `basket` (Tests/AtollMultiNodeTests/SetAndMapProcessTests.swift): the multi-node
/// Cluster schema's Item, and a class with sets and maps of values and of Items.
final class BasketItem: Object {
    override class func className() -> String { "Item" }
    @Persisted(primaryKey: true) var id = ""
    @Persisted var node = ""
    @Persisted var n = 0
    @Persisted var note: String?
}

final class Basket: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var labels: MutableSet<String>
    @Persisted var scores: Map<String, AnyRealmValue>
    @Persisted var items: MutableSet<BasketItem>
    @Persisted var picks: Map<String, BasketItem?>
}

/// The model of `shop` (Tests/AtollMultiNodeTests/EmbeddedSyncProcessTests.swift): every value
/// type sync merges, and embedded objects two levels deep.
enum ShopKind: String, PersistableEnum {
    case kiosk, market, online
}

final class ShopGeo: EmbeddedObject {
    @Persisted var lat = 0.0
}

final class ShopAddress: EmbeddedObject {
    @Persisted var street = ""
    @Persisted var geo: ShopGeo?
}

final class Shop: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var revenue: Decimal128 = 0
    @Persisted var extra: AnyRealmValue
    @Persisted var tags: MutableSet<String>
    @Persisted var prices: Map<String, Int>
    @Persisted var kind: ShopKind = .kiosk
    @Persisted var address: ShopAddress?
    @Persisted var branches: Map<String, ShopAddress?>
}

/// for `upgrade-synced-schema`: a new optional property and a new class.
final class UpgradedItem: Object {
    override class func className() -> String { "Item" }
    @Persisted(primaryKey: true) var id = ""
    @Persisted var node = ""
    @Persisted var n = 0
    @Persisted var note: String?
    @Persisted var color: String?
}

final class UpgradedShared: Object {
    override class func className() -> String { "Shared" }
    @Persisted(primaryKey: true) var key = 0
    @Persisted var value = ""
    @Persisted var by = ""
    @Persisted var tags: List<String>
}

final class UpgradedTag: Object {
    override class func className() -> String { "Tag" }
    @Persisted(primaryKey: true) var name = ""
    @Persisted var weight = 0
}

/// The model of the damaged-file commands (`read-damaged`).
final class Hound: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
}

final class Keeper: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var hounds: List<Hound>
}

/// A chain of linked objects (`unmanaged-nested`).
final class Chain: Object {
    @Persisted var id = 0
    @Persisted var best: Chain?
}

/// Writes 2745 hounds (several cluster leaves) and a keeper "k" whose list holds hound
/// 1500, then zeroes the cluster leaf holding hound 1500 (the file is closed by then).
func makeDamagedFile(_ path: String) throws -> Realm.Configuration {
    let config = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Hound.self, Keeper.self])
    // In a function of its own, so the realm is closed before the damage.
    func populate() throws {
        let realm = try Realm(configuration: config)
        try realm.write {
            for i in 0..<2745 { realm.create(Hound.self, value: ["id": i, "name": String(format: "hound-%05d", i), "age": i % 17]) }
            let keeper = realm.create(Keeper.self, value: ["name": "k"])
            if let hound = realm.object(ofType: Hound.self, forPrimaryKey: 1500) { keeper.hounds.append(hound) }
        }
    }
    try populate()
    guard try PageDamage.zeroed.apply(toFile: path, pageType: PageDamage.clusterLeaf, containing: "hound-01500") > 0 else {
        throw AtollError(.invalidArgument, "no page holds hound 1500")
    }
    return config
}

/// Passes a live object to another thread on purpose: the misuse under test.
struct Handoff<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
