import AtollStorage

// Embedded objects: extraction, apply and projection (docs/SYNC.md, "Embedded objects";
// EmbeddedRecord.swift has the addressing and the record).
//
// - Each embedded object is a record of its own, keyed by (parent, path), with the rules of a
//   top-level object: fields are last-writer-wins registers, a delete leaves a tombstone, writes
//   stamped before it are void, a later write brings the object back with only itself.
// - A delete reaches down: an embedded object's effective tombstone is the greatest of its own,
//   its ancestors' and its parent object's (so deleting the parent, or replacing or removing an
//   embedded object, voids everything below it that is not newer, in any order of arrival).
// - A write inside an embedded object is a write of its ancestors and of its parent object too
//   (it keeps them or brings them back), as the same edit is in the local database.
// - The table shows an embedded object exactly when its parent object and every ancestor are
//   shown and it exists; the values shown are its fields' (defaults for void ones).
// - Local changes are found by comparing the parent's embedded objects in the table with the
//   records (the transaction log names embedded rows by object key only): a different row at a
//   path is a replacement (erase, then create and the fields), a missing row a removal.

extension SyncWriter {
    func embeddedRecord(_ key: [UInt8]) throws -> EmbeddedRecord {
        try txn.internalValue(SyncTrees.embedded, key: key).map { bytes in
            try bytes.withUnsafeBytes { try EmbeddedRecord.decode($0, state.nodes) }
        } ?? EmbeddedRecord()
    }

    func putEmbeddedRecord(_ key: [UInt8], _ r: EmbeddedRecord) throws {
        try txn.putInternal(SyncTrees.embedded, key: key, value: r.encode(&state.nodes))
    }

    static func later(_ a: Stamp?, _ b: Stamp?) -> Stamp? {
        guard let a else { return b }
        guard let b else { return a }
        return max(a, b)
    }

    /// The greatest delete above the embedded object at `steps` (its parent's and its ancestors'),
    /// not its own.
    func inheritedTombstone(_ parent: [UInt8], _ steps: [EmbeddedStep]) throws -> Stamp? {
        var t = try object(parent).deleted
        if steps.count > 1 {
            for n in 1..<steps.count {
                t = Self.later(t, try embeddedRecord(SyncTrees.embeddedKey(parent, Array(steps[0..<n]))).deleted)
            }
        }
        return t
    }

    /// A write stamped `stamp` inside the embedded object at `steps`: it is a write of every
    /// ancestor (and the parent's record, `parentWrite`) as well.
    func noteAncestorsWrite(_ parent: [UInt8], _ steps: [EmbeddedStep], _ stamp: Stamp) throws {
        guard steps.count > 1 else { return }
        for n in 1..<steps.count {
            let key = SyncTrees.embeddedKey(parent, Array(steps[0..<n]))
            var r = try embeddedRecord(key)
            r.noteWrite(stamp)
            try putEmbeddedRecord(key, r)
        }
    }

    // MARK: extraction

    /// One extraction of a parent's embedded objects: the parent and the greatest write made
    /// below it (a write of the parent too).
    final class EmbeddedExtraction {
        let c: SyncedClass
        let pk: StorageValue
        let ok: [UInt8]
        let base: Stamp
        var parentWrite: Stamp?

        init(c: SyncedClass, pk: StorageValue, base: Stamp) {
            self.c = c
            self.pk = pk
            ok = SyncTrees.objectKey(c.key, pk)
            self.base = base
        }
    }

    /// Compares the embedded objects of object `k` (primary key `pk`) in the table with their
    /// records and appends the instructions that bring every other node there, updating the
    /// records as if they had been applied.
    func extractEmbedded(_ c: SyncedClass, _ pk: StorageValue, _ k: ObjectKey, _ encoder: inout ChangesetBodyEncoder, base: Stamp) throws {
        guard c.holdsEmbedded else { return }
        let x = EmbeddedExtraction(c: c, pk: pk, base: base)
        try extractEmbeddedChildren(x, try table(c), k, c.embeddedColumns, c.embeddedLists, c.embeddedMaps, [], [], try object(x.ok).deleted, &encoder)
        if let parentWrite = x.parentWrite {
            var o = try object(x.ok)
            o.noteWrite(parentWrite)
            setObject(x.ok, o)
        }
    }

    /// The wire address of the embedded object of class `ec` at path `names`.
    func embeddedAddress(_ x: EmbeddedExtraction, _ ec: SyncedEmbeddedClass, _ names: [String], _ encoder: inout ChangesetBodyEncoder) -> ObjectAddress {
        ObjectAddress(classIndex: encoder.classIndex(ec.name),
                      primaryKey: .string(EmbeddedPath(parentClass: x.c.name, parentPrimaryKey: x.pk, properties: names).string))
    }

    /// A local write stamped `s` inside the embedded object at `path`.
    func noteLocalEmbeddedWrite(_ x: EmbeddedExtraction, _ r: inout EmbeddedRecord, _ path: [EmbeddedStep], _ s: Stamp) throws {
        r.noteWrite(s)
        x.parentWrite = Self.later(x.parentWrite, s)
        try noteAncestorsWrite(x.ok, path, s)
    }

    /// Appends a set of every field of embedded object `current` (class `ec`, record `r` at
    /// `path`) that differs from what its record holds under `tombstone`.
    func extractEmbeddedFields(_ x: EmbeddedExtraction, _ ec: SyncedEmbeddedClass, _ current: ObjectKey, _ r: inout EmbeddedRecord,
                               _ path: [EmbeddedStep], _ address: ObjectAddress, _ tombstone: Stamp?, _ encoder: inout ChangesetBodyEncoder) throws
    {
        let et = try txn.table(ec.key)
        for f in ec.fieldColumns {
            let v = try et.value(current, f)
            let held = r.value(f, under: tombstone) ?? SyncedClass.defaultValue(ec.spec.columns[f])
            guard v != held else { continue }
            try SyncValue.refuseInEmbeddedField(v, ec.name, ec.spec.columns[f].name)
            let seen = Self.later(r.field(f)?.stamp, tombstone)
            let s = x.base.at(encoder.instructionCount)
            let property = encoder.propertyIndex(ec.spec.columns[f].name)
            encoder.append(.set(address, property: property, value: .value(v)), seen: seen)
            r.setField(f, s, v)
            try noteLocalEmbeddedWrite(x, &r, path, s)
        }
    }

    /// The embedded objects held by row `row` of `t` (the parent, or an embedded object at
    /// `steps`): its to-one embedded properties `columns`, its lists of embedded objects `lists`
    /// and its maps of embedded objects `maps`.
    func extractEmbeddedChildren(_ x: EmbeddedExtraction, _ t: Table, _ row: ObjectKey, _ columns: [Int: SyncedEmbeddedClass],
                                 _ lists: [Int: SyncedEmbeddedClass], _ maps: [Int: SyncedEmbeddedClass], _ steps: [EmbeddedStep],
                                 _ names: [String], _ inherited: Stamp?, _ encoder: inout ChangesetBodyEncoder) throws
    {
        for (column, ec) in columns.sorted(by: { $0.key < $1.key }) {
            let path = steps + [.property(column)]
            let pathNames = names + [t.spec.columns[column].name]
            let key = SyncTrees.embeddedKey(x.ok, path)
            var r = try embeddedRecord(key)
            var tombstone = Self.later(inherited, r.deleted)
            let address = embeddedAddress(x, ec, pathNames, &encoder)
            let exists = r.exists(under: tombstone)
            guard case .link(let current) = try t.value(row, column) else {
                if exists {
                    let s = x.base.at(encoder.instructionCount)
                    encoder.append(.erase(address), seen: r.latest)
                    r.noteDelete(s)
                    r.fields.removeAll()
                    r.row = nil
                    try putEmbeddedRecord(key, r)
                }
                continue
            }
            if !exists || r.row != current {
                if exists {
                    let s = x.base.at(encoder.instructionCount)
                    encoder.append(.erase(address), seen: r.latest)
                    r.noteDelete(s)
                }
                r.fields.removeAll()
                tombstone = Self.later(inherited, r.deleted)
                let s = x.base.at(encoder.instructionCount)
                encoder.append(.create(address), seen: nil)
                try noteLocalEmbeddedWrite(x, &r, path, s)
                r.row = current
            }
            try extractEmbeddedFields(x, ec, current, &r, path, address, tombstone, &encoder)
            try putEmbeddedRecord(key, r)
            try extractEmbeddedChildren(x, try txn.table(ec.key), current, ec.embeddedColumns, ec.embeddedLists, ec.embeddedMaps, path, pathNames,
                                        tombstone, &encoder)
        }
        for (column, ec) in lists.sorted(by: { $0.key < $1.key }) {
            try extractEmbeddedList(x, t, row, column, ec, steps, names, inherited, &encoder)
        }
        for (column, ec) in maps.sorted(by: { $0.key < $1.key }) {
            try extractEmbeddedMap(x, t, row, column, ec, steps, names, inherited, &encoder)
        }
    }

    /// The greatest stamp in the records of object `pk`'s embedded objects (a local change to
    /// them must be stamped after it, as one to the object itself is). Every record below the
    /// object counts, also those of writes inside a map key that holds no object (a local write
    /// of the key voids them).
    func embeddedStampBound(_ c: SyncedClass, _ pk: StorageValue) throws -> Stamp {
        guard c.holdsEmbedded else { return .zero }
        let ok = SyncTrees.objectKey(c.key, pk)
        return try newestEmbeddedStamp(under: [UInt8(truncatingIfNeeded: ok.count)] + ok, parentBytes: ok.count) ?? .zero
    }

    /// The greatest stamp in the records of `sync.embedded` whose keys start with `prefix` (the
    /// length byte and the parent's key, `parentBytes` long, then steps), nil when there are none.
    func newestEmbeddedStamp(under prefix: [UInt8], parentBytes: Int) throws -> Stamp? {
        var bound: Stamp?
        func note(_ s: Stamp?) { if let s, bound.map({ s > $0 }) ?? true { bound = s } }
        try txn.forEachInternalEntry(SyncTrees.embedded, from: prefix, prefix: prefix) { k, v in
            let (_, list, map) = try EmbeddedStep.parse(Array(k), from: 1 + parentBytes)
            if list != nil {
                for e in try ListRecord.decode(v, state.nodes).elements {
                    note(e.insertStamp)
                    note(e.valueStamp)
                }
            } else if map != nil {
                for e in try MapRecord.decode(v, state.nodes).entries.values { note(e.stamp) }
            } else {
                let r = try EmbeddedRecord.decode(v, state.nodes)
                note(r.latest)
                note(r.deleted)
                for f in r.fields { note(f.stamp) }
            }
            return true
        }
        return bound
    }

    /// The top-level object that owns embedded row `k` of `ec` now (nil: the row is gone).
    func embeddedOwner(_ ec: SyncedEmbeddedClass, _ k: ObjectKey) throws -> (SyncedClass, ObjectKey)? {
        var cls = ec
        var row = k
        for _ in 0..<64 {
            guard try txn.table(cls.key).contains(row) else { return nil }
            var next: (TableKey, ObjectKey)?
            for (table, column) in cls.owners {
                if let owner = try txn.table(cls.key).backlinks(to: row, from: table, column: column).first {
                    next = (table, owner)
                    break
                }
            }
            guard let found = next else { return nil }
            let (table, owner) = found
            if let c = schema.classes[table] { return (c, owner) }
            guard let up = schema.embedded.values.first(where: { $0.key == table }) else { return nil }
            cls = up
            row = owner
        }
        return nil
    }

    // MARK: apply

    /// Applies a remote instruction on an embedded object (of class `ec`).
    func applyEmbedded(_ instruction: SyncInstruction, _ ec: SyncedEmbeddedClass, stamp: Stamp, elementNode: NodeID, erased: Bool,
                       _ names: SyncWriter.Names) throws
    {
        guard case .string(let s) = instruction.object.primaryKey else {
            throw AtollError(.protocolViolation, "a changeset names an object of embedded class '\(ec.name)' by a primary key")
        }
        let path = try EmbeddedPath(parsing: s)
        guard let c = schema.byName[path.parentClass] else {
            // Of a class this node's schema does not have: kept aside (SyncWriter+Unknown.swift).
            try keepUnknown(instruction, names, stamp: stamp, elementNode: stamp.node, erased: false)
            return
        }
        guard c.accepts(primaryKey: path.parentPrimaryKey) else {
            throw AtollError(.protocolViolation, "a changeset names an embedded object of '\(path.parentClass)' \(path.parentPrimaryKey), which is not a synced class or key")
        }
        // The path's steps, each a to-one embedded property or an element of a list of embedded
        // objects of the class before it.
        guard let (steps, target) = try resolveEmbeddedSteps(path, c, s) else {
            // A property this node's schema does not have (a newer node's, or one a migration
            // removed here): kept aside (SyncWriter+Unknown.swift); the write keeps the parent
            // as it does on the nodes that have the property.
            try keepUnknown(instruction, names, stamp: stamp, elementNode: stamp.node, erased: false)
            if instruction.touchesObject(erased: false) {
                embeddedParents[RecordKey(SyncTrees.objectKey(c.key, path.parentPrimaryKey))] = (c, path.parentPrimaryKey)
                try applyCreate(c, path.parentPrimaryKey, stamp)
            }
            return
        }
        guard target === ec else {
            throw AtollError(.protocolViolation, "embedded path '\(s)' leads to no '\(ec.name)'")
        }
        let ok = SyncTrees.objectKey(c.key, path.parentPrimaryKey)
        embeddedParents[RecordKey(ok)] = (c, path.parentPrimaryKey)
        if case .element = steps.last, case .erase = instruction {
            throw AtollError(.protocolViolation, "a changeset erases '\(s)', an element of a list of embedded objects (a list erase removes it)")
        }
        if case .entry = steps.last, case .erase = instruction {
            throw AtollError(.protocolViolation, "a changeset erases '\(s)', the object at a key of a map of embedded objects (a map write replaces it)")
        }
        switch instruction {
        case .mapSet(_, let p, _, _), .mapRemove(_, let p, _):
            // An edit of a map of embedded objects this one holds (SyncWriter+EmbeddedMaps.swift).
            guard let column = ec.columnsByName[names.properties[p]] else {
                try keepUnknown(instruction, names, stamp: stamp, elementNode: elementNode, erased: erased)
                if instruction.touchesObject(erased: erased) { try applyCreate(c, path.parentPrimaryKey, stamp) }
                return
            }
            guard let entryClass = ec.embeddedMaps[column] else {
                throw AtollError(.protocolViolation, "a changeset edits '\(ec.name).\(names.properties[p])' as a map of embedded objects; it is not one")
            }
            try applyToEmbeddedMap(instruction, entryClass, holder: (c, path.parentPrimaryKey, ok, steps), holderClass: ec, holderNames: path.properties,
                                   column: column, mapName: names.properties[p], stamp: stamp)
            return
        case .listInsert(_, let p, _, _, _), .listSet(_, let p, _, _), .listErase(_, let p, _):
            // An edit of a list of embedded objects this one holds (SyncWriter+EmbeddedLists.swift).
            guard let column = ec.columnsByName[names.properties[p]] else {
                try keepUnknown(instruction, names, stamp: stamp, elementNode: elementNode, erased: erased)
                if instruction.touchesObject(erased: erased) { try applyCreate(c, path.parentPrimaryKey, stamp) }
                return
            }
            guard let elementClass = ec.embeddedLists[column] else {
                throw AtollError(.protocolViolation, "a changeset edits '\(ec.name).\(names.properties[p])' as a list of embedded objects; it is not one")
            }
            try applyToEmbeddedList(instruction, elementClass, holder: (c, path.parentPrimaryKey, ok, steps), column: column, stamp: stamp,
                                    elementNode: elementNode, erased: erased, names)
            return
        default:
            break
        }
        let key = SyncTrees.embeddedKey(ok, steps)
        var r = try embeddedRecord(key)
        let inherited = try inheritedTombstone(ok, steps)
        let tombstone = Self.later(inherited, r.deleted)
        // Inside an element removed from its list (or gone with its holder): the data is void.
        let removed = try embeddedElementRemoved(ok, steps)
        // A create or set is a write of the object, its ancestors and the parent whether or not
        // a delete voids its data (so that existence is the same in every order of arrival: a
        // delete that arrives later would not take the note back either).
        func wrote() throws {
            r.noteWrite(stamp)
            if removed {
                try noteAncestorsWrite(ok, steps, stamp)
                try applyCreate(c, path.parentPrimaryKey, stamp)
                return
            }
            try putEmbeddedRecord(key, r)
            try noteAncestorsWrite(ok, steps, stamp)
            try applyCreate(c, path.parentPrimaryKey, stamp)
        }
        switch instruction {
        case .create:
            try wrote()
        case .erase:
            guard !removed else { return }
            r.noteDelete(stamp)
            r.fields.removeAll { $0.stamp <= stamp }
            try putEmbeddedRecord(key, r)
            try dropKeptBefore(erase: ec.name, instruction.object.primaryKey, stamp)
        case .set(_, let p, let v):
            let name = names.properties[p]
            guard ec.columnsByName[name] != nil else {
                // A field this node's schema does not have: kept aside, a write of the object.
                try keepUnknown(instruction, names, stamp: stamp, elementNode: stamp.node, erased: false)
                try wrote()
                return
            }
            guard let column = ec.columnsByName[name], ec.embeddedColumns[column] == nil, ec.embeddedLists[column] == nil, ec.embeddedMaps[column] == nil else {
                throw AtollError(.protocolViolation, "a changeset writes '\(name)' of embedded class '\(ec.name)', which it does not have as a value")
            }
            guard case .value(let value) = v else {
                throw AtollError(.protocolViolation, "a changeset writes a link into '\(ec.name).\(name)'")
            }
            let col = ec.spec.columns[column]
            guard value.isNull ? col.isNullable : true else {
                throw AtollError(.protocolViolation, "a changeset writes nil into required property '\(ec.name).\(name)'")
            }
            // Void: stamped before a delete of it, an ancestor or the parent, or inside a removed
            // list element. (Deletes are not recorded in the ledger for embedded objects: a
            // parent's delete does not look below it, so the entry would depend on the order of
            // arrival.)
            if removed || tombstone.map({ stamp < $0 }) ?? false {
                try wrote()
                return
            }
            let held = r.field(column).flatMap { f in r.exists(under: tombstone) && (tombstone.map { f.stamp > $0 } ?? true) ? f : nil }
            if let held, held.stamp > stamp {
                if recordsConflicts {
                    try recordEmbeddedConflict(.concurrentWrite, ec, s, key, column, winning: .value(held.value), held.stamp, losing: v, stamp)
                }
                return
            }
            if recordsConflicts {
                if let seen = seenStamp { try txn.deleteInternal(ConflictLedger.tree, key: ConflictLedger.key(key, column: column, losing: seen)) }
                if let held, held.stamp > (seenStamp ?? .zero) {
                    try recordEmbeddedConflict(.concurrentWrite, ec, s, key, column, winning: v, stamp, losing: .value(held.value), held.stamp)
                }
            }
            if !r.exists(under: tombstone) { r.fields.removeAll() }
            r.setField(column, stamp, value)
            try wrote()
        default:
            throw AtollError(.protocolViolation, "a changeset sends a set or map change to embedded class '\(ec.name)', which syncs values and embedded objects only")
        }
    }

    /// The steps of `path` (of parent class `c`) and the embedded class it leads to; nil when
    /// the path names a property this node's schema does not have.
    func resolveEmbeddedSteps(_ path: EmbeddedPath, _ c: SyncedClass, _ s: String) throws -> ([EmbeddedStep], SyncedEmbeddedClass)? {
        var steps: [EmbeddedStep] = []
        var owner: (columnsByName: [String: Int], embedded: [Int: SyncedEmbeddedClass], lists: [Int: SyncedEmbeddedClass],
                    maps: [Int: SyncedEmbeddedClass]) = (c.columnsByName, c.embeddedColumns, c.embeddedLists, c.embeddedMaps)
        var target: SyncedEmbeddedClass?
        var i = 0
        while i < path.properties.count {
            let name = path.properties[i]
            guard let column = owner.columnsByName[name] else { return nil }
            let next: SyncedEmbeddedClass
            if let one = owner.embedded[column] {
                steps.append(.property(column))
                next = one
                i += 1
            } else if let listed = owner.lists[column] {
                guard i + 1 < path.properties.count else {
                    throw AtollError(.protocolViolation, "embedded path '\(s)' names list '\(name)' without an element")
                }
                steps.append(.element(column, try EmbeddedPath.element(parsing: path.properties[i + 1])))
                next = listed
                i += 2
            } else if let mapped = owner.maps[column] {
                guard i + 1 < path.properties.count else {
                    throw AtollError(.protocolViolation, "embedded path '\(s)' names map '\(name)' without a key")
                }
                steps.append(.entry(column, try EmbeddedPath.key(parsing: path.properties[i + 1])))
                next = mapped
                i += 2
            } else {
                throw AtollError(.protocolViolation, "embedded path '\(s)' names '\(name)', which holds no embedded object")
            }
            target = next
            owner = (next.columnsByName, next.embeddedColumns, next.embeddedLists, next.embeddedMaps)
        }
        guard let target else { throw AtollError(.protocolViolation, "embedded path '\(s)' names no property") }
        return (steps, target)
    }

    private func recordEmbeddedConflict(_ kind: Conflict.Kind, _ ec: SyncedEmbeddedClass, _ path: String, _ key: [UInt8], _ column: Int,
                                        winning: SyncValue?, _ winningStamp: Stamp, losing: SyncValue?, _ losingStamp: Stamp) throws
    {
        try putConflict(kind, className: ec.name, primaryKey: .string(path), property: ec.spec.columns[column].name,
                        won: (winning, winningStamp), lost: (losing, losingStamp), ledgerKey: key, column: column)
    }

    // MARK: projection

    /// Brings the embedded objects of every parent remote changes touched in line with their
    /// records.
    func projectTouchedEmbedded() throws {
        let parents = embeddedParents.sorted { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }
        embeddedParents = [:]
        for entry in parents {
            let (c, pk) = entry.value
            try pruneEmbedded(c, pk)
            try projectEmbedded(c, pk)
        }
    }

    /// Drops the fields of object `pk`'s embedded records that a delete (of the object, of an
    /// ancestor or of the embedded object) voided, so that a record holds the same whatever the
    /// order its changes arrived in (a write that arrives after such a delete is never stored);
    /// removes the elements of lists of embedded objects inserted before such a delete, and the
    /// records of removed elements.
    func pruneEmbedded(_ c: SyncedClass, _ pk: StorageValue) throws {
        let ok = SyncTrees.objectKey(c.key, pk)
        try pruneEmbeddedChildren(ok, c.embeddedColumns, c.embeddedLists, c.embeddedMaps, [], try object(ok).deleted)
    }

    func pruneEmbeddedChildren(_ ok: [UInt8], _ columns: [Int: SyncedEmbeddedClass], _ lists: [Int: SyncedEmbeddedClass],
                               _ maps: [Int: SyncedEmbeddedClass], _ steps: [EmbeddedStep], _ inherited: Stamp?) throws
    {
        for (column, ec) in columns.sorted(by: { $0.key < $1.key }) {
            let path = steps + [.property(column)]
            let key = SyncTrees.embeddedKey(ok, path)
            var r = try embeddedRecord(key)
            // A write below an object is a write of it: no record, nothing below either.
            guard r.latest != nil || r.deleted != nil else { continue }
            let tombstone = Self.later(inherited, r.deleted)
            let before = r
            r.fields.removeAll { f in tombstone.map { f.stamp <= $0 } ?? false }
            if !r.exists(under: tombstone) { r.row = nil }
            if r != before { try putEmbeddedRecord(key, r) }
            try pruneEmbeddedChildren(ok, ec.embeddedColumns, ec.embeddedLists, ec.embeddedMaps, path, tombstone)
        }
        for (column, ec) in lists.sorted(by: { $0.key < $1.key }) {
            try pruneEmbeddedList(ok, column, ec, steps, inherited)
        }
        for (column, ec) in maps.sorted(by: { $0.key < $1.key }) {
            try pruneEmbeddedMap(ok, column, ec, steps, inherited)
        }
    }

    /// Makes the table show the embedded objects of object `pk` as their records say.
    func projectEmbedded(_ c: SyncedClass, _ pk: StorageValue) throws {
        guard let k = try rowKey(c, pk) else { return }
        let ok = SyncTrees.objectKey(c.key, pk)
        try projectEmbeddedChildren(ok, try table(c), k, c.embeddedColumns, c.embeddedLists, c.embeddedMaps, [], try object(ok).deleted)
    }

    func projectEmbeddedChildren(_ ok: [UInt8], _ t: Table, _ row: ObjectKey, _ columns: [Int: SyncedEmbeddedClass],
                                 _ lists: [Int: SyncedEmbeddedClass], _ maps: [Int: SyncedEmbeddedClass], _ steps: [EmbeddedStep],
                                 _ inherited: Stamp?) throws
    {
        for (column, ec) in columns.sorted(by: { $0.key < $1.key }) {
            let path = steps + [.property(column)]
            let key = SyncTrees.embeddedKey(ok, path)
            var r = try embeddedRecord(key)
            let tombstone = Self.later(inherited, r.deleted)
            let current: ObjectKey?
            if case .link(let l) = try t.value(row, column) { current = l } else { current = nil }
            guard r.exists(under: tombstone) else {
                if current != nil { try t.set(row, column, .null) }
                if r.row != nil {
                    r.row = nil
                    try putEmbeddedRecord(key, r)
                }
                continue
            }
            let et = try txn.table(ec.key)
            let target: ObjectKey
            if let current {
                target = current
            } else {
                target = try et.create()
                try t.set(row, column, .link(target))
            }
            try projectEmbeddedFields(ec, et, target, r, tombstone)
            if r.row != target {
                r.row = target
                try putEmbeddedRecord(key, r)
            }
            try projectEmbeddedChildren(ok, et, target, ec.embeddedColumns, ec.embeddedLists, ec.embeddedMaps, path, tombstone)
        }
        for (column, ec) in lists.sorted(by: { $0.key < $1.key }) {
            try projectEmbeddedList(ok, t, row, column, ec, steps, inherited)
        }
        for (column, ec) in maps.sorted(by: { $0.key < $1.key }) {
            try projectEmbeddedMap(ok, t, row, column, ec, steps, inherited)
        }
    }

    /// Sets every field of embedded row `target` to what record `r` holds under `tombstone`.
    func projectEmbeddedFields(_ ec: SyncedEmbeddedClass, _ et: Table, _ target: ObjectKey, _ r: EmbeddedRecord, _ tombstone: Stamp?) throws {
        for f in ec.fieldColumns {
            let want = r.value(f, under: tombstone) ?? SyncedClass.defaultValue(ec.spec.columns[f])
            if try et.value(target, f) != want { try et.set(target, f, want) }
        }
    }
}
