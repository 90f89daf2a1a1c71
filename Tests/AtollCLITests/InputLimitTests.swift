import Foundation
import Testing

/// Input that decides how deep the tool recurses (key paths, nested predicates, nested JSON)
/// fails with one line and status 65 beyond its limit, never with a crash (a 10,000-component
/// key path made `atoll query` die of a stack overflow).
@Suite struct InputLimitTests {
    @Test func deepQueriesAndDataAreRefusedWithOneLine() throws {
        let s = CLISandbox()
        try s.write("schema.json", "[{\"name\": \"Dog\", \"primaryKey\": \"id\", \"properties\": {\"id\": \"int\", \"age\": \"int\", \"best\": \"Dog?\"}}]")
        try s.write("data.json", "{\"Dog\": [{\"id\": 1, \"age\": 3, \"best\": 1}, {\"id\": 2, \"age\": 5}]}")
        #expect(try s.atoll("import", "f.atoll", "--schema", "schema.json", "--data", "data.json").status == 0)
        func path(_ components: Int) -> String { (Array(repeating: "best", count: components - 1) + ["age"]).joined(separator: ".") }
        // At the limit: evaluated (dog 1 is its own best friend).
        let atLimit = try s.atoll("query", "f.atoll", "Dog", path(64) + " == 3", "--json")
        #expect(atLimit.status == 0, "\(atLimit)")
        #expect(atLimit.stdout.contains("\"id\": 1") && !atLimit.stdout.contains("\"id\": 2"))
        for (predicate, words) in [(path(10_000) + " > 1", "more than 64 components"),
                                   (path(65) + " > 1", "more than 64 components"),
                                   (String(repeating: "(", count: 10_000) + "age > 1" + String(repeating: ")", count: 10_000), "nests more than 100 levels"),
                                   (String(repeating: "NOT ", count: 10_000) + "age > 1", "nests more than 100 levels")] {
            let r = try s.atoll("query", "f.atoll", "Dog", predicate)
            #expect(r.status == 65, "\(r.status) \(r.stderr.prefix(300))")
            #expect(r.errorLines.count == 1 && r.stderr.contains(words), "\(r.stderr.prefix(300))")
        }
        var nested = "{\"id\": 100, \"age\": 1}"
        for i in 0..<60 { nested = "{\"id\": \(101 + i), \"age\": 1, \"best\": \(nested)}" }
        try s.write("deep.json", "{\"Dog\": [\(nested)]}")
        let deep = try s.atoll("import", "f.atoll", "--schema", "schema.json", "--data", "deep.json")
        #expect(deep.status == 65, "\(deep)")
        #expect(deep.errorLines.count == 1 && deep.stderr.contains("objects are nested more than 50 levels deep"), "\(deep.stderr)")
        try s.write("deeper.json", "{\"Dog\": " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}")
        let deeper = try s.atoll("import", "f.atoll", "--schema", "schema.json", "--data", "deeper.json")
        #expect(deeper.status == 65, "\(deeper)")
        #expect(deeper.errorLines.count == 1 && deeper.stderr.contains("nested more than 128 levels deep"), "\(deeper.stderr)")
    }
}
