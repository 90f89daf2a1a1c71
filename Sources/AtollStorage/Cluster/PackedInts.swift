// Bit-packed integer arrays (frame of reference): every value is stored as (value - base) in
// `width` bits, width ∈ {0, 1, 2, 4, 8, 16, 32, 64}, little-endian, LSB-first within a byte.
// A column of equal values takes no bytes at all; a column of ages takes one byte per row.

/// A read-only view of a packed array in memory (a page, or a mutable leaf's buffer with
/// width 64 or 8). Trivial to copy: a pointer and two integers, no reference counting.
@usableFromInline package struct PackedInts {
    @usableFromInline package let data: UnsafeRawPointer
    @usableFromInline package let width: Int
    @usableFromInline package let base: Int64

    @inlinable
    init(data: UnsafeRawPointer, width: Int, base: Int64) {
        self.data = data
        self.width = width
        self.base = base
    }

    @inlinable @inline(__always)
    package subscript(i: Int) -> Int64 {
        switch width {
        case 0: return base
        case 1: return base &+ Int64((data.u8(i >> 3) >> UInt8(i & 7)) & 1)
        case 2: return base &+ Int64((data.u8(i >> 2) >> UInt8((i & 3) << 1)) & 3)
        case 4: return base &+ Int64((data.u8(i >> 1) >> UInt8((i & 1) << 2)) & 15)
        case 8: return base &+ Int64(data.u8(i))
        case 16: return base &+ Int64(data.u16(i << 1))
        case 32: return base &+ Int64(data.u32(i << 2))
        default: return base &+ Int64(bitPattern: data.u64(i << 3))
        }
    }

    /// Writes the rows of `input` whose value lies in `range` to `output` (which has room for
    /// all of `input`), keeping their order; returns how many. One loop per width, comparing
    /// the stored offsets from `base`, so a row costs a load and one unsigned comparison.
    @inlinable
    package func select(in range: ClosedRange<Int64>, from input: UnsafeBufferPointer<Int>,
                        into output: UnsafeMutableBufferPointer<Int>) -> Int
    {
        // The range in stored units (value - base), clipped to what `width` bits can hold.
        let maxStored: Int128 = width == 0 ? 0 : width == 64 ? Int128(UInt64.max) : (Int128(1) << width) - 1
        let lo = max(Int128(range.lowerBound) - Int128(base), 0)
        let hi = min(Int128(range.upperBound) - Int128(base), maxStored)
        guard lo <= hi, let out = output.baseAddress, let rows = input.baseAddress else { return 0 }
        let first = UInt64(lo), span = UInt64(hi - lo)
        let count = input.count
        switch width {
        case 0:
            // Every value is `base`, inside the range (lo <= hi).
            out.update(from: rows, count: count)
            return count
        case 1: return Self.select(StoredBits<Width1>(data), first, span, rows, count, out)
        case 2: return Self.select(StoredBits<Width2>(data), first, span, rows, count, out)
        case 4: return Self.select(StoredBits<Width4>(data), first, span, rows, count, out)
        case 8: return Self.select(Stored8(data), first, span, rows, count, out)
        case 16: return Self.select(Stored16(data), first, span, rows, count, out)
        case 32: return Self.select(Stored32(data), first, span, rows, count, out)
        default: return Self.select(Stored64(data), first, span, rows, count, out)
        }
    }

    /// The loop of `select(in:from:into:)` for one width (specialized per loader when optimized).
    @inlinable @inline(__always)
    static func select<L: StoredValues>(_ stored: L, _ first: UInt64, _ span: UInt64, _ rows: UnsafePointer<Int>, _ count: Int,
                                        _ out: UnsafeMutablePointer<Int>) -> Int
    {
        var n = 0
        // Rows 0..<count (the first test of a leaf): no need to load the row numbers.
        if count > 0 && rows[0] == 0 && rows[count - 1] == count - 1 {
            for r in 0..<count {
                out[n] = r
                n &+= (stored[r] &- first) <= span ? 1 : 0
            }
        } else {
            for i in 0..<count {
                let r = rows[i]
                out[n] = r
                n &+= (stored[r] &- first) <= span ? 1 : 0
            }
        }
        return n
    }

    /// ANDs into `bits` (one bit per row, `rowCount` rows) whether each value lies in `range`:
    /// a row's bit stays set only if it was set and its value is in the range. One pass per
    /// width with no branch per row.
    @inlinable
    package func intersect(in range: ClosedRange<Int64>, rowCount: Int, bits: UnsafeMutablePointer<UInt64>) {
        let maxStored: Int128 = width == 0 ? 0 : width == 64 ? Int128(UInt64.max) : (Int128(1) << width) - 1
        let lo = max(Int128(range.lowerBound) - Int128(base), 0)
        let hi = min(Int128(range.upperBound) - Int128(base), maxStored)
        let words = (rowCount + 63) >> 6
        guard lo <= hi else {
            bits.update(repeating: 0, count: words)
            return
        }
        if width == 0 { return }
        let first = UInt64(lo), span = UInt64(hi - lo)
        switch width {
        case 1: Self.intersectBits(data, wantOnes: first == 1, all: first == 0 && span == 1, rowCount: rowCount, words: words, bits: bits)
        case 2: Self.intersect(StoredBits<Width2>(data), first, span, rowCount, words, bits)
        case 4: Self.intersect(StoredBits<Width4>(data), first, span, rowCount, words, bits)
        case 8: Self.intersect(Stored8(data), first, span, rowCount, words, bits)
        case 16: Self.intersect(Stored16(data), first, span, rowCount, words, bits)
        case 32: Self.intersect(Stored32(data), first, span, rowCount, words, bits)
        default: Self.intersect(Stored64(data), first, span, rowCount, words, bits)
        }
    }

    /// Width 1: the packed bits are the rows' bitmap already: keep the rows with 1, with 0, or all.
    @inlinable
    static func intersectBits(_ data: UnsafeRawPointer, wantOnes: Bool, all: Bool, rowCount: Int, words: Int, bits: UnsafeMutablePointer<UInt64>) {
        if all { return }
        let bytes = (rowCount + 7) >> 3
        for w in 0..<words {
            var word: UInt64 = 0
            let start = w << 3
            if start + 8 <= bytes {
                word = data.u64(start)
            } else {
                for b in start..<bytes { word |= UInt64(data.u8(b)) << UInt64((b - start) << 3) }
            }
            bits[w] &= wantOnes ? word : ~word
        }
    }

    /// The loop of `intersect(in:rowCount:bits:)` for one width.
    @inlinable @inline(__always)
    static func intersect<L: StoredValues>(_ stored: L, _ first: UInt64, _ span: UInt64, _ rowCount: Int, _ words: Int,
                                           _ bits: UnsafeMutablePointer<UInt64>)
    {
        var w = 0
        while w < words {
            var word: UInt64 = 0
            let start = w &<< 6
            let n = min(64, rowCount &- start)
            var i = 0
            while i < n {
                word |= ((stored[start &+ i] &- first) <= span ? 1 : 0) &<< UInt64(i)
                i &+= 1
            }
            bits[w] &= word
            w &+= 1
        }
    }

    @inlinable @inline(__always)
    package func unsigned(_ i: Int) -> UInt64 { UInt64(bitPattern: self[i]) }

    /// Bytes needed for `count` values of `width` bits.
    @inlinable @inline(__always)
    static func byteCount(count: Int, width: Int) -> Int { (count * width + 7) >> 3 }

    /// Smallest supported width that holds every value in min...max as an offset from min.
    static func width(min: Int64, max: Int64) -> Int {
        let range = UInt64(bitPattern: max) &- UInt64(bitPattern: min)
        if range == 0 { return 0 }
        if range < 2 { return 1 }
        if range < 4 { return 2 }
        if range < 16 { return 4 }
        if range < 256 { return 8 }
        if range < 65536 { return 16 }
        if range < 1 << 32 { return 32 }
        return 64
    }

    static func isValidWidth(_ w: Int) -> Bool { w == 0 || w == 1 || w == 2 || w == 4 || w == 8 || w == 16 || w == 32 || w == 64 }

    /// Packs `count` values produced by `value(i)` at `dest` (which must hold byteCount bytes).
    @inline(__always)
    static func pack(into dest: UnsafeMutableRawPointer, count: Int, width: Int, base: Int64, _ value: (Int) -> Int64) {
        let bytes = byteCount(count: count, width: width)
        switch width {
        case 0: return
        case 1, 2, 4:
            dest.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
            let perByte = 8 / width
            for i in 0..<count {
                let v = UInt8(truncatingIfNeeded: value(i) &- base)
                let byteIndex = i / perByte
                let shift = UInt8((i % perByte) * width)
                dest.setU8(byteIndex, dest.u8(byteIndex) | (v << shift))
            }
        case 8: for i in 0..<count { dest.setU8(i, UInt8(truncatingIfNeeded: value(i) &- base)) }
        case 16: for i in 0..<count { dest.setU16(i << 1, UInt16(truncatingIfNeeded: value(i) &- base)) }
        case 32: for i in 0..<count { dest.setU32(i << 2, UInt32(truncatingIfNeeded: value(i) &- base)) }
        default: for i in 0..<count { dest.setU64(i << 3, UInt64(bitPattern: value(i) &- base)) }
        }
    }
}

/// Reads the stored offsets (value - base) of one packed width: the selection loops are
/// generic over these so that each width gets its own loop (specialized when optimized), with
/// no closure or allocation per call.
@usableFromInline
protocol StoredValues {
    subscript(i: Int) -> UInt64 { get }
}

@usableFromInline
protocol SubByteWidth {
    static var bits: Int { get }
}

@usableFromInline enum Width1: SubByteWidth { @inlinable static var bits: Int { 1 } }
@usableFromInline enum Width2: SubByteWidth { @inlinable static var bits: Int { 2 } }
@usableFromInline enum Width4: SubByteWidth { @inlinable static var bits: Int { 4 } }

@usableFromInline
struct StoredBits<W: SubByteWidth>: StoredValues {
    @usableFromInline let data: UnsafeRawPointer
    @inlinable init(_ data: UnsafeRawPointer) { self.data = data }
    @inlinable @inline(__always) subscript(i: Int) -> UInt64 {
        let perByteShift = W.bits == 1 ? 3 : W.bits == 2 ? 2 : 1
        let shift = UInt8((i & ((1 << perByteShift) - 1)) * W.bits)
        return UInt64((data.u8(i >> perByteShift) >> shift) & UInt8((1 << W.bits) - 1))
    }
}

@usableFromInline
struct Stored8: StoredValues {
    @usableFromInline let data: UnsafeRawPointer
    @inlinable init(_ data: UnsafeRawPointer) { self.data = data }
    @inlinable @inline(__always) subscript(i: Int) -> UInt64 { UInt64(data.u8(i)) }
}

@usableFromInline
struct Stored16: StoredValues {
    @usableFromInline let data: UnsafeRawPointer
    @inlinable init(_ data: UnsafeRawPointer) { self.data = data }
    @inlinable @inline(__always) subscript(i: Int) -> UInt64 { UInt64(data.u16(i << 1)) }
}

@usableFromInline
struct Stored32: StoredValues {
    @usableFromInline let data: UnsafeRawPointer
    @inlinable init(_ data: UnsafeRawPointer) { self.data = data }
    @inlinable @inline(__always) subscript(i: Int) -> UInt64 { UInt64(data.u32(i << 2)) }
}

@usableFromInline
struct Stored64: StoredValues {
    @usableFromInline let data: UnsafeRawPointer
    @inlinable init(_ data: UnsafeRawPointer) { self.data = data }
    @inlinable @inline(__always) subscript(i: Int) -> UInt64 { data.u64(i << 3) }
}

/// A bitmap view (null or external markers): bit set = marked. `width` 1 in pages, 8 (one byte
/// per row) in mutable leaves. A nil bitmap means "nothing marked".
@usableFromInline package struct RowMarks {
    @usableFromInline package let bits: PackedInts?

    @inlinable
    init(bits: PackedInts?) { self.bits = bits }

    @inlinable @inline(__always)
    package func isMarked(_ i: Int) -> Bool {
        guard let bits else { return false }
        return bits[i] != 0
    }

    @inlinable static var none: RowMarks { RowMarks(bits: nil) }
}
