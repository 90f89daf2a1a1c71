import Atoll
import AtollTestSupport
import Foundation
import Testing

/// A chain of objects without a primary key: each created inside the previous one.
final class ChainLink: Object {
    @Persisted var name = ""
    @Persisted var next: ChainLink?
    @Persisted var branches: List<ChainLink>
}

/// Input decides how deep creating objects recurses: the limit (`InputLimits`) holds on a
/// 512 KiB stack, and one level more is an error naming the limit, never a crash.
@Suite struct NestedInputTests {
    /// A value describing a chain of `levels` objects, each nested in the previous one, through
    /// a link (`next`) or a list (`branches`).
    static func chain(_ levels: Int, throughList: Bool = false) -> [String: Any] {
        var value: [String: Any] = ["name": "level \(levels)"]
        for level in stride(from: levels - 1, through: 1, by: -1) {
            value = throughList ? ["name": "level \(level)", "branches": [value]] : ["name": "level \(level)", "next": value]
        }
        return value
    }

    static func chainJSON(_ levels: Int) -> String {
        var json = "{\"name\": \"level \(levels)\"}"
        for level in stride(from: levels - 1, through: 1, by: -1) { json = "{\"name\": \"level \(level)\", \"next\": \(json)}" }
        return json
    }

    /// Runs `body` on a thread with a 512 KiB stack (`SmallStack.bytes`: 4 MiB under Thread
    /// Sanitizer) and waits (an overflow crashes the tests).
    static func onSmallStack(_ body: @escaping () -> Void) {
        final class Work: @unchecked Sendable {
            // Sendable: handed to the new thread, which alone calls it while this one waits.
            let body: () -> Void
            init(_ body: @escaping () -> Void) { self.body = body }
        }
        let work = Work(body)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread { work.body(); done.signal() }
        thread.stackSize = SmallStack.bytes
        thread.start()
        done.wait()
    }

    final class Outcome: @unchecked Sendable {
        // Sendable: written by the small-stack thread, read after it finished.
        var values: [String] = []
        var count = 0
    }

    @Test func createAtTheLimitWorksOnA512KiBStackAndOneMoreLevelIsAnError() throws {
        let limit = InputLimits.objectNestingDepthMax
        let config = freshConfiguration([ChainLink.self])
        let outcome = Outcome()
        Self.onSmallStack {
            func attempt(_ what: String, _ body: () throws -> Void) {
                do { try body(); outcome.values.append("\(what): ok") } catch let e as AtollError {
                    outcome.values.append("\(what): \(e.kind.rawValue) \(e.message)")
                } catch { outcome.values.append("\(what): \(error)") }
            }
            guard let realm = try? Realm(configuration: config) else { outcome.values.append("no realm"); return }
            attempt("create") { try realm.write { _ = realm.create(ChainLink.self, value: Self.chain(limit)) } }
            attempt("create through lists") { try realm.write { _ = realm.create(ChainLink.self, value: Self.chain(limit, throughList: true)) } }
            attempt("create one more") { try realm.write { _ = realm.create(ChainLink.self, value: Self.chain(limit + 1)) } }
            attempt("add") { try realm.write { realm.add(ChainLink(value: Self.chain(limit))) } }
            attempt("dynamicCreate") { try realm.write { _ = try realm.dynamicCreate("ChainLink", value: Self.chain(limit).mapValues { Optional($0) }) } }
            attempt("dynamicCreate one more") { try realm.write { _ = try realm.dynamicCreate("ChainLink", value: Self.chain(limit + 1).mapValues { Optional($0) }) } }
            attempt("import") {
                let document = try ImportDocument(jsonBytes: Array("{\"ChainLink\": [\(Self.chainJSON(limit))]}".utf8))
                try realm.write { _ = try realm.importObjects(document) }
            }
            attempt("import one more") {
                let document = try ImportDocument(jsonBytes: Array("{\"ChainLink\": [\(Self.chainJSON(limit + 1))]}".utf8))
                try realm.write { _ = try realm.importObjects(document) }
            }
            attempt("dump") { _ = try realm.dumpJSON() }
            attempt("json at the limit") {
                let depth = InputLimits.jsonNestingDepthMax
                _ = try ImportDocument(jsonBytes: Array(("{\"ChainLink\": " + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}").utf8))
            }
            attempt("json one more") {
                let depth = InputLimits.jsonNestingDepthMax
                _ = try ImportDocument(jsonBytes: Array(("{\"ChainLink\": " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}").utf8))
            }
            // create, create through lists, add, dynamicCreate and import each made one chain.
            outcome.count = realm.objects(ChainLink.self).count
        }
        let expected = "objects are nested more than \(limit) levels deep"
        #expect(outcome.values.count == 11, "\(outcome.values)")
        for value in outcome.values {
            if value.contains("one more") && !value.hasPrefix("json") {
                #expect(value.contains("limitExceeded") && value.contains(expected), "\(value)")
            } else if value.hasPrefix("json at the limit") {
                #expect(value.contains("a data file is a JSON object mapping class names to arrays") || value.hasSuffix("ok"), "\(value)")
            } else if value.hasPrefix("json one more") {
                #expect(value.contains("limitExceeded") && value.contains("nested more than \(InputLimits.jsonNestingDepthMax) levels deep"), "\(value)")
            } else {
                #expect(value.hasSuffix(": ok"), "\(value)")
            }
        }
        #expect(outcome.count == 5 * limit)
    }

    @Test func unmanagedObjectsFromNestedValuesStopAboveTheLimit() throws {
        let limit = InputLimits.objectNestingDepthMax
        let (atLimit, atLimitErrors) = try ObjectHelper.run(["unmanaged-nested", "\(limit)"])
        #expect(atLimit.code == 0 && atLimitErrors.contains("levels \(limit)"), "\(atLimitErrors)")
        let (above, aboveErrors) = try ObjectHelper.run(["unmanaged-nested", "\(limit + 1)"])
        #expect(above.bySignal || above.code != 0)
        #expect(aboveErrors.contains("Atoll: objects are nested more than \(limit) levels deep"), "\(aboveErrors)")
    }
}
