import ArgumentParser
import Atoll
import AtollHTTP
import Foundation

/// `atoll studio DBPATH [--host HOST] [--port PORT] [--token-file PATH] [--key-file PATH]`
struct StudioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "studio",
        abstract: "Serve a read-only inspector of a database in the browser, live as other processes commit.",
        discussion: """
        Prints 'studio: http://HOST:PORT/' once it listens, then serves until SIGINT or SIGTERM (status 0). \
        The page lists the classes with their counts, runs queries in the query language with sorting \
        and paging, shows an object with its links to follow, and reads again whenever another process \
        commits. Nothing is ever written. It binds to 127.0.0.1; on any other address it requires \
        --token-file, and the page then needs the token in its address: http://HOST:PORT/#token=TOKEN. \
        JSON endpoints: /api/version, /api/classes, /api/query?class=C&q=PREDICATE&sort=KEYPATH[:desc]&offset=N&limit=N, \
        /api/object?class=C&key=K.
        """
    )

    @Argument(help: "The database file.")
    var dbpath: String

    @OptionGroup var encryption: KeyFileOption

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port).")
    var port = 0

    @Option(name: .customLong("token-file"), help: ArgumentHelp("A file holding the token the page and API require (needed off loopback).", valueName: "path"))
    var tokenFile: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535, not \(port)") }
        if !HTTPEndpoint.isLoopback(host), tokenFile == nil {
            throw ValidationError("serving on \(host) shows the database to the network: give --token-file, or keep the default 127.0.0.1")
        }
    }

    func run() async throws {
        let token = try tokenFile.map(NodeCommand.readToken)
        let signals = TerminationSignals()
        let data = StudioData()
        try data.open(path: dbpath, key: try encryption.key())
        let endpoint = try await HTTPEndpoint.start(host: host, port: port, what: "the studio") { request in
            await StudioRoutes.respond(request, data: data, token: token)
        }
        let shown = host.contains(":") ? "[\(host)]" : host
        _ = Output.writeAll(1, Array("studio: http://\(shown):\(endpoint.port)/\n".utf8))
        _ = await signals.next()
        await endpoint.shutdown()
        data.close()
    }
}

/// The studio's address space: the page, and the JSON it reads.
enum StudioRoutes {
    static func respond(_ request: HTTPRequest, data: StudioData, token: String?) async -> HTTPResponse {
        if request.path == "/" || request.path == "/index.html" {
            return HTTPResponse(contentType: "text/html; charset=utf-8", body: StudioPage.html)
        }
        guard request.path.hasPrefix("/api/") else { return .text(404, "not found; the studio serves / and /api/...") }
        if let token, !request.hasBearerToken(token) {
            return HTTPResponse(status: 401, contentType: "application/json",
                                body: "{\"error\":\"a bearer token is required (the studio's --token-file)\"}\n",
                                headers: [("WWW-Authenticate", "Bearer")])
        }
        let q = request.query
        do {
            let body: String?
            switch request.path {
            case "/api/version":
                body = try await data.perform { $0.version() }
            case "/api/classes":
                body = try await data.perform { try $0.classes() }
            case "/api/query":
                guard let className = q["class"], !className.isEmpty else { return error(400, "the query needs a class (class=NAME)") }
                let predicate = q["q"].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } ?? "TRUEPREDICATE"
                guard let offset = Int(q["offset"] ?? "0"), let limit = Int(q["limit"] ?? "50") else {
                    return error(400, "offset and limit must be integers")
                }
                let sort = q["sort"] ?? ""
                body = try await data.perform { try $0.query(className: className, predicate: predicate, sort: sort, offset: offset, limit: limit) }
            case "/api/object":
                guard let className = q["class"], let key = q["key"].flatMap(UInt64.init) else {
                    return error(400, "the object needs a class and a key (class=NAME&key=N)")
                }
                body = try await data.perform { try $0.object(className: className, key: key) }
                if body == nil { return error(404, "'\(className)' has no object with key \(key) (deleted since?)") }
            default:
                return error(404, "no such endpoint: \(request.path)")
            }
            return HTTPResponse(contentType: "application/json", body: (body ?? "") + "\n")
        } catch let e as AtollError {
            // A bad query is the user's to fix (400); a damaged file or a failed read is the
            // studio's to report (500), never an empty answer.
            let status = ExitStatus(e) == .badInput ? 400 : 500
            return error(status, e.message)
        } catch {
            return self.error(500, "\(error)")
        }
    }

    private static func error(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: "{\"error\":\(JSONText.string(message))}\n")
    }
}
