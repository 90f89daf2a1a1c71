import AtollStorage

// Lists of embedded objects (docs/SYNC.md, "Embedded objects"; EmbeddedRecord.swift has the
// keys and the path form).
//
// - The list is an RGA sequence like any list (ListRecord.swift), kept in `sync.embedded` under
//   its holder's key; its elements' values are nil: each element is an embedded object whose
//   record follows the list's key (the path step is the list's column and the element's id).
//   On the wire an element is created by a `listInsert` of nil on its holder (the parent, or an
//   embedded object by its path) and its fields are `set`s on the element's path; concurrent
//   inserts are all kept, in the same order everywhere.
// - An element's fields are last-writer-wins registers, as an embedded to-one object's are.
// - A removal is final: a removed element never comes back, and every write inside it is void
//   whatever its stamp (a write made without having seen the removal cannot be after it; the
//   removal wins, as it does over a concurrent write of a list element's value). An element
//   inserted before a delete of its holder (the parent, or an ancestor replaced or removed) is
//   removed by it, as elements of a deleted object's list are.
// - A write inside an element is a write of the holder, its ancestors and the parent (it keeps
//   or brings them back), as for to-one embedded objects. So is an insert.
// - Local changes are found by comparing the table's list with the record: the rows the record
//   knows, in their longest run in the same order, are kept; the others are removed (their
//   elements) or new (inserted after the element before them). A move is a removal and an
//   insert of a new element, as it is for lists of values; the moved object's fields go with it.

extension SyncWriter {
    func embeddedList(_ key: [UInt8]) throws -> ListRecord {
        try txn.internalValue(SyncTrees.embedded, key: key).map { bytes in
            try bytes.withUnsafeBytes { try ListRecord.decode($0, state.nodes) }
        } ?? ListRecord()
    }

    func putEmbeddedList(_ key: [UInt8], _ l: ListRecord) throws {
        try txn.putInternal(SyncTrees.embedded, key: key, value: l.encode(&state.nodes))
    }

    /// The greatest delete of the holder at `steps` (none: the parent) and above it.
    func embeddedHolderTombstone(_ ok: [UInt8], _ steps: [EmbeddedStep]) throws -> Stamp? {
        guard !steps.isEmpty else { return try object(ok).deleted }
        return Self.later(try inheritedTombstone(ok, steps), try embeddedRecord(SyncTrees.embeddedKey(ok, steps)).deleted)
    }

    /// Whether the embedded object at `steps` is, or is inside, an element of a list of embedded
    /// objects that is removed (by a list erase, or by a delete of its holder stamped after its
    /// insert). An element this node does not have yet (a snapshot sends objects in key order,
    /// so an element's fields may come before its insert) is not removed.
    func embeddedElementRemoved(_ ok: [UInt8], _ steps: [EmbeddedStep]) throws -> Bool {
        guard steps.contains(where: \.isElement) else { return false }
        var tombstone = try object(ok).deleted
        for (n, step) in steps.enumerated() {
            if case .element(let column, let id) = step {
                var l = try embeddedList(SyncTrees.embeddedListKey(ok, Array(steps[0..<n]), column: column))
                if let i = l.index(of: id) {
                    let e = l.elements[i]
                    if e.isDeleted || tombstone.map({ e.insertStamp <= $0 }) ?? false { return true }
                }
            }
            tombstone = Self.later(tombstone, try embeddedRecord(SyncTrees.embeddedKey(ok, Array(steps[0...n]))).deleted)
        }
        return false
    }

    /// Deletes the records of the embedded object at `key` and of everything below it.
    func deleteEmbeddedRecords(under key: [UInt8]) throws {
        var doomed: [[UInt8]] = []
        try txn.forEachInternalEntry(SyncTrees.embedded, from: key, prefix: key) { k, _ in
            doomed.append(Array(k))
            return true
        }
        for k in doomed { try txn.deleteInternal(SyncTrees.embedded, key: k) }
    }

    // MARK: apply

    /// Applies a remote list instruction on list of embedded objects `column` (of class `ec`) of
    /// `holder`: the parent (no steps) or an embedded object.
    func applyToEmbeddedList(_ instruction: SyncInstruction, _ ec: SyncedEmbeddedClass,
                             holder: (c: SyncedClass, pk: StorageValue, ok: [UInt8], steps: [EmbeddedStep]), column: Int,
                             stamp: Stamp, elementNode: NodeID, erased: Bool, _ names: SyncWriter.Names) throws
    {
        let lk = SyncTrees.embeddedListKey(holder.ok, holder.steps, column: column)
        switch instruction {
        case .listInsert(_, _, let after, let lamport, let v):
            guard v == .value(.null) || erased else {
                throw AtollError(.protocolViolation, "a changeset inserts a value into a list of embedded '\(ec.name)' objects (its elements are written by their path)")
            }
            let id = ElementID(lamport: lamport, node: elementNode)
            if let after, after == id { throw AtollError(.protocolViolation, "a list element is inserted after itself") }
            var l = try embeddedList(lk)
            if l.index(of: id) != nil { return } // applied already
            // Inserted before a delete of its holder (or removed already, in a snapshot): kept
            // only as a tombstone, for the structure.
            let tombstone = try embeddedHolderTombstone(holder.ok, holder.steps)
            let removedByHolder = tombstone.map { stamp <= $0 } ?? false
            let (at, depth) = try l.insertionPoint(after: after, id: id)
            var element = ListRecord.Element(id: id, depth: depth, insertStamp: stamp, isDeleted: erased, valueStamp: stamp, value: .value(.null))
            // Removed in a snapshot: the reading is not known. By the holder's delete: its.
            if removedByHolder, let tombstone { element.remove(at: erased ? nil : tombstone.hlc) }
            l.insert(element, at: at)
            try putEmbeddedList(lk, l)
            if element.removedHLC != nil { try noteListWithRemovals(lk, in: SyncTrees.embeddedListsWithRemovals) }
            guard !erased else { return }
            // A write of the holder, its ancestors and the parent.
            if !holder.steps.isEmpty, try !embeddedElementRemoved(holder.ok, holder.steps) {
                let hk = SyncTrees.embeddedKey(holder.ok, holder.steps)
                var hr = try embeddedRecord(hk)
                hr.noteWrite(stamp)
                try putEmbeddedRecord(hk, hr)
                try noteAncestorsWrite(holder.ok, holder.steps, stamp)
            }
            try applyCreate(holder.c, holder.pk, stamp)
        case .listErase(_, _, let id):
            var l = try embeddedList(lk)
            guard let i = l.index(of: id) else {
                throw AtollError(.protocolViolation, "a changeset removes list element \(id), which this node does not have")
            }
            guard !l.elements[i].isDeleted else { return }
            l.elements[i].remove(at: stamp.hlc)
            try putEmbeddedList(lk, l)
            try noteListWithRemovals(lk, in: SyncTrees.embeddedListsWithRemovals)
            try deleteEmbeddedRecords(under: SyncTrees.embeddedKey(holder.ok, holder.steps + [.element(column, id)]))
        default:
            throw AtollError(.protocolViolation, "a changeset writes an element of a list of embedded '\(ec.name)' objects as a value (its fields are written by their path)")
        }
    }

    // MARK: prune and projection

    /// Removes the elements of list `column` (of the holder at `steps`, whose greatest delete is
    /// `holderTombstone`) inserted before that delete, drops the records of removed elements, and
    /// prunes what the others hold.
    func pruneEmbeddedList(_ ok: [UInt8], _ column: Int, _ ec: SyncedEmbeddedClass, _ steps: [EmbeddedStep], _ holderTombstone: Stamp?) throws {
        let lk = SyncTrees.embeddedListKey(ok, steps, column: column)
        var l = try embeddedList(lk)
        guard !l.elements.isEmpty else { return }
        var changed = false
        for i in l.elements.indices where !l.elements[i].isDeleted && holderTombstone.map({ l.elements[i].insertStamp <= $0 }) ?? false {
            l.elements[i].remove(at: holderTombstone?.hlc)
            changed = true
        }
        if changed {
            try putEmbeddedList(lk, l)
            try noteListWithRemovals(lk, in: SyncTrees.embeddedListsWithRemovals)
        }
        // Records of removed elements (and of what they held).
        var doomed: [[UInt8]] = []
        try txn.forEachInternalEntry(SyncTrees.embedded, from: lk, prefix: lk) { k, _ in
            guard k.count >= lk.count + 24 else { return true }
            let key = Array(k)
            guard case .element(_, let id)? = try EmbeddedStep.parse(Array(key[0..<(lk.count + 24)]), from: lk.count - 2).steps.last else {
                throw AtollError.corrupted("sync.embedded key of \(k.count) bytes under a list of embedded objects")
            }
            if let i = l.index(of: id), l.elements[i].isDeleted { doomed.append(key) }
            return true
        }
        for k in doomed { try txn.deleteInternal(SyncTrees.embedded, key: k) }
        for e in l.elements where !e.isDeleted {
            let path = steps + [.element(column, e.id)]
            let key = SyncTrees.embeddedKey(ok, path)
            var r = try embeddedRecord(key)
            let tombstone = Self.later(holderTombstone, r.deleted)
            let before = r
            r.fields.removeAll { f in tombstone.map { f.stamp <= $0 } ?? false }
            if r != before { try putEmbeddedRecord(key, r) }
            try pruneEmbeddedChildren(ok, ec.embeddedColumns, ec.embeddedLists, ec.embeddedMaps, path, tombstone)
        }
    }

    /// Makes list `column` of row `row` of `t` (the holder at `steps`) show the list's live
    /// elements, in order, with their records' values. Rows already shown are kept (moved into
    /// place when needed); the others are removed, and new rows made for elements without one.
    func projectEmbeddedList(_ ok: [UInt8], _ t: Table, _ row: ObjectKey, _ column: Int, _ ec: SyncedEmbeddedClass,
                             _ steps: [EmbeddedStep], _ holderTombstone: Stamp?) throws
    {
        let l = try embeddedList(SyncTrees.embeddedListKey(ok, steps, column: column))
        var current: [ObjectKey] = []
        for v in try t.listValues(row, column) {
            guard case .link(let k) = v else { throw AtollError.corrupted("list of embedded objects '\(t.spec.name).\(t.spec.columns[column].name)' holds \(v)") }
            current.append(k)
        }
        var desired: [(path: [EmbeddedStep], key: [UInt8], record: EmbeddedRecord)] = []
        for e in l.elements where !e.isDeleted && (holderTombstone.map { e.insertStamp > $0 } ?? true) {
            let path = steps + [.element(column, e.id)]
            let key = SyncTrees.embeddedKey(ok, path)
            desired.append((path, key, try embeddedRecord(key)))
        }
        let wanted = Set(desired.compactMap(\.record.row)).intersection(current)
        for i in current.indices.reversed() where !wanted.contains(current[i]) {
            try t.listRemove(row, column, at: i)
            current.remove(at: i)
        }
        let et = try txn.table(ec.key)
        for (i, d) in desired.enumerated() {
            var r = d.record
            let target: ObjectKey
            if let shown = r.row, wanted.contains(shown), let j = current.firstIndex(of: shown), j >= i {
                if j != i {
                    try t.listMove(row, column, from: j, to: i)
                    current.insert(current.remove(at: j), at: i)
                }
                target = shown
            } else {
                target = try et.create()
                try t.listInsert(row, column, at: i, .link(target))
                current.insert(target, at: i)
            }
            let tombstone = Self.later(holderTombstone, r.deleted)
            try projectEmbeddedFields(ec, et, target, r, tombstone)
            if r.row != target {
                r.row = target
                try putEmbeddedRecord(d.key, r)
            }
            try projectEmbeddedChildren(ok, et, target, ec.embeddedColumns, ec.embeddedLists, ec.embeddedMaps, d.path, tombstone)
        }
        // Rows left over (only when two records named one row, which a sound file never has).
        while current.count > desired.count {
            try t.listRemove(row, column, at: current.count - 1)
            current.removeLast()
        }
    }

    // MARK: extraction

    /// The wire address of the holder of a list or map of embedded objects: the parent by its
    /// primary key (`steps` empty), or the embedded object of table `t` by its path `names`.
    static func embeddedHolderAddress(_ x: EmbeddedExtraction, _ t: Table, _ steps: [EmbeddedStep], _ names: [String],
                                      _ encoder: inout ChangesetBodyEncoder) -> ObjectAddress
    {
        if steps.isEmpty { return ObjectAddress(classIndex: encoder.classIndex(x.c.name), primaryKey: x.pk) }
        return ObjectAddress(classIndex: encoder.classIndex(t.spec.name),
                             primaryKey: .string(EmbeddedPath(parentClass: x.c.name, parentPrimaryKey: x.pk, properties: names).string))
    }

    /// Compares list of embedded objects `column` of row `row` of `t` (the holder at `steps`,
    /// named `names` on the wire; none: the parent) with its record and appends the list edits
    /// and the writes inside its elements, updating the records as if they had been applied.
    func extractEmbeddedList(_ x: EmbeddedExtraction, _ t: Table, _ row: ObjectKey, _ column: Int, _ ec: SyncedEmbeddedClass,
                             _ steps: [EmbeddedStep], _ names: [String], _ holderTombstone: Stamp?,
                             _ encoder: inout ChangesetBodyEncoder) throws
    {
        let lk = SyncTrees.embeddedListKey(x.ok, steps, column: column)
        var l = try embeddedList(lk)
        let listName = t.spec.columns[column].name
        let holderAddress = Self.embeddedHolderAddress(x, t, steps, names, &encoder)
        var changed = false
        func remove(_ i: Int, at hlc: UInt64?) throws {
            l.elements[i].remove(at: hlc)
            changed = true
            try deleteEmbeddedRecords(under: SyncTrees.embeddedKey(x.ok, steps + [.element(column, l.elements[i].id)]))
        }
        // Elements inserted before a delete of the holder are gone with it (every node removes
        // them so: no instruction).
        for i in l.elements.indices where !l.elements[i].isDeleted && holderTombstone.map({ l.elements[i].insertStamp <= $0 }) ?? false {
            try remove(i, at: holderTombstone?.hlc)
        }
        var current: [ObjectKey] = []
        for v in try t.listValues(row, column) {
            guard case .link(let k) = v else { throw AtollError.corrupted("list of embedded objects '\(t.spec.name).\(listName)' holds \(v)") }
            current.append(k)
        }
        var position: [ObjectKey: Int] = [:]
        for (p, k) in current.enumerated() { position[k] = p }
        // The live elements with their rows' positions in the table's list (nil: not there).
        var live: [(index: Int, at: Int?)] = []
        for i in l.elements.indices where !l.elements[i].isDeleted {
            let r = try embeddedRecord(SyncTrees.embeddedKey(x.ok, steps + [.element(column, l.elements[i].id)]))
            live.append((i, r.row.flatMap { position[$0] }))
        }
        // Kept: the longest run of them in the same order in both (a longest increasing
        // subsequence of their positions; rows are unique, so it is a longest common one).
        let placed = live.filter { $0.at != nil }
        var keptAt: [Int: ElementID] = [:] // table position -> element (document indexes move with inserts)
        for k in LongestIncreasing.indexes(placed.map { $0.at ?? 0 }) { keptAt[placed[k].at ?? 0] = l.elements[placed[k].index].id }
        let property = encoder.propertyIndex(listName)
        for e in live where e.at.map({ keptAt[$0] == nil }) ?? true {
            let s = x.base.at(encoder.instructionCount)
            encoder.append(.listErase(holderAddress, property: property, element: l.elements[e.index].id))
            try remove(e.index, at: s.hlc)
        }
        var previous: ElementID?
        for (p, k) in current.enumerated() {
            let id: ElementID
            var r: EmbeddedRecord
            if let kept = keptAt[p] {
                id = kept
                r = try embeddedRecord(SyncTrees.embeddedKey(x.ok, steps + [.element(column, id)]))
            } else {
                let s = x.base.at(encoder.instructionCount)
                id = try newElementID(after: l.maxLamport, list: "'\(t.spec.name).\(listName)'")
                let (at, depth) = try l.insertionPoint(after: previous, id: id)
                l.insert(ListRecord.Element(id: id, depth: depth, insertStamp: s, valueStamp: s, value: .value(.null)), at: at)
                changed = true
                encoder.append(.listInsert(holderAddress, property: property, after: previous, lamport: id.lamport, value: .value(.null)))
                // A write of the holder, its ancestors and the parent.
                x.parentWrite = Self.later(x.parentWrite, s)
                if !steps.isEmpty {
                    let hk = SyncTrees.embeddedKey(x.ok, steps)
                    var hr = try embeddedRecord(hk)
                    hr.noteWrite(s)
                    try putEmbeddedRecord(hk, hr)
                    try noteAncestorsWrite(x.ok, steps, s)
                }
                r = EmbeddedRecord()
            }
            previous = id
            let path = steps + [.element(column, id)]
            let pathNames = names + [listName, EmbeddedPath.elementPart(id)]
            let address = embeddedAddress(x, ec, pathNames, &encoder)
            let tombstone = Self.later(holderTombstone, r.deleted)
            r.row = k
            try extractEmbeddedFields(x, ec, k, &r, path, address, tombstone, &encoder)
            try putEmbeddedRecord(SyncTrees.embeddedKey(x.ok, path), r)
            try extractEmbeddedChildren(x, try txn.table(ec.key), k, ec.embeddedColumns, ec.embeddedLists, ec.embeddedMaps, path, pathNames, tombstone, &encoder)
        }
        if changed {
            try putEmbeddedList(lk, l)
            if l.hasRemovalsToCollect { try noteListWithRemovals(lk, in: SyncTrees.embeddedListsWithRemovals) }
        }
    }
}
