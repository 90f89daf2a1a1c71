public import AtollStorage
import Dispatch
import Synchronization

/// What a sync session reports to its observers.
public enum SyncEvent: Sendable, Equatable {
    /// The session state changed.
    case state(SessionState)
    /// Upload or download progress moved.
    case progress(SyncProgress)
    /// Something went wrong. When the session stopped because of it, the state is `.offline`
    /// and the error is the session's `lastError`; otherwise (a lost connection, a relay that
    /// cannot be reached) the session retries on its own.
    case error(AtollError)
}

/// Keeps an observation alive; `invalidate()` (or releasing it) ends it.
public final class SyncObservation: Sendable {
    private let cancel: AtollLock<(@Sendable () -> Void)?>

    init(cancel: @escaping @Sendable () -> Void) {
        self.cancel = AtollLock(cancel)
    }

    /// Stops the observation; the block is not called again.
    public func invalidate() {
        let body = cancel.withLock { c -> (@Sendable () -> Void)? in
            defer { c = nil }
            return c
        }
        body?()
    }

    deinit { invalidate() }
}

/// The session's observable state: a snapshot readable from any thread, and observers that
/// receive every change in order, each on its own serial queue (never on the sync thread, so a
/// slow observer cannot stall syncing).
final class SessionPublisher: Sendable {
    struct Snapshot: Sendable {
        var state: SessionState = .offline
        var progress = SyncProgress(uploaded: 0, uploadable: 0, downloaded: 0, downloadable: 0)
        var lastError: AtollError?
        var connectionError: AtollError?
        var permission: RealmPermission?
    }

    private struct Observer: Sendable {
        let queue: DispatchQueue
        let handler: @Sendable (SyncEvent) -> Void
    }

    private let snapshotLock = AtollLock(Snapshot())
    private let observers = AtollLock<(next: UInt64, all: [UInt64: Observer])>((0, [:]))

    var snapshot: Snapshot { snapshotLock.withLock { $0 } }

    /// Whether the session has ended (closed or released), and what to call when it does
    /// (the async sequences of SyncSession+Concurrency.swift).
    let ending = AtollLock<(ended: Bool, next: UInt64, handlers: [UInt64: @Sendable () -> Void])>((false, 0, [:]))

    /// Marks the session ended and calls the end handlers once.
    func end() {
        let handlers = ending.withLock { e -> [@Sendable () -> Void] in
            guard !e.ended else { return [] }
            e.ended = true
            defer { e.handlers = [:] }
            return Array(e.handlers.values)
        }
        for handler in handlers { handler() }
    }

    func observe(queue: DispatchQueue?, _ handler: @escaping @Sendable (SyncEvent) -> Void) -> SyncObservation {
        let observer = Observer(queue: queue ?? DispatchQueue(label: "atoll.sync.observer"), handler: handler)
        let id = observers.withLock { o -> UInt64 in
            o.next += 1
            o.all[o.next] = observer
            return o.next
        }
        return SyncObservation { [weak self] in
            _ = self?.observers.withLock { $0.all.removeValue(forKey: id) }
        }
    }

    private func notify(_ event: SyncEvent) {
        let targets = observers.withLock { Array($0.all.values) }
        for o in targets { o.queue.async { o.handler(event) } }
    }

    func setState(_ state: SessionState, lastError: AtollError?) {
        let changed = snapshotLock.withLock { s -> Bool in
            s.lastError = lastError
            if state == .connected { s.connectionError = nil }
            guard s.state != state else { return false }
            s.state = state
            return true
        }
        if changed { notify(.state(state)) }
    }

    func setProgress(_ progress: SyncProgress) {
        let changed = snapshotLock.withLock { s -> Bool in
            guard s.progress != progress else { return false }
            s.progress = progress
            return true
        }
        if changed { notify(.progress(progress)) }
    }

    func setPermission(_ permission: RealmPermission?) {
        snapshotLock.withLock { $0.permission = permission }
    }

    func report(_ error: AtollError, connection: Bool) {
        if connection { snapshotLock.withLock { $0.connectionError = error } }
        notify(.error(error))
    }
}
