import Dispatch
import Synchronization

/// How work reaches a realm's isolation later: its dispatch queue, or its actor. Used for
/// autorefresh (RealmCoordinator), async write blocks and their completions (AsyncWrites).
enum RealmScheduler: Sendable {
    case queue(DispatchQueue)
    case actor(any Actor)

    /// Runs `body` on the isolation, after the caller's current work. The order of two calls
    /// is kept on a queue, not on an actor (each call is a task); callers that need an order
    /// keep it themselves.
    func perform(_ body: @escaping @Sendable () -> Void) {
        switch self {
        case .queue(let queue): queue.async(execute: body)
        case .actor(let actor): Task { await actor.atollPerform(body) }
        }
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
    private static let lines = Mutex<[[UInt8]: DispatchQueue]>([:])
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
