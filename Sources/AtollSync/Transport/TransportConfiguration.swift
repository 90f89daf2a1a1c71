public import AtollStorage
public import Logging

/// Connection-level settings shared by `FrameServer` and `FrameClient`.
public struct TransportConfiguration: Sendable {
    /// Frame size limits this end enforces on what it receives and sends.
    public var limits: FrameLimits = .default
    /// Limits a server enforces on what an admitted peer sends until the application opens the
    /// session (`FrameConnection.beginSession()`); nil: `limits` as soon as the peer is admitted.
    /// The sync relay uses `FrameLimits.handshake` (1 MiB) until it accepts a node's `hello`.
    public var limitsBeforeSession: FrameLimits? = nil
    /// Heartbeats and the dead-peer timeout.
    public var keepalive: KeepalivePolicy = KeepalivePolicy()
    /// Time allowed from TCP connect to an authenticated connection (TLS handshake plus token).
    public var handshakeTimeout: Duration = .seconds(10)
    /// Time allowed for the TCP connect (client only).
    public var connectTimeout: Duration = .seconds(10)
    /// Connections a server holds at once; more are closed on accept, and the refusal is logged.
    public var connectionsMax: Int = TransportConfiguration.connectionsMaxDefault
    /// Admitted connections a server holds at once for one peer identity (certificate common
    /// name or token name); more are refused at admission with a goodbye, and logged.
    public var connectionsPerIdentityMax: Int = TransportConfiguration.connectionsPerIdentityMaxDefault
    /// The most bytes a server's connections together (a client: its connection) may hold in
    /// unfinished frames, decompressed frames not yet consumed and frames queued for sending
    /// (`MemoryBudget`). A connection that would take more is closed, and logged.
    public var bufferedBytesMax: Int = TransportConfiguration.bufferedBytesMaxDefault
    /// zstd level for frame bodies; nil for the wire default.
    public var compressionLevel: Int32? = nil
    /// Where refusals, disconnections and protocol violations are logged.
    public var logger: Logger = Logger(label: "atoll.transport")
    /// Told (on an event loop) of each connection a server refuses before admitting it (TLS,
    /// token, connection limits): the peer's address and why. The relay counts these and keeps
    /// them in its refusal log.
    public var onRefusal: (@Sendable (_ address: String, _ error: AtollError) -> Void)? = nil

    /// The defaults given with each property.
    public init() {}

    /// 1,024 connections per server (each costs a socket, TLS state and a zstd context per
    /// direction).
    public static let connectionsMaxDefault = 1024
    /// 16 connections per identity: a node needs one per realm it syncs; the rest of the slots
    /// stay for other identities.
    public static let connectionsPerIdentityMaxDefault = 16
    /// 256 MiB: room for several transfers of the largest changesets (24 MiB each, in frames of
    /// up to 32 MiB) at once, and for thousands of connections exchanging small ones.
    public static let bufferedBytesMaxDefault = 256 << 20
}

/// Keepalive: each side sends a heartbeat when it has sent nothing for `interval`, and presumes
/// the peer dead, closing with `AtollError(.timeout, ...)`, when it has received nothing for
/// `timeout` while reading.
///
/// Heartbeats come from the peer's event loop, not its application, and flow even while the
/// application is busy; a side whose own application stops reading (backpressure) does not count
/// silence. `timeout` should be several intervals, to absorb delays in scheduling and the network.
public struct KeepalivePolicy: Sendable, Equatable {
    /// How often a silent connection sends a ping.
    public var interval: Duration
    /// How long a connection may stay silent before it is taken for dead.
    public var timeout: Duration

    /// A policy.
    public init(interval: Duration = .seconds(15), timeout: Duration = .seconds(45)) {
        self.interval = interval
        self.timeout = timeout
    }

    /// No heartbeats and no dead-peer detection (only TCP's own detection of a closed peer).
    public static let disabled = KeepalivePolicy(interval: .zero, timeout: .zero)

    var isEnabled: Bool { interval > .zero && timeout > .zero }
}

/// Reconnection after a failed or lost connection: capped exponential backoff with jitter.
///
/// The n-th consecutive failure waits `min(delayMax, delayInitial * multiplier^(n-1))`, reduced
/// by a random fraction of up to `jitter` of itself so that many nodes cut off together do not
/// reconnect in lockstep. A connection that stays up for `stableAfter` resets the count.
public struct ReconnectPolicy: Sendable, Equatable {
    /// The delay before the first retry.
    public var delayInitial: Duration = .milliseconds(250)
    /// The longest delay.
    public var delayMax: Duration = .seconds(30)
    /// How much the delay grows after each failed attempt.
    public var multiplier: Double = 2
    /// The fraction of each delay that is random.
    public var jitter: Double = 0.5
    /// How long a connection must stay up to reset the delay.
    public var stableAfter: Duration = .seconds(10)

    /// The defaults: 250 ms doubling up to 30 s, half of each delay random.
    public init() {}

    /// A policy with these values.
    public init(delayInitial: Duration, delayMax: Duration, multiplier: Double = 2, jitter: Double = 0.5, stableAfter: Duration = .seconds(10)) {
        self.delayInitial = delayInitial
        self.delayMax = delayMax
        self.multiplier = multiplier
        self.jitter = jitter
        self.stableAfter = stableAfter
    }

    /// The wait before the next attempt after `failures` consecutive failures (1 or more).
    public func delay(afterFailures failures: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let initial = seconds(delayInitial)
        let cap = seconds(delayMax)
        let exponent = Double(max(0, failures - 1))
        let base = min(cap, initial * pow(max(1, multiplier), min(exponent, 64)))
        let fraction = max(0, min(1, jitter))
        let reduction = fraction > 0 ? Double.random(in: 0...fraction, using: &generator) : 0
        return .nanoseconds(Int64(base * (1 - reduction) * 1e9))
    }
}

func seconds(_ duration: Duration) -> Double {
    let (s, attoseconds) = duration.components
    return Double(s) + Double(attoseconds) * 1e-18
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
