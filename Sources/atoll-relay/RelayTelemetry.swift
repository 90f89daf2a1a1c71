import AtollStorage
import AtollSync
import CoreMetrics
import Prometheus

/// The relay process's metrics registry, served as Prometheus text at `GET /metrics`, and its
/// refusal log, served in `GET /status`. The relay's metrics go to this registry through the
/// factory handed to `SyncRelay.open`; the process never bootstraps the global `MetricsSystem`.
struct RelayTelemetry: Sendable {
    let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory
    let refusals: RefusalLog

    init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Appends wait for fdatasync (or PostgreSQL) and fan-out follows them: finer buckets than
        // the defaults' 5 ms floor.
        let latencyBuckets: [Duration] = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
        ]
        factory.durationHistogramBuckets = ["atoll_relay_append_seconds": latencyBuckets, "atoll_relay_fanout_seconds": latencyBuckets]
        self.factory = factory
        refusals = RefusalLog()
    }

    /// A connection the transport refused before the sync protocol saw it.
    func transportRefused(address: String, error: AtollError) {
        Counter(label: "atoll_relay_connections_refused_total", dimensions: [("reason", error.kind.rawValue)], factory: factory).increment()
        refusals.record(PeerRefusal(stage: "transport", peer: nil, address: address, reason: error.kind.rawValue, message: error.message))
    }

    /// The metrics in Prometheus text format.
    func prometheusText() -> String {
        registry.emitToString()
    }
}
