/// Carries a value that is not `Sendable` (a live realm, its results, an unmanaged object) to the
/// one thread or task a test hands it to, to check what Atoll does with it there.
///
/// `@unchecked Sendable`: a test that boxes a value gives it up: the value is used on one thread
/// at a time, the sender's thread before the handoff and the receiver's after it (the handoff is
/// ordered by the thread start, task creation or semaphore that carries the box).
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
