import Foundation
import Testing
@testable import AtollStorage
import AtollTestSupport

/// Typed links in mixed columns (realm-core's `TypedLink`, RealmSwift's `AnyRealmValue.object`):
/// a value that names its target's table and key, in a property, a list, a set or a map of mixed
/// values. They keep backlinks as link columns do, so that deleting the target removes the value
/// from lists and sets and makes it nil in properties and maps (realm-core's `nullify`).
@Suite struct TypedLinkStorageTests {
    static let holderSpec = TableSpec(name: "Holder", columns: [
        ColumnSpec(name: "id", type: .int),
        ColumnSpec(name: "value", type: .mixed, isNullable: true, isIndexed: true),
        ColumnSpec(name: "list", type: .mixed, isNullable: true, isList: true),
        ColumnSpec(name: "set", type: .mixed, isNullable: true, isSet: true),
        ColumnSpec(name: "map", type: .mixed, isNullable: true, isMap: true),
    ], primaryKey: "id")
    static let dogSpec = TableSpec(name: "Dog", columns: [ColumnSpec(name: "id", type: .int), ColumnSpec(name: "name", type: .string)], primaryKey: "id")
    static let catSpec = TableSpec(name: "Cat", columns: [ColumnSpec(name: "name", type: .string)])
    static let partSpec = TableSpec(name: "Part", columns: [ColumnSpec(name: "name", type: .string)], isEmbedded: true)

    static func memory(_ name: String) throws -> Database {
        try Database.open(DatabaseConfiguration(inMemoryIdentifier: "\(name)-\(UUID())", historyRetainedVersions: 10))
    }

    static func k(_ id: Int64) -> ObjectKey { ObjectKey(primaryKey: id) }

    @Test func aTypedLinkIsStoredInEveryKindOfMixedValueAndDeletingItsTargetRemovesIt() throws {
        let db = try Self.memory("typed-links")
        var w = try db.beginWrite()
        let holders = try w.createTable(Self.holderSpec)
        let dogs = try w.createTable(Self.dogSpec)
        let cats = try w.createTable(Self.catSpec)
        var d = try w.table(dogs)
        let rex = try d.create(primaryKey: .int(1)), fido = try d.create(primaryKey: .int(2))
        let tom = try w.table(cats).create()
        var h = try w.table(holders)
        let holder = try h.create(primaryKey: .int(1))
        let toRex = StorageValue.typedLink(dogs, rex), toFido = StorageValue.typedLink(dogs, fido), toTom = StorageValue.typedLink(cats, tom)
        try h.set(holder, 1, toRex)
        for v in [toRex, .int(3), toTom, toRex] { try h.listInsert(holder, 2, at: try h.listValues(holder, 2).count, v) }
        for v in [toFido, .string("x"), toRex, toRex] { try h.setInsert(holder, 3, v) }
        try h.mapSet(holder, 4, key: "a", toRex)
        try h.mapSet(holder, 4, key: "b", .int(7))
        #expect(try d.backlinkCount(to: rex) == 5, "the property, two list elements, a set element and a map value")
        #expect(try h.findAll(indexed: 1, equalTo: toRex) == [holder], "an indexed mixed property finds a typed link")
        _ = try w.commit()

        let r = try db.beginRead()
        h = try #require(try r.table(named: "Holder"))
        #expect(try h.value(holder, 1) == toRex)
        #expect(try h.listValues(holder, 2) == [toRex, .int(3), toTom, toRex])
        #expect(try h.listValues(holder, 3) == [.string("x"), toRex, toFido], "a set holds a link once, after other types (realm-core's order)")
        #expect(try h.mapEntries(holder, 4).map(\.value) == [toRex, .int(7)])
        r.close()

        w = try db.beginWrite()
        d = try #require(try w.table(named: "Dog"))
        try d.erase(rex)
        h = try #require(try w.table(named: "Holder"))
        #expect(try h.value(holder, 1) == .null, "a property that held the object is nil")
        #expect(try h.listValues(holder, 2) == [.int(3), toTom], "lists drop it")
        #expect(try h.listValues(holder, 3) == [.string("x"), toFido], "sets drop it")
        #expect(try h.mapEntries(holder, 4).map(\.value) == [.null, .int(7)], "a map keeps the key with nil")
        #expect(try h.findAll(indexed: 1, equalTo: toRex).isEmpty)
        #expect(try d.backlinkCount(to: fido) == 1)
        // Deleting the holder drops its links' backlinks.
        try h.erase(holder)
        #expect(try d.backlinkCount(to: fido) == 0)
        #expect(try #require(try w.table(named: "Cat")).backlinkCount(to: tom) == 0)
        _ = try w.commit()
        #expect(try db.verify().tables.count == 3)
    }

    @Test func replacingAValueMovesItsBacklink() throws {
        let db = try Self.memory("typed-link-replace")
        let w = try db.beginWrite()
        let holders = try w.createTable(Self.holderSpec)
        let dogs = try w.createTable(Self.dogSpec)
        let d = try w.table(dogs)
        let rex = try d.create(primaryKey: .int(1)), fido = try d.create(primaryKey: .int(2))
        let h = try w.table(holders)
        let holder = try h.create(primaryKey: .int(1))
        try h.set(holder, 1, .typedLink(dogs, rex))
        try h.set(holder, 1, .typedLink(dogs, fido))
        #expect(try d.backlinkCount(to: rex) == 0)
        #expect(try d.backlinkCount(to: fido) == 1)
        try h.set(holder, 1, .string("no longer a link"))
        #expect(try d.backlinkCount(to: fido) == 0)
        try h.listInsert(holder, 2, at: 0, .typedLink(dogs, rex))
        try h.listSet(holder, 2, at: 0, .typedLink(dogs, fido))
        #expect(try d.backlinkCount(to: rex) == 0)
        #expect(try d.backlinkCount(to: fido) == 1)
        try h.listClear(holder, 2)
        try h.mapSet(holder, 4, key: "k", .typedLink(dogs, rex))
        try h.mapSet(holder, 4, key: "k", .int(1))
        #expect(try d.backlinkCount(to: rex) == 0)
        #expect(try d.backlinkCount(to: fido) == 0)
        // A self-link: the holder deleted with a link to itself in its list.
        try h.listInsert(holder, 2, at: 0, .typedLink(holders, holder))
        try h.erase(holder)
        #expect(try h.backlinkCount(to: holder) == 0)
        _ = try w.commit()
    }

    @Test func aTypedLinkMustNameAnExistingTopLevelObjectAndOnlyMixedColumnsTakeOne() throws {
        let db = try Self.memory("typed-link-refusals")
        let w = try db.beginWrite()
        let holders = try w.createTable(Self.holderSpec)
        let dogs = try w.createTable(Self.dogSpec)
        let parts = try w.createTable(Self.partSpec)
        let h = try w.table(holders)
        let holder = try h.create(primaryKey: .int(1))
        let d = try w.table(dogs)
        let rex = try d.create(primaryKey: .int(1))
        let part = try w.table(parts).create()
        #expect { try h.set(holder, 1, .typedLink(dogs, Self.k(99))) } throws: { ($0 as? AtollError)?.kind == .objectNotFound }
        #expect { try h.set(holder, 1, .typedLink(TableKey(999), rex)) } throws: { ($0 as? AtollError)?.kind == .objectNotFound }
        #expect { try h.set(holder, 1, .typedLink(parts, part)) } throws: { ($0 as? AtollError)?.kind == .typeMismatch }
        #expect { try h.setInsert(holder, 3, .typedLink(dogs, Self.k(99))) } throws: { ($0 as? AtollError)?.kind == .objectNotFound }
        #expect { try d.set(rex, 1, .typedLink(dogs, rex)) } throws: { ($0 as? AtollError)?.kind == .typeMismatch }
        #expect { try h.set(holder, 1, .link(rex)) } throws: { ($0 as? AtollError)?.kind == .typeMismatch }
        w.rollback()
    }

    @Test func theEncodingRoundTripsAndRefusesATableKeyOutOfRange() throws {
        for v: StorageValue in [.typedLink(TableKey(3), ObjectKey(0)), .typedLink(TableKey(UInt32.max), ObjectKey(UInt64.max))] {
            let bytes = v.mixedBytes
            #expect(bytes.first == StorageValue.Tag.typedLink.rawValue)
            #expect(try bytes.withUnsafeBytes { try StorageValue.mixed(from: $0) } == v)
        }
        var w = ByteWriter(capacity: 16)
        w.u8(StorageValue.Tag.typedLink.rawValue); w.varint(UInt64(UInt32.max) + 1); w.varint(1)
        #expect { try w.bytes.withUnsafeBytes { try StorageValue.mixed(from: $0) } } throws: { ($0 as? AtollError)?.kind == .fileCorrupted }
    }

    @Test func removingTheTargetsTableMakesTheValuesNil() throws {
        let db = try Self.memory("typed-link-table-removal")
        var w = try db.beginWrite()
        let holders = try w.createTable(Self.holderSpec)
        let cats = try w.createTable(Self.catSpec)
        let tom = try w.table(cats).create()
        let h = try w.table(holders)
        let holder = try h.create(primaryKey: .int(1))
        try h.set(holder, 1, .typedLink(cats, tom))
        try h.setInsert(holder, 3, .typedLink(cats, tom))
        _ = try w.commit()

        w = try db.beginWrite()
        try w.removeTable(cats)
        let h2 = try #require(try w.table(named: "Holder"))
        #expect(try h2.value(holder, 1) == .null)
        #expect(try h2.listValues(holder, 3).isEmpty)
        _ = try w.commit()
        #expect(try db.verify().tables.count == 1)
    }

    @Test func aCompactedCopyKeepsTheLinksAndTheirBacklinks() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("links.atoll"), copy = dir.file("copy.atoll")
        do {
            let db = try Database.open(DatabaseConfiguration(path: path))
            let w = try db.beginWrite()
            let holders = try w.createTable(Self.holderSpec)
            let dogs = try w.createTable(Self.dogSpec)
            let d = try w.table(dogs)
            let rex = try d.create(primaryKey: .int(1))
            let h = try w.table(holders)
            for id: Int64 in 0..<20 {
                let k = try h.create(primaryKey: .int(id))
                try h.set(k, 1, .typedLink(dogs, rex))
                try h.listInsert(k, 2, at: 0, .typedLink(dogs, rex))
            }
            try w.commit()
            try db.writeCopy(to: copy)
        }
        let db = try Database.open(DatabaseConfiguration(path: copy))
        let w = try db.beginWrite()
        let d = try #require(try w.table(named: "Dog"))
        #expect(try d.backlinkCount(to: Self.k(1)) == 40)
        try d.erase(Self.k(1))
        let h = try #require(try w.table(named: "Holder"))
        #expect(try h.value(Self.k(5), 1) == .null)
        #expect(try h.listValues(Self.k(5), 2).isEmpty)
        try w.commit()
        #expect(try db.verify().tables.count == 2)
    }
}
