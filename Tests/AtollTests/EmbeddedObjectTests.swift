import Atoll
import AtollStorage
import AtollSync
import AtollTestSupport
import Foundation
import Testing

// EmbeddedObject through the object API: ownership (one parent, copies, no direct add), cascade
// deletes (nil, replacement, list and map removal, parent deletion, recursively), queries through
// embedded key paths, freezing, notifications with key paths, persistence and verify, the
// dynamic API, migrations, JSON import and dump, and the sync refusal.

final class EmbGeo: EmbeddedObject {
    @Persisted var lat = 0.0
    @Persisted var lon = 0.0
}

final class EmbAddress: EmbeddedObject {
    @Persisted var street = ""
    @Persisted var city = ""
    @Persisted var geo: EmbGeo?
    @Persisted(originProperty: "address") var residents: LinkingObjects<EmbContact>
}

final class EmbContact: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var address: EmbAddress?
    @Persisted var previous: List<EmbAddress>
    @Persisted var byLabel: Map<String, EmbAddress?>
}

/// Not a valid model. No valid class links to it: realms opened without `objectTypes` check
/// every valid class known to the process and what it links to.
final class EmbKeyed: EmbeddedObject {
    @Persisted(primaryKey: true) var id = 0
}

/// Not a valid model either: a set cannot hold embedded objects (realm-core's schema rule).
final class EmbPlaces: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var places: MutableSet<EmbGeo>
}

@Suite struct EmbeddedObjectTests {
    func realm(_ function: String = #function) throws -> Realm {
        try Realm(configuration: freshConfiguration([EmbContact.self], function: function))
    }

    func addresses(_ realm: Realm) -> Int { realm.objects(EmbAddress.self).count }
    func geos(_ realm: Realm) -> Int { realm.objects(EmbGeo.self).count }

    @discardableResult
    func contact(_ realm: Realm, _ id: Int = 1) throws -> EmbContact {
        try realm.write {
            realm.create(EmbContact.self, value: [
                "id": id, "name": "Ann",
                "address": ["street": "Main St 1", "city": "Oslo", "geo": ["lat": 59.9, "lon": 10.7]] as [String: Any],
                "previous": [["street": "Old Rd 2", "city": "Bergen"], ["street": "Elm 3", "city": "Oslo"]],
                "byLabel": ["work": ["street": "Quay 4", "city": "Tromsø"] as [String: Any]],
            ])
        }
    }

    @Test func schemaMarksEmbeddedClassesAndRefusesAPrimaryKey() throws {
        #expect(ObjectSchema.of(EmbAddress.self).isEmbedded)
        #expect(!ObjectSchema.of(EmbContact.self).isEmbedded)
        let error = #expect(throws: AtollError.self) { _ = try Realm(configuration: freshConfiguration([EmbKeyed.self])) }
        #expect(error?.message.contains("an embedded class cannot have a primary key") == true)
    }

    /// realm-core refuses a set of embedded objects when it validates a schema ("Set property
    /// 'object.set' cannot contain embedded object type 'target'"; its object-store schema tests),
    /// and so does every layer of Atoll: the object API, the dynamic schema of the CLI and import,
    /// and the storage engine, including a class made embedded later that a set holds.
    @Test func aSetOfEmbeddedObjectsIsRefusedByEverySchemaLayer() throws {
        let objectError = #expect(throws: AtollError.self) { _ = try Realm(configuration: freshConfiguration([EmbPlaces.self, EmbGeo.self])) }
        #expect(objectError?.kind == .schemaMismatch)
        #expect(objectError?.message.contains("set property 'EmbPlaces.places' cannot contain embedded object type 'EmbGeo'") == true, "\(String(describing: objectError))")

        let dynamicError = #expect(throws: AtollError.self) {
            try DynamicSchema(json: #"[{"name": "Geo", "embedded": true, "properties": {"lat": "double"}}, {"name": "Trip", "properties": {"stops": "Geo<>"}}]"#)
        }
        #expect(dynamicError?.message.contains("class 'Trip', property 'stops': set property 'Trip.stops' cannot contain embedded object type 'Geo'") == true,
                "\(String(describing: dynamicError))")

        let dir = TemporaryDirectory()
        let database = try Database.open(DatabaseConfiguration(path: dir.file("sets.atoll")))
        let geo = TableSpec(name: "Geo", columns: [ColumnSpec(name: "lat", type: .double)], isEmbedded: true)
        let trip = TableSpec(name: "Trip", columns: [ColumnSpec(name: "stops", type: .link, linkTarget: "Geo", isSet: true)])
        var w = try database.beginWrite()
        try w.createTable(geo)
        try w.createTable(trip)
        let storageError = #expect(throws: AtollError.self) { try w.commit() }
        #expect(storageError?.message.contains("set property 'Trip.stops' cannot contain embedded object type 'Geo'") == true)
        #expect(try database.beginRead().table(named: "Trip") == nil, "the refused commit left nothing")

        // A set of a top-level class is fine until the class is made embedded.
        w = try database.beginWrite()
        var topLevel = geo
        topLevel.isEmbedded = false
        let geoKey = try w.createTable(topLevel)
        try w.createTable(trip)
        try w.commit()
        w = try database.beginWrite()
        try w.setEmbedded(geoKey, true)
        #expect(throws: AtollError.self) { try w.commit() }
        #expect(try database.beginRead().table(named: "Geo")?.spec.isEmbedded == false)

        // Making a class embedded is a change of its own: a commit with nothing else keeps it.
        w = try database.beginWrite()
        let soloKey = try w.createTable(TableSpec(name: "Solo", columns: [ColumnSpec(name: "x", type: .int)]))
        try w.commit()
        w = try database.beginWrite()
        try w.setEmbedded(soloKey, true)
        try w.commit()
        #expect(try database.beginRead().table(named: "Solo")?.spec.isEmbedded == true)
    }

    @Test func nestedValuesCreateEmbeddedObjectsOwnedByTheParent() throws {
        let realm = try realm()
        let c = try contact(realm)
        #expect(c.address?.street == "Main St 1")
        #expect(c.address?.geo?.lat == 59.9)
        #expect(c.previous.map(\.city) == ["Bergen", "Oslo"])
        #expect(c.byLabel["work"]??.city == "Tromsø")
        #expect(c.address!.residents.first!.isSameObject(as: c))
        #expect(addresses(realm) == 4)
        #expect(geos(realm) == 1)
    }

    @Test func settingTheLinkToNilDeletesTheEmbeddedObjectAndWhatItHolds() throws {
        let realm = try realm()
        let c = try contact(realm)
        let address = c.address!
        let geo = address.geo!
        try realm.write { c.address = nil }
        #expect(address.isInvalidated)
        #expect(geo.isInvalidated)
        #expect(addresses(realm) == 3)
        #expect(geos(realm) == 0)
    }

    @Test func assigningAnotherObjectReplacesAndDeletesTheOldOne() throws {
        let realm = try realm()
        let c = try contact(realm)
        let old = c.address!
        let fresh = EmbAddress()
        fresh.street = "New St 5"
        try realm.write {
            c.address = fresh
            // Deleted at once, inside the write, as in Realm.
            #expect(old.isInvalidated)
        }
        #expect(fresh.realm === realm, "the unmanaged object assigned is now managed")
        #expect(c.address!.isSameObject(as: fresh))
        #expect(c.address?.street == "New St 5")
        #expect(addresses(realm) == 4)
        #expect(geos(realm) == 0)
    }

    @Test func aManagedEmbeddedObjectCannotGetASecondOwner() throws {
        let realm = try realm()
        let a = try contact(realm, 1)
        let b = try contact(realm, 2)
        #expect(throws: AtollError.self) { try realm.write { b.address = a.address } }
        #expect(throws: AtollError.self) { try realm.write { b.previous.append(a.address!) } }
        #expect(throws: AtollError.self) { try realm.write { b.byLabel["home"] = a.address } }
        #expect(b.address?.street == "Main St 1")
        #expect(!a.address!.isSameObject(as: b.address))
        #expect(addresses(realm) == 8)
    }

    @Test func assigningFromValuesOfAnotherEmbeddedObjectCopiesIt() throws {
        let realm = try realm()
        let a = try contact(realm, 1)
        let b = try realm.write { realm.create(EmbContact.self, value: ["id": 2, "address": a.address!]) }
        #expect(b.address?.street == "Main St 1")
        #expect(b.address?.geo?.lon == 10.7)
        #expect(!b.address!.isSameObject(as: a.address))
        try realm.write { b.address!.street = "Changed" }
        #expect(a.address?.street == "Main St 1", "a copy, not a shared object")
    }

    @Test func embeddedObjectsCannotBeAddedOrCreatedOnTheirOwn() throws {
        let realm = try realm()
        let address = EmbAddress()
        let addError = #expect(throws: AtollError.self) { try realm.write { realm.add(address) } }
        #expect(addError?.message.contains("embedded") == true)
        #expect(address.realm == nil)
        #expect(throws: AtollError.self) { try realm.write { realm.create(EmbAddress.self, value: ["street": "x"]) } }
        realm.beginWrite()
        #expect(throws: AtollError.self) { _ = try realm.dynamicCreate("EmbAddress", value: ["street": "x"]) }
        realm.cancelWrite()
        #expect(addresses(realm) == 0)
    }

    @Test func removingFromAListOrMapDeletesTheEmbeddedObject() throws {
        let realm = try realm()
        let c = try contact(realm)
        let first = c.previous[0]
        let work = c.byLabel["work"]!!
        try realm.write {
            c.previous.remove(at: 0)
            c.byLabel.removeObject(for: "work")
        }
        #expect(first.isInvalidated)
        #expect(work.isInvalidated)
        #expect(c.previous.map(\.street) == ["Elm 3"])
        #expect(addresses(realm) == 2)
        try realm.write { c.previous.removeAll() }
        #expect(addresses(realm) == 1)
        try realm.write { c.previous.append(EmbAddress(value: ["street": "S"])) }
        #expect(c.previous.count == 1)
        try realm.write { c.previous[0] = EmbAddress(value: ["street": "T"]) }
        #expect(c.previous.map(\.street) == ["T"])
        #expect(addresses(realm) == 2)
    }

    @Test func assigningAWholeListReplacesItsEmbeddedObjects() throws {
        let realm = try realm()
        let c = try contact(realm)
        let old = Array(c.previous)
        try realm.write { c.previous = List([EmbAddress(value: ["street": "One"])]) }
        #expect(old.allSatisfy { $0.isInvalidated })
        #expect(c.previous.map(\.street) == ["One"])
        #expect(addresses(realm) == 3)
    }

    @Test func deletingTheParentDeletesItsEmbeddedObjectsRecursively() throws {
        let realm = try realm()
        let c = try contact(realm, 1)
        try contact(realm, 2)
        let address = c.address!
        let geo = address.geo!
        try realm.write { realm.delete(c) }
        #expect(address.isInvalidated)
        #expect(geo.isInvalidated)
        #expect(addresses(realm) == 4)
        #expect(geos(realm) == 1)
        try realm.write { realm.deleteAll() }
        #expect(addresses(realm) == 0)
        #expect(geos(realm) == 0)
    }

    @Test func deletingAnEmbeddedObjectUnlinksItFromItsParent() throws {
        let realm = try realm()
        let c = try contact(realm)
        try realm.write { realm.delete(c.address!) }
        #expect(c.address == nil)
        #expect(geos(realm) == 0)
        try realm.write { realm.delete(c.previous[1]) }
        #expect(c.previous.map(\.street) == ["Old Rd 2"])
    }

    @Test func queriesFollowKeyPathsThroughEmbeddedObjects() throws {
        let realm = try realm()
        try contact(realm, 1)
        try realm.write {
            realm.create(EmbContact.self, value: ["id": 2, "name": "Bo", "address": ["street": "Side 9", "city": "Bergen"],
                                                  "previous": [["city": "Trondheim"]]])
        }
        let contacts = realm.objects(EmbContact.self)
        #expect(contacts.filter("address.street == 'Main St 1'").map(\.id) == [1])
        #expect(contacts.filter("address.geo.lat > 50").map(\.id) == [1])
        #expect(contacts.filter("ANY previous.city == 'Trondheim'").map(\.id) == [2])
        #expect(contacts.filter("ANY previous.city == %@", "Oslo").map(\.id) == [1])
        #expect(contacts.filter("previous.@count == 2").map(\.id) == [1])
        #expect(contacts.filter("address == nil").isEmpty)
        #expect(contacts.where { $0.address.city == "Bergen" }.map(\.id) == [2])
        #expect(contacts.where { $0.previous.city == "Bergen" }.map(\.id) == [1])
        #expect(contacts.where { $0.address.geo.lon < 11 }.map(\.id) == [1])
        #expect(contacts.sorted(byKeyPath: "address.city").map(\.id) == [2, 1])
    }

    @Test func embeddedObjectsPersistAndVerifyChecksTheirOwners() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("embedded.atoll")
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [EmbContact.self]))
            try contact(realm)
            try realm.write { realm.objects(EmbContact.self).first!.previous.remove(at: 0) }
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [EmbContact.self]))
        let c = try #require(realm.object(ofType: EmbContact.self, forPrimaryKey: 1))
        #expect(c.address?.geo?.lat == 59.9)
        #expect(c.previous.map(\.street) == ["Elm 3"])
        let report = try Database.open(DatabaseConfiguration(path: path)).verify()
        #expect(report.tables.contains { $0.name == "EmbAddress" && $0.objects == 3 })
    }

    @Test func frozenParentsReadTheirEmbeddedObjects() throws {
        let realm = try realm()
        let c = try contact(realm)
        let frozen = c.freeze()
        try realm.write { c.address!.street = "Later" }
        #expect(frozen.address?.street == "Main St 1")
        #expect(frozen.address?.isFrozen == true)
        #expect(frozen.previous.first?.city == "Bergen")
        #expect(frozen.address!.thaw()?.street == "Later")
    }

    @Test func aChangeToAnEmbeddedObjectIsAChangeOfTheParentAlongAKeyPath() throws {
        let realm = try realm()
        let c = try contact(realm)
        var changes: [[String]] = []
        let token = c.observe(keyPaths: ["address.street", "previous.city"]) { (change: ObjectChange<EmbContact>) in
            if case .change(_, let properties) = change { changes.append(properties.map(\.name)) }
        }
        defer { token.invalidate() }
        try realm.write { c.address!.street = "Changed" }
        realm.refresh()
        try realm.write { c.address!.city = "Not watched" }
        realm.refresh()
        try realm.write { c.previous[1].city = "Moved" }
        realm.refresh()
        #expect(changes == [["address"], ["previous"]])
    }

    @Test func theDynamicAPIReadsAndWritesEmbeddedObjects() throws {
        let realm = try realm()
        try contact(realm)
        let c = try #require(realm.dynamicObjects("EmbContact").first)
        let address = try #require(c["address"] as? DynamicObject)
        #expect(address["street"] as? String == "Main St 1")
        try realm.write { c["address"] = ["street": "Dyn 1", "city": "Oslo"] }
        #expect(addresses(realm) == 4, "the old address and its geo went with the replacement")
        #expect(geos(realm) == 0)
        #expect(realm.objects(EmbContact.self).first?.address?.street == "Dyn 1")
    }

    @Test func aSyncedClassHoldingEmbeddedObjectsInPropertiesListsAndMapsSyncs() throws {
        let id = "embedded-sync-\(UUID().uuidString)"
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: id, objectTypes: [EmbContact.self]))
        #expect(realm.isEmpty)
        try realm.write {
            let c = EmbContact()
            c.id = 1
            let address = EmbAddress()
            address.street = "Main St 1"
            c.address = address
            let home = EmbAddress()
            home.city = "Oslo"
            c.byLabel["home"] = home
            realm.add(c)
        }
        let db = try Database.open(DatabaseConfiguration(inMemoryIdentifier: id))
        let replica = try SyncReplica.open(db, configuration: ReplicaConfiguration(realmID: "contacts"))
        try replica.extractLocalChanges()
        #expect(try replica.outgoingChangesets(after: 0).isEmpty == false)
        try replica.checkInvariants()
    }
}
