// ClusterInner: the page format of a cluster tree's inner nodes.
//
//     0   u32  checksum                      (common page header)
//     4   u8   type: 4
//     5   u8   flags, 0
//     6   u16  n: children
//     8   u64  reserved, 0
//     16  n × 20 bytes: u64 first object key of the child, u32 child page, u64 rows under it
//
// Child i holds the keys k with firstKey(i) <= k < firstKey(i+1) (child 0 also anything
// smaller). Row counts make positional access O(log n) (Results[i] on a whole table).

enum ClusterInner {
    static let entryBytes = 20
    static let headerBytes = 16
    static let capacity = (FileFormat.pageSize - headerBytes) / entryBytes

    @inline(__always) static func count(_ p: UnsafeRawPointer) -> Int { Int(p.u16(6)) }
    @inline(__always) static func firstKey(_ p: UnsafeRawPointer, _ i: Int) -> UInt64 { p.u64(headerBytes + i * entryBytes) }
    @inline(__always) static func child(_ p: UnsafeRawPointer, _ i: Int) -> PageNumber { p.u32(headerBytes + i * entryBytes + 8) }
    @inline(__always) static func rows(_ p: UnsafeRawPointer, _ i: Int) -> UInt64 { p.u64(headerBytes + i * entryBytes + 12) }

    @inline(__always) static func setEntry(_ p: UnsafeMutableRawPointer, _ i: Int, firstKey: UInt64, child: PageNumber, rows: UInt64) {
        let o = headerBytes + i * entryBytes
        p.setU64(o, firstKey); p.setU32(o + 8, child); p.setU64(o + 12, rows)
    }

    @inline(__always) static func setChild(_ p: UnsafeMutableRawPointer, _ i: Int, _ c: PageNumber) { p.setU32(headerBytes + i * entryBytes + 8, c) }
    @inline(__always) static func setFirstKey(_ p: UnsafeMutableRawPointer, _ i: Int, _ k: UInt64) { p.setU64(headerBytes + i * entryBytes, k) }
    @inline(__always) static func setRows(_ p: UnsafeMutableRawPointer, _ i: Int, _ r: UInt64) { p.setU64(headerBytes + i * entryBytes + 12, r) }

    static func initialize(_ p: UnsafeMutableRawPointer) {
        p.initializeMemory(as: UInt8.self, repeating: 0, count: headerBytes)
        p.setU8(PageHeader.typeOffset, PageType.clusterInner.rawValue)
    }

    static func setCount(_ p: UnsafeMutableRawPointer, _ n: Int) { p.setU16(6, UInt16(n)) }

    /// Index of the child that holds (or would hold) `key`: the last i with firstKey(i) <= key.
    @inline(__always)
    static func childIndex(_ p: UnsafeRawPointer, _ key: UInt64) -> Int {
        var lo = 1, hi = count(p)
        while lo < hi {
            let mid = (lo + hi) >> 1
            if firstKey(p, mid) <= key { lo = mid + 1 } else { hi = mid }
        }
        return lo - 1
    }

    static func insertEntry(_ p: UnsafeMutableRawPointer, at i: Int, firstKey: UInt64, child: PageNumber, rows: UInt64) {
        let n = count(p)
        let o = headerBytes + i * entryBytes
        if i < n { (p + o + entryBytes).copyMemory(from: p + o, byteCount: (n - i) * entryBytes) }
        setEntry(p, i, firstKey: firstKey, child: child, rows: rows)
        setCount(p, n + 1)
    }

    static func removeEntry(_ p: UnsafeMutableRawPointer, at i: Int) {
        let n = count(p)
        let o = headerBytes + i * entryBytes
        if i < n - 1 { (p + o).copyMemory(from: p + o + entryBytes, byteCount: (n - 1 - i) * entryBytes) }
        setCount(p, n - 1)
    }

    static func totalRows(_ p: UnsafeRawPointer) -> UInt64 {
        var t: UInt64 = 0
        for i in 0..<count(p) { t &+= rows(p, i) }
        return t
    }

    static func validate(_ p: UnsafeRawPointer, page: PageNumber) throws {
        guard p.u8(PageHeader.typeOffset) == PageType.clusterInner.rawValue else {
            throw AtollError.corrupted("page \(page) should be a cluster inner node")
        }
        let n = count(p)
        guard n >= 1, n <= capacity else { throw AtollError.corrupted("cluster inner node \(page) has \(n) children") }
        // Row counts come from the file and feed sums, positions and Int conversions on both the
        // read and the write side: bounding their total here, once per validated node, keeps a
        // damaged count an error instead of an arithmetic trap anywhere they are used.
        var total: UInt64 = 0
        for i in 0..<n {
            let (sum, overflow) = total.addingReportingOverflow(rows(p, i))
            guard !overflow, sum <= rowsMax else {
                throw AtollError.corrupted("cluster inner node \(page) counts more rows than a file can hold")
            }
            total = sum
        }
    }

    /// More rows than any file can hold (at most 2^32 pages of at most 1,000 rows each is about
    /// 2^42): a count above it is damage.
    static let rowsMax: UInt64 = 1 << 48
}
