import Dispatch
import Testing
@testable import AtollStorage

// AtollLock is the package's one lock (built on pthread_mutex so that Thread Sanitizer sees it).
// tools/tsan/run runs this suite under TSan: a lock that failed to order its critical sections
// would be reported there as a race on the unguarded counter below.

/// A counter with no synchronization of its own: only the lock makes its updates safe.
private final class PlainCounter: @unchecked Sendable {
    // @unchecked Sendable: `n` is touched only inside `AtollLock.withLock` of the test's lock.
    var n = 0
}

private struct Refused: Error, Equatable { let code: Int }

@Suite struct LockTests {
    @Test func criticalSectionsOnFourThreadsNeverOverlap() {
        let lock = AtollLock(0)
        let plain = PlainCounter()
        let rounds = 50_000
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<rounds {
                lock.withLock { inside in
                    inside += 1
                    plain.n += 1
                }
            }
        }
        #expect(lock.withLock { $0 } == 4 * rounds)
        #expect(lock.withLock { _ in plain.n } == 4 * rounds)
    }

    @Test func aThrowingBodyReleasesTheLockAndKeepsItsWrites() {
        let lock = AtollLock([Int]())
        #expect(throws: Refused(code: 7)) {
            try lock.withLock { (values: inout [Int]) throws(Refused) -> Void in
                values.append(1)
                throw Refused(code: 7)
            }
        }
        // Taken again at once on the same thread: the throw unlocked it.
        lock.withLock { $0.append(2) }
        #expect(lock.withLock { $0 } == [1, 2])
    }

    @Test func copiesShareOneLockAndValue() async {
        let lock = AtollLock([String: Int]())
        let copy = lock
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<64 {
                group.addTask { (i.isMultiple(of: 2) ? lock : copy).withLock { $0["k\(i % 8)", default: 0] += 1 } }
            }
        }
        #expect(lock.withLock { $0 } == Dictionary(uniqueKeysWithValues: (0..<8).map { ("k\($0)", 8) }))
    }
}
