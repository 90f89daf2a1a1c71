import Foundation
import AtollStorage
import Synchronization

/// A registration for notifications: keep it while you want them, call `invalidate()` to stop.
///
/// ```swift
/// let token = realm.objects(Dog.self).observe { change in print(change) }
/// // ...
/// token.invalidate()
/// ```
/// `invalidate()` may be called from any thread. Once it returns, the block is not called
/// again (a call already running on the observing thread finishes).
public final class NotificationToken: Sendable {
    let flag: ObservationFlag
    /// Releases what the registration keeps alive elsewhere (a realm on a delivery queue).
    private let cleanup: AtollLock<(@Sendable () -> Void)?>

    init(flag: ObservationFlag = ObservationFlag(), cleanup: (@Sendable () -> Void)? = nil) {
        self.flag = flag
        self.cleanup = AtollLock(cleanup)
    }

    /// Stops delivery. Calling it again does nothing.
    public func invalidate() {
        flag.cancel()
        let c = cleanup.withLock { c -> (@Sendable () -> Void)? in
            let taken = c
            c = nil
            return taken
        }
        c?()
    }

    var isInvalidated: Bool { flag.isCancelled }
}

/// The cancellation state of one registration, shared by its token (any thread) and its
/// observer entry (the realm's thread), which checks it before every call.
final class ObservationFlag: Sendable {
    private let cancelled = Atomic<Bool>(false)
    func cancel() { cancelled.store(true, ordering: .releasing) }
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
}

/// A change of a live collection (Results, List, LinkingObjects).
///
/// `deletions` are indices in the previous version of the collection; `insertions` and
/// `modifications` are indices in the new version. All three are sorted ascending. An object
/// that moved is reported as a deletion and an insertion.
public enum RealmCollectionChange<CollectionType> {
    /// The collection as it is when observation starts (delivered first).
    case initial(CollectionType)
    /// The collection after a commit changed it: `deletions` index the previous version,
    /// `insertions` and `modifications` the new one.
    case update(CollectionType, deletions: [Int], insertions: [Int], modifications: [Int])
    /// The collection could not be read (for example a damaged page); no more changes follow.
    case error(any Error)
}

/// One changed property of an observed object.
public struct PropertyChange: CustomStringConvertible {
    /// The property's name.
    public let name: String
    /// The value before the change: nil when it was nil, for a change made on the observing
    /// thread (as in RealmSwift), and for linking objects.
    public let oldValue: Any?
    /// The value after the change (nil when it is nil).
    public let newValue: Any?
    /// `name: old -> new`.
    public var description: String { "\(name): \(oldValue.map { "\($0)" } ?? "nil") -> \(newValue.map { "\($0)" } ?? "nil")" }
}

/// A change of an observed object.
public enum ObjectChange<T> {
    /// The object could not be read; no more changes follow.
    case error(any Error)
    /// The object after a commit changed some of its properties, with each change.
    case change(T, [PropertyChange])
    /// The object was deleted; no more changes follow.
    case deleted
}

extension Realm {
    /// What `Realm.observe` reports.
    public enum Notification: String, Sendable {
        /// The realm moved to a new version (a commit here, elsewhere, or a refresh).
        case didChange
        /// RealmSwift's notification that a refresh is needed (Atoll refreshes itself instead; never sent).
        case refreshRequired
    }

    /// What `observe(_:)` calls after every change of the realm's version.
    public typealias NotificationBlock = (_ notification: Notification, _ realm: Realm) -> Void
}
