import AtollQuery
import AtollStorage
import AtollTestSupport
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

    /// Runs `body` on a new thread with a 512 KiB stack (`SmallStack.bytes`: 4 MiB under Thread
    /// Sanitizer) and waits for it (a stack overflow there crashes the test process).
    static func onSmallStack(_ body: @escaping () -> Void) {
        final class Work: @unchecked Sendable {
            // Sendable: handed to the new thread, which alone calls it while this one waits.
            let body: () -> Void
            init(_ body: @escaping () -> Void) { self.body = body }
        }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, SmallStack.bytes)
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let context = Unmanaged.passRetained(Work(body)).toOpaque()
        let status = pthread_create(&thread, &attributes, { raw in
            guard let raw else { return nil }
            Unmanaged<Work>.fromOpaque(raw).takeRetainedValue().body()
            return nil
        }, context)
        #expect(status == 0)
        #if canImport(Glibc)
        pthread_join(thread, nil)
        #else
        if let thread { pthread_join(thread, nil) }
        #endif
        pthread_attr_destroy(&attributes)
    }

    /// Collects results from the small-stack thread.
    final class Results: @unchecked Sendable {
        // Sendable: written by the small-stack thread, read after it was joined.
        var values: [String] = []
    }

    @Test func worstCasesAtTheLimitBindOnA512KiBStack() {
        let queries = Self.worstCasesAtTheLimit
        let results = Results()
        Self.onSmallStack {
            for query in queries {
                do {
                    let bound = try BoundQuery(query, on: "Person", schema: TestSchema.schema)
                    results.values.append("bound \(bound.clauses.count)")
                } catch let error as AtollError {
                    results.values.append(error.message)
                } catch {
                    results.values.append("unexpected \(error)")
                }
            }
        }
        #expect(results.values.count == queries.count)
        #expect(results.values.dropLast().allSatisfy { $0 == "bound 0" }, "\(results.values)")
        #expect(results.values.last?.contains("a list cannot contain another list") == true)
    }

    /// A key path of `components` components from a Person of the fixture, alternating
    /// `dogs` and `owners` (every step a list or linking objects, so each one is a level of
    /// the evaluation's recursion), ending in `age`.
    static func toManyPath(components: Int, startingAt first: String = "dogs") -> String {
        let other = first == "dogs" ? "owners" : "dogs"
        return ((0..<(components - 1)).map { $0 % 2 == 0 ? first : other } + ["age"]).joined(separator: ".")
    }

    /// Evaluation at every limit at once, on a 512 KiB stack: SUBQUERYs nested to the limit
    /// whose innermost predicate follows a key path of the most components, all of them lists
    /// or linking objects; the same under 100 NOTs; and a to-one path of the most components.
    /// Person 4 of the fixture owns only Bella, whose only owner is person 4, so every
    /// collection has one element and the evaluation is one deep walk.
    @Test func worstCaseEvaluationsAtTheLimitRunOnA512KiBStack() throws {
        let fixture = try QueryFixture()
        let depth = QueryLimits.nestingDepthMax, longest = QueryLimits.keyPathComponentsMax
        // Innermost SUBQUERY element: a Dog (levels alternate dogs / owners, starting at dogs).
        var nested = "ANY " + Self.toManyPath(components: longest, startingAt: "owners") + " == 35"
        let levels = depth / QueryLimits.subqueryNestingCost
        for level in stride(from: levels - 1, through: 0, by: -1) {
            let collection = level == 0 ? "dogs" : "$v\(level - 1).\(level % 2 == 0 ? "dogs" : "owners")"
            nested = "SUBQUERY(\(collection), $v\(level), \(nested)).@count > 0"
        }
        let queries = [
            "id == 4 AND " + nested,
            // 99 NOTs and a parenthesis; the path ends at Bella's age, 1.
            "id == 4 AND " + String(repeating: "NOT ", count: depth - 1) + "(ANY " + Self.toManyPath(components: longest) + " != 1)",
            (Array(repeating: "bestFriend", count: longest - 1) + ["age"]).joined(separator: ".") + " == 35",
            "TRUEPREDICATE SORT(" + (Array(repeating: "bestFriend", count: longest - 1) + ["age"]).joined(separator: ".") + " DESC)",
        ]
        let results = Results()
        Self.onSmallStack {
            for query in queries {
                do {
                    let r = try fixture.db.beginRead()
                    defer { r.close() }
                    let engine = QueryEngine(transaction: r)
                    let bound = try engine.bind(query, on: "Person")
                    let keys = try engine.run(bound).map(\.intPrimaryKey)
                    let counted = bound.clauses.isEmpty ? try engine.count(bound) : keys.count
                    results.values.append(counted == keys.count ? "\(keys)" : "count \(counted) for \(keys)")
                } catch {
                    results.values.append("\(error)")
                }
            }
        }
        #expect(results.values.count == queries.count)
        #expect(Array(results.values.prefix(3)) == ["[4]", "[4]", "[4]"], "\(results.values)")
        #expect(results.values.last?.hasPrefix("[4, ") == true, "\(results.values)")
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
    }

    /// Key paths: the limit binds, one more component is an error naming the limit (the user's
    /// 10,000-component key path crashed `atoll query`), also when `%K` makes it that long.
    @Test func keyPathsAtTheLimitBindAndOneMoreIsAnError() throws {
        let longest = QueryLimits.keyPathComponentsMax
        func path(_ n: Int) -> String { (Array(repeating: "bestFriend", count: n - 1) + ["age"]).joined(separator: ".") }
        _ = try BoundQuery(path(longest) + " > 1", on: "Person", schema: TestSchema.schema)
        expectInvalid(path(longest + 1) + " > 1", contains: ["more than \(longest) components"])
        expectInvalid(path(10_000) + " > 1", contains: ["more than \(longest) components"])
        expectInvalid("TRUEPREDICATE SORT(\(path(longest + 1)) ASC)", contains: ["more than \(longest) components"])
        let half = Array(repeating: "bestFriend", count: longest / 2).joined(separator: ".")
        _ = try BoundQuery("%K.%K > 1", on: "Person", schema: TestSchema.schema, arguments: [half, path(longest / 2)])
        #expect(throws: AtollError.self) {
            try BoundQuery("%K.%K > 1", on: "Person", schema: TestSchema.schema, arguments: [half, path(longest / 2 + 1)])
        }
    }
}
