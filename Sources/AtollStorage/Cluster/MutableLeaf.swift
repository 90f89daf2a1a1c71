// MutableLeaf: a cluster leaf being changed by a write transaction, kept decoded in memory.
//
// A leaf page is decoded once when a transaction first changes it and encoded once at commit,
// so a transaction inserting a million rows or updating every row costs a few array operations
// per row, not a page rewrite per row. Reads inside the transaction use the same column views
// as reads of pages (ColumnViews): ints are exposed as width-64 packed arrays, null and external
// markers as one byte per row, and variable-length values as (start, end) pairs into an
// append-only heap.
//
// Size accounting: `estimatedEncodedBytes` is an upper bound of the encoded page size (int
// ranges only widen, heap bytes are counted exactly). The cluster tree splits a leaf as soon as
// the bound exceeds a page, so encoding at commit always fits.

final class MutableBlock {
    let spec: BlockSpec
    let stride: Int
    let values: RawBuffer
    let nulls: RawBuffer?
    let heap: RawBuffer?
    let external: RawBuffer?
    var minValue: Int64 = 0
    var maxValue: Int64 = 0
    var heapLiveBytes = 0
    var mayHaveNulls = false
    var mayHaveExternal = false

    init(spec: BlockSpec, capacity: Int) {
        self.spec = spec
        switch spec.kind {
        case .ints: stride = 8
        case .float32: stride = 4
        case .float64: stride = 8
        case .fixed(let k): stride = k
        case .bytes: stride = 16
        }
        values = RawBuffer(capacity: capacity * stride)
        nulls = spec.nullable ? RawBuffer(capacity: capacity) : nil
        if spec.kind == .bytes {
            heap = RawBuffer(capacity: capacity * 16)
            external = RawBuffer(capacity: capacity)
        } else {
            heap = nil
            external = nil
        }
    }

    func insertDefault(at row: Int) {
        (values.insertGap(at: row * stride, count: stride)).initializeMemory(as: UInt8.self, repeating: 0, count: stride)
        nulls?.insertGap(at: row, count: 1).storeBytes(of: 0, as: UInt8.self)
        external?.insertGap(at: row, count: 1).storeBytes(of: 0, as: UInt8.self)
        if spec.kind == .ints {
            minValue = min(minValue, 0)
            maxValue = max(maxValue, 0)
        }
    }

    /// Appends `n` rows with default contents after the first `rows` (what `insertDefault` at
    /// the end does `n` times, in one step).
    func appendDefaults(_ n: Int, after rows: Int) {
        values.insertGap(at: rows * stride, count: n * stride).initializeMemory(as: UInt8.self, repeating: 0, count: n * stride)
        nulls?.insertGap(at: rows, count: n).initializeMemory(as: UInt8.self, repeating: 0, count: n)
        external?.insertGap(at: rows, count: n).initializeMemory(as: UInt8.self, repeating: 0, count: n)
        if spec.kind == .ints && n > 0 {
            minValue = min(minValue, 0)
            maxValue = max(maxValue, 0)
        }
    }

    func remove(row: Int) {
        if spec.kind == .bytes {
            let s = values.pointer.i64(row * 16), e = values.pointer.i64(row * 16 + 8)
            heapLiveBytes -= Int(e - s)
        }
        values.remove(at: row * stride, count: stride)
        nulls?.remove(at: row, count: 1)
        external?.remove(at: row, count: 1)
    }

    @inline(__always) func setNull(_ row: Int, _ isNull: Bool) {
        guard let nulls else { return }
        nulls.pointer.setU8(row, isNull ? 1 : 0)
        if isNull { mayHaveNulls = true }
    }

    @inline(__always) func setInt(_ row: Int, _ v: Int64) {
        values.pointer.setI64(row << 3, v)
        if v < minValue { minValue = v }
        if v > maxValue { maxValue = v }
    }

    func setBytes(_ row: Int, _ bytes: UnsafeRawBufferPointer, external isExternal: Bool) {
        guard let heap else { return }
        let oldStart = values.pointer.i64(row * 16), oldEnd = values.pointer.i64(row * 16 + 8)
        heapLiveBytes -= Int(oldEnd - oldStart)
        // Compact the heap when garbage dominates (repeated updates in one transaction).
        if heap.byteCount > 4096 && heap.byteCount > 2 * (heapLiveBytes + bytes.count) { compactHeap(excluding: row) }
        let start = heap.append(bytes)
        values.pointer.setI64(row * 16, Int64(start))
        values.pointer.setI64(row * 16 + 8, Int64(start + bytes.count))
        heapLiveBytes += bytes.count
        external?.pointer.setU8(row, isExternal ? 1 : 0)
        if isExternal { mayHaveExternal = true }
    }

    /// Sets rows 0..<n, which must still hold their defaults (a leaf being decoded), to the
    /// stored bytes of `column`: one heap reservation, then a copy and two offsets per row.
    func loadBytes(_ column: BytesColumn, rows n: Int) {
        guard let heap else { return }
        var total = 0
        for r in 0..<n { total += column.stored(r).count }
        heap.reserve(heap.byteCount + total)
        for r in 0..<n {
            let bytes = column.stored(r)
            let start = heap.append(bytes)
            values.pointer.setI64(r * 16, Int64(start))
            values.pointer.setI64(r * 16 + 8, Int64(start + bytes.count))
            if column.external.isMarked(r) {
                external?.pointer.setU8(r, 1)
                mayHaveExternal = true
            }
        }
        heapLiveBytes += total
    }

    /// Rewrites the heap with only live values (row `excluding` is about to be replaced).
    private func compactHeap(excluding skip: Int) {
        guard let heap else { return }
        let rows = values.byteCount / 16
        let fresh = RawBuffer(capacity: heapLiveBytes + 64)
        for r in 0..<rows {
            let s = Int(values.pointer.i64(r * 16)), e = Int(values.pointer.i64(r * 16 + 8))
            if r == skip {
                values.pointer.setI64(r * 16, 0); values.pointer.setI64(r * 16 + 8, 0)
                continue
            }
            let n = fresh.append(UnsafeRawBufferPointer(start: heap.pointer + s, count: e - s))
            values.pointer.setI64(r * 16, Int64(n)); values.pointer.setI64(r * 16 + 8, Int64(n + e - s))
        }
        heap.removeAll()
        heap.append(fresh.bytes)
    }

    func nullMarks() -> RowMarks {
        guard let nulls else { return .none }
        return RowMarks(bits: PackedInts(data: UnsafeRawPointer(nulls.pointer), width: 8, base: 0))
    }

    func externalMarks() -> RowMarks {
        guard let external else { return .none }
        return RowMarks(bits: PackedInts(data: UnsafeRawPointer(external.pointer), width: 8, base: 0))
    }

    /// Upper bound of this block's encoded size for `rows` rows.
    func estimatedBytes(rows: Int) -> Int {
        let nullBytes = (spec.nullable && mayHaveNulls) ? (rows + 7) >> 3 : 0
        switch spec.kind {
        case .ints:
            return 10 + PackedInts.byteCount(count: rows, width: PackedInts.width(min: minValue, max: maxValue)) + nullBytes
        case .float32: return 2 + 4 * rows + nullBytes
        case .float64: return 2 + 8 * rows + nullBytes
        case .fixed(let k): return 2 + k * rows + nullBytes
        case .bytes:
            let offsetWidth = PackedInts.width(min: 0, max: Int64(heapLiveBytes))
            return 2 + PackedInts.byteCount(count: rows + 1, width: offsetWidth) + nullBytes
                + (mayHaveExternal ? (rows + 7) >> 3 : 0) + heapLiveBytes
        }
    }

    /// Recomputes the statistics exactly (after a split or a merge).
    func recomputeStatistics(rows: Int) {
        minValue = 0; maxValue = 0; mayHaveNulls = false; mayHaveExternal = false; heapLiveBytes = 0
        for r in 0..<rows {
            if let nulls, nulls.pointer.u8(r) != 0 { mayHaveNulls = true }
            switch spec.kind {
            case .ints:
                let v = values.pointer.i64(r << 3)
                if r == 0 { minValue = v; maxValue = v } else { minValue = min(minValue, v); maxValue = max(maxValue, v) }
            case .bytes:
                heapLiveBytes += Int(values.pointer.i64(r * 16 + 8) - values.pointer.i64(r * 16))
                if let external, external.pointer.u8(r) != 0 { mayHaveExternal = true }
            default: break
            }
        }
    }
}

@usableFromInline
final class MutableLeaf {
    @usableFromInline private(set) var count: Int
    /// Object keys in ascending order, 8 bytes each.
    let keys: RawBuffer
    let blocks: [MutableBlock]

    init(specs: [BlockSpec], capacity: Int = 64) {
        count = 0
        keys = RawBuffer(capacity: capacity * 8)
        blocks = specs.map { MutableBlock(spec: $0, capacity: capacity) }
    }

    @usableFromInline func key(_ row: Int) -> UInt64 { keys.pointer.u64(row << 3) }

    @usableFromInline var keyView: PackedInts { PackedInts(data: UnsafeRawPointer(keys.pointer), width: 64, base: 0) }

    /// Row index of `key`, or the insertion point as a negative `-(index + 1)`.
    @usableFromInline func find(_ key: UInt64) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) >> 1
            let k = self.key(mid)
            if k < key { lo = mid + 1 } else if k > key { hi = mid } else { return mid }
        }
        return -(lo + 1)
    }

    /// Appends `n` rows with default contents, the key of each given by `key(i)` (ascending,
    /// above the current last key): decoding a page fills a fresh leaf this way, one pass per
    /// block rather than one insert per row and block.
    func appendDefaultRows(_ n: Int, key: (Int) -> UInt64) {
        let keyBytes = keys.insertGap(at: count << 3, count: n << 3)
        for i in 0..<n { (keyBytes + (i << 3)).storeBytes(of: key(i).littleEndian, as: UInt64.self) }
        for b in blocks { b.appendDefaults(n, after: count) }
        count += n
    }

    /// Inserts a row with default contents (zero, not null, empty) at `row`.
    func insertRow(at row: Int, key: UInt64) {
        keys.insertGap(at: row << 3, count: 8).storeBytes(of: key.littleEndian, as: UInt64.self)
        for b in blocks { b.insertDefault(at: row) }
        count += 1
    }

    func removeRow(at row: Int) {
        keys.remove(at: row << 3, count: 8)
        for b in blocks { b.remove(row: row) }
        count -= 1
    }

    /// Moves rows [row, count) into a new leaf.
    func split(at row: Int) -> MutableLeaf {
        let right = MutableLeaf(specs: blocks.map(\.spec), capacity: count - row)
        for r in row..<count {
            right.appendRow(from: self, row: r)
        }
        let removed = count - row
        for _ in 0..<removed { removeRow(at: count - 1) }
        for b in blocks { b.recomputeStatistics(rows: count) }
        for b in right.blocks { b.recomputeStatistics(rows: right.count) }
        return right
    }

    /// Appends row `row` of `other` (same layout) to the end of this leaf.
    func appendRow(from other: MutableLeaf, row: Int) {
        let at = count
        insertRow(at: at, key: other.key(row))
        for (i, b) in blocks.enumerated() {
            let src = other.blocks[i]
            if b.spec.kind == .bytes {
                let s = Int(src.values.pointer.i64(row * 16)), e = Int(src.values.pointer.i64(row * 16 + 8))
                let ext = (src.external?.pointer.u8(row) ?? 0) != 0
                if let heap = src.heap {
                    b.setBytes(at, UnsafeRawBufferPointer(start: heap.pointer + s, count: e - s), external: ext)
                }
            } else {
                (b.values.pointer + at * b.stride).copyMemory(from: src.values.pointer + row * src.stride, byteCount: b.stride)
                if b.spec.kind == .ints { b.setInt(at, src.values.pointer.i64(row << 3)) }
            }
            if let n = src.nulls { b.setNull(at, n.pointer.u8(row) != 0) }
        }
    }

    /// Upper bound of the encoded page size.
    var estimatedEncodedBytes: Int {
        var total = ClusterLeafPage.headerBytes + 2 * (blocks.count + 1)
        // Keys are stored relative to the first key (unsigned distance).
        let keyWidth = count == 0 ? 0 : PackedInts.width(min: Int64(bitPattern: key(0)), max: Int64(bitPattern: key(count - 1)))
        total += 10 + PackedInts.byteCount(count: count, width: keyWidth)
        for b in blocks { total += b.estimatedBytes(rows: count) }
        return total
    }

    // MARK: views

    @usableFromInline func intColumn(_ block: Int) -> IntColumn {
        let b = blocks[block]
        return IntColumn(values: PackedInts(data: UnsafeRawPointer(b.values.pointer), width: 64, base: 0), nulls: b.nullMarks())
    }

    @usableFromInline func float32Column(_ block: Int) -> Float32Column {
        let b = blocks[block]
        return Float32Column(data: UnsafeRawPointer(b.values.pointer), nulls: b.nullMarks())
    }

    @usableFromInline func float64Column(_ block: Int) -> Float64Column {
        let b = blocks[block]
        return Float64Column(data: UnsafeRawPointer(b.values.pointer), nulls: b.nullMarks())
    }

    @usableFromInline func fixedColumn(_ block: Int) -> FixedColumn {
        let b = blocks[block]
        return FixedColumn(data: UnsafeRawPointer(b.values.pointer), width: b.stride, nulls: b.nullMarks())
    }

    @usableFromInline func bytesColumn(_ block: Int) -> BytesColumn {
        let b = blocks[block]
        let heap = b.heap
        return BytesColumn(offsets: PackedInts(data: UnsafeRawPointer(b.values.pointer), width: 64, base: 0), stride: 2,
                           heap: UnsafeRawPointer(heap?.pointer ?? b.values.pointer), heapCount: heap?.byteCount ?? 0,
                           nulls: b.nullMarks(), external: b.externalMarks())
    }
}
