public import Atoll
import AtollStorage
import Foundation

extension Realm {
    /// The conflict ledger of this realm's file as a live collection: writes that lost a merge to
    /// a concurrent write or delete (docs/SYNC.md, "Conflicts"), ordered by the losing write's
    /// stamp. Filter, sort and observe it like `Results`:
    ///
    /// ```swift
    /// let titles = realm.conflicts.filter("className == 'Task' AND property == 'title'")
    /// let token = titles.observe { change in
    ///     if case .update(let conflicts, _, let insertions, _) = change {
    ///         for i in insertions { print(conflicts[i].losingValue ?? "(delete)", "lost") }
    ///     }
    /// }
    /// ```
    public var conflicts: ConflictResults {
        ConflictResults(realm: self, object: nil, query: nil)
    }

    /// The conflicts sync recorded in this realm's file: writes that lost a merge to a concurrent
    /// write or delete (docs/SYNC.md, "Conflicts"), ordered by the losing write's stamp.
    ///
    /// ```swift
    /// for c in try realm.conflicts(className: "Task") where c.property == "title" {
    ///     print("\(c.losingValue!) lost to \(c.winningValue!)")
    ///     try realm.keepLosingValue(c)       // or: try realm.dismiss(c)
    /// }
    /// ```
    /// The list is a snapshot read from the newest version of the file, not a live collection
    /// (`conflicts` is the live one). O(n) in the ledger's
    /// entries (at most `SyncConfiguration.conflictRetention.countMax`).
    public func conflicts(className: String? = nil) throws -> [Conflict] {
        try Conflict.all(in: conflictDatabase(), className: className)
    }

    /// Writes the losing value of `conflict` again as a new write, which every node then takes
    /// (it is stamped after everything this node has seen), and removes the entry. Runs its own
    /// write transaction: call it outside `write { }`.
    ///
    /// - Throws: `.invalidTransaction` inside a write transaction; what
    ///   `Conflict.keepLosingValue(in:)` throws.
    public func keepLosingValue(_ conflict: Conflict) throws {
        try conflict.keepLosingValue(in: conflictDatabase(writing: true))
        _ = try refreshThrowing()
    }

    /// Removes `conflict` from the ledger without changing data.
    public func dismiss(_ conflict: Conflict) throws {
        try conflict.dismiss(in: conflictDatabase(writing: true))
    }

    private func conflictDatabase(writing: Bool = false) throws -> Database {
        if writing {
            guard !isFrozen, !configuration.readOnly else {
                throw AtollError(.readOnly, "a read-only or frozen realm cannot change its conflict ledger")
            }
            guard !isInWriteTransaction else {
                throw AtollError(.invalidTransaction, "keep or dismiss a conflict outside a write transaction (it runs its own)")
            }
        }
        // A process opens each file once: this returns the Database the realm already uses.
        return try Database.open(try Self.storageConfiguration(configuration))
    }
}

extension Object {
    /// The conflicts sync recorded for this object, as a live collection (see `Realm.conflicts`);
    /// always empty for an unmanaged object or one whose primary key is not an int, string,
    /// UUID or ObjectId.
    ///
    /// ```swift
    /// for c in task.conflicts where c.property == "title" { print(c.losingValue ?? "(delete)") }
    /// ```
    public var conflicts: ConflictResults {
        guard let realm, let pk = objectSchema.primaryKeyProperty else { return ConflictResults(realm: nil, object: nil, query: nil) }
        let key: StorageValue
        switch value(forKey: pk.name) {
        case nil: key = .null
        case let v as Int: key = .int(Int64(v))
        case let v as Int64: key = .int(v)
        case let v as Int32: key = .int(Int64(v))
        case let v as Int16: key = .int(Int64(v))
        case let v as Int8: key = .int(Int64(v))
        case let v as String: key = .string(v)
        case let v as UUID: key = .uuid(v)
        case let v as ObjectId: key = .objectId(v)
        default: return ConflictResults(realm: nil, object: nil, query: nil)
        }
        return ConflictResults(realm: realm, object: (objectSchema.className, key), query: nil)
    }
}
