import Foundation
import Testing

/// Arguments that begin with '-' (a predicate "-1 < age", a value -5) are never read as options
/// and never answered with help: values of --arg are taken as they are, and anything else is
/// refused with status 64 and the command line that works (the argument after --).
@Suite struct DashArgumentTests {
    func sandbox() throws -> CLISandbox {
        let s = CLISandbox()
        try s.write("schema.json", "[{\"name\": \"Dog\", \"primaryKey\": \"id\", \"properties\": {\"id\": \"int\", \"age\": \"int\"}}]")
        try s.write("data.json", "{\"Dog\": [{\"id\": 1, \"age\": 3}, {\"id\": 2, \"age\": -2}]}")
        #expect(try s.atoll("import", "f.atoll", "--schema", "schema.json", "--data", "data.json").status == 0)
        return s
    }

    @Test func predicatesThatBeginWithADashAreRefusedWithTheCommandThatWorks() throws {
        let s = try sandbox()
        for (args, word) in [(["query", "f.atoll", "Dog", "-1 < age"], "'-1 < age'"),
                             (["query", "f.atoll", "Dog", "-height > 3", "--json"], "'-height > 3'"),
                             (["delete", "f.atoll", "Dog", "-5 > age"], "'-5 > age'"),
                             (["watch", "f.atoll", "Dog", "-1 < age"], "'-1 < age'")] {
            let r = try s.run(args)
            #expect(r.status == 64, "\(args): \(r)")
            #expect(r.stdout == "", "\(args): never the help text: \(r.stdout.prefix(100))")
            #expect(r.errorLines.count == 1, "\(r.stderr)")
            #expect(r.stderr.hasPrefix("atoll: \(word) begins with '-'"), "\(r.stderr)")
            #expect(r.stderr.contains("put -- before"), "\(r.stderr)")
        }
        let hint = try s.run(["query", "f.atoll", "Dog", "-1 < age", "--json"]).stderr
        #expect(hint.contains("(atoll query f.atoll Dog --json -- '-1 < age')"), "\(hint)")
        // The command it suggests works.
        let r = try s.atoll("query", "f.atoll", "Dog", "--json", "--", "-1 < age")
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("\"id\": 1") && !r.stdout.contains("\"id\": 2"))
        #expect(try s.atoll("delete", "f.atoll", "Dog", "--", "-5 > age").stdout == "0\n")
    }

    @Test func argumentValuesMayBeginWithADash() throws {
        let s = try sandbox()
        let r = try s.atoll("query", "f.atoll", "Dog", "age < $0", "--arg", "-1", "--json")
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("\"id\": 2") && !r.stdout.contains("\"id\": 1"))
        #expect(try s.atoll("query", "f.atoll", "Dog", "age > $0 AND age < $1", "--arg", "-5", "--arg", "-1", "--json").stdout.contains("\"id\": 2"))
    }

    @Test func helpIsStillHelp() throws {
        let s = try sandbox()
        for args in [["query", "-h"], ["query", "--help"], ["-h"]] {
            let r = try s.run(args)
            #expect(r.status == 0, "\(args): \(r)")
            #expect(r.stdout.contains("USAGE:") || r.stdout.contains("OVERVIEW:"), "\(args): \(r.stdout.prefix(200))")
        }
    }
}
