import Dispatch
import Foundation
import AtollStorage
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A serial executor that runs every job on one dedicated thread.
///
/// The sync drivers (a node's session, the relay) are actors on such an executor. Their sans-IO
/// cores do blocking file work (a commit waits for fdatasync) that must not hold one of the few
/// threads of Swift's cooperative pool, and a `SyncReplica` or `RelayCore` is used from one
/// thread at a time. `submit` runs a plain closure on the thread, in order with the jobs, for
/// callers that cannot await (the commit watcher thread, `SyncSession.pause()`); such a closure
/// enters the actor with `assumeIsolated`, which `checkIsolated` below allows on this thread.
///
/// It is also a task executor: a node's connection loop runs with it as its task executor
/// preference, so the session's network work (the frame pumps and their NIO bridges) stays on
/// this thread too and never waits for the cooperative pool, which the application may be
/// holding with blocking work of its own.
///
/// The thread ends after `stop()`, once every job queued before it has run. Stop it only when
/// the actor has no task left that could enqueue more work.
final class SyncThreadExecutor: SerialExecutor, TaskExecutor, Sendable {
    private enum Item: Sendable {
        case job(UnownedJob)
        case block(@Sendable () -> Void)
        case stop
    }

    /// Items waiting, taken from `head` (compacted as it advances).
    private struct Queue {
        var items: [Item] = []
        var head = 0
    }

    private let queue = AtollLock(Queue())
    private let wake = DispatchSemaphore(value: 0)
    /// The worker's pthread id as an integer (0 until it starts).
    private let threadID = Atomic<Int>(0)
    private let started = DispatchSemaphore(value: 0)
    let name: String

    init(name: String) {
        self.name = name
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
        // Wait for the thread id so `checkIsolated` is meaningful from the first job.
        started.wait()
    }

    private func run() {
        threadID.store(Int(bitPattern: pthread_self()), ordering: .releasing)
        started.signal()
        while true {
            wake.wait()
            let item = queue.withLock { q -> Item? in
                guard q.head < q.items.count else { return nil }
                let item = q.items[q.head]
                q.head += 1
                if q.head >= 64, q.head * 2 >= q.items.count {
                    q.items.removeFirst(q.head)
                    q.head = 0
                }
                return item
            }
            switch item {
            case .job(let job): job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
            case .block(let block): block()
            case .stop: return
            case nil: continue
            }
        }
    }

    private func push(_ item: Item) {
        queue.withLock { $0.items.append(item) }
        wake.signal()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        push(.job(UnownedJob(job)))
    }

    /// Runs `block` on the executor's thread after everything queued before it.
    func submit(_ block: @escaping @Sendable () -> Void) {
        push(.block(block))
    }

    /// Ends the thread after the work queued so far.
    func stop() {
        push(.stop)
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    var isCurrent: Bool { threadID.load(ordering: .acquiring) == Int(bitPattern: pthread_self()) }

    func checkIsolated() {
        // Reached only through assumeIsolated from our own blocks: a call from elsewhere is a bug
        // in this module, never a consequence of input.
        precondition(isCurrent, "\(name): actor-isolated code ran off the executor's thread")
    }
}
