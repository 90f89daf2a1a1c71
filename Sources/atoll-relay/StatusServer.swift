import AtollHTTP
import AtollStorage
import Foundation

/// What the status endpoint serves, read afresh on every request.
struct StatusSource: Sendable {
    /// The JSON status document (`GET /status`).
    var status: @Sendable () async -> RelayStatus
    /// The metrics in Prometheus text format (`GET /metrics`).
    var metrics: @Sendable () async -> String
}

/// The relay's status address:
/// - `GET /status`: the relay's status as JSON;
/// - `GET /metrics`: its metrics in Prometheus text format (docs/OPERATIONS.md);
/// - `GET /`: the dashboard, a self-contained page that polls the two above.
/// Anything else is 404 or 405. Plain HTTP: it reveals peer names, identities and addresses (not
/// data), so it binds to loopback unless the operator gives a token (`--status-token-file`);
/// with a token, `/status` and `/metrics` answer 401 to a request without
/// `Authorization: Bearer TOKEN`. The page itself holds no data and is served to anyone; it takes
/// the token from its address's fragment (`/#token=...`, which browsers never send).
final class StatusServer: Sendable {
    private let endpoint: HTTPEndpoint
    var port: Int { endpoint.port }

    private init(endpoint: HTTPEndpoint) { self.endpoint = endpoint }

    static func start(host: String, port: Int, token: String?, source: StatusSource) async throws -> StatusServer {
        StatusServer(endpoint: try await HTTPEndpoint.start(host: host, port: port, what: "status") { request in
            await respond(request, token: token, source: source)
        })
    }

    func shutdown() async { await endpoint.shutdown() }

    /// Whether `host` is a loopback address, where the endpoint may run without a token.
    static func isLoopback(_ host: String) -> Bool { HTTPEndpoint.isLoopback(host) }

    private static func respond(_ request: HTTPRequest, token: String?, source: StatusSource) async -> HTTPResponse {
        switch request.path {
        case "/", "/index.html":
            return HTTPResponse(contentType: "text/html; charset=utf-8", body: StatusPage.html)
        case "/status", "/metrics":
            if let token, !request.hasBearerToken(token) {
                return HTTPResponse(status: 401, contentType: "text/plain",
                                    body: "a bearer token is required (Authorization: Bearer TOKEN, the relay's --status-token-file)\n",
                                    headers: [("WWW-Authenticate", "Bearer")])
            }
            if request.path == "/metrics" {
                return HTTPResponse(contentType: "text/plain; version=0.0.4; charset=utf-8", body: await source.metrics())
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            do {
                // A failure (a non-finite number, say) is answered as one, never as an empty status.
                let data = try encoder.encode(await source.status())
                return HTTPResponse(contentType: "application/json", body: String(decoding: data, as: UTF8.self) + "\n")
            } catch {
                return .text(500, "the status could not be encoded: \(error)")
            }
        default:
            return .text(404, "not found; try GET /, /status or /metrics")
        }
    }
}
