public import AtollStorage
public import CoreMetrics
import Dispatch
public import Foundation
public import Logging

/// A relay's state at one moment: every realm it serves, with each known peer's position and lag.
public struct SyncRelayStatus: Sendable {
    /// The relay's identity.
    public var relayID: NodeID
    /// Every realm served.
    public var realms: [RelayRealmStatus]
    /// The name (certificate common name or token name) each node last connected with.
    public var peerNames: [NodeID: String]
    /// Each realm's schema fingerprint (hex) as the last node admitted to it since the relay
    /// started presented it; absent for a realm no node has opened since.
    public var schemaFingerprints: [String: String] = [:]
    /// When each node's last acknowledgement (of a download or a snapshot chunk) arrived, since
    /// the relay started.
    public var lastAcknowledged: [NodeID: Date] = [:]
}

/// The relay with real I/O: drives the sans-IO `RelayCore` over admitted `FrameConnection`s.
///
/// The core persists every changeset in its store (the relay's own Atoll file, or PostgreSQL
/// shared with other relays) before acknowledging it,
/// forwards to the other connected nodes of the realm, serves catch-up, trims history once every
/// known peer has it and measures lag; this type feeds it connections, frames and a timer, on a
/// thread of its own (the core's commits wait for fdatasync or for PostgreSQL, which must not
/// stall the event loops or the cooperative pool).
///
/// ```swift
/// let relay = try SyncRelay.open(database: try Database.open(DatabaseConfiguration(path: "relay.atoll")))
/// let server = try await relay.listen(host: "127.0.0.1", port: 7450,
///     tls: .mutualTLS(certificatePath: "relay.pem", keyPath: "relay-key.pem", caPath: "ca.pem"))
/// // ...
/// await server.shutdown()
/// await relay.shutdown()
/// ```
public final class SyncRelay: Sendable {
    private let driver: RelayDriver
    /// The relay's identity.
    public let relayID: NodeID

    private init(driver: RelayDriver, relayID: NodeID) {
        self.driver = driver
        self.relayID = relayID
    }

    /// Opens the relay's log in `database` (creating it in a new file).
    ///
    /// The relay reports its metrics (docs/OPERATIONS.md) to `metrics`, by default whatever backend
    /// the application bootstrapped in `MetricsSystem`; refused handshakes are also kept in
    /// `refusals` when given (the status endpoint's refusal log).
    ///
    /// - Throws: storage errors of the file (corrupt, locked, not an Atoll file).
    public static func open(database: Database, configuration: RelayConfiguration = RelayConfiguration(),
                            logger: Logger = Logger(label: "atoll.relay"), tickInterval: Duration = .milliseconds(250),
                            helloTimeout: Duration = .seconds(10), metrics: any MetricsFactory = MetricsSystem.factory,
                            refusals: RefusalLog? = nil) throws -> SyncRelay
    {
        let core = try RelayCore(database: database, configuration: configuration)
        return open(core: core, logger: logger, tickInterval: tickInterval, helloTimeout: helloTimeout,
                    monitor: RelayMonitor(metrics: RelayMetrics(factory: metrics), refusals: refusals))
    }

    /// Opens a relay on `store` (for a store shared by several relays, PostgreSQL: pass other
    /// relays' notifications to `headHint` and call `refresh` after the listener reconnects).
    package static func open(store: sending any RelayStore, configuration: RelayConfiguration = RelayConfiguration(),
                             logger: Logger = Logger(label: "atoll.relay"), tickInterval: Duration = .milliseconds(250),
                             helloTimeout: Duration = .seconds(10), metrics: any MetricsFactory = MetricsSystem.factory,
                             refusals: RefusalLog? = nil) -> SyncRelay
    {
        open(core: RelayCore(store: store, configuration: configuration), logger: logger, tickInterval: tickInterval, helloTimeout: helloTimeout,
             monitor: RelayMonitor(metrics: RelayMetrics(factory: metrics), refusals: refusals))
    }

    private static func open(core: sending RelayCore, logger: Logger, tickInterval: Duration, helloTimeout: Duration,
                             monitor: RelayMonitor) -> SyncRelay
    {
        let relayID = core.relayID
        let executor = SyncThreadExecutor(name: "atoll-relay-core")
        let driver = RelayDriver(core: core, logger: logger, helloTimeout: helloTimeout, executor: executor, monitor: monitor)
        executor.submit { driver.assumeIsolated { $0.begin(tickInterval: tickInterval) } }
        return SyncRelay(driver: driver, relayID: relayID)
    }

    /// Runs one admitted connection until it ends (the peer leaves, breaks the protocol, or the
    /// relay shuts down). Give this to `FrameServer` as its handler.
    public func serve(_ connection: FrameConnection) async {
        await driver.serve(connection)
    }

    /// Starts a TLS server whose connections this relay serves. Until a node's `hello` is accepted
    /// its frames are held to `configuration.limitsBeforeSession`, `FrameLimits.handshake` (1 MiB)
    /// unless set otherwise.
    public func listen(host: String, port: Int, tls: ServerTLSConfiguration,
                       configuration: TransportConfiguration = TransportConfiguration()) async throws -> FrameServer
    {
        let driver = self.driver
        var configuration = configuration
        if configuration.limitsBeforeSession == nil { configuration.limitsBeforeSession = .handshake }
        return try await FrameServer.start(host: host, port: port, tls: tls, configuration: configuration) { connection in
            await driver.serve(connection)
        }
    }

    /// Another relay stored entries of `realmID` through `head` (a notification): this relay's
    /// nodes of the realm get them.
    public func headHint(_ realmID: String, head: UInt64) async {
        await driver.headHint(realmID, head: head)
    }

    /// Reads the heads of the realms this relay serves now (after notifications may have been
    /// lost) and forwards what other relays stored.
    public func refresh() async {
        await driver.refresh()
    }

    /// Every realm with its peers' positions and lag.
    public func status() async throws -> SyncRelayStatus {
        try await driver.status()
    }

    /// Puts `rules` in force (nil: every admitted peer may read and write every realm). Sessions
    /// already open keep their realm; the next upload of each, and every later handshake, is
    /// checked against the new rules.
    public func setAccessRules(_ rules: AccessRules?) async {
        await driver.setAccessRules(rules)
    }

    /// Closes the connections still open, writes the peers' acknowledgements and stops the
    /// relay's thread. Shut the `FrameServer` down first so no connection arrives meanwhile.
    public func shutdown() async {
        await driver.shutdown()
        driver.executor.stop()
    }
}

/// The relay's metrics and, when the host keeps one, its refusal log.
struct RelayMonitor: Sendable {
    let metrics: RelayMetrics
    let refusals: RefusalLog?
}

actor RelayDriver {
    nonisolated let executor: SyncThreadExecutor
    private nonisolated let monitor: RelayMonitor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let core: RelayCore
    private let logger: Logger
    private var connections: [ConnectionID: Peer] = [:]
    private var nextConnection: ConnectionID = 0
    private var names: [NodeID: String] = [:]
    private var schemas: [String: String] = [:]
    private var lastAcknowledged: [NodeID: Date] = [:]
    private var tickTask: Task<Void, Never>?
    private var isClosed = false
    /// The core's maintenance failure last logged (logged again only when it changes).
    private var loggedMaintenanceError: AtollError?

    private struct Peer {
        let identity: PeerIdentity
        let outbound: OutgoingQueue
        /// When the connection was admitted (monotonic ms), for the handshake deadline.
        let since: UInt64
        var node: NodeID?
        /// The relay sent `welcome`: an `error` from now on ends a session rather than refusing a
        /// handshake.
        var inSession = false
        /// The realm and schema fingerprint (hex) of the peer's `hello`.
        var realm: (id: String, schema: String)?
    }

    /// A peer that has not said hello this long after admission is closed: an admitted but
    /// silent connection must not hold a slot forever (heartbeats would keep it alive).
    private let helloTimeoutMilliseconds: UInt64

    init(core: sending RelayCore, logger: Logger, helloTimeout: Duration, executor: SyncThreadExecutor, monitor: RelayMonitor) {
        self.core = core
        self.monitor = monitor
        self.logger = logger
        helloTimeoutMilliseconds = UInt64(max(0, helloTimeout.components.seconds)) * 1000
            + UInt64(max(0, helloTimeout.components.attoseconds) / 1_000_000_000_000_000)
        self.executor = executor
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds / 1_000_000 }

    func begin(tickInterval: Duration) {
        // Ended by shutdown().
        tickTask = Task { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: tickInterval)
                tick()
            }
        }
    }

    private func tick() {
        let now = Self.now()
        for (id, peer) in connections where peer.node == nil && now >= peer.since + helloTimeoutMilliseconds {
            logger.notice("closing the connection of \(peer.identity): no handshake within \(helloTimeoutMilliseconds / 1000) s")
            connections[id] = nil
            peer.outbound.close(AtollError(.timeout, "no sync handshake (hello) within \(helloTimeoutMilliseconds / 1000) s of admission"))
            perform(core.disconnected(id, now: now))
        }
        perform(core.tick(now: now))
        if core.maintenanceError != loggedMaintenanceError {
            if let error = core.maintenanceError {
                monitor.metrics.storageError("maintenance")
                logger.error("could not write acknowledgements or trim the log (retrying): \(error.message)")
            } else {
                logger.notice("writing acknowledgements and trimming the log work again")
            }
            loggedMaintenanceError = core.maintenanceError
        }
    }

    func shutdown() async {
        guard !isClosed else { return }
        isClosed = true
        for (id, peer) in connections {
            peer.outbound.close(AtollError(.closed, "the relay is shutting down"))
            connections[id] = nil
            _ = core.disconnected(id, now: Self.now())
        }
        tickTask?.cancel()
        await tickTask?.value
        tickTask = nil
        do {
            try core.flush()
        } catch {
            logger.error("could not write the peers' acknowledgements: \(error)")
        }
    }

    func headHint(_ realmID: String, head: UInt64) {
        guard !isClosed else { return }
        perform(core.headHint(realmID, head: head, now: Self.now()))
    }

    func refresh() {
        guard !isClosed else { return }
        perform(core.refresh(now: Self.now()))
    }

    func setAccessRules(_ rules: AccessRules?) {
        core.accessRules = rules
    }

    /// Also sets the per-realm gauges (head, trimmed-through, lag).
    func status() throws -> SyncRelayStatus {
        let realms: [RelayRealmStatus]
        do {
            realms = try core.status()
        } catch {
            monitor.metrics.storageError("status")
            throw error
        }
        monitor.metrics.record(realms)
        return SyncRelayStatus(relayID: core.relayID, realms: realms, peerNames: names, schemaFingerprints: schemas,
                                lastAcknowledged: lastAcknowledged)
    }

    // MARK: connections

    nonisolated func serve(_ connection: FrameConnection) async {
        let (queue, outbound) = OutgoingQueue.make(for: connection)
        guard let id = await register(connection.peer, queue) else {
            await connection.close(error: AtollError(.closed, "the relay is shutting down"))
            return
        }
        monitor.metrics.connections.increment()
        monitor.metrics.connectionsOpen.increment()
        let failure = await connection.pump(outbound, of: queue) { frame in await self.received(frame, from: id) }
        await unregister(id, error: failure)
        monitor.metrics.connectionsOpen.decrement()
    }

    private func register(_ identity: PeerIdentity, _ outbound: OutgoingQueue) -> ConnectionID? {
        guard !isClosed else {
            outbound.finish()
            return nil
        }
        nextConnection += 1
        connections[nextConnection] = Peer(identity: identity, outbound: outbound, since: Self.now())
        perform(core.connected(nextConnection, identity: identity, now: Self.now()))
        return nextConnection
    }

    private func unregister(_ id: ConnectionID, error: AtollError?) {
        guard let peer = connections.removeValue(forKey: id) else { return }
        peer.outbound.finish()
        if let error, error.kind != .cancelled, error.kind != .closed {
            logger.notice("connection of \(peer.identity) ended: \(error.message)")
        }
        perform(core.disconnected(id, now: Self.now()))
    }

    private func received(_ frame: Frame, from id: ConnectionID) {
        guard connections[id] != nil else { return }
        if frame.kind == SyncMessage.Kind.hello.rawValue, case .hello(let hello)? = try? SyncMessage(frame: frame) {
            // Names for the status report: the core knows nodes by id only.
            connections[id]?.node = hello.nodeID
            names[hello.nodeID] = connections[id]?.identity.name
            connections[id]?.realm = (hello.realmID, hello.schemaFingerprint.map { String($0, radix: 16).leftPadded(2) }.joined())
        }
        let metrics = monitor.metrics
        metrics.bytesReceived.increment(by: frame.payload.count)
        if frame.kind == SyncMessage.Kind.downloadAck.rawValue || frame.kind == SyncMessage.Kind.snapshotAck.rawValue,
           let node = connections[id]?.node
        {
            lastAcknowledged[node] = Date()
        }
        guard frame.kind == SyncMessage.Kind.upload.rawValue else {
            perform(core.receive(frame, from: id, now: Self.now()))
            return
        }
        metrics.changesetsReceived.increment(by: FrameCensus.changesetCount(frame))
        let arrival = DispatchTime.now().uptimeNanoseconds
        let actions = core.receive(frame, from: id, now: Self.now())
        // The core stored the upload (or failed to) before returning its acknowledgement.
        let stored = actions.contains { if case .send(id, let f) = $0 { f.kind == SyncMessage.Kind.uploadAck.rawValue } else { false } }
        if stored { metrics.appendLatency.recordNanoseconds(Int64(clamping: DispatchTime.now().uptimeNanoseconds - arrival)) }
        perform(actions, uploadFrom: id, arrival: arrival)
    }

    /// Carries out the core's actions. `uploadFrom`/`arrival`: the actions answer an upload of that
    /// connection that arrived then (monotonic ns); downloads they send to other nodes are fan-out.
    private func perform(_ actions: [RelayAction], uploadFrom uploader: ConnectionID? = nil, arrival: UInt64 = 0) {
        let metrics = monitor.metrics
        for action in actions {
            switch action {
            case .send(let id, let frame):
                guard let peer = connections[id] else { continue }
                metrics.bytesSent.increment(by: frame.payload.count)
                if frame.kind == SyncMessage.Kind.download.rawValue {
                    metrics.changesetsSent.increment(by: FrameCensus.changesetCount(frame))
                    if let uploader, uploader != id {
                        metrics.fanOutLatency.recordNanoseconds(Int64(clamping: DispatchTime.now().uptimeNanoseconds - arrival))
                    }
                } else if frame.kind == SyncMessage.Kind.snapshot.rawValue {
                    metrics.snapshotChunks.increment()
                    // The chunk index is the payload's first varint: a stream begins at chunk 0.
                    if frame.payload.first == 0 { metrics.snapshotStreams.increment() }
                }
                if frame.kind == SyncMessage.Kind.error.rawValue, case .error(let code, let message)? = try? SyncMessage(frame: frame) {
                    logger.warning("\(code.isFatal ? "refused" : "warned") \(peer.identity) [\(peer.identity.details)]: \(message)")
                    countError(code, message, peer)
                }
                if frame.kind == SyncMessage.Kind.welcome.rawValue {
                    logger.info("session of \(peer.identity) [\(peer.identity.details)] began")
                    metrics.handshakesAccepted.increment()
                    connections[id]?.inSession = true
                    if let realm = peer.realm { schemas[realm.id] = realm.schema }
                }
                // The handshake is accepted: the node may send full-size frames once it reads this.
                if frame.kind == SyncMessage.Kind.welcome.rawValue { peer.outbound.beginSession() }
                do {
                    try peer.outbound.send(frame)
                } catch {
                    // The memory budget is spent or this peer's queue is full (it does not read
                    // what it is sent): this connection goes; its node catches up from the log
                    // when it reconnects.
                    logger.warning("closing the connection of \(peer.identity): \(error.message)")
                    connections[id] = nil
                    peer.outbound.close(error)
                    _ = core.disconnected(id, now: Self.now())
                }
            case .close(let id):
                guard let peer = connections.removeValue(forKey: id) else { continue }
                peer.outbound.close(nil)
                _ = core.disconnected(id, now: Self.now())
            }
        }
    }

    /// An `error` sent to a peer: a refused handshake before `welcome`, a session error after.
    private func countError(_ code: SyncErrorCode, _ message: String, _ peer: Peer) {
        let metrics = monitor.metrics
        if code == .unavailable { metrics.storageError("append") }
        if peer.inSession {
            metrics.sessionError(code)
        } else {
            metrics.handshakeRefused(code)
        }
        guard code.isFatal else { return }
        monitor.refusals?.record(PeerRefusal(
            stage: peer.inSession ? "session" : "handshake", peer: peer.identity.name, address: peer.identity.address,
            reason: code.metricName, message: message))
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
