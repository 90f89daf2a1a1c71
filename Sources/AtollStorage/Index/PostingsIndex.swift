// PostingsIndex: a search index (value -> object keys) stored in a B+tree of postings chunks.
//
//     key   = IndexKey(value) ++ u64 big-endian first object key of the chunk
//     value = varint count, then count-1 varint gaps between consecutive ascending keys
//
// A value with many objects spans several chunks, each at most chunkKeysMax keys and
// chunkBytesMax bytes; an insert or delete rewrites one chunk. Compared with one B+tree entry
// per (value, object) this stores an index of 1M objects over 10k distinct names in about
// 3 MB instead of 25 MB.
//
// Writes are buffered per transaction (PendingIndexChanges) and applied in value order at
// commit, so bulk inserts touch each chunk once. Lookups inside the transaction combine the
// tree with the buffer.

enum PostingsChunk {
    static let keysMax = 256
    static let bytesMax = 900

    static func decode(_ bytes: UnsafeRawBufferPointer, firstKey: UInt64) throws -> [UInt64] {
        var keys: [UInt64] = []
        try decode(bytes, firstKey: firstKey, into: &keys)
        return keys
    }

    /// Appends the chunk's keys to `keys`.
    static func decode(_ bytes: UnsafeRawBufferPointer, firstKey: UInt64, into keys: inout [UInt64]) throws {
        var r = ByteReader(bytes, context: "index chunk")
        let n = try r.length(max: keysMax * 4)
        guard n >= 1 else { throw AtollError.corrupted("empty index chunk") }
        keys.reserveCapacity(keys.count + n)
        keys.append(firstKey)
        var k = firstKey
        for _ in 1..<n {
            let gap = try r.varint()
            guard gap > 0 else { throw AtollError.corrupted("index chunk keys not ascending") }
            k &+= gap
            keys.append(k)
        }
    }

    /// The number of keys in a chunk, from its header: as `decode` finds it, without the gaps.
    static func count(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        var r = ByteReader(bytes, context: "index chunk")
        let n = try r.length(max: keysMax * 4)
        guard n >= 1 else { throw AtollError.corrupted("empty index chunk") }
        return n
    }

    static func encode(_ keys: ArraySlice<UInt64>) -> [UInt8] {
        var w = ByteWriter(capacity: 2 + keys.count * 2)
        w.varint(UInt64(keys.count))
        var previous = keys.first ?? 0
        for k in keys.dropFirst() { w.varint(k - previous); previous = k }
        return w.bytes
    }

    /// Splits ascending keys into chunks within the limits.
    static func chunks(_ keys: [UInt64]) -> [ArraySlice<UInt64>] {
        var result: [ArraySlice<UInt64>] = []
        var start = 0
        var bytes = 5
        for i in keys.indices {
            let gapBytes = i == start ? 0 : varintBytes(keys[i] - keys[i - 1])
            if i > start && (i - start >= keysMax || bytes + gapBytes > bytesMax) {
                result.append(keys[start..<i])
                start = i
                bytes = 5
            } else {
                bytes += gapBytes
            }
        }
        if start < keys.count { result.append(keys[start...]) }
        return result
    }

    static func varintBytes(_ v: UInt64) -> Int {
        var n = 1, x = v
        while x >= 0x80 { x >>= 7; n += 1 }
        return n
    }
}

/// An encoded index value as a dictionary key, hashed as one run of bytes (an array hashes
/// element by element, which made buffering a bulk load's index entries cost hundreds of
/// instructions per object).
struct IndexValueBytes: Hashable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }

    static func == (a: IndexValueBytes, b: IndexValueBytes) -> Bool { a.bytes == b.bytes }
}

/// Index changes buffered in a write transaction: per encoded value, +1 (add) and -1 (remove)
/// operations on object keys, netted when applied.
struct PendingIndexChanges {
    private(set) var changes: [IndexValueBytes: [(key: UInt64, delta: Int8)]] = [:]

    var isEmpty: Bool { changes.isEmpty }

    mutating func add(_ value: [UInt8], _ key: UInt64) { changes[IndexValueBytes(value), default: []].append((key, 1)) }
    mutating func remove(_ value: [UInt8], _ key: UInt64) { changes[IndexValueBytes(value), default: []].append((key, -1)) }

    /// The buffered operations, in value order.
    func inValueOrder() -> [(key: IndexValueBytes, value: [(key: UInt64, delta: Int8)])] {
        changes.sorted { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }
    }

    /// The net change per key of one value's operations, in key order (keys whose changes
    /// cancel are left out).
    static func net(_ changes: [(key: UInt64, delta: Int8)]) -> [(key: UInt64, value: Int8)] {
        var ops = changes
        ops.sort { $0.key < $1.key }
        var result: [(key: UInt64, value: Int8)] = []
        result.reserveCapacity(ops.count)
        var i = 0
        while i < ops.count {
            var sum = 0
            let k = ops[i].key
            while i < ops.count && ops[i].key == k { sum += Int(ops[i].delta); i += 1 }
            if sum != 0 { result.append((k, sum > 0 ? 1 : -1)) }
        }
        return result
    }

    mutating func removeAll() { changes.removeAll() }
}

enum PostingsIndex {
    /// Object keys stored under `value` (encoded), in ascending order.
    static func lookup(root: PageNumber, value: [UInt8], space: PageSpace) throws -> [UInt64] {
        guard root != 0 else { return [] }
        var result: [UInt64] = []
        var cursor = BTreeCursor(root: root, space: space)
        var more = try value.withUnsafeBytes { try cursor.seek($0) }
        while more {
            let key = try cursor.key()
            guard key.count == value.count + 8, key.starts(with: value) else { break }
            let first = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: value.count, as: UInt64.self))
            result += try PostingsChunk.decode(try cursor.value(), firstKey: first)
            more = try cursor.next()
        }
        return result
    }

    /// Number of entries under `value` without decoding keys beyond the chunk counts.
    static func count(root: PageNumber, value: [UInt8], space: PageSpace) throws -> Int {
        guard root != 0 else { return 0 }
        var total = 0
        var cursor = BTreeCursor(root: root, space: space)
        var more = try value.withUnsafeBytes { try cursor.seek($0) }
        while more {
            let key = try cursor.key()
            guard key.count == value.count + 8, key.starts(with: value) else { break }
            var r = ByteReader(try cursor.value(), context: "index chunk")
            total += try r.length(max: PostingsChunk.keysMax * 4)
            more = try cursor.next()
        }
        return total
    }

    private static func chunkKey(_ value: [UInt8], _ first: UInt64) -> [UInt8] {
        var w = ByteWriter(capacity: value.count + 8)
        w.append(value)
        w.u64BigEndian(first)
        return w.bytes
    }

    /// Applies buffered changes to the tree, in value order.
    static func apply(_ pending: PendingIndexChanges, root: inout PageNumber, allocator a: PageAllocator) throws {
        for (value, changes) in pending.inValueOrder() {
            let ops = PendingIndexChanges.net(changes)
            if !ops.isEmpty { try apply(value: value.bytes, ops: ops, root: &root, allocator: a) }
        }
    }

    /// Moves one object's entry from value `old` to value `new` (nil: none), in value order as
    /// `apply(_:root:allocator:)` would.
    static func apply(key: UInt64, old: [UInt8]?, new: [UInt8]?, root: inout PageNumber, allocator a: PageAllocator) throws {
        guard old != new else { return }
        var steps: [(value: [UInt8], delta: Int8)] = []
        if let old { steps.append((old, -1)) }
        if let new { steps.append((new, 1)) }
        if steps.count == 2, steps[1].value.lexicographicallyPrecedes(steps[0].value) { steps.swapAt(0, 1) }
        for step in steps { try apply(value: step.value, ops: [(key, step.delta)], root: &root, allocator: a) }
    }

    /// Applies sorted (key, +1/-1) operations for one value, rewriting only the chunks they touch.
    private static func apply(value: [UInt8], ops: [(key: UInt64, value: Int8)], root: inout PageNumber, allocator a: PageAllocator) throws {
        var i = 0
        while i < ops.count {
            // The chunk for ops[i]: the last chunk of this value with first key <= ops[i].key,
            // else the value's first chunk, else none.
            var chunkKeyBytes: [UInt8]? = nil
            var keys: [UInt64] = []
            var nextFirst: UInt64 = .max
            do {
                var cursor = BTreeCursor(root: root, space: a.space)
                let probe = chunkKey(value, ops[i].key)
                var onChunk = try probe.withUnsafeBytes { try cursor.seekFloor($0) }
                if !onChunk {
                    // Nothing sorts before the probe: the tree's first entry may be this value's
                    // first chunk.
                    onChunk = try cursor.first()
                } else if !(try Self.isChunk(cursor.key(), of: value)) {
                    onChunk = try cursor.next()
                }
                if onChunk, try Self.isChunk(cursor.key(), of: value) {
                    let k = try cursor.key()
                    chunkKeyBytes = Array(k)
                    let first = UInt64(bigEndian: k.loadUnaligned(fromByteOffset: value.count, as: UInt64.self))
                    keys = try PostingsChunk.decode(try cursor.value(), firstKey: first)
                    if try cursor.next(), try Self.isChunk(cursor.key(), of: value) {
                        nextFirst = UInt64(bigEndian: try cursor.key().loadUnaligned(fromByteOffset: value.count, as: UInt64.self))
                    }
                }
            }
            // Merge the ops that belong to this chunk.
            var j = i
            var merged: [UInt64] = []
            merged.reserveCapacity(keys.count + 8)
            var ki = 0
            while j < ops.count && (ops[j].key < nextFirst || chunkKeyBytes == nil) {
                let op = ops[j]
                while ki < keys.count && keys[ki] < op.key { merged.append(keys[ki]); ki += 1 }
                let present = ki < keys.count && keys[ki] == op.key
                if op.value > 0 {
                    merged.append(op.key)
                    if present { ki += 1 }
                } else if present {
                    ki += 1
                }
                j += 1
            }
            while ki < keys.count { merged.append(keys[ki]); ki += 1 }
            let chunks = PostingsChunk.chunks(merged)
            // The old chunk goes unless a new one has its key (first object key): that one's
            // `put` replaces it in place (a key added after the first, the common case, costs
            // one B-tree operation, not a delete and an insert).
            if let old = chunkKeyBytes {
                let oldFirst = old.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: value.count, as: UInt64.self)) }
                if !chunks.contains(where: { $0.first == oldFirst }) {
                    _ = try old.withUnsafeBytes { try BTree.delete(root: &root, key: $0, allocator: a) }
                }
            }
            for chunk in chunks {
                guard let first = chunk.first else { continue }
                let key = chunkKey(value, first)
                let bytes = PostingsChunk.encode(chunk)
                try key.withUnsafeBytes { k in try bytes.withUnsafeBytes { v in try BTree.put(root: &root, key: k, value: v, allocator: a) } }
            }
            i = j
        }
    }

    private static func isChunk(_ key: UnsafeRawBufferPointer, of value: [UInt8]) throws -> Bool {
        key.count == value.count + 8 && key.starts(with: value)
    }
}
