import AtollStorage
import Foundation
import Testing
@testable import AtollSync
import AtollTestSupport

/// `atoll-relay` run as a real process.
@Suite(.serialized) struct RelayCommandTests {
    struct Relay {
        let process: RelayProcess
        let port: Int
        let statusPort: Int?
    }

    /// Starts `atoll-relay serve` on an ephemeral port and waits for its "listening" line.
    func startRelay(_ pki: TestPKI, port: Int = 0, status: Bool = false, extra: [String] = []) throws -> Relay {
        var arguments = ["serve", "--db", pki.directory.file("relay.atoll"), "--listen", "127.0.0.1:\(port)",
                         "--cert", pki.directory.file("relay.pem"), "--key", pki.directory.file("relay-key.pem")]
        arguments += extra.isEmpty ? ["--ca", pki.ca] : extra
        if status { arguments += ["--status", "127.0.0.1:0"] }
        let process = try RelayProcess(arguments, stderrIn: pki.directory)
        guard let line = process.readLine(timeout: 30) else {
            throw AtollError(.ioError, "the relay printed no listening line; stderr: \(process.stderr)")
        }
        let ports = line.split(separator: " ").compactMap { word -> Int? in
            guard let colon = word.lastIndex(of: ":") else { return nil }
            return Int(word[word.index(after: colon)...].prefix { $0.isNumber })
        }
        guard line.hasPrefix("atoll-relay listening on 127.0.0.1:"), let first = ports.first else {
            throw AtollError(.ioError, "unexpected first line '\(line)'")
        }
        return Relay(process: process, port: first, statusPort: status ? ports.last : nil)
    }

    @Test func certsWritesTheCARelayAndNodePairs() throws {
        let dir = TemporaryDirectory()
        let out = dir.file("certs")
        let result = try RelayProcess.run(["certs", "--out", out, "--node", "alpha", "--node", "beta"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        for name in ["ca", "relay", "alpha", "beta"] {
            #expect(result.stdout.contains("wrote \(out)/\(name).pem"))
            let mode = (try FileManager.default.attributesOfItem(atPath: "\(out)/\(name)-key.pem")[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o600, "\(name)-key.pem")
        }
        // The output is what the transport loads.
        _ = try TLSMaterial.makeServerContext(.mutualTLS(certificatePath: "\(out)/relay.pem", keyPath: "\(out)/relay-key.pem", caPath: "\(out)/ca.pem"))
        _ = try TLSMaterial.makeClientContext(.mutualTLS(certificatePath: "\(out)/alpha.pem", keyPath: "\(out)/alpha-key.pem", caPath: "\(out)/ca.pem"))

        let again = try RelayProcess.run(["certs", "--out", out, "--node", "gamma"], in: dir)
        #expect(again.status == 0)
        #expect(again.stdout.contains("wrote \(out)/gamma.pem"))
        #expect(again.stdout.contains("kept  \(out)/ca.pem"))
    }

    @Test func badArgumentsMissingFilesAndABusyPortFailWithOneLine() throws {
        let pki = try TestPKI()
        let base = ["serve", "--db", pki.directory.file("r.atoll"), "--cert", pki.directory.file("relay.pem"), "--key", pki.directory.file("relay-key.pem")]
        let cases: [(arguments: [String], status: Int32, message: String)] = [
            (base + ["--listen", "no-port", "--ca", pki.ca], 64, "'no-port' is invalid for '--listen"),
            (base + ["--listen", "127.0.0.1:0"], 64, "give exactly one of --ca"),
            (["serve", "--listen", "127.0.0.1:0"], 64, "Missing expected argument"),
            (base + ["--listen", "127.0.0.1:0", "--ca", pki.directory.file("nope.pem")], 1, "CA certificate '\(pki.directory.file("nope.pem"))' does not exist"),
            (["serve", "--db", "/nonexistent/dir/r.atoll", "--listen", "127.0.0.1:0", "--cert", pki.directory.file("relay.pem"),
              "--key", pki.directory.file("relay-key.pem"), "--ca", pki.ca], 1, "directory '/nonexistent/dir' does not exist"),
            (["certs", "--out", pki.directory.path, "--node", "../x"], 1, "node name '../x'"),
            (["frobnicate"], 64, "Unexpected argument 'frobnicate'"),
        ]
        for (arguments, status, message) in cases {
            let result = try RelayProcess.run(arguments, in: pki.directory)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("atoll-relay: "), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
        }

        let relay = try startRelay(pki)
        let busy = try RelayProcess.run(base + ["--listen", "127.0.0.1:\(relay.port)", "--ca", pki.ca], in: pki.directory)
        #expect(busy.status == 1)
        #expect(busy.stderr == "atoll-relay: cannot listen on 127.0.0.1:\(relay.port): address already in use (another process is listening on this port)\n")
        relay.process.signal(SIGTERM)
        #expect(relay.process.wait(timeout: 10) == 0)
    }

    @Test func sigtermShutsDownCleanlyAndTheStatusEndpointListsPeers() async throws {
        let pki = try TestPKI()
        let relay = try startRelay(pki, status: true)
        let statusPort = try #require(relay.statusPort)

        // A node admitted by certificate is listed while it is connected. The relay closes a
        // connection that sends no hello within 10 s, and on a loaded machine one run of the
        // status command can take that long: each attempt asks for 8 s, then connects anew.
        var listed = ""
        attempts: for _ in 0..<4 {
            let client = try FrameClient(host: "127.0.0.1", port: relay.port, tls: pki.client("node-a"), configuration: transportConfiguration(LogCapture()))
            try await client.connect { connection in
                #expect(connection.peer.name == "atoll-relay")
                // The client may learn it is admitted before the relay's handler has registered
                // the connection: ask until it is listed.
                let deadline = ContinuousClock.now + .seconds(8)
                repeat {
                    listed = try await offPool { try RelayProcess.run(["status", "--status", "127.0.0.1:\(statusPort)", "--json"], in: pki.directory) }.stdout
                    if listed.contains("\"name\" : \"node-a\"") { break }
                    try await Task.sleep(for: .milliseconds(200))
                } while ContinuousClock.now < deadline
            }
            try await client.shutdown()
            if listed.contains("\"name\" : \"node-a\"") { break attempts }
        }
        #expect(listed.contains("\"name\" : \"node-a\""), "\(listed)")

        let status = try RelayProcess.run(["status", "--status", "127.0.0.1:\(statusPort)", "--json"], in: pki.directory)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("\"listen\" : \"127.0.0.1:\(relay.port)\""), "\(status.stdout)")
        let table = try RelayProcess.run(["status", "--status", "127.0.0.1:\(statusPort)"], in: pki.directory)
        #expect(table.stdout.hasPrefix("relay 127.0.0.1:\(relay.port), up "), "\(table.stdout)")

        relay.process.signal(SIGTERM)
        #expect(relay.process.wait(timeout: 10) == 0)
        #expect(relay.process.stderr.contains("admitted node-a (certificate, 127.0.0.1:"))
        #expect(relay.process.stderr.contains("received SIGTERM, shutting down"))
        #expect(relay.process.stderr.contains("stopped"))
    }

    @Test func aRelayKilledWithSigkillRestartsOnTheSamePortAtOnce() throws {
        let pki = try TestPKI()
        let first = try startRelay(pki)
        // A connection still open when the relay dies: the kernel closes it from the relay's side
        // (FIN first), which leaves the relay's port in TIME_WAIT. Without SO_REUSEADDR the
        // restart below fails with "address already in use".
        let socket = try RawTCPConnection(port: first.port)
        // Let the relay accept it (a connection still in the backlog is reset, not closed).
        usleep(300_000)
        first.process.signal(SIGKILL)
        _ = first.process.wait()
        #expect(socket.waitForEndOfStream(timeout: 5))
        socket.close()
        let second = try startRelay(pki, port: first.port)
        #expect(second.port == first.port)
        second.process.signal(SIGTERM)
        #expect(second.process.wait(timeout: 10) == 0)
    }

    @Test func theRelayRefusesAForeignCertificateAndLogsIt() async throws {
        let pki = try TestPKI()
        let stranger = try TestPKI(nodes: ["mallory"])
        let relay = try startRelay(pki)
        let tls = ClientTLSConfiguration(caPath: pki.ca, credentials: .certificate(
            certificatePath: stranger.directory.file("mallory.pem"), keyPath: stranger.directory.file("mallory-key.pem")))
        let client = try FrameClient(host: "127.0.0.1", port: relay.port, tls: tls, configuration: transportConfiguration(LogCapture()))
        await #expect(throws: AtollError.self) { try await client.connect { _ in } }
        try await client.shutdown()
        relay.process.signal(SIGTERM)
        #expect(relay.process.wait(timeout: 10) == 0)
        #expect(relay.process.stderr.contains("refused connection from 127.0.0.1:"))
        #expect(relay.process.stderr.contains("not issued by the trusted CA"))
    }

    @Test func tokenModeReadsItsTokenFile() async throws {
        let pki = try TestPKI()
        let tokens = pki.directory.file("tokens")
        try "# name token\nnode-t  tok-123\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        let relay = try startRelay(pki, extra: ["--tokens", tokens])
        let good = try FrameClient(host: "127.0.0.1", port: relay.port,
                                   tls: ClientTLSConfiguration(caPath: pki.ca, credentials: .token("tok-123")), configuration: transportConfiguration(LogCapture()))
        try await good.connect { connection in #expect(connection.peer.name == "atoll-relay") }
        let bad = try FrameClient(host: "127.0.0.1", port: relay.port,
                                  tls: ClientTLSConfiguration(caPath: pki.ca, credentials: .token("tok-999")), configuration: transportConfiguration(LogCapture()))
        do {
            try await bad.connect { _ in }
            Issue.record("a wrong token was admitted")
        } catch let error as AtollError {
            #expect(error.kind == .authenticationFailed)
        }
        try await good.shutdown()
        try await bad.shutdown()
        relay.process.signal(SIGTERM)
        #expect(relay.process.wait(timeout: 10) == 0)
        #expect(relay.process.stderr.contains("admitted node-t (token"))
        #expect(relay.process.stderr.contains("bearer token was not accepted"))
    }
}
