import Foundation

/// A lock for test support state that Thread Sanitizer can see: NSLock is a pthread mutex, which
/// TSan models. `Synchronization.Mutex` synchronizes through a futex that TSan on this toolchain
/// does not model, so every access to state it guards is reported as a data race.
public final class TestLock<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only between `lock.lock()` and
    // `lock.unlock()` in `withLock`.
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    public func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
