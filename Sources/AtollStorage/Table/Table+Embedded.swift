// Embedded tables (`TableSpec.isEmbedded`, Realm's embedded objects).
//
// Invariant: after every public mutation of a write transaction returns, each row of an
// embedded table is the target of exactly one link (a to-one link, a list element or a map
// value) from a row of another or the same table: its owner. The storage keeps it so:
// - a new link to an embedded row that already has an owner is refused (`requireNoOwner`),
//   so two parents never share one; callers that want a copy make a new row;
// - when a link to an embedded row goes away (the owner's property is set to nil or to another
//   row, the element is removed, the owner is deleted, or the owning column is removed by a
//   migration), the row becomes an orphan candidate (`noteLinkRemoved`); `eraseOrphans`
//   deletes every candidate left with no owner, which cascades to the rows it owns in turn.
//   Candidates are erased at the end of the public mutation that made them (so a deleted
//   embedded object is invalidated at once, as in Realm), never while a leaf is held, and once
//   more before commit, for mutations (schema changes) that do not erase them themselves.
// - a new embedded row has no owner until the caller links it, in the same transaction (the
//   object layer always does so at once); commit refuses one that never got an owner. `verify` reports embedded rows without exactly one
//   owner (see VerifyEmbedded).

extension Table {
    /// Whether links in column `c` point to rows of an embedded table.
    func linksToEmbedded(_ c: Int) throws -> Bool {
        let col = spec.columns[c]
        guard col.type == .link else { return false }
        return try linkTargetTable(col).spec.isEmbedded
    }

    /// Refuses a new link to an embedded row that already has an owner.
    func requireNoOwner(_ target: ObjectKey, linkedFrom c: Int) throws {
        let targetTable = try linkTargetTable(spec.columns[c])
        guard targetTable.spec.isEmbedded else { return }
        if try targetTable.backlinkCount(to: target) > 0 {
            throw AtollError(.invalidArgument,
                             "'\(name).\(spec.columns[c].name)' cannot link to embedded object \(target.rawValue) of '\(targetTable.name)': it already has an owner (an embedded object belongs to exactly one parent; link a new one, a copy)")
        }
    }

    /// Records that a link to `target` (a row of this table) was removed: when this table is
    /// embedded, the row may have lost its owner.
    func noteLinkRemoved(to target: ObjectKey) {
        guard spec.isEmbedded, let txn = writeTransaction else { return }
        txn.orphanCandidates.append((key, target))
    }

    /// Runs `body` (a clear followed by inserts that may link the same embedded rows again)
    /// with orphans kept until it ends, then erases those left without an owner.
    func deferringOrphans(_ body: () throws -> Void) throws {
        guard let txn = writeTransaction, !txn.isErasingOrphans else { return try body() }
        txn.isErasingOrphans = true
        do {
            try body()
        } catch {
            txn.isErasingOrphans = false
            throw error
        }
        txn.isErasingOrphans = false
        try eraseOrphansIfAny()
    }

    /// The erase of orphans the current mutation left (see the top of this file).
    func eraseOrphansIfAny() throws {
        guard let txn = writeTransaction, !txn.orphanCandidates.isEmpty else { return }
        try txn.eraseOrphans()
    }
}

extension WriteTransaction {
    /// Refuses to commit an embedded row that was created but never linked from a parent.
    func requireOwnersOfNewEmbeddedRows() throws {
        for (tableKey, objectKey) in newEmbeddedRows {
            // A table removed since (a migration) took its rows with it.
            guard schema.specs[tableKey] != nil else { continue }
            let table = try table(tableKey)
            if try table.contains(objectKey), try table.backlinkCount(to: objectKey) == 0 {
                throw AtollError(.invalidArgument, "an embedded object of '\(table.name)' was created but never given a parent; embedded objects cannot be created directly: link it from a property, list or map of its parent")
            }
        }
        newEmbeddedRows = []
    }

    /// Erases every orphan candidate that has no owner left, and what it owned in turn.
    /// Reentrant calls (from the erases it makes) return at once: the outer loop takes the
    /// candidates they add.
    func eraseOrphans() throws {
        guard !isErasingOrphans else { return }
        isErasingOrphans = true
        defer { isErasingOrphans = false }
        while let (tableKey, objectKey) = orphanCandidates.popLast() {
            let table = try table(tableKey)
            guard try table.contains(objectKey), try table.backlinkCount(to: objectKey) == 0 else { continue }
            try table.erase(objectKey)
        }
    }
}
