// BlockCodec: one column's values for n rows as a packed block (format in ClusterLeafPage.swift).
// Used for the blocks of cluster leaves and for list values, which are one block with a count.

@usableFromInline
enum BlockCodec {
    /// Where the block starting at `s` ends, or nil when its header is invalid. `limit` bounds
    /// every computed extent (a page, or a list value's bytes).
    @inline(__always)
    static func end(kind: PhysicalKind, _ p: UnsafeRawPointer, at s: Int, rows n: Int, limit: Int) -> Int? {
        guard s >= 0, s + 2 <= limit else { return nil }
        let flags = p.u8(s + 1)
        let nullBytes = flags & 1 != 0 ? (n + 7) >> 3 : 0
        switch kind {
        case .ints:
            let w = Int(p.u8(s))
            guard PackedInts.isValidWidth(w), s + 10 <= limit else { return nil }
            return s + 10 + PackedInts.byteCount(count: n, width: w) + nullBytes
        case .float32: return p.u8(s) == 4 ? s + 2 + 4 * n + nullBytes : nil
        case .float64: return p.u8(s) == 8 ? s + 2 + 8 * n + nullBytes : nil
        case .fixed(let k): return Int(p.u8(s)) == k ? s + 2 + k * n + nullBytes : nil
        case .bytes:
            let w = Int(p.u8(s))
            guard PackedInts.isValidWidth(w) else { return nil }
            let extBytes = flags & 2 != 0 ? (n + 7) >> 3 : 0
            let heapStart = s + 2 + PackedInts.byteCount(count: n + 1, width: w) + nullBytes + extBytes
            guard heapStart <= limit else { return nil }
            let offsets = PackedInts(data: p + s + 2, width: w, base: 0)
            let heapSize = Int(truncatingIfNeeded: offsets.unsigned(n))
            guard heapSize >= 0, heapSize <= limit else { return nil }
            return heapStart + heapSize
        }
    }

    @inlinable @inline(__always)
    static func nullMarks(_ p: UnsafeRawPointer, at s: Int, afterBytes dataBytes: Int) -> RowMarks {
        guard p.u8(s + 1) & 1 != 0 else { return .none }
        return RowMarks(bits: PackedInts(data: p + s + dataBytes, width: 1, base: 0))
    }

    @inlinable @inline(__always)
    static func intColumn(_ p: UnsafeRawPointer, at s: Int, rows n: Int) -> IntColumn {
        let w = Int(p.u8(s))
        return IntColumn(values: PackedInts(data: p + s + 10, width: w, base: p.i64(s + 2)),
                         nulls: nullMarks(p, at: s, afterBytes: 10 + PackedInts.byteCount(count: n, width: w)))
    }

    @inlinable @inline(__always)
    static func float32Column(_ p: UnsafeRawPointer, at s: Int, rows n: Int) -> Float32Column {
        Float32Column(data: p + s + 2, nulls: nullMarks(p, at: s, afterBytes: 2 + 4 * n))
    }

    @inlinable @inline(__always)
    static func float64Column(_ p: UnsafeRawPointer, at s: Int, rows n: Int) -> Float64Column {
        Float64Column(data: p + s + 2, nulls: nullMarks(p, at: s, afterBytes: 2 + 8 * n))
    }

    @inlinable @inline(__always)
    static func fixedColumn(_ p: UnsafeRawPointer, at s: Int, rows n: Int) -> FixedColumn {
        let k = Int(p.u8(s))
        return FixedColumn(data: p + s + 2, width: k, nulls: nullMarks(p, at: s, afterBytes: 2 + k * n))
    }

    @inlinable @inline(__always)
    static func bytesColumn(_ p: UnsafeRawPointer, at s: Int, rows n: Int) -> BytesColumn {
        let w = Int(p.u8(s)), flags = p.u8(s + 1)
        let offsets = PackedInts(data: p + s + 2, width: w, base: 0)
        var at = s + 2 + PackedInts.byteCount(count: n + 1, width: w)
        var nulls = RowMarks.none, external = RowMarks.none
        if flags & 1 != 0 { nulls = RowMarks(bits: PackedInts(data: p + at, width: 1, base: 0)); at += (n + 7) >> 3 }
        if flags & 2 != 0 { external = RowMarks(bits: PackedInts(data: p + at, width: 1, base: 0)); at += (n + 7) >> 3 }
        return BytesColumn(offsets: offsets, stride: 1, heap: p + at, heapCount: Int(truncatingIfNeeded: offsets.unsigned(n)),
                           nulls: nulls, external: external)
    }

    /// Decodes a block into a mutable block of `n` rows (already inserted with defaults).
    static func decode(_ p: UnsafeRawPointer, at s: Int, rows n: Int, into mb: MutableBlock) {
        switch mb.spec.kind {
        case .ints:
            let c = intColumn(p, at: s, rows: n)
            for r in 0..<n { mb.setInt(r, c[r]); if c.isNull(r) { mb.setNull(r, true) } }
        case .float32:
            let c = float32Column(p, at: s, rows: n)
            mb.values.pointer.copyMemory(from: c.data, byteCount: 4 * n)
            for r in 0..<n where c.isNull(r) { mb.setNull(r, true) }
        case .float64:
            let c = float64Column(p, at: s, rows: n)
            mb.values.pointer.copyMemory(from: c.data, byteCount: 8 * n)
            for r in 0..<n where c.isNull(r) { mb.setNull(r, true) }
        case .fixed(let w):
            let c = fixedColumn(p, at: s, rows: n)
            mb.values.pointer.copyMemory(from: c.data, byteCount: w * n)
            for r in 0..<n where c.isNull(r) { mb.setNull(r, true) }
        case .bytes:
            let c = bytesColumn(p, at: s, rows: n)
            mb.loadBytes(c, rows: n)
            for r in 0..<n where c.isNull(r) { mb.setNull(r, true) }
        }
    }

    /// Exact encoded size of `b` for `n` rows.
    static func encodedBytes(_ b: MutableBlock, rows n: Int) -> Int {
        let hasNulls = hasAnyNull(b, rows: n)
        let nullBytes = hasNulls ? (n + 7) >> 3 : 0
        switch b.spec.kind {
        case .ints:
            let (lo, hi) = intRange(b, rows: n)
            return 10 + PackedInts.byteCount(count: n, width: PackedInts.width(min: lo, max: hi)) + nullBytes
        case .float32, .float64, .fixed: return 2 + b.stride * n + nullBytes
        case .bytes:
            let (live, hasExternal) = bytesStats(b, rows: n)
            return 2 + PackedInts.byteCount(count: n + 1, width: PackedInts.width(min: 0, max: Int64(live))) + nullBytes
                + (hasExternal ? (n + 7) >> 3 : 0) + live
        }
    }

    private static func hasAnyNull(_ b: MutableBlock, rows n: Int) -> Bool {
        guard let nulls = b.nulls else { return false }
        for r in 0..<n where nulls.pointer.u8(r) != 0 { return true }
        return false
    }

    private static func intRange(_ b: MutableBlock, rows n: Int) -> (Int64, Int64) {
        var lo = Int64.max, hi = Int64.min
        for r in 0..<n {
            if let nulls = b.nulls, nulls.pointer.u8(r) != 0 { continue }
            let v = b.values.pointer.i64(r << 3)
            if v < lo { lo = v }
            if v > hi { hi = v }
        }
        return lo > hi ? (0, 0) : (lo, hi)
    }

    private static func bytesStats(_ b: MutableBlock, rows n: Int) -> (Int, Bool) {
        var live = 0, hasExternal = false
        for r in 0..<n {
            live += Int(b.values.pointer.i64(r * 16 + 8) - b.values.pointer.i64(r * 16))
            if let e = b.external, e.pointer.u8(r) != 0 { hasExternal = true }
        }
        return (live, hasExternal)
    }

    /// Encodes `b` (n rows) at `p + at`; the caller guarantees `encodedBytes` bytes of room.
    /// Returns the offset after the block. `settling`: also leave `b` as decoding the block
    /// would make it (exact statistics, null ints at the block's base), for a leaf kept decoded
    /// after its commit (CommittedLeafCache.swift); it costs no extra pass over the rows, except
    /// one over the null flags of an int block that has nulls.
    static func encode(_ b: MutableBlock, rows n: Int, into p: UnsafeMutableRawPointer, at start: Int, settling: Bool = false) -> Int {
        var at = start
        let nulls = b.nulls
        let hasNulls = hasAnyNull(b, rows: n)
        let nullBytes = hasNulls ? (n + 7) >> 3 : 0
        func writeNulls(at offset: Int) {
            guard hasNulls, let nulls else { return }
            PackedInts.pack(into: p + offset, count: n, width: 1, base: 0) { Int64(nulls.pointer.u8($0) != 0 ? 1 : 0) }
        }
        switch b.spec.kind {
        case .ints:
            let (lo, hi) = intRange(b, rows: n)
            let w = PackedInts.width(min: lo, max: hi)
            let dataBytes = PackedInts.byteCount(count: n, width: w)
            p.setU8(at, UInt8(w)); p.setU8(at + 1, hasNulls ? 1 : 0); p.setI64(at + 2, lo)
            let vp = b.values.pointer
            if let nulls {
                PackedInts.pack(into: p + at + 10, count: n, width: w, base: lo) { nulls.pointer.u8($0) != 0 ? lo : vp.i64($0 << 3) }
            } else {
                PackedInts.pack(into: p + at + 10, count: n, width: w, base: lo) { vp.i64($0 << 3) }
            }
            writeNulls(at: at + 10 + dataBytes)
            at += 10 + dataBytes + nullBytes
            if settling {
                // A decode sets every row, null ones to the base, starting from (0, 0).
                b.minValue = min(0, lo)
                b.maxValue = max(0, hi)
                b.mayHaveNulls = hasNulls
                if hasNulls, let nulls {
                    for r in 0..<n where nulls.pointer.u8(r) != 0 { vp.setI64(r << 3, lo) }
                }
            }
        case .float32, .float64, .fixed:
            let dataBytes = b.stride * n
            p.setU8(at, UInt8(b.stride)); p.setU8(at + 1, hasNulls ? 1 : 0)
            if dataBytes > 0 { (p + at + 2).copyMemory(from: b.values.pointer, byteCount: dataBytes) }
            writeNulls(at: at + 2 + dataBytes)
            at += 2 + dataBytes + nullBytes
            if settling { b.mayHaveNulls = hasNulls }
        case .bytes:
            let (live, hasExternal) = bytesStats(b, rows: n)
            let w = PackedInts.width(min: 0, max: Int64(live))
            let offsetBytes = PackedInts.byteCount(count: n + 1, width: w)
            let extBytes = hasExternal ? (n + 7) >> 3 : 0
            p.setU8(at, UInt8(w)); p.setU8(at + 1, (hasNulls ? 1 : 0) | (hasExternal ? 2 : 0))
            let heapBase = at + 2 + offsetBytes + nullBytes + extBytes
            var heapAt = heapBase
            // First pass: copy the bytes, one copy per run of rows whose values lie back to back
            // in the leaf's heap (all of them, in a leaf decoded from a page and appended to);
            // second: pack the running offsets.
            if let heap = b.heap {
                var runStart = 0, runEnd = 0
                for r in 0..<n {
                    let s = Int(b.values.pointer.i64(r * 16)), e = Int(b.values.pointer.i64(r * 16 + 8))
                    if s == runEnd { runEnd = e; continue }
                    if runEnd > runStart { (p + heapAt).copyMemory(from: heap.pointer + runStart, byteCount: runEnd - runStart) }
                    heapAt += runEnd - runStart
                    runStart = s
                    runEnd = e
                }
                if runEnd > runStart { (p + heapAt).copyMemory(from: heap.pointer + runStart, byteCount: runEnd - runStart) }
                heapAt += runEnd - runStart
            }
            var running: Int64 = 0
            let vp = b.values.pointer
            PackedInts.pack(into: p + at + 2, count: n + 1, width: w, base: 0) { i in
                if i == 0 { return 0 }
                running += vp.i64((i - 1) * 16 + 8) - vp.i64((i - 1) * 16)
                return running
            }
            writeNulls(at: at + 2 + offsetBytes)
            if hasExternal, let external = b.external {
                PackedInts.pack(into: p + at + 2 + offsetBytes + nullBytes, count: n, width: 1, base: 0) {
                    Int64(external.pointer.u8($0) != 0 ? 1 : 0)
                }
            }
            at = heapAt
            if settling {
                b.mayHaveNulls = hasNulls
                b.mayHaveExternal = hasExternal
                b.heapLiveBytes = live
            }
        }
        return at
    }
}
