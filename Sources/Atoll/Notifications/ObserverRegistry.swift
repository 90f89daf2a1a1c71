import AtollStorage
import AtollQuery

/// The observers registered on one Realm instance, and the delivery of changes to them.
///
/// After every version change of the realm (its own commit, `refresh()`, autorefresh), the
/// logs between the two versions are summarized once (ChangeSummary); each observer then checks
/// whether the tables it depends on changed at all, and only those recompute. A commit to an
/// unrelated table costs a live Results nothing.
final class ObserverRegistry {
    final class Entry {
        let id: Int
        let deliver: (Realm, ChangeSummary) -> Void
        init(id: Int, deliver: @escaping (Realm, ChangeSummary) -> Void) {
            self.id = id
            self.deliver = deliver
        }
    }

    private var entries: [Entry] = []
    private var nextId = 0
    private var suppressed = Set<Int>()

    /// Object observers keep the values they last saw, so no old snapshot has to be kept.
    var needsOldValues: Bool { false }

    var isEmpty: Bool { entries.isEmpty }

    func add(_ deliver: @escaping (Realm, ChangeSummary) -> Void) -> (Int, () -> Void) {
        nextId += 1
        let id = nextId
        entries.append(Entry(id: id, deliver: deliver))
        return (id, { [weak self] in self?.entries.removeAll { $0.id == id } })
    }

    /// Delivers the changes from `oldVersion` to `new` to every observer (but those skipped).
    func deliver(realm: Realm, oldVersion: UInt64, new: Transaction, ownLog: [UInt8]?, skipping tokens: [NotificationToken] = []) {
        guard new.version != oldVersion, !entries.isEmpty else { return }
        let summary = ChangeSummary.between(oldVersion, new, ownLog: ownLog)
        let skipped = Set(tokens.map { ObjectIdentifier($0) })
        for entry in entries where !skippedIDs(skipped).contains(entry.id) {
            entry.deliver(realm, summary)
        }
    }

    // Tokens map to entry ids for write(withoutNotifying:).
    private var tokenRegistry: [ObjectIdentifier: Int] = [:]

    func associate(_ token: NotificationToken, with id: Int) { tokenRegistry[ObjectIdentifier(token)] = id }

    private func skippedIDs(_ tokens: Set<ObjectIdentifier>) -> Set<Int> {
        Set(tokens.compactMap { tokenRegistry[$0] })
    }
}

extension Realm {
    /// Registers a block called after every change of the realm's version.
    public func observe(_ block: @escaping NotificationBlock) -> NotificationToken {
        verifyThread()
        let (id, cancel) = observers.add { realm, _ in block(.didChange, realm) }
        let token = NotificationToken(cancel)
        observers.associate(token, with: id)
        return token
    }

    /// Registers a change observer for a collection described by `keys`, depending on `tables`.
    func observeCollection(
        tables: @escaping () -> Set<TableKey>,
        keys: @escaping () -> [ObjectKey],
        modifiedColumns: @escaping (ChangeSummary, ObjectKey) -> Bool,
        deliverInitial: Bool = true,
        onChange: @escaping (_ deletions: [Int], _ insertions: [Int], _ modifications: [Int]) -> Void,
        onInitial: @escaping () -> Void
    ) -> NotificationToken {
        var previous = keys()
        let (id, cancel) = observers.add { _, summary in
            let relevant = tables()
            guard !summary.isComplete || summary.schemaChanged || relevant.contains(where: { summary.touches($0) }) else { return }
            let current = keys()
            let diff = CollectionDiff.compute(old: previous, new: current) { modifiedColumns(summary, $0) }
            previous = current
            if diff.deletions.isEmpty && diff.insertions.isEmpty && diff.modifications.isEmpty { return }
            onChange(diff.deletions, diff.insertions, diff.modifications)
        }
        let token = NotificationToken(cancel)
        observers.associate(token, with: id)
        if deliverInitial { onInitial() }
        return token
    }
}
