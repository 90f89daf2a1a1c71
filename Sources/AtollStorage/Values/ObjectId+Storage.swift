extension ObjectId {
    /// An ObjectId from bytes known to be 12 long (shorter input is zero-padded, longer cut).
    init(twelveBytes: [UInt8]) {
        var padded = Array(twelveBytes.prefix(12))
        if padded.count < 12 { padded += [UInt8](repeating: 0, count: 12 - padded.count) }
        self = ObjectId(bytes: padded) ?? ObjectId()
    }

    /// Reads the 12 raw bytes stored at `p`.
    static func load(from p: UnsafeRawPointer) -> ObjectId {
        ObjectId(twelveBytes: Array(UnsafeRawBufferPointer(start: p, count: 12)))
    }

    func store(to p: UnsafeMutableRawPointer) {
        for (i, b) in bytes.prefix(12).enumerated() { p.setU8(i, b) }
    }

    /// The all-zero ObjectId (a default value).
    package static var zero: ObjectId { ObjectId(twelveBytes: []) }
}
