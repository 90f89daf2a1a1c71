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
    /// Throws when the observer cannot read the new state (README, "Failed reads").
    typealias Deliver = (_ realm: Realm, _ summary: ChangeSummary, _ notify: Bool) throws -> Void
    /// Reports a failure to the user's block (`.error`); the observer is not called again.
    typealias Fail = (_ error: any Error) -> Void

    final class Entry {
        let flag: ObservationFlag
        let deliver: Deliver
        let fail: Fail
        /// A `Realm.observe` block: called for every commit of the realm, also one that
        /// changed nothing (as in RealmSwift).
        let observesEveryCommit: Bool
        init(flag: ObservationFlag, observesEveryCommit: Bool, deliver: @escaping Deliver, fail: @escaping Fail) {
            self.flag = flag
            self.observesEveryCommit = observesEveryCommit
            self.deliver = deliver
            self.fail = fail
        }
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { entries.allSatisfy(\.flag.isCancelled) }

    /// Registers an observer; its token cancels it through `flag`. `fail` reports a failed
    /// delivery (nil: the observer has no way to report one and is dropped silently, as for
    /// `Realm.observe`, whose block reads nothing).
    func add(flag: ObservationFlag, observesEveryCommit: Bool = false, fail: Fail? = nil, _ deliver: @escaping Deliver) {
        entries.removeAll { $0.flag.isCancelled }
        entries.append(Entry(flag: flag, observesEveryCommit: observesEveryCommit, deliver: deliver, fail: fail ?? { _ in }))
    }

    /// Delivers the changes from `oldVersion` to `new` to every observer (but those skipped).
    /// `ownLog` is the log of the realm's own commit; a commit that wrote nothing leaves the
    /// version as it was and is delivered to `Realm.observe` blocks alone.
    func deliver(realm: Realm, oldVersion: UInt64, new: Transaction, ownLog: [UInt8]?, skipping tokens: [NotificationToken] = []) {
        entries.removeAll { $0.flag.isCancelled }
        let emptyCommit = new.version == oldVersion && ownLog != nil
        guard new.version != oldVersion || emptyCommit, !entries.isEmpty else { return }
        var summary = emptyCommit ? ChangeSummary() : ChangeSummary.between(oldVersion, new, ownLog: ownLog)
        if emptyCommit { summary.isLocal = true }
        let skipped = Set(tokens.map { ObjectIdentifier($0.flag) })
        // A snapshot: blocks may register or invalidate observers while they run.
        for entry in entries where !entry.flag.isCancelled && (!emptyCommit || entry.observesEveryCommit) {
            do {
                try entry.deliver(realm, summary, !skipped.contains(ObjectIdentifier(entry.flag)))
            } catch {
                fail(entry, error)
            }
        }
    }

    /// Reports `error` to every observer, which then stops: the realm could not move to a new
    /// version (an autorefresh that failed to read it), so none of them knows its state.
    func failAll(_ error: any Error) {
        for entry in entries where !entry.flag.isCancelled { fail(entry, error) }
        entries.removeAll()
    }

    /// Cancels one observer and reports the error to its block, once.
    private func fail(_ entry: Entry, _ error: any Error) {
        entry.flag.cancel()
        entry.fail(error)
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
        observers.add(flag: flag, observesEveryCommit: true) { realm, _, notify in
            if notify { block(.didChange, realm) }
        }
        return NotificationToken(flag: flag)
    }

    /// Registers a change observer for a collection described by `keys`, depending on `tables`.
    /// A failed read (of the keys or of what changed) is reported once through `onError`
    /// instead of `.initial` or `.update`, and the observer stops.
    func observeCollection(
        tables: @escaping () -> Set<TableKey>,
        keys: @escaping () throws -> [ObjectKey],
        modifiedColumns: @escaping (ChangeSummary, ObjectKey) throws -> Bool,
        deliverInitial: Bool = true,
        flag: ObservationFlag = ObservationFlag(),
        onChange: @escaping (_ deletions: [Int], _ insertions: [Int], _ modifications: [Int]) -> Void,
        onInitial: @escaping () -> Void,
        onError: @escaping (any Swift.Error) -> Void
    ) -> NotificationToken {
        requireNoWriteForObserving()
        var previous: [ObjectKey]
        do { previous = try keys() } catch {
            flag.cancel()
            onError(error)
            return NotificationToken(flag: flag)
        }
        var dependencies = tables()
        observers.add(flag: flag, fail: onError) { _, summary, notify in
            if summary.schemaChanged { dependencies = tables() }
            guard !summary.isComplete || summary.schemaChanged || dependencies.contains(where: { summary.touches($0) }) else { return }
            let current = try keys()
            let diff = try CollectionDiff.compute(old: previous, new: current) { try modifiedColumns(summary, $0) }
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
