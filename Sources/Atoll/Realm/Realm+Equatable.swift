import Dispatch

extension Realm: Hashable {
    /// Whether both read the same database the same way: live and confined to the same thread
    /// or queue, or frozen at the same version. RealmSwift hands back one cached instance per
    /// thread, so two of its `Realm()` on one thread are equal; Atoll opens a new instance each
    /// time (README, "Differences from RealmSwift") and compares what they stand for.
    public static func == (lhs: Realm, rhs: Realm) -> Bool {
        if lhs === rhs { return true }
        guard lhs.database === rhs.database, lhs.isFrozen == rhs.isFrozen else { return false }
        if lhs.isFrozen { return lhs.version == rhs.version }
        return lhs.confinement.isSame(as: rhs.confinement)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(database))
        hasher.combine(isFrozen)
    }
}

extension Confinement {
    /// The same thread, or the same queue.
    func isSame(as other: Confinement) -> Bool {
        if let queue { return other.queue === queue }
        return other.queue == nil && other.isUnconfined == isUnconfined && other.thread == thread
    }
}
