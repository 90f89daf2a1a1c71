public import Foundation
public import AtollStorage

extension ObjectId {
    /// A new unique id (RealmSwift's spelling of `ObjectId()`).
    public static func generate() -> ObjectId { ObjectId() }

    /// The id written as 24 hexadecimal digits in source: `ObjectId("1234567890abcdef12345678")`.
    /// Anything else is a programming error (use `init(string:)` for input).
    public init(_ string: StaticString) {
        do { try self.init(string: "\(string)") } catch { atollProgrammerError("invalid ObjectId literal: \(error)") }
    }

    /// An id with the given timestamp (seconds), machine and process identifiers, as
    /// RealmSwift's `ObjectId(timestamp:machineId:processId:)`: 4 bytes of time, 3 of machine,
    /// 2 of process, then 3 bytes of a counter.
    public init(timestamp: Date, machineId: Int, processId: Int) {
        let seconds = UInt32(truncatingIfNeeded: Int64(timestamp.timeIntervalSince1970.rounded(.down)))
        let counter = ObjectId().bytes.suffix(3)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(12)
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: seconds >> UInt32(shift))) }
        for shift in stride(from: 16, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: machineId >> shift)) }
        for shift in stride(from: 8, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: processId >> shift)) }
        bytes.append(contentsOf: counter)
        self = ObjectId(bytes: bytes)!
    }

    /// The 24 lowercase hexadecimal digits.
    public var stringValue: String { description }
}

extension ObjectId: Codable {
    /// Decodes the 24-digit hexadecimal string form.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(string: text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not an ObjectId (24 hexadecimal digits)"))
        }
    }

    /// Encodes the 24-digit hexadecimal string form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
