import AtollQuery
import AtollStorage
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The nesting limit keeps parsing, binding and releasing a query within a small stack: every
/// worst case at the limit runs on a thread with a 512 KiB stack (Darwin's secondary-thread
/// size, the smallest in common use). A regression here crashes the test process.
@Suite struct StackSafetyTests {
    /// `levels` SUBQUERYs, each iterating the previous one's element (valid against TestSchema).
    static func nestedSubqueries(levels: Int) -> String {
        var query = "age > 1"
        for level in stride(from: levels - 1, through: 0, by: -1) {
            let collection = level == 0 ? "dogs" : "$v\(level - 1).\(level % 2 == 0 ? "dogs" : "owners")"
            query = "SUBQUERY(\(collection), $v\(level), \(query)).@count > 0"
        }
        return query
    }

    static var worstCasesAtTheLimit: [String] {
        let depth = QueryLimits.nestingDepthMax
        return [
            String(repeating: "(", count: depth) + "age == 1" + String(repeating: ")", count: depth),
            String(repeating: "(age == 1 OR ", count: depth) + "age == 2" + String(repeating: ")", count: depth),
            String(repeating: "NOT ", count: depth) + "age == 1",
            String(repeating: "!(", count: depth / 2) + "age == 1" + String(repeating: ")", count: depth / 2),
            nestedSubqueries(levels: depth / QueryLimits.subqueryNestingCost),
            "age IN " + String(repeating: "{", count: depth) + String(repeating: "}", count: depth),
        ]
    }

    @Test func worstCasesAtTheLimitBindOnA512KiBStack() {
        final class Work: @unchecked Sendable {
            let queries: [String]
            var results: [String] = []
            init(_ queries: [String]) { self.queries = queries }
        }
        let work = Work(Self.worstCasesAtTheLimit)
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, 512 * 1024)
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let context = Unmanaged.passRetained(work).toOpaque()
        let status = pthread_create(&thread, &attributes, { raw in
            guard let raw else { return nil }
            let work = Unmanaged<Work>.fromOpaque(raw).takeRetainedValue()
            for query in work.queries {
                do {
                    let bound = try BoundQuery(query, on: "Person", schema: TestSchema.schema)
                    work.results.append("bound \(bound.clauses.count)")
                } catch let error as AtollError {
                    work.results.append(error.message)
                } catch {
                    work.results.append("unexpected \(error)")
                }
            }
            return nil
        }, context)
        #expect(status == 0)
        #if canImport(Glibc)
        pthread_join(thread, nil)
        #else
        if let thread { pthread_join(thread, nil) }
        #endif
        pthread_attr_destroy(&attributes)
        #expect(work.results.count == work.queries.count)
        #expect(work.results.dropLast().allSatisfy { $0 == "bound 0" }, "\(work.results)")
        #expect(work.results.last?.contains("a list cannot contain another list") == true)
    }

    @Test func oneLevelBeyondTheLimitIsAnError() {
        let depth = QueryLimits.nestingDepthMax
        expectInvalid(nestedSubqueryBeyondLimit, contains: ["nests more than \(depth) levels", "each SUBQUERY \(QueryLimits.subqueryNestingCost)"])
        expectInvalid(String(repeating: "(", count: depth + 1) + "age == 1" + String(repeating: ")", count: depth + 1), contains: ["nests more than"])
    }

    private var nestedSubqueryBeyondLimit: String {
        Self.nestedSubqueries(levels: QueryLimits.nestingDepthMax / QueryLimits.subqueryNestingCost + 1)
    }

    @Test func longFlatChainsDoNotNest() throws {
        let chain = (0..<5_000).map { "age != \($0)" }.joined(separator: " AND ")
        _ = try BoundQuery(chain + " OR " + chain, on: "Person", schema: TestSchema.schema)
        let longPath = String(repeating: "bestFriend.", count: 10_000) + "age > 1"
        _ = try BoundQuery(longPath, on: "Person", schema: TestSchema.schema)
    }
}
