import Foundation
import Testing

@Suite struct ImportAndQueryTests {
    /// A sandbox with `pets.atoll` imported from the fixtures.
    func imported() throws -> CLISandbox {
        let sandbox = CLISandbox()
        try sandbox.write("schema.json", Fixtures.schema)
        try sandbox.write("data.json", Fixtures.data)
        let r = try sandbox.atoll("import", "pets.atoll", "--schema", "schema.json", "--data", "data.json")
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == "imported 6 objects into pets.atoll: 6 created, 0 updated\n")
        #expect(r.stderr == "")
        return sandbox
    }

    @Test func importCreatesTheDatabaseAndQueryPrintsATable() throws {
        let s = try imported()
        let r = try s.atoll("query", "pets.atoll", "Dog", "age > $0", "--arg", "1", "--sort", "age:desc")
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == """
        id  name    age  owner  collar
        --  ------  ---  -----  ---------------------------
        2   "Fido"  5    "bo"   null
        1   "Rex"   3    "ali"  {"color": "red", "size": 2}
        (2 objects)

        """)
    }

    @Test func queryPrintsJSONWithValuesAsInDataFiles() throws {
        let s = try imported()
        let r = try s.atoll("query", "pets.atoll", "Person", "name == 'ali'", "--json")
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == """
        [
          {"name": "ali", "age": 41, "best": "ali", "dogs": [3, 1], "born": "1983-04-05T06:07:08.123456789Z", "photo": "AAEC/w==", \
        "score": -0.0, "ratio": 0.1, "member": true, "card": "5e4f3a1c-8b6d-4c1f-9a3e-2b7c6d5e4f3a", "ref": "65f1c0d2a1b2c3d4e5000001", \
        "nicknames": ["al", "a"]}
        ]

        """)
        #expect(try s.atoll("query", "pets.atoll", "Dog", "age > 100", "--json").stdout == "[]\n")
    }

    @Test func argumentsAreJSONWithDatesDataLinksAndCollections() throws {
        let s = try imported()
        func names(_ args: String...) throws -> String {
            let r = try s.run(["query", "pets.atoll"] + args + ["--json"])
            #expect(r.status == 0, "\(r)")
            let objects = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
            return objects.map { "\($0["name"] ?? "?")" }.joined(separator: ",")
        }
        #expect(try names("Person", "born == $0", "--arg", "{\"$date\": \"1983-04-05T06:07:08.123456789Z\"}") == "ali", "nanoseconds are kept")
        #expect(try names("Person", "born < $0", "--arg", "{\"$date\": \"1983-04-05T06:07:08.123456788Z\"}") == "")
        #expect(try names("Person", "photo == $0", "--arg", "{\"$data\": \"AAEC/w==\"}") == "ali")
        #expect(try names("Dog", "owner == $0", "--arg", "\"ali\"", "--sort", "id") == "Rex", "a link compared with a primary key")
        #expect(try names("Dog", "owner == $0", "--arg", "\"nobody\"") == "")
        #expect(try names("Dog", "id IN $0", "--arg", "[3, 1]", "--sort", "id") == "Rex,Bolt", "an array is a collection argument")
        #expect(try names("Person", "ANY dogs == $0", "--arg", "2") == "bo")
        #expect(try names("Person", "card == $0", "--arg", "\"5E4F3A1C-8B6D-4C1F-9A3E-2B7C6D5E4F3A\"") == "ali")
        #expect(try names("Dog", "owners.@count > 0 AND name BEGINSWITH[c] $0", "--arg", "\"r\"") == "Rex", "linking objects are queryable")
        #expect(try names("Dog", "--sort", "name", "--limit", "2") == "Bolt,Fido")
    }

    @Test func deleteRemovesMatchesInOneTransactionAndPrintsTheCount() throws {
        let s = try imported()
        let r = try s.atoll("delete", "pets.atoll", "Dog", "age >= $0", "--arg", "3")
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == "2\n")
        #expect(try s.atoll("query", "pets.atoll", "Dog", "--json").stdout.contains("\"Bolt\""))
        let ali = try s.atoll("query", "pets.atoll", "Person", "name == 'ali'", "--json").stdout
        #expect(ali.contains("\"dogs\": [3]"), "lists drop deleted objects")
        #expect(try s.atoll("delete", "pets.atoll", "Dog", "id == 99").stdout == "0\n")
    }

    @Test func schemaPrintsWhatImportReads() throws {
        let s = try imported()
        let r = try s.atoll("schema", "pets.atoll")
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("\"name\": {\"type\": \"string\", \"indexed\": true}"))
        #expect(r.stdout.contains("\"owners\": {\"type\": \"linkingObjects\", \"objectType\": \"Person\", \"property\": \"dogs\"}"))
        // The printed schema creates an equal database schema.
        try s.write("printed.json", r.stdout)
        #expect(try s.atoll("import", "copy.atoll", "--schema", "printed.json").status == 0)
        #expect(try s.atoll("schema", "copy.atoll").stdout == r.stdout)
        // And checks an existing database.
        #expect(try s.atoll("import", "pets.atoll", "--schema", "printed.json").stdout == "checked pets.atoll: 3 classes\n")
    }

    @Test func statsVerifyCompactAndLog() throws {
        let s = try imported()
        let stats = try s.atoll("stats", "pets.atoll")
        #expect(stats.status == 0)
        for field in ["file size: ", "used: ", "free: ", "live versions: 1", "oldest pinned version: none", "objects in Dog: 3"] {
            #expect(stats.stdout.contains(field), "\(field)")
        }
        let verify = try s.atoll("verify", "pets.atoll")
        #expect(verify.status == 0)
        #expect(verify.stdout.hasPrefix("ok: version "))
        let copy = try s.atoll("compact", "pets.atoll", "--out", "small.atoll")
        #expect(copy.status == 0, "\(copy)")
        #expect(try s.atoll("dump", "small.atoll", "--canonical").stdout == (try s.atoll("dump", "pets.atoll", "--canonical").stdout))
        #expect(try s.atoll("compact", "pets.atoll").status == 0)
        #expect(try s.atoll("verify", "pets.atoll").status == 0)
        let log = try s.atoll("log", "pets.atoll")
        #expect(log.status == 0, "\(log)")
    }

    @Test func largeImportsStayFastAndTerminalFree() throws {
        let s = CLISandbox()
        try s.write("schema.json", Fixtures.schema)
        let dogs = (0..<20_000).map { "{\"id\": \($0), \"name\": \"dog\($0)\", \"owner\": \"p\($0 % 100)\"}" }
        let people = (0..<100).map { "{\"name\": \"p\($0)\", \"score\": \($0), \"member\": true, \"best\": \"p\(($0 + 1) % 100)\"}" }
        try s.write("big.json", "{\"Dog\": [\(dogs.joined(separator: ",\n"))], \"Person\": [\(people.joined(separator: ",\n"))]}")
        let start = Date()
        let r = try s.atoll("import", "big.atoll", "--schema", "schema.json", "--data", "big.json")
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr == "", "no progress bar when stderr is not a terminal")
        #expect(Date().timeIntervalSince(start) < 30)
        #expect(try s.atoll("query", "big.atoll", "Dog", "owner.best.name == 'p1'", "--json").stdout.components(separatedBy: "\n").count == 200 + 3)
    }
}
