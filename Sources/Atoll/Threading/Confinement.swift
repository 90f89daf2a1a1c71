#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Which thread (or dispatch queue) a Realm and its live objects belong to.
///
/// Every API call checks it. Calls that can throw throw `.wrongThread`; property accessors,
/// which cannot throw, stop the program with a clear message: using a Realm from another thread
/// is a programming error (like an index out of range), and reading another thread's snapshot
/// silently would be worse.
struct Confinement: Sendable {
    let thread: pthread_t
    let queue: DispatchQueue?
    let isUnconfined: Bool

    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    static func current(queue: DispatchQueue?) -> Confinement {
        if let queue {
            queue.setSpecific(key: queueKey, value: ObjectIdentifier(queue))
        }
        return Confinement(thread: pthread_self(), queue: queue, isUnconfined: false)
    }

    static let unconfined = Confinement(thread: pthread_self(), queue: nil, isUnconfined: true)

    @inline(__always)
    var isCurrent: Bool {
        if isUnconfined { return true }
        if let queue { return DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(queue) }
        // `==` rather than `pthread_equal`: pthread_t is an integer (Glibc) or a pointer (Darwin)
        // that identifies the thread, and this runs on every property read (a call saved).
        return pthread_self() == thread
    }

    var description: String { queue.map { "queue '\($0.label)'" } ?? "the thread that opened it" }
}
