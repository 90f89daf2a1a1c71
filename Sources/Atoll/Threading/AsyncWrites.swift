import AtollStorage
import Foundation

/// Identifies a queued asynchronous write block or commit completion (RealmSwift's type).
public typealias AsyncTransactionId = UInt32

// Asynchronous writes (RealmSwift 10.26 and later, `asyncWrite` from 10.39).
//
// The writer lock is taken on the file's writer line (`BlockingLine.writers(of:)`), a dispatch
// thread outside Swift's cooperative pool: a task or queue waiting for another writer (a thread,
// an actor, another process) never blocks a pool thread. The line hands the open write
// transaction (`WriterLockRequest`) back to the realm's isolation, which runs the block and
// commits there. The commit's I/O runs on the realm's isolation (RealmSwift does it on a worker
// thread; README, "Differences from RealmSwift").
extension Realm {
    /// Runs `block` in a write transaction and commits it, suspending (not blocking the thread)
    /// while another writer holds the file.
    ///
    /// ```swift
    /// try await realm.asyncWrite { realm.add(Dog(value: ["name": "Rex"])) }
    /// ```
    /// As `write`, the realm first moves to the newest version (delivering notifications), and
    /// if `block` throws the write is cancelled and the error thrown. Only for realms isolated to
    /// the calling actor (`Realm(actor:)`), or main-thread realms used from the main actor.
    ///
    /// - Throws: `AtollError` when the transaction cannot start or commit, `CancellationError`
    ///   when the task is cancelled before the block runs (nothing is written then), or what
    ///   `block` throws.
    @discardableResult
    public func asyncWrite<Result>(_isolation actor: isolated any Actor = #isolation, _ block: () throws -> Result) async throws -> Result {
        verifyThread()
        guard confinement.scheduler != nil else {
            atollProgrammerError("asyncWrite() can only be called on main-thread, queue-confined or actor-isolated realms (open one with Realm(actor:))")
        }
        try checkCanBeginWrite()
        let w: WriteTransaction
        if let free = try database.beginWriteForHandoff(waiting: false) {
            w = free
        } else {
            w = try await waitForWriterLock()
        }
        // Another task of this actor may have opened a write while this one waited.
        if writeTransaction != nil || startupError != nil {
            w.rollback()
            throw AtollError(.invalidTransaction, "the realm is already in a write transaction; write transactions cannot nest (commit or cancel the first one)")
        }
        do { try Task.checkCancellation() } catch {
            w.rollback()
            throw error
        }
        try installWrite(w)
        let result: Result
        do {
            result = try block()
        } catch {
            if isInWriteTransaction { cancelWrite() }
            throw error
        }
        if isInWriteTransaction { try commitWrite() }
        return result
    }

    /// Suspends until the file's writer line hands over the writer lock. A write acquired
    /// for this realm and then taken by a synchronous `write` of the same realm meanwhile is
    /// asked for again; cancellation resumes at once (a lock acquired later is released).
    private func waitForWriterLock(_isolation actor: isolated any Actor = #isolation) async throws -> WriteTransaction {
        while true {
            let request = WriterLockRequest.enqueue(on: database)
            asyncWrites.outstanding.append(request)
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    request.whenSettled { continuation.resume() }
                }
            } onCancel: {
                request.abandon()
            }
            asyncWrites.outstanding.removeAll { $0 === request }
            switch request.take() {
            case .success(let w)?: return w
            case .failure(let error)?: throw error
            case nil:
                try Task.checkCancellation()
                // Taken by a synchronous write of this realm: ask again.
            }
        }
    }

    /// Begins a write transaction asynchronously: returns at once, and runs `asyncWriteBlock`
    /// on the realm's queue or actor inside a write transaction once the writer lock is free.
    /// The block should end with `commitAsyncWrite` or `commitWrite`; returning without one
    /// cancels the write. Blocks run one at a time in the order they were queued (also when
    /// queued from inside another block).
    ///
    /// - Returns: an id for `cancelAsyncWrite`, which cancels the block before it runs.
    @discardableResult
    public func beginAsyncWrite(_ asyncWriteBlock: @escaping () -> Void) -> AsyncTransactionId {
        beginAsyncWrite(asyncWriteBlock, onFailure: nil)
    }

    /// Runs `block` in a write transaction begun asynchronously (as `beginAsyncWrite`) and
    /// commits it asynchronously (as `commitAsyncWrite`); `onComplete` gets the commit's error,
    /// or the error that kept the transaction from starting.
    @discardableResult
    public func writeAsync(_ block: @escaping () -> Void, onComplete: (((any Swift.Error)?) -> Void)? = nil) -> AsyncTransactionId {
        beginAsyncWrite({ [unowned self] in
            block()
            if isInWriteTransaction || startupError != nil {
                commitAsyncWrite(onComplete)
            } else if let onComplete {
                // The block committed or cancelled the write itself.
                scheduleCompletion(onComplete, error: nil)
            }
        }, onFailure: onComplete)
    }

    /// Commits the current write transaction and calls `onComplete` with its error (nil on
    /// success) later, on the realm's queue or actor. Works for writes begun with `beginWrite`
    /// or `beginAsyncWrite`. `allowGrouping` is accepted for RealmSwift compatibility; each
    /// commit is made durable on its own.
    ///
    /// - Returns: an id for `cancelAsyncWrite`, which keeps `onComplete` from being called
    ///   (the commit itself happens).
    @discardableResult
    public func commitAsyncWrite(allowGrouping: Bool = false, _ onComplete: (((any Swift.Error)?) -> Void)? = nil) -> AsyncTransactionId {
        verifyThread()
        _ = requireScheduler("commitAsyncWrite()")
        guard isInWriteTransaction || startupError != nil else {
            atollProgrammerError("commitAsyncWrite() called outside a write transaction")
        }
        var failure: (any Swift.Error)?
        do { try commitWrite() } catch { failure = error }
        return scheduleCompletion(onComplete, error: failure)
    }

    /// Cancels a queued `beginAsyncWrite` block before it runs, or keeps a queued
    /// `commitAsyncWrite` completion from being called. Unknown ids, and the id of the block
    /// running now, are ignored.
    public func cancelAsyncWrite(_ asyncTransactionId: AsyncTransactionId) throws {
        try checkThread()
        if let i = asyncWrites.pending.firstIndex(where: { $0.id == asyncTransactionId }) {
            asyncWrites.pending.remove(at: i)
        } else {
            asyncWrites.completions[asyncTransactionId] = nil
        }
    }

    /// True from `beginAsyncWrite`, `commitAsyncWrite` or `writeAsync` until every block and
    /// completion they scheduled has run (or was cancelled).
    public var isPerformingAsynchronousWriteOperations: Bool {
        verifyThread()
        return asyncWrites.isBusy
    }

    // MARK: machinery

    func beginAsyncWrite(_ block: @escaping () -> Void, onFailure: (((any Swift.Error)?) -> Void)?) -> AsyncTransactionId {
        verifyThread()
        let scheduler = requireScheduler("beginAsyncWrite()")
        let id = asyncWrites.makeId()
        asyncWrites.pending.append(.init(id: id, block: block, onFailure: onFailure))
        requestLockForQueuedBlock(scheduler)
        return id
    }

    private func requireScheduler(_ what: String) -> RealmScheduler {
        guard let scheduler = confinement.scheduler else {
            atollProgrammerError("\(what) needs a realm that can be called back: open it with Realm(actor:), on a dispatch queue, or on the main thread")
        }
        return scheduler
    }

    /// Asks the writer line for the lock for the first queued block, unless a request is out
    /// or a block is running.
    private func requestLockForQueuedBlock(_ scheduler: RealmScheduler) {
        let q = asyncWrites
        guard q.blockRequest == nil, q.running == nil, !q.pending.isEmpty else { return }
        let request = WriterLockRequest.enqueue(on: database)
        q.blockRequest = request
        q.outstanding.append(request)
        // Strong: the realm stays open until its queued work has run (RealmSwift blocks a
        // closing realm until then).
        let target = RealmHandoff(self)
        request.whenSettled { scheduler.perform { target.realm.runQueuedBlock() } }
    }

    /// On the realm's isolation, once the line settled the request: runs the first queued block
    /// in the write transaction, then asks for the lock for the next one.
    private func runQueuedBlock() {
        let q = asyncWrites
        guard let request = q.blockRequest, let scheduler = confinement.scheduler else { return }
        q.blockRequest = nil
        q.outstanding.removeAll { $0 === request }
        defer { requestLockForQueuedBlock(scheduler) }
        guard let outcome = request.take() else { return }   // taken by a synchronous write: ask again
        guard !q.pending.isEmpty else {
            // Every queued block was cancelled meanwhile.
            if case .success(let w) = outcome { w.rollback() }
            return
        }
        let head = q.pending.removeFirst()
        q.running = head.id
        defer { q.running = nil }
        switch outcome {
        case .failure(let error):
            if let onFailure = head.onFailure {
                onFailure(error)
                return
            }
            // Reported by the block's commitWrite / commitAsyncWrite, as after a failed beginWrite().
            startupError = error
        case .success(let w):
            if writeTransaction != nil {
                // A write of this realm is open (beginWrite() and then a suspension).
                w.rollback()
                startupError = AtollError(.invalidTransaction, "the realm was already in a write transaction when the async write began")
            } else {
                do { try installWrite(w) } catch { startupError = error as? AtollError ?? AtollError(.ioError, "\(error)") }
            }
        }
        head.block()
        // Returning without committing cancels (RealmSwift).
        if isInWriteTransaction || startupError != nil { cancelWrite() }
    }

    @discardableResult
    private func scheduleCompletion(_ onComplete: (((any Swift.Error)?) -> Void)?, error: (any Swift.Error)?) -> AsyncTransactionId {
        let id = asyncWrites.makeId()
        guard let scheduler = confinement.scheduler else { return id }
        asyncWrites.completions[id] = (onComplete, error)
        let target = RealmHandoff(self)
        scheduler.perform {
            let realm = target.realm
            guard let done = realm.asyncWrites.completions.removeValue(forKey: id) else { return }
            done.callback?(done.error)
        }
        return id
    }

    /// Takes a write transaction that the writer line acquired for one of this realm's async
    /// writes and has not yet been used, for a synchronous write of the realm that would
    /// otherwise wait for the lock its own async write holds (the actor or queue cannot run the
    /// async write while it blocks). The async write asks the line again.
    func takeAcquiredAsyncWrite() -> WriteTransaction? {
        for request in asyncWrites.outstanding {
            if let w = request.steal() { return w }
        }
        return nil
    }
}

/// The async write state of one realm; used only on the realm's isolation.
final class AsyncWriteQueue {
    struct Pending {
        let id: AsyncTransactionId
        let block: () -> Void
        let onFailure: (((any Swift.Error)?) -> Void)?
    }

    private var nextId: AsyncTransactionId = 1
    /// `beginAsyncWrite` blocks not yet run, in order.
    var pending: [Pending] = []
    /// The writer-lock request for the first pending block.
    var blockRequest: WriterLockRequest?
    /// Every request of this realm on the writer line (blocks' and `asyncWrite`s').
    var outstanding: [WriterLockRequest] = []
    /// The block running now.
    var running: AsyncTransactionId?
    /// `commitAsyncWrite` completions not yet called.
    var completions: [AsyncTransactionId: (callback: (((any Swift.Error)?) -> Void)?, error: (any Swift.Error)?)] = [:]

    func makeId() -> AsyncTransactionId {
        defer { nextId &+= 1 }
        return nextId
    }

    var isBusy: Bool { !pending.isEmpty || blockRequest != nil || running != nil || !completions.isEmpty }
}

/// One request for a file's writer lock, from a realm's isolation to the file's writer line
/// (a dispatch thread that may block) and back.
final class WriterLockRequest: @unchecked Sendable {
    // Sendable: `state` and `settled` are read and written only under `lock`. The write
    // transaction in `.acquired` is handed from the line to exactly one taker (the realm's
    // isolation, or `abandon`, which rolls it back): a hand-off, never shared use.
    private enum State {
        case waiting
        case acquired(WriteTransaction)
        case failed(AtollError)
        /// Cancelled by the waiter, or taken: a transaction acquired later is rolled back.
        case done
    }

    private let lock = NSLock()
    private var state = State.waiting
    private var settled: (@Sendable () -> Void)?
    private var hasSettled = false

    /// Queues a request on `database`'s writer line.
    static func enqueue(on database: Database) -> WriterLockRequest {
        let request = WriterLockRequest()
        BlockingLine.writers(of: database.fileId).async {
            guard request.isWaiting else { return }   // abandoned before its turn
            let outcome: Result<WriteTransaction, AtollError>
            do {
                // `waiting: true` never answers nil.
                guard let w = try database.beginWriteForHandoff(waiting: true) else { return }
                outcome = .success(w)
            } catch {
                outcome = .failure(error as? AtollError ?? AtollError(.ioError, "\(error)"))
            }
            request.offer(outcome)
        }
        return request
    }

    private var isWaiting: Bool {
        lock.lock()
        defer { lock.unlock() }
        if case .waiting = state { return true }
        return false
    }

    /// Calls `body` once, when the request is settled (acquired, failed or abandoned): at once
    /// if it already is.
    func whenSettled(_ body: @escaping @Sendable () -> Void) {
        lock.lock()
        if hasSettled {
            lock.unlock()
            body()
            return
        }
        settled = body
        lock.unlock()
    }

    /// The line's answer. An answer to an abandoned request is undone.
    private func offer(_ outcome: Result<WriteTransaction, AtollError>) {
        lock.lock()
        guard case .waiting = state else {
            lock.unlock()
            if case .success(let w) = outcome { w.rollback() }
            return
        }
        switch outcome {
        case .success(let w): state = .acquired(w)
        case .failure(let e): state = .failed(e)
        }
        let notify = settle()
        lock.unlock()
        notify?()
    }

    /// Gives the request up (the waiting task was cancelled): a lock already acquired for it
    /// is released, one acquired later too.
    func abandon() {
        lock.lock()
        let undone: WriteTransaction?
        if case .acquired(let w) = state { undone = w } else { undone = nil }
        state = .done
        let notify = settle()
        lock.unlock()
        undone?.rollback()
        notify?()
    }

    /// The outcome, once; nil when abandoned or stolen.
    func take() -> Result<WriteTransaction, AtollError>? {
        lock.lock()
        defer { lock.unlock() }
        switch state {
        case .acquired(let w):
            state = .done
            return .success(w)
        case .failed(let e):
            state = .done
            return .failure(e)
        case .waiting, .done:
            return nil
        }
    }

    /// The acquired transaction, for a synchronous write of the same realm (see
    /// `Realm.takeAcquiredAsyncWrite`); the request then settles empty.
    func steal() -> WriteTransaction? {
        lock.lock()
        guard case .acquired(let w) = state else {
            lock.unlock()
            return nil
        }
        state = .done
        lock.unlock()
        return w
    }

    /// Marks the request settled and returns the callback to run outside the lock.
    private func settle() -> (@Sendable () -> Void)? {
        guard !hasSettled else { return nil }
        hasSettled = true
        defer { settled = nil }
        return settled
    }
}

/// A realm handed to work scheduled on its own queue or actor (RealmScheduler), which alone
/// uses it there.
struct RealmHandoff: @unchecked Sendable {
    // Sendable: created on the realm's isolation and dereferenced only by work that runs on
    // that same isolation (RealmScheduler.perform with the realm's own scheduler).
    let realm: Realm
    init(_ realm: Realm) { self.realm = realm }
}
