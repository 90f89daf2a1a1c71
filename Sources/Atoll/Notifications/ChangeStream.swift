import AtollStorage
import Foundation

extension Results {
    /// Changes as an `AsyncSequence` of frozen (thread-safe) results that coalesces: a consumer
    /// slower than the commits receives the newest state, never a queue of old versions.
    ///
    /// ```swift
    /// for await change in realm.objects(Dog.self).changes {
    ///     if case .update(let dogs, let deletions, let insertions, let modifications) = change { ... }
    /// }
    /// ```
    /// The first element is `.initial`. When several updates arrive between two reads, they
    /// become one `.update` whose indices go from the state last delivered to the newest one
    /// (and an undelivered `.initial` stays `.initial`, of the newest state). The stream keeps at
    /// most one version pinned beyond the one the consumer holds. It ends after an `.error`
    /// (such as no free reader slot to freeze a version: the message says who holds them), when
    /// the consuming task is cancelled, or when the iterator is dropped; the observation and the
    /// pinned version are then released.
    ///
    /// Observation runs in this realm: updates arrive when it refreshes (its own commits,
    /// `refresh()`, or by itself for realms of an actor or a queue).
    public var changes: CollectionChanges<Results<Element>> {
        core.realm.verifyThread()
        let core = self.core
        return CollectionChanges { mailbox in
            Results(core: core).observe { change in
                switch change {
                case .initial(let live):
                    mailbox.post { try .initial(live.freezeThrowing(), keys: live.core.evaluateKeys()) }
                case .update(let live, let deletions, let insertions, let modifications):
                    mailbox.post {
                        let keys = try live.core.evaluateKeys()
                        return .update(try live.freezeThrowing(), keys: keys, deletions: deletions, insertions: insertions,
                                       modifiedKeys: Set(modifications.map { keys[$0] }))
                    }
                case .error(let error):
                    mailbox.post { throw error }
                }
            }
        }
    }

    /// `freeze()`, throwing instead of stopping when no version can be pinned.
    func freezeThrowing() throws -> Results<Element> {
        if isFrozen { return self }
        let frozenRealm = try core.realm.freezeThrowing()
        return Results(core: try core.rebased(on: frozenRealm))
    }
}

/// A collection's changes as a coalescing `AsyncSequence` (see `Results.changes`). The
/// observation starts when the sequence is made (on the realm's isolation); the sequence may
/// then be consumed by any one task. Dropping the sequence and its iterator ends it.
public struct CollectionChanges<Collection>: AsyncSequence, Sendable {
    public typealias Element = RealmCollectionChange<Collection>
    public typealias Failure = Never

    private let subscription: Subscription

    init(_ subscribe: (ChangeMailbox<Collection>) -> NotificationToken) {
        let mailbox = ChangeMailbox<Collection>()
        subscription = Subscription(mailbox)
        mailbox.start(subscribe(mailbox))
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(subscription: subscription)
    }

    /// Gives the newest change each time it is asked; ends when the consuming task is cancelled.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        /// A change: `.initial`, then coalesced `.update`s, or `.error`.
        public typealias Element = RealmCollectionChange<Collection>
        public typealias Failure = Never

        let subscription: Subscription

        public mutating func next() async -> Element? {
            await subscription.mailbox.next()
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await subscription.mailbox.next()
        }
    }

    /// Ends the stream when the iterator goes away.
    final class Subscription: Sendable {
        let mailbox: ChangeMailbox<Collection>
        init(_ mailbox: ChangeMailbox<Collection>) { self.mailbox = mailbox }
        deinit { mailbox.finish() }
    }
}

/// What a change stream holds between the observer (the realm's isolation) and the consumer
/// (any task): at most one undelivered change, coalesced with newer ones.
final class ChangeMailbox<Collection>: @unchecked Sendable {
    // Sendable: every stored property is read and written only under `lock`. The collections
    // in it are frozen (immutable versions, read from any thread through locked caches); the
    // live collection never enters the mailbox (`post` freezes it on the realm's isolation).

    /// One observed state, frozen.
    enum Posted {
        case initial(Collection, keys: [ObjectKey])
        case update(Collection, keys: [ObjectKey], deletions: [Int], insertions: [Int], modifiedKeys: Set<ObjectKey>)
    }

    private struct Pending {
        var posted: Posted
        /// Whether several updates were merged: the indices are then recomputed from keys.
        var merged = false
    }

    private let lock = NSLock()
    private var pending: Pending?
    private var failure: (any Error)?
    private var finished = false
    private var token: NotificationToken?
    private var waiter: CheckedContinuation<Delivery, Never>?

    /// A change handed from the observer's isolation to the consumer's: frozen, or an error.
    struct Delivery: @unchecked Sendable {
        // Sendable: the collection in a change is frozen (see the class comment).
        let change: RealmCollectionChange<Collection>?
    }
    /// The keys of the state last delivered: the base of a coalesced update's indices.
    private var deliveredKeys: [ObjectKey] = []

    func start(_ token: NotificationToken) {
        lock.lock()
        if finished {
            lock.unlock()
            token.invalidate()
            return
        }
        self.token = token
        lock.unlock()
    }

    /// Called on the realm's isolation with a change to freeze; a throw (no version could be
    /// pinned, or the observation failed) ends the stream with `.error`.
    func post(_ make: () throws -> Posted) {
        lock.lock()
        let isFinished = finished || failure != nil
        lock.unlock()
        guard !isFinished else { return }
        let posted: Posted
        do { posted = try make() } catch {
            lock.lock()
            failure = error
            pending = nil
            let w = waiter
            waiter = nil
            let t = token
            token = nil
            if w != nil { finished = true }
            lock.unlock()
            t?.invalidate()
            w?.resume(returning: Delivery(change: .error(error)))
            return
        }
        lock.lock()
        guard !finished else {
            lock.unlock()
            return
        }
        if let w = waiter {
            waiter = nil
            let change = deliver(Pending(posted: posted))
            lock.unlock()
            w.resume(returning: Delivery(change: change))
            return
        }
        pending = merge(pending, posted)
        lock.unlock()
    }

    /// Folds `newer` into the undelivered change, so that only the newest version stays pinned.
    private func merge(_ older: Pending?, _ newer: Posted) -> Pending {
        guard let older else { return Pending(posted: newer) }
        switch (older.posted, newer) {
        case (.initial, .initial(let c, let keys)), (.initial, .update(let c, let keys, _, _, _)):
            return Pending(posted: .initial(c, keys: keys))
        case (.update(_, _, _, _, let oldModified), .update(let c, let keys, _, _, let newModified)):
            return Pending(posted: .update(c, keys: keys, deletions: [], insertions: [], modifiedKeys: oldModified.union(newModified)), merged: true)
        case (.update, .initial(let c, let keys)):
            return Pending(posted: .initial(c, keys: keys))
        }
    }

    /// The change to hand to the consumer (under `lock`).
    private func deliver(_ p: Pending) -> RealmCollectionChange<Collection> {
        switch p.posted {
        case .initial(let c, let keys):
            deliveredKeys = keys
            return .initial(c)
        case .update(let c, let keys, let deletions, let insertions, let modifiedKeys):
            defer { deliveredKeys = keys }
            guard p.merged else {
                return .update(c, deletions: deletions, insertions: insertions, modifications: keys.indices.filter { modifiedKeys.contains(keys[$0]) })
            }
            let diff = CollectionDiff.compute(old: deliveredKeys, new: keys, isModified: { modifiedKeys.contains($0) })
            return .update(c, deletions: diff.deletions, insertions: diff.insertions, modifications: diff.modifications)
        }
    }

    /// The next change: the coalesced pending one, or the next one posted. Nil once the stream
    /// ended (after an error, or when the consuming task was cancelled).
    func next(isolation actor: isolated (any Actor)? = #isolation) async -> RealmCollectionChange<Collection>? {
        let delivery = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Delivery, Never>) in
                lock.lock()
                if finished {
                    lock.unlock()
                    continuation.resume(returning: Delivery(change: nil))
                } else if let p = pending {
                    pending = nil
                    let change = deliver(p)
                    lock.unlock()
                    continuation.resume(returning: Delivery(change: change))
                } else if let error = failure {
                    finished = true
                    lock.unlock()
                    continuation.resume(returning: Delivery(change: .error(error)))
                } else if Task.isCancelled {
                    lock.unlock()
                    finish()
                    continuation.resume(returning: Delivery(change: nil))
                } else {
                    waiter = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            finish()
        }
        return delivery.change
    }

    /// Ends the stream: stops the observation, releases the pending version, and ends a waiting
    /// consumer's iteration.
    func finish() {
        lock.lock()
        finished = true
        pending = nil
        let t = token
        token = nil
        let w = waiter
        waiter = nil
        lock.unlock()
        t?.invalidate()
        w?.resume(returning: Delivery(change: nil))
    }
}
