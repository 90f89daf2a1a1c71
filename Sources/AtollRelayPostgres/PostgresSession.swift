import AtollStorage
import Dispatch
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// One PostgreSQL connection used synchronously from one thread (the relay core's), with a
/// deadline on every statement, reconnection with capped backoff, and errors as `AtollError`.
///
/// Why one connection and no pool: `RelayCore` is serial (one relay handles one event at a time
/// on its own thread), so a pool would hold idle connections; several relays give PostgreSQL
/// parallel work, one connection each (plus one for notifications). Each statement is one round
/// trip of the extended protocol (parse, bind, execute, sync in one write) with binary
/// parameters, `bytea` bodies included; appends run a server-side function
/// (`PostgresRelaySchema`), so an append costs one round trip and one commit.
///
/// Limits: the server cancels a statement after `statementTimeoutMilliseconds`, gives up waiting
/// for a lock after `lockTimeoutMilliseconds`, and ends a session idle inside a transaction after
/// `idleInTransactionTimeoutMilliseconds` (so a relay stopped mid-transaction never holds a
/// realm's row). On this side, a statement whose answer has not come a second after the server's
/// timeout closes the connection (the server may be stopped or cut off), and after a failed
/// connection attempt the next waits for a backoff (100 ms doubling to 5 s) instead of stalling
/// every request on a connect timeout: requests fail at once meanwhile.
///
/// Not thread-safe: used from one thread at a time (the store's owner). `notify` may be called
/// from the same thread; its completion runs on the connection's event loop.
final class PostgresSession {
    struct Timeouts {
        var connectMilliseconds: Int64 = 3000
        var statementMilliseconds: Int64 = 5000
        var lockMilliseconds: Int64 = 3000
        var idleInTransactionMilliseconds: Int64 = 10_000
    }

    let location: PostgresLocation
    let timeouts: Timeouts
    private let logger: Logger
    private let eventLoop: any EventLoop
    private var connection: PostgresConnection?
    private var connectionCount = 0
    /// Monotonic milliseconds before which no new connection is tried, and the backoff.
    private var retryAt: UInt64 = 0
    private var backoffMilliseconds: UInt64 = 0
    private var lastConnectError: AtollError?

    static let backoffMinimumMilliseconds: UInt64 = 100
    static let backoffMaximumMilliseconds: UInt64 = 5000

    init(location: PostgresLocation, timeouts: Timeouts = Timeouts(), logger: Logger,
         eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.any())
    {
        self.location = location
        self.timeouts = timeouts
        self.logger = logger
        self.eventLoop = eventLoop
    }

    deinit {
        if let connection { Self.closeLater(connection) }
    }

    /// Closes `c` without waiting, keeping it alive until it is closed (PostgresNIO asserts that
    /// a connection is closed when it is released).
    static func closeLater(_ c: PostgresConnection) {
        guard !c.isClosed else { return }
        c.close().whenComplete { _ in withExtendedLifetime(c) {} }
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds / 1_000_000 }

    var configuration: PostgresConnection.Configuration {
        var c: PostgresConnection.Configuration
        if location.isSocketDirectory {
            c = .init(unixSocketPath: "\(location.host)/.s.PGSQL.\(location.port)", username: location.user, password: location.password,
                      database: location.database)
        } else {
            c = .init(host: location.host, port: location.port, username: location.user, password: location.password, database: location.database,
                      tls: .disable)
        }
        c.options.connectTimeout = .milliseconds(timeouts.connectMilliseconds)
        c.options.additionalStartupParameters = [
            ("statement_timeout", "\(timeouts.statementMilliseconds)"),
            ("lock_timeout", "\(timeouts.lockMilliseconds)"),
            ("idle_in_transaction_session_timeout", "\(timeouts.idleInTransactionMilliseconds)"),
            ("application_name", "atoll-relay"),
        ]
        return c
    }

    /// The open connection, connecting first when there is none (unless the backoff after a
    /// failed attempt is still running: then the last failure is thrown at once).
    private func open() throws -> PostgresConnection {
        if let connection, !connection.isClosed { return connection }
        connection = nil
        let now = Self.now()
        if now < retryAt, let lastConnectError { throw lastConnectError }
        do {
            connectionCount += 1
            let c = try PostgresConnection.connect(on: eventLoop, configuration: configuration, id: connectionCount, logger: logger).wait()
            connection = c
            backoffMilliseconds = 0
            lastConnectError = nil
            return c
        } catch {
            let failure = AtollError(.connectionFailed, "cannot connect to PostgreSQL at \(location): \(Self.describe(error))")
            backoffMilliseconds = min(Self.backoffMaximumMilliseconds, max(Self.backoffMinimumMilliseconds, backoffMilliseconds * 2))
            retryAt = Self.now() + backoffMilliseconds
            lastConnectError = failure
            throw failure
        }
    }

    /// Runs one statement and returns its rows.
    @discardableResult
    func query(_ query: PostgresQuery) throws -> [PostgresRow] {
        let c = try open()
        // The server's statement timeout should answer first; this covers a server that cannot.
        let deadline = c.eventLoop.scheduleTask(in: .milliseconds((longStatementMilliseconds ?? timeouts.statementMilliseconds) + 1000)) {
            Self.closeLater(c)
        }
        defer { deadline.cancel() }
        do {
            return try c.query(query, logger: logger).wait().rows
        } catch {
            if c.isClosed { connection = nil }
            throw AtollError(Self.isConnectionLoss(error) || c.isClosed ? .connectionFailed : .ioError,
                             "PostgreSQL (\(location)): \(Self.describe(error))")
        }
    }

    /// Set while `allowingLongStatements` runs: the statement and lock timeout of its statements.
    private var longStatementMilliseconds: Int64?

    /// Inside a transaction: lets the statements of `body` run, and wait for locks, up to
    /// `milliseconds` each instead of the session's short timeouts (which are there for the
    /// statements of normal traffic). The server's settings return at the transaction's end.
    func allowingLongStatements<R>(milliseconds: Int64, _ body: () throws -> R) throws -> R {
        try query(PostgresQuery(unsafeSQL: "SET LOCAL statement_timeout = \(milliseconds)"))
        try query(PostgresQuery(unsafeSQL: "SET LOCAL lock_timeout = \(milliseconds)"))
        let saved = longStatementMilliseconds
        longStatementMilliseconds = milliseconds
        defer { longStatementMilliseconds = saved }
        return try body()
    }

    /// Runs `body` in a transaction (committed when it returns, rolled back when it throws).
    func transaction<R>(_ begin: PostgresQuery = "BEGIN", _ body: () throws -> R) throws -> R {
        try query(begin)
        do {
            let result = try body()
            try query("COMMIT")
            return result
        } catch {
            if let c = connection, !c.isClosed {
                do {
                    try query("ROLLBACK")
                } catch {
                    // The connection is in an unknown state: a new one starts clean (the server
                    // rolls back what this one had open).
                    Self.closeLater(c)
                    connection = nil
                }
            }
            throw error
        }
    }

    /// The connection if one is open (nil after a failure, until the next statement reconnects).
    var openConnection: PostgresConnection? {
        guard let c = connection, !c.isClosed else { return nil }
        return c
    }

    func close() {
        if let c = connection {
            do {
                try c.close().wait()
            } catch {
                logger.debug("closing the PostgreSQL connection: \(error)")
            }
        }
        connection = nil
    }

    static func isConnectionLoss(_ error: any Error) -> Bool {
        guard let e = error as? PSQLError else { return error is ChannelError }
        return [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown].contains(e.code)
    }

    /// What went wrong, in words: the server's SQLSTATE and message, or the connection problem.
    static func describe(_ error: any Error) -> String {
        if let e = error as? PSQLError {
            if let info = e.serverInfo {
                let state = info[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
                return (info[.message] ?? "server error") + state
            }
            if let underlying = e.underlying { return "\(e.code): \(underlying)" }
            return "\(e.code)"
        }
        if let e = error as? AtollError { return e.message }
        return "\(error)"
    }

    /// The SQLSTATE of a server error, if it is one.
    static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }
}
