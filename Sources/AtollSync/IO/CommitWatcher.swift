import AtollStorage
import Foundation
import Synchronization

/// Wakes a node's session when anyone commits to its file: a thread sleeps on the lock file's
/// commit futex (`Database.waitForCommit`), which every commit of every process bumps, so an
/// `atoll import` in another process is noticed at once, not at the next timer tick.
///
/// Wake-ups coalesce: `onCommit` is not called again until `acknowledge()` says the previous
/// one was taken, so a burst of commits costs one extraction, not one per commit. The session
/// extracts from the file's history, so a wake-up carries no data and a missed one only delays
/// shipping until the next (the session's timer also extracts).
final class CommitWatcher: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let pending = Atomic<Bool>(false)
    private let exited = AtollLock<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// `onCommit` runs on the watcher's thread; keep it short (hand the work to the session).
    /// The commit counter is read before this returns, so no commit made afterwards is missed.
    init(database: Database, pollMilliseconds: Int = 250, onCommit: @escaping @Sendable () -> Void) {
        let start = database.commitSequence
        let thread = Thread { [self] in
            var seen = start
            while !stopping.load(ordering: .acquiring) {
                let now = database.waitForCommit(after: seen, timeoutMilliseconds: pollMilliseconds)
                guard now != seen else { continue }
                seen = now
                if !pending.exchange(true, ordering: .acquiringAndReleasing) { onCommit() }
            }
            let waiters = exited.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.done = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for w in waiters { w.resume() }
        }
        thread.name = "atoll-sync-commits"
        thread.start()
    }

    /// The wake-up was taken: the next commit wakes again. Call before extracting, so a commit
    /// made during the extraction is not lost.
    func acknowledge() {
        pending.store(false, ordering: .releasing)
    }

    /// Stops the thread and waits for it to end (at most one poll interval).
    func stop() async {
        stopping.store(true, ordering: .releasing)
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = exited.withLock { state -> Bool in
                if !state.done { state.waiters.append(c) }
                return state.done
            }
            if done { c.resume() }
        }
    }
}
