// ClusterLeafPage: the page format of a cluster leaf (columnar, "PAX" layout).
//
//     0   u32  checksum                      (common page header)
//     4   u8   type: 3
//     5   u8   flags, 0
//     6   u16  n: rows
//     8   u16  b: blocks, including the key block
//     10  u16  reserved, 0
//     12  u32  reserved, 0
//     16  b × u16  start offset of each block
//     ...  blocks, in order: block 0 = object keys, then the table's blocks (LeafLayout)
//
// Block encodings (n = rows):
//   ints     u8 width, u8 flags (bit 0: null bitmap follows), i64 base,
//            packed values (n × width bits), [null bitmap, n bits, 1 = null]
//   float32  u8 4, u8 flags, n × f32, [null bitmap]
//   float64  u8 8, u8 flags, n × f64, [null bitmap]
//   fixed k  u8 k, u8 flags, n × k bytes, [null bitmap]
//   bytes    u8 offset width, u8 flags (bit 0 nulls, bit 1 external), packed n+1 offsets
//            (base 0, relative to the heap), [null bitmap], [external bitmap], heap.
//            An external value's heap bytes are u32 first page, u32 length of a blob.
//   keys     an ints block without nulls; the base is the first key.
//
// Invariants: keys strictly increase; every block lies inside the page; offsets do not decrease
// and the last one is the heap size.

@usableFromInline package struct ClusterLeafPage {
    @usableFromInline static let headerBytes = 16
    static let rowCountMax = 1000

    @usableFromInline let p: UnsafeRawPointer
    @usableFromInline let rowCount: Int
    @usableFromInline let blockCount: Int

    /// Validates the page header and the extent of every block, so that column views (made
    /// per read) need no checks: a leaf is validated once per visit, not once per value read.
    init(_ p: UnsafeRawPointer, page: PageNumber, layout: LeafLayout) throws {
        guard p.u8(PageHeader.typeOffset) == PageType.clusterLeaf.rawValue else {
            throw AtollError.corrupted("page \(page) should be a cluster leaf")
        }
        self.p = p
        rowCount = Int(p.u16(6))
        blockCount = Int(p.u16(8))
        guard blockCount == layout.blocks.count + 1, rowCount <= Self.rowCountMax,
              Self.headerBytes + 2 * blockCount <= FileFormat.pageSize
        else {
            throw AtollError.corrupted("cluster leaf \(page) has \(blockCount) blocks and \(rowCount) rows; the table has \(layout.blocks.count + 1) blocks")
        }
        guard let end = blockEnd(0, kind: .ints), end <= FileFormat.pageSize else {
            throw AtollError.corrupted("cluster leaf \(page) key block runs past the page")
        }
        for b in 1..<blockCount {
            guard let end = blockEnd(b, kind: layout.blocks[b - 1].kind), end <= FileFormat.pageSize else {
                throw AtollError.corrupted("cluster leaf \(page) block \(b) runs past the page")
            }
        }
    }

    /// A page that passed `init(_:page:layout:)` for the same layout before (ValidatedPages).
    @inline(__always)
    init(validated p: UnsafeRawPointer) {
        self.p = p
        rowCount = Int(p.u16(6))
        blockCount = Int(p.u16(8))
    }

    @inlinable @inline(__always) func blockStart(_ b: Int) -> Int { Int(p.u16(Self.headerBytes + 2 * b)) }

    @inline(__always)
    private func blockEnd(_ b: Int, kind: PhysicalKind) -> Int? {
        let s = blockStart(b)
        guard s >= Self.headerBytes + 2 * blockCount else { return nil }
        return BlockCodec.end(kind: kind, p, at: s, rows: rowCount, limit: FileFormat.pageSize)
    }

    @inlinable @inline(__always) package var keys: PackedInts {
        let s = blockStart(0)
        return PackedInts(data: p + s + 10, width: Int(p.u8(s)), base: p.i64(s + 2))
    }

    @inlinable @inline(__always) package func key(_ row: Int) -> UInt64 { UInt64(bitPattern: keys[row]) }

    /// Row of `key`, or -(insertion point + 1).
    @inlinable package func find(_ key: UInt64) -> Int {
        let k = keys
        var lo = 0, hi = rowCount
        while lo < hi {
            let mid = (lo + hi) >> 1
            let v = UInt64(bitPattern: k[mid])
            if v < key { lo = mid + 1 } else if v > key { hi = mid } else { return mid }
        }
        return -(lo + 1)
    }

    // Column views: `block` is a column block index of the layout the leaf was validated with.

    @inlinable @inline(__always) func intColumn(_ block: Int) -> IntColumn { BlockCodec.intColumn(p, at: blockStart(block + 1), rows: rowCount) }
    @inlinable @inline(__always) func float32Column(_ block: Int) -> Float32Column { BlockCodec.float32Column(p, at: blockStart(block + 1), rows: rowCount) }
    @inlinable @inline(__always) func float64Column(_ block: Int) -> Float64Column { BlockCodec.float64Column(p, at: blockStart(block + 1), rows: rowCount) }
    @inlinable @inline(__always) func fixedColumn(_ block: Int) -> FixedColumn { BlockCodec.fixedColumn(p, at: blockStart(block + 1), rows: rowCount) }
    @inlinable @inline(__always) func bytesColumn(_ block: Int) -> BytesColumn { BlockCodec.bytesColumn(p, at: blockStart(block + 1), rows: rowCount) }

    // MARK: decoding into a mutable leaf

    func decode(layout: LeafLayout) -> MutableLeaf {
        let leaf = MutableLeaf(specs: layout.blocks, capacity: rowCount + 8)
        let k = keys
        leaf.appendDefaultRows(rowCount) { UInt64(bitPattern: k[$0]) }
        for b in 0..<layout.blocks.count {
            BlockCodec.decode(p, at: blockStart(b + 1), rows: rowCount, into: leaf.blocks[b])
        }
        return leaf
    }

    // MARK: encoding a mutable leaf

    /// Encodes `leaf` into page `p` (whose first 4 bytes, the checksum, are set at commit).
    /// `settling`: also leave `leaf` exactly as decoding the page would make it
    /// (`BlockCodec.encode(_:rows:into:at:settling:)`).
    static func encode(_ leaf: MutableLeaf, into p: UnsafeMutableRawPointer, settling: Bool = false) throws {
        let n = leaf.count
        let blockCount = leaf.blocks.count + 1
        p.setU8(PageHeader.typeOffset, PageType.clusterLeaf.rawValue)
        p.setU8(PageHeader.flagsOffset, 0)
        p.setU16(6, UInt16(n))
        p.setU16(8, UInt16(blockCount))
        p.setU16(10, 0)
        p.setU32(12, 0)
        var at = headerBytes + 2 * blockCount
        func room(_ bytes: Int) throws {
            guard at + bytes <= FileFormat.pageSize else {
                throw AtollError(.ioError, "internal error: cluster leaf of \(n) rows does not fit a page")
            }
        }
        // Keys.
        p.setU16(headerBytes, UInt16(at))
        let first = n > 0 ? Int64(bitPattern: leaf.key(0)) : 0
        let keyWidth = n > 0 ? PackedInts.width(min: first, max: Int64(bitPattern: leaf.key(n - 1))) : 0
        try room(10 + PackedInts.byteCount(count: n, width: keyWidth))
        p.setU8(at, UInt8(keyWidth)); p.setU8(at + 1, 0); p.setI64(at + 2, first)
        PackedInts.pack(into: p + at + 10, count: n, width: keyWidth, base: first) { Int64(bitPattern: leaf.key($0)) }
        at += 10 + PackedInts.byteCount(count: n, width: keyWidth)

        // The leaf's size bound (from its statistics, without a pass over the rows) fits the
        // page whenever the tree split it as it should: then no block needs its exact size
        // first (that was a second pass over every row, about a fifth of the encoding).
        let fits = leaf.estimatedEncodedBytes <= FileFormat.pageSize
        for (bi, b) in leaf.blocks.enumerated() {
            p.setU16(headerBytes + 2 * (bi + 1), UInt16(at))
            if !fits { try room(BlockCodec.encodedBytes(b, rows: n)) }
            at = BlockCodec.encode(b, rows: n, into: p, at: at, settling: settling)
        }
        // Zero the unused tail so pages are deterministic (and compress well in copies).
        if at < FileFormat.pageSize { (p + at).initializeMemory(as: UInt8.self, repeating: 0, count: FileFormat.pageSize - at) }
    }
}
