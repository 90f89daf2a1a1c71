import AtollStorage

// Live collections whose rows are not objects of a class: entries of an internal tree read at
// the realm's version, such as AtollSync's conflict ledger (`ConflictResults`). They read through
// the realm's transaction, go stale with its version, report failed reads like `Results`, and
// observe through the same registry and the same diff (`CollectionDiff`) as `Results`. `package`:
// for the modules of this package only; nothing here is public API.

extension Realm {
    /// The transaction this realm reads (its version; its write transaction's view inside
    /// `write { }`). On the realm's thread, or any thread for a frozen realm.
    package var packageReadTransaction: Transaction { transaction }

    /// Changes whenever what `packageReadTransaction` shows may have changed: a new version, or
    /// a change inside the open write transaction.
    package var packageReadState: PackageReadState {
        PackageReadState(stamp: stamp, mutations: writeTransaction?.mutationCount ?? 0)
    }

    /// Throws `.wrongThread` off the realm's thread.
    package func packageCheckThread() throws { try checkThread() }

    /// Stops the program off the realm's thread (for accessors that cannot throw).
    package func packageVerifyThread() { verifyThread() }

    /// Stops the program for a read that failed (README, "Failed reads").
    package func packageReadFailed(_ error: any Swift.Error, reading what: String) -> Never {
        readFailed(error, reading: what)
    }

    /// Stops the program for a misuse of the API that cannot throw.
    package static func packageProgrammerError(_ message: String) -> Never {
        atollProgrammerError(message)
    }

    /// Observes a live collection of rows identified by `Key`: calls `onInitial` now, then, after
    /// every version change for which `mayHaveChanged` answers true (it gets a test of whether
    /// the change touched a class, by name), compares `keys()` with the keys of the last call and
    /// calls `onChange` with the deleted (old), inserted and modified (new) positions, when there
    /// are any. `isModified` is asked for kept keys after `keys()` ran.
    package func observePackageRows<Key: Hashable>(
        mayHaveChanged: @escaping (_ touchesClass: (String) -> Bool) throws -> Bool,
        keys: @escaping () throws -> [Key],
        isModified: @escaping (Key) throws -> Bool,
        onChange: @escaping (_ deletions: [Int], _ insertions: [Int], _ modifications: [Int]) -> Void,
        onInitial: @escaping () -> Void,
        onError: @escaping (any Swift.Error) -> Void
    ) -> NotificationToken {
        verifyThread()
        if isFrozen { atollProgrammerError("a frozen collection cannot be observed: it never changes") }
        requireNoWriteForObserving()
        let flag = ObservationFlag()
        var previous: [Key]
        do { previous = try keys() } catch {
            flag.cancel()
            onError(error)
            return NotificationToken(flag: flag)
        }
        observers.add(flag: flag, fail: onError) { realm, summary, notify in
            let touches: (String) -> Bool = { name in
                guard let table = realm.transaction.tableKey(named: name) else { return !summary.isComplete || summary.schemaChanged }
                return summary.touches(table)
            }
            guard try mayHaveChanged(touches) else { return }
            let current = try keys()
            let diff = try CollectionDiff.compute(old: previous, new: current, isModified: isModified)
            previous = current
            guard notify, !(diff.deletions.isEmpty && diff.insertions.isEmpty && diff.modifications.isEmpty) else { return }
            onChange(diff.deletions, diff.insertions, diff.modifications)
        }
        onInitial()
        return NotificationToken(flag: flag)
    }
}

/// What a realm reads, as a value that changes when it may show something else.
package struct PackageReadState: Equatable, Sendable {
    let stamp: UInt64
    let mutations: UInt64
}
