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
