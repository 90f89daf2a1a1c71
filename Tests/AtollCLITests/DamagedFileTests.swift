import Atoll
import AtollTestSupport
import Foundation
import Testing

/// A damaged database is never read as data: every read command prints one line naming the
/// damage and exits 1, instead of printing an empty or partial answer (README, "Failed reads").
///
/// The damage is real: pages of a copy of the database are zeroed or overwritten in place. The
/// storage layer refuses a page of the wrong type even before page checksums are checked on
/// read, so these files fail the same way with or without that check.
@Suite struct DamagedFileTests {
    static let schema = """
    [
      {"name": "Person", "primaryKey": "name", "properties": {"name": "string", "city": "string",
        "dogs": {"type": "linkingObjects", "objectType": "Dog", "property": "owner"}}},
      {"name": "Dog", "primaryKey": "id", "properties": {"id": "int", "name": "string", "age": "int", "owner": "Person?"}}
    ]
    """
    static let dogCount = 2745

    /// `pets.atoll` with `dogCount` dogs (several cluster leaves) and 50 people.
    func sandbox() throws -> CLISandbox {
        let s = CLISandbox()
        try s.write("schema.json", Self.schema)
        let dogs = (0..<Self.dogCount).map { "{\"id\": \($0), \"name\": \"dog-\(String(format: "%05d", $0))\", \"age\": \($0 % 17), \"owner\": \"person-\($0 % 50)\"}" }
        let people = (0..<50).map { "{\"name\": \"person-\($0)\", \"city\": \"city-\($0)\"}" }
        try s.write("data.json", "{\"Dog\": [\(dogs.joined(separator: ",\n"))], \"Person\": [\(people.joined(separator: ",\n"))]}")
        let r = try s.atoll("import", "pets.atoll", "--schema", "schema.json", "--data", "data.json")
        #expect(r.status == 0, "\(r)")
        return s
    }

    /// Damages the pages of `pageType` holding `marker` in `file` of the sandbox.
    @discardableResult
    func damage(_ s: CLISandbox, _ file: String, pageType: UInt8, containing marker: String, _ damage: PageDamage) throws -> Int {
        try damage.apply(toFile: s.file(file), pageType: pageType, containing: marker)
    }

    /// Runs a command that must fail on the damage: one line naming it, exit status 1, nothing
    /// on stdout, no crash.
    func expectDamaged(_ s: CLISandbox, _ args: [String], mentioning words: [String] = ["corrupted"],
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let r = try s.run(args)
        #expect(r.status == 1, "\(args): \(r)", sourceLocation: sourceLocation)
        #expect(r.stdout == "", "\(args) printed data from a damaged file: \(r.stdout.prefix(300))", sourceLocation: sourceLocation)
        #expect(r.errorLines.count == 1, "\(args): exactly one line: \(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.hasPrefix("atoll: "), "\(args): \(r.stderr)", sourceLocation: sourceLocation)
        for w in words { #expect(r.stderr.contains(w), "\(args): \(r.stderr)", sourceLocation: sourceLocation) }
    }

    @Test(arguments: PageDamage.allCases)
    func readCommandsFailOnADamagedTableLeaf(_ kind: PageDamage) throws {
        let s = try sandbox()
        let healthy = try s.atoll("query", "pets.atoll", "Dog", "TRUEPREDICATE", "--json")
        #expect(healthy.status == 0)
        #expect(healthy.stdout.components(separatedBy: "\n").count == Self.dogCount + 3)
        #expect(try damage(s, "pets.atoll", pageType: PageDamage.clusterLeaf, containing: "dog-01500", kind) >= 1)

        // The user's report: this printed `[]` and exited 0.
        try expectDamaged(s, ["query", "pets.atoll", "Dog", "TRUEPREDICATE"], mentioning: ["corrupted", "page"])
        try expectDamaged(s, ["query", "pets.atoll", "Dog", "TRUEPREDICATE", "--json"])
        try expectDamaged(s, ["query", "pets.atoll", "Dog", "age > 3 AND name BEGINSWITH 'dog'", "--sort", "name:desc"])
        try expectDamaged(s, ["query", "pets.atoll", "Dog", "id == 1500"])
        try expectDamaged(s, ["query", "pets.atoll", "Person", "SUBQUERY(dogs, $d, $d.age > 3).@count > 0"])
        try expectDamaged(s, ["query", "pets.atoll", "Dog", "TRUEPREDICATE", "--limit", "1", "--sort", "age"])
        try expectDamaged(s, ["dump", "pets.atoll"])
        try expectDamaged(s, ["dump", "pets.atoll", "--canonical"])
        try expectDamaged(s, ["delete", "pets.atoll", "Dog", "age > 3"])
        // Objects on other pages still read: the damage is reported where it is, not guessed.
        let person = try s.atoll("query", "pets.atoll", "Person", "name == 'person-1'", "--json")
        #expect(person.status == 0, "\(person)")
        #expect(person.stdout.contains("\"city\": \"city-1\""))
        // `verify` names the damage too.
        try expectDamaged(s, ["verify", "pets.atoll"])
    }

    @Test(arguments: PageDamage.allCases)
    func schemaAndStatsFailOnADamagedCatalog(_ kind: PageDamage) throws {
        let s = try sandbox()
        // The catalog (a B+tree) holds every class's schema and table roots.
        #expect(try damage(s, "pets.atoll", pageType: PageDamage.btreeLeaf, containing: "owner", kind) >= 1)
        for command in [["schema"], ["stats"], ["dump"], ["log"], ["query", "Person"], ["watch", "Dog"]] {
            try expectDamaged(s, [command[0], "pets.atoll"] + command.dropFirst(), mentioning: [])
        }
    }

    @Test func watchReportsADamagedTableAndExits() throws {
        let s = try sandbox()
        try damage(s, "pets.atoll", pageType: PageDamage.clusterLeaf, containing: "dog-01500", .zeroed)
        try expectDamaged(s, ["watch", "pets.atoll", "Dog", "age > 3"])
        try expectDamaged(s, ["watch", "pets.atoll", "Dog"])
    }

    @Test func logFailsWhenItCannotNameTheObjects() throws {
        let s = try sandbox()
        // A reader in this process keeps the history of the next commit.
        try withExtendedLifetime(try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: s.file("pets.atoll")), objectTypes: []),
                                           dynamicSchema: nil)) {
            try s.write("update.json", "{\"Person\": [{\"name\": \"person-7\", \"city\": \"elsewhere\"}]}")
            #expect(try s.atoll("import", "pets.atoll", "--schema", "schema.json", "--data", "update.json", "--update", "modified").status == 0)
        }
        let log = try s.atoll("log", "pets.atoll")
        #expect(log.status == 0, "\(log)")
        #expect(log.stdout.contains("Set Person \"person-7\" city = \"elsewhere\""), "\(log)")
        // Person objects are named by their primary key, read from the Person table.
        #expect(try damage(s, "pets.atoll", pageType: PageDamage.clusterLeaf, containing: "person-7", .zeroed) >= 1)
        try expectDamaged(s, ["log", "pets.atoll"])
    }

    /// `atoll studio` on a damaged file answers a query that reads the damage with a 500 and
    /// the damage named, never with an empty or partial page of objects.
    @Test func studioReportsTheDamageInsteadOfAnEmptyPage() throws {
        let s = try sandbox()
        try damage(s, "pets.atoll", pageType: PageDamage.clusterLeaf, containing: "dog-01500", .zeroed)
        let studio = try s.start("studio", "pets.atoll")
        let line = try #require(studio.readLine(timeout: 30), "the studio printed nothing")
        let port = try #require(Int(line.split(separator: ":").last?.prefix { $0.isNumber } ?? ""), "\(line)")
        let page = try StatusHTTP.get(port: port, path: "/api/query?class=Dog&q=age+%3E%3D+0&limit=5000")
        #expect(page.status == 500, "\(page.status): \(page.body.prefix(300))")
        #expect(page.body.contains("corrupted") && !page.body.contains("\"objects\""), "\(page.body.prefix(300))")
        #expect(studio.stop() == 0)
    }
}
