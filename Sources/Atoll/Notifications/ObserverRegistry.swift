import AtollStorage
import AtollQuery

/// The observers registered on one Realm instance, and the delivery of changes to them.
///
/// After every version change of the realm (its own commit, `refresh()`, autorefresh), the
/// logs between the two versions are summarized once (ChangeSummary); each observer then checks
/// whether the tables it depends on changed at all, and only those recompute. A commit to an
/// unrelated table costs a live Results nothing.
///
/// Entries are only touched on the realm's thread. Tokens may be invalidated from any thread:
/// they set the entry's flag, which delivery checks; cancelled entries are dropped here later.
final class ObserverRegistry {
    /// Called with the realm, the changes, and whether to call the user's block (false for a
    /// token skipped by `write(withoutNotifying:)`: the observer still moves to the new state).
    typealias Deliver = (_ realm: Realm, _ summary: ChangeSummary, _ notify: Bool) -> Void

    final class Entry {
        let flag: ObservationFlag
        let deliver: Deliver
        init(flag: ObservationFlag, deliver: @escaping Deliver) {
            self.flag = flag
            self.deliver = deliver
        }
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { entries.allSatisfy(\.flag.isCancelled) }

    /// Registers an observer; its token cancels it through `flag`.
    func add(flag: ObservationFlag, _ deliver: @escaping Deliver) {
        entries.removeAll { $0.flag.isCancelled }
        entries.append(Entry(flag: flag, deliver: deliver))
    }

    /// Delivers the changes from `oldVersion` to `new` to every observer (but those skipped).
    func deliver(realm: Realm, oldVersion: UInt64, new: Transaction, ownLog: [UInt8]?, skipping tokens: [NotificationToken] = []) {
        entries.removeAll { $0.flag.isCancelled }
        guard new.version != oldVersion, !entries.isEmpty else { return }
        let summary = ChangeSummary.between(oldVersion, new, ownLog: ownLog)
        let skipped = Set(tokens.map { ObjectIdentifier($0.flag) })
        // A snapshot: blocks may register or invalidate observers while they run.
        for entry in entries where !entry.flag.isCancelled {
            entry.deliver(realm, summary, !skipped.contains(ObjectIdentifier(entry.flag)))
        }
    }
}

extension Realm {
    /// Registers a block called after every change of the realm's version: a commit of this
    /// realm, or a refresh (explicit, at the start of a write, or by autorefresh) that brings in
    /// commits of other threads and processes.
    ///
    /// ```swift
    /// let token = realm.observe { notification, realm in updateUI() }
    /// ```
    public func observe(_ block: @escaping NotificationBlock) -> NotificationToken {
        verifyThread()
        let flag = ObservationFlag()
        observers.add(flag: flag) { realm, _, notify in
            if notify { block(.didChange, realm) }
        }
        return NotificationToken(flag: flag)
    }

    /// Registers a change observer for a collection described by `keys`, depending on `tables`.
    func observeCollection(
        tables: @escaping () -> Set<TableKey>,
        keys: @escaping () -> [ObjectKey],
        modifiedColumns: @escaping (ChangeSummary, ObjectKey) -> Bool,
        deliverInitial: Bool = true,
        flag: ObservationFlag = ObservationFlag(),
        onChange: @escaping (_ deletions: [Int], _ insertions: [Int], _ modifications: [Int]) -> Void,
        onInitial: @escaping () -> Void
    ) -> NotificationToken {
        requireNoWriteForObserving()
        var previous = keys()
        var dependencies = tables()
        observers.add(flag: flag) { _, summary, notify in
            if summary.schemaChanged { dependencies = tables() }
            guard !summary.isComplete || summary.schemaChanged || dependencies.contains(where: { summary.touches($0) }) else { return }
            let current = keys()
            let diff = CollectionDiff.compute(old: previous, new: current) { modifiedColumns(summary, $0) }
            previous = current
            guard notify, !(diff.deletions.isEmpty && diff.insertions.isEmpty && diff.modifications.isEmpty) else { return }
            onChange(diff.deletions, diff.insertions, diff.modifications)
        }
        if deliverInitial { onInitial() }
        return NotificationToken(flag: flag)
    }

    /// Observers are registered outside write transactions, as in Realm: the state they start
    /// from must be a committed version.
    func requireNoWriteForObserving() {
        if isInWriteTransaction {
            atollProgrammerError("cannot register a notification block inside a write transaction; register it before beginWrite() or after the commit")
        }
    }

    /// Tables whose changes can change objects of `table` as seen through links: the table,
    /// what it links to (transitively) and the tables linking to it.
    func dependencyClosure(of table: TableKey) -> Set<TableKey> {
        let txn = transaction
        var result: Set<TableKey> = [table]
        var queue = [table]
        while let t = queue.popLast() {
            guard let spec = txn.spec(of: t) else { continue }
            var next: [String] = spec.columns.compactMap(\.linkTarget)
            next += spec.linkingObjects.map(\.originTable)
            for name in next { if let k = txn.tableKey(named: name), result.insert(k).inserted { queue.append(k) } }
        }
        return result
    }
}

/// Stops the program for a misuse of the API that cannot throw (a programming error, like an
/// index out of range). The message is printed in every build configuration.
func atollProgrammerError(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("Atoll: " + message, file: file, line: line)
}
