import AtollStorage
package import Dispatch

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
    /// `flag`: the registration's flag, given by `observePackageRows(on:onError:register:)`
    /// (nil: a new one).
    package func observePackageRows<Key: Hashable>(
        flag packageFlag: PackageObservationFlag? = nil,
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
        let flag = packageFlag?.flag ?? ObservationFlag()
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

extension Realm {
    /// Observes on `queue`: a realm confined to the queue is opened there (as for
    /// `Results.observe(on:)`), and `register` observes with it, passing `flag` on to
    /// `observePackageRows(flag:...)` so that invalidating the returned token stops delivery.
    package func observePackageRows(on queue: DispatchQueue, onError: @escaping (any Swift.Error) -> Void,
                                    register: @escaping (_ realm: Realm, _ flag: PackageObservationFlag) -> NotificationToken) -> NotificationToken
    {
        verifyThread()
        return observeOnQueue(queue, source: PackageRealmSlot(nil), { realm, _ in PackageRealmSlot(realm) }, onError: onError) { slot, flag in
            guard let realm = slot.realm else { return NotificationToken(flag: flag) }
            return register(realm, PackageObservationFlag(flag: flag))
        }
    }
}

/// The cancellation flag of a registration, passed through package code.
package struct PackageObservationFlag {
    let flag: ObservationFlag
}

/// The queue's realm, handed from the rebase to the registration of a queue observer.
final class PackageRealmSlot {
    let realm: Realm?
    init(_ realm: Realm?) { self.realm = realm }
}

/// What a realm reads, as a value that changes when it may show something else.
package struct PackageReadState: Equatable, Sendable {
    let stamp: UInt64
    let mutations: UInt64
}
