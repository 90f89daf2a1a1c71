// BTreeNode: the page format of the general-purpose B+tree (byte-string keys and values).
//
// The general B+tree stores the catalog, the free list, the history, indexes and backlinks.
// Tables themselves live in cluster trees (Cluster/), which are columnar.
//
// Page layout (slotted page, as in SQLite):
//     0   u32  checksum                      (common page header, see PageSpace.swift)
//     4   u8   type: 1 leaf, 2 inner
//     5   u8   flags, 0
//     6   u16  n: number of cells
//     8   u16  heap start: offset of the lowest cell byte; cells fill [heap start, 4096)
//     10  u16  garbage: bytes inside the heap no longer used by a cell
//     12  u32  inner: the rightmost child page; leaf: 0
//     16  n × u16 cell offsets, in key order
//     ... free space ...
//     heap: cells, written from the end of the page downwards
//
// Leaf cell:  u16 key length, u16 value word, key, value.
//             value word < 0x8000: the value is inline and that many bytes long.
//             value word == 0x8000: the value is in a blob; the cell holds u32 first page,
//             u32 length.
// Inner cell: u16 key length, u32 child page, key.
//             Child i holds the keys k with key(i-1) <= k < key(i); the right child holds
//             the keys >= key(n-1).
//
// Invariants (checked by verify and by the property tests): keys are strictly increasing within
// a node and across the tree; every leaf is at the same depth; every cell lies inside the heap;
// free space + cells + garbage = page size - header - slots.

enum BTreeNode {
    static let headerBytes = 16
    static let pageBytes = FileFormat.pageSize
    /// A key is at most this long (callers shorten longer keys, e.g. index keys).
    static let keyBytesMax = 512
    /// Largest leaf cell; larger values move to a blob. Four cells always fit in a page.
    static let cellBytesMax = (pageBytes - headerBytes) / 4 - 2
    static let overflowFlag: UInt16 = 0x8000
    static let overflowReferenceBytes = 8

    @inline(__always) static func count(_ p: UnsafeRawPointer) -> Int { Int(p.u16(6)) }
    @inline(__always) static func isLeaf(_ p: UnsafeRawPointer) -> Bool { p.u8(4) == PageType.btreeLeaf.rawValue }
    @inline(__always) static func heapStart(_ p: UnsafeRawPointer) -> Int {
        let v = Int(p.u16(8))
        return v == 0 ? pageBytes : v
    }
    @inline(__always) static func garbage(_ p: UnsafeRawPointer) -> Int { Int(p.u16(10)) }
    @inline(__always) static func rightChild(_ p: UnsafeRawPointer) -> PageNumber { p.u32(12) }

    /// The most cells a page can index: their slots and 4-byte cells fill it.
    static let cellCountMax = (pageBytes - headerBytes) / 6

    @inline(__always)
    static func cellOffset(_ p: UnsafeRawPointer, _ i: Int) throws -> Int {
        // The count comes from the file: the slot must lie inside the page before it is read.
        let n = count(p)
        guard i >= 0, i < n, n <= cellCountMax else {
            throw AtollError.corrupted("B+tree cell \(i) of a node claiming \(n) cells (at most \(cellCountMax) fit in a page)")
        }
        let o = Int(p.u16(headerBytes + 2 * i))
        guard o >= headerBytes + 2 * n, o + 4 <= pageBytes else {
            throw AtollError.corrupted("B+tree cell offset \(o) out of range")
        }
        return o
    }

    @inline(__always)
    static func key(_ p: UnsafeRawPointer, _ i: Int) throws -> UnsafeRawBufferPointer {
        let o = try cellOffset(p, i)
        let len = Int(p.u16(o))
        let start = o + (isLeaf(p) ? 4 : 6)
        guard start + len <= pageBytes else { throw AtollError.corrupted("B+tree key runs past its page") }
        return UnsafeRawBufferPointer(start: p + start, count: len)
    }

    /// Child pointer i (i == count: the right child) of an inner node.
    @inline(__always)
    static func child(_ p: UnsafeRawPointer, _ i: Int) throws -> PageNumber {
        if i == count(p) { return rightChild(p) }
        let o = try cellOffset(p, i)
        return p.u32(o + 2)
    }

    static func setChild(_ p: UnsafeMutableRawPointer, _ i: Int, _ child: PageNumber) throws {
        if i == count(p) { p.setU32(12, child); return }
        let o = try cellOffset(UnsafeRawPointer(p), i)
        p.setU32(o + 2, child)
    }

    enum ValueLocation {
        case inline(UnsafeRawBufferPointer)
        case blob(PageNumber, Int)
    }

    static func value(_ p: UnsafeRawPointer, _ i: Int) throws -> ValueLocation {
        let o = try cellOffset(p, i)
        let keyLen = Int(p.u16(o))
        let word = p.u16(o + 2)
        let start = o + 4 + keyLen
        if word == overflowFlag {
            guard start + overflowReferenceBytes <= pageBytes else { throw AtollError.corrupted("B+tree value runs past its page") }
            return .blob(p.u32(start), Int(p.u32(start + 4)))
        }
        let len = Int(word)
        guard word < overflowFlag, start + len <= pageBytes else { throw AtollError.corrupted("B+tree value runs past its page") }
        return .inline(UnsafeRawBufferPointer(start: p + start, count: len))
    }

    static func cellSize(_ p: UnsafeRawPointer, at o: Int) -> Int {
        let keyLen = Int(p.u16(o))
        if isLeaf(p) {
            let word = p.u16(o + 2)
            return 4 + keyLen + (word == overflowFlag ? overflowReferenceBytes : Int(word))
        }
        return 6 + keyLen
    }

    static func freeBytes(_ p: UnsafeRawPointer) -> Int {
        heapStart(p) - headerBytes - 2 * count(p)
    }

    /// Bytes used by cells and their slots.
    static func usedBytes(_ p: UnsafeRawPointer) -> Int {
        (pageBytes - heapStart(p) - garbage(p)) + 2 * count(p)
    }

    static func initialize(_ p: UnsafeMutableRawPointer, leaf: Bool) {
        p.initializeMemory(as: UInt8.self, repeating: 0, count: headerBytes)
        p.setU8(4, leaf ? PageType.btreeLeaf.rawValue : PageType.btreeInner.rawValue)
        p.setU16(6, 0)
        p.setU16(10, 0)
        p.setU32(12, 0)
        setHeapStart(p, pageBytes)
    }

    @inline(__always)
    static func setHeapStart(_ p: UnsafeMutableRawPointer, _ v: Int) {
        // 4096 is represented as 0 (an empty heap); no cell can start at offset 0.
        p.setU16(8, UInt16(truncatingIfNeeded: v == pageBytes ? 0 : v))
    }

    /// Compares two byte strings lexicographically (shorter prefix first).
    @inline(__always)
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let n = min(a.count, b.count)
        if n > 0, let pa = a.baseAddress, let pb = b.baseAddress {
            let c = memcmp(pa, pb, n)
            if c != 0 { return c < 0 ? -1 : 1 }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// First index whose key is >= `key`, and whether it is equal.
    static func lowerBound(_ p: UnsafeRawPointer, _ key: UnsafeRawBufferPointer) throws -> (Int, Bool) {
        var lo = 0, hi = count(p)
        while lo < hi {
            let mid = (lo + hi) >> 1
            if compare(try self.key(p, mid), key) < 0 { lo = mid + 1 } else { hi = mid }
        }
        if lo < count(p), compare(try self.key(p, lo), key) == 0 { return (lo, true) }
        return (lo, false)
    }

    /// Index of the child pointer to follow for `key` in an inner node (count == right child).
    static func childIndex(_ p: UnsafeRawPointer, _ key: UnsafeRawBufferPointer) throws -> Int {
        var lo = 0, hi = count(p)
        while lo < hi { // first i with key < key(i)
            let mid = (lo + hi) >> 1
            if compare(key, try self.key(p, mid)) < 0 { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }

    // MARK: mutation of a page the current transaction owns

    /// Inserts a prepared cell at slot `i`. Returns false when it does not fit.
    static func insertCell(_ p: UnsafeMutableRawPointer, at i: Int, _ cell: UnsafeRawBufferPointer) -> Bool {
        let n = count(p)
        if freeBytes(p) < cell.count + 2 {
            guard freeBytes(p) + garbage(p) >= cell.count + 2 else { return false }
            defragment(p)
        }
        let start = heapStart(p) - cell.count
        if let src = cell.baseAddress { (p + start).copyMemory(from: src, byteCount: cell.count) }
        setHeapStart(p, start)
        let slots = p + headerBytes
        if i < n { (slots + 2 * (i + 1)).copyMemory(from: slots + 2 * i, byteCount: 2 * (n - i)) }
        p.setU16(headerBytes + 2 * i, UInt16(start))
        p.setU16(6, UInt16(n + 1))
        return true
    }

    static func removeCell(_ p: UnsafeMutableRawPointer, at i: Int) {
        let n = count(p)
        let o = Int(p.u16(headerBytes + 2 * i))
        let size = cellSize(UnsafeRawPointer(p), at: o)
        if o == heapStart(p) { setHeapStart(p, o + size) } else { p.setU16(10, UInt16(garbage(p) + size)) }
        let slots = p + headerBytes
        if i < n - 1 { (slots + 2 * i).copyMemory(from: slots + 2 * (i + 1), byteCount: 2 * (n - 1 - i)) }
        p.setU16(6, UInt16(n - 1))
        if n - 1 == 0 { setHeapStart(p, pageBytes); p.setU16(10, 0) }
    }

    /// Rewrites the heap without garbage.
    static func defragment(_ p: UnsafeMutableRawPointer) {
        let n = count(p)
        var cells: [[UInt8]] = []
        cells.reserveCapacity(n)
        for i in 0..<n {
            let o = Int(p.u16(headerBytes + 2 * i))
            let size = cellSize(UnsafeRawPointer(p), at: o)
            cells.append(Array(UnsafeRawBufferPointer(start: p + o, count: size)))
        }
        var top = pageBytes
        for (i, c) in cells.enumerated() {
            top -= c.count
            c.withUnsafeBytes { if let src = $0.baseAddress { (p + top).copyMemory(from: src, byteCount: c.count) } }
            p.setU16(headerBytes + 2 * i, UInt16(top))
        }
        setHeapStart(p, top)
        p.setU16(10, 0)
    }

    /// Copies cell i out as bytes.
    static func cellBytes(_ p: UnsafeRawPointer, _ i: Int) throws -> [UInt8] {
        let o = try cellOffset(p, i)
        let size = cellSize(p, at: o)
        guard o + size <= pageBytes else { throw AtollError.corrupted("B+tree cell runs past its page") }
        return Array(UnsafeRawBufferPointer(start: p + o, count: size))
    }

    /// Rebuilds a node from scratch with the given cells (already in key order).
    static func rebuild(_ p: UnsafeMutableRawPointer, leaf: Bool, cells: ArraySlice<[UInt8]>, rightChild: PageNumber) {
        initialize(p, leaf: leaf)
        p.setU32(12, rightChild)
        var i = 0
        for c in cells {
            let ok = c.withUnsafeBytes { insertCell(p, at: i, $0) }
            assert(ok, "rebuild overflow")
            i += 1
        }
    }

    static func leafCell(key: UnsafeRawBufferPointer, inlineValue: UnsafeRawBufferPointer) -> [UInt8] {
        var w = ByteWriter(capacity: 4 + key.count + inlineValue.count)
        w.u16(UInt16(key.count))
        w.u16(UInt16(inlineValue.count))
        w.append(key)
        w.append(inlineValue)
        return w.bytes
    }

    static func overflowCell(key: UnsafeRawBufferPointer, blob: PageNumber, length: Int) -> [UInt8] {
        var w = ByteWriter(capacity: 4 + key.count + 8)
        w.u16(UInt16(key.count))
        w.u16(overflowFlag)
        w.append(key)
        w.u32(blob)
        w.u32(UInt32(length))
        return w.bytes
    }

    static func innerCell(key: UnsafeRawBufferPointer, child: PageNumber) -> [UInt8] {
        var w = ByteWriter(capacity: 6 + key.count)
        w.u16(UInt16(key.count))
        w.u32(child)
        w.append(key)
        return w.bytes
    }

    /// Key bytes of a cell produced by leafCell/overflowCell/innerCell.
    static func keyOfCell(_ cell: [UInt8], leaf: Bool) -> ArraySlice<UInt8> {
        let len = Int(cell[0]) | Int(cell[1]) << 8
        let start = leaf ? 4 : 6
        return cell[start..<(start + len)]
    }
}

#if canImport(Glibc)
import Glibc
#endif
