public import AtollStorage
import Foundation

// Reading and acting on the conflict ledger of a file (Conflict.swift), with or without a
// running sync session.

extension Conflict {
    /// The conflicts recorded in `database`, ordered by the losing write's stamp (the same order
    /// on every node). `className` and `primaryKey` narrow it to a class or one object.
    ///
    /// ```swift
    /// for c in try Conflict.all(in: database, className: "Task") where c.property == "title" {
    ///     print(c.losingValue ?? "(delete)", "lost to", c.winningValue ?? "(delete)")
    /// }
    /// ```
    /// O(n) in the ledger's entries (at most `ConflictRetention.countMax`).
    public static func all(in database: Database, className: String? = nil, primaryKey: StorageValue? = nil) throws -> [Conflict] {
        let r = try database.beginRead()
        defer { r.close() }
        return try all(in: r, className: className, primaryKey: primaryKey)
    }

    /// `all(in:className:primaryKey:)` at the version `r` reads.
    static func all(in r: Transaction, className: String?, primaryKey: StorageValue?) throws -> [Conflict] {
        var prefix: [UInt8] = []
        if let className, let primaryKey {
            guard let t = try r.table(named: className) else { return [] }
            prefix = SyncTrees.objectKey(t.key, primaryKey)
        }
        let entries = try ConflictLedger.entries(r, objectKey: prefix).filter { c in className.map { c.className == $0 } ?? true }
        return try currentWinners(entries, r).sorted { $0.losingStamp < $1.losingStamp }
    }

    /// The winner of a property or list element entry is what it holds now (its register, or the
    /// delete that reset it), read with the entry: the same on every node that has the same
    /// changesets, however the writes that followed the loss arrived.
    private static func currentWinners(_ entries: [Conflict], _ r: Transaction) throws -> [Conflict] {
        guard !entries.isEmpty, let stateBytes = try r.internalValue(SyncTrees.state, key: SyncTrees.stateKey) else { return entries }
        let state = try stateBytes.withUnsafeBytes { try ReplicaState.decode($0) }
        return try entries.map { entry in
            guard entry.kind != .deleteOverridden, let property = entry.property, let t = try r.table(named: entry.className),
                  let column = t.spec.columns.firstIndex(where: { $0.name == property })
            else { return entry }
            var c = entry
            let ok = SyncTrees.objectKey(t.key, c.primaryKey)
            if let key = c.mapKey {
                // What the key holds now (a removal: nil); an entry voided by a delete since is gone.
                // A map of embedded objects keeps its record under its holder's (the parent, or an
                // embedded object named by its path).
                let recordKey: [UInt8]
                let tree: String
                if let target = t.spec.columns[column].linkTarget, try r.table(named: target)?.spec.isEmbedded == true {
                    let holder: [UInt8]
                    if t.spec.isEmbedded {
                        guard case .string(let s) = c.primaryKey, let k = try EmbeddedPath(parsing: s).recordKey(r) else { return c }
                        holder = k
                    } else {
                        holder = SyncTrees.embeddedKey(ok, [EmbeddedStep]())
                    }
                    (recordKey, tree) = (SyncTrees.embeddedMapKey(holder: holder, column: column), SyncTrees.embedded)
                } else {
                    (recordKey, tree) = (SyncTrees.listKey(ok, column: column), SyncTrees.collections)
                }
                guard let bytes = try r.internalValue(tree, key: recordKey) else { return c }
                let map = try bytes.withUnsafeBytes { try MapRecord.decode($0, state.nodes) }
                guard let e = map.entries[key] else { return c }
                c.winningStamp = e.stamp
                c.winningValue = e.value
                return c
            }
            if let element = c.listElement {
                guard let bytes = try r.internalValue(SyncTrees.lists, key: SyncTrees.listKey(ok, column: column)) else { return c }
                var list = try bytes.withUnsafeBytes { try ListRecord.decode($0, state.nodes) }
                guard let i = list.index(of: element), !list.elements[i].isDeleted else { return c }
                c.winningStamp = list.elements[i].valueStamp
                c.winningValue = list.elements[i].value
                return c
            }
            if t.spec.isEmbedded {
                // An embedded object's field: its record, by the path its primary key names.
                guard case .string(let s) = c.primaryKey, let key = try EmbeddedPath(parsing: s).recordKey(r),
                      let bytes = try r.internalValue(SyncTrees.embedded, key: key) else { return c }
                let record = try bytes.withUnsafeBytes { try EmbeddedRecord.decode($0, state.nodes) }
                if let f = record.field(column) {
                    c.winningStamp = f.stamp
                    c.winningValue = .value(f.value)
                }
                return c
            }
            guard let bytes = try r.internalValue(SyncTrees.objects, key: ok) else { return c }
            let record = try bytes.withUnsafeBytes { try ObjectRecord.decode($0, state.nodes) }
            if record.exists, let f = record.field(column), f.stamp != .zero, let k = try t.find(primaryKey: c.primaryKey) {
                c.kind = .concurrentWrite
                c.winningStamp = f.stamp
                let v = try t.value(k, column)
                if case .link(let target) = v, let name = t.spec.columns[column].linkTarget, let tt = try r.table(named: name) {
                    c.winningValue = .link(primaryKey: try tt.primaryKeyValue(target))
                } else if case .typedLink(let table, let target) = v, r.spec(of: table)?.primaryKeyIndex != nil {
                    let tt = try r.table(table)
                    c.winningValue = .typedLink(className: tt.spec.name, primaryKey: try tt.primaryKeyValue(target))
                } else if v.isNull, let dangling = f.danglingTarget {
                    if t.spec.columns[column].type == .mixed, case let (name, pk)? = MixedLinkTarget.parse(dangling) {
                        c.winningValue = .typedLink(className: name, primaryKey: pk)
                    } else {
                        c.winningValue = .link(primaryKey: dangling)
                    }
                } else {
                    c.winningValue = .value(v)
                }
            } else if record.field(column) == nil, let d = record.deleted {
                c.kind = .writeVoidedByDelete
                c.winningStamp = d
                c.winningValue = nil
            }
            return c
        }
    }

    /// Removes this entry from the ledger of `database` (it changes no data).
    public func dismiss(in database: Database) throws {
        let w = try database.beginWrite()
        do {
            guard try w.deleteInternal(ConflictLedger.tree, key: id.key) else {
                w.rollback()
                throw AtollError(.objectNotFound, "this conflict is no longer in the ledger (dismissed, kept, or removed by retention)")
            }
            try w.commit()
        } catch {
            w.rollback()
            throw error
        }
    }

    /// Writes the losing value again, as a new local write that is stamped after everything this
    /// node has seen, so it wins on every node once synced ("keep mine"), and removes the entry.
    /// For `deleteOverridden` the losing change is the delete: the object is deleted again. For
    /// `writeVoidedByDelete` the object is created again if it is gone, with the losing value.
    /// A field of an embedded object is written on the object its path (in `primaryKey`) leads
    /// to now, through its parent and the list elements and map keys on the way.
    ///
    /// - Throws: `.objectNotFound` when the entry is gone, the class no longer exists, a losing
    ///   link's target does not exist, or an embedded object's parent (or an object on its path)
    ///   is gone; `.invalidArgument` for a list element that was removed meanwhile, or a losing
    ///   value that is an embedded object (the merge keeps none of its fields);
    ///   `.invalidTransaction` when the entry names a list element (or a path through one) and
    ///   local commits have not been turned into changesets yet (they may have moved it).
    public func keepLosingValue(in database: Database) throws {
        let w = try database.beginWrite()
        do {
            guard try w.internalValue(ConflictLedger.tree, key: id.key) != nil else {
                throw AtollError(.objectNotFound, "this conflict is no longer in the ledger (dismissed, kept, or removed by retention)")
            }
            try reapply(in: w)
            try w.deleteInternal(ConflictLedger.tree, key: id.key)
            try w.commit()
        } catch {
            w.rollback()
            throw error
        }
    }

    private func reapply(in w: WriteTransaction) throws {
        guard var t = try w.table(named: className) else {
            throw AtollError(.objectNotFound, "class '\(className)' of this conflict no longer exists")
        }
        let existing: ObjectKey?
        if t.spec.isEmbedded {
            // An embedded object's field: the entry names the object by its path from its
            // parent (`primaryKey` holds the path).
            guard case .string(let path) = primaryKey, property != nil, listElement == nil, losingValue != nil || mapKey != nil else {
                throw AtollError(.invalidArgument, "this conflict of embedded class '\(className)' names no field or map key of an embedded object")
            }
            let found = try Self.embeddedObject(at: EmbeddedPath(parsing: path), in: w)
            t = found.table
            existing = found.key
        } else {
            existing = try t.find(primaryKey: primaryKey)
        }
        if let mapKey, losingValue == nil {
            // The removal of a map key lost: remove it again.
            guard let property, let column = t.spec.columns.firstIndex(where: { $0.name == property }) else {
                throw AtollError(.objectNotFound, "property '\(property ?? "")' of '\(className)' no longer exists")
            }
            if let k = existing { try t.mapRemove(k, column, key: mapKey) }
            return
        }
        guard let losingValue else {
            // The delete lost: delete again.
            if let k = existing { try t.erase(k) }
            return
        }
        guard let property, let column = t.spec.columns.firstIndex(where: { $0.name == property }) else {
            throw AtollError(.objectNotFound, "property '\(property ?? "")' of '\(className)' no longer exists")
        }
        let value: StorageValue
        switch losingValue {
        case .value(let v):
            value = v
        case .link(let targetPK):
            if let target = t.spec.columns[column].linkTarget, try w.table(named: target)?.spec.isEmbedded == true {
                throw AtollError(.invalidArgument, "the losing value was an embedded '\(target)' object, whose fields the merge does not keep: it cannot be written again")
            }
            guard let target = t.spec.columns[column].linkTarget, let tt = try w.table(named: target),
                  let tk = try tt.find(primaryKey: targetPK)
            else {
                throw AtollError(.objectNotFound, "the losing value links to '\(t.spec.columns[column].linkTarget ?? "?")' \(targetPK), which does not exist")
            }
            value = .link(tk)
        case .typedLink(let className, let targetPK):
            guard let tt = try w.table(named: className), let tk = try tt.find(primaryKey: targetPK) else {
                throw AtollError(.objectNotFound, "the losing value links to '\(className)' \(targetPK), which does not exist")
            }
            value = .typedLink(tt.key, tk)
        }
        let k: ObjectKey
        if let existing {
            k = existing
        } else if kind == .writeVoidedByDelete, !t.spec.isEmbedded {
            k = try t.create(primaryKey: primaryKey)
        } else {
            throw AtollError(.objectNotFound, "'\(className)' \(primaryKey) was deleted since; its losing value has nowhere to go")
        }
        if let mapKey {
            try t.mapSet(k, column, key: mapKey, value)
            return
        }
        guard let listElement else {
            try t.set(k, column, value)
            return
        }
        // A list element: find where it shows now.
        let state = try Self.stateForListPositions(w)
        guard let listBytes = try w.internalValue(SyncTrees.lists, key: SyncTrees.listKey(SyncTrees.objectKey(t.key, primaryKey), column: column)) else {
            throw AtollError(.invalidArgument, "list '\(className).\(property)' has no elements any more")
        }
        var list = try listBytes.withUnsafeBytes { try ListRecord.decode($0, state.nodes) }
        guard let i = list.index(of: listElement), list.elements[i].isVisible else {
            throw AtollError(.invalidArgument, "element \(listElement) of '\(className).\(property)' was removed; its value cannot be written again")
        }
        try t.listSet(k, column, at: list.visibleIndex(before: i), value)
    }

    /// The sync state, to find where a list element shows now: its list's sync record must
    /// hold every local commit, or a commit not turned into changesets yet may have moved it.
    private static func stateForListPositions(_ w: WriteTransaction) throws -> ReplicaState {
        guard let stateBytes = try w.internalValue(SyncTrees.state, key: SyncTrees.stateKey) else {
            throw AtollError(.invalidArgument, "this file has no sync state")
        }
        let state = try stateBytes.withUnsafeBytes { try ReplicaState.decode($0) }
        guard try w.loggedVersions(after: state.extractedThrough).isEmpty else {
            throw AtollError(.invalidTransaction, "this node has commits that sync has not turned into changesets yet, which may have moved list elements: keep the losing value once they are (the session does it as it runs; SyncReplica.extractLocalChanges() does it at once)")
        }
        return state
    }

    /// The embedded object `path` names (its parent's class and primary key, then the properties
    /// that lead to it, with the element of each list and the key of each map on the way), with
    /// its table, as this node holds it now.
    ///
    /// - Throws: `.objectNotFound` when the parent, or an object on the way, is gone;
    ///   `.invalidArgument` when a list element on the way was removed.
    private static func embeddedObject(at path: EmbeddedPath, in w: WriteTransaction) throws -> (table: Table, key: ObjectKey) {
        let described = "the embedded object at \(path.parentClass) \(path.parentPrimaryKey).\(path.properties.joined(separator: "."))"
        guard let parent = try w.table(named: path.parentClass), let parentKey = try parent.find(primaryKey: path.parentPrimaryKey) else {
            throw AtollError(.objectNotFound, "\(described) is gone: its parent was deleted since")
        }
        let ok = SyncTrees.objectKey(parent.key, path.parentPrimaryKey)
        var table = parent, key = parentKey
        var steps: [EmbeddedStep] = []
        // Read (and checked) once, at the first list on the way.
        var listNodes: NodeTable?
        var i = 0
        while i < path.properties.count {
            let name = path.properties[i]
            guard let column = table.spec.columns.firstIndex(where: { $0.name == name }), let targetName = table.spec.columns[column].linkTarget,
                  let target = try w.table(named: targetName), target.spec.isEmbedded
            else {
                throw AtollError(.objectNotFound, "\(described) is gone: '\(table.name).\(name)' no longer holds embedded objects")
            }
            let spec = table.spec.columns[column]
            var next: StorageValue?
            if spec.isMap || spec.isList {
                guard i + 1 < path.properties.count else { throw AtollError(.invalidArgument, "\(described): '\(name)' names no element") }
                if spec.isMap {
                    let mapKey = try EmbeddedPath.key(parsing: path.properties[i + 1])
                    next = try table.mapEntries(key, column).first { $0.key == mapKey }?.value
                    steps.append(.entry(column, mapKey))
                } else {
                    // Its live elements, in order, are the table's list.
                    let id = try EmbeddedPath.element(parsing: path.properties[i + 1])
                    let nodes = try listNodes ?? stateForListPositions(w).nodes
                    listNodes = nodes
                    let record = try w.internalValue(SyncTrees.embedded, key: SyncTrees.embeddedListKey(ok, steps, column: column)).map { b in
                        try b.withUnsafeBytes { try ListRecord.decode($0, nodes) }
                    } ?? ListRecord()
                    guard let position = record.elements.filter({ !$0.isDeleted }).firstIndex(where: { $0.id == id }) else {
                        throw AtollError(.invalidArgument, "\(described) was removed from its list; its field cannot be written again")
                    }
                    let values = try table.listValues(key, column)
                    guard position < values.count else {
                        throw AtollError.corrupted("'\(table.name).\(name)' holds \(values.count) embedded objects but its sync record more")
                    }
                    next = values[position]
                    steps.append(.element(column, id))
                }
                i += 2
            } else {
                next = try table.value(key, column)
                steps.append(.property(column))
                i += 1
            }
            guard case .link(let k)? = next else { throw AtollError(.objectNotFound, "\(described) is gone") }
            table = target
            key = k
        }
        return (table, key)
    }
}
