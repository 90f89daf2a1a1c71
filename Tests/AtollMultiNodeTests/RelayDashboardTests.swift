import AtollStorage
import Foundation
import Testing
import AtollTestSupport

/// The relay's dashboard (`GET /` on its status address) in a real browser: Debian's `chromium`,
/// headless. The page must show the realm, the connected peers and a node's lag, and follow them
/// as they change.
@Suite(.serialized) struct RelayDashboardTests {
    /// Two nodes sync; node b stops; a writes on. In Chromium the page shows the realm with its
    /// head, both peers (then only a), and b's lag growing from one load to the next; within a
    /// load it polls again and again, and the chart gathers samples. A screenshot is written to a
    /// temporary folder and its path printed.
    @Test func dashboardShowsRealmsPeersAndChangingLagInChromium() async throws {
        try await offPool(dashboardShowsRealmsPeersAndChangingLagInChromiumBlocking)
    }

    func dashboardShowsRealmsPeersAndChangingLagInChromiumBlocking() throws {
        let chromium = try Chromium.locate()
        let cluster = try Cluster(nodes: ["a", "b"])
        try cluster.startRelay()
        try cluster.startNode("a")
        try cluster.startNode("b")
        var script = WriteScript(seed: 7)
        let first = try cluster.importData("a", script.nextImport(for: "a"))
        #expect(first.status == 0, "\(first)")
        _ = try cluster.waitForConvergence(["a", "b"]) { script.holdsEveryItem($0) }
        let url = "http://127.0.0.1:\(cluster.statusPort)/"

        let together = try chromium.dumpDOM(url, in: cluster.directory)
        #expect(together.contains("data-realm=\"test\""), "\(together.prefix(3000))")
        #expect(together.contains("data-peer=\"a\"") && together.contains("data-peer=\"b\""), "\(together.prefix(3000))")
        #expect(Self.polls(together) >= 2, "the page should have polled more than once: \(together.prefix(2000))")

        // b goes away; what a writes now is what b lacks.
        cluster.killNode("b")
        for _ in 0..<2 {
            let result = try cluster.importData("a", script.nextImport(for: "a"))
            #expect(result.status == 0, "\(result)")
        }
        let lagBefore = try waitForLag(cluster, node: "b") { $0 > 0 }
        let apart = try chromium.dumpDOM(url, in: cluster.directory)
        #expect(apart.contains("data-peer=\"a\"") && !apart.contains("data-peer=\"b\""), "\(apart.prefix(3000))")
        let shownBefore = try #require(Self.lag(apart, node: "b"), "no row for node b: \(apart.prefix(3000))")
        #expect(shownBefore >= lagBefore)
        #expect(Self.samples(apart) >= 1, "the chart has no samples: \(apart.prefix(2000))")

        let more = try cluster.importData("a", script.nextImport(for: "a"))
        #expect(more.status == 0, "\(more)")
        _ = try waitForLag(cluster, node: "b") { $0 > shownBefore }
        let later = try chromium.dumpDOM(url, in: cluster.directory)
        let shownLater = try #require(Self.lag(later, node: "b"), "no row for node b: \(later.prefix(3000))")
        #expect(shownLater > shownBefore, "b's lag should grow: \(shownBefore) then \(shownLater)")

        // For the picture: b back and catching up, a writing, so the chart has something to show.
        try cluster.startNode("b")
        let writes = try (0..<3).map { _ in try cluster.startImport("a", script.nextImport(for: "a")) }
        // Kept after the test, for a person to look at.
        let screenshots = NSTemporaryDirectory() + "atoll-dashboard-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: screenshots, withIntermediateDirectories: true)
        let png = screenshots + "/relay-dashboard.png"
        try chromium.screenshot(url, to: png, in: cluster.directory)
        let size = (try FileManager.default.attributesOfItem(atPath: png)[.size] as? NSNumber)?.intValue ?? 0
        #expect(size > 10_000, "the screenshot is \(size) bytes")
        print("RelayDashboardTests: screenshot of the relay dashboard at \(png)")
        for write in writes { #expect(write.wait(timeout: 60) == 0, "\(write.stderr)") }
    }

    /// The relay's lag for `node` (operations), polled until `accept` holds (15 s at most).
    private func waitForLag(_ cluster: Cluster, node: String, _ accept: (Int) -> Bool) throws -> Int {
        let deadline = Date().addingTimeInterval(15)
        while true {
            let peers = (try cluster.relayRealm()["peers"] as? [[String: Any]]) ?? []
            let lag = peers.first { $0["name"] as? String == node }.flatMap { ($0["lagOperations"] as? NSNumber)?.intValue } ?? 0
            if accept(lag) { return lag }
            guard Date() < deadline else { throw AtollError(.timeout, "node \(node)'s lag stayed at \(lag)") }
            usleep(200_000)
        }
    }

    /// `data-polls` of the page's poll counter.
    static func polls(_ dom: String) -> Int { attribute(dom, "data-polls").flatMap(Int.init) ?? 0 }

    /// `data-samples` of the chart's caption.
    static func samples(_ dom: String) -> Int { attribute(dom, "data-samples").flatMap(Int.init) ?? 0 }

    /// The lag in operations the "Nodes by realm" table shows for `node` (its `data-lag-ops`).
    static func lag(_ dom: String, node: String) -> Int? {
        guard let row = dom.range(of: "data-node=\"\(node)\"") else { return nil }
        let rest = String(dom[row.upperBound...].prefix(400))
        return attribute(rest, "data-lag-ops").flatMap(Int.init)
    }

    private static func attribute(_ text: String, _ name: String) -> String? {
        guard let start = text.range(of: "\(name)=\"") else { return nil }
        return String(text[start.upperBound...].prefix { $0 != "\"" })
    }
}

/// Debian's `chromium`, headless. Missing, it is an error that says how to install it: the
/// browser test never passes without a browser.
struct Chromium {
    let path: String

    static func locate() throws -> Chromium {
        do {
            return Chromium(path: try HeadlessBrowser.locate())
        } catch {
            Issue.record("chromium is not installed: the dashboard's browser test needs it. Install it with `apt-get install -y chromium` (tools/setup --tests does)")
            throw AtollError(.fileNotFound, "chromium is missing: apt-get install -y chromium")
        }
    }

    private func arguments(_ extra: [String], profile: String) -> [String] {
        ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--hide-scrollbars",
         "--user-data-dir=\(profile)",
         // Virtual time runs the page's one-second polling timers without waiting in real time;
         // each fetch still reaches the relay for real.
         "--virtual-time-budget=4500"] + extra
    }

    /// The page's DOM after its scripts ran for the virtual-time budget.
    func dumpDOM(_ url: String, in directory: TemporaryDirectory) throws -> String {
        let result = try ChildProcess.run(URL(fileURLWithPath: path), arguments(["--dump-dom", url], profile: directory.file("chromium-profile")),
                                          in: directory, timeout: 30)
        guard result.status == 0, !result.stdout.isEmpty else { throw AtollError(.ioError, "chromium --dump-dom failed: \(result)") }
        return result.text
    }

    func screenshot(_ url: String, to png: String, in directory: TemporaryDirectory) throws {
        let result = try ChildProcess.run(URL(fileURLWithPath: path),
                                          arguments(["--window-size=1280,1400", "--screenshot=\(png)", url], profile: directory.file("chromium-profile")),
                                          in: directory, timeout: 30)
        guard result.status == 0, FileManager.default.fileExists(atPath: png) else {
            throw AtollError(.ioError, "chromium --screenshot failed: \(result)")
        }
    }
}
