import AtollStorage

// Garbage collection by acknowledgement (docs/SYNC.md, "The stability point"). The relay sends
// a realm's stability point P, a clock reading: every changeset stamped below P that any peer it
// counts will ever upload is in its log at or before a position this node has applied. So no
// changeset stamped below P can still arrive here, and every later one is stamped at or above P.
// Metadata kept only to decide against such changesets goes:
//
// - An object deleted below P and not written since (its tombstone is the newest thing it has):
//   its record, its lists' element structure, its sets' and maps' records, its counters and its
//   embedded objects' records, and the instructions for it kept for properties this node's
//   schema lacks (`sync.unknown`: a write of such a property notes the object written, so every
//   one kept for a dead object is stamped before its tombstone and void; applied after an
//   upgrade without the tombstone, it would bring the object back). A write that could be voided
//   by the tombstone would be stamped below it, so below P: none can come. A later write brings
//   the object back with only what it writes, which is what the tombstone would have left too.
// - An increment stamped below P: it is kept only while a write of the field stamped before it
//   may still arrive (to add it back on top), and every write still to come is stamped after it.
//
// - A removed set tag stamped below P (`SetRecord`): it is remembered only so that its add, if
//   it arrives after the removal, stays removed and does not bring its object back; an add is
//   tagged with its own stamp, and none stamped below P can still come. A value left with no
//   tag goes, and a set left with no value.
// - A removed key of a map of values stamped below P (`MapRecord`): it is remembered only to
//   win over a write of the key stamped before it, and none can still come; every write still
//   to come wins over it anyway. A map left with no key goes. (Maps of embedded objects keep
//   their removed keys: a write inside a removed key is kept for an object that a write of the
//   key stamped between the two may still bring.)
//
// Nothing is collected while the node holds received parts of a transaction (or chunks of a
// snapshot) it has not applied yet (`sync.staged`): the download position passes them when they
// are staged, but their instructions, which may be stamped below P, are merged only with the
// last part. The point waits for the next collection.
//
// - A removed element of a list whose earliest removal (or delete of its object) is stamped
//   below the deletion point, when it is a leaf of the list's tree or a link of a removed chain
//   (`ListTree.collect`), with the deletion point's argument (docs/SYNC.md): every changeset
//   still to come was made by a node that had merged the removal, where the element was not
//   visible, so none names it (an insert follows a visible element, an element write or removal
//   names a visible one); a leaf decides nothing of the order of the others, and the children
//   a link placed take its place under its parent, which nothing still to come names either.
//   Elements whose removal reading is not known (removed in a relay's snapshot, or before the
//   reading was kept) stay. Lists of embedded objects are collected the same way, with the
//   records left under a dropped element: every write inside an element names it by its path,
//   so none still to come names a removed one either.

/// What one garbage collection dropped.
public struct GarbageCollection: Equatable, Sendable {
    /// Records of deleted objects dropped (with their lists, sets, maps, counters and embedded
    /// objects).
    public var objects = 0
    /// Increments folded into their field's value.
    public var increments = 0
    /// Other metadata entries dropped with those objects (lists, sets and maps, embedded objects).
    public var entries = 0
    /// Removed set tags dropped (of any object).
    public var removedTags = 0
    /// Removed map keys dropped (of any object).
    public var removedMapKeys = 0
    /// Removed list elements dropped (of live objects; those of deleted objects count in
    /// `entries`, with their list).
    public var removedElements = 0

    /// Adds what another collection dropped (totals over collections).
    public static func += (total: inout GarbageCollection, other: GarbageCollection) {
        total.objects += other.objects
        total.increments += other.increments
        total.entries += other.entries
        total.removedTags += other.removedTags
        total.removedMapKeys += other.removedMapKeys
        total.removedElements += other.removedElements
    }
}

extension SyncWriter {
    /// Drops the metadata that no changeset still to come can need, given the stability point
    /// `point` (see the top of this file). (The clock needs no moving: this node's floor, which
    /// the point is at most, is at most its clock + 1.) Returns nil,
    /// changing nothing, while received parts or chunks wait in `sync.staged`.
    func collectGarbage(below point: UInt64, deletedBelow deletion: UInt64) throws -> GarbageCollection? {
        var staged = false
        try txn.forEachInternalEntry(SyncTrees.staged, from: []) { _, _ in
            staged = true
            return false
        }
        guard !staged else { return nil }
        try flushRecords()
        var result = GarbageCollection()
        var dead: [[UInt8]] = []
        let nodes = state.nodes
        try txn.forEachInternalEntry(SyncTrees.objects, from: []) { k, v in
            let o = try ObjectRecord.decode(v, nodes)
            if let d = o.deleted, d.hlc < deletion, !o.exists { dead.append(Array(k)) }
            return true
        }
        for ok in dead {
            try txn.deleteInternal(SyncTrees.objects, key: ok)
            result.objects += 1
            for tree in [SyncTrees.lists, SyncTrees.listsWithRemovals, SyncTrees.collections, SyncTrees.counters] {
                result.entries += try deleteEntries(tree, prefix: ok)
            }
            result.entries += try deleteEntries(SyncTrees.embedded, prefix: [UInt8(truncatingIfNeeded: ok.count)] + ok)
        }
        if !dead.isEmpty {
            let doomed = Set(dead.map(RecordKey.init))
            var void: [[UInt8]] = []
            let schema = self.schema
            try txn.forEachInternalEntry(SyncTrees.unknown, from: []) { k, v in
                var decoder = try ChangesetBodyDecoder(v, origin: .zero, snapshot: true)
                let names = Names(decoder, schema)
                guard let i = try decoder.next() else { throw AtollError.corrupted("sync.unknown holds an empty instruction") }
                if let c = names.classes[i.object.classIndex], doomed.contains(RecordKey(SyncTrees.objectKey(c.key, i.object.primaryKey))) {
                    void.append(Array(k))
                }
                return true
            }
            for k in void { try txn.deleteInternal(SyncTrees.unknown, key: k) }
            result.entries += void.count
        }
        // Increments: the key ends with u64 BE hlc ++ 16-byte node ++ u32 BE index.
        var folded: [[UInt8]] = []
        try txn.forEachInternalEntry(SyncTrees.counters, from: []) { k, _ in
            guard k.count >= 28 + 6 else { throw AtollError.corrupted("sync counter key of \(k.count) bytes") }
            if UInt64(bigEndian: k.loadUnaligned(fromByteOffset: k.count - 28, as: UInt64.self)) < point { folded.append(Array(k)) }
            return true
        }
        for k in folded { try txn.deleteInternal(SyncTrees.counters, key: k) }
        result.increments = folded.count
        (result.removedTags, result.removedMapKeys) = try collectRemovedTagsAndKeys(below: point)
        if deletion > 0 {
            result.removedElements = try collectRemovedElements(below: deletion) + collectRemovedEmbeddedElements(below: deletion)
        }
        return result
    }

    /// Drops removed list elements whose earliest removal is below the deletion point
    /// `deletion` and that are leaves of their list's tree or links of a removed chain (see the
    /// top of this file); returns how many. Reads the lists `sync.lists.removed` names (those
    /// with a removed element whose removal reading is known), and keeps that set: a list
    /// leaves it when nothing is left to collect in it. A file whose set is not complete yet
    /// (written before it was kept, or reset) has every list read once, which completes it.
    private func collectRemovedElements(below deletion: UInt64) throws -> Int {
        let complete = try txn.internalValue(SyncTrees.listsWithRemovals, key: SyncTrees.listsWithRemovalsComplete) != nil
        let dropped = try collectRemovedElements(below: deletion, noted: SyncTrees.listsWithRemovals, in: SyncTrees.lists, readingEveryList: !complete) { _, _ in }
        if !complete { try txn.putInternal(SyncTrees.listsWithRemovals, key: SyncTrees.listsWithRemovalsComplete, value: []) }
        return dropped
    }

    /// Drops removed elements of lists of embedded objects, as `collectRemovedElements` does
    /// those of other lists, and the records left under them (an element's fields can arrive in
    /// a snapshot before its insert); returns how many. Reads the lists
    /// `sync.embedded.removed` names: a list is noted whenever one of its elements is removed
    /// with a known reading (before that was kept, none was, and such elements stay).
    private func collectRemovedEmbeddedElements(below deletion: UInt64) throws -> Int {
        try collectRemovedElements(below: deletion, noted: SyncTrees.embeddedListsWithRemovals, in: SyncTrees.embedded, readingEveryList: false) { list, ids in
            // An element's key is its list's key and its id (`EmbeddedStep.element`).
            for id in ids {
                var element = list
                id.appendKeyBytes(to: &element)
                try deleteEmbeddedRecords(under: element)
            }
        }
    }

    /// Collects the lists of `records` that `notes` names (or, `readingEveryList`, every list
    /// of `records`, noting those left with something to collect): drops their removed elements
    /// below `deletion`, calls `dropped` with each list's key and the ids that went, and takes a
    /// list out of `notes` when nothing is left to collect in it. Returns how many went.
    private func collectRemovedElements(below deletion: UInt64, noted notes: String, in records: String, readingEveryList: Bool,
                                        dropped: ([UInt8], [ElementID]) throws -> Void) throws -> Int
    {
        var keys: [[UInt8]] = []
        try txn.forEachInternalEntry(readingEveryList ? records : notes, from: []) { k, _ in
            if readingEveryList || !k.elementsEqual(SyncTrees.listsWithRemovalsComplete) { keys.append(Array(k)) }
            return true
        }
        var total = 0
        for k in keys {
            let nodes = state.nodes
            guard var l = try k.withUnsafeBytes({ key in
                try txn.withInternalValue(records, key: key) { try $0.map { try ListRecord.decode($0, nodes) } }
            }) else {
                // Gone with its object (or holder).
                try txn.deleteInternal(notes, key: k)
                continue
            }
            let ids = l.collectRemoved { e in e.removedHLC.map { $0 < deletion } ?? false }
            if !ids.isEmpty {
                total += ids.count
                try txn.putInternal(records, key: k, value: l.encode(&state.nodes))
                try dropped(k, ids)
            }
            if l.hasRemovalsToCollect {
                if readingEveryList { try txn.putInternal(notes, key: k, value: []) }
            } else {
                try txn.deleteInternal(notes, key: k)
            }
        }
        return total
    }

    /// Notes that the list record at `key` holds removed elements to collect (see above):
    /// `tree` is `SyncTrees.listsWithRemovals`, or for a list of embedded objects
    /// `SyncTrees.embeddedListsWithRemovals`.
    func noteListWithRemovals(_ key: [UInt8], in tree: String = SyncTrees.listsWithRemovals) throws {
        let noted = try key.withUnsafeBytes { k in try txn.withInternalValue(tree, key: k) { $0 != nil } }
        if !noted { try txn.putInternal(tree, key: key, value: []) }
    }

    /// Drops removed set tags and removed map keys stamped below `point` (see the top of this
    /// file); returns how many of each.
    private func collectRemovedTagsAndKeys(below point: UInt64) throws -> (tags: Int, keys: Int) {
        var changed: [([UInt8], SetRecord)] = []
        var changedMaps: [([UInt8], MapRecord)] = []
        var dropped = 0, droppedKeys = 0
        let classes = schema.classes, nodes = state.nodes
        // Key: object key (u32 BE table key first) ++ u16 BE column; the column's type says
        // whether the record is a set's.
        try txn.forEachInternalEntry(SyncTrees.collections, from: []) { k, v in
            guard k.count >= 6 else { throw AtollError.corrupted("sync collection key of \(k.count) bytes") }
            let table = TableKey(UInt32(bigEndian: k.loadUnaligned(as: UInt32.self)))
            let column = Int(k[k.count - 2]) << 8 | Int(k[k.count - 1])
            guard let c = classes[table], column < c.spec.columns.count else { return true }
            if c.spec.columns[column].isMap {
                var m = try MapRecord.decode(v, nodes)
                let before = m.entries.count
                m.entries = m.entries.filter { $0.value.value != nil || $0.value.stamp.hlc >= point }
                if m.entries.count < before {
                    droppedKeys += before - m.entries.count
                    changedMaps.append((Array(k), m))
                }
                return true
            }
            guard c.spec.columns[column].isSet else { return true }
            var s = try SetRecord.decode(v, nodes)
            var removed = 0
            for (value, tags) in s.values {
                let kept = tags.removed.filter { $0.hlc >= point }
                guard kept.count < tags.removed.count else { continue }
                removed += tags.removed.count - kept.count
                if kept.isEmpty, tags.live.isEmpty { s.values[value] = nil } else { s.values[value]?.removed = kept }
            }
            if removed > 0 {
                dropped += removed
                changed.append((Array(k), s))
            }
            return true
        }
        for (k, s) in changed {
            if s.values.isEmpty {
                try txn.deleteInternal(SyncTrees.collections, key: k)
            } else {
                try txn.putInternal(SyncTrees.collections, key: k, value: s.encode(&state.nodes))
            }
        }
        for (k, m) in changedMaps {
            if m.entries.isEmpty {
                try txn.deleteInternal(SyncTrees.collections, key: k)
            } else {
                try txn.putInternal(SyncTrees.collections, key: k, value: m.encode(&state.nodes))
            }
        }
        return (dropped, droppedKeys)
    }

    /// Deletes every entry of `tree` whose key starts with `prefix`; returns how many.
    private func deleteEntries(_ tree: String, prefix: [UInt8]) throws -> Int {
        var doomed: [[UInt8]] = []
        try txn.forEachInternalEntry(tree, from: prefix, prefix: prefix) { k, _ in
            doomed.append(Array(k))
            return true
        }
        for k in doomed { try txn.deleteInternal(tree, key: k) }
        return doomed.count
    }
}

extension SyncReplica {
    /// A clock reading at or below the stamp of every changeset of this node that the relay has
    /// not acknowledged, and of every changeset it will make (its clock only moves forward, and
    /// is stored with every commit that moves it). Reported to the relay as `clockFloor`.
    public func clockFloor() throws -> UInt64 {
        var floor = state.clock == .max ? state.clock : state.clock + 1
        if let oldest = try outgoingChangesets(after: uploadAcknowledged, maxCount: 1, maxBytes: 1).first {
            floor = min(floor, oldest.hlc)
        }
        return floor
    }

    /// Moves the clock to at least `reading`, in a commit of its own when it moves (pending local
    /// commits are extracted first, stamped as before): every later change is stamped above it.
    public func advanceClock(to reading: UInt64) throws {
        guard state.clock < reading else { return }
        _ = try write { w in
            _ = try w.extractPendingLocalCommits()
            w.clock.advance(to: reading)
        }
    }

    /// Drops, in one commit, the sync metadata that can no longer decide any merge once every
    /// changeset stamped below `point` has been applied here (the relay's stability point;
    /// `SyncWriter+Collect.swift`), and, with `ReplicaConfiguration.collectsDeletedObjects`,
    /// the metadata of objects deleted below `deletion` (the relay's deletion point, once the
    /// log it holds through has been applied here; 0: none). Pending local commits are
    /// extracted first. Returns nil, having collected nothing, while parts of a remote
    /// transaction (or chunks of a snapshot) wait in the file unapplied: call again once they
    /// are applied.
    @discardableResult
    public func collectGarbage(below point: UInt64, deletedBelow deletion: UInt64 = 0) throws -> GarbageCollection? {
        try write { w in
            _ = try w.extractPendingLocalCommits()
            return try w.collectGarbage(below: point, deletedBelow: configuration.collectsDeletedObjects ? deletion : 0)
        }.0
    }
}
