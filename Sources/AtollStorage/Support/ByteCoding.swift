/// Little-endian, unaligned loads and stores on raw memory, and LEB128 varints.
///
/// The file format is little-endian throughout (see docs/FORMAT.md). These helpers are the only
/// place that knows it; everything that reads or writes page bytes goes through them.

extension UnsafeRawPointer {
    @inlinable @inline(__always) func u8(_ offset: Int) -> UInt8 { load(fromByteOffset: offset, as: UInt8.self) }
    @inlinable @inline(__always) func u16(_ offset: Int) -> UInt16 { UInt16(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self)) }
    @inlinable @inline(__always) func u32(_ offset: Int) -> UInt32 { UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    @inlinable @inline(__always) func u64(_ offset: Int) -> UInt64 { UInt64(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
    @inlinable @inline(__always) func i64(_ offset: Int) -> Int64 { Int64(bitPattern: u64(offset)) }
    @inlinable @inline(__always) func f32(_ offset: Int) -> Float { Float(bitPattern: u32(offset)) }
    @inlinable @inline(__always) func f64(_ offset: Int) -> Double { Double(bitPattern: u64(offset)) }
}

extension UnsafeMutableRawPointer {
    @inline(__always) func setU8(_ offset: Int, _ v: UInt8) { storeBytes(of: v, toByteOffset: offset, as: UInt8.self) }
    @inline(__always) func setU16(_ offset: Int, _ v: UInt16) { storeBytes(of: v.littleEndian, toByteOffset: offset, as: UInt16.self) }
    @inline(__always) func setU32(_ offset: Int, _ v: UInt32) { storeBytes(of: v.littleEndian, toByteOffset: offset, as: UInt32.self) }
    @inline(__always) func setU64(_ offset: Int, _ v: UInt64) { storeBytes(of: v.littleEndian, toByteOffset: offset, as: UInt64.self) }
    @inline(__always) func setI64(_ offset: Int, _ v: Int64) { setU64(offset, UInt64(bitPattern: v)) }
}

/// Appends binary values to a growable byte array.
package struct ByteWriter {
    package var bytes: [UInt8]

    package init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    package var count: Int { bytes.count }

    package mutating func u8(_ v: UInt8) { bytes.append(v) }
    package mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    package mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    package mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    package mutating func u32BigEndian(_ v: UInt32) { withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) } }
    package mutating func u64BigEndian(_ v: UInt64) { withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) } }
    package mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    package mutating func f32(_ v: Float) { u32(v.bitPattern) }
    package mutating func f64(_ v: Double) { u64(v.bitPattern) }
    package mutating func append(_ other: some Collection<UInt8>) { bytes.append(contentsOf: other) }
    package mutating func append(_ buffer: UnsafeRawBufferPointer) { bytes.append(contentsOf: buffer) }

    /// Unsigned LEB128. (A plain append per byte: encoding into a scratch and appending it at
    /// once measured no faster.)
    package mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Signed values zigzag-encoded, then LEB128.
    package mutating func zigzag(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    /// A length-prefixed byte string.
    package mutating func blob(_ data: some Collection<UInt8>) {
        varint(UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    package mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }
}

/// Reads binary values from a byte buffer, with bounds checks that throw instead of trapping:
/// everything read from a file or the network goes through a reader like this.
///
/// What a failed read means depends on where the bytes came from (`Source`): bytes of this
/// process's own file that do not parse are a damaged file (`.fileCorrupted`); bytes a peer sent
/// are the peer's protocol violation (`.protocolViolation`), never a claim about the file.
package struct ByteReader {
    /// Where the bytes being read came from.
    package enum Source: Sendable {
        /// A file of this process (pages, stored records).
        case file
        /// A peer over the network (messages, changesets as received).
        case peer
    }

    package let base: UnsafeRawPointer?
    package let count: Int
    package var offset: Int = 0
    package let context: String
    package let source: Source

    package init(_ buffer: UnsafeRawBufferPointer, context: String, source: Source = .file) {
        base = buffer.baseAddress
        count = buffer.count
        self.context = context
        self.source = source
    }

    package var remaining: Int { count - offset }
    package var isAtEnd: Bool { offset >= count }

    private func fail(_ what: String) -> AtollError {
        switch source {
        case .file:
            AtollError.corrupted("\(context): \(what) at byte \(offset) of \(count)")
        case .peer:
            AtollError(.protocolViolation, "malformed \(context): \(what) at byte \(offset) of \(count)")
        }
    }

    @inline(__always)
    private mutating func take(_ n: Int) throws -> UnsafeRawPointer {
        guard n >= 0, n <= count - offset, let base else { throw fail("unexpected end of data") }
        let p = base + offset
        offset += n
        return p
    }

    package mutating func u8() throws -> UInt8 { try take(1).u8(0) }
    package mutating func u16() throws -> UInt16 { try take(2).u16(0) }
    package mutating func u32() throws -> UInt32 { try take(4).u32(0) }
    package mutating func u64() throws -> UInt64 { try take(8).u64(0) }
    package mutating func u32BigEndian() throws -> UInt32 { UInt32(bigEndian: try take(4).loadUnaligned(as: UInt32.self)) }
    package mutating func u64BigEndian() throws -> UInt64 { UInt64(bigEndian: try take(8).loadUnaligned(as: UInt64.self)) }
    package mutating func i64() throws -> Int64 { Int64(bitPattern: try u64()) }
    package mutating func f32() throws -> Float { Float(bitPattern: try u32()) }
    package mutating func f64() throws -> Double { Double(bitPattern: try u64()) }

    package mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try u8()
            if shift == 63 && byte > 1 { throw fail("varint overflow") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { throw fail("varint too long") }
        }
    }

    package mutating func zigzag() throws -> Int64 {
        let v = try varint()
        return Int64(bitPattern: (v >> 1) ^ (0 &- (v & 1)))
    }

    /// A varint that must fit in Int and not exceed `limit`.
    package mutating func length(max limit: Int) throws -> Int {
        let v = try varint()
        guard v <= UInt64(limit) else { throw fail("length \(v) exceeds \(limit)") }
        return Int(v)
    }

    package mutating func bytes(_ n: Int) throws -> UnsafeRawBufferPointer {
        let p = try take(n)
        return UnsafeRawBufferPointer(start: p, count: n)
    }

    package mutating func blob(max limit: Int = Int(Int32.max)) throws -> [UInt8] {
        let n = try length(max: limit)
        return Array(try bytes(n))
    }

    /// A length-prefixed UTF-8 string. From a peer, invalid UTF-8 is refused: repairing it with
    /// replacement characters would make byte-different names read as one.
    package mutating func string(max limit: Int = Int(Int32.max)) throws -> String {
        let n = try length(max: limit)
        let start = offset
        let b = try bytes(n)
        guard source == .peer else { return String(decoding: b, as: UTF8.self) }
        guard let s = String(validating: b, as: UTF8.self) else {
            offset = start
            throw fail("string of \(n) bytes that is not valid UTF-8")
        }
        return s
    }
}

extension UnsafeMutableRawPointer {
    @inline(__always) func u8(_ offset: Int) -> UInt8 { UnsafeRawPointer(self).u8(offset) }
    @inline(__always) func u16(_ offset: Int) -> UInt16 { UnsafeRawPointer(self).u16(offset) }
    @inline(__always) func u32(_ offset: Int) -> UInt32 { UnsafeRawPointer(self).u32(offset) }
    @inline(__always) func u64(_ offset: Int) -> UInt64 { UnsafeRawPointer(self).u64(offset) }
    @inline(__always) func i64(_ offset: Int) -> Int64 { UnsafeRawPointer(self).i64(offset) }
}
