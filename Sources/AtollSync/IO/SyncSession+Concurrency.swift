import AtollStorage
import Dispatch

// A sync session's state and progress as coalescing async sequences.
//
// Each iteration registers an observer on the session's publisher with a serial queue of its own;
// the observer stores the newest value in a one-element slot (CoalescingSlot) that `next()`
// takes. A consumer slower than the session therefore sees the newest value, never a backlog,
// and holds one value at most. The sequence ends (next() returns nil) when the session is
// closed or released (after the value it had then), when the iterating task is cancelled, or
// when the iterator is dropped; each of these unregisters the observer.

extension SyncSession {
    /// The session's state as an async sequence: first the state now, then each state that
    /// differs from the one delivered before it. A slow consumer gets the newest state, not
    /// every state in between. Ends after `close()` (the last state delivered is then
    /// `.offline`) or when the iterating task is cancelled.
    ///
    /// ```swift
    /// for await state in session.states where state == .connected { break }
    /// ```
    public var states: SyncSessionValues<SessionState> {
        SyncSessionValues(publisher: publisher, current: { $0.state }, select: { event in
            if case .state(let state) = event { return state }
            return nil
        })
    }

    /// Upload and download progress as an async sequence, coalescing like `states`: first the
    /// progress now, then each change (the newest when the consumer falls behind). Ends after
    /// `close()` or when the iterating task is cancelled.
    public var progressUpdates: SyncSessionValues<SyncProgress> {
        SyncSessionValues(publisher: publisher, current: { $0.progress }, select: { event in
            if case .progress(let progress) = event { return progress }
            return nil
        })
    }
}

/// A coalescing async sequence of one of a sync session's values (`SyncSession.states`,
/// `SyncSession.progressUpdates`). Each iterator starts with the value at the time it is made.
public struct SyncSessionValues<Element: Sendable & Equatable>: AsyncSequence, Sendable {
    /// `SyncSessionValues` never throws.
    public typealias Failure = Never

    let publisher: SessionPublisher
    let current: @Sendable (SessionPublisher.Snapshot) -> Element
    let select: @Sendable (SyncEvent) -> Element?

    /// Starts observing the session; the first `next()` returns the value now.
    public func makeAsyncIterator() -> Iterator {
        Iterator(subscription: Subscription(publisher: publisher, current: current, select: select))
    }

    /// Delivers the newest value not yet delivered; nil once the session ended or the task was
    /// cancelled.
    public struct Iterator: AsyncIteratorProtocol {
        let subscription: Subscription

        /// The next value, or nil when the sequence has ended.
        public mutating func next() async -> Element? {
            await subscription.slot.take()
        }

        /// The next value, or nil when the sequence has ended (isolation-preserving form).
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(Never) -> Element? {
            await subscription.slot.take()
        }
    }

    /// The observer registration of one iterator; released with the iterator.
    final class Subscription: Sendable {
        let slot = CoalescingSlot<Element>()
        private let observation: SyncObservation
        private let endID: UInt64?
        private let publisher: SessionPublisher

        init(publisher: SessionPublisher, current: @Sendable (SessionPublisher.Snapshot) -> Element,
             select: @escaping @Sendable (SyncEvent) -> Element?)
        {
            self.publisher = publisher
            let queue = DispatchQueue(label: "atoll.sync.values")
            let slot = self.slot
            observation = publisher.observe(queue: queue) { event in
                if let value = select(event) { slot.offer(value) }
            }
            // After registering, so that a change made meanwhile is not lost: it is delivered
            // after this value (at worst once more).
            slot.offer(current(publisher.snapshot))
            // The end goes through the observer's queue, behind every event queued before it.
            endID = publisher.ending.withLock { e -> UInt64? in
                guard !e.ended else { return nil }
                e.next += 1
                e.handlers[e.next] = { queue.async { slot.finish() } }
                return e.next
            }
            if endID == nil { queue.async { slot.finish() } }
        }

        deinit {
            observation.invalidate()
            if let endID { _ = publisher.ending.withLock { $0.handlers.removeValue(forKey: endID) } }
            slot.finish()
        }
    }
}

/// Holds at most one value between a producer and one consumer: a new value replaces one not
/// yet taken, and a value equal to the last one delivered is dropped.
final class CoalescingSlot<Element: Sendable & Equatable>: Sendable {
    private struct State {
        var pending: Element?
        var delivered: Element?
        var waiter: CheckedContinuation<Element?, Never>?
        var finished = false
    }

    private let state = AtollLock(State())

    func offer(_ value: Element) {
        let waiter = state.withLock { s -> CheckedContinuation<Element?, Never>? in
            guard !s.finished else { return nil }
            if let waiter = s.waiter {
                guard value != s.delivered else { return nil }
                s.waiter = nil
                s.delivered = value
                return waiter
            }
            s.pending = value == s.delivered ? nil : value
            return nil
        }
        waiter?.resume(returning: value)
    }

    /// Ends the sequence: a value still pending is delivered first, then nil.
    func finish() {
        let waiter = state.withLock { s -> CheckedContinuation<Element?, Never>? in
            s.finished = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
    }

    func take() async -> Element? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Element?, Never>) in
                let now = state.withLock { s -> Element?? in
                    if let value = s.pending {
                        s.pending = nil
                        s.delivered = value
                        return .some(value)
                    }
                    if s.finished || Task.isCancelled {
                        s.finished = true
                        return .some(nil)
                    }
                    s.waiter = c
                    return .none
                }
                if let now { c.resume(returning: now) }
            }
        } onCancel: {
            cancelWaiting()
        }
    }

    /// Cancellation of the consuming task: the sequence ends at once, without a pending value.
    private func cancelWaiting() {
        let waiter = state.withLock { s -> CheckedContinuation<Element?, Never>? in
            s.finished = true
            s.pending = nil
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
    }
}
