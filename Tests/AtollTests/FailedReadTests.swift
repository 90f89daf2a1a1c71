import Atoll
import AtollTestSupport
import Foundation
import Testing

// Failed reads (README, "Failed reads"): a page that cannot be read is never turned into a
// value. Throwing APIs throw the storage error, notifications deliver `.error`, and accessors
// that cannot throw stop the program with an `Atoll:` message.

/// A file with `dogCount` dogs (several cluster leaves) whose leaf holding dog 1500 is damaged,
/// person "q" listing dog 1500 and person "p" listing dog 1; closed when returned.
private func damagedFile(_ dir: TemporaryDirectory, _ damage: PageDamage = .zeroed) throws -> Realm.Configuration {
    let config = Realm.Configuration(fileURL: URL(fileURLWithPath: dir.file("damaged.atoll")), objectTypes: [Dog.self, Person.self])
    func populate() throws {
        let realm = try Realm(configuration: config)
        try realm.write {
            for i in 0..<2745 { realm.create(Dog.self, value: ["id": i, "name": String(format: "dog-%05d", i), "age": i % 17]) }
            let q = realm.create(Person.self, value: ["name": "q"])
            q.dogs.append(realm.object(ofType: Dog.self, forPrimaryKey: 1500)!)
            let p = realm.create(Person.self, value: ["name": "p"])
            p.dogs.append(realm.object(ofType: Dog.self, forPrimaryKey: 1)!)
        }
    }
    try populate()
    let pages = try damage.apply(toFile: dir.file("damaged.atoll"), pageType: PageDamage.clusterLeaf, containing: "dog-01500")
    #expect(pages >= 1)
    return config
}

@Suite struct FailedReadTests {
    @Test(arguments: PageDamage.allCases)
    func throwingAPIsThrowTheStorageError(_ damage: PageDamage) throws {
        let dir = TemporaryDirectory()
        let realm = try Realm(configuration: try damagedFile(dir, damage))
        let dynamicDogs = try realm.dynamicObjects(throwing: "Dog")
        func expectCorrupted(_ what: String, _ body: () throws -> Void) {
            do {
                try body()
                Issue.record("\(what) read a damaged page without an error")
            } catch let e as AtollError {
                #expect(e.kind == .fileCorrupted, "\(what): \(e)")
                #expect(e.message.contains("page"), "\(what) names the page: \(e.message)")
            } catch {
                Issue.record("\(what): \(error)")
            }
        }
        expectCorrupted("objects()") { _ = try dynamicDogs.objects() }
        expectCorrupted("evaluatedCount() of a filter") { _ = try dynamicDogs.filter("age > 3").evaluatedCount() }
        expectCorrupted("a sorted prefix") { _ = try dynamicDogs.sorted(byKeyPath: "name").objects(limit: 1) }
        expectCorrupted("a primary-key lookup") { _ = try realm.dynamicObject(throwingOfType: "Dog", forPrimaryKey: 1500) }
        expectCorrupted("value(forProperty:) of a link list") {
            let q = try #require(try realm.dynamicObject(throwingOfType: "Person", forPrimaryKey: "q"))
            let dogs = try #require(try q.value(forProperty: "dogs") as? [DynamicObject])
            _ = try dogs[0].value(forProperty: "name")
        }
        expectCorrupted("dumpJSON") { _ = try realm.dumpJSON() }
        expectCorrupted("a write deleting the damaged objects") { try realm.write { try realm.delete(try realm.dynamicObjects("Dog").filter("id >= 1000").objects()) } }
        expectCorrupted("writeCopy") { try realm.writeCopy(toFile: URL(fileURLWithPath: dir.file("copy.atoll"))) }
        // What lies on undamaged pages still reads, through every API.
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 1)?.name == "dog-00001")
        #expect(try dynamicDogs.filter("id IN {1, 2}").evaluatedCount() == 2)
        #expect(realm.objects(Dog.self).count == 2745, "the count of a whole class is stored, not read from its leaves")
    }

    @Test func collectionNotificationsDeliverAnErrorInsteadOfInitial() throws {
        let dir = TemporaryDirectory()
        let realm = try Realm(configuration: try damagedFile(dir))
        var changes: [String] = []
        let token = realm.objects(Dog.self).filter("age > 3").observe { change in
            switch change {
            case .initial(let r): changes.append("initial \(r.count)")
            case .update: changes.append("update")
            case .error(let e): changes.append("error \((e as? AtollError)?.kind.rawValue ?? "\(e)")")
            }
        }
        #expect(changes == ["error fileCorrupted"])
        var dynamicChanges: [String] = []
        let dynamicToken = realm.dynamicObjects("Dog").observe { change in
            if case .error(let e as AtollError) = change { dynamicChanges.append(e.kind.rawValue) } else { dynamicChanges.append("other") }
        }
        #expect(dynamicChanges == ["fileCorrupted"])
        // Nothing more is delivered to them once they failed.
        try realm.write { realm.create(Dog.self, value: ["id": 9000, "name": "new", "age": 5]) }
        #expect(changes == ["error fileCorrupted"])
        #expect(dynamicChanges == ["fileCorrupted"])
        token.invalidate()
        dynamicToken.invalidate()
    }

    @Test func notificationsThatFailLaterDeliverOneErrorAndStop() throws {
        let dir = TemporaryDirectory()
        let realm = try Realm(configuration: try damagedFile(dir))
        let people = realm.objects(Person.self)
        let q = try #require(realm.object(ofType: Person.self, forPrimaryKey: "q"))
        var resultsChanges: [String] = []
        let resultsToken = people.observe { change in
            switch change {
            case .initial(let r): resultsChanges.append("initial \(r.count)")
            case .update(_, let d, let i, let m): resultsChanges.append("update \(d) \(i) \(m)")
            case .error(let e): resultsChanges.append("error \((e as? AtollError)?.kind.rawValue ?? "\(e)")")
            }
        }
        var listChanges: [String] = []
        let listToken = q.dogs.observe { change in
            switch change {
            case .initial(let l): listChanges.append("initial \(l.count)")
            case .update: listChanges.append("update")
            case .error(let e): listChanges.append("error \((e as? AtollError)?.kind.rawValue ?? "\(e)")")
            }
        }
        var objectChanges: [String] = []
        let objectToken = q.observe(keyPaths: ["dogs.owner.name"]) { (change: ObjectChange<Person>) in
            switch change {
            case .change: objectChanges.append("change")
            case .deleted: objectChanges.append("deleted")
            case .error(let e): objectChanges.append("error \((e as? AtollError)?.kind.rawValue ?? "\(e)")")
            }
        }
        #expect(resultsChanges == ["initial 2"])
        #expect(listChanges == ["initial 1"])
        #expect(objectChanges.isEmpty)
        // A commit touching the people: whether q changed depends on dog 1500, which cannot be
        // read. "Not modified" would be a guess, so each observer gets the error, once.
        let p = try #require(realm.object(ofType: Person.self, forPrimaryKey: "p"))
        try realm.write { p.age = 30 }
        #expect(resultsChanges == ["initial 2", "error fileCorrupted"])
        #expect(listChanges == ["initial 1", "error fileCorrupted"])
        #expect(objectChanges == ["error fileCorrupted"])
        try realm.write { p.age = 31 }
        #expect(resultsChanges.count == 2 && listChanges.count == 2 && objectChanges.count == 1)
        resultsToken.invalidate()
        listToken.invalidate()
        objectToken.invalidate()
    }

    @Test func accessorsThatCannotThrowStopTheProgramNamingTheDamage() throws {
        let dir = TemporaryDirectory()
        for how in ["iterate", "filter-count", "primary-key", "subscript", "sum", "sorted-first", "list-element", "list-filter"] {
            let (status, stderr) = try ObjectHelper.run(["read-damaged", how, dir.file("\(how).atoll")])
            #expect(status.bySignal || status.code != 0, "\(how) must stop the process")
            #expect(stderr.contains("Atoll: cannot read "), "\(how): \(stderr)")
            #expect(stderr.contains("the database file is corrupted: "), "\(how) names the damage: \(stderr)")
            #expect(stderr.contains("atoll verify"), "\(how) says what to do: \(stderr)")
        }
    }
}
