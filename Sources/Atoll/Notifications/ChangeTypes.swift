import Foundation

/// A registration for notifications; keep it while you want them. `invalidate()` stops delivery.
public final class NotificationToken: @unchecked Sendable {
    // Sendable: the cancel action runs at most once, guarded by the lock.
    private let lock = NSLock()
    private var cancel: (() -> Void)?

    init(_ cancel: @escaping () -> Void) { self.cancel = cancel }

    public func invalidate() {
        lock.lock()
        let c = cancel
        cancel = nil
        lock.unlock()
        c?()
    }

    var isInvalidated: Bool {
        lock.lock(); defer { lock.unlock() }
        return cancel == nil
    }
}

/// A change of a live collection (Results, List, LinkingObjects).
///
/// `deletions` are indices in the previous version of the collection; `insertions` and
/// `modifications` are indices in the new version. All three are sorted ascending. An object
/// that moved is reported as a deletion and an insertion.
public enum RealmCollectionChange<CollectionType> {
    case initial(CollectionType)
    case update(CollectionType, deletions: [Int], insertions: [Int], modifications: [Int])
    case error(any Error)
}

/// One changed property of an observed object.
public struct PropertyChange: CustomStringConvertible {
    public let name: String
    /// The value before the change (nil when it was nil).
    public let oldValue: Any?
    public let newValue: Any?
    public var description: String { "\(name): \(oldValue.map { "\($0)" } ?? "nil") -> \(newValue.map { "\($0)" } ?? "nil")" }
}

/// A change of an observed object.
public enum ObjectChange<T> {
    case error(any Error)
    case change(T, [PropertyChange])
    case deleted
}

extension Realm {
    /// What `Realm.observe` reports.
    public enum Notification: String, Sendable {
        /// The realm moved to a new version (a commit here, elsewhere, or a refresh).
        case didChange
        case refreshRequired
    }

    public typealias NotificationBlock = (_ notification: Notification, _ realm: Realm) -> Void
}
