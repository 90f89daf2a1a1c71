import Foundation
import Testing

@Suite struct DumpAndUpdateTests {
    func sandbox(importing data: String = Fixtures.data) throws -> CLISandbox {
        let s = CLISandbox()
        try s.write("schema.json", Fixtures.schema)
        try s.write("data.json", data)
        let r = try s.atoll("import", "a.atoll", "--schema", "schema.json", "--data", "data.json")
        #expect(r.status == 0, "\(r)")
        return s
    }

    @Test func aDumpImportsIntoAFreshDatabaseWithAnIdenticalCanonicalDump() throws {
        let s = try sandbox()
        let dump = try s.atoll("dump", "a.atoll")
        #expect(dump.status == 0, "\(dump)")
        try s.write("dump.json", dump.stdout)
        let r = try s.atoll("import", "b.atoll", "--schema", "schema.json", "--data", "dump.json")
        #expect(r.status == 0, "\(r)")
        let a = try s.atoll("dump", "a.atoll", "--canonical").stdout
        let b = try s.atoll("dump", "b.atoll", "--canonical").stdout
        #expect(a == b)
        #expect(a.hasPrefix("{\"Collar\":[],\"Dog\":[{\"age\":3,\"collar\":{\"color\":\"red\",\"size\":2},\"id\":1,\"name\":\"Rex\",\"owner\":\"ali\"}"))
        #expect(a.hasSuffix("}\n") && !a.dropLast().contains("\n") && !a.contains(": "), "no white space but the final newline")
        // The canonical dump imports too.
        try s.write("canonical.json", a)
        #expect(try s.atoll("import", "c.atoll", "--schema", "schema.json", "--data", "canonical.json").status == 0)
        #expect(try s.atoll("dump", "c.atoll", "--canonical").stdout == a)
    }

    @Test func equalContentsWrittenInAnotherOrderDumpIdentically() throws {
        let s = try sandbox()
        // The same objects, classes and keys in another order, in two imports.
        try s.write("part1.json", """
        {"Person": [{"member": false, "score": 1.5, "name": "bo"},
                    {"nicknames": ["al", "a"], "ref": "65F1C0D2A1B2C3D4E5000001", "card": "5E4F3A1C-8B6D-4C1F-9A3E-2B7C6D5E4F3A",
                     "member": true, "ratio": 0.10000000149011612, "score": -0.0, "photo": "AAEC/w==", "born": "1983-04-05T07:07:08.123456789+01:00",
                     "age": 41, "name": "ali"}],
         "Dog": [{"age": null, "name": "Bolt", "id": 3}, {"collar": {"size": 2, "color": "red"}, "owner": "ali", "age": 3, "name": "Rex", "id": 1}]}
        """)
        try s.write("part2.json", """
        {"Dog": [{"id": 2, "name": "Fido", "age": 5, "owner": "bo"}],
         "Person": [{"name": "bo", "best": "ali", "dogs": [2], "score": 1.5, "member": false},
                    {"name": "ali", "best": "ali", "dogs": [3, 1], "score": -0.0, "member": true}]}
        """)
        #expect(try s.atoll("import", "other.atoll", "--schema", "schema.json", "--data", "part1.json").status == 0)
        let r = try s.atoll("import", "other.atoll", "--schema", "schema.json", "--data", "part2.json", "--update", "modified")
        #expect(r.status == 0, "\(r)")
        #expect(try s.atoll("dump", "other.atoll", "--canonical").stdout == (try s.atoll("dump", "a.atoll", "--canonical").stdout))
    }

    @Test func specialNumbersRoundTrip() throws {
        let s = try sandbox(importing: """
        {"Person": [{"name": "nan", "score": "NaN", "ratio": "Infinity", "member": false},
                    {"name": "inf", "score": "-Infinity", "member": false},
                    {"name": "max", "score": 1.7976931348623157e308, "ratio": 3.4028235e38, "member": false},
                    {"name": "tiny", "score": 5e-324, "member": false},
                    {"name": "third", "score": 0.3333333333333333, "member": false}]}
        """)
        let dump = try s.atoll("dump", "a.atoll", "--canonical").stdout
        for text in ["\"score\":\"NaN\"", "\"ratio\":\"Infinity\"", "\"score\":\"-Infinity\"", "\"score\":1.7976931348623157e+308",
                     "\"ratio\":3.4028235e+38", "\"score\":5e-324", "\"score\":0.3333333333333333"] {
            #expect(dump.contains(text), "\(text)")
        }
        try s.write("dump.json", dump)
        #expect(try s.atoll("import", "b.atoll", "--schema", "schema.json", "--data", "dump.json").status == 0)
        #expect(try s.atoll("dump", "b.atoll", "--canonical").stdout == dump)
    }

    @Test func updateModesUpsertByPrimaryKey() throws {
        let s = try sandbox()
        try s.write("again.json", "{\"Dog\": [{\"id\": 1, \"name\": \"Rex II\"}, {\"id\": 4, \"name\": \"Pup\"}]}")
        let refused = try s.atoll("import", "a.atoll", "--schema", "schema.json", "--data", "again.json")
        #expect(refused.status == 65)
        #expect(refused.stderr == "atoll: again.json:1:17: an object of class 'Dog' with primary key 1 already exists; pass --update modified or --update all to update existing objects\n")
        let modified = try s.atoll("import", "a.atoll", "--schema", "schema.json", "--data", "again.json", "--update", "modified")
        #expect(modified.stdout == "imported 2 objects into a.atoll: 1 created, 1 updated\n")
        let rex = try s.atoll("query", "a.atoll", "Dog", "id == 1", "--json").stdout
        #expect(rex.contains("\"name\": \"Rex II\", \"age\": 3, \"owner\": \"ali\""), "properties not given keep their values")
        try s.write("all.json", "{\"Dog\": [{\"id\": 1, \"name\": \"Rex III\", \"age\": null}]}")
        #expect(try s.atoll("import", "a.atoll", "--schema", "schema.json", "--data", "all.json", "--update", "all").status == 0)
        #expect(try s.atoll("query", "a.atoll", "Dog", "id == 1", "--json").stdout.contains("\"name\": \"Rex III\", \"age\": null"))
        #expect(try s.atoll("import", "a.atoll", "--schema", "schema.json", "--update", "sometimes").status == 64)
    }

    @Test func watchReportsCommitsOfAnotherProcess() throws {
        let s = try sandbox()
        let watch = try s.start("watch", "a.atoll", "Dog", "age >= $0", "--arg", "3")
        #expect(watch.readLine() == "initial: 2 objects")
        try s.write("more.json", "{\"Dog\": [{\"id\": 7, \"name\": \"Max\", \"age\": 9}]}")
        #expect(try s.atoll("import", "a.atoll", "--schema", "schema.json", "--data", "more.json").status == 0)
        #expect(watch.readLine() == "change: insertions [2], deletions [], modifications []; 3 objects")
        #expect(try s.atoll("delete", "a.atoll", "Dog", "id == 1").stdout == "1\n")
        // Rex left ali's list of dogs, and Fido's owner's best friend is ali: a change of a linked
        // object counts as a modification of Fido, as in Realm.
        #expect(watch.readLine() == "change: insertions [], deletions [0], modifications [0]; 2 objects")
        try s.write("older.json", "{\"Dog\": [{\"id\": 2, \"name\": \"Fido\", \"age\": 6}]}")
        #expect(try s.atoll("import", "a.atoll", "--schema", "schema.json", "--data", "older.json", "--update", "modified").status == 0)
        #expect(watch.readLine() == "change: insertions [], deletions [], modifications [0]; 2 objects")
        #expect(watch.stop() == 0, "an interrupted watch exits cleanly")
        // The watch's pinned snapshot made the last commit keep its log (earlier ones are trimmed
        // once no reader needs them).
        let log = try s.atoll("log", "a.atoll").stdout
        #expect(log.hasSuffix(" Set Dog 2 age = 6\n"), "\(log)")
    }
}
