#if canImport(Glibc)
public import Glibc
#elseif canImport(Darwin)
public import Darwin
#endif

// AtollLock: the one lock type of the package.
//
// It replaces `Synchronization.Mutex`. On Linux that Mutex waits on a raw futex, which Thread
// Sanitizer cannot see: every value it guards looked like a data race to TSan (about 90 false
// reports in the concurrency suites). A `pthread_mutex_t` is intercepted by TSan, so the
// happens-before edge between an unlock and the next lock is visible and only real races are
// reported. Uncontended, both take one atomic compare-and-swap to lock and one to unlock; see
// README ("Thread Sanitizer") for the measured cost.
//
// Layout: a final class holds the guarded value and a pointer to a `pthread_mutex_t` allocated on
// its own, so the mutex never moves (a pthread mutex must not be copied or moved once
// initialized). Copies of an `AtollLock` share that object, hence the same lock.
//
// Invariant: `value` is read or written only between `pthread_mutex_lock` and
// `pthread_mutex_unlock` of the object's mutex.

/// A value guarded by a pthread mutex, with the `withLock` shape of `Synchronization.Mutex`.
package struct AtollLock<Value>: Sendable {
    @usableFromInline let storage: AtollLockStorage<Value>

    /// Creates a lock guarding `initialValue`.
    package init(_ initialValue: consuming sending Value) {
        storage = AtollLockStorage(initialValue)
    }

    /// Runs `body` with exclusive access to the value, holding the lock for the whole call.
    @inlinable
    package func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try storage.locked(body)
    }
}

/// The heap object behind an `AtollLock`.
@usableFromInline
final class AtollLockStorage<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is touched only in `locked`, between lock and unlock of
    // `mutex`; it enters through a `sending` initializer argument and leaves only through
    // `sending` results, as with `Synchronization.Mutex`.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Exclusivity is guaranteed by the mutex; the dynamic check would cost more than the lock.
    @exclusivity(unchecked) @usableFromInline var value: Value

    init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "Atoll: pthread_mutex_init failed (\(status))")
        value = initialValue
    }

    @inlinable
    func locked<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
}
