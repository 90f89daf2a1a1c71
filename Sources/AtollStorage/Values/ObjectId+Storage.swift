extension ObjectId {
    /// Reads the 12 raw bytes stored at `p`.
    static func load(from p: UnsafeRawPointer) -> ObjectId {
        ObjectId(twelveBytes: Array(UnsafeRawBufferPointer(start: p, count: 12)))
    }

    func store(to p: UnsafeMutableRawPointer) {
        for (i, b) in bytes.prefix(12).enumerated() { p.setU8(i, b) }
    }
}

extension ObjectId {
    /// The all-zero ObjectId (a default value).
    package static var zero: ObjectId { ObjectId(twelveBytes: [UInt8](repeating: 0, count: 12)) }
}
