import AtollQuery
import AtollStorage
import Foundation
import Testing
import AtollTestSupport

/// Mutations of the evaluation suites' queries, bound and evaluated over the fixture's data:
/// every one either returns a result (the same through `run` and `count`) or throws
/// `.invalidQuery`; nothing crashes. `ATOLL_QUERY_CASES` scales the count (10× it; default 1000).
@Suite struct EvaluationFuzzTests {
    @Test func mutatedQueriesEvaluateOrFailCleanly() throws {
        let fixture = try QueryFixture()
        let seeds: [(String, String)] =
            (EvaluationTests.comparisonsCases + EvaluationTests.stringsCases + EvaluationTests.logicCases + EvaluationTests.personPathsCases
                + EvaluationTests.personAggregatesCases + EvaluationTests.nilsCases + EvaluationTests.literalsCases).map { ($0.query, "Person") }
            + (EvaluationTests.dogPathsCases + EvaluationTests.dogAggregatesCases).map { ($0.query, "Dog") }
            + EvaluationClauseTests.ordered.map { ($0.query, "Person") }
        let count = 10 * (ProcessInfo.processInfo.environment["ATOLL_QUERY_CASES"].flatMap(Int.init) ?? 100)
        var generator = SeededGenerator(seed: 0xE7A1)
        let r = try fixture.db.beginRead()
        defer { r.close() }
        let engine = QueryEngine(transaction: r)
        var evaluated = 0
        for _ in 0..<count {
            guard let (seed, className) = seeds.randomElement(using: &generator) else { continue }
            let query = FuzzTests.mutate(seed, corpus: QueryCorpus.all, using: &generator)
            let arguments = (0..<Int.random(in: 0...2, using: &generator)).compactMap { _ in FuzzTests.argumentPool.randomElement(using: &generator) }
            do {
                let bound = try engine.bind(query, on: className, arguments: arguments)
                let keys = try engine.run(bound)
                if bound.clauses.isEmpty { #expect(try engine.count(bound) == keys.count, "'\(query)'") }
                evaluated += 1
            } catch let e as AtollError {
                #expect(e.kind == .invalidQuery, "'\(query)' threw \(e)")
            }
        }
        #expect(evaluated > count / 20, "some mutations stay valid and are evaluated: \(evaluated) of \(count)")
    }
}
