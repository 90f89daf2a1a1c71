/// One packed array in a cluster leaf.
@usableFromInline
struct BlockSpec: Equatable, Sendable {
    @usableFromInline var kind: PhysicalKind
    @usableFromInline var nullable: Bool
}

/// How a table's columns map onto the blocks of its cluster leaves. Block 0 of every leaf holds
/// the object keys; the blocks after it follow the columns in schema order. A timestamp column
/// uses two int blocks (seconds, then nanoseconds); an int primary key uses none (it *is* the
/// object key).
@usableFromInline
struct LeafLayout: Equatable, Sendable {
    @usableFromInline var blocks: [BlockSpec]
    /// For each column: index into `blocks` of its first block, or -1 for a column with none.
    @usableFromInline var firstBlock: [Int]

    init(_ spec: TableSpec) {
        var blocks: [BlockSpec] = []
        var first: [Int] = []
        let pkAlias = spec.keyIsPrimaryKey ? spec.primaryKeyIndex : nil
        for (i, c) in spec.columns.enumerated() {
            if i == pkAlias { first.append(-1); continue }
            first.append(blocks.count)
            if !c.isList && c.type == .timestamp {
                blocks.append(BlockSpec(kind: .ints, nullable: c.isNullable))
                blocks.append(BlockSpec(kind: .ints, nullable: false))
            } else {
                // Lists are never null: an empty list is an empty byte string.
                blocks.append(BlockSpec(kind: c.physical, nullable: c.isNullable && !c.isList))
            }
        }
        self.blocks = blocks
        firstBlock = first
    }
}

// MARK: column views (read-only, valid while the snapshot / until the leaf is next mutated)
//
// Inlinable, like the leaf and table reads that make them, so that a property read in another
// module compiles to a few loads from the mapped page.

@usableFromInline package struct IntColumn {
    @usableFromInline package let values: PackedInts
    @usableFromInline package let nulls: RowMarks

    @inlinable init(values: PackedInts, nulls: RowMarks) { self.values = values; self.nulls = nulls }
    @inlinable @inline(__always) package func isNull(_ i: Int) -> Bool { nulls.isMarked(i) }
    @inlinable @inline(__always) package subscript(i: Int) -> Int64 { values[i] }
}

@usableFromInline package struct Float32Column {
    @usableFromInline package let data: UnsafeRawPointer
    @usableFromInline package let nulls: RowMarks
    @inlinable init(data: UnsafeRawPointer, nulls: RowMarks) { self.data = data; self.nulls = nulls }
    @inlinable @inline(__always) package func isNull(_ i: Int) -> Bool { nulls.isMarked(i) }
    @inlinable @inline(__always) package subscript(i: Int) -> Float { data.f32(i << 2) }
}

@usableFromInline package struct Float64Column {
    @usableFromInline package let data: UnsafeRawPointer
    @usableFromInline package let nulls: RowMarks
    @inlinable init(data: UnsafeRawPointer, nulls: RowMarks) { self.data = data; self.nulls = nulls }
    @inlinable @inline(__always) package func isNull(_ i: Int) -> Bool { nulls.isMarked(i) }
    @inlinable @inline(__always) package subscript(i: Int) -> Double { data.f64(i << 3) }
}

@usableFromInline package struct FixedColumn {
    @usableFromInline package let data: UnsafeRawPointer
    @usableFromInline package let width: Int
    @usableFromInline package let nulls: RowMarks
    @inlinable init(data: UnsafeRawPointer, width: Int, nulls: RowMarks) { self.data = data; self.width = width; self.nulls = nulls }
    @inlinable @inline(__always) package func isNull(_ i: Int) -> Bool { nulls.isMarked(i) }
    @inlinable @inline(__always) package func bytes(_ i: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: data + i * width, count: width)
    }
}

/// Variable-length values: value i is heap[offsets[i*stride] ..< offsets[i*stride + 1]].
/// Pages store n+1 running offsets (stride 1); mutable leaves store (start, end) pairs
/// (stride 2), so the heap can be appended to without moving other values.
@usableFromInline package struct BytesColumn {
    @usableFromInline package let offsets: PackedInts
    @usableFromInline package let stride: Int
    @usableFromInline package let heap: UnsafeRawPointer
    @usableFromInline package let heapCount: Int
    @usableFromInline package let nulls: RowMarks
    @usableFromInline package let external: RowMarks

    @inlinable
    init(offsets: PackedInts, stride: Int, heap: UnsafeRawPointer, heapCount: Int, nulls: RowMarks, external: RowMarks) {
        self.offsets = offsets
        self.stride = stride
        self.heap = heap
        self.heapCount = heapCount
        self.nulls = nulls
        self.external = external
    }

    @inlinable @inline(__always) package func isNull(_ i: Int) -> Bool { nulls.isMarked(i) }

    /// The stored bytes of row i: the value itself, or for an external value its 8-byte blob
    /// reference. Out-of-range offsets (a corrupted page) give an empty value, never a read
    /// outside the heap.
    @inlinable @inline(__always)
    package func stored(_ i: Int) -> UnsafeRawBufferPointer {
        let s = Int(truncatingIfNeeded: offsets[i * stride]), e = Int(truncatingIfNeeded: offsets[i * stride + 1])
        guard s >= 0, s <= e, e <= heapCount else { return UnsafeRawBufferPointer(start: heap, count: 0) }
        return UnsafeRawBufferPointer(start: heap + s, count: e - s)
    }

    /// The value of row i, resolving an external value through `space`.
    func value(_ i: Int, space: PageSpace) throws -> UnsafeRawBufferPointer {
        let b = stored(i)
        if external.isMarked(i) {
            guard b.count == 8, let p = b.baseAddress else { throw AtollError.corrupted("bad external value reference") }
            return try space.blob(p.u32(0), length: Int(p.u32(4)))
        }
        return b
    }

    func externalReference(_ i: Int) -> (PageNumber, Int)? {
        guard external.isMarked(i) else { return nil }
        let b = stored(i)
        guard b.count == 8, let p = b.baseAddress else { return nil }
        return (p.u32(0), Int(p.u32(4)))
    }
}
