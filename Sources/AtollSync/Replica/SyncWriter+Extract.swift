import AtollStorage

// Extraction: local commits -> changesets.
//
// Works from the file's history, never from in-process hooks, so commits made by any thread or
// process (an `atoll import`, another app process) become changesets the same way. Every commit
// after `extractedThrough` has its log in the history: sync sets the root record's
// "sync history retained from" to extractedThrough + 1 with every sync commit, and every writer
// of the file honors it.
//
// Each local commit becomes one changeset (several when it is very large), stamped with a fresh
// clock reading, which is greater than every reading this node has given out or observed: a
// local change wins locally, as the user expects, and is ordered after everything it could have
// seen. The instructions of the log address objects by object key and columns by index; they
// are translated to (class, primary key, property name), links to their target's primary key,
// and list positions to element ids (replaying the list operations against the list's element
// sequence, which mirrors the table's list at each point of the log).
//
// The metadata is updated as if the changeset had been applied: field stamps, tombstones,
// increments, list elements. Table data is not touched (it already holds the local changes),
// except for one consequence that every node computes alike: re-creating an object brings back
// the links to it that were left dangling when it was deleted.

extension SyncWriter {
    private struct PendingImplicitNull {
        let table: TableKey
        let key: ObjectKey
        let column: Int
    }

    private struct ObjectRef: Hashable {
        let table: TableKey
        let key: ObjectKey
    }

    /// A set or map of an object, and the last log entry that edits it or deletes the object
    /// (SyncWriter+Collections.swift: its edits are sent there, unless that entry is the delete).
    private struct CollectionRef: Hashable {
        let table: TableKey
        let key: ObjectKey
        let column: Int
    }

    private struct LogPosition: Equatable {
        let version: UInt64
        let entry: Int
        var isDelete = false
    }

    /// Turns every local commit after `state.extractedThrough` into changesets stored in
    /// `sync.outgoing`. Returns how many were made.
    @discardableResult
    func extractPendingLocalCommits() throws -> Int {
        let versions = try txn.loggedVersions(after: state.extractedThrough)
        guard !versions.isEmpty else { return 0 }
        if txn.rootRecord.historyFloor > state.extractedThrough {
            throw AtollError(.fileCorrupted,
                "the history of this file lost the logs of commits \(state.extractedThrough + 1)...\(txn.rootRecord.historyFloor), which were never synced; the file was changed by a tool that does not retain sync history")
        }
        // A migration among them that removed a synced column moved later columns: the metadata
        // goes to the current positions, and each log entry is read through the positions of its
        // time (SyncWriter+Renumber.swift).
        let renumbering = adoptsSchemaChanges ? try ColumnRenumbering(self, versions: versions) : ColumnRenumbering()
        if !renumbering.isEmpty { try renumberMetadata(renumbering) }
        // First pass: the primary keys of objects deleted in these commits (later instructions
        // cannot read them from the table any more; object keys are never reused). Logs are
        // read as streams, one commit at a time, never all decoded at once: a bulk commit's
        // instructions would take several times its log's size in memory.
        var erased: [ObjectRef: StorageValue] = [:]
        var lastEdits: [CollectionRef: LogPosition] = [:]
        // Objects whose embedded objects changed, with the last commit that changed them: they
        // are compared with their records there (SyncWriter+Embedded.swift).
        var embeddedEdits: [ObjectRef: UInt64] = [:]
        let embeddedByTable = Dictionary(schema.embedded.values.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        for v in versions {
            guard let bytes = try txn.log(of: v) else { continue }
            var reader = TransactionLogReader(bytes)
            var entry = 0
            while let logged = reader.next() {
                defer { entry += 1 }
                guard let i = try renumbering.translate(logged, version: v, entry: entry) else { continue }
                if !embeddedByTable.isEmpty {
                    switch i {
                    case .createObject(let t, let k, _), .set(let t, let k, _, _, _), .addInteger(let t, let k, _, _),
                         .eraseObject(let t, let k, _), .listInsert(let t, let k, _, _, _), .listSet(let t, let k, _, _, _),
                         .listErase(let t, let k, _, _, _), .listMove(let t, let k, _, _, _), .listClear(let t, let k, _):
                        if let c = schema.classes[t], c.holdsEmbedded {
                            embeddedEdits[ObjectRef(table: t, key: k)] = v
                        } else if let ec = embeddedByTable[t], let owner = try embeddedOwner(ec, k) {
                            embeddedEdits[ObjectRef(table: owner.0.key, key: owner.1)] = v
                        }
                    default:
                        break
                    }
                }
                switch i {
                case .eraseObject(let t, let k, let pk):
                    guard let c = schema.classes[t] else { continue }
                    erased[ObjectRef(table: t, key: k)] = pk
                    for column in collectionColumns(of: c) {
                        lastEdits[CollectionRef(table: t, key: k, column: column)] = LogPosition(version: v, entry: entry, isDelete: true)
                    }
                case .listInsert(let t, let k, let column, _, _), .listSet(let t, let k, let column, _, _),
                     .listErase(let t, let k, let column, _, _), .listClear(let t, let k, let column):
                    guard let c = schema.classes[t], c.spec.columns[column].isSet || c.spec.columns[column].isMap else { continue }
                    lastEdits[CollectionRef(table: t, key: k, column: column)] = LogPosition(version: v, entry: entry)
                default:
                    continue
                }
            }
            if let e = reader.error { throw e }
        }
        var made = 0
        var created: [(SyncedClass, StorageValue)] = []
        for v in versions {
            guard let bytes = try txn.log(of: v) else { continue }
            made += try extractCommit(version: v, log: bytes, erased: erased, lastEdits: lastEdits, renumbering: renumbering,
                                      embedded: embeddedEdits.filter { $0.value == v }.map(\.key), created: &created)
        }
        for (c, pk) in created {
            let o = try object(SyncTrees.objectKey(c.key, pk))
            if o.exists, let k = try rowKey(c, pk) { try resolveDangling(c, pk: pk, key: k) }
        }
        return made
    }

    /// When the local commit `version` was made, in milliseconds since 1970 (removing the record
    /// of it), or now for a commit of a writer that recorded no time.
    private func commitMilliseconds(_ version: UInt64) throws -> UInt64 {
        var k = ByteWriter(capacity: 8)
        k.u64BigEndian(version)
        guard let v = try txn.internalValue(WriteTransaction.commitTimesTree, key: k.bytes) else { return physicalMilliseconds() }
        guard v.count == 8 else { throw AtollError.corrupted("commit time of version \(version) has \(v.count) bytes") }
        try txn.deleteInternal(WriteTransaction.commitTimesTree, key: k.bytes)
        let nanos = v.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
        // Never later than now: a commit time from a clock that has since been set back would
        // otherwise move this node's clock ahead of real time.
        return min(nanos / 1_000_000, physicalMilliseconds())
    }

    /// One local commit: returns the number of changesets made (0 when it changed nothing synced).
    private func extractCommit(version: UInt64, log: [UInt8], erased: [ObjectRef: StorageValue], lastEdits: [CollectionRef: LogPosition],
                               renumbering: ColumnRenumbering, embedded: [ObjectRef], created: inout [(SyncedClass, StorageValue)]) throws -> Int
    {
        var encoder = ChangesetBodyEncoder(origin: nodeID, seenStamps: true)
        var made = 0
        var pendingNulls: [PendingImplicitNull] = []
        var createdHere: [ObjectRef: StorageValue] = [:]

        func primaryKey(_ c: SyncedClass, _ k: ObjectKey) throws -> StorageValue {
            if c.keyIsPrimaryKey { return .int(k.intPrimaryKey) }
            let ref = ObjectRef(table: c.key, key: k)
            if let pk = createdHere[ref] ?? erased[ref] { return pk }
            do {
                return try table(c).primaryKeyValue(k)
            } catch let e as AtollError where e.kind == .objectNotFound {
                throw AtollError.corrupted("the history names object \(k.rawValue) of '\(c.name)', which is neither in the table nor deleted later")
            }
        }
        /// The synced class of table `t`, unless its local commits are skipped (a class joining
        /// with older objects: SyncWriter+Joining.swift).
        func synced(_ t: TableKey) -> SyncedClass? { extractionSkips.contains(t) ? nil : schema.classes[t] }
        func address(_ c: SyncedClass, _ pk: StorageValue) -> ObjectAddress {
            ObjectAddress(classIndex: encoder.classIndex(c.name), primaryKey: pk)
        }
        func property(_ c: SyncedClass, _ column: Int) -> Int { encoder.propertyIndex(c.spec.columns[column].name) }
        func syncValue(_ c: SyncedClass, _ column: Int, _ v: StorageValue) throws -> SyncValue {
            try SyncValue.travelling(v, c, column, schema: schema, txn: txn, primaryKey: primaryKey)
        }
        /// A change of a synced class's schema that sync cannot carry (docs/SYNC.md, "Schema
        /// changes"): said with what to do instead.
        func schemaChanged(_ t: TableKey, _ what: String, _ instead: String) -> AtollError {
            AtollError(.schemaMismatch, "a migration \(what) of synced class '\(schema.classes[t]?.name ?? "?")'; \(instead)")
        }
        let copyInstead = "other nodes know a synced property by its name and type: add a property with a new name, copy the values over in the migration block, and remove the old property if you like"
        // Body bytes of the transaction's parts so far, and how many transactions the commit
        // became (more than one only past `transactionBytesMax`).
        var transactionBytes = 0
        var commitBytes = 0
        var transactions = 1
        var lastPartContinues = false
        func finishChangeset(continues: Bool) throws {
            guard !encoder.isEmpty else {
                // The commit ended right after a cut: its last part must not say it continues.
                if !continues, lastPartContinues { try endOutgoingTransaction(at: state.ownSeq) }
                lastPartContinues = false
                return
            }
            let body = encoder.finish()
            transactionBytes += body.count
            commitBytes += body.count
            // Receivers hold a transaction whole only up to `transactionBytesMax`: when the next
            // part could pass it, the transaction ends here and the commit goes on as another.
            var continues = continues
            if continues, transactionBytes + partBytesMax > transactionBytesMax {
                continues = false
                transactionBytes = 0
                transactions += 1
            }
            try storeOutgoing(Changeset(origin: nodeID, seq: state.ownSeq + 1, hlc: base.hlc,
                                        flags: continues ? Changeset.continuesFlag : 0, body: body))
            lastPartContinues = continues
            made += 1
            encoder = ChangesetBodyEncoder(origin: nodeID, seenStamps: true)
            if continues { base = Stamp(hlc: clock.tick(physicalMilliseconds: physicalMilliseconds()), node: nodeID) }
        }

        // The stamp must be greater than every stamp in the objects the commit touches, so that
        // each change lands as the user made it: after what they saw. The clock is normally
        // ahead of them all; it is not when it refused to follow a remote clock that was too far
        // ahead (HybridLogicalClock.observe), and then it follows now, for these objects only.
        var touched = Stamp.zero
        // Maps whose greatest stamp is already in `touched`: a map's record does not change in
        // this pass, so each map is read once, however many of its keys the commit edits.
        var boundedMaps = Set<[UInt8]>()
        var reader = TransactionLogReader(log)
        while let instruction = reader.next() {
            let object: (TableKey, ObjectKey)
            switch instruction {
            case .createObject(let t, let k, let pk):
                createdHere[ObjectRef(table: t, key: k)] = pk
                object = (t, k)
            case .eraseObject(let t, let k, _), .set(let t, let k, _, _, false), .addInteger(let t, let k, _, _),
                 .listInsert(let t, let k, _, _, _), .listSet(let t, let k, _, _, _), .listErase(let t, let k, _, _, false),
                 .listMove(let t, let k, _, _, _), .listClear(let t, let k, _):
                object = (t, k)
            default:
                continue
            }
            guard let c = schema.classes[object.0], !extractionSkips.contains(object.0) else { continue }
            let ok = SyncTrees.objectKey(c.key, try primaryKey(c, object.1))
            let o = try self.object(ok)
            if let l = o.latest, l > touched { touched = l }
            if let d = o.deleted, d > touched { touched = d }
            // A map key's removal puts no data into the object (its stamp is not `latest`), yet
            // a put of that key must come after it.
            switch instruction {
            case .listInsert(_, _, let column, _, _), .listSet(_, _, let column, _, _), .listErase(_, _, let column, _, _),
                 .listClear(_, _, let column):
                if c.spec.columns[column].isMap, boundedMaps.insert(SyncTrees.listKey(ok, column: column)).inserted,
                   let s = try mapStampBound(ok, column), s > touched { touched = s }
            default:
                break
            }
        }
        if let e = reader.error { throw e }
        for ref in embedded {
            guard let c = schema.classes[ref.table] else { continue }
            let pk = try primaryKey(c, ref.key)
            let o = try self.object(SyncTrees.objectKey(c.key, pk))
            for s in [o.latest, o.deleted, try embeddedStampBound(c, pk)].compactMap({ $0 }) where s > touched { touched = s }
        }
        createdHere.removeAll()
        // Stamped with the commit's time, not the extraction's: a commit made offline (or while
        // no session ran) must lose to a later one made elsewhere, whenever it is uploaded. The
        // clock still ticks past every reading it gave out or observed (monotonic); everything it
        // observed was applied before this commit was made (local commits are extracted first).
        let committed = try commitMilliseconds(version)
        let now = clock.tick(physicalMilliseconds: committed)
        if touched.hlc >= now {
            guard touched.hlc < UInt64.max else { throw AtollError(.limitExceeded, "the realm's clock readings are exhausted") }
            clock.advance(to: touched.hlc + 1)
        }
        var base = Stamp(hlc: max(now, touched.hlc &+ 1), node: nodeID)

        /// A set or map edited at log entry `entry`: when no later entry edits it or deletes its
        /// object, its local edits become instructions here.
        func collectionEdited(_ c: SyncedClass, _ k: ObjectKey, _ column: Int, entry: Int) throws {
            guard lastEdits[CollectionRef(table: c.key, key: k, column: column)] == LogPosition(version: version, entry: entry) else { return }
            let pk = try primaryKey(c, k)
            for edit in try localCollectionEdits(c, pk, k, column) {
                let (i, seen) = try noteLocalCollectionEdit(c, pk, column, edit, stamp: base.at(encoder.instructionCount),
                                                            address: address(c, pk), property: property(c, column))
                encoder.append(i, seen: seen)
                if encoder.instructionBytes >= changesetSplitBytes || encoder.instructionCount >= SyncLimits.changesetInstructionsMax {
                    try finishChangeset(continues: true)
                }
            }
        }

        reader = TransactionLogReader(log)
        var entry = -1
        while let logged = reader.next() {
            entry += 1
            guard let instruction = try renumbering.translate(logged, version: version, entry: entry) else { continue }
            // The stamp of the instruction this log entry becomes (its index in the changeset).
            let stamp = base.at(encoder.instructionCount)
            switch instruction {
            case .listInsert(let t, let k, let column, _, _), .listSet(let t, let k, let column, _, _),
                 .listErase(let t, let k, let column, _, _), .listClear(let t, let k, let column):
                guard let c = synced(t) else { break }
                // Lists and maps of embedded objects are compared with their records at the end of the commit.
                if c.embeddedLists[column] != nil || c.embeddedMaps[column] != nil { continue }
                guard c.spec.columns[column].isSet || c.spec.columns[column].isMap else { break }
                try collectionEdited(c, k, column, entry: entry)
                continue
            case .listMove(let t, _, let column, _, _):
                if let c = synced(t), c.embeddedLists[column] != nil { continue }
            default:
                break
            }
            switch instruction {
            case .createObject(let t, let k, let pk):
                guard let c = synced(t) else { continue }
                createdHere[ObjectRef(table: t, key: k)] = pk
                let ok = SyncTrees.objectKey(t, pk)
                try noteWrite(ok, stamp)
                encoder.append(.create(address(c, pk)))
                created.append((c, pk))

            case .eraseObject(let t, _, let pk):
                guard schema.classes[t] != nil else { continue }
                let target = SyncTrees.objectKey(t, pk)
                // The links to this object the engine nulled just before: their registers still
                // name it (a re-created object gets them back).
                for n in pendingNulls {
                    guard let oc = schema.classes[n.table] else { continue }
                    // A mixed property remembers the target's class too (a typed link); one to a
                    // class that does not sync never travelled.
                    let remembered: StorageValue
                    if oc.spec.columns[n.column].type == .mixed {
                        guard let tc = schema.classes[t] else { continue }
                        remembered = MixedLinkTarget.recordValue(className: tc.name, primaryKey: pk)
                    } else {
                        remembered = pk
                    }
                    let originPK = try primaryKey(oc, n.key)
                    let origin = SyncTrees.objectKey(n.table, originPK)
                    var oo = try object(origin)
                    oo.withField(n.column) { $0.danglingTarget = remembered }
                    setObject(origin, oo)
                    try addDangling(target: target, origin: origin, column: n.column, originPrimaryKey: originPK)
                }
                pendingNulls.removeAll()
                guard let c = synced(t) else { continue }
                let seen = try object(target).latest
                try deleteMetadata(c, objectKey: target, stamp: stamp)
                try dropKeptBefore(erase: c.name, pk, stamp)
                encoder.append(.erase(address(c, pk)), seen: seen)

            case .set(let t, let k, let column, let value, let implicit):
                guard let c = synced(t) else { continue }
                // Embedded objects are compared with their records at the end of the commit.
                if c.embeddedColumns[column] != nil { continue }
                if implicit {
                    pendingNulls.append(PendingImplicitNull(table: t, key: k, column: column))
                    continue
                }
                guard column != c.primaryKeyColumn else { continue }
                let pk = try primaryKey(c, k)
                let ok = SyncTrees.objectKey(t, pk)
                let v = try syncValue(c, column, value)
                var o = try object(ok)
                // What this write replaces here: the property's write, or the object's delete.
                let seen = max(o.field(column)?.stamp ?? .zero, o.deleted ?? .zero)
                try o.withField(column) { f in
                    if let old = f.danglingTarget {
                        if let target = danglingTargetKey(c, column, old) { try removeDangling(target: target, origin: ok, column: column) }
                        f.danglingTarget = nil
                    }
                    if f.hasIncrements {
                        // Every kept increment is older than this write, which resets the counter.
                        _ = try trimIncrements(ok, column: column, through: nil)
                        f.hasIncrements = false
                    }
                    f.stamp = stamp
                }
                o.noteWrite(stamp)
                setObject(ok, o)
                encoder.append(.set(address(c, pk), property: property(c, column), value: v), seen: seen)

            case .addInteger(let t, let k, let column, let delta):
                guard let c = synced(t) else { continue }
                let pk = try primaryKey(c, k)
                let ok = SyncTrees.objectKey(t, pk)
                var o = try object(ok)
                o.withField(column) { $0.hasIncrements = true }
                o.noteWrite(stamp)
                setObject(ok, o)
                try addIncrement(ok, column: column, stamp: stamp, delta: delta)
                encoder.append(.addInteger(address(c, pk), property: property(c, column), delta: delta))

            case .listInsert(let t, let k, let column, let index, let value):
                guard let c = synced(t) else { continue }
                let pk = try primaryKey(c, k)
                let ok = SyncTrees.objectKey(t, pk)
                let lk = SyncTrees.listKey(ok, column: column)
                var l = try takeList(lk)
                defer { setList(lk, l) }
                let v = try syncValue(c, column, value)
                let parent = try localElement(l, visible: index - 1, allowHead: true, c, column)
                let (id, at) = try insertLocalElement(&l, after: parent?.id, stamp: stamp, value: v, c, column)
                assert(l.visibleIndex(before: at) == index, "a local insert lands where the user put it")
                try noteWrite(ok, stamp)
                encoder.append(.listInsert(address(c, pk), property: property(c, column), after: parent?.id, lamport: id.lamport, value: v))

            case .listSet(let t, let k, let column, let index, let value):
                guard let c = synced(t) else { continue }
                let pk = try primaryKey(c, k)
                let ok = SyncTrees.objectKey(t, pk)
                let lk = SyncTrees.listKey(ok, column: column)
                var l = try takeList(lk)
                defer { setList(lk, l) }
                let v = try syncValue(c, column, value)
                guard let e = try localElement(l, visible: index, allowHead: false, c, column), let i = l.index(of: e.id) else { continue }
                let seen = l.elements[i].valueStamp
                l.elements[i].value = v
                l.elements[i].valueStamp = stamp
                try noteWrite(ok, stamp)
                encoder.append(.listSet(address(c, pk), property: property(c, column), element: e.id, value: v), seen: seen)

            case .listErase(let t, let k, let column, let index, let implicit):
                guard let c = synced(t) else { continue }
                let pk = try primaryKey(c, k)
                let ok = SyncTrees.objectKey(t, pk)
                let lk = SyncTrees.listKey(ok, column: column)
                var l = try takeList(lk)
                defer { setList(lk, l) }
                guard let e = try localElement(l, visible: index, allowHead: false, c, column), let i = l.index(of: e.id) else { continue }
                if implicit {
                    // Its target is being deleted: the element stays, hidden, and comes back
                    // with the target.
                    l.elements[i].isHidden = true
                    if case let (tc, targetPK)? = linkTarget(c, column, e.value) {
                        try addDangling(target: SyncTrees.objectKey(tc.key, targetPK), origin: ok, column: column, originPrimaryKey: pk)
                    }
                } else {
                    l.elements[i].remove(at: stamp.hlc)
                    encoder.append(.listErase(address(c, pk), property: property(c, column), element: e.id))
                }

            case .listMove(let t, let k, let column, let from, let to):
                guard let c = synced(t) else { continue }
                let pk = try primaryKey(c, k)
                let ok = SyncTrees.objectKey(t, pk)
                let lk = SyncTrees.listKey(ok, column: column)
                var l = try takeList(lk)
                defer { setList(lk, l) }
                // A move is a removal and an insert of a new element with the same value.
                guard let e = try localElement(l, visible: from, allowHead: false, c, column), let i = l.index(of: e.id) else { continue }
                l.elements[i].remove(at: stamp.hlc)
                encoder.append(.listErase(address(c, pk), property: property(c, column), element: e.id))
                let insertStamp = base.at(encoder.instructionCount)
                let parent = try localElement(l, visible: to - 1, allowHead: true, c, column)
                let (id, _) = try insertLocalElement(&l, after: parent?.id, stamp: insertStamp, value: e.value, c, column)
                try noteWrite(ok, insertStamp)
                encoder.append(.listInsert(address(c, pk), property: property(c, column), after: parent?.id, lamport: id.lamport, value: e.value))

            case .listClear(let t, let k, let column):
                guard let c = synced(t) else { continue }
                let pk = try primaryKey(c, k)
                let ok = SyncTrees.objectKey(t, pk)
                let lk = SyncTrees.listKey(ok, column: column)
                var l = try takeList(lk)
                defer { setList(lk, l) }
                for i in l.elements.indices where !l.elements[i].isDeleted {
                    l.elements[i].remove(at: stamp.hlc)
                    encoder.append(.listErase(address(c, pk), property: property(c, column), element: l.elements[i].id))
                }

            case .clearTable(let t):
                guard schema.classes[t] != nil else { continue }
                throw AtollError(.fileCorrupted, "a commit cleared synced class '\(schema.classes[t]?.name ?? "?")' without recording its objects; it cannot be synced")

            // Columns are added at the end, so the column numbers of earlier commits still hold;
            // a removed column was renumbered before this pass when the commit adopts the new
            // schema (SyncWriter+Renumber.swift); a removed class is simply no longer synced by
            // this node (its instructions, here and from other nodes, are skipped or kept aside).
            case .removeColumn(let t, _, let name):
                if let c = schema.classes[t], !adoptsSchemaChanges {
                    throw AtollError(.schemaMismatch, "a migration removed property '\(name)' of synced class '\(c.name)' while sync ran on the file; stop sync and start it again to sync the new schema")
                }
            case .renameColumn(let t, _, let from, let to):
                if schema.classes[t] != nil { throw schemaChanged(t, "renamed property '\(from)' to '\(to)'", copyInstead) }
            case .setPrimaryKey(let t, let name):
                if schema.classes[t] != nil {
                    throw schemaChanged(t, "changed the primary key to '\(name)'", "a synced class keeps its primary key on every node: sync a new class instead, copying the objects over in the migration block")
                }

            case .addColumn(let t, let column, _):
                if let c = schema.classes[t], !adoptsSchemaChanges, column >= c.spec.columns.count {
                    throw AtollError(.schemaMismatch, "a migration added property \(column) to synced class '\(c.name)' while sync ran on the file; stop sync and start it again to sync the new schema")
                }

            case .addTable(let t, let spec):
                if schema.classes[t] == nil, schema.syncsEveryClass, !SyncSchema.isInternal(spec.name) {
                    throw AtollError(.schemaMismatch, "a migration added class '\(spec.name)' while sync ran on the file; stop sync and start it again to sync the new schema")
                }

            case .removeTable, .setIndexed, .setMetadata:
                continue
            }
            if encoder.instructionBytes >= changesetSplitBytes || encoder.instructionCount >= SyncLimits.changesetInstructionsMax {
                try finishChangeset(continues: true)
            }
        }
        if let e = reader.error { throw e }
        guard pendingNulls.isEmpty else {
            throw AtollError.corrupted("the history nulls links to an object it does not delete")
        }
        for ref in embedded.sorted(by: { ($0.table.rawValue, $0.key.rawValue) < ($1.table.rawValue, $1.key.rawValue) }) {
            guard let c = schema.classes[ref.table] else { continue }
            guard try table(c).contains(ref.key) else {
                // Deleted: its delete voids what its embedded objects held.
                try pruneEmbedded(c, try primaryKey(c, ref.key))
                continue
            }
            try extractEmbedded(c, try primaryKey(c, ref.key), ref.key, &encoder, base: base)
            if encoder.instructionBytes >= changesetSplitBytes || encoder.instructionCount >= SyncLimits.changesetInstructionsMax {
                try finishChangeset(continues: true)
            }
        }
        try finishChangeset(continues: false)
        if transactions > 1 { oversizeCommits.append(OversizeCommit(version: version, bodyBytes: commitBytes, transactions: transactions)) }
        return made
    }

    /// Records that `stamp` wrote the object (its last-write stamp).
    private func noteWrite(_ ok: [UInt8], _ stamp: Stamp) throws {
        var o = try object(ok)
        o.noteWrite(stamp)
        setObject(ok, o)
    }

    /// A new element of this node in a list whose greatest element number is `maxLamport`
    /// (named `list` in an error): its number is greater than every number the list holds (an
    /// insert is numbered after every element it saw) and than every number this node gave
    /// before, in any list, so an id names one element for good, even once a deleted object's
    /// list records are collected (docs/SYNC.md, "The deletion point") and the object is made
    /// again: a reused id would be taken for the removed element by a node that still holds it.
    func newElementID(after maxLamport: UInt64, list: @autoclosure () -> String) throws -> ElementID {
        let lamport = max(maxLamport, state.elementCounter) + 1
        guard lamport <= SyncLimits.lamportMax else { throw AtollError(.limitExceeded, "list \(list()) has used every element number") }
        state.elementCounter = lamport
        return ElementID(lamport: lamport, node: nodeID)
    }

    /// Inserts a new element of this node after `parent` (nil: at the head), with a new element
    /// number (`newElementID`). Returns its id and its position in `l.elements`.
    private func insertLocalElement(_ l: inout ListRecord, after parent: ElementID?, stamp: Stamp, value: SyncValue,
                                    _ c: SyncedClass, _ column: Int) throws -> (id: ElementID, at: Int) {
        let id = try newElementID(after: l.maxLamport, list: "'\(c.name).\(c.spec.columns[column].name)'")
        let (at, depth) = try l.insertionPoint(after: parent, id: id)
        l.insert(ListRecord.Element(id: id, depth: depth, insertStamp: stamp, valueStamp: stamp, value: value), at: at)
        return (id, at)
    }

    /// The element at visible position `visible` of a list the local user changed (nil for the
    /// head when `allowHead` and `visible` is -1). The list's element sequence mirrors the table's
    /// list, so a position the user used must exist.
    private func localElement(_ l: ListRecord, visible: Int, allowHead: Bool, _ c: SyncedClass, _ column: Int) throws -> ListRecord.Element? {
        if visible < 0 && allowHead { return nil }
        guard let i = l.documentIndex(ofVisible: visible) else {
            throw AtollError.corrupted("the history changes position \(visible) of '\(c.name).\(c.spec.columns[column].name)', which its sync metadata does not have")
        }
        return l.elements[i]
    }

    /// Clears the "continues" flag of outgoing changeset `seq` (made in this transaction): its
    /// transaction ends there.
    private func endOutgoingTransaction(at seq: UInt64) throws {
        let key = SyncTrees.outgoingKey(seq)
        guard var value = try txn.internalValue(SyncTrees.outgoing, key: key) else {
            throw AtollError.corrupted("outgoing changeset \(seq), made in this transaction, is missing")
        }
        let flagsOffset = try value.withUnsafeBytes { try SyncReplica.outgoingFlagsOffset($0) }
        value[flagsOffset] &= ~Changeset.continuesFlag
        try txn.putInternal(SyncTrees.outgoing, key: key, value: value)
    }

    /// Appends a local changeset to the outgoing log and advances the own sequence number.
    func storeOutgoing(_ cs: Changeset) throws {
        var w = ByteWriter(capacity: cs.body.count + 12)
        w.varint(cs.hlc)
        w.u8(cs.flags)
        w.append(cs.body)
        try txn.putInternal(SyncTrees.outgoing, key: SyncTrees.outgoingKey(cs.seq), value: w.bytes)
        state.ownSeq = cs.seq
    }

    /// The metadata side of deleting an object completely (the table row is gone or going):
    /// a tombstone, no field stamps, no increments, every list element a tombstone.
    func deleteMetadata(_ c: SyncedClass, objectKey ok: [UInt8], stamp: Stamp) throws {
        var o = try object(ok)
        for f in o.fields {
            if let t = f.danglingTarget, let target = danglingTargetKey(c, f.column, t) {
                try removeDangling(target: target, origin: ok, column: f.column)
            }
            if f.hasIncrements { _ = try trimIncrements(ok, column: f.column, through: nil) }
        }
        o.fields.removeAll()
        o.noteDelete(stamp)
        setObject(ok, o)
        try deleteCollectionMetadata(c, ok, stamp)
        for column in listColumns(of: c) {
            let lk = SyncTrees.listKey(ok, column: column)
            var l = try list(lk)
            guard !l.elements.isEmpty else { continue }
            for i in l.elements.indices where !l.elements[i].isDeleted { l.elements[i].remove(at: stamp.hlc) }
            setList(lk, l)
        }
    }
}
