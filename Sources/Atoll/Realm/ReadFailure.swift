import AtollStorage

// Failed reads: one policy for the whole object API (README, "Failed reads").
//
// A read that fails (a page that fails its checksum, an impossible layout such as a page of the
// wrong type, an I/O error) is never turned into a value: not into an empty collection, an
// empty string, nil, zero, "not found" or "nothing changed". Where the failure surfaces depends
// only on the signature of the API that read:
//
// - APIs that throw (`Realm(...)`, `write`, `commitWrite`, `filter(throwing:)`, the throwing
//   forms of the dynamic API, import, dump, `writeCopy`) throw the storage layer's `AtollError`
//   (`.fileCorrupted` naming the page, `.ioError`) unchanged.
// - Notifications (`Results`, `List`, `LinkingObjects`, object and dynamic observers) deliver
//   `.error` once and are not called again: the observer cannot know the state it reports on.
// - Accessors that cannot throw (property getters, `count`, iteration, subscripts, aggregates,
//   `isInvalidated`, `isEmpty`, `refresh()`, `thaw()`, the RealmSwift forms of the dynamic
//   API) stop the program with a message that starts `Atoll:`, names what was being read, the
//   file and the storage error, and says what to do (`atollReadFailure`).
//
// "Not found" stays an answer, not a failure: a deleted object, a class without a table in a
// read-only or frozen realm, a primary key nobody has. Code that expects such an answer asks
// for it explicitly (`tableIfPresent`, `contains`, `locate` returning nil) and treats every
// error thrown by a read as a failure.

extension Realm {
    /// The table of a bound class in the realm's current state, or nil when this state has no
    /// table for it (a class a read-only or frozen realm cannot give, see `requireBinding`).
    /// Throws only when the file cannot be read.
    func tableIfPresent(_ binding: ClassBinding) throws -> Table? {
        guard transaction.spec(of: binding.tableKey) != nil else { return nil }
        return try table(binding)
    }

    /// The answer to a schema question asked of this realm (can this class be bound here?), for
    /// APIs that cannot throw: nil when the answer is no (a class this realm does not have, a
    /// table that needs a migration), the program stopped when the file could not be read
    /// (never a "no" made of a failed read).
    func schemaAnswer<T>(_ what: @autoclosure () -> String, _ body: () throws -> T) -> T? {
        do {
            return try body()
        } catch let error as AtollError where error.kind == .fileCorrupted || error.kind == .ioError {
            readFailed(error, reading: what())
        } catch {
            return nil
        }
    }

    /// Stops the program for a read that failed in an API that cannot throw (see the policy
    /// above). `what` names the thing being read: "'Dog.name'", "the objects of 'Dog'".
    func readFailed(_ error: any Swift.Error, reading what: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
        atollReadFailure(error, reading: what(), in: database.displayName, file: file, line: line)
    }
}

/// Stops the program for a read of `path` that failed where the API cannot throw (README,
/// "Failed reads"). Never inlined: the read paths that call it stay small.
@inline(never)
func atollReadFailure(_ error: any Error, reading what: String, in path: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    let reason = (error as? AtollError)?.message ?? "\(error)"
    let advice: String
    switch (error as? AtollError)?.kind {
    case .fileCorrupted?:
        advice = "the file is damaged: run 'atoll verify \(path)' and restore it from a backup or a synced copy"
    case .ioError?:
        advice = "the file could not be read from its disk; check the disk and the file system"
    default:
        advice = "use a throwing API (filter(throwing:), the dynamic API, write { }) to handle this as an error"
    }
    atollProgrammerError("cannot read \(what) in '\(path)': \(reason); \(advice)", file: file, line: line)
}
