import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Debian's `chromium`, headless, driven through the DevTools protocol over a pipe
/// (`--remote-debugging-pipe`: the browser reads NUL-terminated JSON commands on its fd 3 and
/// answers on fd 4). Tests load a page, type into it with real input events, click, read the DOM
/// and take screenshots. Missing, the browser is an error that says how to install it: a browser
/// test never passes without a browser.
public final class HeadlessBrowser {
    private let process: SpawnedProcess
    private let commands: FileHandle
    private let answers: Int32
    private var buffer: [UInt8] = []
    private var nextID = 0
    private var session: String?
    public let profile: String

    public static func locate() throws -> String {
        for candidate in ["/usr/bin/chromium", "/usr/lib/chromium/chromium", "/usr/bin/chromium-browser"]
            where FileManager.default.isExecutableFile(atPath: candidate)
        {
            return candidate
        }
        throw BrowserError("chromium is not installed: browser tests need it. Install it with `apt-get install -y chromium` (tools/setup --tests does)")
    }

    /// Starts the browser with a fresh profile in `directory`.
    public init(directory: String, windowSize: (Int, Int) = (1280, 900)) throws {
        let path = try Self.locate()
        profile = directory + "/chromium-profile-" + UUID().uuidString
        let toBrowser = Pipe(), fromBrowser = Pipe()
        process = try SpawnedProcess(
            executable: path,
            arguments: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                        "--hide-scrollbars", "--user-data-dir=\(profile)", "--window-size=\(windowSize.0),\(windowSize.1)",
                        "--remote-debugging-pipe", "about:blank"],
            environment: ProcessInfo.processInfo.environment, stdin: .null, stdout: .null, stderr: .null,
            descriptors: [toBrowser.fileHandleForReading.fileDescriptor, fromBrowser.fileHandleForWriting.fileDescriptor])
        try toBrowser.fileHandleForReading.close()
        try fromBrowser.fileHandleForWriting.close()
        commands = toBrowser.fileHandleForWriting
        answers = dup(fromBrowser.fileHandleForReading.fileDescriptor)
        try fromBrowser.fileHandleForReading.close()
    }

    deinit {
        _ = try? send("Browser.close", [:], inSession: false, timeout: 5)
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        close(answers)
        try? commands.close()
        try? FileManager.default.removeItem(atPath: profile)
    }

    /// Opens `url` in a new tab and attaches to it; later commands go to that tab.
    public func open(_ url: String) throws {
        let target = try send("Target.createTarget", ["url": url], inSession: false)
        guard let id = target["targetId"] as? String else { throw BrowserError("no target for \(url): \(target)") }
        let attached = try send("Target.attachToTarget", ["targetId": id, "flatten": true], inSession: false)
        guard let session = attached["sessionId"] as? String else { throw BrowserError("cannot attach to \(url): \(attached)") }
        self.session = session
    }

    /// Evaluates a JavaScript expression in the page (promises awaited) and returns its value.
    @discardableResult
    public func evaluate(_ expression: String) throws -> Any? {
        let result = try send("Runtime.evaluate", ["expression": expression, "awaitPromise": true, "returnByValue": true])
        if let exception = result["exceptionDetails"] { throw BrowserError("\(expression) threw: \(exception)") }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Polls `expression` until it is `true` (or `seconds` pass: an error naming it).
    public func waitUntil(_ expression: String, seconds: Double = 20) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if (try evaluate(expression) as? Bool) == true { return }
            guard Date() < deadline else {
                let body = (try? evaluate("document.body.innerText")) as? String ?? ""
                throw BrowserError("waited \(Int(seconds)) s for \(expression); the page reads: \(body.prefix(1500))")
            }
            usleep(100_000)
        }
    }

    /// Focuses the element `selector` names, selects its text and types `text` over it, as a
    /// person at a keyboard does (input events, not a value set by script).
    public func type(_ text: String, into selector: String) throws {
        try evaluate("(() => { const e = document.querySelector(\(Self.quoted(selector))); e.focus(); e.select(); return true })()")
        try send("Input.insertText", ["text": text])
    }

    /// Presses a key in the focused element (Enter submits a form).
    public func press(_ key: String, code: Int, text: String? = nil) throws {
        var down: [String: Any] = ["type": "keyDown", "key": key, "code": key, "windowsVirtualKeyCode": code]
        if let text { down["text"] = text }
        try send("Input.dispatchKeyEvent", down)
        try send("Input.dispatchKeyEvent", ["type": "keyUp", "key": key, "code": key, "windowsVirtualKeyCode": code])
    }

    /// Clicks the middle of the first element `selector` names with the mouse.
    public func click(_ selector: String) throws {
        let box = try evaluate("""
            (() => { const e = document.querySelector(\(Self.quoted(selector))); if (!e) return null; e.scrollIntoView();
                     const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2] })()
            """) as? [Any]
        guard let box, box.count == 2, let x = (box[0] as? NSNumber)?.doubleValue, let y = (box[1] as? NSNumber)?.doubleValue else {
            throw BrowserError("nothing to click at \(selector)")
        }
        for type in ["mousePressed", "mouseReleased"] {
            try send("Input.dispatchMouseEvent", ["type": type, "x": x, "y": y, "button": "left", "clickCount": 1])
        }
    }

    /// Writes a PNG of the page to `path`.
    public func screenshot(to path: String) throws {
        let shot = try send("Page.captureScreenshot", ["format": "png"])
        guard let base64 = shot["data"] as? String, let png = Data(base64Encoded: base64) else { throw BrowserError("no screenshot: \(shot)") }
        try png.write(to: URL(fileURLWithPath: path))
    }

    static func quoted(_ s: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [s])) ?? Data("[\"\"]".utf8)
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }

    /// Sends one command and waits for its answer (events in between are skipped).
    @discardableResult
    private func send(_ method: String, _ params: [String: Any], inSession: Bool = true, timeout: Double = 30) throws -> [String: Any] {
        nextID += 1
        var message: [String: Any] = ["id": nextID, "method": method, "params": params]
        if inSession {
            guard let session else { throw BrowserError("no page is open") }
            message["sessionId"] = session
        }
        try commands.write(contentsOf: try JSONSerialization.data(withJSONObject: message) + [0])
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let answer = try readMessage(until: deadline, waitingFor: method)
            guard (answer["id"] as? NSNumber)?.intValue == nextID else { continue }
            if let error = answer["error"] { throw BrowserError("\(method) failed: \(error)") }
            return answer["result"] as? [String: Any] ?? [:]
        }
    }

    private func readMessage(until deadline: Date, waitingFor method: String) throws -> [String: Any] {
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let bytes = Array(buffer[..<end])
                buffer.removeSubrange(...end)
                if let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] { return object }
                continue
            }
            let left = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            guard left > 0 else { throw BrowserError("the browser did not answer \(method) in time") }
            var fds = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            let ready = poll(&fds, 1, left)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { throw BrowserError("the browser did not answer \(method) in time") }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { read(answers, $0.baseAddress, $0.count) }
            guard n > 0 else { throw BrowserError("the browser closed its pipe (it exited?) while \(method) was pending") }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }
}

public struct BrowserError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
