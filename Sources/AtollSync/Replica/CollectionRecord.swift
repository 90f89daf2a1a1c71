import AtollStorage

// Sync metadata of sets and maps, in the internal tree `sync.collections` (key: object key ++
// u16 BE column, as `sync.lists`); the column's type says which record it holds.

/// One set property of one object as an add-wins (observed-remove) set.
///
/// Every add of a value is tagged with its stamp. A removal names the tags its origin had seen
/// for the value; those tags die and a concurrent add (a tag the removal had not seen) keeps the
/// value in the set. A value is in the set while it has a live tag. Removed tags are remembered
/// (`removed`), so that an add arriving after the removal that named it stays removed: the
/// result is the same in any order, and applying anything twice changes nothing.
///
/// The table's set is the projection of the live values, less links whose target is deleted
/// (they come back with the target).
///
/// Encoding:
///
///     varint value count, per value: value (SyncValue tagged encoding), varint live count,
///         live tag stamps, varint removed count, removed tag stamps
///     stamp: varint hlc, varint node index (ReplicaState's node table), varint index
struct SetRecord: Equatable {
    struct Tags: Equatable {
        var live: [Stamp] = []
        var removed: [Stamp] = []
    }

    var values: [SyncValue: Tags] = [:]

    /// The values with a live tag.
    var liveValues: [SyncValue] { values.compactMap { $0.value.live.isEmpty ? nil : $0.key } }

    func isLive(_ v: SyncValue) -> Bool { !(values[v]?.live.isEmpty ?? true) }

    /// Adds tag `t` of `v` unless the set has it already (live or removed). Returns whether it changed anything.
    mutating func add(_ v: SyncValue, tag t: Stamp) -> Bool {
        var tags = values[v] ?? Tags()
        guard !tags.live.contains(t), !tags.removed.contains(t) else { return false }
        tags.live.append(t)
        values[v] = tags
        return true
    }

    /// Kills tags `ts` of `v` (remembered, also when they have not arrived yet).
    mutating func remove(_ v: SyncValue, tags ts: [Stamp]) {
        guard !ts.isEmpty else { return }
        var tags = values[v] ?? Tags()
        for t in ts where !tags.removed.contains(t) {
            tags.live.removeAll { $0 == t }
            tags.removed.append(t)
        }
        values[v] = tags
    }

    /// Kills every tag stamped at or before `stamp` (a delete of the object at `stamp`).
    mutating func removeTags(through stamp: Stamp) {
        for (v, tags) in values {
            let dead = tags.live.filter { $0 <= stamp }
            guard !dead.isEmpty else { continue }
            var t = tags
            t.live.removeAll { $0 <= stamp }
            t.removed += dead
            values[v] = t
        }
    }

    func encode(_ nodes: inout NodeTable) -> [UInt8] {
        var w = ByteWriter(capacity: 8 + values.count * 16)
        w.varint(UInt64(values.count))
        for (v, tags) in values {
            v.encode(into: &w)
            w.varint(UInt64(tags.live.count))
            for s in tags.live { w.stamp(s, &nodes) }
            w.varint(UInt64(tags.removed.count))
            for s in tags.removed { w.stamp(s, &nodes) }
        }
        return w.bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, _ nodes: NodeTable) throws -> SetRecord {
        var r = ByteReader(bytes, context: "sync set record")
        var s = SetRecord()
        let n = try r.length(max: r.remaining / 3)
        for _ in 0..<n {
            let v = try SyncValue.decode(from: &r)
            var tags = Tags()
            for _ in 0..<(try r.length(max: r.remaining / 3)) { tags.live.append(try r.stamp(nodes)) }
            for _ in 0..<(try r.length(max: r.remaining / 3)) { tags.removed.append(try r.stamp(nodes)) }
            guard s.values[v] == nil else { throw AtollError.corrupted("sync set record holds \(v) twice") }
            s.values[v] = tags
        }
        return s
    }
}

/// One map property of one object: per key a last-writer-wins register with removal stamps.
///
/// Each key holds the stamp of the write or removal that decides it; a write or removal lands
/// when its stamp is greater. A removed key keeps its stamp (a tombstone), so that an older
/// write arriving later loses to it. A delete of the object at D voids every entry stamped
/// before D (they are dropped; writes stamped before D that arrive later are void anyway).
///
/// The table's map holds every key with a value; a link whose target is deleted shows as nil
/// and comes back with the target.
///
/// Encoding:
///
///     varint entry count, per entry in key order: key (string), stamp, u8 flags (1: removed),
///         unless removed: value (SyncValue tagged encoding)
struct MapRecord: Equatable {
    struct Entry: Equatable {
        var stamp: Stamp
        /// nil: removed (a tombstone).
        var value: SyncValue?
    }

    var entries: [String: Entry] = [:]

    /// Drops every entry stamped at or before `stamp` (a delete of the object at `stamp`).
    mutating func removeEntries(through stamp: Stamp) {
        entries = entries.filter { $0.value.stamp > stamp }
    }

    func encode(_ nodes: inout NodeTable) -> [UInt8] {
        var w = ByteWriter(capacity: 8 + entries.count * 16)
        w.varint(UInt64(entries.count))
        for key in entries.keys.sorted() {
            guard let e = entries[key] else { continue }
            w.string(key)
            w.stamp(e.stamp, &nodes)
            w.u8(e.value == nil ? 1 : 0)
            if let v = e.value { v.encode(into: &w) }
        }
        return w.bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, _ nodes: NodeTable) throws -> MapRecord {
        var r = ByteReader(bytes, context: "sync map record")
        var m = MapRecord()
        let n = try r.length(max: r.remaining / 4)
        for _ in 0..<n {
            let key = try r.string(max: r.remaining)
            let stamp = try r.stamp(nodes)
            let flags = try r.u8()
            guard flags <= 1 else { throw AtollError.corrupted("sync map record entry with flags \(flags)") }
            m.entries[key] = Entry(stamp: stamp, value: flags == 1 ? nil : try SyncValue.decode(from: &r))
        }
        return m
    }
}

extension SyncTrees {
    static let collections = "sync.collections"
}
