import struct Foundation.UUID

// Search index keys: an order-preserving, prefix-free encoding of a value.
//
//     null        0x00
//     bool        0x01, 0 | 1
//     int         0x02, 8 bytes big-endian of (value with the sign bit flipped)
//     string      0x03, UTF-8 with 0x00 escaped as 0x00 0xFF, then 0x00 0x00
//     long string 0x04, the first 384 bytes escaped as above, then 0x00 0x00 (a prefix key:
//                 lookups confirm candidates against the stored value)
//     timestamp   0x05, 8 bytes big-endian seconds (sign flipped), 4 bytes big-endian nanoseconds
//     uuid        0x06, 16 bytes
//     objectId    0x07, 12 bytes
//     decimal128  0x08, 18 bytes of Decimal128.orderedKey (canonical: 1.0 and 1 share a key)
//     binary      0x09, as a string (escaped, then 0x00 0x00; 0x0A and a prefix key past 384
//                 bytes); mixed columns only (typed binary columns are not indexable)
//     typed link  0x0B, 4 bytes big-endian table key, 8 bytes big-endian object key; mixed
//                 columns only
//
// In a mixed column (`encode(_:mixed:)`) every number, int, float, double or decimal128, is keyed
// as decimal128 (exactly: distinct doubles stay distinct, and NaNs key as the decimal NaN), so
// that int 1, double 1.0 and decimal 1.00, which a mixed comparison finds equal, share a key.
//
// Because the encoding is prefix-free, the index entries of one value are exactly the entries
// whose key starts with the value's encoding.

package enum IndexKey {
    package static let stringPrefixBytesMax = 384

    /// The key of a value of a mixed column (`mixed`) or of a typed one, and whether it is a
    /// prefix key (needs confirmation against the row).
    package static func encode(_ value: StorageValue, mixed: Bool) -> (bytes: [UInt8], isPrefix: Bool) {
        guard mixed else { return encode(value) }
        switch value {
        case .int(let i): return encode(.decimal128(Decimal128(i)))
        case .float(let f): return encode(.decimal128(f.isNaN ? .nan : Decimal128(exactly: Double(f))))
        case .double(let d): return encode(.decimal128(d.isNaN ? .nan : Decimal128(exactly: d)))
        case .binary(let bytes):
            var w = ByteWriter(capacity: bytes.count + 4)
            let isPrefix = bytes.withUnsafeBytes { appendString($0, to: &w, tag: 0x09, prefixTag: 0x0A) }
            return (w.bytes, isPrefix)
        case .typedLink(let t, let k):
            var w = ByteWriter(capacity: 13)
            w.u8(0x0B); w.u32BigEndian(t.rawValue); w.u64BigEndian(k.rawValue)
            return (w.bytes, false)
        // A nested collection is not indexed by its contents: a key of its own, which no value
        // a query looks up equals (realm-core's index likewise holds no collection contents).
        case .mixedList: return ([0x0C], false)
        case .mixedMap: return ([0x0D], false)
        default: return encode(value)
        }
    }

    /// The encoded key and whether it is a prefix key (needs confirmation against the row).

    package static func encode(_ value: StorageValue) -> (bytes: [UInt8], isPrefix: Bool) {
        var w = ByteWriter(capacity: 24)
        var isPrefix = false
        switch value {
        case .null: w.u8(0x00)
        case .bool(let b): w.u8(0x01); w.u8(b ? 1 : 0)
        case .int(let v): w.u8(0x02); w.u64BigEndian(UInt64(bitPattern: v) ^ (1 << 63))
        case .string(var s):
            s.withUTF8 { isPrefix = appendString(UnsafeRawBufferPointer($0), to: &w) }
        case .timestamp(let t):
            w.u8(0x05); w.u64BigEndian(UInt64(bitPattern: t.seconds) ^ (1 << 63)); w.u32BigEndian(UInt32(bitPattern: t.nanoseconds))
        case .uuid(let u): w.u8(0x06); withUnsafeBytes(of: u.uuid) { w.append($0) }
        case .objectId(let o): w.u8(0x07); w.append(o.bytes)
        case .decimal128(let d): w.u8(0x08); w.append(d.orderedKey)
        case .float, .double, .binary, .link, .typedLink, .mixedList, .mixedMap:
            // Not indexable (TableSpec.validate rejects such indexes); encode as null so a
            // programming error cannot corrupt an index.
            w.u8(0x00)
        }
        return (w.bytes, isPrefix)
    }

    /// The key of a string given as UTF-8 bytes (no String needed).
    static func encodeString(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var w = ByteWriter(capacity: bytes.count + 4)
        _ = appendString(bytes, to: &w)
        return w.bytes
    }

    /// Appends the tagged, escaped, terminated form; returns whether it was cut to a prefix.
    private static func appendString(_ utf8: UnsafeRawBufferPointer, to w: inout ByteWriter, tag: UInt8 = 0x03, prefixTag: UInt8 = 0x04) -> Bool {
        let isPrefix = utf8.count > stringPrefixBytesMax
        w.u8(isPrefix ? prefixTag : tag)
        for b in utf8.prefix(stringPrefixBytesMax) {
            w.u8(b)
            if b == 0 { w.u8(0xFF) }
        }
        w.u8(0); w.u8(0)
        return isPrefix
    }
}
