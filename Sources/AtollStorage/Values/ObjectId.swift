/// A 12-byte object identifier (minimal storage-level form; the full type lands with the query
/// front end).
public struct ObjectId: Sendable, Hashable, Comparable {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws {
        guard bytes.count == 12 else { throw AtollError(.invalidArgument, "an ObjectId has 12 bytes, not \(bytes.count)") }
        self.bytes = bytes
    }

    init(twelveBytes: [UInt8]) { bytes = twelveBytes }

    public static func < (a: ObjectId, b: ObjectId) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
}
