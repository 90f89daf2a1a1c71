public import Foundation
import Synchronization

/// A 12-byte identifier generated the way MongoDB (and Realm) generate theirs, so ids are unique
/// across processes and machines without coordination, and sort roughly by creation time.
///
/// Layout (all fields big-endian, so bytewise order = time order first):
///
/// | bytes  | meaning                                                          |
/// |--------|------------------------------------------------------------------|
/// | 0..<4  | seconds since the Unix epoch when the id was generated           |
/// | 4..<9  | a random value chosen once per process                           |
/// | 9..<12 | a counter, starting at a random value, incremented for every id  |
///
/// ```swift
/// let id = ObjectId()
/// print(id)                                  // "65f1c0d2a1b2c3d4e5000001"
/// let same = try ObjectId(string: id.description)
/// assert(same == id && same.timestamp <= Date())
/// ```
///
/// Ids compare bytewise (`<` is the order of ``bytes``), which is the order Realm uses.
public struct ObjectId: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Bytes 0..<8, big-endian: comparing `(high, low)` is comparing the bytes.
    private let high: UInt64
    /// Bytes 8..<12, big-endian.
    private let low: UInt32

    /// The number of bytes in an ObjectId.
    public static let byteCount = 12

    /// A new, unique id stamped with the current time.
    ///
    /// O(1); thread-safe (the counter is atomic).
    public init() {
        let seconds = UInt32(truncatingIfNeeded: Int64(Date().timeIntervalSince1970.rounded(.down)))
        let counter = ObjectIdGenerator.counter.add(1, ordering: .relaxed).newValue & 0x00FF_FFFF
        let random = ObjectIdGenerator.processRandom  // 40 bits
        high = UInt64(seconds) << 32 | (random >> 8)
        low = UInt32(truncatingIfNeeded: random & 0xFF) << 24 | counter
    }

    /// The id whose 24-character hexadecimal form is `string` (either case).
    ///
    /// - Throws: `AtollError` of kind `.invalidArgument` unless `string` is exactly 24 hex digits.
    public init(string: String) throws {
        let utf8 = Array(string.utf8)
        guard utf8.count == 2 * Self.byteCount else {
            throw AtollError(.invalidArgument, "an ObjectId is 24 hexadecimal digits, but '\(string)' has \(string.count) characters")
        }
        var bytes = [UInt8](repeating: 0, count: Self.byteCount)
        for index in 0..<Self.byteCount {
            guard let hi = Self.hexValue(utf8[2 * index]), let lo = Self.hexValue(utf8[2 * index + 1]) else {
                throw AtollError(.invalidArgument, "'\(string)' is not a valid ObjectId: only hexadecimal digits 0-9, a-f are allowed")
            }
            bytes[index] = hi << 4 | lo
        }
        self.init(validatedBytes: bytes)
    }

    /// The id made of exactly these 12 bytes, or nil if `bytes` does not hold exactly 12.
    public init?(bytes: some Collection<UInt8>) {
        let array = Array(bytes)
        guard array.count == Self.byteCount else { return nil }
        self.init(validatedBytes: array)
    }

    private init(validatedBytes bytes: [UInt8]) {
        var high: UInt64 = 0
        for byte in bytes[0..<8] { high = high << 8 | UInt64(byte) }
        var low: UInt32 = 0
        for byte in bytes[8..<12] { low = low << 8 | UInt32(byte) }
        self.high = high
        self.low = low
    }

    /// The 12 bytes, timestamp first.
    public var bytes: [UInt8] {
        var result = [UInt8]()
        result.reserveCapacity(Self.byteCount)
        for shift in stride(from: 56, through: 0, by: -8) { result.append(UInt8(truncatingIfNeeded: high >> UInt64(shift))) }
        for shift in stride(from: 24, through: 0, by: -8) { result.append(UInt8(truncatingIfNeeded: low >> UInt32(shift))) }
        return result
    }

    /// When the id was generated, to the second.
    public var timestamp: Date {
        Date(timeIntervalSince1970: TimeInterval(UInt32(truncatingIfNeeded: high >> 32)))
    }

    /// 24 lowercase hexadecimal digits.
    public var description: String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(2 * Self.byteCount)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Per-process state behind `ObjectId()`.
private enum ObjectIdGenerator {
    /// 40 random bits chosen once per process, so two processes started in the same second
    /// (or two machines) do not collide.
    static let processRandom: UInt64 = UInt64.random(in: 0..<(1 << 40))
    /// The low 24 bits are used; starts at a random value as MongoDB specifies.
    static let counter = Atomic<UInt32>(UInt32.random(in: 0..<(1 << 24)))
}
