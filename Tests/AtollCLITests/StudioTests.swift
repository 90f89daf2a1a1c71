import AtollTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `atoll studio`: a read-only inspector served on loopback. Its JSON is checked directly, and
/// its page in a real browser (Debian's chromium, headless, driven over the DevTools protocol):
/// classes with counts, a query typed into the box, an object whose link is followed, and the
/// page following commits of another process.
@Suite(.serialized) struct StudioTests {
    /// A sandbox with `pets.atoll` and a running studio on it; returns the studio and its port.
    func started(_ extra: String...) throws -> (CLISandbox, RunningCLI, Int) {
        let sandbox = CLISandbox()
        try sandbox.write("schema.json", Fixtures.schema)
        try sandbox.write("data.json", Fixtures.data)
        let imported = try sandbox.atoll("import", "pets.atoll", "--schema", "schema.json", "--data", "data.json")
        #expect(imported.status == 0, "\(imported)")
        let studio = try sandbox.start(["studio", "pets.atoll"] + extra)
        let line = try #require(studio.readLine(timeout: 30), "the studio printed nothing")
        let prefix = "studio: http://127.0.0.1:"
        #expect(line.hasPrefix(prefix), "\(line)")
        let port = try #require(Int(line.dropFirst(prefix.count).prefix { $0.isNumber }), "\(line)")
        return (sandbox, studio, port)
    }

    func json(_ response: StatusHTTP.Response) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any], "\(response.body)")
    }

    @Test func apiAnswersClassesQueriesAndObjectsAndReportsErrors() throws {
        let (_, studio, port) = try started()
        let classes = try json(try StatusHTTP.get(port: port, path: "/api/classes"))
        let list = try #require(classes["classes"] as? [[String: Any]])
        #expect(list.map { $0["name"] as? String } == ["Collar", "Dog", "Person"])
        #expect(list.map { ($0["count"] as? NSNumber)?.intValue } == [1, 3, 2])

        let page = try json(try StatusHTTP.get(port: port, path: "/api/query?class=Dog&q=age+%3E+1&sort=age:desc&limit=1"))
        #expect((page["total"] as? NSNumber)?.intValue == 2)
        let objects = try #require(page["objects"] as? [[String: Any]])
        #expect(objects.count == 1, "limit 1")
        let fido = try #require(objects.first?["values"] as? [String: Any])
        #expect(fido["name"] as? String == "Fido")
        let owner = try #require((fido["owner"] as? [String: Any])?["$link"] as? [String: Any], "a link is a reference")
        #expect(owner["class"] as? String == "Person" && owner["label"] as? String == "\"bo\"")

        let key = try #require(owner["key"] as? String)
        let bo = try json(try StatusHTTP.get(port: port, path: "/api/object?class=Person&key=\(key)"))
        #expect(((bo["object"] as? [String: Any])?["values"] as? [String: Any])?["name"] as? String == "bo")

        let bad = try StatusHTTP.get(port: port, path: "/api/query?class=Dog&q=age+%3E")
        #expect(bad.status == 400)
        #expect((try json(bad)["error"] as? String)?.contains("end of the query") == true, "\(bad.body)")
        let unknown = try StatusHTTP.get(port: port, path: "/api/query?class=Cat")
        #expect(unknown.status == 400 && unknown.body.contains("no class 'Cat'"), "\(unknown.body)")
        #expect(try StatusHTTP.get(port: port, path: "/api/object?class=Dog&key=12345").status == 404)
        #expect(try StatusHTTP.get(port: port, path: "/nothing").status == 404)
        #expect(studio.stop(SIGTERM) == 0)
    }

    @Test func offLoopbackItNeedsATokenAndChecksIt() throws {
        let sandbox = CLISandbox()
        try sandbox.write("schema.json", Fixtures.schema)
        #expect(try sandbox.atoll("import", "pets.atoll", "--schema", "schema.json").status == 0)
        let refused = try sandbox.atoll("studio", "pets.atoll", "--host", "0.0.0.0")
        #expect(refused.status == 64 && refused.stderr.contains("--token-file"), "\(refused)")

        try sandbox.write("token", "s3cret\n")
        let studio = try sandbox.start("studio", "pets.atoll", "--host", "0.0.0.0", "--token-file", "token")
        let line = try #require(studio.readLine(timeout: 30))
        let port = try #require(Int(line.split(separator: ":").last?.prefix { $0.isNumber } ?? ""), "\(line)")
        #expect(try StatusHTTP.get(port: port, path: "/api/classes").status == 401)
        #expect(try StatusHTTP.get(port: port, path: "/api/classes", token: "wrong!").status == 401)
        #expect(try StatusHTTP.get(port: port, path: "/api/classes", token: "s3cret").status == 200)
        #expect(try StatusHTTP.get(port: port, path: "/").status == 200, "the page holds no data")
        #expect(studio.stop() == 0)
    }

    /// In Chromium: the classes and counts appear; a predicate typed into the box (and Enter)
    /// narrows the table; a row opens the object and its owner link opens the owner; another
    /// process imports a dog and the page shows it without a reload. A screenshot is kept in a
    /// temporary folder for a person to look at.
    @Test func pageQueriesFollowsLinksAndUpdatesLiveInChromium() async throws {
        try await offPool {
            let (sandbox, studio, port) = try started()
            let browser = try HeadlessBrowser(directory: sandbox.path)
            try browser.open("http://127.0.0.1:\(port)/")
            try browser.waitUntil("document.querySelector('#classes li[data-class=\"Dog\"]')?.dataset.count === '3'")
            try browser.waitUntil("document.querySelector('#classes li[data-class=\"Person\"]')?.dataset.count === '2'")
            // The first class is shown first; the Dog class is chosen with the mouse.
            try browser.waitUntil("document.querySelector('#title')?.textContent === 'Collar' && document.querySelector('#total')?.dataset.total === '1'")
            try browser.click("#classes li[data-class=\"Dog\"]")
            try browser.waitUntil("document.querySelector('#title').textContent === 'Dog' && document.querySelector('#total').dataset.total === '3'")

            try browser.type("age > 1 AND name BEGINSWITH 'F'", into: "#predicate")
            try browser.press("Enter", code: 13, text: "\r")
            try browser.waitUntil("document.querySelector('#total').dataset.total === '1'")
            #expect(try browser.evaluate("document.querySelector('#results tr td:nth-child(2)').textContent") as? String == "Fido")

            try browser.type("age >", into: "#predicate")
            try browser.press("Enter", code: 13, text: "\r")
            try browser.waitUntil("document.querySelector('#error').textContent.includes('end of the query')")

            try browser.type("TRUEPREDICATE", into: "#predicate")
            try browser.type("id", into: "#sort")
            try browser.click("#run")
            try browser.waitUntil("document.querySelector('#total').dataset.total === '3' && document.querySelectorAll('#results tr').length === 3")
            try browser.click("#results tr:nth-child(2)")
            try browser.waitUntil("document.querySelector('#object dd[data-property=\"name\"]')?.textContent === 'Fido'")
            try browser.click("#object a.link[data-class=\"Person\"]")
            try browser.waitUntil("document.querySelector('#object').dataset.class === 'Person' && document.querySelector('#object dd[data-property=\"name\"]')?.textContent === 'bo'")

            // Another process commits: the page reads again by itself.
            try sandbox.write("more.json", #"{"Dog": [{"id": 4, "name": "Luna", "age": 2, "owner": "bo"}]}"#)
            let more = try sandbox.atoll("import", "pets.atoll", "--schema", "schema.json", "--data", "more.json")
            #expect(more.status == 0, "\(more)")
            try browser.waitUntil("document.querySelector('#classes li[data-class=\"Dog\"]').dataset.count === '4'")
            try browser.waitUntil("document.querySelector('#total').dataset.total === '4'")
            #expect(try browser.evaluate("[...document.querySelectorAll('#results tr td:nth-child(2)')].map(e => e.textContent).join(',')") as? String
                    == "Rex,Fido,Bolt,Luna")
            // The open object was read again with the rest, and is still the one chosen.
            #expect(try browser.evaluate("document.querySelector('#object').dataset.class") as? String == "Person")

            let folder = NSTemporaryDirectory() + "atoll-studio-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let png = folder + "/studio.png"
            try browser.screenshot(to: png)
            let size = (try FileManager.default.attributesOfItem(atPath: png)[.size] as? NSNumber)?.intValue ?? 0
            #expect(size > 10_000, "the screenshot is \(size) bytes")
            print("StudioTests: screenshot of atoll studio at \(png)")
            #expect(studio.stop() == 0)
        }
    }
}
