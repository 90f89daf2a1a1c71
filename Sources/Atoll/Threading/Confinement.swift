#if canImport(Glibc)
import Glibc
#endif
import CAtollShims
import Dispatch
import Foundation

/// Which isolation (a thread, a dispatch queue or an actor) a Realm and its live objects
/// belong to.
///
/// Every API call checks it. Calls that can throw throw `.wrongThread`; property accessors,
/// which cannot throw, stop the program with a clear message: using a Realm from another
/// isolation is a programming error (like an index out of range), and reading another
/// thread's snapshot silently would be worse.
///
/// An actor-isolated realm compares executors, not threads: the actor may run on any thread
/// of the pool after each suspension, and it is still the same isolation. (RealmSwift does the
/// same through `preconditionIsolated()`; Atoll asks the runtime for an answer instead, so that
/// throwing APIs throw and accessors stop with Atoll's message.)
struct Confinement: Sendable {
    let thread: pthread_t
    let queue: DispatchQueue?
    /// The actor of an actor-isolated realm, and its executor (the check's operand).
    let actor: (any Actor)?
    private let executor: UnownedSerialExecutor?
    let isUnconfined: Bool
    /// Whether a thread-confined realm was opened on the main thread (whose main queue can call
    /// it back).
    private let isMainThread: Bool

    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    static func current(queue: DispatchQueue?) -> Confinement {
        if let queue {
            queue.setSpecific(key: queueKey, value: ObjectIdentifier(queue))
        }
        return Confinement(thread: pthread_self(), queue: queue, actor: nil, executor: nil, isUnconfined: false, isMainThread: Thread.isMainThread)
    }

    /// Confinement to `actor`: code isolated to it, on whatever thread runs it.
    static func isolated(to actor: any Actor) -> Confinement {
        Confinement(thread: pthread_self(), queue: nil, actor: actor, executor: actor.unownedExecutor, isUnconfined: false, isMainThread: false)
    }

    static let unconfined = Confinement(thread: pthread_self(), queue: nil, actor: nil, executor: nil, isUnconfined: true, isMainThread: false)

    @inline(__always)
    var isCurrent: Bool {
        if isUnconfined { return true }
        if let executor { return Self.isCurrentExecutor(executor) }
        if let queue { return DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(queue) }
        // `==` rather than `pthread_equal`: pthread_t is an integer (Glibc) or a pointer (Darwin)
        // that identifies the thread, and this runs on every property read (a call saved).
        return pthread_self() == thread
    }

    /// Whether the caller runs isolated to `executor`. About 30 ns on an actor (the runtime
    /// reads the current task's executor); the main actor also answers true on the main thread
    /// outside any task, as `MainActor.assumeIsolated` does.
    static func isCurrentExecutor(_ executor: UnownedSerialExecutor) -> Bool {
        // An UnownedSerialExecutor is two words, (identity, implementation): the runtime's
        // SerialExecutorRef. The size is checked so that a layout change fails loudly.
        precondition(MemoryLayout<UnownedSerialExecutor>.size == 2 * MemoryLayout<UInt>.size)
        let parts = unsafeBitCast(executor, to: (UnsafeRawPointer?, UInt).self)
        return atoll_is_current_executor(parts.0, parts.1) != 0
    }

    var description: String {
        if let actor { return actor is MainActor ? "the main actor" : "actor \(type(of: actor))" }
        return queue.map { "queue '\($0.label)'" } ?? "the thread that opened it"
    }

    /// Where the coordinator refreshes a realm of this confinement when others commit
    /// (autorefresh): realms of a queue or an actor.
    var refreshScheduler: RealmScheduler? {
        if let actor { return .actor(actor) }
        return queue.map { .queue($0) }
    }

    /// How a realm of this confinement runs work later (notifications, async writes): nil for a
    /// thread-confined realm off the main thread, which has no way to be called back.
    var scheduler: RealmScheduler? {
        if let actor { return .actor(actor) }
        if let queue { return .queue(queue) }
        if isMainThread { return .queue(.main) }
        return nil
    }
}
