import AtollStorage

/// The conflict state of one object: the stamps that decide what a remote change does to it.
///
/// - `latest`: the greatest stamp of any write that puts data into the object (create, property
///   write, increment, list insert or element write).
/// - `deleted`: the greatest stamp of a delete (the tombstone).
/// - The object exists exactly when `latest` > `deleted`. The table holds the object exactly when
///   it exists (an invariant the replica keeps).
/// - `fields`: per written property, the stamp of the write that holds (a last-writer-wins
///   register), whether increments stamped after it are kept (`sync.counters`), and for a link
///   whose target is deleted, the target's primary key (the property shows nil meanwhile).
///   A property with no entry holds its default value.
///
/// Encoding:
///
///     u8 flags (1: latest present, 2: deleted present), [latest stamp], [deleted stamp]
///     varint field count, per field (ascending column):
///         varint column, u8 flags (1: stamp = latest, 2: has increments, 4: dangling link,
///         8: stamp zero, i.e. never written),
///         [stamp], [tagged primary key of the link target]
///     stamp: varint hlc, varint node index (ReplicaState's node table)
struct ObjectRecord: Equatable {
    struct Field: Equatable {
        var column: Int
        var stamp: Stamp
        var hasIncrements = false
        var danglingTarget: StorageValue?
    }

    var latest: Stamp?
    var deleted: Stamp?
    var fields: [Field] = []

    var exists: Bool {
        guard let latest else { return false }
        guard let deleted else { return true }
        return latest > deleted
    }

    var isEmpty: Bool { latest == nil && deleted == nil && fields.isEmpty }

    func fieldIndex(_ column: Int) -> Int? {
        // Few fields: a linear scan beats a dictionary.
        for (i, f) in fields.enumerated() where f.column == column { return i }
        return nil
    }

    func field(_ column: Int) -> Field? { fieldIndex(column).map { fields[$0] } }

    /// The entry of `column`, created (stamped zero: below every write) when absent.
    mutating func withField<R>(_ column: Int, _ body: (inout Field) throws -> R) rethrows -> R {
        if let i = fieldIndex(column) { return try body(&fields[i]) }
        var f = Field(column: column, stamp: .zero)
        let r = try body(&f)
        let at = fields.firstIndex { $0.column > column } ?? fields.count
        fields.insert(f, at: at)
        return r
    }

    mutating func removeField(_ column: Int) {
        if let i = fieldIndex(column) { fields.remove(at: i) }
    }

    mutating func noteWrite(_ s: Stamp) {
        if latest.map({ s > $0 }) ?? true { latest = s }
    }

    mutating func noteDelete(_ s: Stamp) {
        if deleted.map({ s > $0 }) ?? true { deleted = s }
    }

    func encode(_ nodes: inout NodeTable) -> [UInt8] {
        var w = ByteWriter(capacity: 16 + fields.count * 4)
        w.u8((latest != nil ? 1 : 0) | (deleted != nil ? 2 : 0))
        if let latest { w.stamp(latest, &nodes) }
        if let deleted { w.stamp(deleted, &nodes) }
        w.varint(UInt64(fields.count))
        for f in fields {
            w.varint(UInt64(f.column))
            let same = f.stamp == latest
            let zero = f.stamp == .zero
            w.u8((same ? 1 : 0) | (f.hasIncrements ? 2 : 0) | (f.danglingTarget != nil ? 4 : 0) | (zero ? 8 : 0))
            if !same && !zero { w.stamp(f.stamp, &nodes) }
            if let t = f.danglingTarget { t.encode(into: &w) }
        }
        return w.bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, _ nodes: NodeTable) throws -> ObjectRecord {
        var r = ByteReader(bytes, context: "sync object record")
        var o = ObjectRecord()
        let flags = try r.u8()
        if flags & 1 != 0 { o.latest = try r.stamp(nodes) }
        if flags & 2 != 0 { o.deleted = try r.stamp(nodes) }
        let n = try r.length(max: SchemaLimits.columnsPerTableMax)
        o.fields.reserveCapacity(n)
        for _ in 0..<n {
            let column = try r.length(max: SchemaLimits.columnsPerTableMax)
            let ff = try r.u8()
            var stamp = Stamp.zero
            if ff & 8 != 0 {
                stamp = .zero
            } else if ff & 1 != 0 {
                guard let latest = o.latest else { throw AtollError.corrupted("sync object record: field stamped like a missing latest") }
                stamp = latest
            } else {
                stamp = try r.stamp(nodes)
            }
            var f = Field(column: column, stamp: stamp, hasIncrements: ff & 2 != 0)
            if ff & 4 != 0 { f.danglingTarget = try StorageValue.decode(from: &r) }
            o.fields.append(f)
        }
        return o
    }
}
