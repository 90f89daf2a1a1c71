import AtollStorage

// Instructions this node's schema cannot hold: nodes on a newer schema write classes and
// properties an older node does not have (docs/SYNC.md, "Schema changes").
//
// Such an instruction is applied to what the node has (a write of an unknown property of a known
// class still makes or keeps its object, as it does on the nodes that have the property) and
// kept, whole, in the node's own file:
//
//   sync.unknown    u64 BE hlc ++ 16-byte node ++ u32 BE index   (the instruction's stamp)
//                                                    -> a changeset body of format 2 (with
//                                                       stamps) holding that one instruction
//
// When the node's schema later gains the class or property (a migration, then
// SyncReplica.open), the kept instructions it now has are applied in stamp order through the
// ordinary merge, which is commutative: the node ends where it would be had it had the schema
// all along, and sees the values newer nodes wrote before it upgraded. Keeping them locally
// (rather than downloading the realm's history again after an upgrade) needs nothing from the
// relay, works when the relay has trimmed its log, and costs the older node only the bytes of
// what it cannot show.

extension SyncWriter {
    /// Keeps an instruction naming a class or property the schema does not have.
    func keepUnknown(_ i: SyncInstruction, _ names: Names, stamp: Stamp, elementNode: NodeID, erased: Bool) throws {
        let className = names.classNames[i.object.classIndex]
        let kind = KeptKind(i)
        // Void: stamped before the delete of an object of a class the node has.
        if kind != .list, let c = schema.byName[className], let d = try object(SyncTrees.objectKey(c.key, i.object.primaryKey)).deleted, stamp < d {
            return
        }
        // Void: a newer write or delete is kept (SyncWriter+UnknownCompaction.swift).
        guard try compactKept(className, i.object.primaryKey, i.property.map { names.properties[$0] } ?? "", kind, stamp) else { return }
        try txn.putInternal(SyncTrees.unknownObjects, key: Self.keptIndexKey(i, names, stamp), value: [1])
        var encoder = ChangesetBodyEncoder(origin: .zero, explicitStamps: true)
        let classIndex = encoder.classIndex(names.classNames[i.object.classIndex])
        let property = i.property.map { encoder.propertyIndex(names.properties[$0]) }
        encoder.append(i.readdressed(classIndex: classIndex, property: property), stamp: stamp, elementNode: elementNode, elementErased: erased)
        try txn.putInternal(SyncTrees.unknown, key: SyncTrees.unknownKey(stamp), value: encoder.finish())
    }

    /// Applies the kept instructions the schema now has, in stamp order, and forgets them.
    /// Returns how many.
    @discardableResult
    func applyKeptInstructions() throws -> Int {
        var kept: [([UInt8], [UInt8])] = []
        try txn.forEachInternalEntry(SyncTrees.unknown, from: []) { k, v in
            kept.append((Array(k), Array(v)))
            return true
        }
        var applied = 0
        for (key, body) in kept {
            let indexKey = try body.withUnsafeBytes { buffer throws -> [UInt8]? in
                var decoder = try ChangesetBodyDecoder(buffer, origin: .zero, snapshot: true)
                var names = Names(decoder, schema)
                guard let i = try decoder.next() else { throw AtollError.corrupted("sync.unknown holds an empty instruction") }
                if let ec = schema.embedded[names.classNames[i.object.classIndex]] {
                    guard try knowsEmbedded(i, ec, names) else { return nil }
                } else {
                    guard let c = names.classes[i.object.classIndex] else { return nil }
                    if let p = i.property, !names.knows(c, classIndex: i.object.classIndex, property: p) { return nil }
                }
                try apply(i, stamp: decoder.stamp, elementNode: decoder.elementNode ?? decoder.stamp.node, erased: decoder.elementErased, &names)
                return Self.keptIndexKey(i, names, decoder.stamp)
            }
            if let indexKey {
                try txn.deleteInternal(SyncTrees.unknown, key: key)
                try txn.deleteInternal(SyncTrees.unknownObjects, key: indexKey)
                applied += 1
            }
        }
        if applied > 0 { try projectTouchedEmbedded() }
        return applied
    }

    /// Whether the schema has every property of an instruction on an embedded object: those of
    /// its path and the one it writes.
    private func knowsEmbedded(_ i: SyncInstruction, _ ec: SyncedEmbeddedClass, _ names: Names) throws -> Bool {
        guard case .string(let s) = i.object.primaryKey else { return true }
        let path = try EmbeddedPath(parsing: s)
        guard let c = schema.byName[path.parentClass] else { return false }
        do {
            guard try resolveEmbeddedSteps(path, c, s) != nil else { return false }
        } catch {
            // Not an embedded object here: apply says why.
            return true
        }
        if let p = i.property, ec.columnsByName[names.properties[p]] == nil { return false }
        return true
    }

    /// After a schema change (and the upload of classes joining with objects,
    /// SyncWriter+Joining.swift): every object of every synced class has a sync record that says
    /// it exists. An object without one is of a class that synced before, stopped and syncs
    /// again, made while it did not sync: it cannot be told apart from a synced one. O(objects).
    func checkEveryObjectHasSyncRecord() throws {
        for c in schema.classes.values.sorted(by: { $0.name < $1.name }) {
            let t = try table(c)
            var missing = 0
            for k in try t.objectKeys() {
                let pk = try t.primaryKeyValue(k)
                if try !object(SyncTrees.objectKey(c.key, pk)).exists { missing += 1 }
            }
            guard missing == 0 else {
                throw AtollError(.schemaMismatch,
                    "class '\(c.name)' syncs again after a time it did not, and \(missing) of its objects were made in this file meanwhile and never synced; a class that synced before cannot take objects made while it did not sync: copy them into a new class in the migration, or leave the class out of the synced classes")
            }
        }
    }

    /// Instructions kept for classes or properties this node's schema does not have.
    func keptInstructionCount() throws -> Int {
        var n = 0
        try txn.forEachInternalEntry(SyncTrees.unknown, from: []) { _, _ in
            n += 1
            return true
        }
        return n
    }
}

extension SyncTrees {
    static let unknown = "sync.unknown"

    static func unknownKey(_ stamp: Stamp) -> [UInt8] {
        var w = ByteWriter(capacity: 28)
        w.u64BigEndian(stamp.hlc)
        w.append(stamp.node.bytes)
        w.u32BigEndian(stamp.index)
        return w.bytes
    }
}

extension SyncInstruction {
    /// The property the instruction names (nil: create, erase).
    var property: Int? {
        switch self {
        case .create, .erase: nil
        case .set(_, let p, _), .addInteger(_, let p, _), .listInsert(_, let p, _, _, _), .listSet(_, let p, _, _), .listErase(_, let p, _),
             .setAdd(_, let p, _), .setRemove(_, let p, _, _), .mapSet(_, let p, _, _), .mapRemove(_, let p, _): p
        }
    }

    /// Whether applying it brings the object into existence or keeps it (every write but a
    /// list, set or map removal, and the insert of an element removed already).
    func touchesObject(erased: Bool) -> Bool {
        switch self {
        case .listErase, .erase, .setRemove, .mapRemove: false
        case .listInsert: !erased
        case .create, .set, .addInteger, .listSet, .setAdd, .mapSet: true
        }
    }

    /// The same instruction with other name-table indexes.
    func readdressed(classIndex: Int, property q: Int?) -> SyncInstruction {
        let o = ObjectAddress(classIndex: classIndex, primaryKey: object.primaryKey)
        let p = q ?? 0
        switch self {
        case .create: return .create(o)
        case .erase: return .erase(o)
        case .set(_, _, let v): return .set(o, property: p, value: v)
        case .addInteger(_, _, let d): return .addInteger(o, property: p, delta: d)
        case .listInsert(_, _, let after, let lamport, let v): return .listInsert(o, property: p, after: after, lamport: lamport, value: v)
        case .listSet(_, _, let e, let v): return .listSet(o, property: p, element: e, value: v)
        case .listErase(_, _, let e): return .listErase(o, property: p, element: e)
        case .setAdd(_, _, let v): return .setAdd(o, property: p, value: v)
        case .setRemove(_, _, let v, let tags): return .setRemove(o, property: p, value: v, tags: tags)
        case .mapSet(_, _, let key, let v): return .mapSet(o, property: p, key: key, value: v)
        case .mapRemove(_, _, let key): return .mapRemove(o, property: p, key: key)
        }
    }
}
