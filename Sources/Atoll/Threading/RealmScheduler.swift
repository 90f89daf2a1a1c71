import Dispatch
import AtollStorage
import Synchronization

/// How work reaches a realm's isolation later: its dispatch queue, or its actor. Used for
/// autorefresh (RealmCoordinator), async write blocks and their completions (AsyncWrites).
enum RealmScheduler: Sendable {
    case queue(DispatchQueue)
    case actor(any Actor)

    /// Runs `body` on the isolation, after the caller's current work. The order of two calls
    /// is kept on a queue, not on an actor (each call is a task); callers that need an order
    /// keep it themselves.
    ///
    /// For an actor, the task runs on `ActorDelivery` (a task executor preference): a default
    /// actor then runs `body` on a dispatch thread, not on Swift's cooperative pool, so the
    /// delivery does not wait while other work holds every thread of the pool (there is one per
    /// core, and blocking code, such as synchronous tests, can hold them for a minute). An actor
    /// with its own executor (the main actor) still runs `body` there.
    func perform(_ body: @escaping @Sendable () -> Void) {
        switch self {
        case .queue(let queue): queue.async(execute: body)
        case .actor(let actor): Task(executorPreference: ActorDelivery.shared) { await actor.atollPerform(body) }
        }
    }
}

/// The task executor of deliveries to actors (autorefresh and its notifications, async write
/// blocks and their completions). Each job runs on a serial dispatch queue of its own: such
/// queues run on dispatch's overcommitting threads, which start at once even when other threads
/// block (a shared concurrent queue gets more threads only from dispatch's slow monitor, and the
/// cooperative pool none while its threads stay blocked). A delivery that blocks (a `write`
/// waiting for the writer lock that another delivery is about to take) therefore never holds up
/// another.
final class ActorDelivery: TaskExecutor {
    static let shared = ActorDelivery()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        DispatchQueue(label: "atoll.actor-delivery").async { job.runSynchronously(on: executor) }
    }
}

extension Actor {
    /// Runs `body` isolated to this actor.
    func atollPerform(_ body: @Sendable () -> Void) { body() }
}

/// Blocking waits (the writer lock, which another thread or process may hold for long, and the
/// first open of a file) run on dispatch threads outside Swift's cooperative pool: a task
/// waiting there suspends, and the pool's few threads keep running other tasks.
///
/// One serial line per file: waiters for a file's writer lock block one thread, in the order
/// they asked, and hand the lock over one after the other.
enum BlockingLine {
    private static let lines = AtollLock<[[UInt8]: DispatchQueue]>([:])
    private static let opening = DispatchQueue(label: "atoll.open", attributes: .concurrent)

    /// The writer line of the file with identity `file` (`Database.fileId`). One queue per file
    /// the process ever wrote asynchronously: bounded by the number of files.
    static func writers(of file: [UInt8]) -> DispatchQueue {
        lines.withLock { lines in
            if let q = lines[file] { return q }
            let q = DispatchQueue(label: "atoll.writer-line")
            lines[file] = q
            return q
        }
    }

    /// Runs blocking `work` off the cooperative pool and returns its result.
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            opening.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
