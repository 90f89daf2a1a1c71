import AtollStorage

// Bootstrap: when sync starts on a file that already holds data, that data becomes changesets
// too (as if every object had just been created with its current values), so that other nodes
// receive it. Objects go in class-name and key order; a changeset closes once it reaches a third
// of the body limit.

extension SyncWriter {
    /// Makes changesets of every object of `classes` (nil: every synced class). Returns how many.
    @discardableResult
    func bootstrapExistingData(of only: [SyncedClass]? = nil) throws -> Int {
        let classes = only ?? Array(schema.classes.values)
        var made = 0
        var stamp = Stamp(hlc: clock.tick(physicalMilliseconds: physicalMilliseconds()), node: nodeID)
        // Set and map instructions exist from body format 4, typed links (in mixed values) from
        // format 5, both with seen stamps (none here).
        let collections = classes.contains { c in !collectionColumns(of: c).isEmpty || c.spec.columns.contains { $0.type == .mixed } }
            || !schema.embedded.isEmpty
        var encoder = ChangesetBodyEncoder(origin: nodeID, seenStamps: collections)
        func append(_ i: SyncInstruction) {
            if collections { encoder.append(i, seen: nil) } else { encoder.append(i) }
        }

        func finishChangeset() throws {
            guard !encoder.isEmpty else { return }
            try storeOutgoing(Changeset(origin: nodeID, seq: state.ownSeq + 1, hlc: stamp.hlc, body: encoder.finish()))
            made += 1
            encoder = ChangesetBodyEncoder(origin: nodeID, seenStamps: collections)
            stamp = Stamp(hlc: clock.tick(physicalMilliseconds: physicalMilliseconds()), node: nodeID)
        }

        for c in classes.sorted(by: { $0.name < $1.name }) {
            let t = try table(c)
            for k in try t.objectKeys() {
                let pk = try t.primaryKeyValue(k)
                let ok = SyncTrees.objectKey(c.key, pk)
                let address = ObjectAddress(classIndex: encoder.classIndex(c.name), primaryKey: pk)
                var o = ObjectRecord()
                o.latest = stamp.at(encoder.instructionCount)
                append(.create(address))
                for (column, spec) in c.spec.columns.enumerated() where column != c.primaryKeyColumn && !c.isEmbedded(column) {
                    let property = encoder.propertyIndex(spec.name)
                    if spec.isSet {
                        let ck = SyncTrees.listKey(ok, column: column)
                        var set = SetRecord()
                        for v in try t.listValues(k, column) {
                            let value = try bootstrapValue(c, column, v)
                            let s = stamp.at(encoder.instructionCount)
                            _ = set.add(value, tag: s)
                            o.noteWrite(s)
                            append(.setAdd(address, property: property, value: value))
                        }
                        if !set.values.isEmpty { putSetRecord(ck, set) }
                    } else if spec.isMap {
                        let ck = SyncTrees.listKey(ok, column: column)
                        var map = MapRecord()
                        for e in try t.mapEntries(k, column) {
                            let value = try bootstrapValue(c, column, e.value)
                            let s = stamp.at(encoder.instructionCount)
                            map.entries[e.key] = MapRecord.Entry(stamp: s, value: value)
                            o.noteWrite(s)
                            append(.mapSet(address, property: property, key: e.key, value: value))
                        }
                        if !map.entries.isEmpty { putMapRecord(ck, map) }
                    } else if spec.isList {
                        let lk = SyncTrees.listKey(ok, column: column)
                        var l = ListRecord()
                        var parent: ElementID?
                        for v in try t.listValues(k, column) {
                            let value = try bootstrapValue(c, column, v)
                            let id = try newElementID(after: l.maxLamport, list: "'\(c.name).\(spec.name)'")
                            let (at, depth) = try l.insertionPoint(after: parent, id: id)
                            let s = stamp.at(encoder.instructionCount)
                            l.insert(ListRecord.Element(id: id, depth: depth, insertStamp: s, valueStamp: s, value: value), at: at)
                            o.noteWrite(s)
                            append(.listInsert(address, property: property, after: parent, lamport: id.lamport, value: value))
                            parent = id
                        }
                        if !l.elements.isEmpty { setList(lk, l) }
                    } else {
                        let value = try bootstrapValue(c, column, try t.value(k, column))
                        let s = stamp.at(encoder.instructionCount)
                        o.fields.append(ObjectRecord.Field(column: column, stamp: s))
                        o.noteWrite(s)
                        append(.set(address, property: property, value: value))
                    }
                }
                setObject(ok, o)
                try extractEmbedded(c, pk, k, &encoder, base: stamp)
                if encoder.instructionBytes >= SyncLimits.changesetBodyBytesMax / 3 || encoder.instructionCount >= SyncLimits.changesetInstructionsMax {
                    try finishChangeset()
                }
            }
        }
        try finishChangeset()
        return made
    }

    private func bootstrapValue(_ c: SyncedClass, _ column: Int, _ v: StorageValue) throws -> SyncValue {
        try travelling(v, c, column)
    }
}
