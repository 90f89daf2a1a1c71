import AtollStorage
import Synchronization

/// One budget for the bytes that peers can make this process buffer: unfinished frames,
/// decompressed frames not yet consumed, and frames queued for sending. A server shares one
/// budget among all its connections, a client has one of its own (or shares one given in its
/// configuration).
///
/// Every connection charges what it buffers to the budget before it allocates, and releases it
/// once the bytes are consumed or written. A connection whose next charge would take the budget
/// over `bytesMax` is closed with `AtollError(.limitExceeded, ...)` and one log line; the others
/// go on. So however many peers send large or unfinished frames, the memory they hold together
/// stays under `bytesMax` (plus, per connection, at most one TLS record and the codec's fixed
/// state: the zstd contexts and the socket buffers, which are not counted).
///
/// On a server with `limitsBeforeSession`, connections whose session is not open yet (peers that
/// have not said a valid hello) share at most `beforeSessionShare` of it (a quarter), so that
/// such peers cannot take the budget from the sessions that are syncing.
///
/// ```swift
/// var configuration = TransportConfiguration()
/// configuration.bufferedBytesMax = 256 << 20
/// ```
public final class MemoryBudget: Sendable {
    /// The most bytes all connections together may hold.
    public let bytesMax: Int
    private let used = Atomic<Int>(0)
    private let peak = Atomic<Int>(0)

    /// A budget of `bytesMax` bytes.
    public init(bytesMax: Int) {
        self.bytesMax = max(0, bytesMax)
    }

    /// The part of a server's budget that connections before their session may hold together.
    public static let beforeSessionShare = 0.25

    /// Bytes held now.
    public var bytesUsed: Int { used.load(ordering: .relaxed) }

    /// The most bytes held at once since this budget was made.
    public var bytesUsedPeak: Int { peak.load(ordering: .relaxed) }

    /// Takes `bytes` if they fit under `bytesMax`.
    func tryReserve(_ bytes: Int) -> Bool {
        var current = used.load(ordering: .relaxed)
        while true {
            let (total, overflow) = current.addingReportingOverflow(bytes)
            guard !overflow, total <= bytesMax else { return false }
            let (exchanged, original) = used.compareExchange(expected: current, desired: total, ordering: .relaxed)
            if exchanged {
                notePeak(total)
                return true
            }
            current = original
        }
    }

    /// Takes `bytes` even past `bytesMax` (for what is already allocated and only counted, such
    /// as encoded bytes handed to the socket).
    func forceReserve(_ bytes: Int) {
        notePeak(used.add(bytes, ordering: .relaxed).newValue)
    }

    func release(_ bytes: Int) {
        used.subtract(bytes, ordering: .relaxed)
    }

    private func notePeak(_ value: Int) {
        var seen = peak.load(ordering: .relaxed)
        while value > seen {
            let (exchanged, original) = peak.compareExchange(expected: seen, desired: value, ordering: .relaxed)
            if exchanged { return }
            seen = original
        }
    }
}

/// One connection's share of a `MemoryBudget`: what it holds, so that everything is given back
/// when the connection ends, whichever part of it was still holding bytes.
///
/// Charges and releases come from the event loop (the codec) and from tasks (the inbound
/// iterator, the outgoing queue); a mutex keeps the count. After `close()` nothing is charged
/// and releases are no-ops, so a late release cannot give back bytes twice.
final class BufferAccount: Sendable {
    let budget: MemoryBudget
    /// Charged too until the session opens (`sessionOpened()`): the share of the budget that
    /// connections before their session hold together.
    private let state: AtollLock<(held: Int, closed: Bool, beforeSession: MemoryBudget?)>

    init(budget: MemoryBudget, beforeSession: MemoryBudget? = nil) {
        self.budget = budget
        state = AtollLock((0, false, beforeSession))
    }

    /// The session is open: from now on only the main budget is charged.
    func sessionOpened() {
        state.withLock { state in
            state.beforeSession?.release(state.held)
            state.beforeSession = nil
        }
    }

    /// Bytes this connection holds now.
    var held: Int { state.withLock { $0.held } }

    /// Charges `bytes` held for `what` ("an unfinished frame"), or throws `.limitExceeded` when
    /// the budget cannot take them (nothing is charged then).
    func reserve(_ bytes: Int, for what: String) throws(AtollError) {
        guard bytes > 0 else { return }
        let budget = self.budget
        let refusedBy: MemoryBudget? = state.withLock { state in
            guard !state.closed else { return nil }
            guard budget.tryReserve(bytes) else { return budget }
            if let share = state.beforeSession, !share.tryReserve(bytes) {
                budget.release(bytes)
                return share
            }
            state.held += bytes
            return nil
        }
        if let refusedBy {
            let whose = refusedBy === budget ? "all connections (bufferedBytesMax)" : "connections whose session is not open yet (a quarter of bufferedBytesMax)"
            throw AtollError(.limitExceeded, "the memory budget for buffered bytes is exhausted: \(refusedBy.bytesUsed) of \(refusedBy.bytesMax) bytes are held by \(whose), and \(bytes) more are needed for \(what); closing this connection (its peer may reconnect)")
        }
    }

    /// Charges `bytes` already allocated, even past the budget.
    func charge(_ bytes: Int) {
        guard bytes > 0 else { return }
        let budget = self.budget
        state.withLock { state in
            guard !state.closed else { return }
            budget.forceReserve(bytes)
            state.beforeSession?.forceReserve(bytes)
            state.held += bytes
        }
    }

    /// Gives back `bytes` (at most what is held).
    func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        let budget = self.budget
        state.withLock { state in
            let given = min(bytes, state.held)
            state.held -= given
            budget.release(given)
            state.beforeSession?.release(given)
        }
    }

    /// Gives back everything and stops counting (the connection has ended).
    func close() {
        let budget = self.budget
        state.withLock { state in
            budget.release(state.held)
            state.beforeSession?.release(state.held)
            state.beforeSession = nil
            state.held = 0
            state.closed = true
        }
    }
}
