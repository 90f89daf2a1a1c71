import AtollStorage

// Apply: remote changesets -> one local commit.
//
// The merge rules (docs/SYNC.md, "Conflicts"), all decided by the total order of stamps
// (hlc, node id), so that every node reaches the same state from the same changesets in any
// order (apply is commutative and, through the version vector, idempotent):
//
// - A property is a last-writer-wins register: a write lands when its stamp is greater than
//   the stamp of the write the property holds. Within one changeset instructions apply in order.
// - A delete leaves a tombstone stamped with the delete. Writes stamped before it are void. If
//   the object holds a write stamped after it, the object stays, with the properties written
//   after the delete and defaults elsewhere; otherwise it goes. A write stamped after the
//   tombstone brings a deleted object back (with only that write's data).
// - Increments add up; a write of the property discards increments stamped before it (kept in
//   `sync.counters` for the writes that may still arrive).
// - Lists are RGA sequences (ListRecord.swift): concurrent inserts are all kept, removed
//   elements stay as tombstones, each element's value is a register.
// - Sets are add-wins (observed-remove) sets, maps are per-key registers with removal stamps
//   (CollectionRecord.swift, SyncWriter+Collections.swift).
// - A link whose target is deleted shows as nil (a list element pointing to it is hidden, a set
//   leaves it out); its register keeps the target, and re-creating the target brings the link back.
//
// Remote input is validated as it is applied (classes, properties, types, element ids, link
// targets); anything wrong throws `.protocolViolation` and the caller rolls back the whole
// transaction.

extension SyncWriter {
    /// Resolution of one changeset's names against the local schema. A class or property the
    /// schema does not have (a newer node's) resolves to nil (SyncWriter+Unknown.swift).
    struct Names {
        let classes: [SyncedClass?]
        let classNames: [String]
        let properties: [String]
        var columns: [Int: Int] = [:]

        init(_ decoder: ChangesetBodyDecoder, _ schema: SyncSchema) {
            classNames = decoder.classes
            classes = decoder.classes.map { schema.byName[$0] }
            properties = decoder.properties
        }

        /// Whether this node's schema has property `property` of `c`.
        mutating func knows(_ c: SyncedClass, classIndex: Int, property: Int) -> Bool {
            if columns[classIndex << 32 | property] != nil { return true }
            guard let col = c.columnsByName[properties[property]] else { return false }
            columns[classIndex << 32 | property] = col
            return true
        }

        mutating func column(_ c: SyncedClass, classIndex: Int, property: Int) throws -> Int {
            let key = classIndex << 32 | property
            if let col = columns[key] { return col }
            guard let col = c.columnsByName[properties[property]] else {
                throw AtollError(.protocolViolation, "a changeset writes property '\(properties[property])' of '\(c.name)', which this node's schema does not have")
            }
            columns[key] = col
            return col
        }
    }

    /// Applies one remote changeset whose predecessors (per origin) are all applied.
    func applyRemote(_ cs: Changeset) throws {
        try cs.body.withUnsafeBytes { buffer in
            var decoder = try ChangesetBodyDecoder(buffer, origin: cs.origin)
            let base = cs.stamp
            _ = state.nodeIndex(cs.origin)
            var names = Names(decoder, schema)
            var index = 0
            recordsConflicts = decoder.seenStamps
            defer {
                recordsConflicts = false
                seenStamp = nil
            }
            try mapInputErrors("changeset \(cs.seq) of node \(cs.origin)") {
                while let instruction = try decoder.next() {
                    seenStamp = decoder.seen
                    try apply(instruction, stamp: base.at(index), elementNode: cs.origin, &names)
                    index += 1
                }
                try projectTouchedEmbedded()
            }
        }
    }

    /// Applies one chunk of a relay's snapshot (instructions with their own stamps). Every
    /// instruction is idempotent, so a chunk applied again (after a crash) changes nothing.
    func applySnapshotChunk(_ body: [UInt8], relay: NodeID) throws {
        try body.withUnsafeBytes { buffer in
            var decoder = try ChangesetBodyDecoder(buffer, origin: relay, snapshot: true)
            var names = Names(decoder, schema)
            try mapInputErrors("a snapshot of relay \(relay)") {
                while let instruction = try decoder.next() {
                    let stamp = decoder.stamp
                    if !clock.observe(stamp.hlc, physicalMilliseconds: physicalMilliseconds(), maxForwardDriftMilliseconds: maxForwardDriftMilliseconds) {
                        clockCapped += 1
                    }
                    try apply(instruction, stamp: stamp, elementNode: decoder.elementNode ?? stamp.node, erased: decoder.elementErased, &names)
                }
                try projectTouchedEmbedded()
            }
        }
    }

    /// Input that does not fit the local schema is the peer's fault: `.protocolViolation`.
    private func mapInputErrors(_ what: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let e as AtollError {
            switch e.kind {
            case .typeMismatch, .requiredValueMissing, .invalidArgument, .limitExceeded, .primaryKeyExists, .objectNotFound:
                throw AtollError(.protocolViolation, "\(what) cannot be applied: \(e.message)")
            default:
                throw e
            }
        }
    }

    func apply(_ instruction: SyncInstruction, stamp: Stamp, elementNode: NodeID, erased: Bool = false, _ names: inout Names) throws {
        let o = instruction.object
        if let ec = schema.embedded[names.classNames[o.classIndex]] {
            try applyEmbedded(instruction, ec, stamp: stamp, elementNode: elementNode, erased: erased, names)
            return
        }
        guard let c = names.classes[o.classIndex] else {
            try keepUnknown(instruction, names, stamp: stamp, elementNode: elementNode, erased: erased)
            return
        }
        guard c.accepts(primaryKey: o.primaryKey) else {
            throw AtollError(.protocolViolation, "a changeset gives '\(c.name)' a primary key of the wrong type: \(o.primaryKey)")
        }
        if c.holdsEmbedded {
            if let p = instruction.property, let column = c.columnsByName[names.properties[p]], c.embeddedColumns[column] != nil {
                throw AtollError(.protocolViolation, "a changeset writes '\(c.name).\(names.properties[p])', which holds an embedded object (embedded objects are written by their path)")
            }
            let ok = SyncTrees.objectKey(c.key, o.primaryKey)
            embeddedParents[RecordKey(ok)] = (c, o.primaryKey)
            if let p = instruction.property, let column = c.columnsByName[names.properties[p]], let ec = c.embeddedLists[column] {
                // A list of embedded objects: SyncWriter+EmbeddedLists.swift.
                try applyToEmbeddedList(instruction, ec, holder: (c, o.primaryKey, ok, []), column: column, stamp: stamp, elementNode: elementNode,
                                        erased: erased, names)
                return
            }
            if let p = instruction.property, let column = c.columnsByName[names.properties[p]], let ec = c.embeddedMaps[column] {
                // A map of embedded objects: SyncWriter+EmbeddedMaps.swift.
                try applyToEmbeddedMap(instruction, ec, holder: (c, o.primaryKey, ok, []), holderClass: nil, holderNames: [], column: column,
                                       mapName: names.properties[p], stamp: stamp)
                return
            }
        }
        if let p = instruction.property, !names.knows(c, classIndex: o.classIndex, property: p) {
            try keepUnknown(instruction, names, stamp: stamp, elementNode: elementNode, erased: erased)
            // Whether the object exists is shared by every schema: the write makes or keeps it
            // here as it does on the nodes that have the property (a removal or a removed
            // element's structure does not).
            if instruction.touchesObject(erased: erased) { try applyCreate(c, o.primaryKey, stamp) }
            return
        }
        switch instruction {
        case .create:
            try applyCreate(c, o.primaryKey, stamp)
        case .erase:
            try applyErase(c, o.primaryKey, stamp)
            try dropKeptBefore(erase: c.name, o.primaryKey, stamp)
        case .set(_, let p, let v):
            try applySet(c, o.primaryKey, try names.column(c, classIndex: o.classIndex, property: p), v, stamp)
        case .addInteger(_, let p, let d):
            try applyAddInteger(c, o.primaryKey, try names.column(c, classIndex: o.classIndex, property: p), d, stamp)
        case .listInsert(_, let p, let after, let lamport, let v):
            let column = try names.column(c, classIndex: o.classIndex, property: p)
            try applyListInsert(c, o.primaryKey, column, after: after, id: ElementID(lamport: lamport, node: elementNode), v, stamp, erased: erased)
        case .listSet(_, let p, let e, let v):
            try applyListSet(c, o.primaryKey, try names.column(c, classIndex: o.classIndex, property: p), e, v, stamp)
        case .listErase(_, let p, let e):
            try applyListErase(c, o.primaryKey, try names.column(c, classIndex: o.classIndex, property: p), e, stamp)
        case .setAdd(_, let p, let v):
            try applySetAdd(c, o.primaryKey, try names.column(c, classIndex: o.classIndex, property: p), v, stamp)
        case .setRemove(_, let p, let v, let tags):
            try applySetRemove(c, o.primaryKey, try names.column(c, classIndex: o.classIndex, property: p), v, tags: tags)
        case .mapSet(_, let p, let key, let v):
            try applyMapWrite(c, o.primaryKey, try names.column(c, classIndex: o.classIndex, property: p), key: key, v, stamp)
        case .mapRemove(_, let p, let key):
            try applyMapWrite(c, o.primaryKey, try names.column(c, classIndex: o.classIndex, property: p), key: key, nil, stamp)
        }
    }

    // MARK: objects

    /// Brings a non-existing object into the table (defaults everywhere) and links back to it.
    private func materialize(_ c: SyncedClass, _ pk: StorageValue) throws -> ObjectKey {
        let k = try takeStaleRow(c, pk) ?? table(c).create(primaryKey: pk)
        try resolveDangling(c, pk: pk, key: k)
        return k
    }

    /// The object's row, creating it when `stamp` brings it into existence. Returns nil (and
    /// changes nothing) when the write is void: stamped before the object's tombstone.
    func prepareWrite(_ c: SyncedClass, _ pk: StorageValue, _ ok: [UInt8], _ o: inout ObjectRecord, _ stamp: Stamp) throws -> ObjectKey? {
        if let d = o.deleted, stamp < d { return nil }
        if o.exists {
            guard let k = try rowKey(c, pk) else { throw AtollError.corrupted("synced object \(pk) of '\(c.name)' is missing from its table") }
            o.noteWrite(stamp)
            return k
        }
        o.noteWrite(stamp)
        o.fields.removeAll()
        setObject(ok, o)
        return try materialize(c, pk)
    }

    func applyCreate(_ c: SyncedClass, _ pk: StorageValue, _ stamp: Stamp) throws {
        let ok = SyncTrees.objectKey(c.key, pk)
        var o = try object(ok)
        guard try prepareWrite(c, pk, ok, &o, stamp) != nil else { return }
        setObject(ok, o)
    }

    private func applyErase(_ c: SyncedClass, _ pk: StorageValue, _ stamp: Stamp) throws {
        let ok = SyncTrees.objectKey(c.key, pk)
        var o = try object(ok)
        guard o.exists else {
            o.noteDelete(stamp)
            setObject(ok, o)
            return
        }
        guard let k = try rowKey(c, pk) else { throw AtollError.corrupted("synced object \(pk) of '\(c.name)' is missing from its table") }
        if recordsConflicts { try noteEraseConflicts(c, pk, ok, o, stamp) }
        if let latest = o.latest, latest > stamp {
            try eraseBefore(c, pk, ok, k, &o, stamp)
            return
        }
        // Nothing in the object is newer than the delete: it goes. Links to it dangle.
        try noteIncomingLinksDangling(c, pk, ok, k)
        try table(c).erase(k)
        try deleteMetadata(c, objectKey: ok, stamp: stamp)
    }

    /// A delete older than some of the object's data: the object stays, with the data written
    /// after the delete and defaults elsewhere.
    private func eraseBefore(_ c: SyncedClass, _ pk: StorageValue, _ ok: [UInt8], _ k: ObjectKey, _ o: inout ObjectRecord, _ stamp: Stamp) throws {
        let t = try table(c)
        o.noteDelete(stamp)
        var kept: [ObjectRecord.Field] = []
        for f in o.fields {
            guard f.stamp <= stamp else { kept.append(f); continue }
            if let target = f.danglingTarget, let key = danglingTargetKey(c, f.column, target) {
                try removeDangling(target: key, origin: ok, column: f.column)
            }
            var value = c.defaults[f.column]
            if f.hasIncrements {
                let after = try trimIncrements(ok, column: f.column, through: stamp)
                if case .int(let base) = value { value = .int(wrap(base &+ after, bits: c.spec.columns[f.column].intBits)) }
                if try after != 0 || hasIncrements(ok, f.column) { kept.append(ObjectRecord.Field(column: f.column, stamp: .zero, hasIncrements: true)) }
            }
            try t.set(k, f.column, value)
        }
        o.fields = kept
        setObject(ok, o)
        for column in listColumns(of: c) {
            let lk = SyncTrees.listKey(ok, column: column)
            var l = try list(lk)
            var changed = false
            var i = l.elements.count - 1
            var visibleAfter = l.visibleCount
            while i >= 0 {
                let e = l.elements[i]
                if e.isVisible { visibleAfter -= 1 }
                if !e.isDeleted && e.insertStamp <= stamp {
                    if e.isVisible { try t.listRemove(k, column, at: visibleAfter) }
                    l.elements[i].remove(at: stamp.hlc)
                    changed = true
                }
                i -= 1
            }
            if changed { setList(lk, l) }
        }
        try eraseCollectionsBefore(c, ok, k, stamp)
    }

    /// Whether increments of the field are still stored. Throws when they cannot be read: "none"
    /// would drop concurrent increments from the merge (the batch rolls back instead).
    private func hasIncrements(_ ok: [UInt8], _ column: Int) throws -> Bool {
        let prefix = SyncTrees.listKey(ok, column: column)
        var any = false
        try txn.forEachInternalEntry(SyncTrees.counters, from: prefix, prefix: prefix) { _, _ in any = true; return false }
        return any
    }

    /// Before an object goes: every link to it keeps naming it in its register but shows nil
    /// (list elements are hidden); `sync.dangling` remembers them for a re-creation.
    private func noteIncomingLinksDangling(_ target: SyncedClass, _ pk: StorageValue, _ targetKey: [UInt8], _ k: ObjectKey) throws {
        let targetTable = try table(target)
        for origin in schema.classes.values.sorted(by: { $0.key < $1.key }) {
            // Link columns to the target's class, and mixed columns (typed links to any class).
            for (column, linked) in origin.linkTargets.enumerated() where linked === target || origin.spec.columns[column].type == .mixed {
                let mixed = origin.spec.columns[column].type == .mixed
                let travelling: SyncValue = mixed ? .typedLink(className: target.name, primaryKey: pk) : .link(primaryKey: pk)
                var seen = Set<ObjectKey>()
                for originKey in try targetTable.backlinks(to: k, from: origin.key, column: column) where seen.insert(originKey).inserted {
                    if origin === target && originKey == k { continue }
                    let originPK = try table(origin).primaryKeyValue(originKey)
                    let ok = SyncTrees.objectKey(origin.key, originPK)
                    if origin.spec.columns[column].isSet || origin.spec.columns[column].isMap {
                        // The record keeps the link; the table drops it (a set) or shows nil (a map).
                    } else if origin.spec.columns[column].isList {
                        let lk = SyncTrees.listKey(ok, column: column)
                        var l = try list(lk)
                        for i in l.elements.indices where l.elements[i].isVisible && l.elements[i].value == travelling {
                            l.elements[i].isHidden = true
                        }
                        setList(lk, l)
                    } else {
                        var o = try object(ok)
                        o.withField(column) { $0.danglingTarget = danglingRecordValue(travelling) }
                        setObject(ok, o)
                    }
                    try addDangling(target: targetKey, origin: ok, column: column, originPrimaryKey: originPK)
                }
            }
        }
    }

    // MARK: properties

    /// The value to store for `v` in `column`, or the primary key of a missing link target.
    func storageValue(_ c: SyncedClass, _ column: Int, _ v: SyncValue) throws -> (StorageValue, dangling: StorageValue?) {
        let spec = c.spec.columns[column]
        switch v {
        case .value(let s):
            guard spec.type != .link || s.isNull else {
                throw AtollError(.protocolViolation, "a changeset writes a non-link value into link property '\(c.name).\(spec.name)'")
            }
            return (s, nil)
        case .link(let targetPK):
            guard let tc = c.linkTargets[column] else {
                throw AtollError(.protocolViolation, "a changeset writes a link into '\(c.name).\(spec.name)', which is not a link property")
            }
            guard tc.accepts(primaryKey: targetPK) else {
                throw AtollError(.protocolViolation, "a changeset links '\(c.name).\(spec.name)' to a '\(tc.name)' by a key of the wrong type")
            }
            if let k = try rowKey(tc, targetPK) { return (.link(k), nil) }
            return (.null, targetPK)
        case .typedLink(let name, let targetPK):
            guard spec.type == .mixed else {
                throw AtollError(.protocolViolation, "a changeset writes a typed link into '\(c.name).\(spec.name)', which is not a mixed property")
            }
            let remembered = MixedLinkTarget.recordValue(className: name, primaryKey: targetPK)
            // A class this node does not sync (a newer node's): nothing here can show it.
            guard let tc = schema.byName[name] else { return (.null, remembered) }
            guard tc.accepts(primaryKey: targetPK) else {
                throw AtollError(.protocolViolation, "a changeset links '\(c.name).\(spec.name)' to a '\(tc.name)' by a key of the wrong type")
            }
            if let k = try rowKey(tc, targetPK) { return (.typedLink(tc.key, k), nil) }
            return (.null, remembered)
        }
    }

    private func applySet(_ c: SyncedClass, _ pk: StorageValue, _ column: Int, _ v: SyncValue, _ stamp: Stamp) throws {
        let spec = c.spec.columns[column]
        guard !spec.isList else { throw AtollError(.protocolViolation, "a changeset sets list '\(c.name).\(spec.name)' as a whole") }
        guard column != c.primaryKeyColumn else {
            guard v == .value(pk) else { throw AtollError(.protocolViolation, "a changeset changes the primary key of a '\(c.name)'") }
            return
        }
        let ok = SyncTrees.objectKey(c.key, pk)
        var o = try object(ok)
        if recordsConflicts { try noteSetConflicts(c, pk, ok, o, column, v, stamp) }
        if let f = o.field(column), f.stamp > stamp { return }
        guard let k = try prepareWrite(c, pk, ok, &o, stamp) else { return }
        // After prepareWrite: a link to the object itself resolves once it exists.
        var (value, dangling) = try storageValue(c, column, v)
        try o.withField(column) { f in
            if let old = f.danglingTarget, let target = danglingTargetKey(c, column, old) {
                try removeDangling(target: target, origin: ok, column: column)
            }
            f.danglingTarget = dangling
            if f.hasIncrements {
                let after = try trimIncrements(ok, column: column, through: stamp)
                if case .int(let base) = value { value = .int(wrap(base &+ after, bits: spec.intBits)) }
                f.hasIncrements = try after != 0 || hasIncrements(ok, column)
            }
            f.stamp = stamp
        }
        if let dangling, let target = danglingTargetKey(c, column, dangling) {
            try addDangling(target: target, origin: ok, column: column, originPrimaryKey: pk)
        }
        setObject(ok, o)
        try table(c).set(k, column, value)
    }

    private func applyAddInteger(_ c: SyncedClass, _ pk: StorageValue, _ column: Int, _ delta: Int64, _ stamp: Stamp) throws {
        let spec = c.spec.columns[column]
        guard spec.type == .int, !spec.isList, column != c.primaryKeyColumn else {
            throw AtollError(.protocolViolation, "a changeset increments '\(c.name).\(spec.name)', which is not an integer property")
        }
        let ok = SyncTrees.objectKey(c.key, pk)
        // Each increment has its own stamp: one already kept was applied already.
        if try txn.internalValue(SyncTrees.counters, key: SyncTrees.counterKey(ok, column: column, stamp: stamp)) != nil { return }
        var o = try object(ok)
        // An increment stamped before the value it would add to was written is void.
        if let f = o.field(column), f.stamp > stamp { return }
        guard let k = try prepareWrite(c, pk, ok, &o, stamp) else { return }
        o.withField(column) { $0.hasIncrements = true }
        setObject(ok, o)
        try addIncrement(ok, column: column, stamp: stamp, delta: delta)
        let t = try table(c)
        // Increments of nil do nothing to it (the increment is kept for a later write).
        if case .int(let current) = try t.value(k, column) {
            try t.set(k, column, .int(wrap(current &+ delta, bits: spec.intBits)))
        }
    }

    // MARK: lists

    private func listColumn(_ c: SyncedClass, _ column: Int) throws {
        let spec = c.spec.columns[column]
        guard spec.isList, !spec.isSet, !spec.isMap else {
            throw AtollError(.protocolViolation, "a changeset edits '\(c.name).\(c.spec.columns[column].name)' as a list; it is not one")
        }
    }

    private func listElementValue(_ c: SyncedClass, _ column: Int, _ v: SyncValue) throws -> (StorageValue, dangling: StorageValue?) {
        let (value, dangling) = try storageValue(c, column, v)
        if dangling == nil, c.spec.columns[column].type == .link, value.isNull {
            throw AtollError(.protocolViolation, "a changeset puts nil into list of links '\(c.name).\(c.spec.columns[column].name)'")
        }
        return (value, dangling)
    }

    /// `erased`: the element was removed already (a snapshot sends it for the structure only).
    private func applyListInsert(_ c: SyncedClass, _ pk: StorageValue, _ column: Int, after: ElementID?, id: ElementID,
                                 _ v: SyncValue, _ stamp: Stamp, erased: Bool = false) throws
    {
        try listColumn(c, column)
        if let after, after == id { throw AtollError(.protocolViolation, "a list element is inserted after itself") }
        let ok = SyncTrees.objectKey(c.key, pk)
        let lk = SyncTrees.listKey(ok, column: column)
        var o = try object(ok)
        if try listIndex(lk, of: id) != nil { return } // applied already
        if erased || o.deleted.map({ stamp < $0 }) ?? false {
            // Inserted before the object's delete, or removed already: kept only as a tombstone, for the structure
            // (inserts made after it may still arrive).
            var l = try takeList(lk)
            defer { setList(lk, l) }
            let (at, depth) = try l.insertionPoint(after: after, id: id)
            let removedHLC = o.deleted.flatMap { stamp < $0 ? $0.hlc : nil }
            l.insert(ListRecord.Element(id: id, depth: depth, insertStamp: stamp, isDeleted: true, removedHLC: removedHLC, valueStamp: stamp, value: .null), at: at)
            return
        }
        guard let k = try prepareWrite(c, pk, ok, &o, stamp) else { return }
        setObject(ok, o)
        // Taken after prepareWrite, which may have brought links back into this very list.
        var l = try takeList(lk)
        defer { setList(lk, l) }
        let (at, depth) = try l.insertionPoint(after: after, id: id)
        let (value, dangling) = try listElementValue(c, column, v)
        var e = ListRecord.Element(id: id, depth: depth, insertStamp: stamp, valueStamp: stamp, value: v)
        e.isHidden = dangling != nil
        l.insert(e, at: at)
        if let dangling {
            if let target = danglingTargetKey(c, column, dangling) {
                try addDangling(target: target, origin: ok, column: column, originPrimaryKey: pk)
            }
        } else {
            try table(c).listInsert(k, column, at: l.visibleIndex(before: at), value)
        }
    }

    private func applyListSet(_ c: SyncedClass, _ pk: StorageValue, _ column: Int, _ element: ElementID, _ v: SyncValue, _ stamp: Stamp) throws {
        try listColumn(c, column)
        let ok = SyncTrees.objectKey(c.key, pk)
        let lk = SyncTrees.listKey(ok, column: column)
        guard try listIndex(lk, of: element) != nil else {
            throw AtollError(.protocolViolation, "a changeset writes list element \(element), which this node does not have")
        }
        var o = try object(ok)
        guard let k = try prepareWrite(c, pk, ok, &o, stamp) else { return }
        setObject(ok, o)
        var l = try takeList(lk)
        defer { setList(lk, l) }
        guard let i = l.index(of: element) else { return }
        let (value, dangling) = try listElementValue(c, column, v)
        let e = l.elements[i]
        if recordsConflicts, !e.isDeleted { try noteListSetConflicts(c, pk, ok, column, e, v, stamp) }
        guard !e.isDeleted, e.valueStamp < stamp else { return }
        let t = try table(c)
        let position = l.visibleIndex(before: i)
        if e.isVisible { try t.listRemove(k, column, at: position) }
        l.elements[i].value = v
        l.elements[i].valueStamp = stamp
        l.elements[i].isHidden = dangling != nil
        if let dangling {
            if let target = danglingTargetKey(c, column, dangling) {
                try addDangling(target: target, origin: ok, column: column, originPrimaryKey: pk)
            }
        } else {
            try t.listInsert(k, column, at: position, value)
        }
    }

    private func applyListErase(_ c: SyncedClass, _ pk: StorageValue, _ column: Int, _ element: ElementID, _ stamp: Stamp) throws {
        try listColumn(c, column)
        let ok = SyncTrees.objectKey(c.key, pk)
        let lk = SyncTrees.listKey(ok, column: column)
        var l = try takeList(lk)
        defer { setList(lk, l) }
        guard let i = l.index(of: element) else {
            throw AtollError(.protocolViolation, "a changeset removes list element \(element), which this node does not have")
        }
        let e = l.elements[i]
        if e.isDeleted {
            // Removed already: the earliest removal's reading is kept.
            guard let known = e.removedHLC, stamp.hlc < known else { return }
            l.elements[i].remove(at: stamp.hlc)
            return
        }
        if e.isVisible {
            guard let k = try rowKey(c, pk) else { throw AtollError.corrupted("synced object \(pk) of '\(c.name)' is missing from its table") }
            try table(c).listRemove(k, column, at: l.visibleIndex(before: i))
        }
        l.elements[i].remove(at: stamp.hlc)
    }
}

/// `v` reduced to a `bits`-wide two's-complement integer (increments wrap, so that they commute).
func wrap(_ v: Int64, bits: UInt8) -> Int64 {
    guard bits < 64 else { return v }
    let shift = Int64(64 - Int(bits))
    return (v << shift) >> shift
}
