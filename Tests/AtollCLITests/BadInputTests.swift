import Foundation
import Testing

/// Every kind of bad input: exactly one line on stderr naming the problem (with file and
/// position where there is one), nothing on stdout, a status below 128, and nothing written.
@Suite struct BadInputTests {
    func sandbox() throws -> CLISandbox {
        let s = CLISandbox()
        try s.write("schema.json", Fixtures.schema)
        try s.write("data.json", Fixtures.data)
        let r = try s.atoll("import", "pets.atoll", "--schema", "schema.json", "--data", "data.json")
        #expect(r.status == 0, "\(r)")
        return s
    }

    /// Runs a failing command and checks the common rules; returns its one error line.
    func failure(_ s: CLISandbox, status: Int32, _ args: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let r = try s.run(args)
        #expect(r.status == status, "\(r)", sourceLocation: sourceLocation)
        #expect(r.stdout == "", sourceLocation: sourceLocation)
        #expect(r.errorLines.count == 1, "exactly one line: \(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.hasPrefix("atoll: "), sourceLocation: sourceLocation)
        #expect(!r.stderr.contains("Fatal error") && !r.stderr.contains("Stack"), sourceLocation: sourceLocation)
        return String(r.stderr.dropLast())
    }

    @Test func missingDatabasesAreNeverCreated() throws {
        let s = try sandbox()
        for command in ["query", "dump", "schema", "stats", "verify", "log", "compact"] {
            var args = [command, "dir/missing.atoll"]
            if command == "query" { args.append("Dog") }
            let r = try s.run(args)
            #expect(r.status == 66, "\(command): \(r)")
            #expect(r.stderr == "atoll: no database at 'dir/missing.atoll'\n", "\(command)")
        }
        #expect(try failure(s, status: 66, "delete", "missing.atoll", "Dog", "id == 1") == "atoll: no database at 'missing.atoll'")
        #expect(try failure(s, status: 66, "watch", "missing.atoll", "Dog") == "atoll: no database at 'missing.atoll'")
        #expect(!s.exists("dir") && !s.exists("missing.atoll") && !s.exists("missing.atoll.lock"))
    }

    @Test func malformedSchemasNameFileAndPosition() throws {
        let s = try sandbox()
        try s.write("broken.json", "[\n  {\"name\": \"Dog\", \"properties\": {\"id\": \"int\"}\n")
        #expect(try failure(s, status: 65, "import", "new.atoll", "--schema", "broken.json")
            == "atoll: broken.json:3:1: unexpected end of file inside an object")
        try s.write("unknown.json", "[{\"name\": \"Dog\", \"properties\": {\"owner\": \"Persn\"}}]")
        #expect(try failure(s, status: 65, "import", "new.atoll", "--schema", "unknown.json")
            == "atoll: unknown.json:1:42: class 'Dog', property 'owner': 'Persn' is neither a type (bool, int, float, double, string, data, date, uuid, objectId, decimal128, mixed) nor a class of the schema")
        #expect(try failure(s, status: 66, "import", "new.atoll", "--schema", "nowhere.json")
            == "atoll: cannot read the schema file 'nowhere.json': No such file or directory")
        #expect(!s.exists("new.atoll"))
    }

    @Test func badDataNamesFileAndPositionAndChangesNothing() throws {
        let s = try sandbox()
        let before = try s.atoll("dump", "pets.atoll", "--canonical").stdout
        let version = try s.atoll("stats", "pets.atoll").stdout.split(separator: "\n").first { $0.hasPrefix("version:") }
        let cases: [(String, String)] = [
            ("{\"Dog\": [{\"id\": 10, \"name\": \"A\"},\n {\"id\": 11, \"name\": \"B\", \"colour\": \"red\"}]}",
             "atoll: bad.json:2:26: 'Dog' has no property 'colour'; did you mean 'collar'?"),
            ("{\"Dgo\": []}", "atoll: bad.json:1:2: unknown class 'Dgo'; did you mean 'Dog'? (the schema has Collar, Dog, Person)"),
            ("{\"Dog\": [{\"id\": 10, \"name\": 5}]}", "atoll: bad.json:1:29: 'Dog.name' is string: expected a string, found a number"),
            ("{\"Dog\": [{\"id\": 10, \"name\": \"A\", \"owner\": \"zed\"}]}",
             "atoll: bad.json:1:43: 'Dog.owner': no 'Person' object has primary key \"zed\", neither in the database nor in this file"),
            ("{\"Dog\": [{\"id\": 10, \"name\": \"A\"}, {\"id\": 10, \"name\": \"B\"}]}",
             "atoll: bad.json:1:42: an object of class 'Dog' with primary key 10 already exists; pass --update modified or --update all to update existing objects"),
            ("{\"Dog\": [{\"id\": 10}]}", "atoll: bad.json:1:10: this new 'Dog' has no value for its required property 'name'"),
            ("{\"Dog\": [{\"name\": \"A\"}]}", "atoll: bad.json:1:10: this 'Dog' has no value for its primary key 'id'"),
            ("{\"Person\": [{\"name\": \"x\", \"score\": 1, \"member\": true, \"born\": \"2024-13-01T00:00:00Z\"}]}",
             "atoll: bad.json:1:63: 'Person.born' is date?: \"2024-13-01T00:00:00Z\": month 13 is not 01...12"),
            ("{\"Person\": [{\"name\": \"x\", \"score\": 1, \"member\": true, \"photo\": \"not base64!\"}]}",
             "atoll: bad.json:1:64: 'Person.photo' is data?: \"not base64!\" is not valid base64"),
            ("{\"Dog\": [{\"id\": 10, \"name\": \"A\", \"owners\": []}]}",
             "atoll: bad.json:1:34: 'Dog.owners' is a linking objects property; it is computed from the links and cannot be imported"),
            ("{\"Dog\": [{\"id\": 10, \"name\": \"A\"}], \"Dog2\"", "atoll: bad.json:1:42: unexpected end of file; expected ':' after \"Dog2\""),
            ("[]", "atoll: bad.json:1:1: a data file is a JSON object mapping class names to arrays of objects, such as {\"Dog\": [{\"name\": \"Rex\"}]}, not an array"),
            ("{\"Dog\": [{\"id\": 99999999999999999999, \"name\": \"A\"}]}", "atoll: bad.json:1:17: 'Dog.id' is int: 99999999999999999999 is out of the range of a 64-bit integer"),
        ]
        for (data, message) in cases {
            try s.write("bad.json", data)
            #expect(try failure(s, status: 65, "import", "pets.atoll", "--schema", "schema.json", "--data", "bad.json").hasPrefix(message), "\(data)")
        }
        #expect(try failure(s, status: 66, "import", "pets.atoll", "--schema", "schema.json", "--data", "nowhere.json")
            == "atoll: cannot read the data file 'nowhere.json': No such file or directory")
        #expect(try s.atoll("dump", "pets.atoll", "--canonical").stdout == before, "failed imports change nothing")
        #expect(try s.atoll("stats", "pets.atoll").stdout.split(separator: "\n").first { $0.hasPrefix("version:") } == version, "and commit nothing")
        // Into a database the import would create: no file is left behind.
        try s.write("bad.json", "{\"Dog\": [{\"id\": 10, \"name\": \"A\", \"owner\": \"zed\"}]}")
        _ = try failure(s, status: 65, "import", "fresh.atoll", "--schema", "schema.json", "--data", "bad.json")
        #expect(!s.exists("fresh.atoll") && !s.exists("fresh.atoll.lock"))
    }

    @Test func aSchemaThatDiffersFromTheDatabaseIsRefused() throws {
        let s = try sandbox()
        try s.write("other.json", "[{\"name\": \"Dog\", \"primaryKey\": \"id\", \"properties\": {\"id\": \"string\", \"name\": \"string\"}}]")
        let line = try failure(s, status: 65, "import", "pets.atoll", "--schema", "other.json")
        #expect(line.hasPrefix("atoll: the schema does not match the classes in '"))
        #expect(line.contains("'Dog.id' is string in the schema but int in the file"))
        #expect(line.contains("'Dog.age' (int?) is in the file but not in the schema"))
    }

    @Test func invalidQueriesAndArguments() throws {
        let s = try sandbox()
        #expect(try failure(s, status: 65, "query", "pets.atoll", "Dog", "agee > 1") == "atoll: unknown property 'agee' on Dog at offset 0 (did you mean 'age'?)")
        #expect(try failure(s, status: 65, "query", "pets.atoll", "Dog", "age >") .hasPrefix("atoll: "))
        #expect(try failure(s, status: 65, "query", "pets.atoll", "Dgo").hasSuffix("has no class 'Dgo'; did you mean 'Dog'?"))
        #expect(try failure(s, status: 65, "query", "pets.atoll", "__atoll_meta").contains("has no class '__atoll_meta'"))
        #expect(try failure(s, status: 65, "query", "pets.atoll", "Dog", "age > $0") .contains("$0"))
        #expect(try failure(s, status: 65, "query", "pets.atoll", "Dog", "age > $0", "--arg", "{\"x\": 1}")
            == "atoll: --arg $0:1:1: an object argument is {\"$date\": \"ISO-8601\"}, {\"$data\": \"base64\"}, {\"$uuid\": \"...\"}, {\"$oid\": \"...\"} or {\"$numberDecimal\": \"...\"}")
        #expect(try failure(s, status: 65, "query", "pets.atoll", "Dog", "age > $0", "--arg", "[1,")
            == "atoll: --arg $0:1:4: unexpected end of file; expected a value")
        #expect(try failure(s, status: 65, "query", "pets.atoll", "Person", "born > $0", "--arg", "{\"$date\": \"yesterday\"}")
            .hasPrefix("atoll: --arg $0:1:11: \"yesterday\": expected an ISO-8601 date"))
        #expect(try failure(s, status: 65, "query", "pets.atoll", "Dog", "--sort", "nme") == "atoll: cannot sort 'Dog' by 'nme': unknown property 'nme' on Dog")
        #expect(try failure(s, status: 65, "delete", "pets.atoll", "Dog", "name == 5").hasPrefix("atoll: cannot compare"))
        #expect(try failure(s, status: 64, "query", "pets.atoll") == "atoll: Missing expected argument '<type>' (see 'atoll query --help')")
        #expect(try failure(s, status: 64, "query", "pets.atoll", "Dog", "--sort", "name:sideways").hasPrefix("atoll: --sort 'name:sideways' is not"))
        #expect(try failure(s, status: 64, "frobnicate") == "atoll: Unexpected argument 'frobnicate' (see 'atoll --help')")
    }

    @Test func damagedDatabasesAreReportedNotCrashedOn() throws {
        let s = try sandbox()
        try s.write("garbage.atoll", String(repeating: "not a database ", count: 1000))
        #expect(try failure(s, status: 1, "query", "garbage.atoll", "Dog").contains("garbage.atoll"))
        #expect(try failure(s, status: 1, "verify", "garbage.atoll").contains("garbage.atoll"))
        // One flipped byte in a data page: verify finds the checksum mismatch.
        var bytes = try s.read("pets.atoll")
        let page = 4096 * 4 + 200
        #expect(bytes.count > page)
        bytes[page] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: s.file("flipped.atoll")))
        let line = try failure(s, status: 1, "verify", "flipped.atoll")
        #expect(line.contains("corrupted"), "\(line)")
        #expect(try failure(s, status: 73, "compact", "pets.atoll", "--out", "garbage.atoll") == "atoll: 'garbage.atoll' already exists; compact writes only to a new file")
    }
}
