import Foundation

/// Runs blocking work (waiting for a child process, polling with `usleep`) on a thread of its own
/// and suspends until it is done, so a test does not hold one of the few threads of Swift's
/// cooperative pool (one per core): the tests running in parallel, and in-process sessions, need
/// them. The work runs in the calling task (through a task executor preference), so `#expect`
/// and `#require` inside it are recorded against the calling test.
///
/// ```swift
/// @Test func nodesConverge() async throws {
///     try await offPool {
///         let cluster = try Cluster(nodes: ["a", "b"])
///         ...
///     }
/// }
/// ```
public func offPool<T: Sendable>(_ work: () throws -> T) async throws -> T {
    let executor = DedicatedThreadExecutor()
    defer { executor.stop() }
    return try await withTaskExecutorPreference(executor) {
        try work()
    }
}

/// Runs `work` and every child task it starts (task groups, `async let`) on a thread of its own
/// instead of Swift's cooperative pool, so a test that must keep time (handshakes, timeouts) is
/// not starved by other tests blocking the pool's few threads.
public func offPool<T: Sendable>(_ work: () async throws -> T) async throws -> T {
    let executor = DedicatedThreadExecutor()
    defer { executor.stop() }
    return try await withTaskExecutorPreference(executor) {
        try await work()
    }
}

/// A task executor with one thread of its own, which runs the jobs given to it in order.
final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    // Sendable: `jobs` and `stopped` are read and written only under `condition`'s lock.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    init() {
        let thread = Thread { [self] in run() }
        thread.name = "test-blocking-work"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once the jobs given so far have run.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
